//! A bot policy: it drives a car whose player missed a deadline, and every car of a simulation.
//!
//! Gear: for each legal gear the bot weighs every face of the real die against the *runway* —
//! the most spaces the car can move from where it stands without overshooting (computed on an
//! empty track and cached per space and stop count) — valuing distance, charging brake points
//! for the excess and heavily penalising faces that would overshoot beyond its brakes. Option:
//! the farthest option after weighing wear, dangerous spaces, spinouts and eliminations.
//!
//! Pure and deterministic: ties break on the option order, which is itself deterministic.

use rustc_hash::FxHashMap;

use crate::track::{CornerIdx, SpaceIdx, Track};

use super::gearbox::{self, legal_gears};
use super::movement::{Board, Mover, reaches};
use super::options::{Fate, MoveOption};
use super::rulebook::Die;
use super::state::{CarId, CarState, RaceState};

/// A bot with its caches for one track. Cheap to create; keep one per track to reuse them.
#[derive(Clone, Debug, Default)]
pub struct Bot {
    runway: FxHashMap<Key, u8>,
    ahead: FxHashMap<Key, Vec<u8>>,
}

type Key = (SpaceIdx, Option<(CornerIdx, u8)>);

/// Distance not safely reachable.
const UNSAFE: u8 = u8::MAX;

impl Bot {
    /// A new bot.
    pub fn new() -> Self {
        Bot::default()
    }

    fn safe_reaches(t: &Track, space: SpaceIdx, stops: Option<(CornerIdx, u8)>) -> super::movement::Reaches {
        let empty = vec![false; t.spaces.len()];
        let board = Board { track: t, occupied: &empty, dangerous: &[], pit_open: false };
        reaches(&board, &Mover { start: space, stops, max: 30, min: 0 })
    }

    fn runway_at(&mut self, t: &Track, key: Key) -> u8 {
        if let Some(&r) = self.runway.get(&key) {
            return r;
        }
        let r = Self::safe_reaches(t, key.0, key.1);
        let safe = (0..=r.longest)
            .rev()
            .find(|&k| r.at(k).iter().any(|x| x.overshoot.is_none() && x.missed.is_none()))
            .unwrap_or(0);
        self.runway.insert(key, safe);
        safe
    }

    /// The most spaces `car` can move from its space, on an empty track, without overshooting.
    pub fn runway(&mut self, t: &Track, car: &CarState) -> u8 {
        self.runway_at(t, (car.space, car.stops))
    }

    /// For each distance `d`, the best runway the car would have after moving exactly `d`
    /// spaces safely from `key` (`UNSAFE` where no safe move of that length exists).
    fn ahead(&mut self, t: &Track, key: Key) -> Vec<u8> {
        if let Some(v) = self.ahead.get(&key) {
            return v.clone();
        }
        let r = Self::safe_reaches(t, key.0, key.1);
        let mut v = vec![UNSAFE; 31];
        for (d, ends) in (0..=r.longest).map(|k| (k as usize, r.at(k))) {
            for x in ends.iter().filter(|x| x.overshoot.is_none() && x.missed.is_none()) {
                let after = self.runway_at(t, (x.end, x.stops));
                if v[d] == UNSAFE || after > v[d] {
                    v[d] = after;
                }
            }
        }
        self.ahead.insert(key, v.clone());
        v
    }

    /// The gear the bot engages for `car`.
    pub fn gear(&mut self, t: &Track, state: &RaceState, car: CarId) -> u8 {
        let c = state.car(car);
        let gears = legal_gears(c);
        let runway = self.runway(t, c) as i32;
        let ahead = self.ahead(t, (c.space, c.stops));
        let brakes = c.wear.brakes as i32;
        // Overshooting a 2- or 3-stop corner with two stops missing eliminates (10-1).
        let multi_stop = |_d: i32| -> bool {
            c.stops.is_some_and(|(k, n)| t.corners[k.get()].stops >= 2 && n + 1 < t.corners[k.get()].stops)
        };
        let mut best = (i32::MIN, gears.first().copied().unwrap_or(1));
        for g in gears {
            let Ok(change) = gearbox::change(c, g) else { continue };
            let faces = Die::Gear(g).faces();
            let gas_after = c.wear.gas.saturating_sub(change.gas);
            let mut total = 0i32;
            for &f in faces {
                let f = f as i32;
                let excess = (f - runway).max(0);
                let d = f.min(runway);
                let brakes_left = brakes - excess.min(brakes);
                let mut value = if excess <= brakes {
                    10 * d - 12 * excess
                } else if multi_stop(d) {
                    10 * runway - 12 * brakes - 2000
                } else {
                    10 * runway - 12 * brakes - 150 * (excess - brakes)
                };
                if excess <= brakes {
                    let after = ahead[d as usize];
                    let after = if after == UNSAFE { 0 } else { after as i32 };
                    value -= shortfall_cost(after, g, gas_after, brakes_left, 1);
                }
                total += value;
            }
            let mut score = total / faces.len() as i32;
            score -= 60 * change.gas as i32 + 80 * change.brakes as i32 + 300 * change.engine as i32;
            if change.engine > 0 && c.wear.engine <= change.engine {
                score = i32::MIN + 1;
            }
            if score > best.0 {
                best = (score, g);
            }
        }
        best.1
    }

    /// The option the bot picks (an index into `options`).
    pub fn option(&mut self, t: &Track, car: &CarState, options: &[MoveOption]) -> usize {
        let mut best = (i64::MIN, 0);
        for (i, o) in options.iter().enumerate() {
            let gap = t.progress_gap(car.space, o.end) as i64 + o.crossings as i64 * t.lap_length as i64;
            let mut score = gap / 100; // tenths of a row
            // A point is dearer the fewer are left: the last tyre point spins the car (10-4-1).
            let brake_cost = 15 + 60 / (car.wear.brakes as i64 + 1);
            let tyre_cost = 25 + 150 / (car.wear.tyres as i64 + 1);
            score -= brake_cost * o.brake_points() as i64 + tyre_cost * o.tyre_points() as i64;
            score -= 25 * o.dangerous.len() as i64;
            score -= match o.fate {
                Fate::Continues => 0,
                Fate::SpinOut => 400,
                Fate::Eliminated(_) => 100_000,
            };
            // Look ahead: from the end, can the car still make the moves it needs (every stop
            // the corner still asks for) without overshooting?
            let mut after = car.clone();
            after.space = o.end;
            after.stops = o.stops;
            let brakes_left = car.wear.brakes.saturating_sub(o.brake_points());
            let runway = self.runway(t, &after) as i32;
            let moves = o.stops.map_or(1, |(c, n)| t.corners[c.get()].stops.saturating_sub(n).max(1));
            score -= shortfall_cost(runway, car.gear, car.wear.gas, brakes_left as i32, moves) as i64;
            if score > best.0 {
                best = (score, i);
            }
        }
        best.1
    }
}

/// What it costs to leave a car with `runway` spaces of safe road when its next `moves` moves,
/// shifting down as fast as its gas allows and braking with what is left, need more.
fn shortfall_cost(runway: i32, gear: u8, gas: u8, brakes: i32, moves: u8) -> i32 {
    let step = if gas > 0 { 3 } else { 1 };
    let mut need = 0i32;
    let mut easy = 0i32;
    for i in 1..=moves {
        let lowest = gear.saturating_sub(step * i).max(1);
        let gentle = gear.saturating_sub(i).max(1);
        need += Die::Gear(lowest).range().0 as i32;
        easy += Die::Gear(gentle).range().0 as i32;
    }
    need -= brakes;
    easy -= brakes;
    if runway < need {
        (need - runway) * if moves > 1 { 300 } else { 60 }
    } else if runway < easy {
        (easy - runway) * 12
    } else {
        0
    }
}
