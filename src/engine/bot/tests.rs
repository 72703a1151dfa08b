//! The bot's tests: its row loop and plain loop choose alike, its move search is the engine's
//! driving code, its tables are the track's.

use super::*;
use crate::engine::movement::{Board, Mover, reaches};
use crate::track::load::{resolve, shipped_names};

/// The gear's cost rows worked out side by side (a row of brake points left per length,
/// what brakes used cost added when read) choose what the plain loop chooses: for cars
/// with 1 to 7 brake points, from every 3rd space of sprint, alone and in traffic.
#[test]
pub(super) fn the_gears_vector_rows_choose_as_the_plain_loop() {
    let t = resolve("sprint").unwrap();
    let (mut vector, mut plain) = (Bot::new(), Bot::afresh());
    let mut compared = 0;
    for brakes in [1u8, 3, 7] {
        // The 20 points all placed (5-0-2): the tyres take what the brakes give up.
        let mut wear = crate::engine::Wear::standard();
        wear.tyres = wear.tyres + wear.brakes - brakes;
        wear.brakes = brakes;
        let setup = crate::engine::Setup { wear, tyres: crate::engine::Tyres::Hard };
        for cars in [1usize, 4] {
            let field: Vec<(u8, crate::engine::Setup)> = (1..=cars as u8).map(|n| (n, setup)).collect();
            let mut s = RaceState::new(&t, 3, &field).unwrap();
            for (i, c) in s.cars.iter_mut().enumerate() {
                c.status = crate::engine::Status::Racing;
                c.crossings = 1;
                c.gear = 1 + (i as u8 % 4);
            }
            for sp in (0..t.spaces.len()).step_by(3) {
                let space = SpaceIdx(sp as u16);
                if !matches!(t.space(space).kind, SpaceKind::Racing) {
                    continue;
                }
                s.cars[0].space = space;
                // The others a few spaces ahead, where there is room.
                for i in 1..cars {
                    let ahead = t.next(s.cars[i - 1].space).first().copied().unwrap_or(space);
                    s.cars[i].space = ahead;
                }
                s.to_play = Some(CarId(0));
                assert_eq!(
                    vector.gear(&t, &s, CarId(0)),
                    plain.gear(&t, &s, CarId(0)),
                    "{brakes} brake points, {cars} car(s), on {}",
                    t.space(space).id
                );
                compared += 1;
            }
        }
    }
    assert!(compared > 300, "{compared} positions compared");
}

/// The bot's own search lists exactly the engine's ends (space, stops, overshoot, missed
/// corner, crossings) for every length, from every position of every shipped track (from
/// every 7th position but on sprint in a debug build, where the engine's search is slow).
#[test]
pub(super) fn the_bots_move_search_is_the_engines_driving_code() {
    for name in shipped_names() {
        let t = resolve(&name).unwrap();
        let m = Model::new(&t);
        let empty = vec![false; t.spaces.len()];
        let board = Board { track: &t, occupied: &empty, dangerous: &[], pit_open: false, walls: false };
        let stride = if cfg!(debug_assertions) && name != "sprint" { 7 } else { 1 };
        for p in (0..m.space_of.len() as u32).step_by(stride) {
            let space = m.space_of[p as usize];
            let stops = t.space(space).corner.map(|c| (c, m.stops_of(p)));
            let r = reaches(&board, &Mover { start: space, stops, max: REACH as u8, min: 0 });
            for k in 0..KS {
                let mut want: Vec<End> = r
                    .at(k as u8)
                    .iter()
                    .map(|x| End {
                        node: m.position(&t, x.end(), x.stops(&t)).unwrap(),
                        over: x.overshoot().map_or(0, |(_, n)| n),
                        cross: x.crossings(),
                        missed: x.missed().is_some(),
                    })
                    .collect();
                want.sort_unstable();
                want.dedup();
                assert_eq!(m.moves(p, k), &want[..], "{name}: from {} ({stops:?}), {k} spaces", t.space(space).id);
            }
        }
    }
}

/// The model's tables for the gear choice say what working them out on the spot says: the
/// spaces touching a car (14-1: the racing spaces beside it and behind it, not ahead, each
/// once), and the ends of every move up to a length (each length's, in one slice).
#[test]
pub(super) fn the_models_touch_and_reach_tables_are_the_tracks() {
    for name in shipped_names() {
        let t = resolve(&name).unwrap();
        let m = Model::new(&t);
        let racing = |x: SpaceIdx| t.space(x).kind == SpaceKind::Racing;
        let mut touching = 0;
        for y in t.indices() {
            let mut want: Vec<SpaceIdx> = Vec::new();
            if racing(y) {
                for &x in t.beside(y).iter().chain(t.prev(y)) {
                    if racing(x) && !t.next(y).contains(&x) && !want.contains(&x) {
                        want.push(x);
                    }
                }
            }
            let mut got = m.touching(y).to_vec();
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "{name}: a car on {}", t.space(y).id);
            touching += usize::from(!got.is_empty());
        }
        assert!(touching * 2 > t.racing_spaces(), "{name}: {touching} spaces with neighbours");
        for p in 0..m.space_of.len() as u32 {
            for k in [0, 1, 12, REACH, REACH + 5] {
                let want: Vec<End> = (1..=k.min(REACH)).flat_map(|j| m.moves(p, j).iter().copied()).collect();
                assert_eq!(m.moves_up_to(p, k), &want[..], "{name}: position {p}, up to {k}");
            }
        }
    }
}

/// A solved plan's costs, laid out gear by gear, are the costs solving worked out in its
/// layout, each at its place: every index of one layout maps to one of the other.
#[test]
pub(super) fn the_plan_costs_by_gear_are_a_permutation() {
    let positions = 7;
    let rs = 3;
    let solved: Vec<f32> = (0..rs * positions * CELLS).map(|i| i as f32).collect();
    let laid = model::by_gear(&solved, positions);
    assert_eq!(laid.len(), solved.len());
    let mut hit = vec![false; laid.len()];
    for r in 1..=rs {
        for p in 0..positions as u32 {
            for g in 0..NG {
                for a in 0..NA {
                    for b in 0..NB {
                        let at = model::cost_at(positions, r, p, g, a, b);
                        let was = ((r - 1) * positions + p as usize) * CELLS + cell(g, a, b);
                        assert_eq!(laid[at], solved[was], "r {r}, position {p}, gear {g}, gas {a}, brakes {b}");
                        assert!(!hit[at], "two cells at {at}");
                        hit[at] = true;
                    }
                }
            }
        }
    }
    assert!(hit.iter().all(|&h| h));
}
