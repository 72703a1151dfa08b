//! The bot drives like a careful human: it brakes into multi-stop corners, never risks an
//! elimination it could avoid, and finishes races.

use std::sync::Mutex;
use steward::dice::{LabelledDice, sim_key};
use steward::engine::bot::Bot;
use steward::engine::gearbox::legal_gears;
use steward::engine::order::advance;
use steward::engine::{
    CarId, Die, Elimination, Fate, FixedDice, RaceState, Rulebook, Setup, Status, Step, Tyres, Wear, resolve, roll,
};
use steward::sim::{SimConfig, SimWeather, field, run_race};

use steward::track::Track;
use steward::track::load::{resolve as track, shipped_names};

/// Bots with their tables built, by track: the tables take a while in a debug build.
static BOTS: Mutex<Vec<(String, Bot)>> = Mutex::new(Vec::new());

/// A bot for `t` whose tables are ready.
fn bot(t: &Track) -> Bot {
    let mut bots = BOTS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, b)) = bots.iter().find(|(n, _)| *n == t.name) {
        return b.clone();
    }
    let mut b = Bot::new();
    for laps in [1, 3] {
        for cars in [1, 10] {
            let s = RaceState::new(t, laps, &field(cars)).unwrap();
            b.expected_moves(t, &s, CarId(0), 0);
        }
    }
    bots.push((t.name.clone(), b.clone()));
    b
}

/// A race with one car standing on `space` in `gear`, its turn to play.
fn alone(t: &Track, space: &str, gear: u8) -> RaceState {
    let mut s = RaceState::new(t, 3, &[(1, Setup { wear: Wear::standard(), tyres: Tyres::Hard })]).unwrap();
    let c = &mut s.cars[0];
    c.space = t.find(space).unwrap();
    c.gear = gear;
    c.status = Status::Racing;
    c.crossings = 1;
    s.to_play = Some(CarId(0));
    s
}

/// Whether every face of `gear`'s die leaves `car` an option that does not eliminate it.
fn safe(t: &Track, s: &RaceState, car: CarId, gear: u8) -> bool {
    let rules = Rulebook::competition_2004();
    let mut faces = Die::Gear(gear).faces().to_vec();
    faces.dedup();
    faces.into_iter().all(|f| match roll(t, s, car, gear, &mut FixedDice::new(vec![f]), &rules) {
        Ok(Step::Choose(r)) => r.options.iter().any(|o| !matches!(o.fate, Fate::Eliminated(_))),
        _ => false,
    })
}

/// Sprint's corner 5 asks for 3 stops in 7 to 13 spaces, 10 rows after a straight. A car
/// arriving in 6th must come down to a gear it can brake into the corner with, then make
/// every stop even if every die shows its highest face (the case that overshoots).
#[test]
fn a_car_in_sixth_before_a_three_stop_corner_makes_every_stop_against_the_highest_faces() {
    let t = track("sprint").unwrap();
    let rules = Rulebook::competition_2004();
    let corner = t.space(t.find("c5.l.1").unwrap()).corner.unwrap();
    let start = alone(&t, "s4.l.3", 6);
    let mut bot = bot(&t);
    let first = bot.gear(&t, &start, CarId(0));
    assert!(first <= 4, "from 6th, 8 rows before a 3-stop corner, the bot engaged {first}");
    let mut faces = Die::Gear(first).faces().to_vec();
    faces.dedup();
    for face in faces {
        let mut s = start.clone();
        let mut stops = 0;
        let mut roll_face = Some(face);
        for _ in 0..8 {
            s.to_play = Some(CarId(0));
            let gear = bot.gear(&t, &s, CarId(0));
            let value = roll_face.take().unwrap_or(Die::Gear(gear).range().1);
            let Step::Choose(r) = roll(&t, &s, CarId(0), gear, &mut FixedDice::new(vec![value]), &rules).unwrap()
            else {
                panic!("the engine eliminated the car on its gear change");
            };
            let i = bot.option(&t, &r);
            let o = &r.options[i];
            assert_eq!(o.fate, Fate::Continues, "first face {face}: rolled {value} in {gear} and took {o:?}");
            assert_eq!(o.overshoot, None, "first face {face}: rolled {value} in {gear} and overshot");
            s = resolve(&t, &r, i, &mut FixedDice::new(vec![]), &rules).unwrap().state;
            match s.car(CarId(0)).stops {
                Some((c, n)) if c == corner => stops = n,
                _ if stops > 0 => break,
                _ => {}
            }
        }
        assert_eq!(stops, 3, "first face {face}: the car left corner 5 with {stops} stops");
    }
}

/// Plays `races` races of `cars` cars and checks every decision: with one car (an empty
/// track) the gear is one whose every face leaves a non-eliminating option whenever such a
/// gear exists; in traffic the bot never takes a spinout or an elimination when an option
/// costing no tyre point exists.
fn check_decisions(name: &str, cars: usize, laps: u16, races: u32) {
    let t = track(name).unwrap();
    let rules = Rulebook::competition_2004();
    let mut bot = bot(&t);
    for race in 0..races {
        let mut state = RaceState::new(&t, laps, &field(cars)).unwrap();
        let mut dice = LabelledDice::new(sim_key(7, &format!("{name}/{race}")), "0");
        let mut moves = 0;
        loop {
            let (s, next, _) = advance(&t, &state);
            state = s;
            let Some(car) = next else { break };
            moves += 1;
            dice.set_turn(&moves.to_string());
            let gear = bot.gear(&t, &state, car);
            if cars == 1 && legal_gears(state.car(car)).iter().any(|&g| safe(&t, &state, car, g)) {
                let c = state.car(car);
                assert!(
                    safe(&t, &state, car, gear),
                    "{name}: car at {} in {} took unsafe gear {gear}",
                    c.space.0,
                    c.gear
                );
            }
            state = match roll(&t, &state, car, gear, &mut dice, &rules).unwrap() {
                Step::Done(o) => o.state,
                Step::Choose(r) => {
                    let i = bot.option(&t, &r);
                    let free = r.options.iter().any(|o| o.fate == Fate::Continues && o.tyre_points() == 0);
                    assert!(
                        !free || r.options[i].fate == Fate::Continues,
                        "{name}: race {race}, move {moves}: took {:?} over a free option",
                        r.options[i]
                    );
                    resolve(&t, &r, i, &mut dice, &rules).unwrap().state
                }
            };
        }
    }
}

#[test]
fn on_an_empty_track_the_bot_never_risks_an_elimination_it_can_avoid() {
    for name in shipped_names() {
        check_decisions(&name, 1, 1, 2);
    }
}

#[test]
fn in_traffic_the_bot_never_spins_or_goes_out_when_a_free_option_exists() {
    for name in shipped_names() {
        check_decisions(&name, 10, 1, 2);
    }
}

/// Finishers and overshoot eliminations over `races` races of `cars` cars on `name`. Cars out on
/// their body, engine or road handling (14, 16, 17: the dice of collisions, engine tests and the
/// stickers collisions leave, which no driving avoids in traffic) count as finishers: the test
/// is about the bot's driving.
fn finishers(name: &str, cars: usize, races: u32) -> (usize, usize) {
    let (done, incidents, overshoots) = outcomes(name, cars, races);
    (done + incidents, overshoots)
}

/// Cars that crossed the line, cars out on body/engine/handling, and overshoot eliminations.
fn outcomes(name: &str, cars: usize, races: u32) -> (usize, usize, usize) {
    let t = track(name).unwrap();
    let rules = Rulebook::competition_2004();
    let cfg = SimConfig { cars, laps: 3, races, seed: 11, trace: None, weather: SimWeather::Dry, backmarkers: false };
    let mut bot = bot(&t);
    let (mut done, mut incidents, mut overshoots) = (0, 0, 0);
    for race in 0..races {
        let r = run_race(&t, &rules, &cfg, race, &mut bot, &mut None).unwrap();
        done += r.finish.len();
        incidents += r
            .eliminated
            .iter()
            .filter(|(_, e)| matches!(e, Elimination::Body | Elimination::Engine | Elimination::Handling))
            .count();
        overshoots += r.eliminated.iter().filter(|(_, e)| *e == Elimination::Overshoot).count();
    }
    (done, incidents, overshoots)
}

/// With collisions and engine tests in play the bot keeps away from other cars when it can and
/// leaves 5th and 6th when its last engine point is at risk: over 100 races (seed 1) 99% of the
/// cars cross the line on monaco and the oval and 83% on the two-lane sprint track, where
/// stickers block whole rows (27 of 40 in the first 4 races of seed 11). Asking 65% of 100 cars
/// leaves room for bad luck.
#[test]
fn bot_cars_mostly_cross_the_line_despite_collisions_and_engine_tests() {
    for name in shipped_names() {
        let (done, _, _) = outcomes(&name, 10, 10);
        assert!(done >= 65, "{name}: only {done} of 100 cars crossed the line");
    }
}

/// Over 200 races of 10 cars and 3 laps (seeds 1 and 2) the bot finishes every car on all
/// three shipped tracks, and every lone car: asking 90% of 40 cars and 4 of 5 lone cars leaves
/// room for bad luck and for rule fixes in the engine, not for a broken bot (the bot this one
/// replaced finished 2% of the cars on monaco and sprint, 86% on the oval).
#[test]
fn bot_races_finish_most_cars_on_every_shipped_track() {
    for name in shipped_names() {
        let (done, overshoots) = finishers(&name, 10, 4);
        assert!(done >= 36, "{name}: {done} of 40 cars finished");
        assert!(overshoots <= 1, "{name}: {overshoots} overshoot eliminations in 40 cars");
        let (done, _) = finishers(&name, 1, 5);
        assert!(done >= 4, "{name}: {done} of 5 lone cars finished");
    }
}

/// Eliminated cars over races `0..races` of 10 cars and 3 laps on `name` in `weather` (seed 2026,
/// the races of `steward sim --seed 2026`).
fn eliminated(name: &str, weather: SimWeather, races: u32) -> usize {
    let t = track(name).unwrap();
    let rules = Rulebook::competition_2004();
    let cfg = SimConfig { cars: 10, laps: 3, races, seed: 2026, trace: None, weather, backmarkers: false };
    let mut bot = bot(&t);
    (0..races).map(|race| run_race(&t, &rules, &cfg, race, &mut bot, &mut None).unwrap().eliminated.len()).sum()
}

/// The default driver keeps an absent player's car alive (issue 15): it prices the sticker a
/// failed body test leaves (17-0-1), keeps away from the other cars, and goes round dangerous
/// spaces, on which a balanced car (one road-handling point) goes out 1 time in 5 (17-0-2). On
/// the two-lane sprint track the bot before it lost 22% of the cars dry, 54% wet and 31% in
/// changeable weather (`steward sim --track sprint --races 1000 --seed 2026`), most of them on
/// handling; this one 1%, 4% and 3%. 10% of the 300 cars of the first 30 races leaves room
/// for rule fixes, not for a bot that drives into the cars again.
#[test]
fn the_default_driver_keeps_most_cars_alive_in_every_weather_on_sprint() {
    for weather in [SimWeather::Dry, SimWeather::Wet, SimWeather::Changeable] {
        let out = eliminated("sprint", weather, 30);
        assert!(out <= 30, "sprint, {weather:?}: {out} of 300 cars eliminated");
    }
}

/// A calm gear choice kept is the choice made: whole races played by a bot that keeps them and
/// by one that weighs every choice afresh are the same move for move, in the dry and in changing
/// weather, and the first bot gave choices from what it kept. (Leaving the brake points out of
/// the kept choices' key parts the traces in the first race.)
#[test]
fn a_kept_calm_choice_is_the_choice_made() {
    let t = track("monaco").unwrap();
    let rules = Rulebook::competition_2004();
    let (mut kept, mut fresh) = (Bot::new(), Bot::afresh());
    for weather in [SimWeather::Dry, SimWeather::Changeable] {
        let cfg = SimConfig { cars: 10, laps: 3, races: 6, seed: 7, trace: None, weather, backmarkers: false };
        for race in 0..cfg.races {
            let (mut a, mut b) = (Some(String::new()), Some(String::new()));
            let ra = run_race(&t, &rules, &cfg, race, &mut kept, &mut a).unwrap();
            let rb = run_race(&t, &rules, &cfg, race, &mut fresh, &mut b).unwrap();
            assert!(a.as_ref().is_some_and(|a| a.len() > 10_000), "race {race}: a trace of every move");
            assert_eq!(a, b, "race {race}, {weather:?}: the traces differ");
            assert_eq!(ra, rb);
        }
    }
    let (held, given) = kept.calm_choices();
    assert!(held > 100 && given > 100, "{held} calm choices kept, {given} given from them");
    assert_eq!(fresh.calm_choices(), (0, 0));
}
