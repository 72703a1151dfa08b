//! Gear changes (6-1) and over-revving (13): which gear a car may engage and what a downshift
//! that skips gears costs.

use thiserror::Error;

use super::rulebook::{MAX_SKIP, OVER_REV, TOP_GEAR};
use super::state::CarState;

/// A legal gear change and its cost.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct GearChange {
    /// Gear before (0: standing start).
    pub from: u8,
    /// Gear engaged.
    pub to: u8,
    /// Gears skipped on the way down (13-1).
    pub skipped: u8,
    /// Gas points lost (13-1).
    pub gas: u8,
    /// Brake points lost (13-1).
    pub brakes: u8,
    /// Engine points lost (13-1).
    pub engine: u8,
}

/// Why a gear cannot be engaged.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum GearError {
    /// Not a gear.
    #[error("there is no gear {0}: gears are 1 to 6")]
    NoSuchGear(u8),
    /// A standing car starts in 1st (6-2-1), and so does a car turned back after a spinout
    /// (10-4-1).
    #[error(
        "the car is standing (at the start, or turned back after a spinout): it starts in 1st gear (6-2-1, 10-4-1)"
    )]
    MustStartInFirst,
    /// Upshifts go one gear at a time (6-1-1).
    #[error("from gear {from} the highest gear is {}: you may not skip a gear going up (6-1-1)", from + 1)]
    SkipUp {
        /// Current gear.
        from: u8,
    },
    /// At most three gears may be skipped going down (13-2).
    #[error("from gear {from} the lowest gear is {}: skipping 4 gears (6th to 1st) is forbidden (13-2)", from - MAX_SKIP - 1)]
    SkipTooMany {
        /// Current gear.
        from: u8,
    },
    /// Without gas a car cannot skip gears going down (5-1-3, 13-1).
    #[error("no gas point left: the car may only shift down one gear at a time, to {} (5-1-3)", from - 1)]
    NoGas {
        /// Current gear.
        from: u8,
    },
    /// A car in inertia plays the gear the rule gives it (16-0-3, 16-0-6).
    #[error("the engine is broken: the inertia move is played in gear {gear} (16-0-3, 16-0-6)")]
    Inertia {
        /// The gear to announce (in an extended inertia, the highest allowed).
        gear: u8,
    },
    /// The downshift costs a brake point the car no longer has.
    #[error("skipping {skipped} gears costs a brake point and the car has none left (13-1)")]
    NoBrakeForOverRev {
        /// Gears skipped.
        skipped: u8,
    },
}

/// Checks that `car` may engage `to` and returns the change with its over-revving cost.
pub fn change(car: &CarState, to: u8) -> Result<GearChange, GearError> {
    if !(1..=TOP_GEAR).contains(&to) {
        return Err(GearError::NoSuchGear(to));
    }
    let from = car.gear;
    if from == 0 {
        return if to == 1 {
            Ok(GearChange { from, to, skipped: 0, gas: 0, brakes: 0, engine: 0 })
        } else {
            Err(GearError::MustStartInFirst)
        };
    }
    if to > from + 1 {
        return Err(GearError::SkipUp { from });
    }
    let skipped = from.saturating_sub(to).saturating_sub(1);
    if skipped == 0 {
        return Ok(GearChange { from, to, skipped, gas: 0, brakes: 0, engine: 0 });
    }
    if skipped > MAX_SKIP {
        return Err(GearError::SkipTooMany { from });
    }
    if car.wear.gas == 0 {
        return Err(GearError::NoGas { from });
    }
    let (gas, brakes, engine) = OVER_REV[(skipped - 1) as usize];
    if brakes > car.wear.brakes {
        return Err(GearError::NoBrakeForOverRev { skipped });
    }
    Ok(GearChange { from, to, skipped, gas, brakes, engine })
}

/// The gears `car` may engage now.
pub fn legal_gears(car: &CarState) -> Vec<u8> {
    (1..=TOP_GEAR).filter(|&g| change(car, g).is_ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::car::{Setup, Wear};
    use crate::engine::rulebook::Tyres;
    use crate::track::SpaceIdx;

    fn car(gear: u8, wear: Wear) -> CarState {
        let mut c = CarState::on_grid(1, SpaceIdx(0), &Setup { wear, tyres: Tyres::Hard }, 2, 0);
        c.gear = gear;
        c
    }

    #[test]
    fn over_revving_costs_follow_13_1() {
        let c = car(6, Wear::standard());
        let g = change(&c, 4).unwrap();
        assert_eq!((g.skipped, g.gas, g.brakes, g.engine), (1, 1, 0, 0));
        let g = change(&car(5, Wear::standard()), 2).unwrap();
        assert_eq!((g.skipped, g.gas, g.brakes, g.engine), (2, 1, 1, 0));
        let g = change(&c, 2).unwrap();
        assert_eq!((g.skipped, g.gas, g.brakes, g.engine), (3, 1, 1, 1));
        assert_eq!(change(&c, 1), Err(GearError::SkipTooMany { from: 6 }));
    }

    #[test]
    fn upshifts_go_one_at_a_time_and_a_standing_car_starts_in_first() {
        assert_eq!(change(&car(3, Wear::standard()), 5), Err(GearError::SkipUp { from: 3 }));
        assert!(change(&car(3, Wear::standard()), 4).is_ok());
        assert_eq!(change(&car(0, Wear::standard()), 2), Err(GearError::MustStartInFirst));
        assert_eq!(legal_gears(&car(0, Wear::standard())), vec![1]);
        assert_eq!(legal_gears(&car(6, Wear::standard())), vec![2, 3, 4, 5, 6]);
    }

    #[test]
    fn without_gas_no_gear_is_skipped() {
        let mut w = Wear::standard();
        w.gas = 0;
        assert_eq!(change(&car(5, w), 3), Err(GearError::NoGas { from: 5 }));
        assert_eq!(legal_gears(&car(5, w)), vec![4, 5, 6]);
    }
}
