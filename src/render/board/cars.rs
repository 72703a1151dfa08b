//! The cars file read by `steward track show --cars FILE`: where cars stand and which spaces are
//! dangerous, as a small TOML file.
//!
//! ```toml
//! dangerous = ["s6.l.4"]      # optional; must come before the first [[car]]
//!
//! [[car]]
//! number = 7
//! space = "c5.m.3"
//! ```

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use thiserror::Error;
use toml::Spanned;

use super::{BoardMarks, PlacedCar};
use crate::track::problem::line_of;
use crate::track::{SpaceIdx, Track};

/// What can be wrong with a cars file. Every message names the file and the line.
#[derive(Debug, Error)]
#[non_exhaustive]
pub enum CarsFileError {
    /// The file cannot be read.
    #[error("{}: cannot read the cars file: {source}", .path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// Not TOML, or not the cars schema.
    #[error("{}:{line}: {message} (expected `[[car]]` tables with `number = 7` and `space = \"c5.m.3\"`, and optionally `dangerous = [\"s6.l.4\"]`)", .path.display())]
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: u32,
        /// What the parser said.
        message: String,
    },
    /// A space id that names no space of the track.
    #[error("{}:{line}: no space `{id}` on {track} (ids look like `s0.m.3`, `c5.l.2`, `pit.4`)", .path.display())]
    UnknownSpace {
        /// The file.
        path: PathBuf,
        /// 1-based line.
        line: u32,
        /// The id as written.
        id: String,
        /// The track's name.
        track: String,
    },
    /// The same car number twice.
    #[error("{}:{line}: car {number} is placed twice (first on line {first})", .path.display())]
    DuplicateCar {
        /// The file.
        path: PathBuf,
        /// 1-based line of the second placement.
        line: u32,
        /// The car number.
        number: u8,
        /// Line of the first placement.
        first: u32,
    },
    /// Two cars on one space (a space holds one car).
    #[error("{}:{line}: car {number} is on {id}, where car {other} already stands", .path.display())]
    SpaceTaken {
        /// The file.
        path: PathBuf,
        /// 1-based line of the second car.
        line: u32,
        /// The second car.
        number: u8,
        /// The first car.
        other: u8,
        /// The space.
        id: String,
    },
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CarsFile {
    #[serde(default)]
    dangerous: Vec<Spanned<String>>,
    #[serde(default)]
    car: Vec<Spanned<CarEntry>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CarEntry {
    number: u8,
    space: Spanned<String>,
}

/// Reads a cars file for track `t`.
pub fn read_cars(path: &Path, t: &Track) -> Result<BoardMarks, CarsFileError> {
    let text =
        std::fs::read_to_string(path).map_err(|source| CarsFileError::Read { path: path.to_path_buf(), source })?;
    parse_cars(&text, path, t)
}

/// Parses the text of a cars file for track `t`; `path` is only used in messages.
pub fn parse_cars(text: &str, path: &Path, t: &Track) -> Result<BoardMarks, CarsFileError> {
    let path = path.to_path_buf();
    let parsed: CarsFile = toml::from_str(text).map_err(|e| CarsFileError::Syntax {
        path: path.clone(),
        line: e.span().map_or(0, |s| line_of(text, s.start)),
        message: e.message().trim().to_string(),
    })?;
    let find = |id: &Spanned<String>| -> Result<SpaceIdx, CarsFileError> {
        t.find(id.get_ref().trim()).ok_or_else(|| CarsFileError::UnknownSpace {
            path: path.clone(),
            line: line_of(text, id.span().start),
            id: id.get_ref().clone(),
            track: t.name.clone(),
        })
    };
    let mut marks = BoardMarks::default();
    for d in &parsed.dangerous {
        let s = find(d)?;
        if !marks.dangerous.contains(&s) {
            marks.dangerous.push(s);
        }
    }
    let mut numbers: HashMap<u8, u32> = HashMap::new();
    let mut taken: HashMap<SpaceIdx, u8> = HashMap::new();
    for c in &parsed.car {
        let line = line_of(text, c.span().start);
        let entry = c.get_ref();
        let space = find(&entry.space)?;
        if let Some(&first) = numbers.get(&entry.number) {
            return Err(CarsFileError::DuplicateCar { path, line, number: entry.number, first });
        }
        if let Some(&other) = taken.get(&space) {
            return Err(CarsFileError::SpaceTaken {
                path,
                line,
                number: entry.number,
                other,
                id: t.space(space).id.clone(),
            });
        }
        numbers.insert(entry.number, line);
        taken.insert(space, entry.number);
        marks.cars.push(PlacedCar { number: entry.number, space });
    }
    Ok(marks)
}
