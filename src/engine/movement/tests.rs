//! The search's tests: its copies agree, it keeps no state between searches, its packed state
//! and fields are what they stand for.

use super::fields::{DYNAMIC_FIELDS, occupied_spaces};
use super::search::{Scratch, plain, search_in};
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
        for (i, s) in t.indices().filter(|&s| !t.space(s).in_pit_lane() && !crowded[s.get()]).step_by(7).enumerate() {
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
