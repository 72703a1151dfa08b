//! Properties of the engine on random positions of every shipped track: it never panics, every
//! option it offers is accepted when ordered and lands where it says, and a destination it does
//! not offer is refused with a reason.

use proptest::prelude::*;
use steward::engine::explain::choose;
use steward::engine::order::advance;
use steward::engine::{CarId, CarState, FixedDice, RaceState, Rulebook, Status, Step, Tyres, Wear, resolve, roll};
use steward::track::{SpaceIdx, Track};

fn tracks() -> Vec<Track> {
    let mut v: Vec<Track> =
        ["monaco", "sprint", "oval"].iter().map(|n| steward::track::load::resolve(n).unwrap()).collect();
    v.push(
        steward::track::load::resolve(&format!("{}/tests/scenarios/tracks/practice.toml", env!("CARGO_MANIFEST_DIR")))
            .unwrap(),
    );
    v
}

#[derive(Clone, Debug)]
struct CarSeed {
    space: usize,
    gear: u8,
    wear: [u8; 6],
    tyres: u8,
    stops: u8,
}

fn car_seed() -> impl Strategy<Value = CarSeed> {
    (any::<usize>(), 0u8..=6, prop::array::uniform6(0u8..=8), 0u8..3, 0u8..3)
        .prop_map(|(space, gear, wear, tyres, stops)| CarSeed { space, gear, wear, tyres, stops })
}

/// A state the loaders accept: cars on distinct racing spaces, any wear (at least one body,
/// engine and handling point, or the car would be out), stickers anywhere.
fn build(t: &Track, seeds: &[CarSeed], dangerous: &[usize]) -> RaceState {
    let racing: Vec<SpaceIdx> = t.indices().filter(|&s| !t.space(s).in_pit_lane()).collect();
    let mut used = Vec::new();
    let mut cars = Vec::new();
    for (i, c) in seeds.iter().enumerate() {
        let mut k = c.space % racing.len();
        while used.contains(&racing[k]) {
            k = (k + 1) % racing.len();
        }
        let space = racing[k];
        used.push(space);
        let stops = t.space(space).corner.map(|co| (co, c.stops.min(t.corners[co.get()].stops)));
        cars.push(CarState {
            number: i as u8 + 1,
            space,
            gear: c.gear,
            wear: Wear {
                tyres: c.wear[0],
                brakes: c.wear[1],
                gas: c.wear[2],
                body: c.wear[3].max(1),
                engine: c.wear[4].max(1),
                handling: c.wear[5].max(1),
            },
            pit_points: 0,
            tyres: [Tyres::Hard, Tyres::Soft, Tyres::Rain][c.tyres as usize],
            tyre_lap: 1 + c.stops as u16,
            crossings: 1,
            stops,
            status: if c.gear == 0 { Status::Grid } else { Status::Racing },
            arrival: i as u32,
            moves: 0,
            pit: steward::engine::pits::PitState::new(Wear::standard()),
            inertia: None,
            backmarker: false,
        });
    }
    let mut s = RaceState { to_play: Some(CarId(0)), ..RaceState::from_cars(cars, 3, dangerous.len() % 2 == 1) };
    for &d in dangerous {
        s.add_sticker(racing[d % racing.len()]);
    }
    s
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, .. ProptestConfig::default() })]

    #[test]
    fn offered_options_are_accepted_and_others_refused(
        which in 0usize..4,
        seeds in prop::collection::vec(car_seed(), 1..=10),
        dangerous in prop::collection::vec(any::<usize>(), 0..8),
        gear_pick in any::<usize>(),
        face_pick in any::<usize>(),
        probe in any::<usize>(),
    ) {
        let t = &tracks()[which];
        let state = build(t, &seeds, &dangerous);
        let rules = Rulebook::competition_2004();
        let car = CarId(0);
        let gears = steward::engine::gearbox::legal_gears(state.car(car));
        prop_assume!(!gears.is_empty());
        let gear = gears[gear_pick % gears.len()];
        let faces = steward::engine::Die::Gear(gear).faces();
        let mut dice = FixedDice::new(vec![faces[face_pick % faces.len()]]);
        let step = roll(t, &state, car, gear, &mut dice, &rules).expect("a legal gear is accepted");
        let Step::Choose(rolled) = step else { return Ok(()); };
        prop_assert!(!rolled.options.is_empty(), "a roll always offers at least one option");
        for (i, o) in rolled.options.iter().enumerate() {
            // Enough black dice for any handling test the option triggers, then a missed quick
            // stop (19-3-4) if the option ends at the car's box, so that the car stays there.
            let mut faces = vec![10; o.dangerous.len()];
            faces.push(15);
            let mut d = FixedDice::new(faces);
            let out = resolve(t, &rolled, i, &mut d, &rules).expect("an offered option is accepted");
            let c = out.state.car(car);
            prop_assert!(c.space == o.end || !c.status.on_board(), "the car lands where the option says");
            let mut seen = Vec::new();
            for other in out.state.cars.iter().filter(|c| c.status.on_board()) {
                prop_assert!(!seen.contains(&other.space), "two cars on {}", t.space(other.space).id);
                seen.push(other.space);
            }
            let by_id = choose(t, &rolled, &t.space(o.end).id);
            prop_assert!(by_id.is_ok(), "ordering an offered end by id is accepted");
        }
        // A space not offered is refused, with a reason.
        let target = SpaceIdx((probe % t.spaces.len()) as u16);
        if !rolled.options.iter().any(|o| o.end == target) {
            let refused = choose(t, &rolled, &t.space(target).id);
            prop_assert!(refused.is_err(), "{} is not offered, so it must be refused", t.space(target).id);
            prop_assert!(!refused.unwrap_err().to_string().is_empty());
        }
    }

    #[test]
    fn the_order_of_play_always_names_a_car_still_racing(
        which in 0usize..4,
        seeds in prop::collection::vec(car_seed(), 1..=10),
    ) {
        let t = &tracks()[which];
        let mut state = build(t, &seeds, &[]);
        state.to_play = None;
        for _ in 0..(seeds.len() * 3) {
            let (s, next, _) = advance(t, &state);
            state = s;
            let Some(c) = next else { break };
            prop_assert!(state.car(c).status.plays());
            state.sweep = Some(steward::engine::order::key(&state, t, c));
            state.played.push(c);
            state.to_play = None;
        }
    }
}
