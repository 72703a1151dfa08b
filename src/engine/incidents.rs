//! The tests at the end of a move (6-3 steps 14 and 15): body tests when a car ends its move
//! beside or behind other cars (14, 20-3, 20-6), and engine tests after a 20 in 5th or a 30 in
//! 6th (16, 20-4). Pure: every die comes from the [`Dice`] given.
//!
//! Order of the black dice (docs/scenarios.md): body tests first, the other cars in the order of
//! play, then the mover last (14-4), one test per car it touches, in the same order; then the
//! engine tests, every car in 5th or 6th in the order of play (16-0-1).

use crate::track::{SpaceIdx, SpaceKind, Track};

use super::car::Part;
use super::dice::{Dice, Purpose};
use super::events::Event;
use super::inertia;
use super::order::{key, play_distance};
use super::rulebook::{Die, Rulebook, collision_threshold, engine_threshold};
use super::state::{CarId, Elimination, RaceState, Status};

/// True if a car in this state makes every body test it is involved in aggravated: eliminated on
/// its body or by blocking and still on the board (14-3, 20-6, 12-1-5), spun out (10-4-3) or
/// stalled at the start (9-1-2). A car whose engine broke does not: the odds stay normal (16-0-4).
pub fn aggravates(status: Status) -> bool {
    matches!(
        status,
        Status::Eliminated { reason: Elimination::Body | Elimination::Blocking, removed: false }
            | Status::SpunOut
            | Status::Stalled
    )
}

/// The cars `mover` touches where it stands: on a space beside its own (`Track::beside`), or on
/// a space its forward links lead to (it is behind them); never a car it is in front of, one
/// whose forward links lead onto the mover's space (14-1, docs/rulings.md). In the order of play,
/// first to play first. `exempt` is left out (12-1-5: the car that lost its automatic body point
/// to a blocking).
pub fn touching(t: &Track, s: &RaceState, mover: CarId, exempt: Option<CarId>) -> Vec<CarId> {
    touching_at(t, s, mover, s.car(mover).space, exempt)
}

/// The cars `mover` would touch if it stood on `at` (see [`touching`]); the bot weighs the body
/// tests of an option's end with it.
pub fn touching_at(t: &Track, s: &RaceState, mover: CarId, at: SpaceIdx, exempt: Option<CarId>) -> Vec<CarId> {
    if t.space(at).kind != SpaceKind::Racing {
        return Vec::new();
    }
    let mut cars: Vec<CarId> = t
        .beside(at)
        .iter()
        .chain(t.next(at))
        .filter(|&&n| t.space(n).kind == SpaceKind::Racing)
        .filter_map(|&n| s.car_on(n))
        .filter(|&c| c != mover && Some(c) != exempt && !t.next(s.car(c).space).contains(&at))
        .collect();
    cars.sort_by_key(|&c| std::cmp::Reverse((play_distance(s, t, c), key(s, t, c))));
    cars.dedup();
    cars
}

/// Body tests after `mover` ended its move (14-1 to 14-4, 12-1-5, 20-3, 20-6).
///
/// Every car it touches that still races rolls the black die, in the order of play; then the
/// mover, if it still races, loses a body point for each of them eliminated by these tests
/// without rolling for it (14-4), and rolls once for each of the others. A car eliminated and
/// still on the board rolls nothing (it has nothing left to lose) but makes the tests against it
/// aggravated, as a spun-out or stalled car does (14-3).
pub fn body_tests(
    t: &Track,
    s: &mut RaceState,
    events: &mut Vec<Event>,
    mover: CarId,
    exempt: Option<CarId>,
    dice: &mut dyn Dice,
) {
    if !s.car(mover).status.on_board() {
        return;
    }
    let others = touching(t, s, mover, exempt);
    let mut knocked_out = Vec::new();
    for &other in &others {
        // A backmarker can cause but not receive body damage (002 "Backmarkers").
        if !s.car(other).status.plays() || s.car(other).backmarker {
            continue;
        }
        let aggravated = aggravates(s.car(mover).status) || aggravates(s.car(other).status);
        if test(s, events, other, mover, aggravated, dice) {
            knocked_out.push(other);
        }
    }
    if !s.car(mover).status.plays() || s.car(mover).backmarker {
        return;
    }
    // 14-4: the causer rolls last; a body point lost outright for each car it eliminated.
    for _ in &knocked_out {
        if lose_body(s, events, mover, "14-4") {
            return;
        }
    }
    for &other in &others {
        if knocked_out.contains(&other) || !s.car(mover).status.plays() {
            continue;
        }
        let aggravated = aggravates(s.car(mover).status) || aggravates(s.car(other).status);
        test(s, events, mover, other, aggravated, dice);
    }
}

/// One body test of `car` against `other`; true if it eliminates `car`.
fn test(
    s: &mut RaceState,
    events: &mut Vec<Event>,
    car: CarId,
    other: CarId,
    aggravated: bool,
    dice: &mut dyn Dice,
) -> bool {
    events.push(Event::BodyTest { car, other, aggravated });
    let v = dice.roll(Die::Black, Some(car), Purpose::Collision);
    events.push(Event::Rolled { car: Some(car), die: Die::Black, purpose: Purpose::Collision, value: v });
    if v <= collision_threshold(s.wet, aggravated) {
        return lose_body(s, events, car, if aggravated { "14-3" } else { "14-1" });
    }
    false
}

/// `car` loses a body point and gets a sticker under it (14-1); its last one eliminates it, and
/// it waits for its next turn to leave the board (14-2, 20-3). True if eliminated.
pub(super) fn lose_body(s: &mut RaceState, events: &mut Vec<Event>, car: CarId, article: &'static str) -> bool {
    let at = s.car(car).space;
    let body = &mut s.car_mut(car).wear.body;
    *body = body.saturating_sub(1);
    events.push(Event::Wear { car, part: Part::Body, points: 1, article });
    s.add_sticker(at);
    events.push(Event::Sticker { space: at, article: "14-1" });
    if s.car(car).wear.body == 0 {
        s.car_mut(car).status = Status::Eliminated { reason: Elimination::Body, removed: false };
        events.push(Event::Eliminated { car, reason: Elimination::Body });
        return true;
    }
    false
}

/// True if a gear-die result pushes the engine (16-0-1): 20 in 5th, 30 in 6th.
pub fn pushes_engine(gear: u8, value: u8) -> bool {
    matches!((gear, value), (5, 20) | (6, 30))
}

/// Engine tests after a 20 in 5th or a 30 in 6th (16-0-1 to 16-0-3-1, 10-4-5, 19-1-4, 20-4):
/// every car still racing in 5th or 6th on the racing track (not in the pit lane) rolls the
/// black die in the race order, laps counted (16-0-1: « l'ordre des voitures sur la piste »,
/// the order of play); a failed test costs an engine point and leaves a sticker under the car
/// (17-0-1), the last one breaks the engine. A spun-out car is in 4th or lower for 16-0-3-1: no
/// inertia; it leaves the board at once (2004) or at its next turn (2002, ruling 33). Otherwise it plays its inertia at its next turn
/// (16-0-3, 16-0-6: `inertia`).
pub fn engine_tests(t: &Track, s: &mut RaceState, events: &mut Vec<Event>, dice: &mut dyn Dice, rules: &Rulebook) {
    let mut cars: Vec<CarId> = s
        .ids()
        .filter(|&c| {
            let car = s.car(c);
            car.status.plays() && matches!(car.gear, 5 | 6) && t.space(car.space).kind == SpaceKind::Racing
        })
        .collect();
    cars.sort_by_key(|&c| std::cmp::Reverse((play_distance(s, t, c), key(s, t, c))));
    for car in cars {
        events.push(Event::EngineTest { car });
        let v = dice.roll(Die::Black, Some(car), Purpose::Engine);
        events.push(Event::Rolled { car: Some(car), die: Die::Black, purpose: Purpose::Engine, value: v });
        if v > engine_threshold(s.wet) {
            continue;
        }
        let engine = &mut s.car_mut(car).wear.engine;
        *engine = engine.saturating_sub(1);
        events.push(Event::Wear { car, part: Part::Engine, points: 1, article: "16-0-2" });
        let at: SpaceIdx = s.car(car).space;
        // 17-0-1: « A chaque fois qu'une voiture perd un point de carrosserie ou moteur, la case
        // sur laquelle s'est produit l'incident devient dangereuse » (003-6 likewise): every
        // engine point lost leaves a sticker, the last one too (16-0-3).
        s.add_sticker(at);
        if s.car(car).wear.engine > 0 {
            events.push(Event::Sticker { space: at, article: "17-0-1" });
        } else {
            let low = s.car(car).status == Status::SpunOut; // 16-0-3-1: "en quatrième ou moins"
            let removed = low && rules.set.low_break_off_at_once;
            events.push(Event::Sticker { space: at, article: "16-0-3" });
            s.car_mut(car).status = Status::Eliminated { reason: Elimination::Engine, removed };
            events.push(Event::Eliminated { car, reason: Elimination::Engine });
            if !low {
                // 16-0-3, 16-0-6: the inertia move at its next turn.
                let kind = inertia::on_break(t, s, s.car(car));
                s.car_mut(car).inertia = Some(kind);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_top_face_in_fifth_or_sixth_pushes_the_engine() {
        assert!(pushes_engine(5, 20));
        assert!(pushes_engine(6, 30));
        assert!(!pushes_engine(5, 19));
        assert!(!pushes_engine(6, 20));
        assert!(!pushes_engine(4, 12));
        assert!(!pushes_engine(1, 4), "a super start's 4 spaces");
    }

    #[test]
    fn eliminated_spun_and_stalled_cars_aggravate() {
        assert!(aggravates(Status::SpunOut));
        assert!(aggravates(Status::Stalled));
        assert!(aggravates(Status::Eliminated { reason: Elimination::Blocking, removed: false }));
        assert!(aggravates(Status::Eliminated { reason: Elimination::Body, removed: false }));
        assert!(!aggravates(Status::Eliminated { reason: Elimination::Engine, removed: false }), "16-0-4");
        assert!(!aggravates(Status::Racing));
        assert!(!aggravates(Status::Restarting));
    }
}
