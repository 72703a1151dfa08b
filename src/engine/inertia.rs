//! The inertia of a broken engine (16-0-3, 16-0-6 to 16-0-9).
//!
//! A car whose last engine point goes while it is in 5th or 6th is eliminated but does not stop
//! dead: at its next turn it plays one last die, the 4th-gear die, and goes as far as it can
//! without being eliminated by an overshoot if it can help it; a sticker goes under it where it
//! stops, and at its turn after that it is taken off (16-0-3). If the engine broke after the
//! penultimate corner of the race, the inertia goes on one gear lower each round down to 1st,
//! so that the car may still reach the finish (16-0-6, 16-0-7). All tyre rules apply (16-0-8)
//! and the pit lane is closed to it (16-0-9).
//!
//! Kept apart from `play` so that the rest of the engine only asks two questions: is this car
//! in inertia, and which gears and options does it have.

use crate::track::{SpaceKind, Track};

use super::gearbox::{self, GearChange, GearError};
use super::options::{Fate, MoveOption};
use super::state::{CarState, RaceState};

/// The inertia a car whose engine broke still has to play.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Inertia {
    /// One move in 4th, then the car is taken off (16-0-3).
    Single,
    /// Broken after the penultimate corner: one gear lower every round down to 1st, and the car
    /// may reach the finish (16-0-6).
    Extended,
}

impl Inertia {
    /// The article of this kind of inertia.
    pub fn article(self) -> &'static str {
        match self {
            Inertia::Single => "16-0-3",
            Inertia::Extended => "16-0-6",
        }
    }

    /// Name in files and the canonical text.
    pub fn name(self) -> &'static str {
        match self {
            Inertia::Single => "single",
            Inertia::Extended => "extended",
        }
    }
}

/// The gear of the first inertia move (16-0-3: "celui de la 4ème vitesse").
pub const INERTIA_GEAR: u8 = 4;

/// The inertia a car gets when its engine breaks where it stands now: extended when it is on
/// its last lap and has left the penultimate corner of the track behind (16-0-6). A car that
/// overshot that corner has left it; one still inside it has not (16-0-7). On a track with fewer
/// than two corners the whole last lap counts as after the penultimate corner (docs/rulings.md).
pub fn on_break(t: &Track, s: &RaceState, car: &CarState) -> Inertia {
    if car.crossings < s.laps {
        return Inertia::Single;
    }
    let sp = t.space(car.space);
    if sp.kind != SpaceKind::Racing {
        return Inertia::Single;
    }
    let n = t.corners.len();
    if n < 2 {
        return Inertia::Extended;
    }
    let penultimate = &t.corners[n - 2];
    let seg = penultimate.spaces.first().and_then(|&p| t.space(p).segment);
    match (sp.segment, seg) {
        (Some(here), Some(p)) if here > p => Inertia::Extended,
        _ => Inertia::Single,
    }
}

/// Checks the gear a car in inertia announces: 4th for the first move (16-0-3, whatever its
/// gear before, at no cost); in an extended inertia, a lower gear every round, skipping gears
/// only by paying the over-revving costs of 13-1 (16-0-6: "autorisé à utiliser des PdV
/// consommation").
pub fn gear_change(car: &CarState, gear: u8) -> Result<GearChange, GearError> {
    if car.gear > INERTIA_GEAR {
        return if gear == INERTIA_GEAR {
            Ok(GearChange { from: car.gear, to: gear, skipped: 0, gas: 0, brakes: 0, engine: 0 })
        } else {
            Err(GearError::Inertia { gear: INERTIA_GEAR })
        };
    }
    if gear >= car.gear || gear == 0 {
        return Err(GearError::Inertia { gear: car.gear.saturating_sub(1).max(1) });
    }
    let change = gearbox::change(car, gear)?;
    if change.engine > 0 {
        // 13-1: skipping three gears costs an engine point the car no longer has.
        return Err(GearError::Inertia { gear: car.gear - 1 });
    }
    Ok(change)
}

/// The gear a car in inertia plays when nobody chooses (the bot, a missed deadline): 4th first,
/// then one lower each round.
pub fn default_gear(car: &CarState) -> u8 {
    if car.gear > INERTIA_GEAR { INERTIA_GEAR } else { car.gear.saturating_sub(1).max(1) }
}

/// Keeps the options an inertia move may take: as far as possible (16-0-3, 12-1-3), without an
/// overshoot elimination if any option avoids one. The options come farthest first and those
/// that eliminate only when every one does (options.rs), so the farthest options are the first
/// ones with the first option's distance. Options through the pit lane are dropped (16-0-9).
pub fn restrict(t: &Track, car: &CarState, options: &mut Vec<MoveOption>) {
    // 16-0-9: never the pit lane during an inertia move, however chapter 19 opens it.
    options.retain(|o| o.path.iter().all(|&p| t.space(p).kind == SpaceKind::Racing));
    let Some(first) = options.first() else { return };
    let gap = |o: &MoveOption| t.progress_gap(car.space, o.end) + o.crossings as u32 * t.lap_length;
    let best = gap(first);
    let eliminated = matches!(first.fate, Fate::Eliminated(_));
    options.retain(|o| gap(o) == best && matches!(o.fate, Fate::Eliminated(_)) == eliminated);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::car::{Setup, Wear};
    use crate::engine::rulebook::Tyres;
    use crate::track::load::resolve;

    fn option(path: Vec<crate::track::SpaceIdx>) -> MoveOption {
        MoveOption {
            end: *path.last().expect("a path"),
            spaces: path.len() as u8,
            path,
            brakes: 0,
            blocked: 0,
            blocking_brakes: 0,
            blocking_tyres: 0,
            overshoot: None,
            overshoot_tyres: 0,
            missed: None,
            dangerous: Vec::new(),
            stops: None,
            crossings: 0,
            fate: Fate::Continues,
            slip: None,
            bonus: false,
            slide: 0,
            wall: 0,
        }
    }

    #[test]
    fn an_inertia_move_never_takes_the_pit_lane() {
        // 16-0-9, whatever the pit-lane rules offer.
        let t = resolve("monaco").unwrap();
        let setup = Setup { wear: Wear::standard(), tyres: Tyres::Hard };
        let car = CarState::on_grid(1, t.grid[0], &setup, 2, 0);
        let pit = t.pit_lane[0];
        let racing = t.next(car.space)[0];
        let mut opts = vec![option(vec![pit]), option(vec![racing])];
        restrict(&t, &car, &mut opts);
        assert!(opts.iter().all(|o| o.path.iter().all(|&p| t.space(p).kind == SpaceKind::Racing)));
        assert!(!opts.is_empty());
    }

    #[test]
    fn the_first_inertia_gear_is_fourth_then_lower() {
        let t = resolve("monaco").unwrap();
        let setup = Setup { wear: Wear::standard(), tyres: Tyres::Hard };
        let mut car = CarState::on_grid(1, t.grid[0], &setup, 2, 0);
        car.gear = 6;
        assert!(gear_change(&car, 4).is_ok(), "16-0-3: 4th from 6th at no cost");
        assert!(gear_change(&car, 5).is_err());
        assert_eq!(default_gear(&car), 4);
        car.gear = 4;
        assert!(gear_change(&car, 4).is_err(), "16-0-6: one lower every round");
        assert_eq!(gear_change(&car, 2).map(|c| c.gas), Ok(1), "16-0-6: gas points may be used");
        assert_eq!(default_gear(&car), 3);
    }
}
