//! What can be wrong with a track, as typed values with messages a moderator can act on.
//!
//! Loaders and the checker never stop at the first problem: they collect [`Diagnostic`]s so that
//! `steward track check` reports everything at once, each with its file line where known.

use std::fmt;
use std::path::PathBuf;

use thiserror::Error;

/// One thing wrong with a track.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum TrackProblem {
    /// The file is not valid TOML or does not follow the schema.
    #[error("{0}")]
    Syntax(String),
    /// A field has a value outside what the rules allow.
    #[error("{field}: {message}")]
    BadValue { field: String, message: String },
    /// A space id that names no space of the track.
    #[error("no space `{0}` on this track (ids look like `s0.m.3`, `c5.l.2`, `pit.4`; see docs/tracks.md)")]
    UnknownSpace(String),
    /// Two segments with the same id.
    #[error("segment id `{0}` is used twice; give one of them an explicit `id`")]
    DuplicateSegment(String),
    /// The weather table leaves a face of the black die without weather.
    #[error("weather table gives nothing for black-die face {0} (3-0-1: every face 1..20 needs a weather)")]
    WeatherGap(u8),
    /// The weather table gives two weathers to one face.
    #[error("weather table gives black-die face {0} two weathers")]
    WeatherOverlap(u8),
    /// A corner lane shorter than the corner's shortest path or longer than its longest.
    #[error(
        "corner {corner}: lane {lane} has {length} spaces, outside the flag's {shortest}..{longest} (7-1-1: C = shortest, L = longest path)"
    )]
    LaneLength { corner: u16, lane: String, length: u16, shortest: u16, longest: u16 },
    /// The graph's shortest or longest way through a corner disagrees with its flag.
    #[error(
        "corner {corner}: the flag says {shortest}/{longest} spaces but the arrows give {computed_shortest}/{computed_longest}"
    )]
    CornerPath { corner: u16, shortest: u16, longest: u16, computed_shortest: u16, computed_longest: u16 },
    /// A corner whose required stops are not 1, 2 or 3.
    #[error("corner {corner}: {stops} required stops; a yellow flag shows 1, 2 or 3 (7-1-1)")]
    CornerStops { corner: u16, stops: u8 },
    /// A corner with no space.
    #[error("corner {0} has no space")]
    EmptyCorner(u16),
    /// A space with no forward link.
    #[error("space {0} is a dead end: no arrow leaves it")]
    DeadEnd(String),
    /// A space the cars can never reach from the start grid.
    #[error("space {0} cannot be reached from the start grid")]
    Unreachable(String),
    /// A space from which the finish line can never be reached.
    #[error("from space {0} a car can never reach the finish line")]
    CannotFinish(String),
    /// A link between racing spaces that jumps over a lane.
    #[error("the arrow {from} -> {to} crosses more than one lane")]
    LaneJump { from: String, to: String },
    /// A link that goes backwards along the lap (7-0-1: reversing is forbidden).
    #[error("the arrow {from} -> {to} goes backwards (7-0-1)")]
    Backwards { from: String, to: String },
    /// Fewer grid slots than a full field.
    #[error("the start grid has {have} slots; at least {need} are needed")]
    GridTooSmall { have: usize, need: usize },
    /// A grid slot that is not a racing space or appears twice.
    #[error("grid slot {slot} ({space}) {why}")]
    BadGridSlot { slot: usize, space: String, why: String },
    /// Fewer pit boxes than a full field.
    #[error("the pit lane has {have} boxes; at least {need} are needed (4-0-2: one box per car)")]
    TooFewBoxes { have: usize, need: usize },
    /// The pit lane cannot be entered from, or does not lead back to, the racing track.
    #[error("pit lane: {0}")]
    PitLane(String),
    /// A file read as a `.dat` track that is none: no line of its node list is a node (say
    /// `/etc/passwd`); the first line found wrong and what is wrong with it.
    #[error("is not a Formula Dé .dat track: line {line}: {why}")]
    NotDat { line: u32, why: String },
    /// A `.dat` line that does not have the fields its part expects (see docs/import.md).
    #[error("{part}: {message}")]
    DatSyntax { part: &'static str, message: String },
    /// A `.dat` arrow, attribute or grid line names a node the node list does not define.
    #[error("{part}: node {node} is not defined in the node list")]
    UnknownNode { part: &'static str, node: u32 },
    /// Two `.dat` node lines with the same id.
    #[error("node {0} is defined twice")]
    DuplicateNode(u32),
    /// A `.dat` node type the format does not define.
    #[error(
        "node {node} has type {kind}; known types are 1 straight, 2/3/6 curve (2, 1, 3 stops), 4 blocked, 5 finish line, 7 pit lane"
    )]
    UnknownNodeType { node: u32, kind: i64 },
    /// The importer cannot tell where the finish line is.
    #[error("finish line: {0}")]
    FinishLine(String),
    /// A curve node without a usable relative distance, or whose distance breaks the corner's order.
    #[error("curve node {node}: {message}")]
    CurveDistance { node: u32, message: String },
    /// Arrows that go round in a loop without crossing the finish line: no lap order exists.
    #[error("the arrows loop without crossing the finish line, through nodes {0}")]
    ArrowLoop(String),
    /// A racing node the importer cannot place in a lane.
    #[error("lanes: {0}")]
    LaneInference(String),
}

/// A problem and where it was found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// 1-based line in the source file, when known.
    pub line: Option<u32>,
    /// What is wrong.
    pub problem: TrackProblem,
}

impl Diagnostic {
    /// A problem at a known line (0 means unknown).
    pub fn at(line: u32, problem: TrackProblem) -> Self {
        Diagnostic { line: (line > 0).then_some(line), problem }
    }
}

/// A track that could not be loaded, with every problem found.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub struct TrackError {
    /// The file, when the track came from one.
    pub file: Option<PathBuf>,
    /// Everything wrong, in file order where lines are known.
    pub diagnostics: Vec<Diagnostic>,
}

impl TrackError {
    /// An error holding one problem.
    pub fn single(file: Option<PathBuf>, line: u32, problem: TrackProblem) -> Self {
        TrackError { file, diagnostics: vec![Diagnostic::at(line, problem)] }
    }
}

impl fmt::Display for TrackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let file = self.file.as_ref().map(|p| p.display().to_string()).unwrap_or_else(|| "<track>".into());
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            match d.line {
                // One sentence about the whole file: `/etc/passwd is not a Formula Dé .dat track`.
                _ if matches!(d.problem, TrackProblem::NotDat { .. }) => write!(f, "{file} {}", d.problem)?,
                Some(l) => write!(f, "{file}:{l}: {}", d.problem)?,
                None => write!(f, "{file}: {}", d.problem)?,
            }
        }
        Ok(())
    }
}

/// Turns a byte offset of `text` into a 1-based line number.
pub fn line_of(text: &str, offset: usize) -> u32 {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() as u32 + 1
}
