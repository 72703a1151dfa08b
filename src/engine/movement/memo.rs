//! The searches of the empty track, kept: most moves have nothing in their reach (three in four
//! of a 10-car race's enumerations: no other car and no dangerous space as near as the roll), and
//! then the search's states up to the roll are those of the empty track's search from the same
//! space and stops, whoever else is on the board. So each such search is made once per track,
//! thread and starting position, and later moves read its states.
//!
//! Why it gives the same answer: a search's states up to a length do not depend on how much
//! farther it looks ([`Reaches::cap`]: a straight's distances are exact up to the roll either
//! way), so the states of a deeper search, up to the roll, are the roll's search's, in the same
//! order. A car or a dangerous space more arrows away than the roll is never entered by a move
//! of the roll, and it closes no straight path a state up to the roll compares with (the
//! straight-distance field from an anchor met after `j` spaces is asked up to `roll - j`, and
//! the car is farther than that from the anchor: [`Fields::clear`] sees the track's own
//! distances on both boards). The pit lane is closed on both boards, and a track whose wall
//! entries count is never kept (a wall entry is a test, as a dangerous space).
//!
//! Architecture invariant: this is a memo of a pure function of the track and the position, kept
//! per thread like the search's scratch, keyed by [`Track::uid`] (a track is never changed once
//! built, and a clone has its own uid). It never changes an answer (the tests compare every kept
//! search with a fresh one); it only saves the work.

use std::cell::RefCell;

use rustc_hash::FxHashMap;

use super::fields::for_each_car;
use super::search::{SCRATCH, grow, plain, report, search};
use super::{Board, Mover, Node, Reaches};
use crate::track::model::NEAR;
use crate::track::{SpaceIdx, Track};

/// The deepest a kept search looks: the longest roll (30, in 6th gear) and the soft-tyre +1.
const DEEPEST: u8 = 31;

/// Tracks whose searches a thread keeps (the one that least recently had a search made goes
/// first): a daemon or a simulation plays on one or two at a time.
const TRACKS: usize = 3;

/// A kept search: its states (in the search's order, the root first) and, for each length `k`,
/// how many states are `k` long or shorter.
struct Kept {
    nodes: Vec<Node>,
    upto: Vec<u32>,
    /// The length it was searched to (its states beyond are unknown).
    depth: u8,
}

/// One track's kept searches, by starting space and stops counted there.
struct Searches {
    uid: u64,
    kept: FxHashMap<(u16, u8), Kept>,
}

thread_local! {
    static KEPT: RefCell<Vec<Searches>> = const { RefCell::new(Vec::new()) };
}

/// The lengths a kept search is made to, the least that holds the roll asked: the top of each
/// gear's die and one more (the soft-tyre +1), so that a space's search serves every roll of the
/// gears the cars play there.
fn depth_for(max: u8) -> u8 {
    [3, 5, 9, 13, 21, DEEPEST].into_iter().find(|&d| d >= max).unwrap_or(max)
}

/// How much of a kept search a search may take ([`applies`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Use {
    /// All its states up to the roll: nothing in the way within the roll.
    Whole,
    /// Its states shorter than this length: the nearest car is that many arrows away, and the
    /// search goes on from there on the board ([`grow`]).
    Shorter(u8),
    /// None.
    Not,
}

/// How much of the empty track's search from the same position the search of `m` on `b` is:
/// the whole of it up to the roll when no car is within the roll's reach, its layers shorter
/// than the nearest car when one is; none when a pit lane is open, a wall entry counts or a
/// dangerous space is within reach ([`plain`]).
///
/// Why the layers shorter than the nearest car (`c` arrows away) are the board's: a step to a
/// length below `c` enters no car, and the straight-distance field it is checked against has the
/// same value there on both boards (a path from the stretch's anchor no longer than the step's
/// stays within `c - 1` arrows of the start, so no car is on it; and a field's value changes only
/// where every shortest path runs through a car).
fn applies(b: &Board<'_>, root: &Node, m: &Mover) -> Use {
    let t = b.track;
    if b.pit_open || m.max > DEEPEST || m.max >= NEAR || !plain(b, root, m.max) {
        return Use::Not;
    }
    let d = t.arrows_from(m.start);
    // The nearest car's distance (above the roll when none is within it).
    let mut nearest = m.max + 1;
    for_each_car(b.occupied, |s| nearest = nearest.min(d[s]));
    match nearest {
        c if c > m.max => Use::Whole,
        // Below three arrows the kept layers save little.
        c if c >= 3 => Use::Shorter(c),
        _ => Use::Not,
    }
}

/// The ways of `m` on `b` read from the empty track's kept search from the same position, when
/// that is the search's answer ([`applies`]); `None` otherwise.
pub(super) fn reaches(b: &Board<'_>, root: Node, m: &Mover) -> Option<Reaches> {
    let how = applies(b, &root, m);
    if how == Use::Not {
        return None;
    }
    let t = b.track;
    let key = (root.pos(), root.credit());
    let read = |kept: &Kept| match how {
        Use::Shorter(c) => grow(b, &kept.nodes[..kept.upto[c as usize - 1] as usize], m.max, m.min),
        _ => answer(kept, root.k(), m.max, m.min, b.dangerous),
    };
    let found = KEPT.with(|k| {
        let k = k.try_borrow().ok()?;
        let s = k.iter().find(|s| s.uid == t.uid())?;
        s.kept.get(&key).filter(|kept| kept.depth >= m.max).map(read)
    });
    if let Some(r) = found {
        return Some(r);
    }
    let kept = make(t, root, depth_for(m.max));
    let r = read(&kept);
    KEPT.with(|k| {
        let Ok(mut k) = k.try_borrow_mut() else { return };
        let i = match k.iter().position(|s| s.uid == t.uid()) {
            Some(i) => i,
            None => {
                if k.len() >= TRACKS {
                    k.remove(0);
                }
                k.push(Searches { uid: t.uid(), kept: FxHashMap::default() });
                k.len() - 1
            }
        };
        // The track that last had a search made, last.
        let s = k.remove(i);
        k.push(s);
        k.last_mut().expect("just pushed").kept.insert(key, kept);
    });
    Some(r)
}

/// The empty track's search from `root`, `depth` spaces deep.
fn make(t: &Track, root: Node, depth: u8) -> Kept {
    let empty = vec![false; t.spaces.len()];
    let board = Board { track: t, occupied: &empty, dangerous: &[], pit_open: false, walls: false };
    let mut r = search(&board, root, depth, depth, false);
    let nodes = std::mem::take(&mut r.nodes);
    let mut upto = vec![0u32; depth as usize + 1];
    for n in &nodes {
        upto[n.k() as usize] += 1;
    }
    for k in 1..upto.len() {
        upto[k] += upto[k - 1];
    }
    Kept { nodes, upto, depth }
}

/// The search's answer for a roll of `max` and at least `min` spaces, from kept states: those up
/// to `max` long, the ways reported as [`super::search::search_in`] reports them; `dangerous`: the
/// board's (none within reach).
fn answer(kept: &Kept, root_k: u8, max: u8, min: u8, dangerous: &[SpaceIdx]) -> Reaches {
    let n = kept.upto[max as usize] as usize;
    let mut parts = SCRATCH.with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.spare.pop())).unwrap_or_default();
    parts.nodes.clear();
    parts.nodes.extend_from_slice(&kept.nodes[..n]);
    let longest = parts.nodes.last().map_or(root_k, |n| n.k());
    // The ways at least `min` long, or the longest when none is.
    let reported = if longest < min {
        if longest == root_k { 0 } else { kept.upto[longest as usize - 1] as usize }
    } else if min <= root_k {
        0
    } else {
        kept.upto[min as usize - 1] as usize
    };
    report(parts, reported, max, longest, root_k, dangerous)
}

#[cfg(test)]
mod tests {
    use super::super::search::{Scratch, search_in};
    use super::super::tests::all_of;
    use super::*;
    use crate::track::load::{resolve, shipped_names};
    use crate::track::{CornerIdx, SpaceIdx};

    /// The searches this thread keeps for `t`.
    fn kept(t: &Track) -> usize {
        KEPT.with(|k| k.borrow().iter().find(|s| s.uid == t.uid()).map_or(0, |s| s.kept.len()))
    }

    /// Every way a kept search gives is the fresh search's (the same ways, paths, order and
    /// longest way): on every shipped track and a clone of one, from every racing space with
    /// every count of stops in its corner, for rolls that make a kept search deeper and then
    /// read it shallower, on the empty board and with a car or a sticker one arrow beyond the
    /// roll (the kept search answers whole), and with a car at the roll's reach, half-way or two
    /// arrows away (its shorter layers, then a search; or a search alone).
    #[test]
    fn a_kept_search_is_the_fresh_search() {
        let (mut whole, mut shorter, mut not, mut differs) = (0, 0, 0, 0);
        let mut tracks: Vec<Track> = shipped_names().iter().map(|n| resolve(n).unwrap()).collect();
        tracks.push(tracks[0].clone());
        for t in &tracks {
            let empty = vec![false; t.spaces.len()];
            for s in t.indices().filter(|&s| !t.space(s).in_pit_lane()) {
                let corner = t.space(s).corner;
                let credits = corner.map_or(0, |c| t.corners[c.get()].stops);
                let d = t.arrows_from(s);
                for credit in 0..=credits {
                    let stops = corner.map(|c: CornerIdx| (c, credit));
                    for (i, (max, min)) in [(2, 1), (12, 7), (30, 21), (5, 2), (13, 13)].into_iter().enumerate() {
                        // The last space at a distance: a car or a sticker there.
                        let at = |k: u8| t.indices().filter(|x| d[x.get()] == k && !t.space(*x).in_pit_lane()).last();
                        let car = |k: u8| {
                            let mut o = empty.clone();
                            at(k).inspect(|x| o[x.get()] = true);
                            o
                        };
                        let (beyond, reach, half, two) = (car(max + 1), car(max), car(max / 2 + 1), car(2));
                        let sticker: Vec<SpaceIdx> = at(max + 1).into_iter().collect();
                        let board =
                            |occupied| Board { track: t, occupied, dangerous: &[], pit_open: false, walls: false };
                        let boards = [
                            board(&empty),
                            board(&beyond),
                            Board { track: t, occupied: &empty, dangerous: &sticker, pit_open: false, walls: false },
                            board(&reach),
                            board(&half),
                            board(&two),
                        ];
                        let b = &boards[(i + credit as usize + s.get()) % boards.len()];
                        let m = Mover { start: s, stops, max, min };
                        let root = super::super::reaches_root(b, &m);
                        let fresh = search_in::<false, false>(&mut Scratch::default(), b, root, max, min);
                        let got = super::super::reaches(b, &m);
                        assert_eq!(got.longest, fresh.longest, "from {} ({credit} stops, {max})", t.space(s).id);
                        assert_eq!(all_of(&got), all_of(&fresh), "from {} ({credit} stops, {max})", t.space(s).id);
                        assert_eq!(got.no_dangerous(), fresh.no_dangerous(), "the board's stickers are kept");
                        let car_in_reach = b.occupied.iter().enumerate().any(|(x, &o)| o && d[x] <= max);
                        match applies(b, &root, &m) {
                            Use::Whole => {
                                assert!(!car_in_reach, "a car in the roll's reach is in the way");
                                whole += 1;
                            }
                            other => {
                                assert!(car_in_reach, "{other:?} with nothing in the way");
                                if matches!(other, Use::Shorter(_)) {
                                    shorter += 1;
                                } else {
                                    not += 1;
                                }
                                // The car changed the answer somewhere.
                                differs +=
                                    usize::from(all_of(&super::super::reaches(&board(&empty), &m)) != all_of(&got));
                            }
                        }
                    }
                }
            }
            assert!(kept(t) > t.spaces.len() / 2, "{} searches kept", kept(t));
        }
        assert!(
            whole > 5000 && shorter > 1500 && not > 500 && differs > 500,
            "{whole} whole, {shorter} shorter, {not} not, {differs} differ"
        );
    }

    /// Only the last [`TRACKS`] tracks' searches are kept, and a track's new search keeps it.
    #[test]
    fn a_thread_keeps_the_searches_of_a_few_tracks() {
        let t = resolve("monaco").unwrap();
        let clones: Vec<Track> = (0..=TRACKS).map(|_| t.clone()).collect();
        let s = t.indices().find(|&s| t.space(s).corner.is_none() && !t.space(s).in_pit_lane()).unwrap();
        let empty = vec![false; t.spaces.len()];
        for c in &clones {
            let b = Board { track: c, occupied: &empty, dangerous: &[], pit_open: false, walls: false };
            reaches(&b, reaches_root_of(&b, s), &Mover { start: s, stops: None, max: 8, min: 4 }).unwrap();
        }
        assert_eq!(kept(&clones[0]), 0, "the first track is forgotten");
        assert!(clones[1..].iter().all(|c| kept(c) == 1));
    }

    fn reaches_root_of(b: &Board<'_>, s: SpaceIdx) -> Node {
        super::super::reaches_root(b, &Mover { start: s, stops: None, max: 8, min: 4 })
    }
}
