//! Importer for the `.dat` track graphs of the public Formula D collection (placeholder; being
//! written).

use std::path::Path;

use super::model::Track;
use super::problem::{TrackError, TrackProblem};

/// An imported track and what the importer had to infer.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The track.
    pub track: Track,
    /// Notes on inferred facts.
    pub notes: Vec<String>,
}

/// Imports a `.dat` file.
pub fn import_file(path: &Path) -> Result<Imported, TrackError> {
    Err(TrackError::single(Some(path.to_path_buf()), 0, TrackProblem::Syntax("not implemented yet".into())))
}

/// Writes an imported track as a TOML track file (placeholder).
pub fn to_toml(_imported: &Imported) -> Result<String, TrackError> {
    Err(TrackError::single(None, 0, TrackProblem::Syntax("not implemented yet".into())))
}
