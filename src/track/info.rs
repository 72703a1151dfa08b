//! Machine-readable facts about a track, for `steward track info --json`.

use serde::Serialize;

use super::model::{Track, Weather};

/// The facts printed by `steward track info`.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct TrackInfo {
    /// Short name.
    pub name: String,
    /// Human title.
    pub title: String,
    /// Lanes of the racing track.
    pub lanes: u8,
    /// Racing spaces (the pit lane excluded).
    pub racing_spaces: usize,
    /// Corners in lap order.
    pub corners: Vec<CornerInfo>,
    /// Grid slots, pole first, as space ids.
    pub grid: Vec<String>,
    /// Pit boxes, box 1 first, as space ids.
    pub pit_boxes: Vec<String>,
    /// Pit-lane spaces, boxes included.
    pub pit_lane_spaces: usize,
    /// Black-die faces for each weather, as ranges like `1-12`.
    pub weather: WeatherInfo,
}

/// One corner's flag.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct CornerInfo {
    /// Segment id of the corner (`c1`).
    pub id: String,
    /// Its number on the board.
    pub number: u16,
    /// Required stops.
    pub stops: u8,
    /// Shortest path in spaces.
    pub shortest: u16,
    /// Longest path in spaces.
    pub longest: u16,
}

/// The weather table as face ranges.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct WeatherInfo {
    /// Faces giving sun.
    pub sun: String,
    /// Faces giving changeable weather.
    pub changeable: String,
    /// Faces giving rain.
    pub rain: String,
}

impl TrackInfo {
    /// Collects the facts of `t`.
    pub fn of(t: &Track) -> Self {
        let ranges = |w: Weather| t.weather.ranges_text(w);
        TrackInfo {
            name: t.name.clone(),
            title: t.title.clone(),
            lanes: t.lanes,
            racing_spaces: t.racing_spaces(),
            corners: t
                .segments
                .iter()
                .filter_map(|s| s.corner.map(|c| (s, &t.corners[c.get()])))
                .map(|(s, c)| CornerInfo {
                    id: s.id.clone(),
                    number: c.number,
                    stops: c.stops,
                    shortest: c.shortest,
                    longest: c.longest,
                })
                .collect(),
            grid: t.grid.iter().map(|&s| t.space(s).id.clone()).collect(),
            pit_boxes: t.pit_boxes.iter().map(|&s| t.space(s).id.clone()).collect(),
            pit_lane_spaces: t.pit_lane.len(),
            weather: WeatherInfo {
                sun: ranges(Weather::Sun),
                changeable: ranges(Weather::Changeable),
                rain: ranges(Weather::Rain),
            },
        }
    }
}
