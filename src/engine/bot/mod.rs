//! A bot policy: it drives a car whose player missed a deadline, and every car of a simulation.
//!
//! It drives like a careful human who has worked the track out beforehand: it reaches the stops
//! of every corner, keeps gas for the downshifts that need it, brakes to absorb a high roll,
//! overshoots only as a last resort, and otherwise goes as far as it safely can.
//!
//! **The plan (once per track and kind of race).** The bot solves the race for a lone car on
//! the empty track, backwards from the finish. For every *position* (a space, and the stops
//! already made in the corner it lies in), gear just used, gas point (0-3, more counts as 3),
//! brake point (0-5) and line crossing still needed, it computes the expected number of moves
//! the car still needs to finish, counting an elimination as [`ELIM`] moves, a tyre point as
//! [`TYRE`] (an overshoot costs the car's tyre factor per space, 10-0-2) and an engine point
//! as [`ENGINE`]. A move is: engage a gear the gearbox allows (up one; down one for free, or
//! skipping gears for gas, then brakes, then engine: 6-1-1, 13-1, 13-2), roll the gear's real
//! die (1st 1-2, 2nd 2-4, 3rd 4-8, 4th 7-12, 5th 11-20, 6th 21-30, not uniform), then take
//! the best length from the face down to the face less the brakes left (11-0-3) and the best
//! end of that length. The moves are the driving code's (7, 10-2): the bot's own search,
//! checked against the engine's in the tests, lists every end of every length from every
//! position with the stops it counts (7-1-1), the spaces it overshoots (10-0-1) and whether it
//! leaves a 2- or 3-stop corner two stops short (10-1). A plan serves one race length, with or
//! without other cars, and one tyre factor.
//!
//! The gear plan before multi-stop corners falls out of this: far from a corner the car keeps
//! a high gear; before the 3-stop Grand Hotel hairpin it comes down a gear a move on the
//! straight (a skipped gear costs gas, and the plan knows how few gas points are left), enters
//! in 3rd or 2nd deep enough that the lowest faces of the gears it can reach next still end
//! inside, and keeps brake points to absorb a high face. An overshoot is dearer than braking,
//! so tyres are the last resort.
//!
//! With other cars in the race the plan also charges for ending a move short of brake points
//! ([`RESERVE`]): a blocking is paid in brakes, and a car without them is eliminated (12-0-1,
//! 12-1-1). Without that reserve, cars that had spent their brakes on corners went out in
//! traffic.
//!
//! **The gear (each move).** The plan gives the best gear on an empty track; cars ahead only
//! take moves away, so the bot never goes higher. When no car stands where that gear's moves
//! could end and no corner is in reach, that is the gear. Otherwise the bot weighs, for each
//! gear up to it, every face of the die against the moves of that length with the car's *real*
//! wear: an overshoot costing more tyre points than the car has eliminates it, one taking the
//! last point spins it (10-4-1), and tyre points grow dearer as the set wears. Near other cars
//! the moves are the empty-track moves whose spaces the cars leave reachable; when that finds
//! the car blocked, or the car has a brake point or none (a blocking would eliminate it), the
//! bot searches the moves again around the cars (7-0-1, 7-2-3). Lengths beyond the longest are
//! blocked and pay the 12-0-1 table, or eliminate (12-1-1).
//!
//! **The option (after the roll).** Among the engine's options the bot takes the one with the
//! least expected cost: what it costs now (brake and tyre points, a spinout, a road-handling
//! test per dangerous space, 17-0-2, the last road-handling point counting as an elimination)
//! plus the plan's cost from where it leaves the car, with its gear and points.
//!
//! **Other cars' dice.** Ending beside or behind a car costs the expected body point of the test
//! it brings (14-1; the whole car with the last body point), and 5th or 6th gear costs the
//! expected engine point of the tests any car's 20 or 30 may bring (16-0-1; the whole car with
//! the last engine point), so the bot keeps its distance and changes down when its engine is
//! on its last point.
//!
//! **Stickers (17).** Every body or engine point lost leaves a dangerous space (17-0-1), and a
//! balanced car has one road-handling point: each dangerous space it enters is an elimination
//! on 1 to 4 of the black die (1 to 5 wet, 17-0-2). Most cars the bot lost went out that way,
//! on stickers left by contacts it could have avoided. So a failed body test is priced with the
//! sticker it leaves, for both cars of a contact ([`STICKER`]), in the option and in the gear:
//! the gear weighs, for every end, the cars it would touch, and, with dangerous spaces in
//! reach, a road-handling test for an end that cannot be reached without entering one (the
//! cars and the stickers as obstacles, 17-1). An engine point lost in 5th or 6th leaves a
//! sticker too ([`ENGINE_STICKER`]).
//!
//! **Cost.** The tables take some tens of milliseconds per track on first use (a bot keeps
//! them: keep one bot per track). A decision is then a few hundred table look-ups, plus, when
//! another car blocks the way, one move search, and with cars or stickers around, a pass over
//! the spaces they touch. A choice weighed on a clear road (no car, no car's neighbour, no
//! dangerous space in reach, a corner in reach) is kept by everything it read ([`Calm`]) and
//! given again when the same key comes back, as it does lap after lap.
//!
//! Pure and deterministic: no clock, no I/O, no randomness; ties go to the lower gear and to
//! the first option in the engine's (deterministic) order.

mod driver;
mod gear;
mod model;
mod option;
mod search;
mod stop;

use driver::Driver;
use model::{End, Model, Plan, PlanKey, cell};
use option::body_tests_cost;
use search::{Scratch, Search};
use stop::{pit_gear, wants_pit};

use rustc_hash::FxHashMap;

use crate::track::{SpaceIdx, SpaceKind, Track};

use super::car::Part;
use super::gearbox::{self, legal_gears};
use super::options::{Fate, MoveOption};
use super::pits::{self, PitOrder, PitStage, StopKind};
use super::play::Rolled;
use super::rulebook::{
    Die, MAX_SKIP, OVER_REV, TOP_GEAR, blocking_cost, collision_threshold, engine_threshold, handling_threshold,
    overshoot_factor,
};
use super::state::{CarId, CarState, RaceState};

/// Moves an elimination is worth: a careful driver gives up a lot of time to finish.
pub const ELIM: f32 = 500.0;
/// Moves a tyre point is worth in the plan (the car's real tyres are weighed on the next move).
pub const TYRE: f32 = 2.0;
/// Moves an engine point is worth (skipping three gears, 13-1).
pub const ENGINE: f32 = 12.0;
/// Moves a brake point is worth beyond what the plan sees (brakes also pay for blockings).
const BRAKE: f32 = 0.3;
/// Moves a spinout costs besides the restart in 1st (the rest of the round, 10-4).
const SPIN: f32 = 3.0;
/// Moves a lost road-handling point costs while more than one is left.
const HANDLING: f32 = 10.0;
/// Cost of a body point lost in a collision, in moves (a car has only a few; each also leaves a
/// dangerous space behind, 14-1).
const BODY: f32 = 12.0;
/// With other cars on the track, what ending a move with 0, 1, 2... brake points costs: a
/// blocking is paid in brake points and eliminates a car that cannot pay (12-0-1, 12-1-1).
const RESERVE: [f32; NB] = [4.0, 1.5, 0.5, 0.0, 0.0, 0.0];
/// Moves a dangerous space left on the track costs (17-0-1): it lies in the path of the cars
/// behind and of the car itself on the laps left, where a car with one road-handling point (a
/// balanced car) is eliminated on 1 test in 5 (1 in 4 wet, 17-0-2), and on a two-lane track two
/// of them block a row. Priced this high, the bot keeps away from the other cars: a contact in
/// the wet (a body test each, 1 in 10 to fail, 14-1) costs about 60 moves, in the dry 30.
const STICKER: f32 = 300.0;
/// What the sticker of an engine point lost in 5th or 6th adds to that point (16-0-1, 17-0-1).
/// Far less than [`STICKER`]: keeping off 5th and 6th costs speed on every move, where keeping
/// away from a car costs little. 6 halves the oval's eliminations for 2 rounds more a race; 15
/// left 1 car in 1,000 out for 5 rounds more.
const ENGINE_STICKER: f32 = 6.0;
/// In the plan, an overshoot costing this many tyre points is an elimination (it would eat
/// most of a set: a balanced car carries 6).
const OVER_OUT: u8 = 5;

/// The longest move (the top face of 6th).
const REACH: usize = 30;
/// Lengths 0..=REACH.
const KS: usize = REACH + 1;
/// Gears just used: 0 (standing) to 6.
const NG: usize = TOP_GEAR as usize + 1;
/// Gas points the plan tells apart (0..=3; more counts as 3).
const NA: usize = 4;
/// Brake points the plan tells apart (0..=5; more counts as 5).
const NB: usize = 6;
/// Plan cells per position and lap: gear × gas × brakes.
const CELLS: usize = NG * NA * NB;

const NONE8: u8 = u8::MAX;
const NONE16: u16 = u16::MAX;

/// [`Bot::marks`]: another car stands on the space.
const CAR: u8 = 1;
/// [`Bot::marks`]: a move ending on the space touches another car (14-1).
const TOUCH: u8 = 2;
/// [`Bot::marks`]: a dangerous space (17-0-1).
const STICKER_ON: u8 = 4;

/// Where a gear's plan cells lie ([`Driver::cells_of`]).
struct Cells<'a> {
    cost: &'a [f32],
    /// Line crossings still needed.
    r: usize,
    /// Cells from one count of crossings needed to the next.
    lap: usize,
    /// Where position 0's cells begin, with no crossing on the move, in the gear and spun.
    gear: usize,
    spun: usize,
}

impl Cells<'_> {
    /// [`Driver::cells`] of ending at `node` after `cross` crossings, in the gear (or in
    /// neutral, `spun`).
    #[inline]
    fn at(&self, node: u32, cross: u8, spun: bool) -> Option<&[f32; NB]> {
        if cross as usize >= self.r {
            return None;
        }
        let i = if spun { self.spun } else { self.gear } - cross as usize * self.lap + node as usize * NB;
        Some(self.cost[i..i + NB].try_into().expect("NB cells"))
    }
}

/// A bot with its tables for one track. Cheap to create; keep one to reuse its tables (they
/// are rebuilt when it meets another track).
#[derive(Clone, Debug, Default)]
pub struct Bot {
    model: Option<Model>,
    /// Buffers reused from one decision to the next.
    scratch: Scratch,
    occupied: Vec<bool>,
    /// Body tests a move ending on each space brings (14-1), for the cars around.
    zone: Vec<u8>,
    /// What each space holds for the move weighed, a bit each: [`CAR`], [`TOUCH`], [`STICKER_ON`].
    marks: Vec<u8>,
    /// Bit k: the space is reached in k spaces without entering a dangerous space or a car.
    clean: Vec<u32>,
    frontier: Vec<SpaceIdx>,
    reached: Vec<u32>,
    local: Vec<Vec<End>>,
    /// The cost of each (length, brake points used) of the gear being weighed (the plain loop).
    rows: Vec<f32>,
    /// The same as minima by brake points left, a row of [`NB`] per length, and whether an
    /// end of that length misses a corner (what the gear choice reads).
    lanes: Vec<([f32; NB], bool)>,
    /// The car on each space (`NONE8` for none), for the contacts of the options.
    car_at: Vec<u8>,
    /// Every car's rows by the plain loop, a cost per (length, brake points used) worked out
    /// end by end: the unit tests check the two ways give the same choices.
    plain_rows: bool,
    /// The gears chosen where no car, no car's neighbour and no dangerous space lies in reach
    /// but a corner does (see [`Calm`]), at most [`CALM_KEPT`] (then forgotten at once).
    calm: FxHashMap<Calm, u8>,
    /// Choices [`Bot::calm`] answered.
    calm_hits: usize,
}

/// Everything a gear choice reads when no car, no space beside or behind one and no dangerous
/// space lies among the ends in reach ([`Bot::gear`]): the weighing then reads only the
/// empty track's moves from the position, the car's gear and wear, the plan and the count of
/// fast cars, so the same key makes the same choice. Such choices (a corner in reach on a clear
/// road) recur from lap to lap and race to race, a third of the weighings of a 10-car race,
/// about half of them already made.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
struct Calm {
    /// The position in the bot's model.
    p: u32,
    gear: u8,
    tyres: u8,
    brakes: u8,
    gas: u8,
    engine: u8,
    /// Line crossings still needed.
    r: u32,
    /// Other cars in 5th or 6th (16-0-1).
    fast: u32,
    wet: bool,
    /// The plan, which holds the tyres' overshoot factor too (10-0-2).
    plan: PlanKey,
}

/// The most calm choices a bot keeps ([`Bot::calm`], some 40 bytes each).
const CALM_KEPT: usize = 1 << 16;

impl Bot {
    /// A new bot.
    pub fn new() -> Self {
        Bot::default()
    }

    /// A bot that weighs every gear choice afresh, end by end (no calm choice kept, the plain
    /// loop rather than the rows side by side): slower, and the same choices as [`Bot::new`]'s,
    /// which the tests check by playing both.
    pub fn afresh() -> Self {
        Bot { plain_rows: true, ..Bot::default() }
    }

    /// The calm gear choices this bot keeps, and how many choices it has given from them.
    pub fn calm_choices(&self) -> (usize, usize) {
        (self.calm.len(), self.calm_hits)
    }

    fn model(&mut self, t: &Track) -> &mut Model {
        if self.model.as_ref().is_none_or(|m| !m.describes(t)) {
            self.model = Some(Model::new(t));
            self.calm.clear(); // its positions were the old model's
        }
        self.model.as_mut().expect("just built")
    }

    /// The most spaces `car` can move from its space, on an empty track, without overshooting.
    pub fn runway(&mut self, t: &Track, car: &CarState) -> u8 {
        let m = self.model(t);
        let Some(p) = m.position(t, car.space, car.stops) else { return 0 };
        (0..KS).rev().find(|&k| m.moves(p, k).iter().any(|e| e.over == 0 && !e.missed)).unwrap_or(0) as u8
    }
}

/// Line crossings `car` still needs to finish a race of `laps` laps (the first starts lap 1).
fn remaining(laps: u16, car: &CarState) -> usize {
    (laps as usize + 1).saturating_sub(car.crossings as usize).max(1)
}

/// The tyres the bot fits before a race: rain tyres on a wet track, hard ones on a dry track (8:
/// soft tyres pay double on every overshoot for one lap of +1).
pub fn tyres_for(wet: bool) -> super::rulebook::Tyres {
    if wet { super::rulebook::Tyres::Rain } else { super::rulebook::Tyres::Hard }
}

#[cfg(test)]
mod tests;
