//! Why a destination is not on offer: the reason a player reads when an order names a space the
//! roll does not allow. Every refusal cites the rule that forbids the move.

use thiserror::Error;

use crate::track::{SpaceIdx, Track};

use super::movement::{Board, Mover, reaches};
use super::options::Fate;
use super::play::Rolled;

/// Why an ordered destination cannot be taken.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum Refusal {
    /// The id names no space.
    #[error("there is no space `{0}` on this track")]
    NoSuchSpace(String),
    /// A car stands there (7-0-1).
    #[error("{space} is taken by car {car}: a move never ends on or jumps over a car (7-0-1)")]
    Occupied {
        /// The space.
        space: String,
        /// The car's number.
        car: u8,
    },
    /// The destination is the car's own space and the car cannot brake to a standstill.
    #[error("staying on {space} needs {needed} brake point(s) and the car has {have} (11-0-3)")]
    CannotStay {
        /// The space.
        space: String,
        /// Brakes needed.
        needed: u8,
        /// Brakes left.
        have: u8,
    },
    /// Farther than the roll.
    #[error("{space} is {spaces} spaces away and the die says {roll}")]
    TooFar {
        /// The space.
        space: String,
        /// Shortest legal way there.
        spaces: u8,
        /// The roll.
        roll: u8,
    },
    /// Reachable only by braking more than the car can (11-0-3, 11-0-4).
    #[error("stopping on {space} needs {needed} brake point(s) and the car has {have} (11-0-3)")]
    NotEnoughBrakes {
        /// The space.
        space: String,
        /// Brakes needed.
        needed: u8,
        /// Brakes left.
        have: u8,
    },
    /// A blocked car goes as far as it can (12-0-1, 12-1-3).
    #[error("the car is blocked: it must go as far as it can, to {farthest} (12-0-1, 12-1-3)")]
    NotFarthest {
        /// The space(s) it may end on.
        farthest: String,
    },
    /// Reaching it would eliminate the car while another option does not (docs/rulings.md).
    #[error("ending on {space} eliminates the car and another option does not")]
    Eliminates {
        /// The space.
        space: String,
    },
    /// The arrows lead there, but only by a path the driving code forbids (7-2-3, 7-2-4, 10-2-1).
    #[error(
        "{space} can only be reached by a path the driving code forbids: on a straight the shortest way, no zigzag (7-2-3, 7-2-4), and no lane change after overshooting a corner (10-2-1)"
    )]
    DrivingCode {
        /// The space.
        space: String,
    },
    /// Other cars wall it off (7-0-1).
    #[error("cars block every way to {space} (7-0-1)")]
    Walled {
        /// The space.
        space: String,
    },
    /// Behind the car, off its route, or beyond any roll (7-0-1: never backwards).
    #[error("{space} is not ahead of the car within reach (7-0-1: cars never reverse)")]
    NotAhead {
        /// The space.
        space: String,
    },
}

/// Index of the option ending on `space` (the first, cheapest one if several), or why there is
/// none.
pub fn choose(t: &Track, rolled: &Rolled, space: &str) -> Result<usize, Refusal> {
    let Some(target) = t.find(space) else {
        return Err(Refusal::NoSuchSpace(space.to_string()));
    };
    if let Some(i) = rolled.options.iter().position(|o| o.end == target) {
        return Ok(i);
    }
    Err(why_not(t, rolled, target))
}

/// The reason `target` is not among `rolled`'s options.
pub fn why_not(t: &Track, rolled: &Rolled, target: SpaceIdx) -> Refusal {
    let s = &rolled.state;
    let car = s.car(rolled.car);
    let id = t.space(target).id.clone();
    if let Some(other) = s.car_on(target).filter(|&c| c != rolled.car) {
        return Refusal::Occupied { space: id, car: s.car(other).number };
    }
    if target == car.space {
        return Refusal::CannotStay { space: id, needed: rolled.roll, have: car.wear.brakes };
    }
    let mut occupied = vec![false; t.spaces.len()];
    for (i, c) in s.cars.iter().enumerate() {
        if i != rolled.car.get() && c.status.on_board() {
            occupied[c.space.get()] = true;
        }
    }
    let board = Board { track: t, occupied: &occupied, dangerous: &s.dangerous, pit_open: false, walls: true };
    let legal = reaches(&board, &Mover { start: car.space, stops: car.stops, max: 30, min: 0 });
    let lengths: Vec<u8> = (0..=legal.longest).filter(|&k| legal.at(k).iter().any(|r| r.end() == target)).collect();
    if let Some(&k) = lengths.iter().find(|&&k| k <= rolled.roll) {
        if let Some(far) = blocked_farthest(t, rolled) {
            return Refusal::NotFarthest { farthest: far };
        }
        let needed = rolled.roll - lengths.iter().copied().filter(|&k| k <= rolled.roll).max().unwrap_or(k);
        if needed > car.wear.brakes {
            return Refusal::NotEnoughBrakes { space: id, needed, have: car.wear.brakes };
        }
        if rolled.options.iter().any(|o| !matches!(o.fate, Fate::Eliminated(_))) {
            return Refusal::Eliminates { space: id };
        }
        return Refusal::DrivingCode { space: id };
    }
    if let Some(&k) = lengths.first() {
        return Refusal::TooFar { space: id, spaces: k, roll: rolled.roll };
    }
    // Not reachable under the driving code: is it reachable along the arrows at all?
    let free = vec![false; t.spaces.len()];
    if arrow_distance(t, &occupied, car.space, target, 30).is_some() {
        return Refusal::DrivingCode { space: id };
    }
    if arrow_distance(t, &free, car.space, target, 30).is_some() {
        return Refusal::Walled { space: id };
    }
    Refusal::NotAhead { space: id }
}

/// When the car is blocked, the space ids it may end on.
fn blocked_farthest(t: &Track, rolled: &Rolled) -> Option<String> {
    let blocked: Vec<&str> =
        rolled.options.iter().filter(|o| o.blocked > 0).map(|o| t.space(o.end).id.as_str()).collect();
    if blocked.is_empty()
        || rolled.options.iter().any(|o| o.blocked == 0 && o.spaces - o.slide == rolled.roll && o.brakes == 0)
    {
        return None;
    }
    let mut v = blocked;
    v.sort();
    v.dedup();
    Some(v.join(" or "))
}

/// Fewest arrows from `a` to `b` avoiding occupied spaces (ignoring the driving code).
fn arrow_distance(t: &Track, occupied: &[bool], a: SpaceIdx, b: SpaceIdx, limit: u8) -> Option<u8> {
    let mut dist = vec![u8::MAX; t.spaces.len()];
    dist[a.get()] = 0;
    let mut queue = vec![a];
    let mut head = 0;
    while head < queue.len() {
        let u = queue[head];
        head += 1;
        if u == b {
            return Some(dist[u.get()]);
        }
        if dist[u.get()] >= limit {
            continue;
        }
        for &v in t.next(u) {
            if dist[v.get()] == u8::MAX && !occupied[v.get()] && !t.space(v).in_pit_lane() {
                dist[v.get()] = dist[u.get()] + 1;
                queue.push(v);
            }
        }
    }
    None
}
