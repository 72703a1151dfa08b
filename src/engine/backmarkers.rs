//! Backmarkers (002 "Backmarkers", ruling 49): slow cars no player drives, put on the track at
//! the end of the round in which the leader finishes the first lap, for the field to lap.
//!
//! Why a module of its own: a backmarker is a car of the race state that follows its own rules.
//! Where and how many are placed, which of its options it takes (the middle lane, never closing
//! the track), that it takes no damage and is taken off once every player car has passed it, are
//! decisions no player makes; they are all here, and the rest of the engine asks only
//! [`CarState::backmarker`](super::state::CarState::backmarker).
//!
//! 002 gives them "3rd gear" and "a d20 for movement", a roll its absent movement table turns
//! into movement points. Steward's cars move on the real Formula Dé gear dice, so a backmarker
//! rolls the 3rd-gear die (docs/rulings.md, ruling 49).

use crate::track::{SpaceIdx, Track};

use super::car::Wear;
use super::events::Event;
use super::options::{Fate, MoveOption};
use super::order::race_distance;
use super::pits::PitState;
use super::rulebook::Tyres;
use super::state::{CarId, CarState, RaceState, Status};

/// A backmarker's gear, always (002: "Backmarkers always use 3rd gear").
pub const GEAR: u8 = 3;

/// The wear points a backmarker starts each move with: it "can cause but not receive Bodywork
/// damage" (002), and no part of it wears; its points are put back after every move.
pub const WEAR: Wear = Wear { tyres: 20, brakes: 20, gas: 20, body: 20, engine: 20, handling: 20 };

/// Whether a race plays with backmarkers, and where they stand.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub enum Backmarkers {
    /// No backmarkers (every rulebook but the 002 series option).
    #[default]
    Off,
    /// To be placed when the leader finishes the first lap.
    Due,
    /// Placed.
    Placed,
}

/// The player cars still playing: backmarkers left out.
fn field(s: &RaceState) -> impl Iterator<Item = CarId> + '_ {
    s.ids().filter(|&c| !s.car(c).backmarker && s.car(c).status.plays())
}

/// The race leader among the player cars (backmarkers are "always considered to be many laps
/// behind").
pub fn race_leader(s: &RaceState, t: &Track) -> Option<CarId> {
    super::order::leader_among(s, t, |c| !c.backmarker)
}

/// True when the backmarkers are due now: the leader has finished the first lap (002).
pub fn due(t: &Track, s: &RaceState) -> bool {
    s.backmarkers == Backmarkers::Due && race_leader(s, t).is_some_and(|l| s.car(l).crossings >= 2)
}

/// The lane a backmarker drives in (002: "the centre lane"); on a track with an even number
/// of lanes, the one right of the centre line.
pub fn centre_lane(t: &Track) -> u8 {
    t.lanes / 2
}

/// Places the backmarkers (002): "a number ... equal to half the remaining field (rounded down)",
/// each "in the centre lane at least one track section (straight or corner) ahead of the leading
/// car". Steward places them itself (ruling 49): the first on the first free centre-lane space of
/// the first straight after the leader's section, the next on the straight after that, and so on
/// (on a straight, a placed car owes no corner stop). They are numbered
/// from 99 down, skipping the numbers players have.
pub fn place(t: &Track, s: &mut RaceState, events: &mut Vec<Event>) {
    s.backmarkers = Backmarkers::Placed;
    let Some(lead) = race_leader(s, t) else { return };
    let count = field(s).count() / 2;
    let lead_space = s.car(lead).space;
    let lead_progress = t.space(lead_space).progress;
    let sections = t.segments.len() as u16;
    // The leader's section (in the pit lane: the section where the lane rejoins the track).
    let lead_section = t.space(lead_space).segment.unwrap_or_else(|| {
        let after = t.indices().find(|&x| !t.space(x).in_pit_lane() && t.space(x).progress > lead_progress);
        after.and_then(|x| t.space(x).segment).unwrap_or(0)
    });
    let taken: Vec<u8> = s.cars.iter().map(|c| c.number).collect();
    let mut numbers = (1..=99u8).rev().filter(|n| !taken.contains(n));
    let mut section = lead_section;
    for _ in 0..count {
        let Some(number) = numbers.next() else { return };
        // The next section ahead with a free centre-lane space.
        let mut spot = None;
        for _ in 0..sections {
            section = (section + 1) % sections.max(1);
            spot = t
                .indices()
                .filter(|&x| {
                    let sp = t.space(x);
                    let on_straight = !sp.in_pit_lane() && sp.corner.is_none();
                    on_straight && sp.segment == Some(section) && sp.lane == centre_lane(t)
                })
                .find(|&x| s.car_on(x).is_none());
            if spot.is_some() {
                break;
            }
        }
        let Some(space) = spot else { return };
        let progress = t.space(space).progress;
        let leader_crossings = s.car(lead).crossings;
        let mut car = CarState::on_grid(number, space, &super::car::Setup { wear: WEAR, tyres: Tyres::Hard }, 0, 0);
        car.backmarker = true;
        car.gear = GEAR;
        car.status = Status::Racing;
        car.arrival = s.next_arrival;
        s.next_arrival += 1;
        // Ahead of the leader: on its lap, or on the next one past the line.
        car.crossings = if progress > lead_progress { leader_crossings } else { leader_crossings + 1 };
        car.pit = PitState::new(WEAR);
        s.cars.push(car);
        let id = CarId((s.cars.len() - 1) as u8);
        events.push(Event::BackmarkerPlaced { car: id });
    }
    fit_tyres(s);
}

/// Takes off the track the backmarkers every player car still playing has passed (002: "may be
/// removed after they have been passed by all remaining player cars"; ruling 49: at the end of
/// that round).
pub fn withdraw_passed(t: &Track, s: &mut RaceState, events: &mut Vec<Event>) {
    let ids: Vec<CarId> = s.ids().filter(|&c| s.car(c).backmarker && s.car(c).status.plays()).collect();
    for b in ids {
        let own = race_distance(s, t, b);
        let passed = field(s).all(|c| race_distance(s, t, c) > own);
        if passed {
            s.car_mut(b).status = Status::Withdrawn;
            events.push(Event::BackmarkerWithdrawn { car: b });
        }
    }
}

/// Takes every backmarker off once no player car plays: the race is over.
pub fn withdraw_all(s: &mut RaceState, events: &mut Vec<Event>) {
    for c in 0..s.cars.len() {
        if s.cars[c].backmarker && s.cars[c].status.on_board() {
            s.cars[c].status = Status::Withdrawn;
            events.push(Event::BackmarkerWithdrawn { car: CarId(c as u8) });
        }
    }
}

/// True when a car on `end` would close the track with the cars already there (002: "A
/// backmarker never ends its move in a space which completely blocks the track"): no free way
/// leads from the spaces just behind `end` to those just past its row. On staggered lanes a row
/// is not a line of spaces, so the test is a search over the arrows, not a count of the spaces
/// beside.
pub fn closes_track(t: &Track, s: &RaceState, mover: CarId, end: SpaceIdx) -> bool {
    if t.space(end).in_pit_lane() {
        return false;
    }
    let taken = |x: SpaceIdx| x == end || s.car_on(x).is_some_and(|c| c != mover);
    let racing = |x: &SpaceIdx| !t.space(*x).in_pit_lane();
    // The row: `end` and the spaces beside it. Past it: two arrows on from the row.
    let mut row = vec![end];
    row.extend(t.beside(end).iter().copied().filter(racing));
    let step = |from: &[SpaceIdx], links: &dyn Fn(SpaceIdx) -> Vec<SpaceIdx>| -> Vec<SpaceIdx> {
        let mut out: Vec<SpaceIdx> = from.iter().flat_map(|&x| links(x)).filter(racing).collect();
        out.sort();
        out.dedup();
        out
    };
    let next = |x: SpaceIdx| t.next(x).to_vec();
    let prev = |x: SpaceIdx| t.prev(x).to_vec();
    let one_on = step(&row, &next);
    let past: Vec<SpaceIdx> = step(&one_on, &next).into_iter().filter(|x| !row.contains(x)).collect();
    let one_back = step(&row, &prev);
    let behind: Vec<SpaceIdx> = step(&one_back, &prev).into_iter().filter(|x| !row.contains(x) && !taken(*x)).collect();
    // From behind, along the arrows, never onto a car, to past the row.
    let mut seen = behind.clone();
    let mut frontier = behind;
    for _ in 0..8 {
        if frontier.iter().any(|x| past.contains(x)) {
            return false;
        }
        let mut more = Vec::new();
        for &x in &frontier {
            for &n in t.next(x) {
                if racing(&n) && !taken(n) && !seen.contains(&n) {
                    seen.push(n);
                    more.push(n);
                }
            }
        }
        if more.is_empty() {
            break;
        }
        frontier = more;
    }
    !frontier.iter().any(|x| past.contains(x))
}

/// The option a backmarker takes (002): never one that puts it out, never one that closes the
/// track ("instead does not move the final space(s)"); one without a corner overshoot if it has
/// any (it drives the corners as a careful 3rd-gear car, ruling 49); the farthest of those, in
/// the centre lane if it can ("Backmarkers drive in the middle lane if possible ... pass on the
/// outside ... if necessary to avoid other cars"), then the cheapest, then the first listed.
pub fn choose(t: &Track, s: &RaceState, car: CarId, options: &[MoveOption]) -> usize {
    let start = s.car(car).space;
    let gone = |o: &MoveOption| t.progress_gap(start, o.end);
    let ok = |o: &MoveOption| o.fate == Fate::Continues && !closes_track(t, s, car, o.end);
    let clean = |o: &MoveOption| o.overshoot.is_none() && o.missed.is_none();
    let cost = |o: &MoveOption| u32::from(o.brakes) + u32::from(o.blocking_brakes) + u32::from(o.blocking_tyres);
    let centre = |o: &MoveOption| t.space(o.end).lane == centre_lane(t);
    let fit: Vec<(usize, &MoveOption)> = options.iter().enumerate().filter(|(_, o)| ok(o)).collect();
    let any_clean = fit.iter().any(|(_, o)| clean(o));
    let fit: Vec<(usize, &MoveOption)> = fit.into_iter().filter(|(_, o)| !any_clean || clean(o)).collect();
    let farthest = fit.iter().map(|(_, o)| gone(o)).max().unwrap_or(0);
    // The middle lane when it gets within a row of the farthest; else around, on the outside of
    // the next corner when both sides get as far.
    let in_centre = |o: &MoveOption| centre(o) && gone(o) + crate::track::ROW >= farthest;
    let outside = outside_lane(t, start);
    let on_outside = |o: &MoveOption| Some(t.space(o.end).lane) == outside;
    let best = fit
        .iter()
        .max_by_key(|(i, o)| (in_centre(o), gone(o), on_outside(o), std::cmp::Reverse(cost(o)), std::cmp::Reverse(*i)))
        .map(|(i, _)| *i);
    best.or_else(|| options.iter().position(|o| o.fate == Fate::Continues)).unwrap_or(0)
}

/// The outside lane of the next corner ahead of `from` (the lane with the most spaces in it), on
/// a straight; `None` in a corner or the pit lane.
pub fn outside_lane(t: &Track, from: SpaceIdx) -> Option<u8> {
    let sp = t.space(from);
    if sp.corner.is_some() {
        return None;
    }
    let sections = t.segments.len() as u16;
    let next = (sp.segment? + 1) % sections.max(1);
    let corner = t.indices().map(|x| t.space(x)).find(|x| x.segment == Some(next)).and_then(|x| x.corner)?;
    let mut count = vec![0usize; usize::from(t.lanes)];
    for x in t.indices().map(|x| t.space(x)).filter(|x| x.corner == Some(corner) && !x.in_pit_lane()) {
        if let Some(c) = count.get_mut(usize::from(x.lane)) {
            *c += 1;
        }
    }
    (0..t.lanes).max_by_key(|&l| count[usize::from(l)])
}

/// After a backmarker's move: it has received no damage and stays in 3rd gear (002). A move that
/// put it out all the same (a slide into an overshoot, 8-1-2, 10-3) takes it off the track: it
/// leaves no car on the board and counts in no result.
pub fn after_move(s: &mut RaceState, car: CarId) {
    let c = s.car_mut(car);
    if !c.backmarker {
        return;
    }
    c.wear = WEAR;
    c.gear = GEAR;
    c.inertia = None;
    match c.status {
        Status::SpunOut | Status::Restarting | Status::Stalled => c.status = Status::Racing,
        Status::Eliminated { .. } => c.status = Status::Withdrawn,
        _ => {}
    }
}

/// The tyres of the backmarkers: rain tyres on a wet track, hard ones on a dry one (ruling 49;
/// they never stop at the pits, so they run on the tyres the weather asks for).
pub fn fit_tyres(s: &mut RaceState) {
    let tyres = if s.wet { Tyres::Rain } else { Tyres::Hard };
    for c in s.cars.iter_mut().filter(|c| c.backmarker) {
        c.tyres = tyres;
    }
}
