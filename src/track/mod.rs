//! Tracks: the graph model, the hand-authored TOML format, the `.dat` importer, the structural
//! checks and the machine-readable facts.
//!
//! Everything steward does consumes "a car moves on a track", so this module depends on nothing
//! else in the crate. Loading is the only I/O here (`load`, `import`); the model itself is plain
//! data that the pure engine reads.

pub mod builder;
pub mod check;
pub mod file;
pub mod graph_file;
pub mod import;
pub mod info;
pub mod load;
pub mod load_graph;
pub mod model;
pub mod problem;
pub mod synthetic;
pub mod weather_ranges;

pub use builder::{SpaceDraft, TrackBuilder};
pub use model::{Corner, CornerIdx, Outline, ROW, Segment, Space, SpaceIdx, SpaceKind, Track, Weather, WeatherTable};
pub use problem::{Diagnostic, TrackError, TrackProblem};
