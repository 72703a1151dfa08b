//! The hand-authored track file format (`tracks/*.toml`), as serde types.
//!
//! A moderator describes a lap as a sequence of segments (straights of N rows, corners with their
//! flag and per-lane lengths) starting just after the finish line; [`crate::track::load`] builds
//! the graph from it. The format is documented with a worked example in `docs/tracks.md`; keep
//! the two in step. These types only mirror the file; meaning is given by the loader.

use serde::{Deserialize, Serialize};
use toml::Spanned;

/// A whole track file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TrackFile {
    /// The file form: `"segments"` (this form, the default) or `"graph"` (`graph_file.rs`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Short name used on the command line (`monaco`).
    pub name: String,
    /// Human title; defaults to the name.
    #[serde(default)]
    pub title: Option<String>,
    /// Lanes of the racing track: 2, 3 or 4.
    pub lanes: Spanned<u8>,
    /// Lane letter along an oval's concrete wall (15-0-1), e.g. `"r"`.
    #[serde(default)]
    pub wall: Option<Spanned<String>>,
    /// The black-die weather table.
    pub weather: Spanned<WeatherFile>,
    /// The start grid: a number of slots (laid out automatically) or explicit space ids.
    #[serde(default)]
    pub grid: Option<Spanned<GridFile>>,
    /// The pit lane.
    pub pit: Spanned<PitFile>,
    /// The lap, from the finish line round to it again.
    #[serde(rename = "segment")]
    pub segments: Vec<Spanned<SegmentFile>>,
    /// Extra or removed arrows where a board has an odd one.
    #[serde(default, rename = "link")]
    pub links: Vec<Spanned<LinkFile>>,
    /// The real circuit's centre line, for the picture only.
    #[serde(default)]
    pub outline: Option<Spanned<OutlineFile>>,
}

/// `[outline]`: the circuit's centre line as a closed polyline in the direction of travel, the
/// first point on the finish line (x to the right, y down, any unit), and optionally the point
/// at the middle of each corner, corner 1 first.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct OutlineFile {
    /// `[[x, y], ...]`.
    pub points: Vec<[f64; 2]>,
    /// 0-based indices into `points`, one per corner, increasing.
    #[serde(default)]
    pub corners: Vec<usize>,
}

/// Faces of the black d20, as ranges like `"1-12"` or `"13"` or `"1-3, 19-20"`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WeatherFile {
    /// Faces giving sun.
    pub sun: String,
    /// Faces giving changeable weather.
    pub changeable: String,
    /// Faces giving rain.
    pub rain: String,
}

/// The grid: `grid = 10` or `grid = ["s9.l.12", "s9.r.11", ...]` (pole first).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum GridFile {
    /// This many slots, one per row going back from the line, alternating the outer lanes.
    Slots(usize),
    /// Explicit spaces, pole first.
    Spaces(Vec<String>),
}

/// The pit lane: a single lane beside the main straight (19-1).
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct PitFile {
    /// Racing space(s) whose arrow leads into the first pit-lane space.
    pub entry: OneOrMany,
    /// Racing space(s) the last pit-lane space leads to.
    pub exit: OneOrMany,
    /// Number of pit-lane spaces, boxes included.
    pub length: u16,
    /// Number of pit boxes (one per car, 4-0-2).
    pub boxes: u16,
    /// Pit-lane space (1-based) holding box 1; boxes follow one per space. Defaults to centring
    /// the boxes in the lane.
    #[serde(default)]
    pub first_box: Option<u16>,
}

/// One space id or a list of them.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single id.
    One(String),
    /// Several ids.
    Many(Vec<String>),
}

impl OneOrMany {
    /// The ids as a list.
    pub fn ids(&self) -> Vec<&str> {
        match self {
            OneOrMany::One(s) => vec![s.as_str()],
            OneOrMany::Many(v) => v.iter().map(String::as_str).collect(),
        }
    }
}

/// A straight or a corner. Exactly one of `straight` and `corner` is given.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SegmentFile {
    /// For a straight: its length in rows.
    #[serde(default)]
    pub straight: Option<u16>,
    /// For a corner: its number on the board (must follow the previous corner's).
    #[serde(default)]
    pub corner: Option<u16>,
    /// Explicit segment id (default `s<k>` for the straight after corner k, `c<k>` for corner k).
    #[serde(default)]
    pub id: Option<String>,
    /// Corner: required stops on the yellow flag (1, 2 or 3).
    #[serde(default)]
    pub stops: Option<u8>,
    /// Corner: shortest path in spaces (the flag's C).
    #[serde(default)]
    pub shortest: Option<u16>,
    /// Corner: longest path in spaces (the flag's L).
    #[serde(default)]
    pub longest: Option<u16>,
    /// Corner: which way it turns, `left` or `right`; sets which lane is the inside one when
    /// `lengths` is not given.
    #[serde(default)]
    pub turn: Option<String>,
    /// Corner: spaces in each lane, left lane first. Defaults from `turn`, `shortest` and
    /// `longest`: the inside lane gets C, the outside lane L, a middle lane their mean.
    #[serde(default)]
    pub lengths: Option<Vec<u16>>,
}

/// An arrow override: `add = ["a", "b"]` or `remove = ["a", "b"]`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LinkFile {
    /// Add an arrow from the first space to the second.
    #[serde(default)]
    pub add: Option<[String; 2]>,
    /// Remove the arrow from the first space to the second.
    #[serde(default)]
    pub remove: Option<[String; 2]>,
}
