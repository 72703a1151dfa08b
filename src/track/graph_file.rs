//! The graph form of a TOML track file: every space and arrow written out, as serde types.
//!
//! The segment form (`file.rs`) describes a lap as straights and corners and lets the loader lay
//! out spaces and arrows; boards whose arrows do not follow that layout (the imported `.dat`
//! graphs) are written in this form instead, and `load::from_toml` reads either (it dispatches on
//! `format = "graph"`). Space ids, lanes, progress and arrows are taken as written; the loader
//! still derives reverse links and lateral neighbours through `TrackBuilder` and runs `check`.
//!
//! ```toml
//! format = "graph"
//! name = "monaco"
//! title = "Monaco"
//! lanes = 3
//! lap_length = 166000
//! grid = ["s10.l.12", "s10.r.11"]        # pole first
//! pit_lane = ["pit.1", "pit.2"]          # driving order
//!
//! [weather]
//! sun = "1-12"
//! changeable = "13-16"
//! rain = "17-20"
//!
//! [[corner]]
//! number = 1
//! segment = "c1"
//! stops = 1
//! shortest = 3
//! longest = 7
//!
//! [[space]]
//! id = "s0.m.1"
//! lane = 1
//! kind = "racing"                         # or "pit", or "box" with `box = N`
//! segment = "s0"
//! progress = 250
//! length = 1000
//! wall = false
//! next = ["s0.l.1", "s0.r.1", "s0.m.2"]
//! ```

use serde::{Deserialize, Serialize};
use toml::Spanned;

use super::file::WeatherFile;
use super::model::{SpaceKind, Track, Weather};

/// A whole graph-form track file.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct GraphFile {
    /// Always `"graph"`.
    pub format: String,
    /// Short name.
    pub name: String,
    /// Human title; defaults to the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// Lanes of the racing track: 2, 3 or 4.
    pub lanes: Spanned<u8>,
    /// Length of one lap in progress units; defaults to the end of the farthest racing space,
    /// rounded up to a whole row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lap_length: Option<u32>,
    /// Grid slots as space ids, pole first.
    pub grid: Spanned<Vec<String>>,
    /// The pit lane as space ids, in driving order.
    pub pit_lane: Spanned<Vec<String>>,
    /// The black-die weather table, as in the segment form.
    pub weather: Spanned<WeatherFile>,
    /// Corners in lap order.
    #[serde(default, rename = "corner")]
    pub corners: Vec<Spanned<CornerEntry>>,
    /// Every space: racing spaces in lap order (segment by segment), then the pit lane.
    #[serde(rename = "space")]
    pub spaces: Vec<Spanned<SpaceEntry>>,
}

/// A corner's flag.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct CornerEntry {
    /// Its number, 1-based in lap order.
    pub number: u16,
    /// The segment id of its spaces; defaults to `c<number>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<String>,
    /// Required stops (1, 2 or 3).
    pub stops: u8,
    /// Shortest path in spaces (the flag's C).
    pub shortest: u16,
    /// Longest path in spaces (the flag's L).
    pub longest: u16,
}

impl CornerEntry {
    /// The segment id of this corner's spaces.
    pub fn segment_id(&self) -> String {
        self.segment.clone().unwrap_or_else(|| format!("c{}", self.number))
    }
}

/// What a space is, as written.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KindEntry {
    /// A space of the racing track.
    Racing,
    /// A pit-lane space that is not a box.
    Pit,
    /// A pit box (give `box = N`).
    Box,
}

/// One space.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SpaceEntry {
    /// Its id.
    pub id: String,
    /// Lane, 0 = leftmost (0 in the pit lane).
    pub lane: u8,
    /// Racing, pit or box.
    pub kind: KindEntry,
    /// Box number (1-based, driving order) for a box.
    #[serde(default, rename = "box", skip_serializing_if = "Option::is_none")]
    pub box_number: Option<u8>,
    /// Segment id (`s0`, `c1`, ...) for a racing space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segment: Option<String>,
    /// Progress of the space's centre from the finish line.
    pub progress: u32,
    /// Length along the lap.
    pub length: u32,
    /// Along an oval's concrete wall.
    #[serde(default)]
    pub wall: bool,
    /// The spaces its arrows lead to.
    #[serde(default)]
    pub next: Vec<String>,
    /// Where the board draws the space (an imported `.dat` node's pixel position, y down);
    /// both or neither.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub x: Option<i32>,
    /// See `x`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub y: Option<i32>,
}

impl GraphFile {
    /// Writes any track in the graph form.
    pub fn from_track(t: &Track) -> GraphFile {
        let id = |s: &super::model::SpaceIdx| t.space(*s).id.clone();
        let ranges = |w: Weather| t.weather.ranges_text(w);
        let none = 0..0;
        GraphFile {
            format: "graph".into(),
            name: t.name.clone(),
            title: (t.title != t.name).then(|| t.title.clone()),
            lanes: Spanned::new(none.clone(), t.lanes),
            lap_length: Some(t.lap_length),
            grid: Spanned::new(none.clone(), t.grid.iter().map(id).collect()),
            pit_lane: Spanned::new(none.clone(), t.pit_lane.iter().map(id).collect()),
            weather: Spanned::new(
                none.clone(),
                WeatherFile {
                    sun: ranges(Weather::Sun),
                    changeable: ranges(Weather::Changeable),
                    rain: ranges(Weather::Rain),
                },
            ),
            corners: t
                .segments
                .iter()
                .filter_map(|s| s.corner.map(|c| (s, &t.corners[c.get()])))
                .map(|(s, c)| {
                    Spanned::new(
                        none.clone(),
                        CornerEntry {
                            number: c.number,
                            segment: Some(s.id.clone()),
                            stops: c.stops,
                            shortest: c.shortest,
                            longest: c.longest,
                        },
                    )
                })
                .collect(),
            spaces: t
                .indices()
                .map(|s| {
                    let sp = t.space(s);
                    let (kind, box_number) = match sp.kind {
                        SpaceKind::Racing => (KindEntry::Racing, None),
                        SpaceKind::PitLane => (KindEntry::Pit, None),
                        SpaceKind::PitBox(k) => (KindEntry::Box, Some(k)),
                    };
                    Spanned::new(
                        none.clone(),
                        SpaceEntry {
                            id: sp.id.clone(),
                            lane: sp.lane,
                            kind,
                            box_number,
                            segment: sp.segment.map(|g| t.segments[g as usize].id.clone()),
                            progress: sp.progress,
                            length: sp.length,
                            wall: sp.wall,
                            next: t.next(s).iter().map(id).collect(),
                            x: sp.at.map(|a| a.0),
                            y: sp.at.map(|a| a.1),
                        },
                    )
                })
                .collect(),
        }
    }

    /// The file as TOML text.
    pub fn to_toml(&self) -> Result<String, toml::ser::Error> {
        toml::to_string(self)
    }
}
