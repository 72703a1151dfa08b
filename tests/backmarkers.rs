//! Backmarkers (002 "Backmarkers", ruling 49) in whole races: bot drivers with the backmarkers'
//! own rules, on every shipped track, with the simulator's invariants after every move.

use steward::dice::LabelledDice;
use steward::engine::backmarkers::{self, Backmarkers, GEAR, WEAR};
use steward::engine::bot::Bot;
use steward::engine::order::advance;
use steward::engine::pits::PitOrder;
use steward::engine::play::resolve_with;
use steward::engine::state::Status;
use steward::engine::{Event, RaceState, Rulebook, Step, roll};
use steward::sim::{check, field};
use steward::track::load::{resolve, shipped_names};

/// Plays one race; returns the final state and every event.
fn race(track: &str, cars: usize, seed: u8) -> (RaceState, Vec<Event>) {
    let t = resolve(track).unwrap();
    let rules = Rulebook { laps: 3, ..Rulebook::competition_2004() };
    let mut state = RaceState::new_for(&t, &rules, &field(cars)).unwrap();
    state.backmarkers = Backmarkers::Due;
    let mut dice = LabelledDice::new([seed; 32], "0");
    let mut bot = Bot::new();
    let mut all = Vec::new();
    for moves in 1.. {
        assert!(moves < 5_000, "{track}: the race does not end");
        let (s, next, events) = advance(&t, &state);
        state = s;
        all.extend(events);
        let Some(car) = next else { break };
        dice.set_turn(&moves.to_string());
        let before = state.clone();
        let bm = state.car(car).backmarker;
        let gear = if bm { GEAR } else { bot.gear(&t, &state, car) };
        state = match roll(&t, &state, car, gear, &mut dice, &rules).unwrap() {
            Step::Done(o) => {
                all.extend(o.events);
                o.state
            }
            Step::Choose(r) => {
                let i = if bm { backmarkers::choose(&t, &r.state, car, &r.options) } else { bot.option(&t, &r) };
                let pit = if !bm && steward::engine::play::reaches_box(&t, &r, i) {
                    bot.pit_order_for(&r.state, car, &rules)
                } else {
                    PitOrder::default()
                };
                all.extend(r.events.clone());
                let o = resolve_with(&t, &r, i, &pit, &mut dice, &rules).unwrap();
                all.extend(o.events);
                o.state
            }
        };
        check(&t, &before, &state).unwrap_or_else(|e| panic!("{track}, move {moves}: {e}"));
        for c in state.cars.iter().filter(|c| c.backmarker && c.status.plays()) {
            assert_eq!((c.wear, c.gear), (WEAR, GEAR), "{track}: a backmarker takes no damage and keeps 3rd gear");
        }
    }
    (state, all)
}

#[test]
fn backmarkers_join_every_race_and_leave_with_the_players() {
    for name in shipped_names() {
        for seed in 1..=4u8 {
            let (s, events) = race(&name, 6, seed);
            let placed = events.iter().filter(|e| matches!(e, Event::BackmarkerPlaced { .. })).count();
            // Half the field still racing at the end of lap one, rounded down.
            assert!((1..=3).contains(&placed), "{name} {seed}: {placed} backmarkers");
            assert_eq!(s.backmarkers, Backmarkers::Placed);
            for c in s.cars.iter().filter(|c| c.backmarker) {
                assert_eq!(c.status, Status::Withdrawn, "{name} {seed}: car {} left on the track", c.number);
            }
            // They never finish nor count: the finishers are player cars.
            assert!(s.finish_order.iter().all(|&c| !s.car(c).backmarker));
            assert!(s.cars.iter().filter(|c| !c.backmarker).all(|c| !c.status.plays()));
        }
    }
}
