//! What driving instructions would do, shown before they are sent (issue 46): for each face of a
//! gear's die, the option the instructions would take on the board as it stands (the cars
//! ahead not moved yet), and what it costs. Pure: it plays the engine's own roll with each face
//! (`engine::play::roll` with fixed dice), so a preview on an empty board is what the engine then
//! does.

use crate::engine::play::reaches_box;
use crate::engine::{CarId, Die, Fate, FixedDice, MoveOption, RaceState, Rulebook, Step, roll};
use crate::orders::policy::{Decision, Facts, Lane, Policy, decide_with};
use crate::track::Track;
use crate::words::Lang;

/// What the instructions do with one face of the die.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// They take this option (its label, its end, its costs in words).
    Takes {
        /// The option's label among that roll's options.
        label: String,
        /// Where it ends and what it costs.
        text: String,
        /// Whether it costs nothing for sure: no wear point, no dangerous space, no spin.
        free: bool,
    },
    /// The bot decides (`BOT`).
    Bot,
    /// The player is asked (`ASK`, or nothing fits and no rule follows).
    Asked,
    /// The roll offers no choice (the move ends before it, or the face is not rolled by this
    /// gear in this position).
    NoChoice,
}

/// The facts the instructions need about the options of `rolled`: its boxes and lanes.
pub fn facts(t: &Track, rolled: &crate::engine::Rolled) -> Facts {
    Facts {
        boxes: (0..rolled.options.len()).map(|i| reaches_box(t, rolled, i)).collect(),
        lanes: rolled
            .options
            .iter()
            .map(|o| {
                let s = t.space(o.end);
                if s.kind.in_pit_lane() { None } else { Lane::of(t.lanes, s.lane) }
            })
            .collect(),
    }
}

/// Each distinct face of gear `gear`'s die, lowest first, with what `policy` does with it for
/// car `car` in `state` if it were the car's turn now. Empty when the gear cannot be engaged.
pub fn preview(
    t: &Track,
    state: &RaceState,
    car: CarId,
    gear: u8,
    rules: &Rulebook,
    policy: &Policy,
    lang: Lang,
) -> Vec<(u8, Outcome)> {
    if !(1..=6).contains(&gear) {
        return Vec::new();
    }
    let mut faces: Vec<u8> = Die::Gear(gear).faces().to_vec();
    faces.sort_unstable();
    faces.dedup();
    let mut s = state.clone();
    s.to_play = Some(car);
    let mut out = Vec::new();
    for face in faces {
        let mut dice = FixedDice::new(vec![face]);
        let outcome = match roll(t, &s, car, gear, &mut dice, rules) {
            Ok(Step::Choose(rolled)) if dice.problems.is_empty() && rolled.roll == face => {
                match decide_with(policy, &rolled.options, &facts(t, &rolled)) {
                    Some(Decision::Take { index, label }) | Some(Decision::Stop { index, label, .. }) => {
                        let o = &rolled.options[index];
                        let free = o.brake_points() + o.tyre_points() == 0
                            && o.dangerous.is_empty()
                            && o.fate == Fate::Continues;
                        Outcome::Takes { label, text: describe(t, o, lang), free }
                    }
                    Some(Decision::AskBot) => Outcome::Bot,
                    Some(Decision::Ask) | None => Outcome::Asked,
                }
            }
            Ok(_) => Outcome::NoChoice,
            Err(_) => return Vec::new(),
        };
        out.push((face, outcome));
    }
    out
}

/// An option in a few words: where it ends, how far, what it costs for sure.
pub fn describe(t: &Track, o: &MoveOption, lang: Lang) -> String {
    let fr = lang == Lang::Fr;
    let mut s = format!("{} ({} {})", t.space(o.end).id, o.spaces, if fr { "cases" } else { "spaces" });
    let mut costs = Vec::new();
    if o.brake_points() > 0 {
        let n = o.brake_points();
        let s = if n > 1 { "s" } else { "" };
        costs.push(if fr { format!("{n} point{s} de freins") } else { format!("{n} brake point{s}") });
    }
    if o.tyre_points() > 0 {
        let n = o.tyre_points();
        let s = if n > 1 { "s" } else { "" };
        costs.push(if fr { format!("{n} point{s} de pneus") } else { format!("{n} tyre point{s}") });
    }
    let n = o.dangerous.len();
    if n > 0 {
        let s = if n > 1 { "s" } else { "" };
        costs.push(if fr { format!("{n} case{s} dangereuse{s}") } else { format!("{n} dangerous space{s}") });
    }
    if o.slip.is_some() {
        costs.push((if fr { "aspiration" } else { "slipstream" }).to_string());
    }
    match o.fate {
        Fate::Continues => {}
        Fate::SpinOut => costs.push((if fr { "tête-à-queue" } else { "spins out" }).to_string()),
        Fate::Eliminated(_) => costs.push((if fr { "éliminée" } else { "eliminated" }).to_string()),
    }
    if costs.is_empty() {
        costs.push((if fr { "sans usure" } else { "no wear" }).to_string());
    }
    s.push_str(", ");
    s.push_str(&costs.join(", "));
    s
}

/// The preview as lines of a mail: `  face 7: B 5.l.3 (7 spaces), no wear`.
pub fn lines(rows: &[(u8, Outcome)], lang: Lang) -> String {
    let fr = lang == Lang::Fr;
    let mut out = String::new();
    for (face, o) in rows {
        let what = match o {
            Outcome::Takes { label, text, .. } => format!("{label} {text}"),
            Outcome::Bot => (if fr { "le robot choisit" } else { "the bot chooses" }).to_string(),
            Outcome::Asked => (if fr { "on vous demande" } else { "you are asked" }).to_string(),
            Outcome::NoChoice => (if fr { "pas de choix" } else { "no choice" }).to_string(),
        };
        let colon = if fr { " :" } else { ":" };
        out.push_str(&format!("  face {face:>2}{colon} {what}\n"));
    }
    out
}
