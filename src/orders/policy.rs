//! Standing orders: a player's rule that picks an option after a roll without a round-trip by
//! mail ("the farthest option that costs no wear point, else the safest"). Pure: it reads the
//! engine's priced options (`engine::MoveOption`, listed farthest first, 6-3) and never
//! re-derives a rule; the caller applies the label it returns through the store's `choose`.

use crate::engine::{Fate, MoveOption};

/// One rule of a standing order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Rule {
    /// The farthest option that costs no wear point for sure: no brake point (11-0-3, 12-0-1),
    /// no tyre point (10-0-2, 12-0-1), no spinout (10-4-1), no dangerous space and so no
    /// road-handling test (17-0-2), no entry into an oval's wall lane (15-0-2).
    FarthestFree,
    /// The farthest option that does not eliminate the car (10-3, 10-1, 12-1-1).
    Farthest,
    /// The option with the fewest wear points among those that neither eliminate nor spin the
    /// car; ties go to the fewest dangerous spaces, then to the farthest.
    Safest,
    /// The project's bot decides (`engine::bot`), as for a missed deadline, its pit stops
    /// included (19-2-6).
    Bot,
    /// Stop at the car's pit box when an option ends there (19-2-5): the cheapest such option,
    /// the stop (quick or long, tyres, repairs) decided by the bot (19-2-6, 19-3, 19-4).
    Pit,
}

impl Rule {
    /// Every rule, in the order documented.
    pub const ALL: [Rule; 5] = [Rule::FarthestFree, Rule::Farthest, Rule::Safest, Rule::Bot, Rule::Pit];

    /// The English keyword.
    pub fn en(self) -> &'static str {
        match self {
            Rule::FarthestFree => "FARTHEST-FREE",
            Rule::Farthest => "FARTHEST",
            Rule::Safest => "SAFEST",
            Rule::Bot => "BOT",
            Rule::Pit => "PIT",
        }
    }

    /// The French keyword.
    pub fn fr(self) -> &'static str {
        match self {
            Rule::FarthestFree => "LOIN-GRATUIT",
            Rule::Farthest => "LOIN",
            Rule::Safest => "SUR",
            Rule::Bot => "BOT",
            Rule::Pit => "STAND",
        }
    }

    /// Reads a rule name (either language, any case, accents and hyphens optional).
    pub fn parse(folded: &str) -> Option<Rule> {
        let w: String = folded.chars().filter(|c| c.is_ascii_alphanumeric()).collect();
        match w.as_str() {
            "farthestfree" | "furthestfree" | "freefarthest" | "loingratuit" | "plusloingratuit" | "gratuit"
            | "free" => Some(Rule::FarthestFree),
            "farthest" | "furthest" | "loin" | "plusloin" => Some(Rule::Farthest),
            "safest" | "safe" | "sur" | "prudent" | "plussur" => Some(Rule::Safest),
            "bot" | "robot" => Some(Rule::Bot),
            "pit" | "box" | "stand" | "arret" => Some(Rule::Pit),
            _ => None,
        }
    }
}

/// A standing order: rules tried in turn until one decides. No rule (`POLICY NONE`) means the
/// player is asked after every roll.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Policy {
    /// The rules, first tried first.
    pub rules: Vec<Rule>,
}

/// What a policy decides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Decision {
    /// Take this option: its index in the offered list and its label (`A`, `B`...).
    Take {
        /// Index into the options.
        index: usize,
        /// The label to pass to the store's `choose`.
        label: String,
    },
    /// Ask the bot policy, then apply its choice (and its stop, if the option ends at the box).
    AskBot,
    /// Take this option, which ends at the car's box, and stop as the bot decides (19-2-6).
    Stop {
        /// Index into the options.
        index: usize,
        /// The label to pass to the store's `choose_with_pit`.
        label: String,
    },
}

fn take(index: usize) -> Option<Decision> {
    Some(Decision::Take { index, label: MoveOption::label(index) })
}

fn eliminates(o: &MoveOption) -> bool {
    matches!(o.fate, Fate::Eliminated(_))
}

/// Wear points an option costs for sure.
fn wear(o: &MoveOption) -> u16 {
    o.brake_points() as u16 + o.tyre_points() as u16
}

/// Applies one rule; `None` when no option fits it. `boxes[i]` says whether option `i` ends at
/// the car's pit box (the engine's `play::reaches_box`; empty: none does).
pub fn apply(rule: Rule, options: &[MoveOption], boxes: &[bool]) -> Option<Decision> {
    match rule {
        // The engine lists options farthest first, so the first that fits is the farthest.
        Rule::FarthestFree => options
            .iter()
            .position(|o| wear(o) == 0 && o.fate == Fate::Continues && o.dangerous.is_empty() && o.wall == 0)
            .and_then(take),
        Rule::Farthest => options.iter().position(|o| !eliminates(o)).and_then(take),
        Rule::Safest => options
            .iter()
            .enumerate()
            .filter(|(_, o)| o.fate == Fate::Continues)
            .min_by_key(|(i, o)| (wear(o), o.dangerous.len() + o.wall as usize, *i))
            .and_then(|(i, _)| take(i)),
        Rule::Bot => (!options.is_empty()).then_some(Decision::AskBot),
        Rule::Pit => options
            .iter()
            .enumerate()
            .filter(|(i, o)| boxes.get(*i).copied().unwrap_or(false) && o.fate == Fate::Continues)
            .min_by_key(|(i, o)| (wear(o), *i))
            .map(|(index, _)| Decision::Stop { index, label: MoveOption::label(index) }),
    }
}

/// The first decision of the policy's rules over the options after a roll, or `None` when no
/// rule decides and the player must be asked.
pub fn decide(policy: &Policy, options: &[MoveOption]) -> Option<Decision> {
    decide_at(policy, options, &[])
}

/// [`decide`], knowing which options end at the car's pit box (for the `PIT` rule).
pub fn decide_at(policy: &Policy, options: &[MoveOption], boxes: &[bool]) -> Option<Decision> {
    policy.rules.iter().find_map(|&r| apply(r, options, boxes))
}
