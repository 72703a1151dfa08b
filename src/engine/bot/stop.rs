//! The bot at the pits (19): when a car wants its stop, the gear in the lane, and what it
//! orders at the box.

use super::*;

/// True when the car is worn enough to stop at its pit (19): tyres down to a third of its sheet,
/// or a part the pit points can repair down to its last point.
pub(super) fn wants_pit(c: &CarState) -> bool {
    let tyres_low = c.wear.tyres * 3 <= c.pit.sheet.tyres;
    let repairable = c.pit_points > 0
        && [Part::Brakes, Part::Body, Part::Engine].iter().any(|&p| c.wear.get(p) <= 1 && c.pit.sheet.get(p) > 1);
    tyres_low || repairable
}

/// The gear of a car in the pit lane (19-1-8, 19-1-9, 19-3-4, 19-4-2): the highest the rules
/// allow, 4th at most (the lane is short and a corner may follow its exit).
pub(super) fn pit_gear(t: &Track, state: &RaceState, car: CarId) -> u8 {
    let c = state.car(car);
    let ok: Vec<u8> = legal_gears(c).into_iter().filter(|&g| pits::check_gear(t, state, car, g).is_ok()).collect();
    ok.iter().copied().filter(|&g| g <= 4).max().or_else(|| ok.first().copied()).unwrap_or(c.gear.max(2))
}

impl Bot {
    /// The bot's decision at the box (19-2-6, 19-3, 19-4): a long stop when the pit points can
    /// repair a part down to its last points (the most worn of brakes, body, engine, gas first),
    /// a quick stop otherwise; the same tyres.
    pub fn pit_order(&self, state: &RaceState, car: CarId) -> PitOrder {
        let c = state.car(car);
        let mut left = c.pit_points;
        let mut repairs: Vec<(Part, u8)> = Vec::new();
        let mut wear = c.wear;
        while left > 0 {
            let need = [Part::Brakes, Part::Body, Part::Engine, Part::Gas]
                .into_iter()
                .filter(|&p| wear.get(p) < c.pit.sheet.get(p) && wear.get(p) <= 2)
                .min_by_key(|&p| wear.get(p));
            let Some(p) = need else { break };
            *wear.get_mut(p) += 1;
            left -= 1;
            match repairs.iter_mut().find(|(q, _)| *q == p) {
                Some((_, n)) => *n += 1,
                None => repairs.push((p, 1)),
            }
        }
        let kind = if repairs.is_empty() { StopKind::Quick } else { StopKind::Long };
        PitOrder { kind: Some(kind), tyres: None, repairs }
    }

    /// [`Bot::pit_order`] as `rules` allow it: the tyres announced where the profile requires
    /// it (2002 19-5-7), a tyre stop where repairs are not played (003-7 off).
    pub fn pit_order_for(&self, state: &RaceState, car: CarId, rules: &crate::engine::Rulebook) -> PitOrder {
        let mut o = self.pit_order(state, car);
        if !rules.set.same_tyres_by_default {
            o.tyres = Some(state.car(car).tyres);
        }
        if !rules.set.repairs {
            o.kind = Some(StopKind::Quick);
            o.repairs.clear();
        }
        o
    }
}
