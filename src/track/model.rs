//! The validated track: a directed graph of spaces, as the rules see a Formula Dé board.
//!
//! A board is not a grid. Corners have fewer spaces on the inside lane than on the outside,
//! straights are drawn with staggered lanes, and the arrows printed in and around corners are the
//! only moves allowed there (7-1-4). So the model is a graph: every space knows its forward
//! links (the only moves), its lateral neighbours (side by side, for collisions 14 and
//! slipstream 18), its lane, its corner, and a *progress* value that orders cars along the lap
//! (order of play 6-2, lapping 6-2-5, finishing 21).
//!
//! Architecture invariant: a `Track` is immutable once built and is only ever built by
//! [`TrackBuilder::finish`](super::builder::TrackBuilder::finish), so every consumer (engine, renderer, checker) sees the same derived
//! facts (ids, reverse links, lateral neighbours). Structural soundness (reachability, corner
//! lengths, grid and pit sizes) is *not* guaranteed by construction: `track::check` reports it,
//! and loaders refuse tracks that fail it.

use std::collections::HashMap;
use std::fmt;
use std::sync::OnceLock;

/// Progress units per board row. A straight row is 1000 units long; staggered lanes sit half a
/// row (500) apart. Corner spaces divide the corner's depth evenly per lane.
pub const ROW: u32 = 1000;

/// Index of a space in [`Track::spaces`]. Stable for the lifetime of the track value; not meant
/// for players (they use [`Space::id`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SpaceIdx(pub u16);

impl SpaceIdx {
    /// The index as a `usize`, for slicing.
    pub fn get(self) -> usize {
        self.0 as usize
    }
}

/// Index of a corner in [`Track::corners`] (lap order, 0-based; the corner *number* players see
/// is [`Corner::number`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CornerIdx(pub u16);

impl CornerIdx {
    /// The index as a `usize`.
    pub fn get(self) -> usize {
        self.0 as usize
    }
}

/// What a space is for.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum SpaceKind {
    /// A space of the racing track proper.
    Racing,
    /// A space of the pit lane that is not a pit box (19-1: the pit lane is a single lane).
    PitLane,
    /// A pit box, numbered from 1 in the order the pit lane is driven (4-0-1: one per car).
    PitBox(u8),
}

impl SpaceKind {
    /// True for pit-lane spaces and pit boxes.
    pub fn in_pit_lane(self) -> bool {
        !matches!(self, SpaceKind::Racing)
    }
}

/// Weather drawn on the black die before qualifying and the race (3-1, 3-2).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Weather {
    /// Soleil: dry track.
    Sun,
    /// Variable: dry at first, may change during the race (3-2-4).
    Changeable,
    /// Pluie: wet track.
    Rain,
}

impl Weather {
    /// The lower-case name used in files and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Weather::Sun => "sun",
            Weather::Changeable => "changeable",
            Weather::Rain => "rain",
        }
    }
}

/// A track's weather table: what each face of the black d20 means (3-0-1: "un barème
/// météorologique de 1 à 20 est inscrit sur chaque circuit").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeatherTable {
    faces: [Weather; 20],
}

impl WeatherTable {
    /// Builds the table from the weather of each face, 1 to 20.
    pub fn new(faces: [Weather; 20]) -> Self {
        WeatherTable { faces }
    }

    /// The weather for a black-die result. Panics if `roll` is not 1..=20, which no die produces.
    pub fn weather(&self, roll: u8) -> Weather {
        assert!((1..=20).contains(&roll), "black die result {roll} is not 1..=20");
        self.faces[(roll - 1) as usize]
    }

    /// The faces that give `w` as text, e.g. `1-12` or `1-3, 19-20` (empty if none).
    pub fn ranges_text(&self, w: Weather) -> String {
        self.ranges(w)
            .iter()
            .map(|&(a, b)| if a == b { a.to_string() } else { format!("{a}-{b}") })
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// The faces (1-based, inclusive ranges) that give `w`, merged into runs.
    pub fn ranges(&self, w: Weather) -> Vec<(u8, u8)> {
        let mut out: Vec<(u8, u8)> = Vec::new();
        for face in 1..=20u8 {
            if self.weather(face) == w {
                match out.last_mut() {
                    Some((_, hi)) if *hi + 1 == face => *hi = face,
                    _ => out.push((face, face)),
                }
            }
        }
        out
    }
}

/// One space of the board.
#[derive(Clone, Debug)]
pub struct Space {
    /// Readable, stable id usable in an email: `<segment>.<lane>.<n>` for racing spaces
    /// (e.g. `c5.m.3`: corner 5, middle lane, 3rd space; `s0.l.2`: the straight after the finish
    /// line, left lane, 2nd row), `pit.<n>` in the pit lane.
    pub id: String,
    /// Lane, 0 = leftmost in the direction of travel. Pit spaces have lane 0 of their own lane.
    pub lane: u8,
    /// Racing, pit lane, or pit box.
    pub kind: SpaceKind,
    /// The segment (straight or corner) this racing space belongs to; `None` in the pit lane.
    pub segment: Option<u16>,
    /// The corner whose limits (7-1-2) contain this space.
    pub corner: Option<CornerIdx>,
    /// On the outside lane of an oval, along its concrete wall (15-0-2).
    pub wall: bool,
    /// Position along the lap in [`ROW`] units from the finish line (centre of the space).
    pub progress: u32,
    /// Length of the space along the lap, in the same units (1000 on a straight).
    pub length: u32,
    /// Where the board draws the space's centre, in the source picture's pixels (y down): an
    /// imported `.dat` node's position. `None` for tracks authored as segments, whose drawing
    /// `render::layout` computes.
    pub at: Option<(i32, i32)>,
}

impl Space {
    /// True for the pit lane and pit boxes.
    pub fn in_pit_lane(&self) -> bool {
        self.kind.in_pit_lane()
    }
}

/// A corner (virage): the stretch between its red-and-white kerbs (7-1-2).
#[derive(Clone, Debug)]
pub struct Corner {
    /// The number players see, 1-based in lap order.
    pub number: u16,
    /// Required stops inside the corner limits (the yellow flag, 7-1-1): 1, 2 or 3.
    pub stops: u8,
    /// Shortest path through the corner in spaces (the flag's C).
    pub shortest: u16,
    /// Longest path through the corner in spaces (the flag's L).
    pub longest: u16,
    /// The corner's spaces, in progress order.
    pub spaces: Vec<SpaceIdx>,
}

/// The real circuit's centre line, as a track file may carry it (`[outline]`, docs/tracks.md):
/// drawing only, no rule reads it.
#[derive(Clone, Debug, PartialEq)]
pub struct Outline {
    /// A closed polyline in the direction of travel, the first point on the finish line; x to
    /// the right, y down, in any unit.
    pub points: Vec<(f64, f64)>,
    /// The point at the middle of each corner, corner 1 first (indices into `points`); empty
    /// when the lap is simply spread along the outline by length.
    pub corners: Vec<usize>,
}

/// A stretch of racing track: a straight or a corner, in lap order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Segment {
    /// The id used as the first part of its spaces' ids (`s0`, `c1`, `s1`, ...).
    pub id: String,
    /// The corner, for a corner segment.
    pub corner: Option<CornerIdx>,
}

/// The facts of a space a path search reads at every step, packed into 8 bytes so that the
/// search stays in cache (see `Track::compact`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Compact {
    /// Corner index, `u16::MAX` outside corners.
    pub corner: u16,
    /// Lane.
    pub lane: u8,
    /// In the pit lane (or a pit box).
    pub pit: bool,
    /// Progress along the lap.
    pub progress: u32,
}

/// An arrow as a path search takes it: where it leads, with that space's facts beside it, so a
/// step reads one record rather than the arrow and then the space ([`Track::arrows`]).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Arrow {
    /// The space it leads to.
    pub to: SpaceIdx,
    /// That space's facts.
    pub there: Compact,
}

/// A space as a path search leaves it: its facts and where its arrows lie in [`Track::arrows`]'s
/// list, in one record.
#[derive(Copy, Clone, Debug)]
pub(super) struct Hop {
    /// The space's facts.
    pub(super) here: Compact,
    /// Its arrows: `arrows[first..end]`.
    pub(super) first: u32,
    pub(super) end: u32,
}

/// How far [`Track::arrows_from`] counts: farther than any move (a roll of 30, the soft-tyre +1
/// and a slipstream's 3 spaces, 18-0-3).
pub const NEAR: u8 = 40;

/// Compressed adjacency lists: one slice of targets per space.
#[derive(Clone, Debug, Default)]
pub(super) struct Adjacency {
    pub(super) start: Vec<u32>,
    pub(super) targets: Vec<SpaceIdx>,
}

impl Adjacency {
    pub(super) fn from_lists(lists: Vec<Vec<SpaceIdx>>) -> Self {
        let mut start = Vec::with_capacity(lists.len() + 1);
        let mut targets = Vec::new();
        start.push(0);
        for mut l in lists {
            l.sort_unstable();
            l.dedup();
            targets.extend(l);
            start.push(targets.len() as u32);
        }
        Adjacency { start, targets }
    }

    fn get(&self, s: SpaceIdx) -> &[SpaceIdx] {
        let i = s.get();
        &self.targets[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// A validated-shape Formula Dé track (see the module docs for what "validated" covers).
#[derive(Clone, Debug)]
pub struct Track {
    /// Short name (`monaco`), used to find shipped tracks.
    pub name: String,
    /// Human title (`Monaco`).
    pub title: String,
    /// Number of lanes of the racing track (2 to 4).
    pub lanes: u8,
    /// Length of one lap in progress units.
    pub lap_length: u32,
    /// All spaces; racing spaces first in lap order, then the pit lane.
    pub spaces: Vec<Space>,
    /// Corners in lap order.
    pub corners: Vec<Corner>,
    /// Segments in lap order, starting after the finish line.
    pub segments: Vec<Segment>,
    /// Start grid, pole position first (behind the finish line).
    pub grid: Vec<SpaceIdx>,
    /// The pit lane in driving order (single lane, 19-1).
    pub pit_lane: Vec<SpaceIdx>,
    /// Pit boxes, box 1 first (4-0-1: one per car).
    pub pit_boxes: Vec<SpaceIdx>,
    /// Weather table for the black die.
    pub weather: WeatherTable,
    /// Source line of each space (0 when unknown), for diagnostics.
    pub space_lines: Vec<u32>,
    /// Source line of each corner (0 when unknown).
    pub corner_lines: Vec<u32>,
    /// The circuit's outline, for a track authored as segments that carries one: where the
    /// picture lays the lanes (`render::layout`).
    pub outline: Option<Outline>,
    pub(super) next: Adjacency,
    pub(super) compact: Vec<Compact>,
    /// Per space: its facts and its arrows' place in `arrows` (the same arrows as `next`).
    pub(super) hops: Vec<Hop>,
    pub(super) arrows: Vec<Arrow>,
    pub(super) prev: Adjacency,
    pub(super) beside: Adjacency,
    pub(super) by_id: HashMap<String, SpaceIdx>,
    /// Fewest arrows from each space to the nearest pit-lane space (`u8::MAX` when 255 or more,
    /// or never): a move shorter than this cannot enter the lane (19-1-1).
    pub(super) to_pit_lane: Vec<u8>,
    /// Some space lies along an oval's wall (15-0-2): without one, no move enters a wall lane.
    pub(super) has_walls: bool,
    /// [`Track::clear_straight`] of each space, worked out the first time it is asked for.
    pub(super) clear_straights: Vec<OnceLock<Box<[u8]>>>,
    /// [`Track::arrows_from`] of each space, worked out the first time it is asked for.
    pub(super) arrows_from: Vec<OnceLock<Box<[u8]>>>,
    /// The racing spaces with an arrow into the pit lane.
    pub(super) pit_doors: Vec<SpaceIdx>,
    /// Each space's place in [`Track::pit_lane`] (`u16::MAX` for none): the order of play asks
    /// it of every car at every turn (19-5-2).
    pub(super) pit_place: Vec<u16>,
    /// The progress of the pit-entry limit (19-5-1), asked for every car at every turn.
    pub(super) pit_limit: Option<u32>,
    /// This track's identity for the caches kept outside it ([`Track::uid`]).
    pub(super) uid: Uid,
}

/// A track's identity for the caches kept outside it: unique to each track built, and a clone
/// gets its own (a clone may then be changed where the original is not).
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Uid(pub(super) u64);

impl Uid {
    pub(super) fn new() -> Uid {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        Uid(NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
    }
}

impl Clone for Uid {
    fn clone(&self) -> Uid {
        Uid::new()
    }
}

impl Track {
    /// A number no other track built by this process has, a clone included: what a cache of
    /// things drawn from the track keys them by (the mails' picture's ground,
    /// `render::backdrop`). A track is not changed once built; its lazily worked-out tables
    /// ([`Track::arrows_from`], [`Track::clear_straight`]) count on that as well.
    pub fn uid(&self) -> u64 {
        self.uid.0
    }

    /// Fewest arrows from `from` to each space, whatever stands in the way, counted up to
    /// [`NEAR`] (`u8::MAX` beyond, or never): no move of fewer spaces from `from` enters that
    /// space. Worked out the first time it is asked for, and shared by every thread.
    pub fn arrows_from(&self, from: SpaceIdx) -> &[u8] {
        self.arrows_from[from.get()]
            .get_or_init(|| fewest_arrows(self.spaces.len(), &[from], |u| self.next(u), NEAR).into_boxed_slice())
    }

    /// Fewest arrows from `s` to any pit-lane space, whatever stands in the way (`u8::MAX` for
    /// 255 or more, or when the lane cannot be reached). No legal move of fewer spaces enters
    /// the pit lane, which lets the engine skip the search for a way in (19-1-1).
    pub fn arrows_to_pit_lane(&self, s: SpaceIdx) -> u8 {
        self.to_pit_lane[s.get()]
    }

    /// True when some space lies along an oval's concrete wall (15-0-2).
    pub fn has_walls(&self) -> bool {
        self.has_walls
    }

    /// Fewest arrows from `from` to every space along the straight spaces of the racing track
    /// (`u8::MAX` where none): a way may end on a corner space but never goes on through one, and
    /// never enters the pit lane. The distances of the driving code's straight rule (7-2-3) on a
    /// board with no car and no sticker; worked out once per space, on first use, and shared by
    /// every thread using the track.
    pub fn clear_straight(&self, from: SpaceIdx) -> &[u8] {
        self.clear_straights[from.get()].get_or_init(|| {
            let mut d = vec![0; self.spaces.len()].into_boxed_slice();
            self.straight_distances(from, u8::MAX - 1, &mut d, &mut Vec::new(), |_, v| self.compact(v).pit);
            d
        })
    }

    /// Fewest arrows from `from` along straight spaces into `d` (one entry per space, `u8::MAX`
    /// where none), exact up to `limit`: a breadth-first search that enters a space unless
    /// `blocked(from, to)` says the arrow is closed, and goes on from it only when it is not a
    /// corner space. `queue` is its working space.
    pub fn straight_distances(
        &self,
        from: SpaceIdx,
        limit: u8,
        d: &mut [u8],
        queue: &mut Vec<SpaceIdx>,
        mut blocked: impl FnMut(SpaceIdx, SpaceIdx) -> bool,
    ) {
        d.fill(u8::MAX);
        queue.clear();
        queue.push(from);
        d[from.get()] = 0;
        let mut head = 0;
        while let Some(&u) = queue.get(head) {
            head += 1;
            let du = d[u.get()];
            if du >= limit {
                continue;
            }
            for &v in self.next(u) {
                if d[v.get()] != u8::MAX || blocked(u, v) {
                    continue;
                }
                d[v.get()] = du + 1;
                if self.compact(v).corner == u16::MAX {
                    queue.push(v);
                }
            }
        }
    }

    /// The racing spaces with an arrow into the pit lane (19-1-1).
    pub fn pit_doors(&self) -> &[SpaceIdx] {
        &self.pit_doors
    }

    /// The progress of the pit-entry limit (19-5-1): the track space the pit lane leaves from
    /// (`None` without a lane).
    pub fn pit_limit(&self) -> Option<u32> {
        self.pit_limit
    }

    /// Where `s` stands in the pit lane ([`Track::pit_lane`]'s index, the first if listed
    /// twice), or `None` off the lane.
    pub fn pit_place(&self, s: SpaceIdx) -> Option<usize> {
        self.pit_place.get(s.get()).copied().filter(|&i| i != u16::MAX).map(usize::from)
    }

    /// The space at `s`.
    pub fn space(&self, s: SpaceIdx) -> &Space {
        &self.spaces[s.get()]
    }

    /// Forward links: the only moves allowed from `s` (7-0-1: never backwards).
    pub fn next(&self, s: SpaceIdx) -> &[SpaceIdx] {
        self.next.get(s)
    }

    /// The facts of `s` and its arrows, each with the facts of the space it leads to: what a path
    /// search reads to leave `s` (the arrows of [`Track::next`], in the same order).
    #[inline]
    pub fn arrows(&self, s: SpaceIdx) -> (Compact, &[Arrow]) {
        let h = self.hops[s.get()];
        (h.here, &self.arrows[h.first as usize..h.end as usize])
    }

    /// The facts of `s` a path search reads at every step, packed small.
    pub fn compact(&self, s: SpaceIdx) -> Compact {
        self.compact[s.get()]
    }

    /// Reverse links: the spaces from which a car can move to `s`.
    pub fn prev(&self, s: SpaceIdx) -> &[SpaceIdx] {
        self.prev.get(s)
    }

    /// Lateral neighbours: racing spaces in an adjacent lane that touch `s` side by side.
    pub fn beside(&self, s: SpaceIdx) -> &[SpaceIdx] {
        self.beside.get(s)
    }

    /// Looks a space up by its readable id (case-insensitive).
    pub fn find(&self, id: &str) -> Option<SpaceIdx> {
        self.by_id.get(id).copied().or_else(|| self.by_id.get(&id.to_ascii_lowercase()).copied())
    }

    /// All space indices.
    pub fn indices(&self) -> impl Iterator<Item = SpaceIdx> + '_ {
        (0..self.spaces.len()).map(|i| SpaceIdx(i as u16))
    }

    /// Number of racing spaces (pit lane excluded).
    pub fn racing_spaces(&self) -> usize {
        self.spaces.iter().filter(|s| !s.in_pit_lane()).count()
    }

    /// True when moving from `a` to its forward link `b` crosses the finish line.
    pub fn crosses_line(&self, a: SpaceIdx, b: SpaceIdx) -> bool {
        self.space(b).progress < self.space(a).progress
    }

    /// Distance along the lap from `a` forward to `b`, in progress units (0..lap_length).
    pub fn progress_gap(&self, a: SpaceIdx, b: SpaceIdx) -> u32 {
        forward_gap(self.compact(a).progress, self.compact(b).progress, self.lap_length)
    }

    /// The letter(s) naming `lane` on a track with `lanes` lanes: `l`/`r` on two lanes,
    /// `l`/`m`/`r` on three, `a`.. beyond.
    pub fn lane_name(lanes: u8, lane: u8) -> String {
        match (lanes, lane) {
            (2, 0) | (3, 0) => "l".into(),
            (3, 1) => "m".into(),
            (2, 1) | (3, 2) => "r".into(),
            _ => ((b'a' + lane) as char).to_string(),
        }
    }

    /// The corner containing `s`, if any.
    pub fn corner_of(&self, s: SpaceIdx) -> Option<&Corner> {
        self.space(s).corner.map(|c| &self.corners[c.get()])
    }
}

impl fmt::Display for SpaceIdx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// Fewest arrows from any of `sources` to each of `n` spaces along `links`, breadth-first, up to
/// `limit` (`u8::MAX` beyond it, or never).
pub(super) fn fewest_arrows<'a>(
    n: usize,
    sources: &[SpaceIdx],
    links: impl Fn(SpaceIdx) -> &'a [SpaceIdx],
    limit: u8,
) -> Vec<u8> {
    let mut d = vec![u8::MAX; n];
    let mut layer: Vec<SpaceIdx> = sources.to_vec();
    for s in sources {
        d[s.get()] = 0;
    }
    let mut next = Vec::new();
    for k in 1..=limit {
        for &u in &layer {
            for &v in links(u) {
                if d[v.get()] == u8::MAX {
                    d[v.get()] = k;
                    next.push(v);
                }
            }
        }
        if next.is_empty() {
            break;
        }
        std::mem::swap(&mut layer, &mut next);
        next.clear();
    }
    d
}

/// Distance forward along a circular lap of `lap` from progress `from` to progress `to`:
/// `(to + lap - from) % lap`. With a subtraction rather than a division when both lie on the lap
/// (0..lap), as every space does: the order of play and every option list ask it of spaces.
pub fn forward_gap(from: u32, to: u32, lap: u32) -> u32 {
    let d = to + lap - from;
    if d < lap {
        d
    } else if d < 2 * lap {
        d - lap
    } else {
        d % lap
    }
}

/// Shortest distance between two progress values on a circular lap.
pub fn circular_gap(a: u32, b: u32, lap: u32) -> u32 {
    let d = a.abs_diff(b) % lap.max(1);
    d.min(lap - d)
}
