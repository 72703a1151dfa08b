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

mod memo;

use super::chains::{Chains, END};
use crate::track::model::{Arrow, Compact, NEAR};
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

/// A search state. Within one layer of the search every state has the same length `k`.
///
/// Its identity is packed in two words ([`Node::same_key`] compares them, the length and the
/// tests aside), read and written through the accessors below: a state is copied at every step
/// and every layer, and two words copy in two moves where a dozen small fields took a dozen.
/// - word `a`: the space (`pos`), the straight stretch's anchor, the corner the car is in and the
///   corner it overshot (`over_corner`), 16 bits each;
/// - word `b`: the corner missed (16 bits), then 8 bits each: the length where the stretch began
///   (`anchor_k`), the stops counted in the corner (`credit`), the length where an overshoot
///   began (`over_k`), the line crossings, the length `k` and the tests.
#[derive(Copy, Clone)]
struct Node {
    a: u64,
    b: u64,
    /// Dangerous spaces entered in the current straight stretch: they are not obstacles for its
    /// shortest-path rule (7-3-5).
    mask: u64,
    /// The state it was reached from (its index in the search's states; `u32::MAX` for the
    /// first): the search's tree, from which a path is read. Not part of a state's identity.
    parent: u32,
    /// The search's straight-distance field for (`anchor`, `mask`), once looked up ([`NO_FIELD`]
    /// before): a step on a straight then reads its distance without comparing keys. Derived from
    /// `anchor` and `mask` and meaningful only within one search, so not part of a state's
    /// identity.
    field: u16,
}

/// A getter and a setter for a part of a state's packed words.
macro_rules! packed {
    ($($get:ident, $set:ident: $word:ident, $shift:expr, $ty:ty;)*) => {
        impl Node {
            $(
                #[inline(always)]
                fn $get(&self) -> $ty {
                    (self.$word >> $shift) as $ty
                }

                // Some are set only by the tests: a step adds to the counters in place.
                #[inline(always)]
                #[cfg_attr(not(test), allow(dead_code))]
                fn $set(&mut self, v: $ty) {
                    self.$word = (self.$word & !((<$ty>::MAX as u64) << $shift)) | ((v as u64) << $shift);
                }
            )*
        }
    };
}

packed! {
    pos, set_pos: a, 0, u16;
    anchor, set_anchor: a, 16, u16;
    corner, set_corner: a, 32, u16;
    over_corner, set_over_corner: a, 48, u16;
    missed, set_missed: b, 0, u16;
    anchor_k, set_anchor_k: b, 16, u8;
    credit, set_credit: b, 24, u8;
    over_k, set_over_k: b, 32, u8;
    crossings, set_crossings: b, 40, u8;
    k, set_k: b, 48, u8;
    tests, set_tests: b, 56, u8;
}

/// One more space moved, and one more line crossing, added to word `b`.
const ONE_K: u64 = 1 << 48;
const ONE_CROSSING: u64 = 1 << 40;

/// The bits of word `b` that are part of [`Node::same_key`]: all but the length and the tests.
const KEY_B: u64 = (1 << 48) - 1;

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("pos", &self.pos())
            .field("anchor", &self.anchor())
            .field("anchor_k", &self.anchor_k())
            .field("corner", &self.corner())
            .field("credit", &self.credit())
            .field("over_k", &self.over_k())
            .field("over_corner", &self.over_corner())
            .field("missed", &self.missed())
            .field("crossings", &self.crossings())
            .field("k", &self.k())
            .field("mask", &self.mask)
            .field("tests", &self.tests())
            .finish()
    }
}

/// A state's field not looked up yet (or none: in a corner).
const NO_FIELD: u16 = u16::MAX;

#[cfg(test)]
thread_local! {
    /// Tests only: every field is worked out on the board, none taken from the track.
    static DYNAMIC_FIELDS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

impl PartialEq for Node {
    fn eq(&self, o: &Node) -> bool {
        self.a == o.a && self.b == o.b && self.mask == o.mask
    }
}

impl Eq for Node {}

impl Node {
    /// Same state but for the length and the dangerous-space bookkeeping.
    fn same_key(&self, o: &Node) -> bool {
        self.a == o.a && (self.b ^ o.b) & KEY_B == 0
    }

    /// `self` can do everything `other` can, with no more tests: fewer dangerous spaces entered
    /// means more obstacles to go round, so every continuation legal for `other` is legal for
    /// `self` (7-2-3).
    fn dominates(&self, other: &Node) -> bool {
        self.mask & !other.mask == 0 && self.tests() <= other.tests()
    }
}

/// Ways a layer keeps through one state that differ only in dangerous spaces entered; beyond this
/// the first ones found stay (docs/rulings.md).
const MAX_VARIANTS: usize = 16;

/// Distances along straights from an anchor, for a given set of entered dangerous spaces, and
/// the bit each dangerous space met so far has in a state's mask. A state keeps the index of its
/// field ([`Node::field`]), so the look-up by key is made once per state that needs one, not at
/// every step.
struct Fields {
    /// Each field's anchor and mask, and the distance up to which it is exact (beyond:
    /// `u8::MAX`).
    keys: Vec<(u16, u64, u8)>,
    arena: Vec<u8>,
    bits: Vec<SpaceIdx>,
    width: usize,
    queue: Vec<SpaceIdx>,
    /// The spaces with a car, listed once per search when a field is first asked for
    /// (`listed`: the search's board has been listed).
    blockers: Vec<u16>,
    listed: bool,
}

impl Fields {
    fn new(t: &Track) -> Self {
        // Nothing is allocated before the first field: many searches (a slide, a slipstream's
        // three spaces in a corner) need none.
        Fields {
            keys: Vec::new(),
            arena: Vec::new(),
            bits: Vec::new(),
            width: t.spaces.len(),
            queue: Vec::new(),
            blockers: Vec::new(),
            listed: false,
        }
    }

    /// Empties the fields for a new search on `t`, keeping the buffers.
    fn reset(&mut self, t: &Track) {
        self.keys.clear();
        self.arena.clear();
        self.bits.clear();
        self.queue.clear();
        self.blockers.clear();
        self.listed = false;
        self.width = t.spaces.len();
    }

    /// The track's clear distances from `anchor` ([`Track::clear_straight`]) when they are this
    /// board's up to `limit`: nothing the board adds (a car, a sticker, an open pit lane's door,
    /// a wall entry counted as a test) is within `limit` arrows of the anchor along the straight
    /// (a way through anything farther is longer than `limit`, so no distance up to it changes).
    /// Then no dangerous space can have been entered on the stretch either, so the field holds
    /// for any mask it is asked with.
    fn clear<'t>(&mut self, b: &Board<'t>, anchor: u16, limit: u8) -> Option<&'t [u8]> {
        #[cfg(test)]
        if DYNAMIC_FIELDS.get() {
            return None;
        }
        let t = b.track;
        if b.walls && t.has_walls() {
            return None;
        }
        let d = t.clear_straight(SpaceIdx(anchor));
        // An open lane is a way on from its doors, and from anywhere in it.
        if b.pit_open && (t.compact(SpaceIdx(anchor)).pit || t.pit_doors().iter().any(|s| d[s.get()] < limit)) {
            return None;
        }
        if !self.listed {
            self.listed = true;
            occupied_spaces(b.occupied, &mut self.blockers);
        }
        let near = |s: u16| d[s as usize] <= limit;
        if self.blockers.iter().any(|&s| near(s)) || b.dangerous.iter().any(|s| near(s.0)) {
            return None;
        }
        Some(d)
    }

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

    /// Distance `to` in field `field` (an index from [`Fields::field`]).
    #[inline(always)]
    fn at(&self, field: usize, to: SpaceIdx) -> u8 {
        self.arena[field * self.width + to.get()]
    }

    /// The index of the field of fewest arrows from `anchor` through straight spaces, avoiding
    /// cars and the dangerous spaces not in `mask`, exact up to `limit` at least (`u8::MAX` where
    /// unreachable within it): one already worked out, or a new one. A state asks for the arrows
    /// it has left (the roll less the length where its straight stretch began), so a stretch
    /// begun late in a move, or in a slipstream's three spaces, is searched no farther than it can
    /// go; a field asked for again with a larger limit is worked out again in place (its values up
    /// to the smaller limit do not change).
    #[inline(never)]
    fn field(&mut self, b: &Board<'_>, anchor: u16, mask: u64, limit: u8) -> usize {
        if let Some(i) = self.keys.iter().rposition(|&(a, m, _)| (a, m) == (anchor, mask)) {
            if self.keys[i].2 < limit {
                self.fill(b, i, limit);
            }
            return i;
        }
        let w = self.width;
        if self.keys.is_empty() {
            // Room for a few fields: growing the arena copies every field already in it.
            self.keys.reserve(8);
            self.arena.reserve(w * 4);
            self.queue.reserve(64);
        }
        if let Some(d) = self.clear(b, anchor, limit) {
            // Exact up to `limit` (asked again with a larger one, it is worked out on this board).
            self.arena.extend_from_slice(d);
            self.keys.push((anchor, mask, limit));
            return self.keys.len() - 1;
        }
        self.arena.resize(self.arena.len() + w, NONE8);
        self.keys.push((anchor, mask, limit));
        let i = self.keys.len() - 1;
        self.fill(b, i, limit);
        i
    }

    /// Works out field `i` up to `limit` (a breadth-first search from its anchor).
    fn fill(&mut self, b: &Board<'_>, i: usize, limit: u8) {
        let w = self.width;
        let (anchor, mask, _) = self.keys[i];
        self.keys[i].2 = limit;
        let Fields { arena, queue, bits, .. } = self;
        // Closed: a car, the pit lane unless open, a dangerous space or a wall entry not entered
        // on this stretch (`mask`).
        let blocked = |u: SpaceIdx, v: SpaceIdx| {
            if b.occupied[v.get()] || (b.track.compact(v).pit && !b.pit_open) {
                return true;
            }
            if (!b.dangerous.is_empty() && b.dangerous.binary_search(&v).is_ok()) || wall_entry(b, u, v) {
                return bits.iter().position(|&x| x == v).is_none_or(|i| mask & (1 << i) == 0);
            }
            false
        };
        b.track.straight_distances(SpaceIdx(anchor), limit, &mut arena[i * w..(i + 1) * w], queue, blocked);
    }
}

/// The spaces `occupied` marks, in `out` (emptied first), in order ([`for_each_car`]).
fn occupied_spaces(occupied: &[bool], out: &mut Vec<u16>) {
    out.clear();
    for_each_car(occupied, |s| out.push(s as u16));
}

/// Calls `f` with each space `occupied` marks, in order. A board has a few cars on hundreds of
/// spaces, so the marks are read as bytes, 32 at a time (four words, one test), and only a word
/// with a car is looked into, a byte per car.
pub(super) fn for_each_car(occupied: &[bool], mut f: impl FnMut(usize)) {
    let marks: &[u8] = bytemuck::cast_slice(occupied);
    let word = |w: &[u8]| u64::from_le_bytes(w.try_into().expect("8 bytes"));
    let mut each = |at: usize, mut w: u64| {
        while w != 0 {
            let j = w.trailing_zeros() / 8;
            f(at + j as usize);
            w &= !(0xFF << (j * 8));
        }
    };
    let mut chunks = marks.chunks_exact(32);
    for (i, chunk) in chunks.by_ref().enumerate() {
        let w = [word(&chunk[..8]), word(&chunk[8..16]), word(&chunk[16..24]), word(&chunk[24..])];
        if w[0] | w[1] | w[2] | w[3] != 0 {
            w.iter().enumerate().for_each(|(j, &w)| each(i * 32 + j * 8, w));
        }
    }
    let tail = chunks.remainder();
    let at = marks.len() - tail.len();
    tail.iter().enumerate().filter(|&(_, &o)| o != 0).for_each(|(j, _)| f(at + j));
}

/// One layer of the search: the states found at the next length, each kept once per space and
/// dangerous-space variant that no other state of the layer dominates, in the order found. The
/// states are written straight into the search's list of states, from `base` on (a layer is the
/// end of that list while it is built); a new state is compared only with the states already on
/// its space ([`Chains`]).
///
/// The plain search (no dangerous space within reach, no wall entry counted: a state with the
/// same key dominates) keeps no chains: a layer holds few states (at most 11 in 87 % of the layers of
/// searches from every space of every shipped and reference track, 54 at most), so it looks
/// through the layer itself, and only when a state already in it may stand on the same space
/// (`seen`, one bit per space number modulo 64). Most new states have no such state and are
/// added at once.
struct Layer<T> {
    /// `tags[i]`: the tag of state `base + i` (none for the search: `T = ()`).
    tags: Vec<T>,
    /// Item `i` of the chains is state `base + i` (the general search and [`through`]; the
    /// plain search chains nothing).
    chains: Chains,
    /// The layer's first state in the search's list.
    base: usize,
    /// Bit `s % 64` set: a state of the layer may stand on space `s` (the plain search).
    seen: u64,
}

impl<T: Copy + PartialEq> Layer<T> {
    fn new(cap: usize) -> Self {
        let mut chains = Chains::default();
        chains.reserve(cap);
        Layer { tags: Vec::with_capacity(cap), chains, base: 0, seen: 0 }
    }

    /// Empties the layer for states on a track of `spaces` spaces, to be added to `nodes` after
    /// the states it holds now.
    fn clear(&mut self, spaces: usize, nodes: &[Node]) {
        self.tags.clear();
        self.chains.clear(spaces);
        self.base = nodes.len();
        self.seen = 0;
    }

    /// Adds a state to `nodes` unless one already in the layer (with the same tag) dominates it;
    /// replaces the state it dominates. `PLAIN`: no state has a mask bit or a test, so a state
    /// with the same key dominates.
    #[inline(always)]
    fn add<const PLAIN: bool>(&mut self, nodes: &mut Vec<Node>, n: Node, tag: T) {
        // The plain search looks through the layer for a state with the same key, only when a
        // state of the layer may be on the same space (`seen`: a bit per space modulo 64). It
        // keeps no tags, so a layer with tags (none is plain today) takes the chains.
        if PLAIN && std::mem::size_of::<T>() == 0 {
            let bit = 1u64 << (n.pos() % 64);
            if self.seen & bit != 0 && nodes[self.base..].iter().any(|m| m.same_key(&n)) {
                return;
            }
            self.seen |= bit;
            nodes.push(n);
            return;
        }
        let pos = n.pos() as usize;
        let mut variants = 0;
        let mut i = self.chains.head(pos);
        while i != END {
            let m = &mut nodes[self.base + i as usize];
            // A tag of no size is always the same: nothing to read.
            let same_tag = std::mem::size_of::<T>() == 0 || self.tags[i as usize] == tag;
            if same_tag && m.same_key(&n) {
                if PLAIN || m.dominates(&n) {
                    return;
                }
                if n.dominates(m) {
                    *m = n;
                    return;
                }
                variants += 1;
            }
            i = self.chains.next(i);
        }
        if variants < MAX_VARIANTS {
            nodes.push(n);
            self.tags.push(tag);
            self.chains.push(pos);
        }
    }
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

/// The buffers of a search, reused from one search to the next on the same thread: the states,
/// the layer, the straight-distance fields, and the vectors of results ([`Reaches`]) given back
/// when dropped. Only their capacity carries over (every search empties them first), so a search
/// finds the same ways whatever ran before it.
#[derive(Default)]
struct Scratch {
    fields: Option<Fields>,
    layer: Option<Layer<()>>,
    /// The vectors of dropped [`Reaches`], at most [`SPARE`].
    spare: Vec<Parts>,
}

/// The vectors a [`Reaches`] owns.
#[derive(Default)]
struct Parts {
    all: Vec<Reach>,
    start: Vec<u32>,
    nodes: Vec<Node>,
    dangerous: Vec<SpaceIdx>,
}

/// Results' vectors kept for reuse (a move's enumeration holds a few [`Reaches`] at once: the
/// move's, a slide's, a slipstream's).
const SPARE: usize = 8;

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl Drop for Reaches {
    fn drop(&mut self) {
        if self.nodes.capacity() == 0 {
            return; // nothing worth keeping (a default)
        }
        let parts = Parts {
            all: std::mem::take(&mut self.all),
            start: std::mem::take(&mut self.start),
            nodes: std::mem::take(&mut self.nodes),
            dangerous: std::mem::take(&mut self.dangerous),
        };
        // Not kept while the thread ends or the scratch is in use.
        let _ = SCRATCH.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut()
                && s.spare.len() < SPARE
            {
                s.spare.push(parts);
            }
        });
    }
}

/// The plain search ([`search_in`]) on from `prefix` ([`grow_in`]), with the thread's buffers.
fn grow(b: &Board<'_>, prefix: &[Node], max: u8, min: u8) -> Reaches {
    debug_assert!(plain(b, &prefix[0], max), "a board the plain search serves");
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => grow_in::<true, false>(&mut s, b, prefix, max, min),
        Err(_) => grow_in::<true, false>(&mut Scratch::default(), b, prefix, max, min),
    })
}

fn search(b: &Board<'_>, root: Node, max: u8, min: u8, to_pit_lane: bool) -> Reaches {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => search_with(&mut s, b, root, max, min, to_pit_lane),
        Err(_) => search_with(&mut Scratch::default(), b, root, max, min, to_pit_lane),
    })
}

/// [`search_in`] for the board: a board with no dangerous space within the move's reach
/// ([`Track::arrows_from`]) and no wall entry counted (most boards) takes a copy of the search
/// compiled for it, where no state ever has a test or a mask bit, so none of that bookkeeping is
/// done. Both copies find the same states in the same order. The search for the ways into the
/// pit lane has copies of its own, so that the others do not test, at every step, whether they
/// are one (`TO_PIT_LANE`).
fn search_with(scratch: &mut Scratch, b: &Board<'_>, root: Node, max: u8, min: u8, to_pit_lane: bool) -> Reaches {
    match (plain(b, &root, max), to_pit_lane) {
        (true, false) => search_in::<true, false>(scratch, b, root, max, min),
        (true, true) => search_in::<true, true>(scratch, b, root, max, min),
        (false, false) => search_in::<false, false>(scratch, b, root, max, min),
        (false, true) => search_in::<false, true>(scratch, b, root, max, min),
    }
}

/// True when the search from `root` up to `max` may take the plain copy ([`search_with`]): no
/// wall entry counted, no test or mask bit at the root, and no dangerous space within the
/// move's reach. A dangerous space the move cannot reach changes nothing the plain copy does not
/// do: no step enters it, so every state's mask and tests stay empty, and as an obstacle it
/// closes the same straight paths in both copies (a field is worked out with the empty mask
/// either way).
fn plain(b: &Board<'_>, root: &Node, max: u8) -> bool {
    let t = b.track;
    if (b.walls && t.has_walls()) || root.mask != 0 || root.tests() != 0 {
        return false;
    }
    let left = max.saturating_sub(root.k());
    b.dangerous.is_empty()
        || (left < NEAR && {
            let d = t.arrows_from(SpaceIdx(root.pos()));
            b.dangerous.iter().all(|s| d[s.get()] > left)
        })
}

/// The search ([`reaches`]); `PLAIN`: the board has no dangerous space the move can reach and
/// counts no wall entry, and the root no test (see [`search_with`]); `TO_PIT_LANE`: only the
/// ways into the pit lane are wanted ([`reaches_to_pit_lane`]).
fn search_in<const PLAIN: bool, const TO_PIT_LANE: bool>(
    scratch: &mut Scratch,
    b: &Board<'_>,
    root: Node,
    max: u8,
    min: u8,
) -> Reaches {
    grow_in::<PLAIN, TO_PIT_LANE>(scratch, b, &[root], max, min)
}

/// [`search_in`] from the states `prefix` (the root first, then whole layers, as a search lists
/// them): the search goes on from the last layer. Its states are those of the search from the
/// root whenever the prefix is that search's first layers (a kept search's, [`memo`]).
fn grow_in<const PLAIN: bool, const TO_PIT_LANE: bool>(
    scratch: &mut Scratch,
    b: &Board<'_>,
    prefix: &[Node],
    max: u8,
    min: u8,
) -> Reaches {
    let t = b.track;
    let root = prefix[0];
    // Cutting the states that cannot reach the pit lane changes no state that can: the layers
    // compare only states on the same space. It would change which dangerous spaces get the
    // first 64 mask bits, so it is done only when they all get one.
    let to_pit_lane = TO_PIT_LANE && !(b.walls && t.has_walls()) && b.dangerous.len() <= 64;
    let Scratch { fields, layer: next, spare } = scratch;
    let fields = fields.get_or_insert_with(|| Fields::new(t));
    fields.reset(t);
    let next = next.get_or_insert_with(|| Layer::new(64));
    let Parts { all, start, mut nodes, dangerous } = spare.pop().unwrap_or_default();
    nodes.clear();
    nodes.extend_from_slice(prefix);
    // A field index belongs to one search; the root has no parent.
    nodes.iter_mut().for_each(|n| n.field = NO_FIELD);
    nodes[0].parent = u32::MAX;
    let mut longest = nodes.last().map_or(root.k(), |n| n.k());
    let mut layer = nodes.iter().position(|n| n.k() == longest).unwrap_or(0)..nodes.len();
    // The first state at least `min` long: the layers before it are not reported.
    let mut first_reported = nodes.iter().position(|n| n.k() >= min).unwrap_or(usize::MAX);
    let walls = b.walls && t.has_walls();
    for k in nodes[layer.start].k()..max {
        next.clear(t.spaces.len(), &nodes);
        for i in layer.clone() {
            let mut n = nodes[i];
            let pos = SpaceIdx(n.pos());
            let (here, arrows) = t.arrows(pos);
            for &Arrow { to: nxt, there } in arrows {
                // The state is passed through `black_box` so that the compiler reads its fields
                // where a step uses them, rather than working them all out once per state ahead
                // of its arrows and keeping them on the stack (most steps use few of them).
                let n = std::hint::black_box(&mut n);
                if let Some(mut child) = step::<PLAIN>(b, walls, fields, n, pos, here, nxt, there, max) {
                    if to_pit_lane && t.arrows_to_pit_lane(nxt) > max - child.k() {
                        continue; // no way into the lane from there within the roll
                    }
                    child.parent = i as u32;
                    next.add::<PLAIN>(&mut nodes, child, ());
                }
            }
        }
        let next_start = next.base;
        if nodes.len() == next_start {
            break;
        }
        longest = k + 1;
        layer = next_start..nodes.len();
        if longest == min {
            first_reported = next_start;
        }
    }

    // Nodes are in layers, so by increasing length already: the reported ones are those from
    // the first of length `min`, or the last layer (the longest) when it is shorter.
    let reported = if longest < min { layer.start } else { first_reported };
    debug_assert!(
        nodes.iter().enumerate().all(|(i, n)| (i >= reported) == (n.k() >= min || n.k() == longest)),
        "the states reported are those at least `min` long, or the longest"
    );
    report(Parts { all, start, nodes, dangerous }, reported, max, longest, root.k(), b.dangerous)
}

/// A search's answer from its states (`parts.nodes`, in layers, the others emptied here): the
/// ways from state `reported` on, by length, for a roll of `max`; `dangerous`: the board's.
#[inline(always)]
fn report(parts: Parts, reported: usize, max: u8, longest: u8, root_k: u8, dangerous: &[SpaceIdx]) -> Reaches {
    let Parts { mut all, mut start, nodes, dangerous: mut stickers } = parts;
    all.clear();
    all.reserve(nodes.len() - reported);
    start.clear();
    start.resize(max as usize + 2, 0);
    for (i, n) in nodes.iter().enumerate().skip(reported) {
        all.push(reach_of(n, i as u32));
        start[n.k() as usize + 1] = all.len() as u32;
    }
    for k in 1..start.len() {
        start[k] = start[k].max(start[k - 1]);
    }
    stickers.clear();
    stickers.extend_from_slice(dangerous);
    Reaches { all, start, longest, nodes, dangerous: stickers, root_k }
}

/// A path named by waypoints, checked against the driving code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// Where it ends and what it costs.
    pub reach: Reach,
    /// The spaces entered, in order.
    pub path: Vec<SpaceIdx>,
}

/// The legal ways to drive through the spaces `via` in order and stop on the last one, at most
/// `m.max` spaces long: one path for each length that has one, shortest first. This is how a path
/// a player (or a rulebook example) names is checked against the driving code (7, 10-2): the same
/// steps as [`reaches`], with the waypoints met so far added to the search state.
pub fn through(b: &Board<'_>, m: &Mover, via: &[SpaceIdx]) -> Vec<Walk> {
    let Some(&last) = via.last() else { return Vec::new() };
    let t = b.track;
    let root = reaches_root(b, m);
    let mut fields = Fields::new(t);
    // The states, and the waypoints each has met.
    let mut nodes: Vec<Node> = vec![root];
    let mut mets: Vec<usize> = vec![0];
    let mut layer = 0..1usize;
    let mut out = Vec::new();
    let mut next = Layer::<usize>::new(64);
    let walls = b.walls && t.has_walls();
    for _ in 0..m.max {
        next.clear(t.spaces.len(), &nodes);
        for i in layer.clone() {
            let (mut n, met) = (nodes[i], mets[i]);
            if met == via.len() {
                continue; // the path has reached its last waypoint: it stops there
            }
            let pos = SpaceIdx(n.pos());
            let (here, arrows) = t.arrows(pos);
            for &Arrow { to: nxt, there } in arrows {
                if let Some(mut child) = step::<false>(b, walls, &mut fields, &mut n, pos, here, nxt, there, m.max) {
                    let met = if nxt == via[met] { met + 1 } else { met };
                    child.parent = i as u32;
                    next.add::<false>(&mut nodes, child, met);
                }
            }
        }
        let next_start = next.base;
        if nodes.len() == next_start {
            break;
        }
        mets.extend_from_slice(&next.tags);
        let done = (next_start..nodes.len()).find(|&i| mets[i] == via.len() && SpaceIdx(nodes[i].pos()) == last);
        if let Some(i) = done {
            out.push(Walk {
                reach: reach_of(&nodes[i], i as u32),
                path: path_in(&nodes, i as u32, nodes[i].k() as usize),
            });
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

/// The state after moving from `pos` (state `n`, space facts `here`) to `nxt` (facts `there`),
/// or `None` if the driving code forbids it. `walls`: the board counts wall entries and the track
/// has walls. `PLAIN`: no dangerous space within the move's reach and `walls` false ([`plain`]),
/// so no state has a mask bit.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn step<const PLAIN: bool>(
    b: &Board<'_>,
    walls: bool,
    fields: &mut Fields,
    n: &mut Node,
    pos: SpaceIdx,
    here: Compact,
    nxt: SpaceIdx,
    there: Compact,
    max: u8,
) -> Option<Node> {
    let t = b.track;
    // 10-2-1: after the first space of an overshoot, the car keeps its lane. (Tested first: in
    // long moves it turns away a third of the arrows, and it reads nothing but the two spaces'
    // facts.)
    if n.over_k() != NONE8 && there.lane != here.lane {
        return None;
    }
    if b.occupied[nxt.get()] || (there.pit && !b.pit_open) {
        return None;
    }
    let mut c = *n;
    c.set_pos(nxt.0);
    // One more space, and one more line crossing when the arrow crosses the finish line, added
    // in place: the length stays below the roll (at most 255), and a move crosses the line a few
    // times at most, so neither carries into the next field.
    c.b += ONE_K + if there.progress < here.progress { ONE_CROSSING } else { 0 };
    if !PLAIN && !b.dangerous.is_empty() && b.dangerous.binary_search(&nxt).is_ok() {
        c.mask |= fields.bit(nxt).unwrap_or(0);
        c.set_tests(c.tests() + 1);
    }
    if !PLAIN && walls && wall_entry(b, pos, nxt) {
        // 15-0-2: entering the wall lane is a body test against the wall.
        c.mask |= fields.bit(nxt).unwrap_or(0);
        c.set_tests(c.tests() + 1);
    }
    // A state's corner is always its space's (the root's is, and every step sets it), so the
    // space's facts say whether this step leaves one.
    debug_assert_eq!(n.corner(), here.corner);
    if there.corner != here.corner {
        if here.corner != NONE16 {
            // Leaving a corner (7-1-1, 10).
            let need = t.corners[here.corner as usize].stops;
            let deficit = need.saturating_sub(n.credit());
            if deficit >= 2 && c.missed() == NONE16 {
                c.set_missed(here.corner); // 10-1
            }
            if deficit >= 1 && c.over_k() == NONE8 {
                c.set_over_k(c.k()); // first overshoot space (10-0-1)
                c.set_over_corner(here.corner);
            }
        }
        c.set_corner(there.corner);
        c.set_credit(0); // no stop is made in the middle of a move
    }
    // The straight driving code (7-2-3): every prefix of a straight stretch is a shortest path
    // from its anchor, and so is the step that ends it in a corner (7-3-4-2).
    if here.corner == NONE16 {
        // The field of (anchor, mask): the parent's when no dangerous space was entered (looked
        // up once for all its steps), else another.
        let same_mask = PLAIN || c.mask == n.mask;
        let f = if same_mask && n.field != NO_FIELD {
            n.field as usize
        } else {
            let f = fields.field(b, n.anchor(), if PLAIN { 0 } else { c.mask }, max - n.anchor_k());
            if same_mask && f < NO_FIELD as usize {
                n.field = f as u16;
            }
            f
        };
        c.field = if f < NO_FIELD as usize { f as u16 } else { NO_FIELD };
        if fields.at(f, nxt) != c.k() - n.anchor_k() {
            return None;
        }
        if there.corner != NONE16 {
            c.set_anchor(NONE16);
            c.set_anchor_k(0);
            c.mask = 0; // the straight stretch is over
            c.field = NO_FIELD;
        }
    } else {
        c.field = NO_FIELD;
        if there.corner == NONE16 {
            // A straight stretch begins at the corner's last space (7-3-3-1).
            c.set_anchor(pos.0);
            c.set_anchor_k(n.k());
        }
    }
    Some(c)
}

/// True if the step `from` → `to` enters an oval's wall lane (15-0-2, 15-0-4: moving along it
/// is no entry), when the board counts wall entries.
#[inline]
fn wall_entry(b: &Board<'_>, from: SpaceIdx, to: SpaceIdx) -> bool {
    b.walls && b.track.has_walls() && b.track.space(to).wall && !b.track.space(from).wall
}

/// The wall entries of a move from `start` along `path`: one body test against the wall each
/// (15-0-2, 15-0-4).
pub fn wall_entries(t: &Track, start: SpaceIdx, path: &[SpaceIdx]) -> u8 {
    if !t.has_walls() {
        return 0;
    }
    let mut prev = start;
    let mut n = 0u8;
    for &p in path {
        if t.space(p).wall && !t.space(prev).wall {
            n = n.saturating_add(1);
        }
        prev = p;
    }
    n
}

/// The way that ends in state `n`, index `node` of the search's states.
#[inline]
fn reach_of(n: &Node, node: u32) -> Reach {
    Reach { state: *n, node }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::track::load::{resolve, shipped_names};

    /// A board's marks with a car on every `every`-th space of `t`, the first one included.
    fn cars_every(t: &Track, every: usize) -> Vec<bool> {
        let mut occupied = vec![false; t.spaces.len()];
        for s in t.indices().step_by(every) {
            occupied[s.get()] = true;
        }
        occupied
    }

    /// Everything a search returns, for comparing two searches.
    pub(super) fn all_of(r: &Reaches) -> Vec<(Reach, Vec<SpaceIdx>)> {
        (0..=r.longest).flat_map(|k| r.at(k).iter().map(|x| (x.clone(), r.path(x)))).collect()
    }

    /// A search finds the same ways whatever ran before it on the thread: its buffers are
    /// reused ([`Scratch`]), their contents never. Each search below, made after others on other
    /// boards (cars, stickers) while earlier results are still held or already dropped, is
    /// compared with the same search made on a fresh thread.
    #[test]
    fn a_search_does_not_depend_on_the_searches_before_it() {
        let t = resolve("monaco").unwrap();
        let empty = vec![false; t.spaces.len()];
        let crowded = cars_every(&t, 5);
        let dangerous: Vec<SpaceIdx> = t.indices().skip(2).step_by(9).collect();
        let boards = [
            Board { track: &t, occupied: &empty, dangerous: &[], pit_open: false, walls: true },
            Board { track: &t, occupied: &crowded, dangerous: &dangerous, pit_open: false, walls: true },
            Board { track: &t, occupied: &empty, dangerous: &dangerous, pit_open: true, walls: true },
        ];
        let mut held = Vec::new();
        for (i, s) in t.indices().filter(|&s| !t.space(s).in_pit_lane() && !crowded[s.get()]).step_by(13).enumerate() {
            let b = &boards[i % boards.len()];
            let m = Mover { start: s, stops: None, max: [12, 26, 5][i % 3], min: [7, 21, 1][i % 3] };
            let here = reaches(b, &m);
            let fresh = std::thread::scope(|sc| sc.spawn(|| all_of(&reaches(b, &m))).join().unwrap());
            assert_eq!(all_of(&here), fresh, "from {}", t.space(s).id);
            if i % 2 == 0 {
                held.push(here); // kept: the next searches take other buffers
            }
        }
    }

    /// The copy of the search compiled for boards with no dangerous space and no wall entry
    /// ([`search_with`]) finds what the general search finds on such a board: the same ways,
    /// paths and order, on every shipped track from every fifth space, with and without cars,
    /// the pit lane open or not, rolls of every gear.
    #[test]
    fn the_plain_search_is_the_general_search_on_a_plain_board() {
        for name in shipped_names() {
            let t = resolve(&name).unwrap();
            let empty = vec![false; t.spaces.len()];
            let crowded = cars_every(&t, 4);
            let mut compared = 0;
            for (i, s) in t.indices().filter(|&s| !t.space(s).in_pit_lane()).step_by(5).enumerate() {
                let occupied = if i % 2 == 0 { &empty } else { &crowded };
                if occupied[s.get()] {
                    continue;
                }
                let b = Board { track: &t, occupied, dangerous: &[], pit_open: i % 3 == 0, walls: false };
                let m = Mover { start: s, stops: None, max: [2, 8, 12, 20, 30][i % 5], min: [1, 4, 7, 11, 21][i % 5] };
                let root = reaches_root(&b, &m);
                let fresh = Scratch::default;
                let (plain, general) = if i % 4 == 1 {
                    (
                        search_in::<true, true>(&mut fresh(), &b, root, m.max, m.min),
                        search_in::<false, true>(&mut fresh(), &b, root, m.max, m.min),
                    )
                } else {
                    (
                        search_in::<true, false>(&mut fresh(), &b, root, m.max, m.min),
                        search_in::<false, false>(&mut fresh(), &b, root, m.max, m.min),
                    )
                };
                assert_eq!(all_of(&plain), all_of(&general), "{name} from {}", t.space(s).id);
                compared += plain.states();
            }
            assert!(compared > 1000, "{name}: {compared} states compared");
        }
    }

    /// A board whose dangerous spaces the move cannot reach takes the plain copy of the search
    /// ([`plain`]), and finds there what the general search finds: on every shipped track from
    /// every seventh space, with a sticker exactly as many arrows away as the move is long
    /// (reachable: the general copy) and one a single arrow farther (out of reach: the plain
    /// copy), with and without cars.
    #[test]
    fn stickers_out_of_reach_leave_the_search_plain() {
        let (mut plain_taken, mut general_taken, mut entered) = (0, 0, 0);
        for name in shipped_names() {
            let t = resolve(&name).unwrap();
            let empty = vec![false; t.spaces.len()];
            let crowded = cars_every(&t, 6);
            for (i, s) in t.indices().filter(|&s| !t.space(s).in_pit_lane() && !crowded[s.get()]).step_by(7).enumerate()
            {
                let occupied = if i % 2 == 0 { &empty } else { &crowded };
                let (max, min) = [(4, 1), (9, 5), (12, 7), (20, 14), (30, 24)][i % 5];
                let d = t.arrows_from(s);
                // The last space found at each distance (a sticker may stand anywhere).
                let at = |k: u8| t.indices().filter(|x| d[x.get()] == k && !occupied[x.get()]).last();
                for near in [at(max), at(max + 1)].into_iter().flatten() {
                    let dangerous = [near];
                    let b = Board { track: &t, occupied, dangerous: &dangerous, pit_open: false, walls: false };
                    let m = Mover { start: s, stops: None, max, min };
                    let root = reaches_root(&b, &m);
                    let general = search_in::<false, false>(&mut Scratch::default(), &b, root, max, min);
                    assert_eq!(all_of(&reaches(&b, &m)), all_of(&general), "{name} from {}", t.space(s).id);
                    if plain(&b, &root, max) {
                        assert!(d[near.get()] > max, "{name}: a sticker {} arrows away is out of reach", d[near.get()]);
                        plain_taken += 1;
                    } else {
                        general_taken += 1;
                        entered += usize::from(all_of(&general).iter().any(|(r, _)| r.tests() > 0));
                    }
                }
            }
        }
        assert!(plain_taken > 100 && general_taken > 100, "plain {plain_taken}, general {general_taken}");
        // Some of the reachable stickers are entered: a copy blind to them would differ there.
        assert!(entered > 20, "{entered} searches entered the sticker at the roll's reach");
    }

    /// A search one space longer, capped at the roll ([`Reaches::cap`]), is the roll's search:
    /// the same ways, paths, order and longest way, on every shipped track from every seventh
    /// space, with and without cars and stickers, blocked or not (the soft-tyre +1 reads both
    /// from one search, 8-2-1).
    #[test]
    fn a_longer_search_capped_is_the_shorter_search() {
        let mut compared = 0;
        let mut blocked = 0;
        for name in shipped_names() {
            let t = resolve(&name).unwrap();
            let empty = vec![false; t.spaces.len()];
            let crowded = cars_every(&t, 4);
            let dangerous: Vec<SpaceIdx> = t.indices().skip(1).step_by(13).collect();
            let boards = [
                Board { track: &t, occupied: &empty, dangerous: &[], pit_open: false, walls: true },
                Board { track: &t, occupied: &crowded, dangerous: &dangerous, pit_open: false, walls: true },
            ];
            for s in t.indices().filter(|&s| !t.space(s).in_pit_lane() && !crowded[s.get()]).step_by(7) {
                for b in &boards {
                    for (max, min) in [(1, 1), (4, 2), (12, 6), (26, 20), (30, 30)] {
                        let short = reaches(b, &Mover { start: s, stops: None, max, min });
                        let mut long = reaches(b, &Mover { start: s, stops: None, max: max + 1, min });
                        long.cap(max);
                        assert_eq!(long.longest, short.longest, "{name} from {} ({max})", t.space(s).id);
                        assert_eq!(all_of(&long), all_of(&short), "{name} from {} ({max})", t.space(s).id);
                        assert!(long.at(max + 1).is_empty());
                        compared += 1;
                        blocked += usize::from(short.longest < max);
                    }
                }
            }
        }
        assert!(compared > 500 && blocked > 50, "{compared} searches compared, {blocked} blocked");
    }

    /// Each part of a packed state is written and read back without touching the others, and
    /// two states are the same but for the length and tests ([`Node::same_key`]) exactly when
    /// every other part is equal: what the hand-written [`KEY_B`] mask must say.
    #[test]
    fn the_packed_state_keeps_each_part_apart() {
        type Set = fn(&mut Node, u16);
        type Get = fn(&Node) -> u16;
        // Name, setter, getter, part of `same_key`.
        let parts: [(&str, Set, Get, bool); 11] = [
            ("pos", |n, v| n.set_pos(v), |n| n.pos(), true),
            ("anchor", |n, v| n.set_anchor(v), |n| n.anchor(), true),
            ("corner", |n, v| n.set_corner(v), |n| n.corner(), true),
            ("over_corner", |n, v| n.set_over_corner(v), |n| n.over_corner(), true),
            ("missed", |n, v| n.set_missed(v), |n| n.missed(), true),
            ("anchor_k", |n, v| n.set_anchor_k(v as u8), |n| n.anchor_k().into(), true),
            ("credit", |n, v| n.set_credit(v as u8), |n| n.credit().into(), true),
            ("over_k", |n, v| n.set_over_k(v as u8), |n| n.over_k().into(), true),
            ("crossings", |n, v| n.set_crossings(v as u8), |n| n.crossings().into(), true),
            ("k", |n, v| n.set_k(v as u8), |n| n.k().into(), false),
            ("tests", |n, v| n.set_tests(v as u8), |n| n.tests().into(), false),
        ];
        let blank = Node { a: 0, b: 0, mask: 0, parent: 0, field: NO_FIELD };
        for (i, &(name, set, _, key)) in parts.iter().enumerate() {
            // Every part set to a distinct value, then this one to all ones and back.
            let mut n = blank;
            for (j, &(_, set_j, _, _)) in parts.iter().enumerate() {
                set_j(&mut n, 0x41 + j as u16);
            }
            let before = n;
            set(&mut n, u16::MAX);
            for (j, &(other, _, get_j, _)) in parts.iter().enumerate() {
                if j != i {
                    assert_eq!(get_j(&n), 0x41 + j as u16, "setting {name} changed {other}");
                }
            }
            assert_eq!(before.same_key(&n), !key, "{name} in same_key");
            assert_ne!(before, n, "{name} in a state's equality");
            set(&mut n, 0x41 + i as u16);
            assert_eq!(n, before, "{name} read back");
        }
    }

    /// The cars listed 32 spaces at a time are the cars marked, the last partial chunk's too.
    #[test]
    fn the_occupied_spaces_are_listed_whole() {
        for len in [0, 5, 31, 32, 33, 515, 1000] {
            for step in [1, 3, 7, 64, 200] {
                let occupied: Vec<bool> = (0..len).map(|i| i % step == step - 1 || i + 1 == len).collect();
                let mut listed = vec![9, 9];
                occupied_spaces(&occupied, &mut listed);
                let plain: Vec<u16> = (0..len).filter(|&i| occupied[i]).map(|i| i as u16).collect();
                assert_eq!(listed, plain, "{len} spaces, a car every {step}");
            }
        }
    }

    /// The straight fields a search takes from the track's clear distances
    /// ([`Track::clear_straight`]) are the ones it would work out on its board: searches on every
    /// shipped track, from every tenth space (the pit lane's included), with cars, stickers, the
    /// lane open or closed, give the same ways with and without them.
    #[test]
    fn the_tracks_clear_fields_are_the_boards_fields() {
        for name in shipped_names() {
            let t = resolve(&name).unwrap();
            let empty = vec![false; t.spaces.len()];
            let crowded = cars_every(&t, 7);
            let dangerous: Vec<SpaceIdx> = t.indices().skip(3).step_by(11).collect();
            let mut compared = 0;
            for (i, s) in t.indices().filter(|s| !crowded[s.get()]).step_by(10).enumerate() {
                for (occupied, stickers, pit_open) in
                    [(&empty, &[][..], false), (&empty, &[][..], true), (&crowded, &dangerous[..], i % 2 == 0)]
                {
                    let b = Board { track: &t, occupied, dangerous: stickers, pit_open, walls: i % 3 != 0 };
                    for (max, min) in [(5, 1), (12, 6), (30, 21)] {
                        let m = Mover { start: s, stops: None, max, min };
                        let with = all_of(&reaches(&b, &m));
                        let without = std::thread::scope(|sc| {
                            sc.spawn(|| {
                                DYNAMIC_FIELDS.set(true);
                                all_of(&reaches(&b, &m))
                            })
                            .join()
                            .unwrap()
                        });
                        assert_eq!(with, without, "{name} from {} ({max})", t.space(s).id);
                        compared += with.len();
                    }
                }
            }
            assert!(compared > 1000, "{name}: {compared} ways compared");
        }
    }
}
