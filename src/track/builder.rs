//! Builds a [`Track`] from spaces and links: both the TOML loader and the `.dat` importer use
//! [`TrackBuilder`], so that ids, reverse links, lateral neighbours and the per-track distances
//! are derived one way only ("a `Track` is built only by `TrackBuilder::finish`").

use std::collections::HashMap;
use std::sync::OnceLock;

use super::model::{Adjacency, Hop, Uid, fewest_arrows};
use super::model::{
    Arrow, Compact, Corner, CornerIdx, Outline, ROW, Segment, Space, SpaceIdx, SpaceKind, Track, WeatherTable,
    circular_gap,
};

/// A space under construction: everything but its id and links, which
/// [`TrackBuilder::finish`] derives.
#[derive(Clone, Debug)]
pub struct SpaceDraft {
    /// Lane, 0 = leftmost.
    pub lane: u8,
    /// Racing, pit lane or pit box.
    pub kind: SpaceKind,
    /// Segment index for racing spaces.
    pub segment: Option<u16>,
    /// Progress of the space centre.
    pub progress: u32,
    /// Length along the lap.
    pub length: u32,
    /// Along an oval's concrete wall.
    pub wall: bool,
    /// Source line (0 if unknown).
    pub line: u32,
    /// Drawn position, when the source has one ([`Space::at`]).
    pub at: Option<(i32, i32)>,
}

/// Builds a [`Track`] from spaces and links. Both the TOML loader and the `.dat` importer use it,
/// so ids, reverse links and lateral neighbours are derived one way only.
#[derive(Clone, Debug)]
pub struct TrackBuilder {
    name: String,
    title: String,
    lanes: u8,
    drafts: Vec<SpaceDraft>,
    links: Vec<(SpaceIdx, SpaceIdx)>,
    segments: Vec<Segment>,
    corners: Vec<Corner>,
    corner_lines: Vec<u32>,
    grid: Vec<SpaceIdx>,
    pit_lane: Vec<SpaceIdx>,
    weather: WeatherTable,
    lap_length: Option<u32>,
    ids: HashMap<SpaceIdx, String>,
    outline: Option<Outline>,
}

impl TrackBuilder {
    /// A new, empty track.
    pub fn new(name: &str, title: &str, lanes: u8, weather: WeatherTable) -> Self {
        TrackBuilder {
            name: name.into(),
            title: title.into(),
            lanes,
            drafts: Vec::new(),
            links: Vec::new(),
            segments: Vec::new(),
            corners: Vec::new(),
            corner_lines: Vec::new(),
            grid: Vec::new(),
            pit_lane: Vec::new(),
            weather,
            lap_length: None,
            ids: HashMap::new(),
            outline: None,
        }
    }

    /// Adds a straight segment; returns its index.
    pub fn add_straight(&mut self, id: &str) -> u16 {
        self.segments.push(Segment { id: id.into(), corner: None });
        (self.segments.len() - 1) as u16
    }

    /// Adds a corner segment with its flag; returns the segment index and the corner index.
    pub fn add_corner(&mut self, id: &str, stops: u8, shortest: u16, longest: u16, line: u32) -> (u16, CornerIdx) {
        let c = CornerIdx(self.corners.len() as u16);
        self.corners.push(Corner {
            number: self.corners.len() as u16 + 1,
            stops,
            shortest,
            longest,
            spaces: Vec::new(),
        });
        self.corner_lines.push(line);
        self.segments.push(Segment { id: id.into(), corner: Some(c) });
        ((self.segments.len() - 1) as u16, c)
    }

    /// Adds a space; returns its index.
    pub fn add_space(&mut self, d: SpaceDraft) -> SpaceIdx {
        self.drafts.push(d);
        SpaceIdx((self.drafts.len() - 1) as u16)
    }

    /// Number of spaces added so far.
    pub fn len(&self) -> usize {
        self.drafts.len()
    }

    /// True before any space is added.
    pub fn is_empty(&self) -> bool {
        self.drafts.is_empty()
    }

    /// The draft of a space added earlier.
    pub fn draft(&self, s: SpaceIdx) -> &SpaceDraft {
        &self.drafts[s.get()]
    }

    /// Adds a forward link (an allowed move) from `a` to `b`.
    pub fn link(&mut self, a: SpaceIdx, b: SpaceIdx) {
        self.links.push((a, b));
    }

    /// Removes a forward link, if present; returns whether it was there.
    pub fn unlink(&mut self, a: SpaceIdx, b: SpaceIdx) -> bool {
        let before = self.links.len();
        self.links.retain(|&l| l != (a, b));
        before != self.links.len()
    }

    /// True if `a` links forward to `b`.
    pub fn has_link(&self, a: SpaceIdx, b: SpaceIdx) -> bool {
        self.links.contains(&(a, b))
    }

    /// Sets the start grid, pole first.
    pub fn set_grid(&mut self, grid: Vec<SpaceIdx>) {
        self.grid = grid;
    }

    /// Sets the pit lane in driving order (boxes are the spaces of kind `PitBox`).
    pub fn set_pit_lane(&mut self, pit: Vec<SpaceIdx>) {
        self.pit_lane = pit;
    }

    /// Overrides the lap length (default: the end of the farthest racing space, rounded up to a
    /// whole row).
    pub fn set_lap_length(&mut self, len: u32) {
        self.lap_length = Some(len);
    }

    /// Gives a space an explicit id instead of the derived one.
    pub fn set_id(&mut self, s: SpaceIdx, id: &str) {
        self.ids.insert(s, id.into());
    }

    /// The lap length the track will have.
    pub fn lap_length(&self) -> u32 {
        self.lap_length.unwrap_or_else(|| {
            let end = self
                .drafts
                .iter()
                .filter(|d| !d.kind.in_pit_lane())
                .map(|d| d.progress + d.length / 2)
                .max()
                .unwrap_or(ROW);
            end.div_ceil(ROW).max(1) * ROW
        })
    }

    /// The ids the spaces will have: `<segment>.<lane>.<ordinal by progress>` for racing
    /// spaces, `pit.<ordinal in driving order>` in the pit lane, unless set with [`Self::set_id`].
    pub fn ids(&self) -> Vec<String> {
        let n = self.drafts.len();
        let mut ids = vec![String::new(); n];
        let mut groups: HashMap<(u16, u8), Vec<usize>> = HashMap::new();
        for (i, d) in self.drafts.iter().enumerate() {
            if let Some(seg) = d.segment.filter(|_| !d.kind.in_pit_lane()) {
                groups.entry((seg, d.lane)).or_default().push(i);
            }
        }
        for ((seg, lane), mut members) in groups {
            members.sort_by_key(|&i| (self.drafts[i].progress, i));
            for (k, i) in members.into_iter().enumerate() {
                ids[i] = format!("{}.{}.{}", self.segments[seg as usize].id, Track::lane_name(self.lanes, lane), k + 1);
            }
        }
        for (k, s) in self.pit_lane.iter().enumerate() {
            ids[s.get()] = format!("pit.{}", k + 1);
        }
        for (i, id) in ids.iter_mut().enumerate() {
            if id.is_empty() {
                *id = format!("x{i}");
            }
        }
        for (s, id) in &self.ids {
            ids[s.get()] = id.clone();
        }
        ids
    }

    /// The circuit's outline the picture lays the lanes along.
    pub fn outline(&mut self, outline: Outline) {
        self.outline = Some(outline);
    }

    /// Derives ids, reverse links and lateral neighbours, and returns the track.
    pub fn finish(self) -> Track {
        let n = self.drafts.len();
        let lap_length = self.lap_length();
        let ids = self.ids();
        let mut corners = self.corners;
        let spaces: Vec<Space> = self
            .drafts
            .iter()
            .zip(ids)
            .map(|(d, id)| Space {
                id,
                lane: d.lane,
                kind: d.kind,
                segment: d.segment,
                corner: d.segment.and_then(|s| self.segments[s as usize].corner),
                wall: d.wall,
                progress: d.progress,
                length: d.length,
                at: d.at,
            })
            .collect();
        for (i, s) in spaces.iter().enumerate() {
            if let Some(c) = s.corner {
                corners[c.get()].spaces.push(SpaceIdx(i as u16));
            }
        }
        for c in &mut corners {
            c.spaces.sort_by_key(|s| (spaces[s.get()].progress, spaces[s.get()].lane));
        }

        let mut next = vec![Vec::new(); n];
        let mut prev = vec![Vec::new(); n];
        for &(a, b) in &self.links {
            next[a.get()].push(b);
            prev[b.get()].push(a);
        }

        // Lateral neighbours: racing spaces one lane over whose extents overlap along the lap.
        let mut beside = vec![Vec::new(); n];
        let mut by_lane: Vec<Vec<usize>> = vec![Vec::new(); self.lanes.max(1) as usize + 1];
        for (i, s) in spaces.iter().enumerate() {
            if !s.in_pit_lane() && (s.lane as usize) < by_lane.len() {
                by_lane[s.lane as usize].push(i);
            }
        }
        // Each lane's spaces by place on the lap, with the longest: a space's neighbours in the
        // next lane lie within half their two lengths of it, so only that window is looked at
        // (a track has hundreds of spaces a lane). The lists are sorted below.
        let lap = lap_length.max(1);
        let along: Vec<(Vec<(u32, usize)>, u32)> = by_lane
            .iter()
            .map(|members| {
                let mut v: Vec<(u32, usize)> = members.iter().map(|&j| (spaces[j].progress % lap, j)).collect();
                v.sort_unstable();
                (v, members.iter().map(|&j| spaces[j].length).max().unwrap_or(0))
            })
            .collect();
        for (i, s) in spaces.iter().enumerate() {
            if s.in_pit_lane() {
                continue;
            }
            for lane in [s.lane.wrapping_sub(1), s.lane + 1] {
                let Some((members, longest)) = along.get(lane as usize) else { continue };
                // 2 d < s.length + o.length <= s.length + longest.
                let reach = (s.length + longest) / 2;
                let p = s.progress % lap;
                let mut window = |lo: u32, hi: u32| {
                    let a = members.partition_point(|&(q, _)| q < lo);
                    let b = members.partition_point(|&(q, _)| q <= hi);
                    for &(_, j) in &members[a..b] {
                        let o = &spaces[j];
                        if 2 * circular_gap(s.progress, o.progress, lap_length) < s.length + o.length {
                            beside[i].push(SpaceIdx(j as u16));
                        }
                    }
                };
                if 2 * reach + 1 >= lap {
                    window(0, u32::MAX);
                } else if p < reach {
                    // [p - reach, p + reach] around the lap: across its start, ...
                    window(0, p + reach);
                    window(lap + p - reach, lap - 1);
                } else if p + reach >= lap {
                    // ... across its end, or within it.
                    window(p - reach, lap - 1);
                    window(0, p + reach - lap);
                } else {
                    window(p - reach, p + reach);
                }
            }
        }

        let compact: Vec<Compact> = spaces
            .iter()
            .map(|s| Compact {
                corner: s.corner.map_or(u16::MAX, |c| c.0),
                lane: s.lane,
                pit: s.in_pit_lane(),
                progress: s.progress,
            })
            .collect();
        let next = Adjacency::from_lists(next);
        let arrows: Vec<Arrow> = next.targets.iter().map(|&to| Arrow { to, there: compact[to.get()] }).collect();
        let hops = (0..n).map(|i| Hop { here: compact[i], first: next.start[i], end: next.start[i + 1] }).collect();
        let by_id = spaces.iter().enumerate().map(|(i, s)| (s.id.clone(), SpaceIdx(i as u16))).collect();
        let to_pit_lane = arrows_to(&spaces, &prev, |s| s.in_pit_lane());
        let has_walls = spaces.iter().any(|s| s.wall);
        // One arrow from the lane: a racing space with an arrow into it.
        let pit_doors = (0..n).filter(|&i| to_pit_lane[i] == 1).map(|i| SpaceIdx(i as u16)).collect();
        // The pit-entry limit (19-5-1): the track space the lane leaves from (the farthest along,
        // if several lead into its first space).
        let pit_limit = self.pit_lane.first().and_then(|first| {
            prev[first.get()].iter().filter(|e| !spaces[e.get()].in_pit_lane()).map(|e| spaces[e.get()].progress).max()
        });
        let mut pit_place = vec![u16::MAX; n];
        for (i, s) in self.pit_lane.iter().enumerate().rev() {
            if let Some(p) = pit_place.get_mut(s.get()) {
                *p = i.min(u16::MAX as usize - 1) as u16;
            }
        }
        let pit_boxes = {
            let mut boxes: Vec<(u8, SpaceIdx)> = spaces
                .iter()
                .enumerate()
                .filter_map(|(i, s)| match s.kind {
                    SpaceKind::PitBox(k) => Some((k, SpaceIdx(i as u16))),
                    _ => None,
                })
                .collect();
            boxes.sort();
            boxes.into_iter().map(|(_, s)| s).collect()
        };
        Track {
            name: self.name,
            title: self.title,
            lanes: self.lanes,
            lap_length,
            space_lines: self.drafts.iter().map(|d| d.line).collect(),
            spaces,
            corners,
            segments: self.segments,
            grid: self.grid,
            pit_lane: self.pit_lane,
            pit_boxes,
            weather: self.weather,
            corner_lines: self.corner_lines,
            outline: self.outline,
            compact,
            next,
            hops,
            arrows,
            prev: Adjacency::from_lists(prev),
            beside: Adjacency::from_lists(beside),
            by_id,
            to_pit_lane,
            has_walls,
            clear_straights: (0..n).map(|_| OnceLock::new()).collect(),
            arrows_from: (0..n).map(|_| OnceLock::new()).collect(),
            pit_doors,
            pit_place,
            pit_limit,
            uid: Uid::new(),
        }
    }
}

/// Fewest arrows from every space to a space that is `goal` (breadth-first over the reverse
/// links), saturating at `u8::MAX`.
fn arrows_to(spaces: &[Space], prev: &[Vec<SpaceIdx>], goal: impl Fn(&Space) -> bool) -> Vec<u8> {
    let goals: Vec<SpaceIdx> = (0..spaces.len()).filter(|&i| goal(&spaces[i])).map(|i| SpaceIdx(i as u16)).collect();
    // 255 or more: `u8::MAX`, counted no farther.
    fewest_arrows(spaces.len(), &goals, |u| &prev[u.get()], u8::MAX - 1)
}
