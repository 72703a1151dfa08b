//! Report modes (`REPORTS MINE|ROUND|ALL|NONE`, docs/orders.md): which jobs send a player an
//! unasked report, and the condensed summary of everything since that player's previous mail.
//! Pure: the daemon (`dispatch::replies`) keeps each player's mode and mark in the standing
//! state and calls [`due`] and [`condensed`].

use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

use crate::orders::ReportMode;
use crate::store::Game;
use crate::store::files::{Kind, TurnFile};
use crate::store::show::turn_summary;

/// Most turns one condensed summary reads (one line a move: five times a full report's).
pub const MAX_CONDENSED_TURNS: usize = crate::judge::report::MAX_TURNS * 5;

/// Where a player's last report stopped: kept per game and car in the standing state, and
/// snapshotted in `inflight.toml` before it changes, so that a job processed again after a
/// crash sends the same mails (docs/daemon.md).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mark {
    /// The last turn the player's previous mail told.
    pub turn: u32,
    /// The race's round at that mail.
    #[serde(default)]
    pub round: u32,
    /// The decision that mail asked for ([`prompt`]), if it asked one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asked: Option<String>,
    /// Receipts of the player's clean answers since that mail, held for their next mail
    /// ([`holds`]): an answer that was accepted and asks nothing more is not worth a mail of
    /// its own.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub held: String,
}

/// Most bytes of receipts held for one player's next mail; older ones are cut (the turn
/// files and `HISTORY` keep everything).
pub const MAX_HELD: usize = 8 * 1024;

impl Mark {
    /// This mark with `receipt` held for the next mail.
    pub fn holding(&self, receipt: &str) -> Mark {
        let mut held = format!("{}{}\n", self.held, receipt.trim_end());
        if held.len() > MAX_HELD {
            let mut cut = held.len() - MAX_HELD;
            while !held.is_char_boundary(cut) {
                cut += 1;
            }
            held = format!("(earlier receipts cut)\n{}", &held[cut..]);
        }
        Mark { held, ..self.clone() }
    }
}

/// Whether the receipt of a player's own clean mail (every order accepted, no note, nothing
/// else asked) waits for their next mail rather than going at once: in `MINE` and `ROUND`,
/// when nothing in the game would mail them now had the mail been another player's (no new
/// decision of theirs, no milestone, nothing that hit their car). Errors and refusals always
/// go at once.
pub fn holds(mode: ReportMode, g: &Game, car: u8, mark: &Mark, announced: bool) -> bool {
    matches!(mode, ReportMode::Mine | ReportMode::Round) && !due(mode, g, car, mark, false, announced)
}

/// The decision awaited from car `car`, named so that the same decision has the same name in
/// every job: a race's round order `round@<round>.<moves>` (`round::prompt_name`), a choice
/// `choice@<turn>`, a timed lap's `gear@<turn>` or `choice@<turn>`, the turn being the car's
/// last order (the decision after it is a new one). `None` when nothing is awaited from the car.
pub fn prompt(g: &Game, car: u8) -> Option<String> {
    if g.now.paused || g.now.over {
        return None;
    }
    // A round order (issue 46): asked once for the car's whole move, from the round's start
    // until its roll, so the car called to play after the cars ahead is not asked again.
    if let Some(name) = crate::judge::round::prompt_name(g, car) {
        return Some(name);
    }
    let (_, choice) = g.awaited_cars().into_iter().find(|(c, _)| *c == car)?;
    let last = g.turns.iter().rev().find(|t| t.orders.iter().any(|o| o.car == car)).map_or(0, |t| t.turn);
    Some(format!("{}@{last}", if choice { "choice" } else { "gear" }))
}

/// A player's report mode in game `g`: the one they chose (`code`, kept in the standing state),
/// else the game's default: `ROUND` in a game paced by rounds (`PACE ROUND`: the round prompt
/// is the round's one mail, issue 46), `MINE` otherwise.
pub fn mode_in(code: Option<&str>, g: &Game) -> ReportMode {
    match code.and_then(ReportMode::parse) {
        Some(m) => m,
        None if g.setup.deadlines.as_deref() == Some("round") => ReportMode::Round,
        None => ReportMode::Mine,
    }
}

/// The race's round (0 before the race).
pub fn round(g: &Game) -> u32 {
    g.now.race.as_ref().map_or(0, |r| r.state.round)
}

/// The mark after a mail that told `g` as it stands to car `car`'s player.
pub fn mark_now(g: &Game, car: u8) -> Mark {
    Mark { turn: g.next_turn().saturating_sub(1), round: round(g), asked: prompt(g, car), held: String::new() }
}

/// Whether car `car`'s player in `mode` gets a report of `g` now, their previous mail having
/// told up to `mark`. `own`: the job answers the player's own mail (its reply always tells);
/// `announced`: the job has lines for every player (a default move at a deadline, a refused
/// gear sent ahead).
pub fn due(mode: ReportMode, g: &Game, car: u8, mark: &Mark, own: bool, announced: bool) -> bool {
    if own || mode == ReportMode::All {
        return true;
    }
    if mode == ReportMode::None {
        return false;
    }
    let new = new_turns(g, mark);
    if new.is_empty() && !announced {
        return false;
    }
    let asked = prompt(g, car);
    let landmark = new.iter().any(milestone) || announced;
    let wanted = asked.is_some() && asked != mark.asked;
    match mode {
        ReportMode::Mine => wanted || landmark || new.iter().any(|t| hits(t, car)),
        ReportMode::Round => wanted || landmark || round(g) > mark.round,
        ReportMode::All | ReportMode::None => unreachable!("decided above"),
    }
}

fn new_turns<'a>(g: &'a Game, mark: &Mark) -> &'a [TurnFile] {
    let from = (mark.turn as usize + 1).min(g.turns.len());
    &g.turns[from..]
}

/// The race starts or ends, a moderator acts (a rollback too) or a player leaves: every player
/// hears of it.
fn milestone(t: &TurnFile) -> bool {
    t.over
        || matches!(t.kind, Kind::Start | Kind::Moderate | Kind::Rollback | Kind::Player | Kind::Reveal)
        || t.events.iter().any(|e| e.text.starts_with("the race weather is"))
}

/// The car an event is about (its text starts `car <n>`) and what the text says after it.
fn about(text: &str) -> Option<(u8, &str)> {
    let rest = text.strip_prefix("car ")?;
    let end = rest.find(|c: char| !c.is_ascii_digit()).unwrap_or(rest.len());
    Some((rest[..end].parse().ok()?, rest[end..].trim_start()))
}

/// The car an event is about.
fn subject(text: &str) -> Option<u8> {
    about(text).map(|(car, _)| car)
}

/// What an event says after `car <n>`: the routine parts of a move (the car's own line of the
/// condensed summary), or `None` for an incident.
fn routine(text: &str) -> Option<&str> {
    let (_, rest) = about(text)?;
    const ROUTINE: [&str; 20] = [
        "moves",
        "shifts",
        "loses",
        "brakes",
        "is blocked",
        "overshoots",
        "has ",
        "rolls",
        "to play",
        "takes the slipstream",
        "starts lap",
        "'s timed lap",
        "'s lap is over",
        "uses its soft-tyre",
        "enters the pit lane",
        "makes a ",
        "regains",
        "'s quick stop is made",
        "expends a driver point",
        "makes a super start",
    ];
    // `car 3's timed lap: ...` reads `timed lap: ...` after the car's name.
    ROUTINE.iter().any(|r| rest.starts_with(r)).then_some(rest.strip_prefix("'s ").unwrap_or(rest))
}

/// An incident that ends or stops a car: eliminated, spun, off the track, stalled, turned
/// round (the engine's event texts).
fn serious(text: &str) -> bool {
    const SERIOUS: [&str; 5] = ["is eliminated", "spins out", "is taken off the track", "stalls", "is turned round"];
    about(text).is_some_and(|(_, rest)| SERIOUS.iter().any(|w| rest.starts_with(w)))
}

/// Whether turn `t` did something to car `car` that its player did not do: an incident of the
/// car (a spin, an elimination, a body or engine test, a slide, a finish ...), a contact by
/// another car, wear lost outside its own move, or a move of its own played by the deadline or
/// a moderator.
pub fn hits(t: &TurnFile, car: u8) -> bool {
    let own_move = t.orders.iter().any(|o| o.car == car);
    let by = t.source.as_ref().and_then(|s| s.by.as_deref());
    if own_move && matches!(by, Some("deadline" | "moderator")) {
        return true;
    }
    t.events.iter().any(|e| {
        let about = subject(&e.text) == Some(car);
        let touched = e.text.ends_with(&format!("touching car {car}"));
        match routine(&e.text) {
            _ if touched => true,
            // In the car's own move, only what ends or stops it: a slide, a test passed or a
            // finish is told in the player's next mail.
            None if own_move => about && serious(&e.text),
            None => about,
            Some(rest) => about && !own_move && rest.starts_with("loses"),
        }
    })
}

/// The summary of every turn from `from` on, one line a move: `Turn a-b car c (gear g):` then
/// the roll, the option taken, the move, the wear; incidents, weather, moderators' actions and
/// each roll's label (for `verify --mail`) on lines of their own; joins, starts and the like as in a full report.
pub fn condensed(g: &Game, from: u32) -> String {
    let mut out = String::new();
    let from = (from as usize).min(g.turns.len());
    let start = from.max(g.turns.len().saturating_sub(MAX_CONDENSED_TURNS));
    if start > from {
        let _ = writeln!(out, "({} earlier turn(s) not shown: send HISTORY <n>)", start - from);
    }
    // Each line with the car it tells; the move in progress: (car, its line, first turn).
    let mut lines: Vec<(Option<u8>, String)> = Vec::new();
    let mut open: Option<(u8, usize, u32)> = None;
    for t in &g.turns[start..] {
        if t.kind != Kind::Move {
            open = None;
            let mut s = String::new();
            turn_summary(t, &mut s);
            let mut head = format!("Turn {} ({})", t.turn, t.kind.name());
            if let Some(m) = &t.moderation {
                head.push_str(&format!(": moderator {}", m.name()));
            }
            lines.push((None, head));
            lines.extend(s.lines().filter(|l| !l.trim().is_empty()).map(|l| (None, format!("  {}", l.trim()))));
            continue;
        }
        // The lines of the cars that gave an order in this turn.
        let mut touched: Vec<(u8, usize)> = Vec::new();
        let mut incidents = Vec::new();
        for o in &t.orders {
            let idx = match open {
                Some((c, i, first)) if c == o.car && o.gear.is_none() => {
                    let l = &mut lines[i].1;
                    *l = l.replacen(&format!("Turn {first} "), &format!("Turn {first}-{} ", t.turn), 1);
                    i
                }
                _ => {
                    let gear = o.gear.map(|g| format!(" (gear {g})")).unwrap_or_default();
                    // A move the bot played at the deadline says so (issue 46: the digest tells
                    // it, no mail of its own).
                    let by = t.source.as_ref().and_then(|s| s.by.as_deref());
                    let late = if by == Some("deadline") { " default move at the deadline;" } else { "" };
                    lines.push((Some(o.car), format!("Turn {} car {}{gear}:{late}", t.turn, o.car)));
                    open = Some((o.car, lines.len() - 1, t.turn));
                    lines.len() - 1
                }
            };
            touched.push((o.car, idx));
            if o.reroll {
                lines[idx].1.push_str(" re-rolls (driver point);");
            }
            if let Some(c) = &o.choose {
                lines[idx].1.push_str(&format!(" takes {c};"));
            }
            if o.gear.is_none() && o.choose.is_some() {
                open = None;
            }
        }
        for e in &t.events {
            match (subject(&e.text), routine(&e.text)) {
                (Some(c), Some(rest)) if !rest.starts_with("to play") && !rest.starts_with("shifts") => {
                    // The line of the car's move in this turn, else a line of its own.
                    let line = touched.iter().rev().find(|t| t.0 == c).map(|t| t.1);
                    match line {
                        Some(i) => lines[i].1.push_str(&format!(" {rest};")),
                        None => incidents.push((Some(c), format!("  {} ({})", e.text, e.article))),
                    }
                }
                (Some(_), Some(_)) => {}
                _ if e.text.starts_with("round ") => {}
                (c, None) => incidents.push((c, format!("  ! {} ({})", e.text, e.article))),
                (None, Some(_)) => unreachable!("a routine event names its car"),
            }
        }
        if let Some(m) = &t.moderation {
            incidents.push((None, format!("  moderator: {}", m.name())));
        }
        // Every roll with its label, as in a full report: `steward verify --mail` re-derives
        // them from the player's mails (docs/dice.md, section 5).
        for r in &t.rolls {
            incidents.push((None, format!("  roll {:<22} {:<10} face {:>2} = {}", r.label, r.die, r.face, r.value)));
        }
        lines.extend(incidents);
    }
    for (_, l) in lines {
        let _ = writeln!(out, "{}", l.trim_end_matches(';'));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_read_by_their_car() {
        assert_eq!(subject("car 12 spins out"), Some(12));
        assert_eq!(subject("the weather is rain"), None);
        assert_eq!(routine("car 3 moves 6 space(s) from a to b"), Some("moves 6 space(s) from a to b"));
        assert_eq!(routine("car 3 spins out"), None);
        assert_eq!(routine("car 3's timed lap: gear 3"), Some("timed lap: gear 3"));
    }
}
