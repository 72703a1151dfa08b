//! Driving instructions: a player's rules that pick an option after a roll without a round-trip
//! by mail ("the farthest option that costs at most one brake point and does not overshoot,
//! else the safest, else ask me"). The same language serves the standing order (`POLICY`, kept
//! until replaced) and the round order's instructions for one move (`DRIVE`, issue 46). Pure: it
//! reads the engine's priced options (`engine::MoveOption`, listed farthest first, 6-3) and never
//! re-derives a rule; the caller applies the label it returns through the store's `choose`.

use crate::engine::{Fate, MoveOption, Part, Tyres};
use crate::orders::Stop;

/// What one instruction picks among the options that pass its conditions.
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
    /// the stop as written (`PIT LONG TYRES hard`) or else as the bot decides (19-2-6, 19-3,
    /// 19-4).
    Pit,
    /// Ask the player after the roll, as if no instruction had been sent.
    Ask,
}

impl Rule {
    /// Every rule, in the order documented.
    pub const ALL: [Rule; 6] = [Rule::FarthestFree, Rule::Farthest, Rule::Safest, Rule::Bot, Rule::Pit, Rule::Ask];

    /// The English keyword.
    pub fn en(self) -> &'static str {
        match self {
            Rule::FarthestFree => "FARTHEST-FREE",
            Rule::Farthest => "FARTHEST",
            Rule::Safest => "SAFEST",
            Rule::Bot => "BOT",
            Rule::Pit => "PIT",
            Rule::Ask => "ASK",
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
            Rule::Ask => "DEMANDER",
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
            "ask" | "askme" | "demander" | "demande" | "demandemoi" => Some(Rule::Ask),
            _ => None,
        }
    }
}

/// A lane the player prefers to end in, among options as far and no dearer (the track's lanes
/// named from the left as the car drives: `l`, `m`, `r` in the space ids).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Lane {
    /// The leftmost lane.
    Left,
    /// The middle lane of a three-lane track.
    Middle,
    /// The rightmost lane.
    Right,
}

impl Lane {
    /// The lane of lane index `lane` on a track `lanes` wide, as the space ids name it.
    pub fn of(lanes: u8, lane: u8) -> Option<Lane> {
        match (lanes, lane) {
            (_, 0) => Some(Lane::Left),
            (3, 1) => Some(Lane::Middle),
            (l, x) if x + 1 == l => Some(Lane::Right),
            _ => None,
        }
    }

    fn words(self) -> (&'static str, &'static str) {
        match self {
            Lane::Left => ("LEFT", "GAUCHE"),
            Lane::Middle => ("MIDDLE", "MILIEU"),
            Lane::Right => ("RIGHT", "DROITE"),
        }
    }

    /// Reads a lane word (either language).
    pub fn parse(folded: &str) -> Option<Lane> {
        match folded {
            "left" | "l" | "gauche" | "g" => Some(Lane::Left),
            "middle" | "centre" | "center" | "m" | "milieu" => Some(Lane::Middle),
            "right" | "r" | "droite" | "d" => Some(Lane::Right),
            _ => None,
        }
    }
}

/// The conditions an option must meet for an instruction to take it. None set: any option its
/// rule allows.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Limits {
    /// `BRAKES<=n`: at most n brake points (11-0-3, 12-0-1, 18-0-3).
    pub brakes: Option<u8>,
    /// `TYRES<=n`: at most n tyre points (10-0-2, 12-0-1).
    pub tyres: Option<u8>,
    /// `WEAR<=n`: at most n brake and tyre points together.
    pub wear: Option<u8>,
    /// `NO-OVERSHOOT`: no corner overshot (10-0-1) and no corner left short of its stops (10-1).
    pub no_overshoot: bool,
    /// `NO-DANGER`: no dangerous space entered (17-0-2).
    pub no_danger: bool,
    /// `SLIPSTREAM YES`: a slipstream when one is on offer; `SLIPSTREAM NO`: never (18).
    pub slipstream: Option<bool>,
    /// `LANE LEFT|MIDDLE|RIGHT`: among options as far and no dearer, the one ending in that lane.
    pub lane: Option<Lane>,
}

impl Limits {
    fn allows(&self, o: &MoveOption) -> bool {
        self.brakes.is_none_or(|n| o.brake_points() <= n)
            && self.tyres.is_none_or(|n| o.tyre_points() <= n)
            && self.wear.is_none_or(|n| wear(o) <= u16::from(n))
            && !(self.no_overshoot && (o.overshoot.is_some() || o.missed.is_some()))
            && (!self.no_danger || o.dangerous.is_empty())
            && !(self.slipstream == Some(false) && o.slip.is_some())
    }

    fn text(&self, fr: bool) -> String {
        let mut out = Vec::new();
        let pick = |en: &'static str, f: &'static str| if fr { f } else { en };
        if let Some(n) = self.brakes {
            out.push(format!("{}<={n}", pick("BRAKES", "FREINS")));
        }
        if let Some(n) = self.tyres {
            out.push(format!("{}<={n}", pick("TYRES", "PNEUS")));
        }
        if let Some(n) = self.wear {
            out.push(format!("{}<={n}", pick("WEAR", "USURE")));
        }
        if self.no_overshoot {
            out.push(pick("NO-OVERSHOOT", "SANS-SORTIE").to_string());
        }
        if self.no_danger {
            out.push(pick("NO-DANGER", "SANS-DANGER").to_string());
        }
        if let Some(s) = self.slipstream {
            let yes = match (s, fr) {
                (true, false) => "YES",
                (false, false) => "NO",
                (true, true) => "OUI",
                (false, true) => "NON",
            };
            out.push(format!("{} {yes}", pick("SLIPSTREAM", "ASPIRATION")));
        }
        if let Some(l) = self.lane {
            let (en, f) = l.words();
            out.push(format!("{} {}", pick("LANE", "COULOIR"), pick(en, f)));
        }
        out.join(" ")
    }
}

/// A pit stop written in an instruction (`PIT LONG TYRES hard REPAIR brakes=2`), as the `PIT`
/// order after a roll writes it (19-2-6, 19-3, 19-4).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PitPlan {
    /// Quick or long.
    pub stop: Stop,
    /// The tyres to leave on; none keeps the same type (19-2-7).
    pub tyres: Option<Tyres>,
    /// Wear points to repair, part by part (19-4).
    pub repairs: Vec<(Part, u8)>,
}

impl PitPlan {
    fn text(&self, fr: bool) -> String {
        let mut s = match (self.stop, fr) {
            (Stop::Quick, false) => "QUICK".to_string(),
            (Stop::Quick, true) => "RAPIDE".to_string(),
            (Stop::Long, _) => "LONG".to_string(),
        };
        if let Some(t) = self.tyres {
            s.push_str(&format!(" {} {}", if fr { "PNEUS" } else { "TYRES" }, t.name()));
        }
        if !self.repairs.is_empty() {
            s.push_str(if fr { " REPARER" } else { " REPAIR" });
            for (p, n) in &self.repairs {
                s.push_str(&format!(" {}={n}", p.name()));
            }
        }
        s
    }
}

/// One instruction: a rule, its conditions and, for `PIT`, the stop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Instruction {
    /// What it picks.
    pub rule: Rule,
    /// What an option must meet.
    pub limits: Limits,
    /// The stop a `PIT` instruction makes (none: the bot decides it, 19-2-6).
    pub pit: Option<PitPlan>,
}

impl Instruction {
    /// A rule with no condition.
    pub fn of(rule: Rule) -> Instruction {
        Instruction { rule, limits: Limits::default(), pit: None }
    }

    /// The instruction as written in English (`FARTHEST BRAKES<=1 NO-OVERSHOOT`): read back by
    /// the order parser.
    pub fn en(&self) -> String {
        self.text(false)
    }

    /// The instruction in French (`LOIN FREINS<=1 SANS-SORTIE`).
    pub fn fr(&self) -> String {
        self.text(true)
    }

    fn text(&self, fr: bool) -> String {
        let mut s = (if fr { self.rule.fr() } else { self.rule.en() }).to_string();
        if let Some(p) = &self.pit {
            s.push(' ');
            s.push_str(&p.text(fr));
        }
        let l = self.limits.text(fr);
        if !l.is_empty() {
            s.push(' ');
            s.push_str(&l);
        }
        s
    }
}

impl PartialEq<Rule> for Instruction {
    fn eq(&self, r: &Rule) -> bool {
        self.rule == *r && self.limits == Limits::default() && self.pit.is_none()
    }
}

/// Instructions tried in turn until one decides. None (`POLICY NONE`) means the player is asked
/// after every roll.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Policy {
    /// The instructions, first tried first.
    pub rules: Vec<Instruction>,
}

impl Policy {
    /// Rules with no condition, tried in turn.
    pub fn of(rules: &[Rule]) -> Policy {
        Policy { rules: rules.iter().map(|&r| Instruction::of(r)).collect() }
    }

    /// As written in English, instructions joined by `ELSE` (empty: none).
    pub fn en(&self) -> String {
        self.rules.iter().map(Instruction::en).collect::<Vec<_>>().join(" ELSE ")
    }

    /// As written in French, instructions joined by `SINON`.
    pub fn fr(&self) -> String {
        self.rules.iter().map(Instruction::fr).collect::<Vec<_>>().join(" SINON ")
    }
}

/// What the instructions decide.
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
    /// Take this option, which ends at the car's box, and stop as written or, with no plan, as
    /// the bot decides (19-2-6).
    Stop {
        /// Index into the options.
        index: usize,
        /// The label to pass to the store's `choose_with_pit`.
        label: String,
        /// The stop written in the instruction.
        plan: Option<PitPlan>,
    },
    /// `ASK`: the player is asked after the roll.
    Ask,
}

/// What the caller knows of each option beyond the engine's pricing: whether it ends at the
/// car's pit box (`engine::play::reaches_box`), and in which lane it ends. Empty: nothing known
/// (no option ends at the box, no lane preference can be met).
#[derive(Clone, Debug, Default)]
pub struct Facts {
    /// `boxes[i]`: option `i` ends at the car's box.
    pub boxes: Vec<bool>,
    /// `lanes[i]`: the lane option `i` ends in (none in the pit lane).
    pub lanes: Vec<Option<Lane>>,
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

/// Applies one instruction; `None` when no option fits it.
pub fn apply(ins: &Instruction, options: &[MoveOption], facts: &Facts) -> Option<Decision> {
    // No rule but BOT picks an option that eliminates the car (referee's decision 2).
    let mut fits: Vec<usize> =
        (0..options.len()).filter(|&i| !eliminates(&options[i]) && ins.limits.allows(&options[i])).collect();
    if ins.limits.slipstream == Some(true) && fits.iter().any(|&i| options[i].slip.is_some()) {
        fits.retain(|&i| options[i].slip.is_some());
    }
    let pick = match ins.rule {
        Rule::Ask => return Some(Decision::Ask),
        Rule::Bot => return (!options.is_empty()).then_some(Decision::AskBot),
        // The engine lists options farthest first, so the first that fits is the farthest.
        Rule::FarthestFree => fits.iter().copied().find(|&i| {
            let o = &options[i];
            wear(o) == 0 && o.fate == Fate::Continues && o.dangerous.is_empty() && o.wall == 0
        }),
        Rule::Farthest => fits.first().copied(),
        Rule::Safest => fits
            .iter()
            .copied()
            .filter(|&i| options[i].fate == Fate::Continues)
            .min_by_key(|&i| (wear(&options[i]), options[i].dangerous.len() + options[i].wall as usize, i)),
        Rule::Pit => {
            let at_box = fits
                .iter()
                .copied()
                .filter(|&i| facts.boxes.get(i).copied().unwrap_or(false) && options[i].fate == Fate::Continues)
                .min_by_key(|&i| (wear(&options[i]), i));
            return at_box.map(|index| Decision::Stop {
                index,
                label: MoveOption::label(index),
                plan: ins.pit.clone(),
            });
        }
    }?;
    take(prefer_lane(ins.limits.lane, pick, &fits, options, facts))
}

/// `LANE`: among the options that fit, as far as `pick` (the same spaces), no dearer, with no
/// more dangerous spaces and the same fate, the first ending in the lane wanted; else `pick`.
fn prefer_lane(lane: Option<Lane>, pick: usize, fits: &[usize], options: &[MoveOption], facts: &Facts) -> usize {
    let Some(lane) = lane else { return pick };
    let p = &options[pick];
    if facts.lanes.get(pick).copied().flatten() == Some(lane) {
        return pick;
    }
    fits.iter()
        .copied()
        .find(|&i| {
            let o = &options[i];
            o.spaces == p.spaces
                && wear(o) <= wear(p)
                && o.dangerous.len() <= p.dangerous.len()
                && o.fate == p.fate
                && facts.lanes.get(i).copied().flatten() == Some(lane)
        })
        .unwrap_or(pick)
}

/// The first decision of the instructions over the options after a roll, or `None` when no
/// instruction decides.
pub fn decide(policy: &Policy, options: &[MoveOption]) -> Option<Decision> {
    decide_with(policy, options, &Facts::default())
}

/// [`decide`], knowing which options end at the car's pit box (for the `PIT` rule).
pub fn decide_at(policy: &Policy, options: &[MoveOption], boxes: &[bool]) -> Option<Decision> {
    decide_with(policy, options, &Facts { boxes: boxes.to_vec(), lanes: Vec::new() })
}

/// [`decide`], knowing the boxes and lanes of the options.
pub fn decide_with(policy: &Policy, options: &[MoveOption], facts: &Facts) -> Option<Decision> {
    policy.rules.iter().find_map(|r| apply(r, options, facts))
}
