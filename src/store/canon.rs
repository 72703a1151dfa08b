//! The canonical text of a race state, whose SHA-256 every turn records (`state_sha256`).
//!
//! One line per fact, ASCII, `\n`-terminated, spaces by id, so that the digest depends on the
//! state and nothing else (not on field order in memory, not on a serializer's version).
//! `docs/store.md` specifies the lines.

use std::fmt::Write as _;

use sha2::{Digest, Sha256};

use crate::engine::{CarId, Fate, RaceState, Status, Wear};
use crate::track::Track;

use super::replay::Pending;

/// Version line of the canonical text.
pub const VERSION: &str = "steward-state-v1";

/// The canonical text of `state` after `moves` moves, with the pending decision if any.
pub fn state_text(t: &Track, state: &RaceState, moves: u32, pending: Option<&Pending>) -> String {
    let mut out = String::with_capacity(256 + 160 * state.cars.len());
    let id = |s: crate::track::SpaceIdx| t.space(s).id.as_str();
    let car = |c: Option<CarId>| c.map_or_else(|| "-".to_string(), |c| c.0.to_string());
    let list = |v: &[CarId]| v.iter().map(|c| c.0.to_string()).collect::<Vec<_>>().join(",");
    let _ = writeln!(out, "{VERSION}");
    let _ = writeln!(out, "laps {}", state.laps);
    let _ = writeln!(out, "moves {moves}");
    let _ = writeln!(out, "round {}", state.round);
    let _ = writeln!(out, "round_leader {}", car(state.round_leader));
    let _ = writeln!(out, "played {}", list(&state.played));
    let _ = writeln!(out, "to_play {}", car(state.to_play));
    match state.sweep {
        Some(k) => {
            let _ = writeln!(out, "sweep {},{},{}", k.progress, k.gear, k.early);
        }
        None => out.push_str("sweep -\n"),
    }
    let _ = writeln!(out, "next_arrival {}", state.next_arrival);
    let _ = writeln!(out, "finish {}", list(&state.finish_order));
    let _ = writeln!(out, "wet {}", u8::from(state.wet));
    let dangerous: Vec<&str> = state.dangerous.iter().map(|&s| id(s)).collect();
    let _ = writeln!(out, "dangerous {}", dangerous.join(","));
    for (i, c) in state.cars.iter().enumerate() {
        let stops = c.stops.map_or_else(|| "-".to_string(), |(k, n)| format!("{},{n}", k.get()));
        let _ = writeln!(
            out,
            "car {i} number {} space {} gear {} wear {} pit {} tyres {} tyre_lap {} crossings {} stops {stops} status {} arrival {} moves {}",
            c.number,
            id(c.space),
            c.gear,
            wear(&c.wear),
            c.pit_points,
            c.tyres.name(),
            c.tyre_lap,
            c.crossings,
            status(c.status),
            c.arrival,
            c.moves
        );
    }
    if let Some(p) = pending {
        let r = &p.rolled;
        let k = r.start_key;
        let _ = writeln!(
            out,
            "pending car {} move {} next_roll {} from {} start {},{},{} gear {} roll {}",
            r.car.0,
            p.move_no,
            p.next_index,
            id(r.from),
            k.progress,
            k.gear,
            k.early,
            r.gear,
            r.roll
        );
        for (i, o) in r.options.iter().enumerate() {
            let path: Vec<&str> = o.path.iter().map(|&s| id(s)).collect();
            let dangerous: Vec<&str> = o.dangerous.iter().map(|&s| id(s)).collect();
            let _ = writeln!(
                out,
                "option {i} end {} path {} spaces {} brakes {} blocked {} blocking {},{} overshoot {} tyres {} missed {} dangerous {} stops {} crossings {} fate {}",
                id(o.end),
                path.join(","),
                o.spaces,
                o.brakes,
                o.blocked,
                o.blocking_brakes,
                o.blocking_tyres,
                o.overshoot.map_or_else(|| "-".to_string(), |(c, n)| format!("{},{n}", c.get())),
                o.overshoot_tyres,
                o.missed.map_or_else(|| "-".to_string(), |c| c.get().to_string()),
                dangerous.join(","),
                o.stops.map_or_else(|| "-".to_string(), |(c, n)| format!("{},{n}", c.get())),
                o.crossings,
                fate(o.fate)
            );
        }
    }
    out
}

/// SHA-256 of the canonical text, in hex.
pub fn state_digest(t: &Track, state: &RaceState, moves: u32, pending: Option<&Pending>) -> String {
    hex::encode(Sha256::digest(state_text(t, state, moves, pending).as_bytes()))
}

fn wear(w: &Wear) -> String {
    format!("{},{},{},{},{},{}", w.tyres, w.brakes, w.gas, w.body, w.engine, w.handling)
}

/// A status as written in the canonical text and the car sheets.
pub fn status(s: Status) -> String {
    match s {
        Status::Grid => "grid".into(),
        Status::Racing => "racing".into(),
        Status::SpunOut => "spun-out".into(),
        Status::Stalled => "stalled".into(),
        Status::Eliminated { reason, removed } => {
            format!("eliminated-{}{}", reason.name(), if removed { "-removed" } else { "" })
        }
        Status::Finished { place } => format!("finished-{place}"),
    }
}

fn fate(f: Fate) -> String {
    match f {
        Fate::Continues => "continues".into(),
        Fate::SpinOut => "spin-out".into(),
        Fate::Eliminated(e) => format!("eliminated-{}", e.name()),
    }
}
