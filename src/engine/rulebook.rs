//! Every rule table the engine applies, in one place, each row citing its article.
//!
//! The 2004 French competition text (`shared/rules/001_*.txt`) is authoritative; a
//! [`Rulebook`] value says which edition and options a game plays, so editions are values, not
//! code paths scattered through the engine.

/// A rule profile: which ruleset a game plays (docs/profiles.md).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Profile {
    /// Masters 2004, French text (`001_*.txt`): the default and authoritative edition.
    Competition2004,
    /// Masters 2002, English text (`000_*.txt`): kept for leagues that still play it.
    Competition2002,
    /// The Eurogames advanced rules (`003_*.txt`): seven optional rules, each a [`Toggle`], over
    /// the competition engine (docs/rulings.md, ruling 32).
    EurogamesAdvanced,
}

/// The old name of [`Profile`], from when only the two competition editions existed.
pub type Edition = Profile;

impl Profile {
    /// Every profile, the default first.
    pub const ALL: [Profile; 3] = [Profile::Competition2004, Profile::Competition2002, Profile::EurogamesAdvanced];

    /// The name written in game files and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Profile::Competition2004 => "competition-2004",
            Profile::Competition2002 => "competition-2002",
            Profile::EurogamesAdvanced => "eurogames-advanced",
        }
    }

    /// Parses a profile name.
    pub fn parse(name: &str) -> Option<Self> {
        Profile::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// The seven advanced rules of the Eurogames booklet (003), "independent from one another":
/// each is switched on per game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Toggle {
    /// 003-1 slipstreaming.
    Slipstream,
    /// 003-2 time trials.
    TimeTrials,
    /// 003-3 tyres: hard, soft and wet.
    Tyres,
    /// 003-4 weather conditions.
    Weather,
    /// 003-5 car construction (road-holding as the sixth part).
    Construction,
    /// 003-6 road-holding.
    RoadHolding,
    /// 003-7 wear points and the pits.
    Pits,
}

impl Toggle {
    /// The seven rules, in the booklet's order.
    pub const ALL: [Toggle; 7] = [
        Toggle::Slipstream,
        Toggle::TimeTrials,
        Toggle::Tyres,
        Toggle::Weather,
        Toggle::Construction,
        Toggle::RoadHolding,
        Toggle::Pits,
    ];

    /// The name written in game files (`toggles = ["slipstream", "tyres"]`).
    pub fn name(self) -> &'static str {
        match self {
            Toggle::Slipstream => "slipstream",
            Toggle::TimeTrials => "time-trials",
            Toggle::Tyres => "tyres",
            Toggle::Weather => "weather",
            Toggle::Construction => "construction",
            Toggle::RoadHolding => "road-holding",
            Toggle::Pits => "pits",
        }
    }

    /// Parses a toggle name.
    pub fn parse(name: &str) -> Option<Self> {
        Toggle::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The booklet's rule number (003-1 to 003-7).
    pub fn article(self) -> &'static str {
        match self {
            Toggle::Slipstream => "003-1",
            Toggle::TimeTrials => "003-2",
            Toggle::Tyres => "003-3",
            Toggle::Weather => "003-4",
            Toggle::Construction => "003-5",
            Toggle::RoadHolding => "003-6",
            Toggle::Pits => "003-7",
        }
    }
}

/// Why a profile and its toggles cannot make a rulebook.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ProfileError {
    /// No such profile.
    #[error("unknown rule profile `{0}`: choose competition-2004, competition-2002 or eurogames-advanced")]
    UnknownProfile(String),
    /// No such toggle.
    #[error(
        "unknown advanced rule `{0}`: choose among slipstream, time-trials, tyres, weather, construction, road-holding, pits"
    )]
    UnknownToggle(String),
    /// Toggles belong to the Eurogames profile only.
    #[error("advanced rules ({toggle}) are toggles of the eurogames-advanced profile, not of {profile}")]
    ToggleWithoutEurogames {
        /// The profile asked for.
        profile: &'static str,
        /// The first toggle given.
        toggle: String,
    },
    /// A toggle named twice.
    #[error("the advanced rule `{0}` is named twice")]
    Duplicate(String),
}

/// How a car's sheet is configured before the start (5, 003-5).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Construction {
    /// 5-0-2, 5-2, 5-3: 20 points on six parts, at least 1 each; the 2 pit points may be
    /// carried on the car (22 at most).
    Competition,
    /// 003-5: exactly 20 points on six parts, at least 1 each; the pit keeps its 2 points.
    Eurogames,
    /// Without 003-5: every car has the same sheet, [`FIXED_SHEET`] (ruling 32).
    Fixed,
}

/// The sheet of every car when the Eurogames car construction (003-5) is off: the basic booklet's
/// printed sheet is not among the sources, so the engine's balanced configuration is used
/// (`Wear::standard()`: tyres 6, brakes 4, gas 3, body 3, engine 3, road-holding 1; ruling 32).
pub const FIXED_SHEET: [u8; 6] = [6, 4, 3, 3, 3, 1];

/// The switches of a ruleset: one flag per rule that differs between the profiles, each citing
/// the articles of every text it follows. Built from the profile and toggles by
/// [`Rulebook::from_setup`]; the engine reads these flags, never the profile.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct RuleSet {
    /// 6-3 (2004) steps 7 and 9: the soft-tyre +1 and the brakes are separate steps, so a move may
    /// take the +1 and then brake a slipstream short (18-1-2). 2002 6-3 step 7: "+1 *or use
    /// brakes*": a move that takes the +1 uses no brake (ruling 33).
    pub bonus_and_brakes: bool,
    /// 16-0-3-1, 20-4-3 (2004): a car whose engine breaks in 4th or lower is taken off at once.
    /// 2002 16-0-3-1, 20-4-3: no inertia, and nothing said of when it goes: it waits for its next
    /// turn like every other wreck (2002 20-2-2, 20-3-2; ruling 33).
    pub low_break_off_at_once: bool,
    /// 16-0-8 (2004): every tyre rule applies in an inertia move, a first-lap soft tyre must use
    /// its +1. 2002 (16-0-3: "one last time in 4th gear"): the die's spaces only, no +1; the wet
    /// slide, part of every move (8-1-2), still applies (ruling 33).
    pub tyres_in_inertia: bool,
    /// 19-1-8 (2004): in the pit lane, a gear whose highest roll reaches the box, else the
    /// highest allowed. 2002 19-1-6: "no minimum or maximum gear in the pit lane".
    pub pit_lane_gear: bool,
    /// 19-1-9, 19-3-4 (2004): no 1st gear from the stop to the end of the pit lane. 2002 19-3-4:
    /// "4th gear or less", 1st included; 19-1-9 does not exist.
    pub no_first_from_box: bool,
    /// 19-2-7 (2004): a player who announces no tyre type keeps the same. 2002 19-5-7: the type
    /// must be announced before anything else; a stop without it is refused (ruling 33).
    pub same_tyres_by_default: bool,
    /// 19-3-7 (2004): brakes may be used on a quick stop's exit move. 2002 19-3-3: the exit move
    /// is the half die "the car can move", with no brakes (ruling 33).
    pub quick_exit_brakes: bool,
    /// 19-3-8 (2004): a quick-stop exit move ending in the first corner counts a required stop
    /// there. 2002: the exit move is the end of the move that reached the box, and counts no
    /// stop (ruling 33).
    pub quick_exit_stop: bool,
    /// 18 (competition), 003-1 (toggle): slipstreaming exists at all.
    pub slipstream: bool,
    /// 003-1-5: a car carried into a corner by its slipstream "is not considered to have made a
    /// corner stop" (the competition counts the stop where the whole move ends, 7-1-1, 18-2-2).
    pub slipstream_no_stop: bool,
    /// 1 (competition), 003-2 (toggle): the grid from timed laps; off, from one black die per
    /// car (ruling 32).
    pub time_trials: bool,
    /// 8 (competition), 003-3 (toggle): hard, soft and rain tyres; off, every car is on hard
    /// tyres (ruling 32).
    pub tyre_types: bool,
    /// 003-3 (table, 3rd lap of soft tyres): "all moves in the straights will be reduced by one
    /// space" (ruling 34); the competition has no such malus.
    pub worn_soft_straights: bool,
    /// 3 (competition), 003-4 (toggle): the weather is drawn; off, sunshine and a dry track.
    pub weather: bool,
    /// How the sheet is configured (5, 003-5).
    pub construction: Construction,
    /// 17 (competition), 003-6 (toggle): dangerous spaces are tested; off, they cost nothing.
    pub road_holding: bool,
    /// 003-6: "if a car crosses this space or stops on it": a car whose move ends on a dangerous
    /// space tests even if it did not move (the competition tests on entering only, 17-2).
    pub test_on_stopping: bool,
    /// 19-4 (competition long stop), 003-7 "full pit-stop" (toggle): repairs at the pit from its
    /// 2 points; off, only tyre stops (ruling 32).
    pub repairs: bool,
    /// 002 "Weather" (a series option of a game, not of a profile): a changeable sky is tested
    /// three times a lap, when the race leader enters a third of the lap, the last just before the
    /// pit entrance, instead of after a 20 in 5th or a 30 in 6th (3-2-4; ruling 46).
    pub lap_third_weather: bool,
    /// 003-2: "If two or more players suffer this penalty [an aborted lap] then they must each
    /// throw the black die, with the highest result positioned last on the grid". The competition
    /// (1-1-14) classes them last and ties them as the game says (ruling 24).
    pub aborted_laps_by_black_die: bool,
    /// 003-4: "CHANGEABLE: At the start of the race the weather is sunshine." The competition's
    /// changeable race starts on the track the trials had (3-2-4).
    pub changeable_starts_sunny: bool,
    /// 003-6: "When a car loses a bodywork point or an engine point or is eliminated [...] the
    /// space on which the incident occurred becomes dangerous": a sticker where any car is
    /// eliminated, by overshoot too (the competition puts none there, 10-3).
    pub sticker_on_elimination: bool,
    /// 004 "Finishing" (a league layer of a game, not of a profile): "When two or more cars
    /// touch the finish line on the same game turn, the car that uses the smallest portion of its
    /// movement to complete the race places higher". Off: the order of crossing (21-1-4).
    pub finish_by_portion: bool,
}

impl RuleSet {
    /// The 2004 competition rules.
    pub const COMPETITION_2004: RuleSet = RuleSet {
        bonus_and_brakes: true,
        low_break_off_at_once: true,
        tyres_in_inertia: true,
        pit_lane_gear: true,
        no_first_from_box: true,
        same_tyres_by_default: true,
        quick_exit_brakes: true,
        quick_exit_stop: true,
        slipstream: true,
        slipstream_no_stop: false,
        time_trials: true,
        tyre_types: true,
        worn_soft_straights: false,
        weather: true,
        construction: Construction::Competition,
        road_holding: true,
        test_on_stopping: false,
        repairs: true,
        lap_third_weather: false,
        aborted_laps_by_black_die: false,
        changeable_starts_sunny: false,
        sticker_on_elimination: false,
        finish_by_portion: false,
    };

    /// The 2002 competition rules: the 2004 changes of shared/rules/README.md undone.
    pub const COMPETITION_2002: RuleSet = RuleSet {
        bonus_and_brakes: false,
        low_break_off_at_once: false,
        tyres_in_inertia: false,
        pit_lane_gear: false,
        no_first_from_box: false,
        same_tyres_by_default: false,
        quick_exit_brakes: false,
        quick_exit_stop: false,
        ..RuleSet::COMPETITION_2004
    };

    /// The Eurogames advanced rules with `toggles` on, over the 2004 competition engine
    /// (ruling 32): each toggle off is the basic game as far as the engine can express it.
    pub fn eurogames(toggles: &[Toggle]) -> RuleSet {
        let on = |t: Toggle| toggles.contains(&t);
        RuleSet {
            slipstream: on(Toggle::Slipstream),
            slipstream_no_stop: on(Toggle::Slipstream),
            time_trials: on(Toggle::TimeTrials),
            tyre_types: on(Toggle::Tyres),
            worn_soft_straights: on(Toggle::Tyres),
            weather: on(Toggle::Weather),
            construction: if on(Toggle::Construction) { Construction::Eurogames } else { Construction::Fixed },
            road_holding: on(Toggle::RoadHolding),
            test_on_stopping: on(Toggle::RoadHolding),
            repairs: on(Toggle::Pits),
            aborted_laps_by_black_die: on(Toggle::TimeTrials),
            changeable_starts_sunny: on(Toggle::Weather),
            sticker_on_elimination: on(Toggle::RoadHolding),
            ..RuleSet::COMPETITION_2004
        }
    }
}

/// The rules a game is played under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rulebook {
    /// The profile.
    pub profile: Profile,
    /// The advanced rules switched on (Eurogames profile only), in the booklet's order.
    pub toggles: Vec<Toggle>,
    /// The switches the engine reads.
    pub set: RuleSet,
    /// Laps in a race (0-0-1: a race is 3 laps; leagues may play 2 on long boards).
    pub laps: u16,
}

impl Default for Rulebook {
    fn default() -> Self {
        Rulebook::competition_2004()
    }
}

impl Rulebook {
    /// The 2004 competition rules, 3 laps (0-0-1, 2-0-3).
    pub fn competition_2004() -> Self {
        Rulebook { profile: Profile::Competition2004, toggles: Vec::new(), set: RuleSet::COMPETITION_2004, laps: 3 }
    }

    /// The 2002 competition rules (English text), 3 laps.
    pub fn competition_2002() -> Self {
        Rulebook { profile: Profile::Competition2002, toggles: Vec::new(), set: RuleSet::COMPETITION_2002, laps: 3 }
    }

    /// The Eurogames advanced rules with `toggles` on, 3 laps ("three-lap races", 003).
    pub fn eurogames(toggles: &[Toggle]) -> Self {
        let mut toggles = toggles.to_vec();
        toggles.sort();
        toggles.dedup();
        Rulebook { profile: Profile::EurogamesAdvanced, set: RuleSet::eurogames(&toggles), toggles, laps: 3 }
    }

    /// The rulebook of a game's setup: a profile name and the names of its toggles, as a game
    /// file or the command line writes them.
    pub fn from_setup<S: AsRef<str>>(profile: &str, toggles: &[S]) -> Result<Self, ProfileError> {
        let p = Profile::parse(profile).ok_or_else(|| ProfileError::UnknownProfile(profile.to_string()))?;
        let mut parsed = Vec::new();
        for name in toggles {
            let name = name.as_ref().trim();
            let t = Toggle::parse(name).ok_or_else(|| ProfileError::UnknownToggle(name.to_string()))?;
            if p != Profile::EurogamesAdvanced {
                return Err(ProfileError::ToggleWithoutEurogames { profile: p.name(), toggle: name.to_string() });
            }
            if parsed.contains(&t) {
                return Err(ProfileError::Duplicate(name.to_string()));
            }
            parsed.push(t);
        }
        Ok(match p {
            Profile::Competition2004 => Rulebook::competition_2004(),
            Profile::Competition2002 => Rulebook::competition_2002(),
            Profile::EurogamesAdvanced => Rulebook::eurogames(&parsed),
        })
    }

    /// The rulebook of a command line's `--profile` and `--toggles`: for eurogames-advanced,
    /// no toggles given (or `all`) means all seven on.
    pub fn from_cli(profile: &str, toggles: Option<&[String]>) -> Result<Self, ProfileError> {
        let all: Vec<String> = Toggle::ALL.iter().map(|t| t.name().to_string()).collect();
        let names: Vec<String> = match toggles {
            Some(t) if t.iter().any(|x| x == "all") => all,
            Some(t) => t.iter().filter(|x| !x.trim().is_empty()).cloned().collect(),
            None if profile == Profile::EurogamesAdvanced.name() => all,
            None => Vec::new(),
        };
        Rulebook::from_setup(profile, &names)
    }

    /// Splits a profile spec `name[:toggle,toggle...]` (as `steward new --profile` and
    /// [`NewGame`](crate::store::driver::NewGame) take it) into the profile and its toggles.
    pub fn split_spec(spec: &str) -> (String, Vec<String>) {
        match spec.split_once(':') {
            None => (spec.trim().to_string(), Vec::new()),
            Some((p, t)) => {
                (p.trim().to_string(), t.split(',').map(|x| x.trim().to_string()).filter(|x| !x.is_empty()).collect())
            }
        }
    }

    /// The profile spec of this rulebook: the profile's name, then its toggles after a colon if
    /// any ([`Rulebook::split_spec`] reads it back).
    pub fn spec(&self) -> String {
        if self.toggles.is_empty() {
            self.profile.name().to_string()
        } else {
            format!("{}:{}", self.profile.name(), self.toggle_names().join(","))
        }
    }

    /// The profile's name as written in game files (`competition-2004`).
    pub fn profile_name(&self) -> &'static str {
        self.profile.name()
    }

    /// The toggles' names, in the booklet's order.
    pub fn toggle_names(&self) -> Vec<String> {
        self.toggles.iter().map(|t| t.name().to_string()).collect()
    }

    /// True when the Eurogames rule `t` is on.
    pub fn has(&self, t: Toggle) -> bool {
        self.toggles.contains(&t)
    }

    /// Parses a profile name without toggles; `None` for an unknown one.
    pub fn from_profile(name: &str) -> Option<Self> {
        Rulebook::from_setup::<&str>(name, &[]).ok()
    }

    /// The tyres a car may be fitted with (8, 003-3): all three types, or hard tyres only when the
    /// tyre rule is off (ruling 32).
    pub fn tyres_allowed(&self, tyres: Tyres) -> bool {
        self.set.tyre_types || tyres == Tyres::Hard
    }

    /// Wear points kept at the pit (4-0-2, 5-0-2, 003-7): none without repairs (ruling 32).
    pub fn pit_points(&self) -> u8 {
        if self.set.repairs { PIT_POINTS } else { 0 }
    }
}

/// A die of the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Die {
    /// The die of a gear, 1 to 6.
    Gear(u8),
    /// The black d20 (0-0-5) for every event other than movement.
    Black,
}

impl Die {
    /// The faces of the real die (shared/rules/README.md: the gear dice are not uniform).
    pub fn faces(self) -> &'static [u8] {
        match self {
            Die::Gear(1) => &GEAR_1,
            Die::Gear(2) => &GEAR_2,
            Die::Gear(3) => &GEAR_3,
            Die::Gear(4) => &GEAR_4,
            Die::Gear(5) => &GEAR_5,
            Die::Gear(6) => &GEAR_6,
            Die::Gear(g) => panic!("there is no gear {g}"),
            Die::Black => &BLACK,
        }
    }

    /// Smallest and largest result (6-2-1 table: 1st 1-2, 2nd 2-4, 3rd 4-8, 4th 7-12,
    /// 5th 11-20, 6th 21-30).
    pub fn range(self) -> (u8, u8) {
        let f = self.faces();
        (*f.iter().min().unwrap_or(&0), *f.iter().max().unwrap_or(&0))
    }

    /// Short name used in logs and mails (`d4`, `d30`, `black`).
    pub fn name(self) -> &'static str {
        match self {
            Die::Gear(1) => "gear1-d4",
            Die::Gear(2) => "gear2-d6",
            Die::Gear(3) => "gear3-d8",
            Die::Gear(4) => "gear4-d12",
            Die::Gear(5) => "gear5-d20",
            Die::Gear(6) => "gear6-d30",
            Die::Gear(_) => "gear?",
            Die::Black => "black-d20",
        }
    }
}

const GEAR_1: [u8; 4] = [1, 1, 2, 2];
const GEAR_2: [u8; 6] = [2, 3, 3, 4, 4, 4];
const GEAR_3: [u8; 8] = [4, 5, 6, 6, 7, 7, 8, 8];
const GEAR_4: [u8; 12] = [7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12];
const GEAR_5: [u8; 20] = [11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20];
const GEAR_6: [u8; 30] = [
    21, 21, 21, 22, 22, 22, 23, 23, 23, 24, 24, 24, 25, 25, 25, 26, 26, 26, 27, 27, 27, 28, 28, 28, 29, 29, 29, 30, 30,
    30,
];
const BLACK: [u8; 20] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20];

/// The highest gear.
pub const TOP_GEAR: u8 = 6;

/// Wear points a car is configured with (5-0-2: 20 on the car plus 2 at the pit).
pub const CAR_POINTS: u8 = 20;
/// Wear points waiting at the pit (4-0-2, 5-0-2).
pub const PIT_POINTS: u8 = 2;

/// Over-revving costs by gears skipped (13-1): (gas, brakes, engine).
pub const OVER_REV: [(u8, u8, u8); 3] = [
    (1, 0, 0), // 1 gear skipped, e.g. 6th to 4th
    (1, 1, 0), // 2 gears, e.g. 5th to 2nd
    (1, 1, 1), // 3 gears, e.g. 6th to 2nd
];
/// Most gears a downshift may skip (13-2: 6th to 1st is forbidden).
pub const MAX_SKIP: u8 = 3;

/// The blocking table (12-0-1): (brakes, tyres) lost for 1..=6 spaces short; 7 or more
/// eliminates (12-1-1).
pub const BLOCKING: [(u8, u8); 6] = [(1, 0), (2, 0), (3, 0), (3, 1), (3, 2), (3, 3)];
/// Blocked this many spaces or more, the car is eliminated (12-1-1).
pub const BLOCKING_ELIMINATES_AT: u8 = 7;

/// Cost of being blocked `spaces` short (12-0-1), or `None` when it eliminates (12-1-1).
pub fn blocking_cost(spaces: u8) -> Option<(u8, u8)> {
    match spaces {
        0 => Some((0, 0)),
        s if s >= BLOCKING_ELIMINATES_AT => None,
        s => Some(BLOCKING[(s - 1) as usize]),
    }
}

/// Tyre type (8).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tyres {
    /// Pneus durs (8-1).
    Hard,
    /// Pneus tendres (8-2).
    Soft,
    /// Pneus pluie (8-3).
    Rain,
}

impl Tyres {
    /// Name used in files and mails.
    pub fn name(self) -> &'static str {
        match self {
            Tyres::Hard => "hard",
            Tyres::Soft => "soft",
            Tyres::Rain => "rain",
        }
    }

    /// Parses `hard`, `soft`, `rain` (and the French `durs`, `tendres`, `pluie`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "hard" | "durs" | "dur" => Some(Tyres::Hard),
            "soft" | "tendres" | "tendre" => Some(Tyres::Soft),
            "rain" | "pluie" | "pluies" | "wet" => Some(Tyres::Rain),
            _ => None,
        }
    }
}

/// Overshoot factor: tyre points lost per space of overshoot (10-0-2, 8-5), given the tyre
/// type, whether the track is wet, and which lap of this set of tyres it is (8-0-2: laps count
/// per set of tyres, 1-based).
pub fn overshoot_factor(tyres: Tyres, wet: bool, tyre_lap: u16) -> u8 {
    let worn = tyre_lap >= 3;
    match (tyres, wet) {
        (Tyres::Hard, _) => 1,
        (Tyres::Rain, true) => 1,
        (Tyres::Soft, _) | (Tyres::Rain, false) => {
            if worn {
                3
            } else {
                2
            }
        }
    }
}

/// Spaces a car slides after each required stop inside a corner on a wet track (8-1-2, 8-2-2:
/// 3 on hard or soft tyres; 8-3-2: 1 on rain tyres); none on a dry track (8-5).
pub fn slide_spaces(tyres: Tyres, wet: bool) -> u8 {
    match (tyres, wet) {
        (_, false) => 0,
        (Tyres::Hard | Tyres::Soft, true) => 3,
        (Tyres::Rain, true) => 1,
    }
}

/// Whether the soft-tyre +1 may be used (8-2-1, 8-2-2, 8-5): soft tyres on their first lap, on a
/// dry track.
pub fn soft_bonus(tyres: Tyres, wet: bool, tyre_lap: u16) -> bool {
    tyres == Tyres::Soft && !wet && tyre_lap == 1
}

/// Black-die results that damage a car's body in a collision test (14-1, 14-3): the highest
/// failing face.
pub fn collision_threshold(wet: bool, aggravated: bool) -> u8 {
    match (wet, aggravated) {
        (false, false) => 1,
        (true, false) | (false, true) => 2,
        (true, true) => 3,
    }
}

/// Highest black-die face that costs an engine point in an engine test (16-0-2).
pub fn engine_threshold(wet: bool) -> u8 {
    if wet { 3 } else { 4 }
}

/// Highest black-die face that costs a road-handling point on a dangerous space (17-0-2).
pub fn handling_threshold(wet: bool) -> u8 {
    if wet { 5 } else { 4 }
}

/// Black-die face that stalls a car at the start (9-1) or at a restart after a spinout (10-4-6).
pub const STALL_FACE: u8 = 1;
/// Black-die face of a super start (9-2) or a lively restart (10-4-6).
pub const SUPER_START_FACE: u8 = 20;
/// Spaces a super start moves the car (9-2-1, 10-4-6).
pub const SUPER_START_SPACES: u8 = 4;

/// Slipstream (18-4 table): car B (the mover, in `behind` gear) may slipstream car A (in
/// `ahead` gear) only when both are in 4th or higher (18-0-1, 18-1-1) and B's gear is at least A's
/// (18-1-1). Rows of the 18-4 table, B's gear by A's gear:
/// 1-3 → never; 4 → A in 4th; 5 → A in 4th or 5th; 6 → A in 4th, 5th or 6th.
pub fn slipstream_allowed(behind: u8, ahead: u8) -> bool {
    (SLIPSTREAM_MIN_GEAR..=TOP_GEAR).contains(&behind) && (SLIPSTREAM_MIN_GEAR..=behind).contains(&ahead)
}

/// The lowest gear a slipstream works in, for both cars (18-0-1).
pub const SLIPSTREAM_MIN_GEAR: u8 = 4;
/// Spaces a slipstream adds to the move (18-0-3).
pub const SLIPSTREAM_SPACES: u8 = 3;
/// Brake points a slipstream costs when it takes the car into a corner (18-1-4, 18-3-2).
pub const SLIPSTREAM_CORNER_BRAKES: u8 = 1;

/// The gear a car leaves its box in: at once in 4th after a quick stop (19-3-3), 4th at most
/// after a missed quick stop (19-3-4) or a long stop (19-4-2).
pub const PIT_EXIT_GEAR: u8 = 4;
/// Black-die faces of a successful quick stop (19-3-3: 1 to 10; 11 to 20 miss it, 19-3-4).
pub const QUICK_STOP_MAX_FACE: u8 = 10;

/// Penalty rolls per placement error in a timed lap (1-1-11; 2004 annex: "toute erreur sera
/// pénalisée par 10 jets").
pub const QUALIFYING_ERROR_ROLLS: u32 = 10;
/// Qualifying points of a driver's season (004 "Qualifying"), at the first race.
pub const BID_SEASON_ALLOTMENT: u32 = 100;
/// Points the allotment loses for each race missed before joining (004: 90 at the second, 80 at
/// the third).
pub const BID_PRORATE_PER_RACE: u32 = 10;
/// Points a team may bid in a season (004).
pub const BID_TEAM_SEASON_CAP: u32 = 200;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn profiles_and_toggles_parse_with_typed_errors() {
        assert_eq!(Rulebook::from_setup::<&str>("competition-2004", &[]), Ok(Rulebook::competition_2004()));
        assert_eq!(Rulebook::from_setup::<&str>("competition-2002", &[]).map(|r| r.set), Ok(RuleSet::COMPETITION_2002));
        let r = Rulebook::from_setup("eurogames-advanced", &["weather", "tyres"]).unwrap();
        assert_eq!(r.toggles, vec![Toggle::Tyres, Toggle::Weather], "kept in the booklet's order");
        assert!(r.set.tyre_types && r.set.weather && !r.set.slipstream && !r.set.road_holding && !r.set.repairs);
        assert_eq!(r.spec(), "eurogames-advanced:tyres,weather");
        let (p, t) = Rulebook::split_spec(&r.spec());
        assert_eq!(Rulebook::from_setup(&p, &t), Ok(r));
        assert_eq!(Rulebook::from_setup::<&str>("basic", &[]), Err(ProfileError::UnknownProfile("basic".into())));
        assert_eq!(
            Rulebook::from_setup("eurogames-advanced", &["turbo"]),
            Err(ProfileError::UnknownToggle("turbo".into()))
        );
        assert!(matches!(
            Rulebook::from_setup("competition-2004", &["tyres"]),
            Err(ProfileError::ToggleWithoutEurogames { .. })
        ));
        assert_eq!(
            Rulebook::from_setup("eurogames-advanced", &["pits", "pits"]),
            Err(ProfileError::Duplicate("pits".into()))
        );
        let all = Rulebook::from_cli("eurogames-advanced", None).unwrap();
        assert_eq!(all.toggles, Toggle::ALL.to_vec());
        assert_eq!(all.set.construction, Construction::Eurogames);
        let none = Rulebook::from_cli("eurogames-advanced", Some(&[])).unwrap();
        assert_eq!(none.set.construction, Construction::Fixed);
        assert_eq!(none.pit_points(), 0);
        assert!(!none.tyres_allowed(Tyres::Soft) && none.tyres_allowed(Tyres::Hard));
    }

    #[test]
    fn the_2002_switches_are_exactly_the_2004_changes() {
        // shared/rules/README.md lists ten 2004 changes; they map onto eight switches, all off in
        // 2002 (16-0-9 is kept for both editions, ruling 33), and nothing else differs.
        let (a, b) = (RuleSet::COMPETITION_2004, RuleSet::COMPETITION_2002);
        let differ = [
            a.bonus_and_brakes != b.bonus_and_brakes,
            a.low_break_off_at_once != b.low_break_off_at_once,
            a.tyres_in_inertia != b.tyres_in_inertia,
            a.pit_lane_gear != b.pit_lane_gear,
            a.no_first_from_box != b.no_first_from_box,
            a.same_tyres_by_default != b.same_tyres_by_default,
            a.quick_exit_brakes != b.quick_exit_brakes,
            a.quick_exit_stop != b.quick_exit_stop,
        ];
        assert!(differ.iter().all(|&d| d));
        let undone = RuleSet {
            bonus_and_brakes: true,
            low_break_off_at_once: true,
            tyres_in_inertia: true,
            pit_lane_gear: true,
            no_first_from_box: true,
            same_tyres_by_default: true,
            quick_exit_brakes: true,
            quick_exit_stop: true,
            ..b
        };
        assert_eq!(undone, a);
        assert_eq!(RuleSet::eurogames(&Toggle::ALL).construction, Construction::Eurogames);
        assert!(RuleSet::eurogames(&Toggle::ALL).slipstream_no_stop && !a.slipstream_no_stop);
    }

    #[test]
    fn dice_ranges_match_the_gear_table() {
        let ranges: Vec<(u8, u8)> = (1..=6).map(|g| Die::Gear(g).range()).collect();
        assert_eq!(ranges, vec![(1, 2), (2, 4), (4, 8), (7, 12), (11, 20), (21, 30)]);
        assert_eq!(Die::Black.range(), (1, 20));
        assert_eq!(Die::Gear(2).faces().iter().filter(|&&f| f == 4).count(), 3);
    }

    #[test]
    fn blocking_table_matches_12_0_1() {
        assert_eq!(blocking_cost(4), Some((3, 1)));
        assert_eq!(blocking_cost(5), Some((3, 2)));
        assert_eq!(blocking_cost(6), Some((3, 3)));
        assert_eq!(blocking_cost(7), None);
    }

    #[test]
    fn overshoot_factors_match_10_0_3() {
        // 10-0-3: three spaces cost 3 hard, 6 soft (1st/2nd lap), 9 soft (3rd), 3 rain on wet,
        // 6 rain on dry (1st/2nd), 9 rain on dry (3rd).
        assert_eq!(3 * overshoot_factor(Tyres::Hard, false, 1), 3);
        assert_eq!(3 * overshoot_factor(Tyres::Soft, false, 2), 6);
        assert_eq!(3 * overshoot_factor(Tyres::Soft, false, 3), 9);
        assert_eq!(3 * overshoot_factor(Tyres::Rain, true, 3), 3);
        assert_eq!(3 * overshoot_factor(Tyres::Rain, false, 1), 6);
        assert_eq!(3 * overshoot_factor(Tyres::Rain, false, 3), 9);
    }

    #[test]
    fn slipstream_table_matches_18_4() {
        // 18-4: rows B in 1-3, 4, 5, 6; columns A in 1-3, 4, 5, 6.
        let row = |b: u8| [3u8, 4, 5, 6].map(|a| slipstream_allowed(b, a));
        assert_eq!(row(3), [false, false, false, false]);
        assert_eq!(row(4), [false, true, false, false]);
        assert_eq!(row(5), [false, true, true, false]);
        assert_eq!(row(6), [false, true, true, true]);
        assert!(!slipstream_allowed(1, 1) && !slipstream_allowed(2, 1));
    }
}
