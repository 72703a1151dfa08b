//! The canonical text of a race state, whose SHA-256 every turn records (`state_sha256`).
//!
//! One line per fact, ASCII, `\n`-terminated, spaces by id, so that the digest depends on the
//! state and nothing else (not on field order in memory, not on a serializer's version).
//! `docs/store.md` specifies the lines.

use crate::engine::pits::PitStage;

use crate::engine::state::OrderKey;
use crate::engine::{CarId, Fate, RaceState, Status};
use crate::track::Track;

use super::game::Pending;

/// Version line of the canonical text.
pub const VERSION: &str = "steward-state-v1";

/// A text buffer with cheap number formatting (the canonical text is written once a turn, by
/// every replay, so it avoids the formatting machinery).
struct W(Vec<u8>);

impl W {
    fn s(&mut self, x: &str) -> &mut Self {
        self.0.extend_from_slice(x.as_bytes());
        self
    }

    fn n(&mut self, v: impl Into<u64>) -> &mut Self {
        let mut v: u64 = v.into();
        if v < 10 {
            // Most numbers of the text are one digit (wear points, gears, stops, flags).
            self.0.push(b'0' + v as u8);
            return self;
        }
        let mut buf = [0u8; 20];
        let mut i = buf.len();
        loop {
            i -= 1;
            buf[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.0.extend_from_slice(&buf[i..]);
        self
    }

    fn car(&mut self, c: Option<CarId>) -> &mut Self {
        match c {
            Some(c) => self.n(c.0),
            None => self.s("-"),
        }
    }

    fn list(&mut self, v: &[CarId]) -> &mut Self {
        for (i, c) in v.iter().enumerate() {
            if i > 0 {
                self.s(",");
            }
            self.n(c.0);
        }
        self
    }

    fn pair(&mut self, p: Option<(u16, u8)>) -> &mut Self {
        match p {
            Some((a, b)) => self.n(a).s(",").n(b),
            None => self.s("-"),
        }
    }

    fn spaces(&mut self, t: &Track, v: &[crate::track::SpaceIdx]) -> &mut Self {
        for (i, &sp) in v.iter().enumerate() {
            if i > 0 {
                self.s(",");
            }
            self.s(&t.space(sp).id);
        }
        self
    }

    fn key(&mut self, k: OrderKey) -> &mut Self {
        self.n(k.progress).s(",").n(k.gear).s(",").n(k.early)
    }
}

/// The canonical text of `state` after `moves` moves, with the pending decision if any.
pub fn state_text(t: &Track, state: &RaceState, moves: u32, pending: Option<&Pending>) -> String {
    String::from_utf8(state_bytes(t, state, moves, pending)).expect("the canonical text is ASCII")
}

fn state_bytes(t: &Track, state: &RaceState, moves: u32, pending: Option<&Pending>) -> Vec<u8> {
    // Room for the whole text, options included, so that it is never copied as it grows.
    let options = pending.map_or(0, |p| p.rolled.options.iter().map(|o| 160 + 8 * o.path.len()).sum::<usize>());
    let mut w = W(Vec::with_capacity(256 + 200 * state.cars.len() + options));
    w.s(VERSION).s("\n");
    w.s("laps ").n(state.laps).s("\nmoves ").n(moves).s("\nround ").n(state.round);
    w.s("\nround_leader ").car(state.round_leader).s("\nplayed ").list(&state.played);
    w.s("\nto_play ").car(state.to_play).s("\nsweep ");
    match state.sweep {
        Some(k) => w.key(k),
        None => w.s("-"),
    };
    w.s("\nnext_arrival ").n(state.next_arrival).s("\nfinish ").list(&state.finish_order);
    // Written only under 004's finish rule, so that the digests of the others do not change.
    for p in &state.finish_portions {
        w.s("\nfinish_portion ").n(p.car.get() as u64).s(" ").n(p.round).s(" ").n(p.used).s("/").n(p.moved);
    }
    w.s("\nwet ").n(u8::from(state.wet));
    // Written only for a changeable race, so that the digests of the others do not change.
    if let Some(wx) = state.weather {
        w.s("\nweather ").s(wx.name()).s(" tests ").n(wx.tests);
        if wx.checks > 0 {
            // 002 lap-third checks passed (ruling 46); never set in other games.
            w.s(" checks ").n(wx.checks);
        }
    }
    // Written only in races with backmarkers (002, ruling 49).
    match state.backmarkers {
        crate::engine::backmarkers::Backmarkers::Off => {}
        crate::engine::backmarkers::Backmarkers::Due => {
            w.s("\nbackmarkers due");
        }
        crate::engine::backmarkers::Backmarkers::Placed => {
            w.s("\nbackmarkers placed");
        }
    }
    w.s("\ndangerous ").spaces(t, &state.dangerous).s("\n");
    for (i, c) in state.cars.iter().enumerate() {
        let wr = &c.wear;
        w.s("car ").n(i as u64).s(" number ").n(c.number).s(" space ").s(&t.space(c.space).id);
        w.s(" gear ").n(c.gear).s(" wear ").n(wr.tyres).s(",").n(wr.brakes).s(",").n(wr.gas).s(",");
        w.n(wr.body).s(",").n(wr.engine).s(",").n(wr.handling).s(" pit ").n(c.pit_points);
        w.s(" tyres ").s(c.tyres.name()).s(" tyre_lap ").n(c.tyre_lap).s(" crossings ").n(c.crossings);
        w.s(" stops ").pair(c.stops.map(|(k, n)| (k.0, n))).s(" status ").s(&status(c.status));
        w.s(" arrival ").n(c.arrival).s(" moves ").n(c.moves);
        if c.pit.stage != PitStage::Out || c.pit.stops > 0 {
            // Written only once a car has been to the pits (19), so older games keep their
            // digests.
            let stage = match c.pit.stage {
                PitStage::Out => "out".to_string(),
                PitStage::ToBox => "to_box".to_string(),
                PitStage::Stopped { max_gear } => format!("stopped:{max_gear}"),
                PitStage::ToExit => "to_exit".to_string(),
            };
            w.s(" pit_stage ").s(&stage).s(" pit_stops ").n(c.pit.stops);
            w.s(" last_stop ").n(c.pit.last_stop.map_or(0, u64::from));
        }
        // Written only when set, so that the digests of games without it do not change.
        if c.backmarker {
            w.s(" backmarker");
        }
        if let Some(b) = c.pit.own_box {
            w.s(" box ").s(&t.space(b).id);
        }
        if let Some(i) = c.inertia {
            w.s(" inertia ").s(i.name());
        }
        w.s("\n");
    }
    if let Some(p) = pending {
        let r = &p.rolled;
        w.s("pending car ").n(r.car.0).s(" move ").n(p.move_no).s(" next_roll ").n(p.next_index);
        w.s(" from ").s(&t.space(r.from).id).s(" start ").key(r.start_key);
        w.s(" gear ").n(r.gear).s(" roll ").n(r.roll);
        // Written only when set, so that the digests of games without re-rolls do not change.
        if p.rerolled {
            w.s(" rerolled");
        }
        w.s("\n");
        for (i, o) in r.options.iter().enumerate() {
            w.s("option ").n(i as u64).s(" end ").s(&t.space(o.end).id).s(" path ").spaces(t, &o.path);
            w.s(" spaces ").n(o.spaces).s(" brakes ").n(o.brakes).s(" blocked ").n(o.blocked);
            w.s(" blocking ").n(o.blocking_brakes).s(",").n(o.blocking_tyres);
            w.s(" overshoot ").pair(o.overshoot.map(|(c, n)| (c.0, n))).s(" tyres ").n(o.overshoot_tyres);
            w.s(" missed ");
            match o.missed {
                Some(c) => w.n(c.0),
                None => w.s("-"),
            };
            w.s(" dangerous ").spaces(t, &o.dangerous).s(" stops ").pair(o.stops.map(|(c, n)| (c.0, n)));
            w.s(" crossings ").n(o.crossings).s(" fate ").s(&fate(o.fate));
            if let Some(slip) = &o.slip {
                // Written only for a slipstream option (18), so older games keep their digests.
                w.s(" slip ").s(&t.space(slip.from).id).s(" behind ").list(&slip.behind);
                w.s(" short ").n(slip.short).s(" corner ").n(slip.corner_brakes);
            }
            // Written only when used, so that the digests of games without them do not change.
            if o.bonus {
                w.s(" bonus 1");
            }
            if o.slide > 0 {
                w.s(" slide ").n(o.slide);
            }
            if o.wall > 0 {
                w.s(" wall ").n(o.wall);
            }
            w.s("\n");
        }
    }
    w.0
}

/// SHA-256 of the canonical text, in hex.
pub fn state_digest(t: &Track, state: &RaceState, moves: u32, pending: Option<&Pending>) -> String {
    super::hash::sha256_hex(&state_bytes(t, state, moves, pending))
}

/// A status as written in the canonical text and the car sheets.
pub fn status(s: Status) -> String {
    match s {
        Status::Grid => "grid".into(),
        Status::Racing => "racing".into(),
        Status::SpunOut => "spun-out".into(),
        Status::Stalled => "stalled".into(),
        Status::Restarting => "restarting".into(),
        Status::Waiting => "waiting".into(),
        Status::Withdrawn => "withdrawn".into(),
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
