//! Order of play (6-2): who moves next.
//!
//! A round of play starts with the race leader and sweeps backwards round the track, car by car,
//! to the car just in front of the leader (6-2-2, 6-2-5; the track is a loop). The sweep
//! continues behind the position the last mover *started* from, so a car that is passed keeps
//! its turn, while a car lapped during the round is now ahead of the sweep and loses a move; if
//! it re-passes the leader it is found again in front of the leader at the end of the round and
//! plays twice (6-2-5, worked example). Cars side by side play higher gear first, then the one
//! that arrived first (6-2-3); a spun car counts as in 1st (10-4-7), a stalled car plays after
//! (9-1-3).

use crate::track::Track;

use super::backmarkers;
use super::events::Event;
use super::state::{CarId, OrderKey, RaceState, Status};

/// The order key of `car` where it stands now.
pub fn key(state: &RaceState, t: &Track, car: CarId) -> OrderKey {
    let c = state.car(car);
    let gear = match c.status {
        Status::SpunOut | Status::Restarting => 1,
        Status::Stalled => 0,
        // 10-4-7: turned back after a spinout, the car waits with its lever in 1st (its gear is
        // 0 only so that it must restart in 1st).
        Status::Racing if c.gear == 0 => 1,
        _ => c.gear,
    };
    if let Some(i) = t.pit_place(c.space) {
        // 19-5-2: the cars in the pit lane play after the cars on the track that have passed the
        // pit-entry limit and before those that have not; among them, the one furthest along the
        // lane first. They stand at the limit, above any gear (the gear slot holds 7 + the lane
        // index), so a car on the entry space itself plays after them (19-5-5).
        let limit = t.pit_limit().unwrap_or(0);
        return OrderKey { progress: limit, gear: 7u8.saturating_add(i.min(200) as u8), early: u32::MAX - c.arrival };
    }
    OrderKey { progress: t.space(c.space).progress, gear, early: u32::MAX - c.arrival }
}

/// Distance run in the race, for finding the leader: crossings of the line, then progress.
pub fn race_distance(state: &RaceState, t: &Track, car: CarId) -> u64 {
    let c = state.car(car);
    c.crossings as u64 * t.lap_length as u64 + t.space(c.space).progress as u64
}

/// Distance run in the order of play (6-2-2, 19-5-2): [`race_distance`], but a car in the pit
/// lane counts where it passed the pit-entry limit, so that it plays after every car on the
/// track that has passed the limit and before those that have not (« 1) Celles sur la piste qui
/// ont franchi la limite. 2) Celles dans la zone des stands. 3) Enfin celles qui n'ont pas
/// franchi la limite »), whichever of them is farthest along.
pub fn play_distance(state: &RaceState, t: &Track, car: CarId) -> u64 {
    let d = race_distance(state, t, car);
    let c = state.car(car);
    match t.pit_limit() {
        Some(limit) if t.space(c.space).in_pit_lane() => {
            let past = crate::track::model::forward_gap(limit, t.space(c.space).progress, t.lap_length);
            d.saturating_sub(past as u64)
        }
        _ => d,
    }
}

/// The race leader among the cars still playing, the one who opens a round (6-2-5), counted in
/// the order of play ([`play_distance`], 19-5-2; ties by order key).
pub fn leader(state: &RaceState, t: &Track) -> Option<CarId> {
    leader_among(state, t, |_| true)
}

/// The leader among the cars still playing that `keep` keeps (ties by order key).
pub fn leader_among(state: &RaceState, t: &Track, keep: impl Fn(&super::state::CarState) -> bool) -> Option<CarId> {
    // The greatest (distance, order key), the last of equals (as `max_by_key`); a car's order
    // key is looked at only when its distance ties the best so far.
    let mut best: Option<(u64, OrderKey, CarId)> = None;
    for c in state.ids().filter(|&c| state.car(c).status.plays() && keep(state.car(c))) {
        let d = play_distance(state, t, c);
        match best {
            Some((bd, _, _)) if d < bd => {}
            Some((bd, bk, _)) if d == bd => {
                let k = key(state, t, c);
                if k >= bk {
                    best = Some((d, k, c));
                }
            }
            _ => best = Some((d, key(state, t, c), c)),
        }
    }
    best.map(|(_, _, c)| c)
}

/// Finds the next car to play and returns the state with the round bookkeeping updated
/// (a new round, eliminated cars taken off the track when their turn comes, spun cars turned
/// round at the end of the round), the car, and the events. `None` when the race is over.
pub fn advance(t: &Track, state: &RaceState) -> (RaceState, Option<CarId>, Vec<Event>) {
    let mut s = state.clone();
    let (car, events) = advance_in(t, &mut s);
    (s, car, events)
}

/// [`advance`] on the state itself, for a caller that keeps only the new one (a game being
/// played or replayed): no copy of the race is made.
pub fn advance_in(t: &Track, s: &mut RaceState) -> (Option<CarId>, Vec<Event>) {
    let mut events = Vec::new();
    if s.is_over() {
        // The race is over for the players: the backmarkers leave with them (002).
        backmarkers::withdraw_all(s, &mut events);
    }
    loop {
        // 004 "Late Arrivals": a late car leaves « on the same game turn that the last place car
        // passes that space »: released as soon as every car has passed it, it is met by this
        // round's sweep (it stands at the pit-entry limit, 19-5-2) and plays after that car.
        release_late(t, s, &mut events);
        let Some(mut lead) = leader(s, t) else {
            if release_late(t, s, &mut events) {
                continue;
            }
            return (None, events);
        };
        let found = match s.sweep {
            None => None,
            Some(pointer) => {
                // The first car behind the pointer, circularly; eliminated cars still on the
                // board are met too (they are taken off at their turn, 12-1-2, 14-2).
                // One pass: the greatest key behind the pointer, and the greatest of all.
                let mut behind: Option<(OrderKey, CarId)> = None;
                let mut top: Option<(OrderKey, CarId)> = None;
                for c in s.ids() {
                    let status = s.car(c).status;
                    if !(status.plays() || matches!(status, Status::Eliminated { removed: false, .. })) {
                        continue;
                    }
                    let k = (key(s, t, c), c);
                    if k.0 < pointer {
                        behind = behind.max(Some(k));
                    }
                    top = top.max(Some(k));
                }
                behind.or(top).map(|(_, c)| c)
            }
        };
        let ends_round = match found {
            None => true,
            // The sweep is back at the car that opened the round, or at a car that has played
            // and leads now (it took the lead, or the opener has finished).
            Some(c) => Some(c) == s.round_leader || (s.played.contains(&c) && c == lead),
        };
        if ends_round {
            if s.round_leader.is_some() {
                end_round(s, &mut events);
                release_late(t, s, &mut events);
                // 002 "Backmarkers": placed at the end of the round in which the leader finishes
                // the first lap; taken off once every player car has passed them (ruling 49).
                if backmarkers::due(t, s) {
                    backmarkers::place(t, s, &mut events);
                    // "When first placed, backmarkers are considered to be the front cars, i.e.
                    // their movement rolls are made before the race leader moves."
                    lead = leader(s, t).unwrap_or(lead);
                } else if s.backmarkers == backmarkers::Backmarkers::Placed {
                    backmarkers::withdraw_passed(t, s, &mut events);
                }
                s.round += 1;
            }
            s.round_leader = Some(lead);
            s.played.clear();
            s.sweep = None;
            events.push(Event::RoundStarted { round: s.round, leader: lead });
            events.push(Event::ToPlay { car: lead });
            s.to_play = Some(lead);
            return (Some(lead), events);
        }
        let c = found.expect("a car was found");
        if s.in_inertia(c) {
            // 16-0-3: a car whose engine broke plays its inertia move at its next turn.
            events.push(Event::ToPlay { car: c });
            s.to_play = Some(c);
            return (Some(c), events);
        }
        if let Status::Eliminated { reason, removed: false } = s.car(c).status {
            s.sweep = Some(key(s, t, c));
            s.car_mut(c).status = Status::Eliminated { reason, removed: true };
            events.push(Event::Removed { car: c });
            continue;
        }
        events.push(Event::ToPlay { car: c });
        s.to_play = Some(c);
        return (Some(c), events);
    }
}

/// Late arrivals (004 "Late Arrivals", ruling 47): a car waiting in the pit lane starts once
/// every car still playing has passed it, and plays in that same round (game turn), as a car
/// leaving its box. Returns whether one was released.
fn release_late(t: &Track, s: &mut RaceState, events: &mut Vec<Event>) -> bool {
    // Front first: a late car behind another in the lane cannot leave before it.
    let mut waiting: Vec<CarId> = s.ids().filter(|&c| s.car(c).status == Status::Waiting).collect();
    waiting.sort_by_key(|&c| std::cmp::Reverse(race_distance(s, t, c)));
    let mut released = false;
    for id in waiting {
        let own = race_distance(s, t, id);
        // Every car still playing has passed it, but those queued behind it in the pit lane.
        let clear = s
            .ids()
            .filter(|&o| o != id && s.car(o).status.plays())
            .filter(|&o| !(t.space(s.car(o).space).in_pit_lane() && race_distance(s, t, o) < own))
            .all(|o| race_distance(s, t, o) > own);
        if !clear {
            break;
        }
        // It leaves like a car out of its box (19-4-2, 19-1-9): lever in 2nd, no 1st before the
        // lane's exit (ruling 47).
        let c = s.car_mut(id);
        c.status = Status::Racing;
        c.gear = 2;
        events.push(Event::LateStart { car: id });
        released = true;
    }
    released
}

/// End-of-round housekeeping: spun cars are turned round and will restart in 1st after the
/// black-die roll of 10-4-6 (10-4-1).
fn end_round(s: &mut RaceState, events: &mut Vec<Event>) {
    for c in 0..s.cars.len() {
        let id = CarId(c as u8);
        if s.cars[c].status == Status::SpunOut {
            s.cars[c].status = Status::Restarting;
            s.cars[c].gear = 0;
            events.push(Event::Restarts { car: id });
        }
    }
}
