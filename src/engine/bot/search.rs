//! The bot's own move search on the empty track (the driving code of 7 and 10-2, checked against
//! the engine's in the tests): every end of every length from a position, with its stops,
//! overshoot and missed corner, fast enough to list every position of a track.

use super::*;

/// The bot's own move search: the driving code of `movement` (7, 10-2) without stickers or
/// paths, so that every position's moves are cheap to list.
pub(super) struct Search<'a> {
    pub(super) t: &'a Track,
    /// Spaces holding another car (7-0-1); empty for the plan's empty track.
    pub(super) occupied: &'a [bool],
    pub(super) scratch: &'a mut Scratch,
}

/// Buffers a search reuses.
#[derive(Clone, Debug, Default)]
pub(super) struct Scratch {
    /// Shortest distances along straights from each anchor met (7-2-3).
    pub(super) fields: FxHashMap<u16, Vec<u8>>,
    /// Field buffers to reuse.
    pub(super) spare: Vec<Vec<u8>>,
    pub(super) layer: Vec<St>,
    pub(super) next: Vec<St>,
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct St {
    pub(super) pos: u16,
    pub(super) k: u8,
    pub(super) anchor: u16,
    pub(super) anchor_k: u8,
    pub(super) corner: u16,
    pub(super) credit: u8,
    pub(super) over_k: u8,
    pub(super) over_corner: u16,
    pub(super) missed: u16,
    pub(super) crossings: u8,
}

impl<'a> Search<'a> {
    /// A search around the cars on `occupied` (fields from an earlier search are dropped).
    pub(super) fn new(t: &'a Track, occupied: &'a [bool], scratch: &'a mut Scratch) -> Self {
        let Scratch { fields, spare, .. } = scratch;
        spare.extend(fields.drain().map(|(_, v)| v));
        Search { t, occupied, scratch }
    }

    pub(super) fn blocked(&self, s: SpaceIdx) -> bool {
        self.t.space(s).in_pit_lane() || self.occupied.get(s.get()).copied().unwrap_or(false)
    }

    pub(super) fn dist(&mut self, anchor: u16, to: SpaceIdx) -> u8 {
        let t = self.t;
        let occupied = self.occupied;
        let Scratch { fields, spare, .. } = &mut *self.scratch;
        let field = fields.entry(anchor).or_insert_with(|| {
            let mut d = spare.pop().unwrap_or_default();
            d.clear();
            d.resize(t.spaces.len(), NONE8);
            let mut queue = vec![SpaceIdx(anchor)];
            d[anchor as usize] = 0;
            let mut head = 0;
            while head < queue.len() {
                let u = queue[head];
                head += 1;
                let du = d[u.get()];
                if du as usize >= REACH {
                    continue;
                }
                for &v in t.next(u) {
                    if d[v.get()] != NONE8 || t.space(v).in_pit_lane() || occupied.get(v.get()) == Some(&true) {
                        continue;
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

    /// Calls `visit` once for every distinct search state of every length up to `depth`.
    pub(super) fn run(
        &mut self,
        start: SpaceIdx,
        stops: Option<(crate::track::CornerIdx, u8)>,
        depth: usize,
        mut visit: impl FnMut(&St),
    ) {
        let t = self.t;
        let (corner, credit) = match stops {
            Some((c, s)) if t.space(start).corner == Some(c) => (c.0, s),
            _ => (t.space(start).corner.map_or(NONE16, |c| c.0), 0),
        };
        let straight = t.space(start).corner.is_none();
        let root = St {
            pos: start.0,
            k: 0,
            anchor: if straight { start.0 } else { NONE16 },
            anchor_k: 0,
            corner,
            credit,
            over_k: NONE8,
            over_corner: NONE16,
            missed: NONE16,
            crossings: 0,
        };
        visit(&root);
        let mut layer = std::mem::take(&mut self.scratch.layer);
        let mut next = std::mem::take(&mut self.scratch.next);
        layer.clear();
        layer.push(root);
        for _ in 0..depth {
            next.clear();
            for n in &layer {
                let pos = SpaceIdx(n.pos);
                for &nxt in t.next(pos) {
                    if let Some(c) = self.step(n, pos, nxt) {
                        next.push(c);
                    }
                }
            }
            // States of one length are distinct from those of any other: a layer's duplicates
            // are all the search has to drop.
            next.sort_unstable();
            next.dedup();
            if next.is_empty() {
                break;
            }
            next.iter().for_each(&mut visit);
            std::mem::swap(&mut layer, &mut next);
        }
        self.scratch.layer = layer;
        self.scratch.next = next;
    }

    /// `movement::step` without stickers, with the pit lane closed.
    pub(super) fn step(&mut self, n: &St, pos: SpaceIdx, nxt: SpaceIdx) -> Option<St> {
        let t = self.t;
        if self.blocked(nxt) {
            return None;
        }
        let here = t.space(pos);
        let there = t.space(nxt);
        if n.over_k != NONE8 && there.lane != here.lane {
            return None; // 10-2-1
        }
        let mut c = *n;
        c.pos = nxt.0;
        c.k = n.k + 1;
        if t.crosses_line(pos, nxt) {
            c.crossings += 1;
        }
        let next_corner = there.corner.map_or(NONE16, |x| x.0);
        if next_corner != n.corner {
            if n.corner != NONE16 {
                let need = t.corners[n.corner as usize].stops;
                let deficit = need.saturating_sub(n.credit);
                if deficit >= 2 && c.missed == NONE16 {
                    c.missed = n.corner; // 10-1
                }
                if deficit >= 1 && c.over_k == NONE8 {
                    c.over_k = c.k; // 10-0-1
                    c.over_corner = n.corner;
                }
            }
            c.corner = next_corner;
            c.credit = 0;
        }
        if here.corner.is_none() {
            if self.dist(n.anchor, nxt) != c.k - n.anchor_k {
                return None; // 7-2-3
            }
            if there.corner.is_some() {
                c.anchor = NONE16;
                c.anchor_k = 0;
            }
        } else if there.corner.is_none() {
            c.anchor = pos.0; // 7-3-3-1
            c.anchor_k = n.k;
        }
        Some(c)
    }
}
