//! One car's move, in the order of 6-3: the gear is announced and over-revving paid (steps 1-3),
//! the die is rolled (4), the player picks one of the options (5, 9, 11), and the engine applies
//! it: brakes, blocking, overshoot, stops, line crossings, handling tests (10), eliminations.
//!
//! Two calls, because a play-by-email player answers between them: [`roll`] returns the options,
//! [`resolve`] applies the one chosen. Both are pure: they take a state and return a new one.

use thiserror::Error;

use crate::track::{SpaceIdx, Track};

use super::car::Part;
use super::dice::{Dice, Purpose};
use super::events::Event;
use super::finish;
use super::gearbox::{self, GearChange, GearError};
use super::incidents;
use super::inertia::{self, Inertia};
use super::movement::{Board, Mover, Walk, reaches, through, wall_entries};
use super::options::{Fate, MoveOption, bonus_options, merge, options, sort};
use super::order::{self, key};
use super::pits::{self, PitError, PitOrder, PitStage};
use super::rulebook::{
    self, Die, RuleSet, Rulebook, STALL_FACE, SUPER_START_FACE, SUPER_START_SPACES, handling_threshold, soft_bonus,
};
use super::slipstream;
use super::state::{CarId, Elimination, OrderKey, RaceState, Status};
use super::tyres;
use super::wall;
use super::weather;

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

/// Applies option `choice` (an index into `rolled.options`) and returns the new state. A car that
/// reaches its box makes the default stop: quick, on the same tyres (19-2-7, docs/rulings.md).
pub fn resolve(
    t: &Track,
    rolled: &Rolled,
    choice: usize,
    dice: &mut dyn Dice,
    rules: &Rulebook,
) -> Result<Outcome, IllegalOrder> {
    resolve_with(t, rolled, choice, &PitOrder::default(), dice, rules)
}

/// True when option `choice` of `rolled` ends at the car's box: the move asks for a
/// [`PitOrder`] (19-2).
pub fn reaches_box(t: &Track, rolled: &Rolled, choice: usize) -> bool {
    let c = rolled.state.car(rolled.car);
    matches!(c.pit.stage, PitStage::Out | PitStage::ToBox)
        && rolled.options.get(choice).is_some_and(|o| Some(o.end) == pits::own_box(t, &rolled.state, rolled.car))
}

/// [`resolve`], with the player's decision at the box if the move reaches it (19-2-6, 19-3,
/// 19-4); the decision is ignored otherwise.
pub fn resolve_with(
    t: &Track,
    rolled: &Rolled,
    choice: usize,
    pit: &PitOrder,
    dice: &mut dyn Dice,
    rules: &Rulebook,
) -> Result<Outcome, IllegalOrder> {
    let Some(opt) = rolled.options.get(choice) else {
        return Err(IllegalOrder::NoSuchOption {
            label: MoveOption::label(choice),
            first: MoveOption::label(0),
            last: MoveOption::label(rolled.options.len().saturating_sub(1)),
        });
    };
    let car = rolled.car;
    let at_box = reaches_box(t, rolled, choice);
    if at_box {
        pits::check_order_with(rolled.state.car(car), pit, rules)?;
    }
    let mut s = rolled.state.clone();
    let mut events = Vec::new();
    let wear = |s: &mut RaceState, events: &mut Vec<Event>, part: Part, points: u8, article: &'static str| {
        if points > 0 {
            let w = s.car_mut(car).wear.get_mut(part);
            *w = w.saturating_sub(points);
            events.push(Event::Wear { car, part, points, article });
        }
    };

    // Brakes and blocking (11, 12).
    if opt.brakes > 0 {
        events.push(Event::Braked { car, spaces: opt.brakes });
        wear(&mut s, &mut events, Part::Brakes, opt.brakes, "11-0-3");
    }
    if opt.blocked > 0 {
        events.push(Event::Blocked { car, spaces: opt.blocked });
    }
    let eliminated_now = matches!(opt.fate, Fate::Eliminated(_));
    if !eliminated_now {
        wear(&mut s, &mut events, Part::Brakes, opt.blocking_brakes, "12-0-1");
        wear(&mut s, &mut events, Part::Tyres, opt.blocking_tyres, "12-0-1");
    }

    // Slipstreams (18): the cars drawn, the brake points of a short one (18-1-2) and of entering
    // a corner thanks to them (18-1-4).
    if let Some(slip) = &opt.slip {
        for &ahead in &slip.behind {
            events.push(Event::Slipstream { car, ahead });
        }
        wear(&mut s, &mut events, Part::Brakes, slip.short, "18-1-2");
        wear(&mut s, &mut events, Part::Brakes, slip.corner_brakes, "18-1-4");
    }

    // The move itself, with the soft-tyre +1 (8-2-1) or the slide of a wet track (8-1-2).
    if opt.bonus {
        events.push(Event::SoftBonus { car });
    }
    events.push(Event::Moved { car, from: rolled.from, to: opt.end, spaces: opt.spaces });
    if opt.slide > 0 {
        let tyres = s.car(car).tyres;
        events.push(Event::Slid { car, spaces: opt.slide, tyres });
    }
    let arrival = s.next_arrival;
    s.next_arrival += 1;
    {
        let c = s.car_mut(car);
        c.space = opt.end;
        if opt.spaces > 0 {
            // 6-2-3: "arrivée la première". A car that braked to stay where it was did not
            // arrive anywhere: it keeps its place among the cars level with it.
            c.arrival = arrival;
        }
        c.moves += 1;
        c.stops = opt.stops;
    }
    if let Some((corner, spaces)) = opt.overshoot {
        events.push(Event::Overshoot { car, corner, spaces });
        if !eliminated_now {
            wear(&mut s, &mut events, Part::Tyres, opt.overshoot_tyres, "10-0-1");
        }
    }
    if let Some((corner, stops)) = opt.stops {
        events.push(Event::Stop { car, corner, stops, required: t.corners[corner.get()].stops });
    }

    let mut exempt = None;
    let inertia = s.in_inertia(car);
    match opt.fate {
        Fate::Continues => {}
        // A car in inertia is out already: a spinout changes nothing, and a move that would
        // eliminate it (every move did, 16-0-3) takes it off at once (docs/rulings.md).
        Fate::SpinOut if inertia => {}
        Fate::Eliminated(_) if inertia => {
            s.car_mut(car).inertia = None;
            s.car_mut(car).status = Status::Eliminated { reason: Elimination::Engine, removed: true };
        }
        Fate::SpinOut => {
            s.car_mut(car).status = Status::SpunOut;
            events.push(Event::SpunOut { car });
        }
        Fate::Eliminated(reason) => {
            exempt = eliminate(t, &mut s, &mut events, car, reason, opt.end, &rules.set);
        }
    }

    // Line crossings, laps and the finish (0-0-1, 8-0-2, 21); an extended inertia may reach the
    // finish (16-0-6).
    if s.car(car).status.plays() || (s.in_inertia(car) && s.car(car).inertia == Some(Inertia::Extended)) {
        let before = s.car(car).crossings;
        for _ in 0..opt.crossings {
            let laps = s.laps;
            let ages = tyres::crossing_ages_tyres(t, &s, car, s.car(car).crossings, opt.end); // 8-0-2
            let c = s.car_mut(car);
            c.crossings += 1;
            if c.backmarker {
                // Backmarkers never finish: "always considered to be many laps behind" (002).
                continue;
            }
            if ages {
                c.tyre_lap += 1;
            }
            if c.crossings > laps {
                let place = s.finish_order.len() as u8 + 1;
                s.finish_order.push(car);
                s.car_mut(car).status = Status::Finished { place };
                s.car_mut(car).inertia = None;
                events.push(Event::Finished { car, place });
                if rules.set.finish_by_portion {
                    // 004: among the cars finishing in this round, the smaller portion of the
                    // move used to touch the line first (21-1-4 otherwise: the order of crossing).
                    let nth = s.car(car).crossings - before;
                    let used = finish::spaces_to_line(t, rolled.from, &opt.path, nth);
                    let moved = opt.path.len().clamp(1, u8::MAX as usize) as u8;
                    let p = finish::Portion { car, round: s.round, used, moved };
                    finish::place_by_portion(&mut s, &mut events, p, dice);
                }
                break;
            }
            let lap = s.car(car).crossings;
            events.push(Event::Lap { car, lap });
        }
    }

    if s.in_inertia(car) {
        // 16-0-3: a sticker where the inertia stops; the car leaves at its next turn, unless
        // its extended inertia goes on in a lower gear (16-0-6).
        let at = s.car(car).space;
        s.add_sticker(at);
        let kind = s.car(car).inertia.unwrap_or(Inertia::Single);
        events.push(Event::Sticker { space: at, article: kind.article() });
        if kind == Inertia::Single || rolled.gear <= 1 {
            s.car_mut(car).inertia = None;
        }
    }

    // Road-handling tests on the dangerous spaces entered (17-0-2), at the end of the move (6-3
    // step 10). A car that has just finished keeps its place (docs/rulings.md). Without the
    // road-holding rule (003-6 off) dangerous spaces cost nothing; with it, a car that stops on
    // one tests even if it did not move onto it (003-6: "crosses this space or stops on it").
    let mut tests = if rules.set.road_holding { opt.dangerous.len() } else { 0 };
    if rules.set.road_holding
        && rules.set.test_on_stopping
        && s.is_dangerous(opt.end)
        && !opt.dangerous.contains(&opt.end)
    {
        tests += 1;
    }
    for _ in 0..tests {
        if !s.car(car).status.plays() {
            break;
        }
        let v = dice.roll(Die::Black, Some(car), Purpose::Handling);
        events.push(Event::Rolled { car: Some(car), die: Die::Black, purpose: Purpose::Handling, value: v });
        if v <= handling_threshold(s.wet) {
            wear(&mut s, &mut events, Part::Handling, 1, "17-0-2");
            if s.car(car).wear.handling == 0 {
                // 17-0-3: removed at once, no sticker.
                s.car_mut(car).status = Status::Eliminated { reason: Elimination::Handling, removed: true };
                events.push(Event::Eliminated { car, reason: Elimination::Handling });
            }
        }
    }
    // Pits (19): entering the lane commits the car to its box (19-2-5); at the box, the stop.
    let mut exit = None;
    if s.car(car).status.plays() {
        let before = s.car(car).pit.stage;
        let stage = pits::stage_after(t, s.car(car), opt.end);
        s.car_mut(car).pit.stage = stage;
        if before == PitStage::Out && stage == PitStage::ToBox {
            events.push(Event::PitLane { car });
        }
        if at_box {
            exit = pits::stop(&mut s, &mut events, car, pit, dice);
        }
    }
    // The wall tests of the lane entries on the way (15-0-2, 6-3 step 10), then body tests
    // (step 14, 14; none in the pit lane, 19-1-3) and the wall test of an entry on the last
    // space (15-1), then engine tests after a 20 in 5th or a 30 in 6th (step 15, 16-0-1).
    let (on_the_way, at_the_end) = wall::split(t, rolled.from, &opt.path);
    wall::tests(&mut s, &mut events, car, on_the_way, dice);
    if !t.space(opt.end).in_pit_lane() {
        incidents::body_tests(t, &mut s, &mut events, car, exempt, dice);
    }
    wall::tests(&mut s, &mut events, car, at_the_end, dice);
    if incidents::pushes_engine(rolled.gear, rolled.roll) {
        incidents::engine_tests(t, &mut s, &mut events, dice, rules);
        if !rules.set.lap_third_weather {
            weather::owe_test(&mut s); // 3-2-4
        }
    }
    if let Some(spaces) = exit {
        // 19-3-3: the quick stop's exit move, at once, in 4th.
        return quick_exit(t, s, events, car, rolled, spaces, dice, rules);
    }
    finish_turn(&mut s, car, rolled.start_key);
    end_of_move(t, &mut s, &mut events, dice, rules);
    Ok(Outcome { state: s, events })
}

/// The exit move of a successful quick stop (19-3-3): `spaces` along the lane in 4th, brakes
/// allowed (19-3-7), ending in the first corner counts a stop there (19-3-8: the end of a move in
/// a corner counts one, 7-1-1). The farthest way that costs no tyre point is taken
/// (docs/rulings.md).
#[allow(clippy::too_many_arguments)]
fn quick_exit(
    t: &Track,
    s: RaceState,
    mut events: Vec<Event>,
    car: CarId,
    rolled: &Rolled,
    spaces: u8,
    dice: &mut dyn Dice,
    rules: &Rulebook,
) -> Result<Outcome, IllegalOrder> {
    let mut opts = move_options_with(t, &s, car, spaces, rules);
    // 19-3-5: « Une voiture chaussée de pneus tendres ne peut pas rajouter le bonus d'une case
    // sur le chiffre de sortie lors d'un arrêt rapide réussi. »
    opts.retain(|o| !o.bonus);
    if !rules.set.quick_exit_brakes {
        // 2002 19-3-3: the half die is the move, with no brakes (ruling 33); a car stopped
        // behind another in the lane is no braking (19-1-5).
        let plain: Vec<MoveOption> = opts.iter().filter(|o| o.brakes == 0).cloned().collect();
        if !plain.is_empty() {
            opts = plain;
        }
    }
    let pick = opts
        .iter()
        .position(|o| o.fate == Fate::Continues && o.tyre_points() == 0)
        .or_else(|| opts.iter().position(|o| o.fate == Fate::Continues))
        .unwrap_or(0);
    if opts.is_empty() {
        let mut s = s;
        finish_turn(&mut s, car, rolled.start_key);
        end_of_move(t, &mut s, &mut events, dice, rules);
        return Ok(Outcome { state: s, events });
    }
    let from = s.car(car).space;
    let exit = Rolled {
        state: s,
        car,
        from,
        start_key: rolled.start_key,
        gear: rulebook::PIT_EXIT_GEAR,
        roll: spaces,
        options: opts,
        events: Vec::new(),
    };
    let mut out = resolve_with(t, &exit, pick, &PitOrder::default(), dice, rules)?;
    if !rules.set.quick_exit_stop {
        // 19-3-8 is 2004 only: under the 2002 text the exit move counts no stop in the corner it
        // ends in (ruling 33).
        let c = out.state.car_mut(car);
        if let Some((k, n)) = c.stops
            && t.space(c.space).corner == Some(k)
            && out.events.iter().any(|e| matches!(e, Event::Stop { .. }))
        {
            c.stops = Some((k, n.saturating_sub(1)));
            out.events.retain(|e| !matches!(e, Event::Stop { .. }));
        }
    }
    events.extend(out.events);
    let c = out.state.car_mut(car);
    c.moves = c.moves.saturating_sub(1); // one move (coup) with its stop
    Ok(Outcome { state: out.state, events })
}

/// A player retires `car` (ruling 51): out of the race where it stands and off the track at once,
/// like an overshoot's elimination (10-3) but leaving no sticker; the other cars play on. The
/// caller calls the next car when `car` was the one to play.
pub fn retire(s: &RaceState, car: CarId) -> (RaceState, Vec<Event>) {
    let mut s = s.clone();
    let reason = Elimination::Retired;
    s.car_mut(car).status = Status::Eliminated { reason, removed: true };
    (s, vec![Event::Eliminated { car, reason }])
}

/// Takes `car` out of the race where it stands (20), with the consequences its reason carries.
/// Returns the car that lost its automatic body point to a blocking (12-1-1), which takes no
/// body test against the blocked car (12-1-5).
fn eliminate(
    t: &Track,
    s: &mut RaceState,
    events: &mut Vec<Event>,
    car: CarId,
    reason: Elimination,
    at: SpaceIdx,
    set: &RuleSet,
) -> Option<CarId> {
    events.push(Event::Eliminated { car, reason });
    match reason {
        Elimination::Blocking => {
            // 12-1-1, 12-1-2: a sticker under the car, which waits for its next turn to leave;
            // the car just in front loses a body point and gets a sticker too.
            s.car_mut(car).status = Status::Eliminated { reason, removed: false };
            s.add_sticker(at);
            events.push(Event::Sticker { space: at, article: "12-1-2" });
            let lane = t.space(at).lane;
            let mut ahead: Vec<CarId> = t.next(at).iter().filter_map(|&n| s.car_on(n)).filter(|&c| c != car).collect();
            ahead.sort_by_key(|&c| (t.space(s.car(c).space).lane != lane, s.car(c).space));
            // A backmarker in front takes no body damage and leaves no debris (002, ruling 49).
            if let Some(&front) = ahead.first().filter(|&&f| !s.car(f).backmarker) {
                let fs = s.car(front).space;
                let body = &mut s.car_mut(front).wear.body;
                *body = body.saturating_sub(1);
                events.push(Event::Wear { car: front, part: Part::Body, points: 1, article: "12-1-1" });
                s.add_sticker(fs);
                events.push(Event::Sticker { space: fs, article: "12-1-2" });
                if s.car(front).wear.body == 0 && s.car(front).status.plays() {
                    s.car_mut(front).status = Status::Eliminated { reason: Elimination::Body, removed: false };
                    events.push(Event::Eliminated { car: front, reason: Elimination::Body });
                }
            }
            ahead.first().copied()
        }
        // 10-3: an overshoot elimination leaves no sticker and the car goes at once. 003-6: "When
        // a car [...] is eliminated [...] the space on which the incident occurred becomes
        // dangerous": under the Eurogames road-holding rule, a sticker where it went out.
        _ => {
            s.car_mut(car).status = Status::Eliminated { reason, removed: true };
            if set.sticker_on_elimination {
                s.add_sticker(at);
                events.push(Event::Sticker { space: at, article: "003-6" });
            }
            None
        }
    }
}

/// After a move: if it was the last of its round and weather tests are owed, they are rolled now,
/// at the end of the round (3-2-5, 6-3 "le test météo se fait en fin de tour de jeu"), as part of
/// this move's dice.
fn end_of_move(t: &Track, s: &mut RaceState, events: &mut Vec<Event>, dice: &mut dyn Dice, rules: &Rulebook) {
    if rules.set.lap_third_weather {
        weather::lap_third_checks(t, s); // 002 "Weather", ruling 46
    }
    if s.weather.is_none_or(|w| w.tests == 0) {
        return;
    }
    let (_, next, ev) = order::advance(t, s);
    if next.is_some() && ev.iter().any(|e| matches!(e, Event::RoundStarted { .. })) {
        weather::tests(&t.weather, s, events, dice);
        // The backmarkers run on the tyres the weather asks for (ruling 49).
        super::backmarkers::fit_tyres(s);
    }
}

fn finish_turn(s: &mut RaceState, car: CarId, start_key: OrderKey) {
    super::backmarkers::after_move(s, car);
    s.sweep = Some(start_key);
    s.played.push(car);
    s.to_play = None;
}

/// Finds the option whose end space has id `space` (and, when several, the cheapest).
pub fn option_to(t: &Track, rolled: &Rolled, space: &str) -> Option<usize> {
    let target = t.find(space)?;
    rolled.options.iter().position(|o| o.end == target)
}
