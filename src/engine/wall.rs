//! The concrete wall of an oval (15): a car that enters the outside lane along the wall takes a
//! body test against the wall (15-0-2, odds of 14-1), once per entry: moving along the lane is
//! no new entry (15-0-4). The driving code counts an entry as a test the player may go round
//! (7-3-7, `movement::Board::walls`); this module rolls the tests.
//!
//! When: the tests of a move are made at its end (6-3 step 10, with the road-handling tests),
//! except an entry on the last space of the move, tested after the body tests with the cars it
//! touches (15-1).

use crate::track::{SpaceIdx, Track};

use super::dice::{Dice, Purpose};
use super::events::Event;
use super::incidents::lose_body;
use super::movement::wall_entries;
use super::rulebook::{Die, collision_threshold};
use super::state::{CarId, RaceState};

/// The wall entries of a move from `from` along `path`, split into those tested with the
/// road-handling tests and the one on its last space, tested after the body tests (15-1).
pub fn split(t: &Track, from: SpaceIdx, path: &[SpaceIdx]) -> (u8, u8) {
    let all = wall_entries(t, from, path);
    let before = path.split_last().map_or(0, |(_, rest)| wall_entries(t, from, rest));
    (before, all - before)
}

/// `n` body tests of `car` against the wall (15-0-2, 14-1): one black die each; a failed one
/// costs a body point with a sticker under the car, the last one eliminates it (14-2).
pub fn tests(s: &mut RaceState, events: &mut Vec<Event>, car: CarId, n: u8, dice: &mut dyn Dice) {
    for _ in 0..n {
        if !s.car(car).status.plays() {
            return;
        }
        events.push(Event::WallTest { car });
        let v = dice.roll(Die::Black, Some(car), Purpose::Collision);
        events.push(Event::Rolled { car: Some(car), die: Die::Black, purpose: Purpose::Collision, value: v });
        if v <= collision_threshold(s.wet, false) {
            lose_body(s, events, car, "15-0-2");
        }
    }
}
