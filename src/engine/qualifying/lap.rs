//! One solo timed lap (1-1): a car alone on the track, played move by move with the engine's own
//! driving code ([`play::move_options`]), its dice rolls counted.
//!
//! Kept out of `play` because a timed lap is not a race move: wear points are not counted (1-0-1),
//! so there is no braking, over-revving costs nothing, and there are no body, engine or
//! road-handling tests; an overshoot costs rolls instead of tyre points (1-1-12, 8-5 "Essai"
//! column); a missed 2- or 3-stop corner ends the lap (1-1-14). Like `play`, a move is two calls
//! because a player by mail answers between them: [`Lap::roll`] then [`Lap::resolve`].

use thiserror::Error;

use crate::track::{SpaceIdx, Track};

use super::super::car::{Setup, Wear};
use super::super::dice::{Dice, Purpose};
use super::super::gearbox::{self, GearError};
use super::super::options::{Fate, MoveOption};
use super::super::play;
use super::super::rulebook::{Die, QUALIFYING_ERROR_ROLLS, Tyres, overshoot_factor};
use super::super::state::{CarId, CarState, RaceState, Status};

/// Wear points a qualifying car carries so that no rule of the race ever prices a move of its
/// lap: PdV are not counted (1-0-1). Brakes are 0: "interdiction de freiner" (1-0-1).
const UNCOUNTED: u8 = 200;

/// Line crossings that end a lap: the first starts it (the car stands behind the line, 1-1-3),
/// the second ends it (1-1-8).
const CROSSINGS_TO_FINISH: u16 = 2;

/// Why a qualifying order cannot be carried out. It changes nothing.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum QualifyingError {
    /// The lap is over (completed or aborted).
    #[error("the timed lap of car {0} is over")]
    LapOver(u8),
    /// The gear cannot be engaged (6-1, 13-2; 1-2-1-4 "vitesse interdite").
    #[error("{0} (1-2-1-4)")]
    Gear(#[from] GearError),
    /// The option does not exist.
    #[error("there is no option {label}; choose one of A to {last}")]
    NoSuchOption {
        /// What was asked for.
        label: String,
        /// Last label.
        last: String,
    },
    /// The track has no space to start a lap from.
    #[error("track {0} has no space behind its finish line to start a timed lap from (1-1-3)")]
    NoStart(String),
}

/// How a lap ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum LapEnd {
    /// The car crossed the line (1-1-8).
    Completed,
    /// A 2-stop corner left without a stop or a 3-stop corner with fewer than two (1-1-14): the
    /// car is classed last for the session. Holds the corner's number.
    Aborted {
        /// The corner's number on the board.
        corner: u16,
    },
}

/// One move of the lap, as the referee's assistant notes it (1-1-10).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LapMove {
    /// Gear played.
    pub gear: u8,
    /// The gear die.
    pub roll: u8,
    /// Where the move started and ended.
    pub from: SpaceIdx,
    /// End space.
    pub to: SpaceIdx,
    /// Spaces moved (soft +1 and wet slide included).
    pub spaces: u8,
    /// Overshoot: corner number and spaces beyond it (10-0-1).
    pub overshoot: Option<(u16, u8)>,
    /// Penalty rolls of the overshoot: spaces × the tyres' factor (1-1-12, 8-5).
    pub penalty: u32,
    /// The soft-tyre +1 was used (8-2-1).
    pub bonus: bool,
}

/// What a lap scores: its "temps absolu" (0-0, 1-3-1) without the minutes, which do not exist by
/// mail (ruling 24).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LapResult {
    /// Car number.
    pub number: u8,
    /// Gear-die rolls made to cover the lap (1-1-10).
    pub rolls: u32,
    /// Penalty rolls for overshoots (1-1-12).
    pub overshoot: u32,
    /// Placement errors recorded by the referee, ten rolls each (1-1-11).
    pub errors: u32,
    /// `None` while the lap goes on; then completed or aborted.
    pub end: Option<LapEnd>,
}

impl LapResult {
    /// The absolute time in rolls: rolls + overshoot penalties + 10 per error (1-1-10 to
    /// 1-1-12); `None` for an aborted or unfinished lap (1-1-14).
    pub fn total(&self) -> Option<u32> {
        match self.end {
            Some(LapEnd::Completed) => Some(self.rolls + self.overshoot + self.errors * QUALIFYING_ERROR_ROLLS),
            _ => None,
        }
    }
}

/// A roll made during a lap and the moves it offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LapRoll {
    /// Gear engaged.
    pub gear: u8,
    /// Die result.
    pub roll: u8,
    /// The legal moves, farthest first (the engine's own list, [`play::move_options`]).
    pub options: Vec<MoveOption>,
    /// The same roll as the race engine's type, for deciders written for races (the bot).
    pub rolled: play::Rolled,
}

/// A timed lap in progress: the solo car and the notes of the lap.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lap {
    /// The one-car race state the driving code sees (1-1-3: the car alone on the track).
    pub state: RaceState,
    /// The moves so far.
    pub moves: Vec<LapMove>,
    /// The score so far.
    pub result: LapResult,
}

/// The solo car.
const SOLO: CarId = CarId(0);

/// Where a timed lap starts (1-1-3): the first full space of the centre lane behind the finish
/// line. A track with an even number of lanes has no centre lane: the lane of the pole slot
/// (ruling 22).
pub fn start_space(t: &Track) -> Option<SpaceIdx> {
    let lane = if t.lanes % 2 == 1 { Some(t.lanes / 2) } else { t.grid.first().map(|&g| t.space(g).lane) }?;
    t.indices()
        .filter(|&s| {
            let sp = t.space(s);
            !sp.in_pit_lane() && sp.corner.is_none() && sp.lane == lane
        })
        .max_by_key(|&s| t.space(s).progress)
}

impl Lap {
    /// A lap for car `number` on `tyres` (announced, 1-1-4), on a wet or dry track (the weather
    /// of the session, 1-0-3), the car on its start space with the lever in 1st (1-1-2, 1-1-3).
    pub fn new(t: &Track, number: u8, tyres: Tyres, wet: bool) -> Result<Lap, QualifyingError> {
        let start = start_space(t).ok_or_else(|| QualifyingError::NoStart(t.name.clone()))?;
        let wear = Wear {
            tyres: UNCOUNTED,
            brakes: 0,
            gas: UNCOUNTED,
            body: UNCOUNTED,
            engine: UNCOUNTED,
            handling: UNCOUNTED,
        };
        let mut car = CarState::on_grid(number, start, &Setup { wear, tyres }, 0, 0);
        car.status = Status::Racing;
        let state = RaceState::from_cars(vec![car], 1, wet);
        Ok(Lap { state, moves: Vec::new(), result: LapResult { number, rolls: 0, overshoot: 0, errors: 0, end: None } })
    }

    /// The car.
    pub fn car(&self) -> &CarState {
        self.state.car(SOLO)
    }

    /// True once the lap is completed or aborted.
    pub fn is_over(&self) -> bool {
        self.result.end.is_some()
    }

    /// The gears the driver may announce: the gearbox of 6-1 and 13-2, with no over-revving
    /// cost since PdV are not counted (1-0-1, ruling 23). The first move is in 1st (ruling 21).
    pub fn legal_gears(&self) -> Vec<u8> {
        (1..=6).filter(|&g| self.check_gear(g).is_ok()).collect()
    }

    fn check_gear(&self, gear: u8) -> Result<(), GearError> {
        let mut c = self.car().clone();
        c.wear.brakes = UNCOUNTED; // over-revving costs nothing here (1-0-1)
        gearbox::change(&c, gear).map(|_| ())
    }

    /// Announces `gear` and rolls its die (1-1-7): the roll counts (1-1-10).
    pub fn roll(&self, t: &Track, gear: u8, dice: &mut dyn Dice) -> Result<LapRoll, QualifyingError> {
        if self.is_over() {
            return Err(QualifyingError::LapOver(self.result.number));
        }
        self.check_gear(gear)?;
        let mut s = self.state.clone();
        s.to_play = Some(SOLO);
        s.car_mut(SOLO).gear = gear;
        let value = dice.roll(Die::Gear(gear), Some(SOLO), Purpose::Move);
        let options = play::move_options(t, &s, SOLO, value);
        let from = s.car(SOLO).space;
        let start_key = super::super::order::key(&s, t, SOLO);
        let rolled = play::Rolled {
            state: s,
            car: SOLO,
            from,
            start_key,
            gear,
            roll: value,
            options: options.clone(),
            events: Vec::new(),
        };
        Ok(LapRoll { gear, roll: value, options, rolled })
    }

    /// Plays option `choice` of `rolled`: the car moves, an overshoot adds its penalty rolls
    /// (1-1-12), a missed 2- or 3-stop corner aborts the lap (1-1-14), the second crossing of the
    /// line completes it (1-1-8). Returns the lap after the move.
    pub fn resolve(&self, t: &Track, rolled: &LapRoll, choice: usize) -> Result<Lap, QualifyingError> {
        if self.is_over() {
            return Err(QualifyingError::LapOver(self.result.number));
        }
        let Some(o) = rolled.options.get(choice) else {
            return Err(QualifyingError::NoSuchOption {
                label: MoveOption::label(choice),
                last: MoveOption::label(rolled.options.len().saturating_sub(1)),
            });
        };
        let mut lap = self.clone();
        lap.result.rolls += 1;
        let c = lap.state.car(SOLO).clone();
        // 1-1-12, 8-5 (qualifying column = a first tyre lap), 10-0-2: spaces × factor.
        let factor = overshoot_factor(c.tyres, lap.state.wet, 1) as u32;
        let overshoot = o.overshoot.map(|(k, n)| (t.corners[k.get()].number, n));
        let penalty = overshoot.map_or(0, |(_, n)| n as u32 * factor);
        lap.result.overshoot += penalty;
        lap.moves.push(LapMove {
            gear: rolled.gear,
            roll: rolled.roll,
            from: c.space,
            to: o.end,
            spaces: o.spaces,
            overshoot,
            penalty,
            bonus: o.bonus,
        });
        {
            let car = lap.state.car_mut(SOLO);
            car.gear = rolled.gear;
            car.space = o.end;
            car.stops = o.stops;
            car.moves += 1;
            car.crossings += o.crossings as u16;
        }
        if let Some(k) = o.missed {
            // 1-1-14 (10-1): the session is over, classed last.
            lap.result.end = Some(LapEnd::Aborted { corner: t.corners[k.get()].number });
        } else if matches!(o.fate, Fate::Eliminated(_)) {
            // Only a missed corner can eliminate a car whose wear is not counted; kept safe.
            lap.result.end = Some(LapEnd::Aborted { corner: 0 });
        } else if lap.state.car(SOLO).crossings >= CROSSINGS_TO_FINISH {
            lap.result.end = Some(LapEnd::Completed);
        }
        Ok(lap)
    }

    /// Records a placement error the referee saw (1-1-11): ten rolls. By mail the engine offers
    /// only legal moves, so errors come from a moderator (ruling 26).
    pub fn add_error(&mut self) {
        self.result.errors += 1;
    }
}

/// Who decides during a lap: a bot in simulations, a player's orders by mail.
pub trait LapDriver {
    /// The gear to announce, one of [`Lap::legal_gears`].
    fn gear(&mut self, t: &Track, lap: &Lap) -> u8;
    /// The option to play, an index into `rolled.options`.
    fn option(&mut self, t: &Track, lap: &Lap, rolled: &LapRoll) -> usize;
}

/// Most moves a lap may take before it is declared stuck (a bug): a lap is about 20.
pub const MAX_LAP_MOVES: usize = 400;

/// Plays a whole lap with `driver`'s decisions and `dice`. A decision the rules refuse is an
/// error (the lap so far is lost to the caller, which may ask again).
pub fn play_lap(
    t: &Track,
    mut lap: Lap,
    driver: &mut dyn LapDriver,
    dice: &mut dyn Dice,
) -> Result<Lap, QualifyingError> {
    while !lap.is_over() && lap.moves.len() < MAX_LAP_MOVES {
        let gear = driver.gear(t, &lap);
        let rolled = lap.roll(t, gear, dice)?;
        let choice = driver.option(t, &lap, &rolled);
        lap = lap.resolve(t, &rolled, choice)?;
    }
    Ok(lap)
}

/// The engine's bot as a qualifying driver: its plan for an empty track, one lap.
impl LapDriver for super::super::bot::Bot {
    fn gear(&mut self, t: &Track, lap: &Lap) -> u8 {
        let g = super::super::bot::Bot::gear(self, t, &lap.state, SOLO);
        let legal = lap.legal_gears();
        if legal.contains(&g) { g } else { legal.iter().copied().min_by_key(|&l| l.abs_diff(g)).unwrap_or(1) }
    }

    fn option(&mut self, t: &Track, _lap: &Lap, rolled: &LapRoll) -> usize {
        super::super::bot::Bot::option(self, t, &rolled.rolled)
    }
}
