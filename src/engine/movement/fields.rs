//! The straight-distance fields of a search (the shortest-path rule of the straights, 7-2-3) and
//! the listing of a board's cars.

use super::Board;
use super::node::NONE8;
use super::wall_entry;
use crate::track::{SpaceIdx, Track};

#[cfg(test)]
thread_local! {
    /// Tests only: every field is worked out on the board, none taken from the track.
    pub(super) static DYNAMIC_FIELDS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Distances along straights from an anchor, for a given set of entered dangerous spaces, and
/// the bit each dangerous space met so far has in a state's mask. A state keeps the index of its
/// field ([`Node::field`]), so the look-up by key is made once per state that needs one, not at
/// every step.
pub(super) struct Fields {
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
    pub(super) fn new(t: &Track) -> Self {
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
    pub(super) fn reset(&mut self, t: &Track) {
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
    pub(super) fn bit(&mut self, s: SpaceIdx) -> Option<u64> {
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
    pub(super) fn at(&self, field: usize, to: SpaceIdx) -> u8 {
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
    pub(super) fn field(&mut self, b: &Board<'_>, anchor: u16, mask: u64, limit: u8) -> usize {
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
pub(super) fn occupied_spaces(occupied: &[bool], out: &mut Vec<u16>) {
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
