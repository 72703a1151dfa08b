//! Choosing among a roll's options (7, 10, 14): the plan's cost from where each leaves the
//! car, plus what its contacts, wall entries and body tests cost.

use super::*;

impl Bot {
    /// The option the bot picks for the car that rolled (an index into `rolled.options`).
    pub fn option(&mut self, t: &Track, rolled: &Rolled) -> usize {
        let s = &rolled.state;
        let c = s.car(rolled.car);
        // The car on each space (the first in the list, as `RaceState::car_on`), for the
        // contacts of every option's end.
        let car_at = &mut self.car_at;
        car_at.clear();
        car_at.resize(t.spaces.len(), NONE8);
        for (i, o) in s.cars.iter().enumerate() {
            if o.status.on_board() && car_at[o.space.get()] == NONE8 {
                car_at[o.space.get()] = i as u8;
            }
        }
        let m = self.model(t);
        let key = PlanKey::of(s, rolled.car);
        m.plan(key);
        let m = self.model.as_ref().expect("built");
        let d = Driver { model: m, plan: &m.plans[&key], r: remaining(s.laps, c), car: c, wet: s.wet };
        // 19: a worn car takes the pit lane when it is offered: its box if it can, else as far
        // along the lane as it gets.
        if c.pit.stage == PitStage::Out && wants_pit(c) {
            let own = pits::own_box(t, s, rolled.car);
            let lane = |o: &MoveOption| t.space(o.end).in_pit_lane() && o.fate == Fate::Continues;
            if let Some(i) = rolled.options.iter().position(|o| lane(o) && Some(o.end) == own) {
                return i;
            }
            if let Some(i) = rolled.options.iter().position(lane) {
                return i;
            }
        }
        let mut best = (f32::INFINITY, 0);
        let car_at = &self.car_at;
        for (i, o) in rolled.options.iter().enumerate() {
            let v = option_cost(t, &d, o)
                + contact_cost(t, s, car_at, rolled.car, o.end)
                + wall_cost(s, rolled.car, o.wall);
            if v < best.0 {
                best = (v, i);
            }
        }
        best.1
    }
}

/// What option `o` costs the car: now, and in the plan from where it leaves the car.
pub(super) fn option_cost(t: &Track, d: &Driver<'_>, o: &MoveOption) -> f32 {
    let c = d.car;
    let spin = match o.fate {
        Fate::Eliminated(_) => return ELIM * 2.0,
        Fate::SpinOut => true,
        Fate::Continues => false,
    };
    let (tyres, _) = d.tyres(o.tyre_points());
    let brakes = c.wear.brakes.saturating_sub(o.brake_points());
    let then = match d.model.position(t, o.end, o.stops) {
        Some(p) => d.after(p, o.crossings, if spin { 0 } else { c.gear }, c.wear.gas, brakes),
        None => ELIM,
    };
    tyres + then + d.handling(o.dangerous.len()) + BRAKE * o.brake_points() as f32 + d.reserve(brakes)
}

/// Expected cost of ending on `end`: one body test (14-1) for each car the mover would stand
/// beside or behind there (not in front of), each failed test a body point, the last one the
/// car (20-3). The cars are those `incidents::touching_at` lists, counted without ordering them
/// (`car_at`: the car on each space, `NONE8` for none).
pub(super) fn contact_cost(t: &Track, s: &RaceState, car_at: &[u8], me: CarId, end: SpaceIdx) -> f32 {
    if t.compact(end).pit {
        return 0.0; // only racing spaces touch (14-1)
    }
    let mut seen = [0u64; 4]; // bit i: car i counted
    let mut n = 0;
    // The spaces beside, then the spaces ahead (two plain loops: a chained iterator cost more).
    for side in [t.beside(end), t.next(end)] {
        for &x in side {
            let c = car_at[x.get()];
            if c == NONE8 || c == me.0 || t.compact(x).pit || t.next(s.cars[c as usize].space).contains(&end) {
                continue;
            }
            let (word, bit) = (c as usize / 64, 1u64 << (c % 64));
            if seen[word] & bit == 0 {
                seen[word] |= bit;
                n += 1;
            }
        }
    }
    body_tests_cost(s, me, n)
}

/// Expected cost of `entries` body tests against an oval's wall (15-0-2): as many tests against
/// a car (14-1).
pub(super) fn wall_cost(s: &RaceState, me: CarId, entries: u8) -> f32 {
    body_tests_cost(s, me, entries as usize)
}

/// Expected cost of `tests` body tests (14-1): each fails with the collision threshold's
/// chance and costs a body point, the last one the car (20-3).
pub(super) fn body_tests_cost(s: &RaceState, me: CarId, tests: usize) -> f32 {
    if tests == 0 {
        return 0.0;
    }
    let p = collision_threshold(s.wet, false) as f32 / 20.0;
    let point = if s.car(me).wear.body <= 1 { ELIM } else { BODY };
    // The car touched takes a test too (14-1): each failed test leaves a sticker (17-0-1).
    tests as f32 * p * (point + 2.0 * STICKER)
}
