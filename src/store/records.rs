//! Engine values as the turn files write them and read them back: wear, an option's one-line
//! text, the tyres a car starts on, the labels on offer and the option an answer names, and the
//! move part of a roll label.

use crate::engine::{Fate, MoveOption, Rolled, Rulebook, Tyres, Wear, explain};
use crate::track::Track;

use super::error::StoreError;
use super::files::{OrderRecord, PlayerRecord, WearRecord};

/// The move part of a roll label in dice namespace `epoch`: `12`, or `r1/12` after the game's
/// first rollback (docs/dice.md, section 3).
pub fn move_label(epoch: u32, move_no: u32) -> String {
    if epoch == 0 { move_no.to_string() } else { format!("r{epoch}/{move_no}") }
}

/// A decision as the v3 line of decisions takes it (docs/dice.md, section 3a): `3 gear 4`,
/// `3 choose B` (with ` pit <kind> <tyres> <part>=<n>...` when the choice settles a stop), `3
/// reroll`; a retirement is `3 retire`, a late arrival `3 join` (written by their callers).
pub fn decision_text(o: &OrderRecord) -> String {
    let mut s = o.car.to_string();
    if let Some(g) = o.gear {
        s.push_str(&format!(" gear {g}"));
    }
    if let Some(c) = &o.choose {
        s.push_str(&format!(" choose {c}"));
    }
    if o.reroll {
        s.push_str(" reroll");
    }
    if let Some(p) = &o.pit {
        s.push_str(&format!(" pit {} {}", p.kind.as_deref().unwrap_or("-"), p.tyres.as_deref().unwrap_or("-")));
        for (part, n) in &p.repairs {
            s.push_str(&format!(" {part}={n}"));
        }
    }
    s
}

/// The wear of a record.
pub fn wear_of(w: &WearRecord) -> Wear {
    Wear { tyres: w.tyres, brakes: w.brakes, gas: w.gas, body: w.body, engine: w.engine, handling: w.handling }
}

/// The record of a wear.
pub fn wear_record(w: &Wear) -> WearRecord {
    WearRecord { tyres: w.tyres, brakes: w.brakes, gas: w.gas, body: w.body, engine: w.engine, handling: w.handling }
}

/// A one-line summary of what an option costs and does.
pub fn option_text(t: &Track, o: &MoveOption) -> String {
    let mut parts = vec![format!("{} space(s) to {}", o.spaces, t.space(o.end).id)];
    if o.bonus {
        parts.push("soft-tyre +1 (8-2-1)".into());
    }
    if o.slide > 0 {
        parts.push(format!("slides {} on the wet track (8)", o.slide));
    }
    if o.wall > 0 {
        parts.push(format!("{} wall test(s) (15-0-2)", o.wall));
    }
    if o.brakes > 0 {
        parts.push(format!("brake {} ({} brake point(s))", o.brakes, o.brakes));
    }
    if let Some(slip) = &o.slip {
        parts.push(format!(
            "slipstream {} time(s) from {} (18-0-3; {} brake point(s))",
            slip.behind.len(),
            t.space(slip.from).id,
            slip.brake_points()
        ));
    }
    if o.blocked > 0 {
        parts.push(format!(
            "blocked {} short ({} brake, {} tyre point(s))",
            o.blocked, o.blocking_brakes, o.blocking_tyres
        ));
    }
    if let Some((c, n)) = o.overshoot {
        parts.push(format!(
            "overshoots corner {} by {n} ({} tyre point(s))",
            t.corners[c.get()].number,
            o.overshoot_tyres
        ));
    }
    if !o.dangerous.is_empty() {
        parts.push(format!("{} handling test(s)", o.dangerous.len()));
    }
    if let Some((c, n)) = o.stops {
        parts.push(format!("{n} of {} stop(s) in corner {}", t.corners[c.get()].stops, t.corners[c.get()].number));
    }
    match o.fate {
        Fate::Continues => {}
        Fate::SpinOut => parts.push("spins out".into()),
        Fate::Eliminated(e) => parts.push(format!("ELIMINATED ({})", e.name())),
    }
    parts.join("; ")
}

/// The tyres a car starts on (3-0-1, ruling 30): its `wet_tyres` when the track is wet at the
/// start and it named some, rain tyres for a bot that did not, else its `tyres`.
pub fn starting_tyres(p: &PlayerRecord, wet: bool, rules: &Rulebook) -> Tyres {
    let dry = Tyres::parse(&p.tyres).unwrap_or(Tyres::Hard);
    if !rules.set.tyre_types {
        return Tyres::Hard; // 003-3 off: hard tyres only (ruling 32)
    }
    if !wet {
        return dry;
    }
    match p.wet_tyres.as_deref().and_then(Tyres::parse) {
        Some(t) => t,
        None if p.bot => crate::engine::bot::tyres_for(true),
        None => dry,
    }
}

/// The labels on offer, `A to F` style.
pub fn labels(r: &Rolled) -> String {
    match r.options.len() {
        0 => "none".into(),
        1 => MoveOption::label(0),
        n => format!("{} to {}", MoveOption::label(0), MoveOption::label(n - 1)),
    }
}

/// The option a player's answer names: a label (`B`, any case) or a destination space id.
pub fn pick(t: &Track, rolled: &Rolled, answer: &str) -> Result<usize, StoreError> {
    let a = answer.trim();
    let upper = a.to_ascii_uppercase();
    if let Some(i) = (0..rolled.options.len()).find(|&i| MoveOption::label(i) == upper) {
        return Ok(i);
    }
    if t.find(a).is_some() {
        return Ok(explain::choose(t, rolled, a)?);
    }
    Err(StoreError::NoSuchOption { got: a.to_string(), labels: labels(rolled) })
}
