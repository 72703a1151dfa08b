//! The ASCII board (placeholder; being written).

use std::path::Path;

use crate::track::{SpaceIdx, Track};

/// A car to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedCar {
    /// The car's number.
    pub number: u8,
    /// Where it stands.
    pub space: SpaceIdx,
}

/// Reads a cars file (placeholder).
pub fn read_cars(_path: &Path, _t: &Track) -> anyhow::Result<Vec<PlacedCar>> {
    Ok(Vec::new())
}

/// Draws the board (placeholder).
pub fn draw(t: &Track, _cars: &[PlacedCar], _around: Option<SpaceIdx>) -> String {
    format!("{}\n", t.title)
}
