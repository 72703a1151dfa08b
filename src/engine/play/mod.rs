//! One car's move, in the order of 6-3: the gear is announced and over-revving paid (steps 1-3),
//! the die is rolled (4), the player picks one of the options (5, 9, 11), and the engine applies
//! it: brakes, blocking, overshoot, stops, line crossings, handling tests (10), eliminations.
//!
//! Two calls, because a play-by-email player answers between them: [`roll`] returns the options,
//! [`resolve`] applies the one chosen. Both are pure: they take a state and return a new one.

mod resolve;

use resolve::{end_of_move, finish_turn};
pub use resolve::{reaches_box, resolve, resolve_with, retire};

use thiserror::Error;

use crate::track::{SpaceIdx, Track};

use super::car::Part;
use super::dice::{Dice, Purpose};
use super::events::Event;
use super::gearbox::{self, GearChange, GearError};
use super::inertia::{self};
use super::movement::{Board, Mover, Walk, reaches, through, wall_entries};
use super::options::{Fate, MoveOption, bonus_options, merge, options, sort};
use super::order::key;
use super::pits::{self, PitError, PitStage};
use super::rulebook::{Die, Rulebook, STALL_FACE, SUPER_START_FACE, SUPER_START_SPACES, soft_bonus};
use super::slipstream;
use super::state::{CarId, Elimination, OrderKey, RaceState, Status};
use super::tyres;

/// Why an order cannot be carried out. An illegal order changes nothing.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum IllegalOrder {
    /// The car is out of the race or has finished.
    #[error("car {0} is no longer racing")]
    NotRacing(u8),
    /// Another car is to play (6-2).
    #[error("it is car {expected}'s turn to play, not car {got}'s (6-2)")]
    NotYourTurn {
        /// The car whose turn it is.
        expected: u8,
        /// The car ordered.
        got: u8,
    },
    /// No car is to play (the race is over, or the next car has not been called yet).
    #[error("no car is to play now")]
    NobodyToPlay,
    /// The gear cannot be engaged.
    #[error("{0}")]
    Gear(#[from] GearError),
    /// A pit-lane rule refuses the gear or the pit decision (19).
    #[error("{0}")]
    Pit(#[from] PitError),
    /// The option does not exist.
    #[error("there is no option {label}; choose one of {first} to {last}")]
    NoSuchOption {
        /// What was asked for.
        label: String,
        /// First label.
        first: String,
        /// Last label.
        last: String,
    },
}

/// A roll made and the options it offers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rolled {
    /// The state after the gear change and any over-revving cost.
    pub state: RaceState,
    /// The car.
    pub car: CarId,
    /// Where it starts.
    pub from: SpaceIdx,
    /// Its order key before the move, where the round's sweep continues (6-2-5).
    pub start_key: OrderKey,
    /// The gear engaged.
    pub gear: u8,
    /// The die result.
    pub roll: u8,
    /// What the player may choose, farthest first.
    pub options: Vec<MoveOption>,
    /// Events so far (gear, over-revving, roll).
    pub events: Vec<Event>,
}

/// The result of a step of the game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// The new state.
    pub state: RaceState,
    /// What happened, in order.
    pub events: Vec<Event>,
}

/// What [`roll`] leads to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The player must choose an option.
    Choose(Box<Rolled>),
    /// The move is over before any choice (the car was eliminated by over-revving).
    Done(Outcome),
}

/// Announces `gear` for `car`, pays over-revving (13), rolls the gear die and lists the options.
pub fn roll(
    t: &Track,
    state: &RaceState,
    car: CarId,
    gear: u8,
    dice: &mut dyn Dice,
    rules: &Rulebook,
) -> Result<Step, IllegalOrder> {
    let c = state.car(car);
    let inertia = state.in_inertia(car);
    if !c.status.plays() && !inertia {
        return Err(IllegalOrder::NotRacing(c.number));
    }
    match state.to_play {
        Some(p) if p != car => {
            return Err(IllegalOrder::NotYourTurn { expected: state.car(p).number, got: c.number });
        }
        None => return Err(IllegalOrder::NobodyToPlay),
        _ => {}
    }
    let change = gear_change(t, state, car, gear, rules)?;
    let mut s = state.clone();
    let mut events = Vec::new();
    let start_key = key(state, t, car);
    let from = c.space;
    {
        let c = s.car_mut(car);
        c.gear = gear;
        if matches!(c.status, Status::Grid | Status::Restarting | Status::Stalled) {
            c.status = Status::Racing;
        }
    }
    events.push(Event::Gear { car, from: change.from, to: gear });
    for (part, points) in [(Part::Gas, change.gas), (Part::Brakes, change.brakes), (Part::Engine, change.engine)] {
        if points > 0 {
            *s.car_mut(car).wear.get_mut(part) -= points;
            events.push(Event::Wear { car, part, points, article: "13-1" });
        }
    }
    if change.engine > 0 {
        s.add_sticker(from);
        events.push(Event::Sticker { space: from, article: "13-3" });
        if s.car(car).wear.engine == 0 {
            // 16-0-3-1, 20-4-3: a broken engine in 4th or lower means no inertia (every over-rev
            // that costs an engine point ends in 2nd or 1st). 2004: the car is removed at once;
            // 2002: it waits for its next turn like any wreck (ruling 33).
            let removed = rules.set.low_break_off_at_once;
            s.car_mut(car).status = Status::Eliminated { reason: Elimination::Engine, removed };
            events.push(Event::Eliminated { car, reason: Elimination::Engine });
            finish_turn(&mut s, car, start_key);
            end_of_move(t, &mut s, &mut events, dice, rules);
            return Ok(Step::Done(Outcome { state: s, events }));
        }
    }
    // A standing start on the grid (9-0-1) or after a spinout (10-4-6) begins with the black die:
    // 1 stalls the car for the round, 20 moves it 4 spaces at once, anything else starts it in
    // 1st as ordered. A car that stalled starts normally next time, without the black die (9-1-1).
    if matches!(state.car(car).status, Status::Grid | Status::Restarting) {
        let v = dice.roll(Die::Black, Some(car), Purpose::Start);
        events.push(Event::Rolled { car: Some(car), die: Die::Black, purpose: Purpose::Start, value: v });
        if v == STALL_FACE {
            let c = s.car_mut(car);
            c.status = Status::Stalled;
            c.gear = 0;
            events.push(Event::Stalled { car });
            finish_turn(&mut s, car, start_key);
            end_of_move(t, &mut s, &mut events, dice, rules);
            return Ok(Step::Done(Outcome { state: s, events }));
        }
        if v == SUPER_START_FACE {
            // The car stays in 1st: next round it may play 1st or 2nd (9-2-1, 10-4-6).
            events.push(Event::SuperStart { car });
            let opts = move_options_with(t, &s, car, SUPER_START_SPACES, rules);
            return Ok(Step::Choose(Box::new(Rolled {
                state: s,
                car,
                from,
                start_key,
                gear,
                roll: SUPER_START_SPACES,
                options: opts,
                events,
            })));
        }
    }
    let (value, opts) = gear_die(t, &s, car, gear, inertia, dice, &mut events, rules);
    Ok(Step::Choose(Box::new(Rolled { state: s, car, from, start_key, gear, roll: value, options: opts, events })))
}

/// Checks the gear `car` announces and returns the change with its over-revving cost, as
/// [`roll`] applies it: the gearbox (6-1, 13), the inertia of a broken engine (16-0-3, 16-0-6)
/// and the gears of the pit lane (19-1-8, 19-1-9).
pub fn gear_change(
    t: &Track,
    state: &RaceState,
    car: CarId,
    gear: u8,
    rules: &Rulebook,
) -> Result<GearChange, IllegalOrder> {
    let c = state.car(car);
    let change = if state.in_inertia(car) { inertia::gear_change(c, gear)? } else { gearbox::change(c, gear)? };
    pits::check_gear_with(t, state, car, gear, &rules.set)?;
    Ok(change)
}

/// Every gear `car` may announce now, lowest first, each with its over-revving cost
/// ([`gear_change`]): what a player is offered before the roll.
pub fn gear_changes(t: &Track, state: &RaceState, car: CarId, rules: &Rulebook) -> Vec<GearChange> {
    (1..=super::rulebook::TOP_GEAR).filter_map(|g| gear_change(t, state, car, g, rules).ok()).collect()
}

/// The gear die of a move and the options it offers, in the state after the gear change.
#[allow(clippy::too_many_arguments)]
fn gear_die(
    t: &Track,
    s: &RaceState,
    car: CarId,
    gear: u8,
    inertia: bool,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
    rules: &Rulebook,
) -> (u8, Vec<MoveOption>) {
    let value = dice.roll(Die::Gear(gear), Some(car), Purpose::Move);
    events.push(Event::Rolled { car: Some(car), die: Die::Gear(gear), purpose: Purpose::Move, value });
    if tyres::worn_soft_malus(t, s.car(car), value, &rules.set) {
        events.push(Event::WornSoftTyres { car }); // 003-3
    }
    let mut opts = move_options_with(t, s, car, value, rules);
    if inertia {
        // 16-0-3: the inertia goes as far as it can without an overshoot elimination.
        inertia::restrict(t, s.car(car), &mut opts);
    }
    (value, opts)
}

/// True when `rolled` came from the gear die (not a super start's 4 spaces, 9-2-1): the one
/// roll a driver point may re-roll (002 "Expending Driver Points", ruling 45).
pub fn rerollable(rolled: &Rolled) -> bool {
    rolled.events.iter().any(|e| matches!(e, Event::Rolled { die: Die::Gear(_), purpose: Purpose::Move, .. }))
}

/// 002 "Expending Driver Points": the player spends one of the driver's points to roll the gear
/// die of `rolled` again; the first result is discarded with the options it offered, and the
/// second stands (ruling 45). The gear change and its costs stay (they came with the gear, not
/// the die), and so does a standing start's black die (only the gear die is re-rolled). The
/// returned roll's events are the first roll's up to its gear die, then the re-roll's; the second
/// value returned holds the re-roll's events alone. `None` when the roll was no gear die.
pub fn reroll(t: &Track, rolled: &Rolled, dice: &mut dyn Dice, rules: &Rulebook) -> Option<(Rolled, Vec<Event>)> {
    if !rerollable(rolled) {
        return None;
    }
    let car = rolled.car;
    let mut events: Vec<Event> = rolled
        .events
        .iter()
        .take_while(|e| !matches!(e, Event::Rolled { die: Die::Gear(_), purpose: Purpose::Move, .. }))
        .cloned()
        .collect();
    let mut fresh = vec![Event::DriverPoint { car, first: rolled.roll }];
    let inertia = rolled.state.in_inertia(car);
    let (value, opts) = gear_die(t, &rolled.state, car, rolled.gear, inertia, dice, &mut fresh, rules);
    events.extend(fresh.iter().cloned());
    Some((Rolled { state: rolled.state.clone(), roll: value, options: opts, events, ..rolled.clone() }, fresh))
}

/// The options of `car` for a gear-die result of `value` in state `s`, under the 2004
/// competition rules.
pub fn move_options(t: &Track, s: &RaceState, car: CarId, value: u8) -> Vec<MoveOption> {
    move_options_with(t, s, car, value, &Rulebook::competition_2004())
}

/// The options of `car` for a gear-die result of `value` in state `s`, under `rules`.
pub fn move_options_with(t: &Track, s: &RaceState, car: CarId, value: u8, rules: &Rulebook) -> Vec<MoveOption> {
    let set = &rules.set;
    let c = s.car(car);
    let occupied = occupancy(t, s, car);
    if c.pit.stage != PitStage::Out {
        // 19-1; the soft +1 holds in the lane, to the box and out of it (19-3-6, 8-0-2).
        let mut opts = pits::lane_options(t, s, car, &occupied, value, s.wet);
        if soft_bonus(c.tyres, s.wet, c.tyre_lap) {
            let longer = pits::lane_options(t, s, car, &occupied, value.saturating_add(1), s.wet);
            opts.extend(lane_bonus(t, s, car, value, longer));
            sort(t, c, &mut opts);
        }
        return opts;
    }
    // Without road-holding (003-6 off) a dangerous space is an ordinary space, for the driving
    // code (7-2-3, ruling 3) as for the tests.
    let dangerous: &[SpaceIdx] = if set.road_holding { &s.dangerous } else { &[] };
    let board = Board { track: t, occupied: &occupied, dangerous, pit_open: false, walls: true };
    // 003-3 (table): soft tyres on their third lap lose a space on a move in the straights, read
    // as a move begun outside a corner, never below one space (ruling 34).
    let value = if tyres::worn_soft_malus(t, c, value, set) { value - 1 } else { value };
    let inertia = s.in_inertia(car);
    // 16-0-8 (2004): the tyre rules apply in inertia; 2002: no +1 in an inertia move (ruling 33).
    let bonus = soft_bonus(c.tyres, s.wet, c.tyre_lap) && (!inertia || set.tyres_in_inertia);
    // With the +1 the search looks one space farther: its ways of `value + 1` spaces are the +1's,
    // and the same search capped at `value` is the roll's ([`Reaches::cap`]).
    let max = if bonus { value.saturating_add(1) } else { value };
    let mover = Mover { start: c.space, stops: c.stops, max, min: value.saturating_sub(c.wear.brakes) };
    let mut r = reaches(&board, &mover);
    // 8-2-1, 6-3 step 7: the soft-tyre +1, a choice of its own.
    let mut extra = if max > value { bonus_options(t, c, value, s.wet, &r) } else { Vec::new() };
    r.cap(value);
    let mut opts = options(t, c, value, s.wet, &r);
    extra.retain(|o| tyres::bonus_allowed(t, s, car, s.wet, o));
    if !extra.is_empty() {
        opts.extend(extra);
        sort(t, c, &mut opts);
    }
    // 8-1-2, 8-2-2, 8-3-2, 6-3 step 6: the slide after a stop in a corner on a wet track.
    let opts = tyres::slide(t, &board, c, s.wet, opts);
    // 18: the slipstreams that may extend the move, as more options; none during an inertia
    // move (18-1-7, 16-0-5), none when the game plays without them (003-1 off).
    let mut more = if inertia || !set.slipstream {
        Vec::new()
    } else {
        slipstream::extend(t, s, car, &board, &r, value, s.wet, set)
    };
    // 19-1-1: the ways into the pit lane, when it is open to the car; never during inertia
    // (16-0-9).
    if !inertia {
        more.extend(pits::entry_options(t, s, car, &occupied, value, s.wet));
        if soft_bonus(c.tyres, s.wet, c.tyre_lap) {
            // 19-3-6: « Le '+1' du pneu tendre est valable jusqu'à l'arrivée de la voiture dans
            // son stand, même si ce dernier est placé au-delà de la ligne d'arrivée. »
            let longer = pits::entry_options(t, s, car, &occupied, value.saturating_add(1), s.wet);
            more.extend(lane_bonus(t, s, car, value, longer));
        }
    }
    let mut opts = merge(t, c, opts, more);
    for o in opts.iter_mut() {
        o.wall = wall_entries(t, c.space, &o.path); // 15-0-2
    }
    opts
}

/// The soft-tyre +1 on a move into, along or out of the pit lane (8-2-1, 19-3-6): of the ways
/// found with one space more than the die, those of exactly `value + 1` spaces, neither braked
/// nor blocked (as on the track, ruling 16), that the tyres allow (8-2-3, 8-0-2), marked `+1`.
/// The exit move of a quick stop made never has it (19-3-5, [`quick_exit`]).
fn lane_bonus(t: &Track, s: &RaceState, car: CarId, value: u8, longer: Vec<MoveOption>) -> Vec<MoveOption> {
    longer
        .into_iter()
        .filter(|o| o.spaces == value.saturating_add(1) && o.brakes == 0 && o.blocked == 0 && o.fate == Fate::Continues)
        .filter(|o| tyres::bonus_allowed(t, s, car, s.wet, o))
        .map(|mut o| {
            o.bonus = true;
            o
        })
        .collect()
}

/// The spaces other cars stand on, as `car` sees the board (eliminated cars not yet removed
/// included, 12-1-2, 14-2).
fn occupancy(t: &Track, s: &RaceState, car: CarId) -> Vec<bool> {
    let mut occupied = vec![false; t.spaces.len()];
    for (i, other) in s.cars.iter().enumerate() {
        if i != car.get() && other.status.on_board() {
            occupied[other.space.get()] = true;
        }
    }
    occupied
}

/// The legal ways for `car` to drive through `via` in order and stop on its last space, at most
/// `max` spaces long, one per length (see [`movement::through`](super::movement::through)).
pub fn paths_through(t: &Track, s: &RaceState, car: CarId, via: &[SpaceIdx], max: u8) -> Vec<Walk> {
    let c = s.car(car);
    let occupied = occupancy(t, s, car);
    let board = Board { track: t, occupied: &occupied, dangerous: &s.dangerous, pit_open: false, walls: true };
    let mover = Mover { start: c.space, stops: c.stops, max, min: 0 };
    through(&board, &mover, via)
}

/// Finds the option whose end space has id `space` (and, when several, the cheapest).
pub fn option_to(t: &Track, rolled: &Rolled, space: &str) -> Option<usize> {
    let target = t.find(space)?;
    rolled.options.iter().position(|o| o.end == target)
}
