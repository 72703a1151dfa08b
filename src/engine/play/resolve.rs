//! Applying the option a player chose (6-3 steps 5 to 15): brakes, blocking, overshoot and
//! stops counted, the pit box and its stop (19), line crossings, the tests at the end of the move
//! (14, 15, 16) and eliminations, then the turn handed on.

use super::{IllegalOrder, Outcome, Rolled, move_options_with};

use crate::track::{SpaceIdx, Track};

use crate::engine::car::Part;
use crate::engine::dice::{Dice, Purpose};
use crate::engine::events::Event;
use crate::engine::finish;
use crate::engine::incidents;
use crate::engine::inertia::Inertia;
use crate::engine::options::{Fate, MoveOption};
use crate::engine::order::{self};
use crate::engine::pits::{self, PitOrder, PitStage};
use crate::engine::rulebook::{self, Die, RuleSet, Rulebook, handling_threshold};
use crate::engine::state::{CarId, Elimination, OrderKey, RaceState, Status};
use crate::engine::tyres;
use crate::engine::wall;
use crate::engine::weather;

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
pub(super) fn end_of_move(
    t: &Track,
    s: &mut RaceState,
    events: &mut Vec<Event>,
    dice: &mut dyn Dice,
    rules: &Rulebook,
) {
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
        crate::engine::backmarkers::fit_tyres(s);
    }
}

pub(super) fn finish_turn(s: &mut RaceState, car: CarId, start_key: OrderKey) {
    crate::engine::backmarkers::after_move(s, car);
    s.sweep = Some(start_key);
    s.played.push(car);
    s.to_play = None;
}
