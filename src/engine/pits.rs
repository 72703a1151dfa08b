//! Pit stops (19): entering the pit lane, the single lane to the box, the quick and the long
//! stop, the gear rules of the pit lane, and leaving it.
//!
//! Why a module of its own: the pit lane changes the move (a single lane where nobody passes and
//! nobody is blocked, 19-1-5; a box reached without the exact roll, 19-2-2), the gear a car may
//! engage (19-1-8, 19-1-9, 19-3-4, 19-4-2) and what happens at the end of a move (the stop). The
//! player's decision at the box (quick or long stop, repairs, tyres) is a [`PitOrder`], an input
//! of [`play::resolve_with`](super::play::resolve_with) that a game store records with the turn.
//!
//! The car's pit stage ([`PitStage`]) is part of its state: `Out` on the track, `ToBox` once it
//! has entered the lane (it must stop at its box, 19-2-5), `Stopped` while it waits in its box
//! (missed quick stop 19-3-4, long stop 19-4-2), `ToExit` from its box to the end of the lane.
//! Each car's box is the one its player chose before the race ([`choose_boxes`]: the pole
//! first, 4-0-1, or the back of the grid first after a 002 d20 grid), by default the pit box of
//! its grid position (docs/rulings.md, rulings 20 and 48).

use thiserror::Error;

use crate::track::{SpaceIdx, Track};

use super::car::{Part, Wear};
use super::dice::{Dice, Purpose};
use super::events::Event;
use super::gearbox;
use super::movement::{Board, Mover, reaches, reaches_to_pit_lane};
use super::options::{Fate, MoveOption, build_option, options};
use super::rulebook::{Die, PIT_EXIT_GEAR, QUICK_STOP_MAX_FACE, RuleSet, Rulebook, Tyres};
use super::state::{CarId, CarState, RaceState, Status};

/// Where a car stands with its pit stops (19).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum PitStage {
    /// On the racing track.
    Out,
    /// In the pit lane on its way to its box: it must stop there (19-2-5).
    ToBox,
    /// In its box, waiting for its next move (missed quick stop 19-3-4, long stop 19-4-2): it
    /// leaves in `max_gear` or lower, never 1st (19-1-9).
    Stopped {
        /// The highest gear it may leave in (4th, 19-3-4, 19-4-2).
        max_gear: u8,
    },
    /// Out of its box, not yet out of the pit lane: no 1st gear (19-1-9).
    ToExit,
}

/// A car's pit record.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct PitState {
    /// Where it stands with its stops.
    pub stage: PitStage,
    /// The lap (line crossings) of its last stop: one whole lap on a set of tyres before the
    /// next (19-2-4).
    pub last_stop: Option<u16>,
    /// Stops made.
    pub stops: u8,
    /// The sheet as configured at the start: tyres are regenerated to it (19-2-3) and repairs
    /// never go above it (19-4-1).
    pub sheet: Wear,
    /// The box the car's player chose (4-0-1, 002 "Qualifying"; [`choose_boxes`]), when it is
    /// not the box of its grid position; `None`: that box.
    pub own_box: Option<SpaceIdx>,
}

impl PitState {
    /// A car on the track that has not stopped, with its starting sheet.
    pub fn new(sheet: Wear) -> Self {
        PitState { stage: PitStage::Out, last_stop: None, stops: 0, sheet, own_box: None }
    }
}

/// Quick or long stop (19-3, 19-4).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum StopKind {
    /// Tyres only, then the black die: 1-10 leaves at once (19-3-3), 11-20 waits (19-3-4).
    Quick,
    /// Tyres and repairs from the pit points; leaves at its next move (19-4).
    Long,
}

impl StopKind {
    /// Name used in files and mails.
    pub fn name(self) -> &'static str {
        match self {
            StopKind::Quick => "quick",
            StopKind::Long => "long",
        }
    }

    /// Parses `quick` / `long` (and the French `rapide` / `long`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "quick" | "rapide" | "short" | "court" => Some(StopKind::Quick),
            "long" => Some(StopKind::Long),
            _ => None,
        }
    }
}

/// The player's decision at the box.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PitOrder {
    /// Quick (default, docs/rulings.md) or long.
    pub kind: Option<StopKind>,
    /// The tyres it leaves on, announced before anything else (19-2-6); `None` keeps the same
    /// type (19-2-7).
    pub tyres: Option<Tyres>,
    /// Points taken from the pit points, part by part (long stop only, 19-4-1; never tyres,
    /// which every stop regenerates).
    pub repairs: Vec<(Part, u8)>,
}

/// Why a pit decision or a gear in the pit lane is refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum PitError {
    /// Repairs asked for on a quick stop.
    #[error("a quick stop changes tyres only (19-3-1); ask for a long stop to repair {0}")]
    RepairOnQuickStop(&'static str),
    /// More repairs than pit points.
    #[error("the repairs take {asked} point(s) but only {left} remain at the pit (4-0-2, 19-4-1)")]
    NotEnoughPitPoints {
        /// Points asked.
        asked: u8,
        /// Points left at the pit.
        left: u8,
    },
    /// A repair above the part's starting points.
    #[error("{part} would have {would} point(s), more than the {sheet} it started with (19-4-1)")]
    AboveSheet {
        /// The part.
        part: &'static str,
        /// Points after the repair.
        would: u8,
        /// Points at the start.
        sheet: u8,
    },
    /// Tyre points are not repaired: every stop regenerates them.
    #[error("tyres are regenerated at every stop (19-2-3): repair another part")]
    TyreRepair,
    /// 1st gear between the stop and the end of the pit lane.
    #[error("1st gear is forbidden from the pit stop to the end of the pit lane (19-1-9)")]
    FirstGear,
    /// Above 4th when leaving the box after a missed quick stop or a long stop.
    #[error("the car leaves its box in {max}th gear at most (19-3-4, 19-4-2)")]
    AboveExitGear {
        /// The highest gear allowed.
        max: u8,
    },
    /// A gear that cannot reach the box when one that can is allowed.
    #[error("in the pit lane, engage a gear whose highest roll reaches the box ({spaces} space(s)): {gears} (19-1-8)")]
    ShortOfTheBox {
        /// Spaces to the box.
        spaces: u8,
        /// The gears that reach it.
        gears: String,
    },
    /// 2002 19-5-7: the tyres must be announced at the box.
    #[error("announce the tyres you leave your box on, hard, soft or rain, before anything else (19-5-7, 2002 rules)")]
    TyresNotAnnounced,
    /// Tyre types are not played (003-3 off).
    #[error("this game plays without tyre types (advanced rule 3 is off): only hard tyres")]
    NoTyreTypes,
    /// Repairs are not played (003-7 off).
    #[error("this game plays tyre stops only (advanced rule 7 is off): no long stop, no repairs")]
    NoRepairs,
    /// No gear reaches the box: the highest allowed one is required.
    #[error("no gear reaches the box: engage the highest gear allowed, {gear} (19-1-8)")]
    NotTheHighest {
        /// The gear required.
        gear: u8,
    },
}

/// The box of `car` (4-0-1): the one its player chose, else the pit box of its grid position.
pub fn own_box(t: &Track, s: &RaceState, car: CarId) -> Option<SpaceIdx> {
    s.cars.get(car.get()).and_then(|c| c.pit.own_box).or_else(|| t.pit_boxes.get(car.get()).copied())
}

/// True when box `b` lies before the finish line: no line crossing along the pit lane from the
/// track to the box. A set fitted there starts its first lap at the line just after (8-0-2).
pub fn box_before_line(t: &Track, b: SpaceIdx) -> bool {
    let Some(i) = lane_index(t, b) else { return false };
    let lane = &t.pit_lane[..=i];
    let into = t.prev(lane[0]).iter().any(|&p| !t.space(p).in_pit_lane() && t.crosses_line(p, lane[0]));
    !into && !lane.windows(2).any(|w| t.crosses_line(w[0], w[1]))
}

/// In which order the players choose their boxes before the race (4-0-1).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum PitChoice {
    /// The pole sitter first, then down the grid (4-0-1; 002 after a qualifying session).
    #[default]
    GridOrder,
    /// The back of the grid first (002 "Qualifying", 1) Normal method: after a d20 grid, "pit
    /// assignments are then chosen in REVERSE order of qualifying position").
    ReverseGrid,
}

impl PitChoice {
    /// Name used in files, mails and the command line.
    pub fn name(self) -> &'static str {
        match self {
            PitChoice::GridOrder => "grid",
            PitChoice::ReverseGrid => "reverse-grid",
        }
    }

    /// The order named `s` (`grid`, `reverse-grid`; `reverse` too).
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "grid" | "grid-order" => Some(PitChoice::GridOrder),
            "reverse-grid" | "reverse" => Some(PitChoice::ReverseGrid),
            _ => None,
        }
    }
}

/// A box wish that cannot be honoured because it names no box.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("box {wanted} is not a pit box of this track: boxes 1 to {boxes}, numbered from the pit-lane entry (4-0-1)")]
pub struct NoSuchBox {
    /// The box asked for (1-based).
    pub wanted: usize,
    /// How many boxes the track has.
    pub boxes: usize,
}

/// The boxes of the cars on the grid (4-0-1): `wishes[i]` lists the boxes the car on grid slot
/// `i` (pole first) wants, best first, numbered from 1 along the pit lane. The cars choose in
/// `order`; each takes the first of its wishes still free, and a car whose wishes are all taken
/// (or who named none) takes the box of its grid slot if it is free, else the first free box
/// along the lane (ruling 48). Without wishes every car gets the box of its grid slot; `None`
/// only for a car beyond the track's boxes.
pub fn choose_boxes(t: &Track, wishes: &[Vec<usize>], order: PitChoice) -> Result<Vec<Option<SpaceIdx>>, NoSuchBox> {
    let boxes = t.pit_boxes.len();
    if let Some(&wanted) = wishes.iter().flatten().find(|&&b| b == 0 || b > boxes) {
        return Err(NoSuchBox { wanted, boxes });
    }
    let mut taken = vec![false; boxes];
    let mut out = vec![None; wishes.len()];
    let turns: Vec<usize> = match order {
        PitChoice::GridOrder => (0..wishes.len()).collect(),
        PitChoice::ReverseGrid => (0..wishes.len()).rev().collect(),
    };
    for i in turns {
        let pick = wishes[i]
            .iter()
            .map(|&b| b - 1)
            .find(|&b| !taken[b])
            .or_else(|| (i < boxes && !taken[i]).then_some(i))
            .or_else(|| taken.iter().position(|&x| !x));
        if let Some(b) = pick {
            taken[b] = true;
            out[i] = Some(t.pit_boxes[b]);
        }
    }
    Ok(out)
}

/// The index of `s` along the pit lane.
fn lane_index(t: &Track, s: SpaceIdx) -> Option<usize> {
    t.pit_lane.iter().position(|&x| x == s)
}

/// True when `car` may enter the pit lane on this move: racing on the track, not at the start
/// nor on the last lap (19-1-7), one whole lap on its tyres since its last stop (19-2-4), and a
/// box to go to.
pub fn open_for(t: &Track, s: &RaceState, car: CarId) -> bool {
    let c = s.car(car);
    let own = own_box(t, s, car);
    c.status == Status::Racing
        && !c.backmarker
        && c.pit.stage == PitStage::Out
        && c.crossings >= 1
        && c.crossings < s.laps
        && c.pit.last_stop.is_none_or(|l| lap_on_the_set(t, c.crossings, l, own))
        && own.is_some()
        && !t.pit_lane.is_empty()
}

/// 19-2-4: « Il faut avoir effectué au moins un tour de circuit avec le même train de pneus »,
/// the lap being the set's (8-0-2). A set fitted at a box before the line starts its lap at the
/// line just after: the car may stop again once it has crossed the line since (`crossings >
/// last_stop`). A set fitted at a box beyond the line has crossed it already: back at the pit
/// entry, the car has run its lap on it, before crossing again.
fn lap_on_the_set(t: &Track, crossings: u16, last_stop: u16, own: Option<SpaceIdx>) -> bool {
    crossings > last_stop || (crossings == last_stop && own.is_some_and(|b| !box_before_line(t, b)))
}

/// True when the car stands in the pit lane (a box included).
pub fn in_lane(t: &Track, c: &CarState) -> bool {
    t.space(c.space).in_pit_lane()
}

/// Checks `gear` against the pit-lane gear rules of the 2004 text (19-1-8, 19-1-9, 19-3-4,
/// 19-4-2), the strictest: a gear they allow is allowed by every profile.
pub fn check_gear(t: &Track, s: &RaceState, car: CarId, gear: u8) -> Result<(), PitError> {
    check_gear_with(t, s, car, gear, &RuleSet::COMPETITION_2004)
}

/// Checks `gear` against the pit-lane gear rules of `set`: 19-1-8 and 19-1-9 are 2004 rules
/// (2002 19-1-6: "no minimum or maximum gear in the pit lane"; 2002 19-3-4: "4th gear or less").
pub fn check_gear_with(t: &Track, s: &RaceState, car: CarId, gear: u8, set: &RuleSet) -> Result<(), PitError> {
    let c = s.car(car);
    match c.pit.stage {
        PitStage::Out => Ok(()),
        PitStage::Stopped { max_gear } => {
            if gear == 1 && set.no_first_from_box {
                Err(PitError::FirstGear)
            } else if gear > max_gear {
                Err(PitError::AboveExitGear { max: max_gear })
            } else {
                Ok(())
            }
        }
        PitStage::ToExit => {
            if gear == 1 && set.no_first_from_box {
                Err(PitError::FirstGear)
            } else {
                Ok(())
            }
        }
        PitStage::ToBox if !set.pit_lane_gear => Ok(()),
        PitStage::ToBox => {
            // 19-1-8: a gear whose highest roll reaches the box; failing that, the highest gear
            // the previous move allows.
            let (Some(at), Some(b)) = (lane_index(t, c.space), own_box(t, s, car).and_then(|b| lane_index(t, b)))
            else {
                return Ok(());
            };
            let spaces = b.saturating_sub(at) as u8;
            let allowed: Vec<u8> = (1..=6).filter(|&g| gearbox::change(c, g).is_ok()).collect();
            let reaching: Vec<u8> = allowed.iter().copied().filter(|&g| Die::Gear(g).range().1 >= spaces).collect();
            if !reaching.is_empty() {
                if reaching.contains(&gear) {
                    Ok(())
                } else {
                    let gears = reaching.iter().map(u8::to_string).collect::<Vec<_>>().join(", ");
                    Err(PitError::ShortOfTheBox { spaces, gears })
                }
            } else {
                match allowed.last() {
                    Some(&top) if top != gear => Err(PitError::NotTheHighest { gear: top }),
                    _ => Ok(()),
                }
            }
        }
    }
}

/// The board a car in the pit lane sees: a car in its box does not block the lane (the boxes
/// stand beside it, 19-2-1), a car in the lane does (19-1-5); for a car going to its box, the
/// lane ends at its box (19-2-5).
fn pit_occupancy(t: &Track, s: &RaceState, car: CarId, occupied: &[bool], pass_boxes: bool) -> Vec<bool> {
    let mut occ = occupied.to_vec();
    for (i, o) in s.cars.iter().enumerate() {
        if pass_boxes && i != car.get() && o.status.on_board() && matches!(o.pit.stage, PitStage::Stopped { .. }) {
            occ[o.space.get()] = false;
        }
    }
    let c = s.car(car);
    if matches!(c.pit.stage, PitStage::Out | PitStage::ToBox)
        && let Some(b) = own_box(t, s, car).and_then(|b| lane_index(t, b))
    {
        for &x in &t.pit_lane[b + 1..] {
            occ[x.get()] = true;
        }
    }
    occ
}

/// The options of a car that enters the pit lane on this move (19-1-1, 19-2-2, 19-1-5): every
/// way into the lane that ends at its box (whatever is left of the roll), after the whole roll,
/// or just behind a car in the lane. Pricing as [`options`] (brakes on the track part, 19-1-3).
pub fn entry_options(t: &Track, s: &RaceState, car: CarId, occupied: &[bool], roll: u8, wet: bool) -> Vec<MoveOption> {
    let c = s.car(car);
    // No way in shorter than the fewest arrows to the lane: skip the search (19-1-1).
    if t.arrows_to_pit_lane(c.space) > roll || !open_for(t, s, car) {
        return Vec::new();
    }
    let occ = pit_occupancy(t, s, car, occupied, true);
    let board = Board { track: t, occupied: &occ, dangerous: &s.dangerous, pit_open: true, walls: true };
    // No way into the lane is shorter than the fewest arrows to it: the shorter ways are not
    // listed (`min`).
    let mover = Mover { start: c.space, stops: c.stops, max: roll, min: t.arrows_to_pit_lane(c.space) };
    // Only the ways into the lane are kept below: the search leaves out the states that cannot
    // get there (`reaches_to_pit_lane`, the same ways into the lane as `reaches`).
    let r = reaches_to_pit_lane(&board, &mover);
    let own = own_box(t, s, car);
    let mut out = Vec::new();
    let mut seen: Vec<SpaceIdx> = Vec::new();
    for k in 1..=roll {
        for reach in r.at(k) {
            if !t.space(reach.end()).in_pit_lane() || seen.contains(&reach.end()) {
                continue;
            }
            let next_blocked = t.next(reach.end()).iter().all(|&n| occ[n.get()]);
            // Never onto a car standing in its box (its space is passed, not taken).
            if occupied[reach.end().get()] {
                continue;
            }
            if k == roll || Some(reach.end()) == own || next_blocked {
                let mut o = build_option(t, c, wet, reach, 0, 0);
                o.path = r.path(reach);
                o.dangerous = r.dangerous_on(&o.path);
                if o.fate == Fate::Continues {
                    seen.push(reach.end());
                    out.push(o);
                }
            }
        }
    }
    out
}

/// The options of a car in the pit lane (19-1): along the single lane to its box (19-2-2, no
/// blocking behind a car, 19-1-5), or from its box out of the lane and onto the track. A car in
/// its box is passed, but its space is never taken: ways ending there are dropped, and if the
/// move can then only brake, the cars in their boxes block like the others for this move.
pub fn lane_options(t: &Track, s: &RaceState, car: CarId, occupied: &[bool], roll: u8, wet: bool) -> Vec<MoveOption> {
    let mut free = lane_options_with(t, s, car, occupied, roll, wet, true);
    free.retain(|o| !occupied[o.end.get()]);
    if free.iter().any(|o| o.brakes == 0) {
        return free;
    }
    lane_options_with(t, s, car, occupied, roll, wet, false)
}

fn lane_options_with(
    t: &Track,
    s: &RaceState,
    car: CarId,
    occupied: &[bool],
    roll: u8,
    wet: bool,
    pass_boxes: bool,
) -> Vec<MoveOption> {
    let c = s.car(car);
    let occ = pit_occupancy(t, s, car, occupied, pass_boxes);
    let board = Board { track: t, occupied: &occ, dangerous: &s.dangerous, pit_open: true, walls: true };
    let mover = Mover { start: c.space, stops: c.stops, max: roll, min: roll.saturating_sub(c.wear.brakes) };
    let r = reaches(&board, &mover);
    if r.longest < roll {
        // Short of the roll: at the box, or behind a car of the lane: no blocking (19-1-5,
        // 19-2-2). Beyond the lane, the blocking rules of the track apply (12).
        let far = r.at(r.longest);
        if let Some(reach) = far.iter().find(|x| t.space(x.end()).in_pit_lane()) {
            let mut o = build_option(t, c, wet, reach, 0, 0);
            o.path = r.path(reach);
            o.dangerous = r.dangerous_on(&o.path);
            return vec![o];
        }
    }
    options(t, c, roll, wet, &r)
}

/// The stop at the box (19-2, 19-3, 19-4), after the move that reached it: tyres announced and
/// regenerated, repairs, the quick stop's black die. Returns the spaces of a successful quick
/// stop's exit move (19-3-3), played at once in 4th by the caller.
pub fn stop(
    s: &mut RaceState,
    events: &mut Vec<Event>,
    car: CarId,
    order: &PitOrder,
    dice: &mut dyn Dice,
) -> Option<u8> {
    let kind = order.kind.unwrap_or(StopKind::Quick);
    let c = s.car_mut(car);
    // 19-2-6, 19-2-7: the tyres first, the same type unless another is announced.
    let tyres = order.tyres.unwrap_or(c.tyres);
    events.push(Event::PitStop { car, kind, tyres });
    c.tyres = tyres;
    c.tyre_lap = 1; // a new set: its laps count from 1 (8-0-2)
    let regained = c.pit.sheet.tyres.saturating_sub(c.wear.tyres);
    c.wear.tyres = c.pit.sheet.tyres; // 19-2-3
    if regained > 0 {
        events.push(Event::Repaired { car, part: Part::Tyres, points: regained, article: "19-2-3" });
    }
    c.pit.last_stop = Some(c.crossings);
    c.pit.stops += 1;
    match kind {
        StopKind::Long => {
            for &(part, points) in &order.repairs {
                *c.wear.get_mut(part) += points;
                c.pit_points -= points;
                events.push(Event::Repaired { car, part, points, article: "19-4-1" });
            }
            c.pit.stage = PitStage::Stopped { max_gear: PIT_EXIT_GEAR }; // 19-4-2
            None
        }
        StopKind::Quick => {
            let v = dice.roll(Die::Black, Some(car), Purpose::Pit);
            events.push(Event::Rolled { car: Some(car), die: Die::Black, purpose: Purpose::Pit, value: v });
            let c = s.car_mut(car);
            if v <= QUICK_STOP_MAX_FACE {
                // 19-3-3: half the face, rounded up, at once in 4th.
                let spaces = v.div_ceil(2);
                events.push(Event::QuickStop { car, spaces });
                c.gear = PIT_EXIT_GEAR;
                c.pit.stage = PitStage::ToExit;
                Some(spaces)
            } else {
                events.push(Event::QuickStopMissed { car });
                c.pit.stage = PitStage::Stopped { max_gear: PIT_EXIT_GEAR }; // 19-3-4
                None
            }
        }
    }
}

/// Checks a pit decision against the car (19-3-1, 19-4-1, 4-0-2) before anything is applied,
/// under the 2004 rules.
pub fn check_order(c: &CarState, order: &PitOrder) -> Result<(), PitError> {
    check_order_with(c, order, &Rulebook::competition_2004())
}

/// Checks a pit decision against the car and `rules`: the tyres announced (2002 19-5-7), the
/// tyre types played (003-3), the repairs played (003-7), then 19-3-1, 19-4-1, 4-0-2.
pub fn check_order_with(c: &CarState, order: &PitOrder, rules: &Rulebook) -> Result<(), PitError> {
    if order.tyres.is_none() && !rules.set.same_tyres_by_default {
        return Err(PitError::TyresNotAnnounced);
    }
    if order.tyres.is_some_and(|t| !rules.tyres_allowed(t)) {
        return Err(PitError::NoTyreTypes);
    }
    let kind = order.kind.unwrap_or(StopKind::Quick);
    if kind == StopKind::Long && !rules.set.repairs {
        return Err(PitError::NoRepairs);
    }
    if kind == StopKind::Quick
        && let Some(&(part, _)) = order.repairs.iter().find(|(_, n)| *n > 0)
    {
        return Err(PitError::RepairOnQuickStop(part.name()));
    }
    let asked: u16 = order.repairs.iter().map(|&(_, n)| n as u16).sum();
    if asked > c.pit_points as u16 {
        return Err(PitError::NotEnoughPitPoints { asked: asked.min(255) as u8, left: c.pit_points });
    }
    let mut w = c.wear;
    for &(part, n) in &order.repairs {
        if part == Part::Tyres && n > 0 {
            return Err(PitError::TyreRepair);
        }
        let would = w.get(part).saturating_add(n);
        if would > c.pit.sheet.get(part) {
            return Err(PitError::AboveSheet { part: part.name(), would, sheet: c.pit.sheet.get(part) });
        }
        *w.get_mut(part) = would;
    }
    Ok(())
}

/// The stage after a move that ended on `end` (19-2-5, 19-1-9): entering the lane commits the
/// car to its box; leaving it puts the car back on the track.
pub fn stage_after(t: &Track, c: &CarState, end: SpaceIdx) -> PitStage {
    let in_lane = t.space(end).in_pit_lane();
    match c.pit.stage {
        PitStage::Out if in_lane => PitStage::ToBox,
        PitStage::ToBox => PitStage::ToBox,
        PitStage::Stopped { .. } | PitStage::ToExit if in_lane => PitStage::ToExit,
        PitStage::Stopped { .. } | PitStage::ToExit => PitStage::Out,
        stage => stage,
    }
}
