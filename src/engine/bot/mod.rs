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

mod model;
mod search;

use model::{End, Model, Plan, PlanKey, cell};
use search::{Scratch, Search};

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

/// What the bot knows about the car it drives on this move.
struct Driver<'a> {
    model: &'a Model,
    plan: &'a Plan,
    /// Line crossings still needed to finish.
    r: usize,
    car: &'a CarState,
    wet: bool,
}

impl Driver<'_> {
    /// The plan's cost of ending at `e`'s position in gear `g` with `gas` and `brakes`.
    fn after(&self, node: u32, cross: u8, g: u8, gas: u8, brakes: u8) -> f32 {
        if cross as usize >= self.r {
            return 0.0;
        }
        self.plan.cost[self.cost_at(self.r - cross as usize, node, g, gas) + (brakes as usize).min(NB - 1)]
    }

    /// The plan's costs of ending at `node` in gear `g` with `gas`, for 0 to `NB - 1` brake
    /// points ([`Driver::after`] for each), or `None` when the crossings finish the race (0).
    /// The plain loop of the gear choice reads them here; the vector rows read the same cells
    /// through [`Driver::cells_of`], whose index is worked out another way, and a unit test
    /// checks both choose alike.
    fn cells(&self, node: u32, cross: u8, g: u8, gas: u8) -> Option<&[f32]> {
        if cross as usize >= self.r {
            return None;
        }
        let i = self.cost_at(self.r - cross as usize, node, g, gas);
        Some(&self.plan.cost[i..i + NB])
    }

    /// [`Driver::cells`] for every end of a move in gear `g` with `gas` or, spun, in neutral:
    /// where the cells of a position lie, worked out once for all the move's ends (the same
    /// index as [`Driver::cost_at`], with the gear and gas set aside).
    fn cells_of(&self, g: u8, gas: u8) -> Cells<'_> {
        let positions = self.model.space_of.len();
        Cells {
            cost: &self.plan.cost,
            r: self.r,
            // From one line crossing needed to the next, a whole (gear, gas) table further.
            lap: NG * NA * positions * NB,
            gear: self.cost_at(self.r, 0, g, gas),
            spun: self.cost_at(self.r, 0, 0, gas),
        }
    }

    /// What ending this move with `brakes` brake points costs (see [`Plan::reserve`]).
    fn reserve(&self, brakes: u8) -> f32 {
        self.plan.reserve[(brakes as usize).min(NB - 1)]
    }

    /// Where the costs of ending at `node` in gear `g` with `gas` begin in the plan's `cost`
    /// (0 brake points; the others follow).
    fn cost_at(&self, r: usize, node: u32, g: u8, gas: u8) -> usize {
        model::cost_at(self.model.space_of.len(), r, node, g as usize, (gas as usize).min(NA - 1), 0)
    }

    /// The index of (`r`, `node`, gear, gas, brakes) in the plan's `gear`.
    fn at(&self, r: usize, node: u32, g: u8, gas: u8, brakes: u8) -> usize {
        let positions = self.model.space_of.len();
        ((r - 1) * positions + node as usize) * CELLS
            + cell(g as usize, (gas as usize).min(NA - 1), (brakes as usize).min(NB - 1))
    }

    /// What losing `points` tyre points costs the car now (10-3, 10-4-1), and whether it spins.
    fn tyres(&self, points: u8) -> (f32, bool) {
        if points == 0 {
            return (0.0, false);
        }
        let have = self.car.wear.tyres.max(1);
        if points > have {
            (ELIM, false)
        } else if points == have {
            (SPIN + TYRE * points as f32, true)
        } else {
            // Dearer as the set wears: the last point spins the car.
            let left = (have - points) as f32;
            (points as f32 * (TYRE + 4.0 / left), false)
        }
    }

    /// Expected cost of the handling tests on `n` dangerous spaces (17-0-2, 17-0-3).
    fn handling(&self, n: usize) -> f32 {
        let p = handling_threshold(self.wet) as f32 / 20.0;
        let h = self.car.wear.handling as usize;
        (0..n).map(|i| p * if h <= i + 1 { ELIM } else { HANDLING }).sum()
    }
}

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

    /// The plan's expected cost (in moves) for `car` in `state` if it had just used gear
    /// `gear`: what the gear choice minimises. `None` off the racing track.
    pub fn expected_moves(&mut self, t: &Track, state: &RaceState, car: CarId, gear: u8) -> Option<f32> {
        let c = state.car(car);
        let m = self.model(t);
        let p = m.position(t, c.space, c.stops)?;
        let laps = state.laps;
        let key = PlanKey::of(state, car);
        m.plan(key);
        let m = self.model.as_ref()?;
        let d = Driver { model: m, plan: &m.plans[&key], r: remaining(laps, c), car: c, wet: state.wet };
        Some(d.after(p, 0, gear, c.wear.gas, c.wear.brakes))
    }

    /// The gear the bot engages for `car`; a car in inertia plays the gear the rule gives it.
    pub fn gear(&mut self, t: &Track, state: &RaceState, car: CarId) -> u8 {
        let c = state.car(car);
        if state.in_inertia(car) {
            return crate::engine::inertia::default_gear(c); // 16-0-3, 16-0-6
        }
        if c.pit.stage != PitStage::Out {
            return pit_gear(t, state, car);
        }
        let gears = legal_gears(c);
        let fallback = gears.iter().copied().find(|&g| g + 1 >= c.gear).unwrap_or(1);
        if gears.len() <= 1 {
            return fallback;
        }
        let m = self.model(t);
        let Some(p) = m.position(t, c.space, c.stops) else { return fallback };
        let key = PlanKey::of(state, car);
        m.plan(key);
        let Bot {
            model,
            scratch,
            occupied,
            zone,
            marks,
            clean,
            frontier,
            reached,
            local,
            rows,
            lanes,
            plain_rows,
            calm,
            ..
        } = self;
        let m = model.as_ref().expect("built");
        let d = Driver { model: m, plan: &m.plans[&key], r: remaining(state.laps, c), car: c, wet: state.wet };

        // The plan's gear for the empty track. Cars ahead only take moves away (and a scarce
        // set of tyres only makes overshooting dearer), so the gear the bot engages is never
        // higher.
        let gas = c.wear.gas;
        let brakes = c.wear.brakes;
        // In 5th or 6th the car takes an engine test whenever any car in 5th or 6th rolls a 20 or
        // a 30 (16-0-1, 16-0-2): about one chance in ten per such car and round. With its last
        // engine point that risk is an elimination (16-0-3).
        let fast =
            state.cars.iter().enumerate().filter(|(i, o)| *i != car.get() && o.status.plays() && o.gear >= 5).count();
        let fail = engine_threshold(state.wet) as f32 / 20.0;
        // A lost engine point also leaves a sticker under the car (17-0-1).
        let point = if c.wear.engine <= 1 { ELIM } else { ENGINE + ENGINE_STICKER };
        let exposure = |g: u8| -> f32 { if g >= 5 { (fast + 1) as f32 * 0.1 * fail * point } else { 0.0 } };
        let planned = |g: u8| -> f32 {
            let Ok(change) = gearbox::change(c, g) else { return f32::INFINITY };
            if change.engine > 0 && c.wear.engine <= change.engine {
                return f32::INFINITY; // 13-1, 16-0-3: the last engine point is an elimination.
            }
            let i = d.at(d.r, p, g, gas - change.gas, brakes - change.brakes);
            d.plan.gear[i] + ENGINE * change.engine as f32 + exposure(g)
        };
        // The first gear of least planned cost (as `min_by` of `total_cmp` would choose), each
        // gear's cost worked out once.
        let mut top: Option<(f32, u8)> = None;
        for &g in &gears {
            let v = planned(g);
            if top.is_none_or(|(best, _)| v.total_cmp(&best).is_lt()) {
                top = Some((v, g));
            }
        }
        let top = top.map_or(fallback, |(_, g)| g);
        let depth = Die::Gear(top).range().1 as usize;

        // Traffic. Every space a move passes through ends a shorter move, so when no other car
        // stands where the empty-track moves end, those are the real moves; otherwise the bot
        // searches again around the cars (7-0-1, 7-2-3), and beyond the longest move the car is
        // blocked (12-0-1).
        occupied.clear();
        occupied.resize(t.spaces.len(), false);
        marks.clear();
        marks.resize(t.spaces.len(), 0);
        for (i, o) in state.cars.iter().enumerate() {
            if i != car.get() && o.status.on_board() {
                occupied[o.space.get()] = true;
                marks[o.space.get()] |= CAR;
            }
        }
        // Where a move would end touching another car (beside it or right behind it, 14-1):
        // a body test for each car, and one for the car touched.
        zone.clear();
        zone.resize(t.spaces.len(), 0);
        for (i, o) in state.cars.iter().enumerate() {
            if i != car.get() && o.status.on_board() {
                for &x in m.touching(o.space) {
                    zone[x.get()] = zone[x.get()].saturating_add(1);
                    marks[x.get()] |= TOUCH;
                }
            }
        }
        // Dangerous spaces (17-0-1).
        for &x in &state.dangerous {
            marks[x.get()] |= STICKER_ON;
        }
        // One pass over the ends in reach: a car on one (`near`), one beside a car (`touchy`), a
        // dangerous space on one (`risky`).
        let seen = m.moves_up_to(p, depth).iter().fold(0, |seen, e| seen | marks[m.space_of[e.node as usize].get()]);
        let (near, touchy, risky) = (seen & CAR != 0, seen & TOUCH != 0, seen & STICKER_ON != 0);
        if !near && !touchy && !risky && depth <= m.calm[p as usize] as usize {
            return top; // nothing in the way, no corner to overshoot: the plan's gear
        }
        // The plan's key holds the overshoot factor of the car's tyres (10-0-2, 8-5).
        let factor = key.factor;
        // A clear road with a corner in reach: the choice made before from the same key.
        let calm_key = (!near && !touchy && !risky && !*plain_rows).then_some(Calm {
            p,
            gear: c.gear,
            tyres: c.wear.tyres,
            brakes,
            gas,
            engine: c.wear.engine,
            r: d.r as u32,
            fast: fast as u32,
            wet: state.wet,
            plan: key,
        });
        if let Some(g) = calm_key.and_then(|k| calm.get(&k)) {
            self.calm_hits += 1;
            return *g;
        }
        // With dangerous spaces in reach, the lengths that reach each space without entering
        // one (or a car): ends beyond cost a road-handling test (17-0-2; 17-1: the cars go
        // round them when they can).
        if risky {
            clean.clear();
            clean.resize(t.spaces.len(), 0);
            clean[c.space.get()] = 1;
            frontier.clear();
            frontier.push(c.space);
            let mut next_frontier = Vec::new();
            for k in 1..=depth {
                next_frontier.clear();
                for &y in frontier.iter() {
                    for &x in t.next(y) {
                        if t.space(x).in_pit_lane() || occupied[x.get()] || marks[x.get()] & STICKER_ON != 0 {
                            continue;
                        }
                        if clean[x.get()] & (1 << k) == 0 {
                            clean[x.get()] |= 1 << k;
                            next_frontier.push(x);
                        }
                    }
                }
                std::mem::swap(frontier, &mut next_frontier);
                if frontier.is_empty() {
                    break;
                }
            }
        }
        let zone = &*zone;
        let clean = &*clean;
        let sticker_test = d.handling(1);
        // What ending a move of `k` spaces at `e` costs beyond the plan: the body tests of the
        // cars it touches, and a road-handling test if it must cross a dangerous space.
        let around = |e: &End, k: usize| -> f32 {
            let x = m.space_of[e.node as usize].get();
            let mut v = body_tests_cost(state, car, zone[x] as usize);
            if risky && clean[x] & (1 << k) == 0 {
                v += sticker_test;
            }
            v
        };
        let mut longest = REACH;
        if near {
            local.resize_with(KS, Vec::new);
            local.iter_mut().for_each(Vec::clear);
            // First the empty-track moves the cars leave: an end whose space holds no car and
            // follows a space reached one length shorter (bit k of `reached`: reached in k).
            reached.clear();
            reached.resize(t.spaces.len(), 0);
            reached[c.space.get()] = 1;
            local[0].extend_from_slice(m.moves(p, 0));
            longest = 0;
            for (k, here) in local.iter_mut().enumerate().take(depth + 1).skip(1) {
                for e in m.moves(p, k) {
                    let x = m.space_of[e.node as usize];
                    if occupied[x.get()] {
                        continue;
                    }
                    if reached[x.get()] & (1 << k) != 0
                        || t.prev(x).iter().any(|y| reached[y.get()] & (1 << (k - 1)) != 0)
                    {
                        reached[x.get()] |= 1 << k;
                        here.push(*e);
                    }
                }
                if here.is_empty() {
                    break;
                }
                longest = k;
            }
            if longest < depth || c.wear.brakes <= 1 {
                // Blocked that way: the driving code may still find a way round the cars (a
                // shortest path counts them as obstacles, 7-2-3), so search again; and search
                // anyway when the car has a brake point or none, as a blocking would then
                // eliminate it (12-1-1) and the shortcut above can, rarely, see a way through
                // where there is none.
                local.iter_mut().for_each(Vec::clear);
                Search::new(t, occupied, scratch)
                    .run(c.space, c.stops, depth, |st| local[st.k as usize].push(m.end_of(t, st)));
                for v in local.iter_mut() {
                    v.sort_unstable();
                    v.dedup();
                }
                longest = local.iter().rposition(|v| !v.is_empty()).unwrap_or(0);
            }
        }
        let local = &*local;
        let ends = |k: usize| -> &[End] { if near { &local[k] } else { m.moves(p, k) } };

        let mut best = (f32::INFINITY, top);
        for g in gears.into_iter().filter(|&g| g <= top) {
            let Ok(change) = gearbox::change(c, g) else { continue };
            if change.engine > 0 && c.wear.engine <= change.engine {
                continue; // 13-1, 16-0-3: the last engine point is an elimination.
            }
            let gas = c.wear.gas - change.gas;
            let brakes = c.wear.brakes - change.brakes;
            // The end of a `k`-space move after `used` brake points, at its cheapest.
            let end = |k: usize, used: u8, tyres: u8| -> f32 {
                let mut v = f32::INFINITY;
                for e in ends(k) {
                    if e.missed {
                        v = v.min(ELIM);
                        continue;
                    }
                    let (now, spin) = d.tyres(e.over * factor + tyres);
                    let left = brakes - used;
                    let then = d.after(e.node, e.cross, if spin { 0 } else { g }, gas, left);
                    v = v.min(now + around(e, k) + then + BRAKE * used as f32 + d.reserve(left));
                }
                v
            };
            // `end(k, used, 0)` for every length a face of this gear can make and every brake
            // count, in one pass over each length's ends: an end's tyre cost is worked out once
            // and its plan costs for every brake count lie side by side (same values as `end`).
            let faces = &m.faces[g as usize];
            let (lo, hi) = match (faces.first(), faces.last()) {
                (Some(&(a, _)), Some(&(b, _))) => {
                    ((a as usize).saturating_sub(brakes as usize), (b as usize).min(longest))
                }
                _ => (1, 0),
            };
            let width = brakes as usize + 1;
            let vector = !*plain_rows;
            let lengths = hi.saturating_sub(lo).saturating_add(1);
            if vector {
                // The cheapest end of each length by brake points left (0 to `NB - 1`; more
                // read `NB - 1`'s: the plan tells no more apart): the end's own cost and its
                // plan cell, side by side in a fixed row the compiler keeps in vector
                // registers. What the brake points used cost (`BRAKE` each, and the reserve
                // left) is the same for every end of a length, so `cost` adds it to the
                // minimum when it reads one: a rounded sum never reorders two costs (it is
                // monotonic), so each cost is `end`'s to the bit. An end that misses a corner
                // costs `ELIM` whatever the brakes (the row's flag).
                lanes.clear();
                lanes.resize(lengths, ([f32::INFINITY; NB], false));
                let cells = d.cells_of(g, gas);
                for k in lo..=hi {
                    let (row, missed) = &mut lanes[k - lo];
                    for e in ends(k) {
                        if e.missed {
                            *missed = true;
                            continue;
                        }
                        let (now, spin) = d.tyres(e.over * factor);
                        let now = now + around(e, k);
                        // `d.after(e.node, e.cross, if spin { 0 } else { g }, gas, left)` for
                        // every `left` (none once the race is over: 0).
                        let then = cells.at(e.node, e.cross, spin).copied().unwrap_or([0.0; NB]);
                        for left in 0..NB {
                            let x = now + then[left];
                            row[left] = if x < row[left] { x } else { row[left] };
                        }
                    }
                }
            } else {
                rows.clear();
                rows.resize(lengths * width, f32::INFINITY);
                for k in lo..=hi {
                    let row = &mut rows[(k - lo) * width..(k - lo + 1) * width];
                    for e in ends(k) {
                        if e.missed {
                            row.iter_mut().for_each(|v| *v = v.min(ELIM));
                            continue;
                        }
                        let (now, spin) = d.tyres(e.over * factor);
                        let now = now + around(e, k);
                        let gear_then = if spin { 0 } else { g };
                        let cells = d.cells(e.node, e.cross, gear_then, gas);
                        for (used, v) in row.iter_mut().enumerate() {
                            let left = brakes - used as u8;
                            let then = cells.map_or(0.0, |c| c[(left as usize).min(NB - 1)]);
                            *v = v.min(now + then + BRAKE * used as f32 + d.reserve(left));
                        }
                    }
                }
            }
            let (lanes, rows) = (&*lanes, &*rows);
            let cost = |k: usize, used: usize| {
                if vector {
                    let (row, missed) = &lanes[k - lo];
                    let left = brakes - used as u8;
                    let v = row[(left as usize).min(NB - 1)] + BRAKE * used as f32 + d.reserve(left);
                    if *missed && ELIM < v { ELIM } else { v }
                } else {
                    rows[(k - lo) * width + used]
                }
            };
            let mut total = ENGINE * change.engine as f32 + exposure(g);
            for &(f, prob) in faces {
                let f = f as usize;
                let mut v = f32::INFINITY;
                for k in f.saturating_sub(brakes as usize)..=f.min(longest) {
                    v = v.min(cost(k, f - k));
                }
                if f > longest {
                    let short = (f - longest) as u8;
                    for used in 0..short.min(brakes + 1) {
                        match blocking_cost(short - used) {
                            Some((bb, bt)) if used + bb <= brakes => v = v.min(end(longest, used + bb, bt)),
                            _ => v = v.min(ELIM),
                        }
                    }
                }
                total += prob * if v.is_finite() { v } else { ELIM };
            }
            if total < best.0 {
                best = (total, g);
            }
        }
        if let Some(k) = calm_key {
            if calm.len() >= CALM_KEPT {
                calm.clear();
            }
            calm.insert(k, best.1);
        }
        best.1
    }

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

/// True when the car is worn enough to stop at its pit (19): tyres down to a third of its sheet,
/// or a part the pit points can repair down to its last point.
fn wants_pit(c: &CarState) -> bool {
    let tyres_low = c.wear.tyres * 3 <= c.pit.sheet.tyres;
    let repairable = c.pit_points > 0
        && [Part::Brakes, Part::Body, Part::Engine].iter().any(|&p| c.wear.get(p) <= 1 && c.pit.sheet.get(p) > 1);
    tyres_low || repairable
}

/// The gear of a car in the pit lane (19-1-8, 19-1-9, 19-3-4, 19-4-2): the highest the rules
/// allow, 4th at most (the lane is short and a corner may follow its exit).
fn pit_gear(t: &Track, state: &RaceState, car: CarId) -> u8 {
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
    pub fn pit_order_for(&self, state: &RaceState, car: CarId, rules: &super::Rulebook) -> PitOrder {
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

/// What option `o` costs the car: now, and in the plan from where it leaves the car.
fn option_cost(t: &Track, d: &Driver<'_>, o: &MoveOption) -> f32 {
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
fn contact_cost(t: &Track, s: &RaceState, car_at: &[u8], me: CarId, end: SpaceIdx) -> f32 {
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
fn wall_cost(s: &RaceState, me: CarId, entries: u8) -> f32 {
    body_tests_cost(s, me, entries as usize)
}

/// Expected cost of `tests` body tests (14-1): each fails with the collision threshold's
/// chance and costs a body point, the last one the car (20-3).
fn body_tests_cost(s: &RaceState, me: CarId, tests: usize) -> f32 {
    if tests == 0 {
        return 0.0;
    }
    let p = collision_threshold(s.wet, false) as f32 / 20.0;
    let point = if s.car(me).wear.body <= 1 { ELIM } else { BODY };
    // The car touched takes a test too (14-1): each failed test leaves a sticker (17-0-1).
    tests as f32 * p * (point + 2.0 * STICKER)
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
mod tests {
    use super::*;
    use crate::engine::movement::{Board, Mover, reaches};
    use crate::track::load::{resolve, shipped_names};

    /// The gear's cost rows worked out side by side (a row of brake points left per length,
    /// what brakes used cost added when read) choose what the plain loop chooses: for cars
    /// with 1 to 7 brake points, from every 3rd space of sprint, alone and in traffic.
    #[test]
    fn the_gears_vector_rows_choose_as_the_plain_loop() {
        let t = resolve("sprint").unwrap();
        let (mut vector, mut plain) = (Bot::new(), Bot::afresh());
        let mut compared = 0;
        for brakes in [1u8, 3, 7] {
            // The 20 points all placed (5-0-2): the tyres take what the brakes give up.
            let mut wear = crate::engine::Wear::standard();
            wear.tyres = wear.tyres + wear.brakes - brakes;
            wear.brakes = brakes;
            let setup = crate::engine::Setup { wear, tyres: crate::engine::Tyres::Hard };
            for cars in [1usize, 4] {
                let field: Vec<(u8, crate::engine::Setup)> = (1..=cars as u8).map(|n| (n, setup)).collect();
                let mut s = RaceState::new(&t, 3, &field).unwrap();
                for (i, c) in s.cars.iter_mut().enumerate() {
                    c.status = crate::engine::Status::Racing;
                    c.crossings = 1;
                    c.gear = 1 + (i as u8 % 4);
                }
                for sp in (0..t.spaces.len()).step_by(3) {
                    let space = SpaceIdx(sp as u16);
                    if !matches!(t.space(space).kind, SpaceKind::Racing) {
                        continue;
                    }
                    s.cars[0].space = space;
                    // The others a few spaces ahead, where there is room.
                    for i in 1..cars {
                        let ahead = t.next(s.cars[i - 1].space).first().copied().unwrap_or(space);
                        s.cars[i].space = ahead;
                    }
                    s.to_play = Some(CarId(0));
                    assert_eq!(
                        vector.gear(&t, &s, CarId(0)),
                        plain.gear(&t, &s, CarId(0)),
                        "{brakes} brake points, {cars} car(s), on {}",
                        t.space(space).id
                    );
                    compared += 1;
                }
            }
        }
        assert!(compared > 300, "{compared} positions compared");
    }

    /// The bot's own search lists exactly the engine's ends (space, stops, overshoot, missed
    /// corner, crossings) for every length, from every position of every shipped track (from
    /// every 7th position but on sprint in a debug build, where the engine's search is slow).
    #[test]
    fn the_bots_move_search_is_the_engines_driving_code() {
        for name in shipped_names() {
            let t = resolve(&name).unwrap();
            let m = Model::new(&t);
            let empty = vec![false; t.spaces.len()];
            let board = Board { track: &t, occupied: &empty, dangerous: &[], pit_open: false, walls: false };
            let stride = if cfg!(debug_assertions) && name != "sprint" { 7 } else { 1 };
            for p in (0..m.space_of.len() as u32).step_by(stride) {
                let space = m.space_of[p as usize];
                let stops = t.space(space).corner.map(|c| (c, m.stops_of(p)));
                let r = reaches(&board, &Mover { start: space, stops, max: REACH as u8, min: 0 });
                for k in 0..KS {
                    let mut want: Vec<End> = r
                        .at(k as u8)
                        .iter()
                        .map(|x| End {
                            node: m.position(&t, x.end(), x.stops(&t)).unwrap(),
                            over: x.overshoot().map_or(0, |(_, n)| n),
                            cross: x.crossings(),
                            missed: x.missed().is_some(),
                        })
                        .collect();
                    want.sort_unstable();
                    want.dedup();
                    assert_eq!(m.moves(p, k), &want[..], "{name}: from {} ({stops:?}), {k} spaces", t.space(space).id);
                }
            }
        }
    }

    /// The model's tables for the gear choice say what working them out on the spot says: the
    /// spaces touching a car (14-1: the racing spaces beside it and behind it, not ahead, each
    /// once), and the ends of every move up to a length (each length's, in one slice).
    #[test]
    fn the_models_touch_and_reach_tables_are_the_tracks() {
        for name in shipped_names() {
            let t = resolve(&name).unwrap();
            let m = Model::new(&t);
            let racing = |x: SpaceIdx| t.space(x).kind == SpaceKind::Racing;
            let mut touching = 0;
            for y in t.indices() {
                let mut want: Vec<SpaceIdx> = Vec::new();
                if racing(y) {
                    for &x in t.beside(y).iter().chain(t.prev(y)) {
                        if racing(x) && !t.next(y).contains(&x) && !want.contains(&x) {
                            want.push(x);
                        }
                    }
                }
                let mut got = m.touching(y).to_vec();
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "{name}: a car on {}", t.space(y).id);
                touching += usize::from(!got.is_empty());
            }
            assert!(touching * 2 > t.racing_spaces(), "{name}: {touching} spaces with neighbours");
            for p in 0..m.space_of.len() as u32 {
                for k in [0, 1, 12, REACH, REACH + 5] {
                    let want: Vec<End> = (1..=k.min(REACH)).flat_map(|j| m.moves(p, j).iter().copied()).collect();
                    assert_eq!(m.moves_up_to(p, k), &want[..], "{name}: position {p}, up to {k}");
                }
            }
        }
    }

    /// A solved plan's costs, laid out gear by gear, are the costs solving worked out in its
    /// layout, each at its place: every index of one layout maps to one of the other.
    #[test]
    fn the_plan_costs_by_gear_are_a_permutation() {
        let positions = 7;
        let rs = 3;
        let solved: Vec<f32> = (0..rs * positions * CELLS).map(|i| i as f32).collect();
        let laid = model::by_gear(&solved, positions);
        assert_eq!(laid.len(), solved.len());
        let mut hit = vec![false; laid.len()];
        for r in 1..=rs {
            for p in 0..positions as u32 {
                for g in 0..NG {
                    for a in 0..NA {
                        for b in 0..NB {
                            let at = model::cost_at(positions, r, p, g, a, b);
                            let was = ((r - 1) * positions + p as usize) * CELLS + cell(g, a, b);
                            assert_eq!(laid[at], solved[was], "r {r}, position {p}, gear {g}, gas {a}, brakes {b}");
                            assert!(!hit[at], "two cells at {at}");
                            hit[at] = true;
                        }
                    }
                }
            }
        }
        assert!(hit.iter().all(|&h| h));
    }
}
