//! Where a car can go: every legal path of every length up to its roll (7, 10-2).
//!
//! The driving code, as the search applies it:
//! - moves follow the track's arrows only, never backwards, never over or onto a car (7-0-1);
//! - in corners any path along the arrows is allowed (7-1-4);
//! - on straights the path must be a shortest path between where the straight stretch begins
//!   (the start, or the last corner space before it) and where it ends (the end, or the first
//!   corner space after it), counting cars and the dangerous spaces the player treats as
//!   obstacles (7-2-3, 7-3-3-2, 7-3-4-2, 7-2-6). On the staggered lanes of a Formula Dé straight
//!   this is exactly the no-zigzag rule (7-2-4) and the middle-lane rule (7-2-5): any other
//!   lane change costs a space. A dangerous space is an obstacle unless the path enters it
//!   (7-3-5, 7-3-6, 17-1): the player picks which ones to go round;
//! - leaving a corner with one stop too few is an overshoot: after the first space outside the
//!   corner the car keeps its lane (10-2-1); with two or more stops missing the car is out
//!   (10-1); an overshoot that reaches the next corner counts no stop there (10-2-3).
//!
//! The search walks states (space, length, straight-stretch anchor, corner bookkeeping,
//! dangerous spaces entered) breadth-first by length and visits each state once, so its cost is
//! bounded by the states, not by the (exponential) number of paths through a corner.
//!
//! Architecture invariant: pure — reads the track and an occupancy map, never touches a clock, a
//! file or a random source. Its scratch space (states, layers, fields, and the vectors of results
//! once dropped) is kept per thread and reused from one search to the next; a search empties it
//! first, so what it finds never depends on what ran before.

mod fields;
mod layer;
mod memo;
mod node;
mod search;
mod step;
#[cfg(test)]
mod tests;
mod walk;

use crate::track::{CornerIdx, SpaceIdx, Track};
use node::{NO_FIELD, NONE8, NONE16, Node};
use search::search;
pub use walk::{Walk, through, wall_entries};

/// What blocks the way: cars on the board and stickers.
#[derive(Clone, Debug)]
pub struct Board<'a> {
    /// The track.
    pub track: &'a Track,
    /// `occupied[s]`: a car (other than the mover) stands on space `s`.
    pub occupied: &'a [bool],
    /// Dangerous spaces (sorted).
    pub dangerous: &'a [SpaceIdx],
    /// Whether the pit lane may be entered on this move (19; closed by default).
    pub pit_open: bool,
    /// Whether entering an oval's wall lane is a test the driving code lets the player go round,
    /// as a dangerous space (15-0-2, 7-3-7): on, the entry counts as a test and a straight path
    /// may be longer to avoid it. Off for the bot's empty-track model.
    pub walls: bool,
}

/// The mover's situation.
#[derive(Copy, Clone, Debug)]
pub struct Mover {
    /// Where the move starts.
    pub start: SpaceIdx,
    /// The corner the car stands in and the stops it has counted there.
    pub stops: Option<(CornerIdx, u8)>,
    /// Longest path to look for (the roll).
    pub max: u8,
    /// Shortest path worth reporting (the roll less the brakes the car could use).
    pub min: u8,
}

/// One way to end a move: the search state it ends in, read through the methods below. Its path
/// is kept in the search's states: [`Reaches::path`].
///
/// A search reports dozens of ways, most never looked at twice, so a way is the state copied
/// with its index, and what it says (where it ends, its overshoot, its stops...) is read from the
/// state's packed words when asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reach {
    /// The search state itself, from which a slipstream continues the move (18).
    state: Node,
    /// Its index in the search's states (for [`Reaches::path`]).
    node: u32,
}

impl Reach {
    /// Where the car stops.
    #[inline]
    pub fn end(&self) -> SpaceIdx {
        SpaceIdx(self.state.pos())
    }

    /// Spaces moved.
    #[inline]
    pub fn spaces(&self) -> u8 {
        self.state.k()
    }

    /// Dangerous spaces entered: one road-handling test each (17-0-2).
    #[inline]
    pub fn tests(&self) -> u8 {
        self.state.tests()
    }

    /// Overshoot: the corner left a stop short and the spaces moved beyond it (10-0-1).
    #[inline]
    pub fn overshoot(&self) -> Option<(CornerIdx, u8)> {
        let n = &self.state;
        (n.over_k() != NONE8).then(|| (CornerIdx(n.over_corner()), n.k() + 1 - n.over_k()))
    }

    /// A corner left two or more stops short: elimination (10-1).
    #[inline]
    pub fn missed(&self) -> Option<CornerIdx> {
        let m = self.state.missed();
        (m != NONE16).then_some(CornerIdx(m))
    }

    /// Times the path crosses the finish line.
    #[inline]
    pub fn crossings(&self) -> u8 {
        self.state.crossings()
    }

    /// The corner the car ends in and the stops it then has there (7-1-1, 10-2-3), on the track
    /// searched (`t`). A state's corner is its space's (see [`step`]), so the corner is read from
    /// the state and only its stops required from the track.
    #[inline]
    pub fn stops(&self, t: &Track) -> Option<(CornerIdx, u8)> {
        let n = &self.state;
        let c = n.corner();
        debug_assert_eq!(c, t.compact(self.end()).corner, "the state's corner is its space's, on the track searched");
        if c == NONE16 {
            return None;
        }
        if n.over_k() != NONE8 && n.over_corner() != c {
            Some((CornerIdx(c), n.credit())) // 10-2-3: an overshoot into the next corner counts no stop there
        } else {
            Some((CornerIdx(c), (n.credit() + 1).min(t.corners[c as usize].stops)))
        }
    }
}

/// Every way to end a move, by length.
#[derive(Clone, Debug, Default)]
pub struct Reaches {
    /// The ways to end, by increasing length (kept for lengths `>= min` and for the longest,
    /// where a blocked car stops, 12-0-1).
    all: Vec<Reach>,
    /// `start[k]..start[k + 1]`: the ways of length `k` in `all`.
    start: Vec<u32>,
    /// The longest path found (at most `max`); the car is blocked (12) when it is below the roll.
    pub longest: u8,
    /// The search's states, each with its parent: the tree the paths are read from.
    nodes: Vec<Node>,
    /// The stickers on the board.
    dangerous: Vec<SpaceIdx>,
    /// The length of the search's first state (a path's length is its reach's less this).
    root_k: u8,
}

impl Reaches {
    /// The ways to end after exactly `k` spaces (empty below `min`, except the longest).
    pub fn at(&self, k: u8) -> &[Reach] {
        let k = k as usize;
        match (self.start.get(k), self.start.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.all[a as usize..b as usize],
            _ => &[],
        }
    }

    /// The spaces `r` enters, in order (its start excluded; after [`reaches_after`], only the
    /// spaces after the end it continues from).
    pub fn path(&self, r: &Reach) -> Vec<SpaceIdx> {
        path_in(&self.nodes, r.node, (r.spaces() - self.root_k) as usize)
    }

    /// The ways of the same search made with `max` as its roll: a search's states up to a length
    /// do not depend on how much farther it looks (a straight's distances are exact up to the
    /// roll either way), so one search serves a roll and the roll plus one (the soft-tyre +1,
    /// 8-2-1): the longer ways are read first, then dropped here.
    pub fn cap(&mut self, max: u8) {
        let m = max as usize;
        if self.start.len() <= m + 2 {
            return; // searched no farther than `max`
        }
        self.all.truncate(self.start[m + 1] as usize);
        self.start.truncate(m + 2);
        self.longest = self.longest.min(max);
    }

    /// How many search states the search visited (a measure of its work).
    pub fn states(&self) -> usize {
        self.nodes.len()
    }

    /// True when the board had no dangerous space: no path enters one.
    pub fn no_dangerous(&self) -> bool {
        self.dangerous.is_empty()
    }

    /// The dangerous spaces among `path`.
    pub fn dangerous_on(&self, path: &[SpaceIdx]) -> Vec<SpaceIdx> {
        if self.dangerous.is_empty() {
            return Vec::new();
        }
        path.iter().copied().filter(|s| self.dangerous.binary_search(s).is_ok()).collect()
    }
}

impl Reach {
    /// A deterministic order between reaches of one search (the order they were found in).
    pub fn node_order(&self, other: &Reach) -> std::cmp::Ordering {
        self.node.cmp(&other.node)
    }

    /// Where the search found it (a deterministic tie-break).
    pub fn node_index(&self) -> u32 {
        self.node
    }
}

/// The path to state `node`, `len` spaces long (its depth in the tree): allocated once, filled
/// from its end in one walk up the tree.
fn path_in(nodes: &[Node], node: u32, len: usize) -> Vec<SpaceIdx> {
    let mut path = vec![SpaceIdx(0); len];
    let mut j = node as usize;
    for slot in path.iter_mut().rev() {
        *slot = SpaceIdx(nodes[j].pos());
        j = nodes[j].parent as usize;
    }
    path
}

/// Finds every legal way to move between `m.min` and `m.max` spaces (see the module docs).
pub fn reaches(b: &Board<'_>, m: &Mover) -> Reaches {
    let root = reaches_root(b, m);
    memo::reaches(b, root, m).unwrap_or_else(|| search(b, root, m.max, m.min, false))
}

/// The ways of [`reaches`] that end in the pit lane (19-1-1), with the same paths, found without
/// the states that cannot reach the lane within `m.max` ([`Track::arrows_to_pit_lane`], a lower
/// bound whatever stands in the way). Its other ways are some of those of [`reaches`], not all.
pub fn reaches_to_pit_lane(b: &Board<'_>, m: &Mover) -> Reaches {
    search(b, reaches_root(b, m), m.max, m.min, true)
}

/// Every way to go on from where `r` ends for `extra` more spaces, at least `min_extra` of them:
/// the move a slipstream adds (18-0-3). The corner bookkeeping, the overshoot (18-2-2: a car
/// overshooting keeps its lane) and the line crossings carry on from `r`; a straight stretch
/// begins afresh where `r` ends, since the pull-outs of a slipstream are not zigzags (18-3-3).
/// Lengths in the result count from the start of the whole move, so `spaces` of a reach is the
/// whole move; its path ([`Reaches::path`]) holds only the spaces after `r`'s end.
pub fn reaches_after(b: &Board<'_>, r: &Reach, extra: u8, min_extra: u8) -> Reaches {
    let mut root = r.state;
    let corner = b.track.compact(r.end()).corner;
    root.set_anchor(if corner == NONE16 { root.pos() } else { NONE16 });
    root.set_anchor_k(root.k());
    root.mask = 0;
    let max = root.k().saturating_add(extra);
    let min = root.k().saturating_add(min_extra.max(1));
    search(b, root, max, min, false)
}

/// The search's first state: the car where it stands, with its corner stops.
fn reaches_root(b: &Board<'_>, m: &Mover) -> Node {
    let t = b.track;
    let start = m.start;
    let (corner, credit) = match m.stops {
        Some((c, s)) if t.space(start).corner == Some(c) => (c.0, s),
        _ => (t.space(start).corner.map_or(NONE16, |c| c.0), 0),
    };
    let straight_start = t.space(start).corner.is_none();
    // Length, anchor length, crossings and tests start at 0, as the words do.
    let mut n = Node { a: 0, b: 0, mask: 0, parent: u32::MAX, field: NO_FIELD };
    n.set_pos(start.0);
    n.set_anchor(if straight_start { start.0 } else { NONE16 });
    n.set_corner(corner);
    n.set_credit(credit);
    n.set_over_k(NONE8);
    n.set_over_corner(NONE16);
    n.set_missed(NONE16);
    n
}

/// The way that ends in state `n`, index `node` of the search's states.
#[inline]
fn reach_of(n: &Node, node: u32) -> Reach {
    Reach { state: *n, node }
}

/// True if the step `from` → `to` enters an oval's wall lane (15-0-2, 15-0-4: moving along it
/// is no entry), when the board counts wall entries.
#[inline]
pub(super) fn wall_entry(b: &Board<'_>, from: SpaceIdx, to: SpaceIdx) -> bool {
    b.walls && b.track.has_walls() && b.track.space(to).wall && !b.track.space(from).wall
}
