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
//! Architecture invariant: pure — reads the track and an occupancy map, allocates its own
//! scratch space, never touches a clock, a file or a random source.

use rustc_hash::FxHashMap;

use crate::track::{CornerIdx, SpaceIdx, Track};

const NONE16: u16 = u16::MAX;
const NONE8: u8 = u8::MAX;

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

/// One way to end a move.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reach {
    /// Where the car stops.
    pub end: SpaceIdx,
    /// Spaces moved.
    pub spaces: u8,
    /// The spaces entered, in order (the start excluded).
    pub path: Vec<SpaceIdx>,
    /// Dangerous spaces entered (one road-handling test each, 17-0-2).
    pub dangerous: Vec<SpaceIdx>,
    /// Overshoot: the corner left a stop short and the spaces moved beyond it (10-0-1).
    pub overshoot: Option<(CornerIdx, u8)>,
    /// A corner left two or more stops short: elimination (10-1).
    pub missed: Option<CornerIdx>,
    /// The corner the car ends in and the stops it then has there (7-1-1, 10-2-3).
    pub stops: Option<(CornerIdx, u8)>,
    /// Times the path crosses the finish line.
    pub crossings: u8,
}

/// Every way to end a move, by length.
#[derive(Clone, Debug, Default)]
pub struct Reaches {
    /// `by_len[k]`: the ways to end after exactly `k` spaces (filled for `k >= min` and for
    /// `k == longest`, where a blocked car stops, 12-0-1).
    pub by_len: Vec<Vec<Reach>>,
    /// The longest path found (at most `max`); the car is blocked (12) when it is below the roll.
    pub longest: u8,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
struct Node {
    pos: u16,
    k: u8,
    anchor: u16,
    anchor_k: u8,
    corner: u16,
    credit: u8,
    over_k: u8,
    over_corner: u16,
    missed: u16,
    crossings: u8,
    mask: u64,
}

/// Distances along straights from an anchor, for a given set of entered dangerous spaces, and
/// the bit each dangerous space met so far has in a state's mask.
struct Fields {
    cache: FxHashMap<(u16, u64), Vec<u8>>,
    bits: Vec<SpaceIdx>,
}

impl Fields {
    /// The mask bit of dangerous space `s` (the first 64 met get one; later ones stay
    /// obstacles, see docs/rulings.md).
    fn bit(&mut self, s: SpaceIdx) -> Option<u64> {
        if let Some(i) = self.bits.iter().position(|&x| x == s) {
            return Some(1 << i);
        }
        if self.bits.len() < 64 {
            self.bits.push(s);
            Some(1 << (self.bits.len() - 1))
        } else {
            None
        }
    }
}

impl Fields {
    fn dist(&mut self, b: &Board<'_>, anchor: u16, mask: u64, to: SpaceIdx, limit: u8) -> u8 {
        let t = b.track;
        let bits = &self.bits;
        let field = self.cache.entry((anchor, mask)).or_insert_with(|| {
            let mut d = vec![NONE8; t.spaces.len()];
            let mut queue = vec![SpaceIdx(anchor)];
            d[anchor as usize] = 0;
            let mut head = 0;
            while head < queue.len() {
                let u = queue[head];
                head += 1;
                let du = d[u.get()];
                if du >= limit {
                    continue;
                }
                for &v in t.next(u) {
                    if d[v.get()] != NONE8 || b.occupied[v.get()] || !passable(b, v) {
                        continue;
                    }
                    if b.dangerous.binary_search(&v).is_ok() {
                        let entered = bits.iter().position(|&x| x == v).is_some_and(|i| mask & (1 << i) != 0);
                        if !entered {
                            continue;
                        }
                    }
                    d[v.get()] = du + 1;
                    if t.space(v).corner.is_none() {
                        queue.push(v);
                    }
                }
            }
            d
        });
        field[to.get()]
    }
}

fn passable(b: &Board<'_>, s: SpaceIdx) -> bool {
    b.pit_open || !b.track.space(s).in_pit_lane()
}

/// Finds every legal way to move between `m.min` and `m.max` spaces (see the module docs).
pub fn reaches(b: &Board<'_>, m: &Mover) -> Reaches {
    let t = b.track;
    let root = reaches_root(b, m);
    let mut fields = Fields { cache: FxHashMap::default(), bits: Vec::new() };
    let mut nodes: Vec<(Node, u32)> = vec![(root, u32::MAX)];
    let mut seen: FxHashMap<Node, ()> = FxHashMap::default();
    seen.insert(root, ());
    let mut layer = 0..1usize;
    let mut longest = 0u8;
    for k in 0..m.max {
        let next_start = nodes.len();
        for i in layer.clone() {
            let n = nodes[i].0;
            let pos = SpaceIdx(n.pos);
            for &nxt in t.next(pos) {
                if let Some(child) = step(b, &mut fields, &n, pos, nxt, m.max) {
                    debug_assert_eq!(child.k, k + 1);
                    if seen.insert(child, ()).is_none() {
                        nodes.push((child, i as u32));
                    }
                }
            }
        }
        if nodes.len() == next_start {
            break;
        }
        longest = k + 1;
        layer = next_start..nodes.len();
    }

    let mut by_len: Vec<Vec<Reach>> = vec![Vec::new(); m.max as usize + 1];
    for (i, &(n, _)) in nodes.iter().enumerate() {
        if n.k < m.min && n.k != longest {
            continue;
        }
        by_len[n.k as usize].push(reach_of(b, &nodes, i));
    }
    Reaches { by_len, longest }
}

/// The legal ways to drive through the spaces `via` in order and stop on the last one, at most
/// `m.max` spaces long: one path for each length that has one, shortest first. This is how a path
/// a player (or a rulebook example) names is checked against the driving code (7, 10-2): the same
/// steps as [`reaches`], with the waypoints met so far added to the search state.
pub fn through(b: &Board<'_>, m: &Mover, via: &[SpaceIdx]) -> Vec<Reach> {
    let Some(&last) = via.last() else { return Vec::new() };
    let t = b.track;
    let root = reaches_root(b, m);
    let mut fields = Fields { cache: FxHashMap::default(), bits: Vec::new() };
    // (state, waypoints met, parent)
    let mut nodes: Vec<(Node, usize, u32)> = vec![(root, 0, u32::MAX)];
    let mut seen: FxHashMap<(Node, usize), ()> = FxHashMap::default();
    seen.insert((root, 0), ());
    let mut layer = 0..1usize;
    let mut out = Vec::new();
    for _ in 0..m.max {
        let next_start = nodes.len();
        for i in layer.clone() {
            let (n, met, _) = nodes[i];
            if met == via.len() {
                continue; // the path has reached its last waypoint: it stops there
            }
            let pos = SpaceIdx(n.pos);
            for &nxt in t.next(pos) {
                if let Some(child) = step(b, &mut fields, &n, pos, nxt, m.max) {
                    let met = if nxt == via[met] { met + 1 } else { met };
                    if seen.insert((child, met), ()).is_none() {
                        nodes.push((child, met, i as u32));
                    }
                }
            }
        }
        if nodes.len() == next_start {
            break;
        }
        let done = (next_start..nodes.len()).find(|&i| nodes[i].1 == via.len() && SpaceIdx(nodes[i].0.pos) == last);
        if let Some(i) = done {
            let chain: Vec<(Node, u32)> = nodes.iter().map(|&(n, _, p)| (n, p)).collect();
            out.push(reach_of(b, &chain, i));
        }
        layer = next_start..nodes.len();
    }
    out
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
    Node {
        pos: start.0,
        k: 0,
        anchor: if straight_start { start.0 } else { NONE16 },
        anchor_k: 0,
        corner,
        credit,
        over_k: NONE8,
        over_corner: NONE16,
        missed: NONE16,
        crossings: 0,
        mask: 0,
    }
}

/// The state after moving from `pos` (state `n`) to `nxt`, or `None` if the driving code forbids it.
fn step(b: &Board<'_>, fields: &mut Fields, n: &Node, pos: SpaceIdx, nxt: SpaceIdx, max: u8) -> Option<Node> {
    let t = b.track;
    if b.occupied[nxt.get()] || !passable(b, nxt) {
        return None;
    }
    let here = t.space(pos);
    let there = t.space(nxt);
    // 10-2-1: after the first space of an overshoot, the car keeps its lane.
    if n.over_k != NONE8 && there.lane != here.lane {
        return None;
    }
    let mut c = *n;
    c.pos = nxt.0;
    c.k = n.k + 1;
    if t.crosses_line(pos, nxt) {
        c.crossings += 1;
    }
    if b.dangerous.binary_search(&nxt).is_ok() {
        c.mask |= fields.bit(nxt).unwrap_or(0);
    }
    let next_corner = there.corner.map_or(NONE16, |x| x.0);
    if next_corner != n.corner {
        if n.corner != NONE16 {
            // Leaving a corner (7-1-1, 10).
            let need = t.corners[n.corner as usize].stops;
            let deficit = need.saturating_sub(n.credit);
            if deficit >= 2 && c.missed == NONE16 {
                c.missed = n.corner; // 10-1
            }
            if deficit >= 1 && c.over_k == NONE8 {
                c.over_k = c.k; // first overshoot space (10-0-1)
                c.over_corner = n.corner;
            }
        }
        c.corner = next_corner;
        c.credit = 0; // no stop is made in the middle of a move
    }
    // The straight driving code (7-2-3): every prefix of a straight stretch is a shortest path
    // from its anchor, and so is the step that ends it in a corner (7-3-4-2).
    if here.corner.is_none() {
        if fields.dist(b, n.anchor, c.mask, nxt, max) != c.k - n.anchor_k {
            return None;
        }
        if there.corner.is_some() {
            c.anchor = NONE16;
            c.anchor_k = 0;
        }
    } else if there.corner.is_none() {
        // A straight stretch begins at the corner's last space (7-3-3-1).
        c.anchor = pos.0;
        c.anchor_k = n.k;
    }
    Some(c)
}

fn reach_of(b: &Board<'_>, nodes: &[(Node, u32)], i: usize) -> Reach {
    let t = b.track;
    let n = nodes[i].0;
    let mut path = Vec::with_capacity(n.k as usize);
    let mut j = i;
    while nodes[j].1 != u32::MAX {
        path.push(SpaceIdx(nodes[j].0.pos));
        j = nodes[j].1 as usize;
    }
    path.reverse();
    let dangerous = path.iter().copied().filter(|s| b.dangerous.binary_search(s).is_ok()).collect();
    let end = SpaceIdx(n.pos);
    let stops = t.space(end).corner.map(|c| {
        let need = t.corners[c.get()].stops;
        if n.over_k != NONE8 && n.over_corner != c.0 {
            (c, n.credit) // 10-2-3: an overshoot into the next corner counts no stop there
        } else {
            (c, (n.credit + 1).min(need))
        }
    });
    Reach {
        end,
        spaces: n.k,
        path,
        dangerous,
        overshoot: (n.over_k != NONE8).then(|| (CornerIdx(n.over_corner), n.k + 1 - n.over_k)),
        missed: (n.missed != NONE16).then_some(CornerIdx(n.missed)),
        stops,
        crossings: n.crossings,
    }
}
