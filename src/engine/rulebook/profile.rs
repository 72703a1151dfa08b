//! Rule profiles (docs/profiles.md): the editions and the Eurogames toggles a game may play,
//! the switches (`RuleSet`) they make, which the engine reads instead of a profile's name.

use super::*;

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
