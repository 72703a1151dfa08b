//! The weather (3): drawn on the black die from the track's table before qualifying and before
//! the race; a changeable race changes at the end of a round in which a car rolled 20 in 5th or
//! 30 in 6th (3-2-4, 3-2-5), following 3-2-6:
//!
//! ```text
//!   final sun <- temporary sun <- changeable -> temporary rain -> final rain
//! ```
//!
//! - changeable to sun: temporary sun until the next test, the track is (or becomes) dry;
//! - changeable to rain: temporary rain, the track is (or becomes) wet;
//! - sun or rain to changeable: the track stays as it was;
//! - two sun (or two rain) results in a row: final for the rest of the race, no more tests;
//! - sun to rain: the track becomes wet; rain to sun: it becomes dry.
//!
//! State plus pure functions fed by dice: the engine keeps a [`WeatherState`] in the race state
//! (none for a race whose weather is fixed, the case of every race before this module) and the
//! track state in `RaceState::wet`.

use crate::track::{Track, Weather, WeatherTable};

use super::dice::{Dice, Purpose};
use super::events::Event;
use super::rulebook::{Die, RuleSet};
use super::state::RaceState;

/// The sky of a changeable race.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct WeatherState {
    /// What the last draw or test gave (3-2-6): sun, changeable or rain.
    pub sky: Weather,
    /// Two sun or two rain results in a row: the weather and the track stay so (3-2-6, 4).
    pub fixed: bool,
    /// Weather tests owed at the end of the current round: one per 20 in 5th or 30 in 6th
    /// (3-2-4, 3-2-5), or per checkpoint the leader passed (002, ruling 46).
    pub tests: u8,
    /// 002 checks: the lap-third checkpoints the race leader has passed so far (ruling 46).
    pub checks: u32,
}

impl WeatherState {
    /// The name of the state in files and the canonical text (`temporary-sun`, `changeable`,
    /// `final-rain`...).
    pub fn name(&self) -> &'static str {
        match (self.sky, self.fixed) {
            (Weather::Changeable, _) => "changeable",
            (Weather::Sun, false) => "temporary-sun",
            (Weather::Sun, true) => "final-sun",
            (Weather::Rain, false) => "temporary-rain",
            (Weather::Rain, true) => "final-rain",
        }
    }

    /// Parses [`WeatherState::name`] (`sun` and `rain` alone mean temporary).
    pub fn parse(s: &str) -> Option<Self> {
        let (sky, fixed) = match s {
            "changeable" => (Weather::Changeable, false),
            "sun" | "temporary-sun" => (Weather::Sun, false),
            "final-sun" => (Weather::Sun, true),
            "rain" | "temporary-rain" => (Weather::Rain, false),
            "final-rain" => (Weather::Rain, true),
            _ => return None,
        };
        Some(WeatherState { sky, fixed, tests: 0, checks: 0 })
    }
}

/// The qualifying weather for a black-die result (3-1): the weather and whether the track is wet
/// (3-1-2 to 3-1-4: only rain wets it).
pub fn qualifying(table: &WeatherTable, roll: u8) -> (Weather, bool) {
    let w = table.weather(roll);
    (w, w == Weather::Rain)
}

/// The race weather for a black-die result (3-2-1), after a qualifying under `qualifying`:
/// sun or rain hold for the whole race (3-2-2, 3-2-3: no state to keep); changeable starts with
/// the track of the qualifying, wet only if it rained (3-2-4), or dry whatever the qualifying
/// under `set.changeable_starts_sunny` (003-4). Returns the state to keep (`None` when the
/// weather is fixed) and whether the track is wet at the start.
pub fn race(table: &WeatherTable, roll: u8, qualifying: Weather, set: &RuleSet) -> (Option<WeatherState>, bool) {
    match table.weather(roll) {
        Weather::Sun => (None, false),
        Weather::Rain => (None, true),
        Weather::Changeable => (Some(changeable()), changeable_start_wet(qualifying, set)),
    }
}

/// Whether a changeable race starts on a wet track. 3-2-4: « l'état de la piste (sèche ou
/// mouillée) au départ de la course sera fonction de la météo de la séance d'essais » (wet after
/// rainy trials). 003-4: "CHANGEABLE: At the start of the race the weather is sunshine. The sky is
/// cloudy, but it is not raining yet": dry, whatever the trials had.
pub fn changeable_start_wet(qualifying: Weather, set: &RuleSet) -> bool {
    qualifying == Weather::Rain && !set.changeable_starts_sunny
}

/// How a game's race weather is decided: a game setting (`weather = "track"` in game files).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Forecast {
    /// Sun for the whole race, no die rolled (3-2-2; games from before weather was a setting).
    Sun,
    /// Rain for the whole race, no die rolled (3-2-3).
    Rain,
    /// A changeable race (3-2-4): the qualifying weather is drawn for the track at the start,
    /// then the weather tests of 3-2-5.
    Changeable,
    /// The rules: the qualifying weather then the race weather drawn on the track's table (3-1-1,
    /// 3-2-1).
    Track,
}

impl Forecast {
    /// The name in game files and orders.
    pub fn name(self) -> &'static str {
        match self {
            Forecast::Sun => "sun",
            Forecast::Rain => "rain",
            Forecast::Changeable => "changeable",
            Forecast::Track => "track",
        }
    }

    /// Parses [`Forecast::name`] (also `dry` for sun and `wet` for rain).
    pub fn parse(s: &str) -> Option<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "sun" | "dry" => Some(Forecast::Sun),
            "rain" | "wet" => Some(Forecast::Rain),
            "changeable" => Some(Forecast::Changeable),
            "track" => Some(Forecast::Track),
            _ => None,
        }
    }
}

/// Draws the weather before the race (3-0-1) as `forecast` says, with the black die labelled
/// [`Purpose::Weather`]: the qualifying draw (3-1-1) when the track's state at the start depends on
/// it, then the race draw (3-2-1). Returns the sky to keep (`None` when fixed) and whether the
/// track is wet at the start; the rolls and the outcome are pushed as events.
pub fn draw(
    table: &WeatherTable,
    forecast: Forecast,
    set: &RuleSet,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> (Option<WeatherState>, bool) {
    let q = match forecast {
        Forecast::Changeable | Forecast::Track => Some(draw_qualifying(table, forecast, dice, events)),
        Forecast::Sun | Forecast::Rain => None,
    };
    draw_race(table, forecast, q.map_or(Weather::Sun, |(w, _)| w), set, dice, events)
}

/// The weather of a qualifying session (3-1-1): one black die on the track's table, unless the
/// game fixed sun or rain. Returns the weather and whether the track is wet (3-1-2 to 3-1-4).
pub fn draw_qualifying(
    table: &WeatherTable,
    forecast: Forecast,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> (Weather, bool) {
    let (q, wet) = match forecast {
        Forecast::Sun => (Weather::Sun, false),
        Forecast::Rain => (Weather::Rain, true),
        Forecast::Changeable | Forecast::Track => {
            let v = dice.roll(Die::Black, None, Purpose::Weather);
            events.push(Event::Rolled { car: None, die: Die::Black, purpose: Purpose::Weather, value: v });
            qualifying(table, v)
        }
    };
    events.push(Event::WeatherDrawn { race: false, weather: q, wet });
    (q, wet)
}

/// The race weather (3-2-1) after a qualifying under `qualifying`: one black die for `track`,
/// none for a fixed forecast (a changeable race starts on the qualifying's track, 3-2-4, or dry
/// under 003-4: [`changeable_start_wet`]).
pub fn draw_race(
    table: &WeatherTable,
    forecast: Forecast,
    qualifying: Weather,
    set: &RuleSet,
    dice: &mut dyn Dice,
    events: &mut Vec<Event>,
) -> (Option<WeatherState>, bool) {
    let (sky, wet) = match forecast {
        Forecast::Sun => (None, false),
        Forecast::Rain => (None, true),
        Forecast::Changeable => (Some(changeable()), changeable_start_wet(qualifying, set)),
        Forecast::Track => {
            let v = dice.roll(Die::Black, None, Purpose::Weather);
            events.push(Event::Rolled { car: None, die: Die::Black, purpose: Purpose::Weather, value: v });
            race(table, v, qualifying, set)
        }
    };
    let weather = sky.map_or(if wet { Weather::Rain } else { Weather::Sun }, |w| w.sky);
    events.push(Event::WeatherDrawn { race: true, weather, wet });
    (sky, wet)
}

/// A changeable sky at the start of a race (3-2-4).
pub fn changeable() -> WeatherState {
    WeatherState { sky: Weather::Changeable, fixed: false, tests: 0, checks: 0 }
}

/// What a weather test's result does (3-2-6): the new state and whether the track is wet.
pub fn evolve(now: WeatherState, wet: bool, result: Weather) -> (WeatherState, bool) {
    if now.fixed {
        return (now, wet);
    }
    let fixed = now.sky == result && result != Weather::Changeable;
    let wet = match result {
        Weather::Sun => false,
        Weather::Rain => true,
        Weather::Changeable => wet, // 3-2-6, 3): the track stays as it was
    };
    (WeatherState { sky: result, fixed, tests: now.tests, checks: now.checks }, wet)
}

/// Owes a weather test at the end of the round after a 20 in 5th or a 30 in 6th (3-2-4), when
/// the weather is still changeable.
pub fn owe_test(s: &mut RaceState) {
    if let Some(w) = s.weather.as_mut()
        && !w.fixed
    {
        w.tests = w.tests.saturating_add(1);
    }
}

/// The race distance of the first 002 checkpoint after the start line, and the spacing of the
/// checkpoints: three a lap, the last on the racing space from which the pit lane branches off
/// ("just before the pit entrance"; the finish line on a track without a pit lane), the other two
/// a third and two thirds of a lap before it (ruling 46).
pub fn checkpoints(t: &Track) -> (u64, u64) {
    let lap = t.lap_length.max(3) as u64;
    let third = lap / 3;
    let entry = t
        .indices()
        .filter(|&s| !t.space(s).in_pit_lane() && t.next(s).iter().any(|n| t.space(*n).in_pit_lane()))
        .map(|s| t.space(s).progress as u64)
        .max()
        .unwrap_or(lap);
    let mut first = lap + entry - 2 * third;
    while first <= lap {
        first += third;
    }
    (first, third)
}

/// How many 002 checkpoints lie at or before race distance `distance` (ruling 46).
pub fn checkpoints_before(t: &Track, distance: u64) -> u32 {
    let (first, third) = checkpoints(t);
    if distance < first { 0 } else { ((distance - first) / third + 1) as u32 }
}

/// 002 weather checks: owes one test for each checkpoint the race leader has entered since the
/// last look, while the sky is changeable (ruling 46). Called at the end of every move.
pub fn lap_third_checks(t: &Track, s: &mut RaceState) {
    let Some(lead) = super::backmarkers::race_leader(s, t) else { return };
    let passed = checkpoints_before(t, super::order::race_distance(s, t, lead));
    if let Some(w) = s.weather.as_mut()
        && passed > w.checks
    {
        if !w.fixed {
            w.tests = w.tests.saturating_add((passed - w.checks).min(u8::MAX as u32) as u8);
        }
        w.checks = passed;
    }
}

/// The weather tests owed, at the end of the round (3-2-5): one black die each, in turn, each
/// result read on the track's table; they stop once the weather is final.
pub fn tests(table: &WeatherTable, s: &mut RaceState, events: &mut Vec<Event>, dice: &mut dyn Dice) {
    let Some(mut w) = s.weather else { return };
    let owed = w.tests;
    w.tests = 0;
    for _ in 0..owed {
        if w.fixed {
            break;
        }
        let v = dice.roll(Die::Black, None, Purpose::Weather);
        events.push(Event::Rolled { car: None, die: Die::Black, purpose: Purpose::Weather, value: v });
        let (next, wet) = evolve(w, s.wet, table.weather(v));
        w = next;
        s.wet = wet;
        events.push(Event::WeatherChange { weather: w, wet });
    }
    s.weather = Some(w);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::dice::FixedDice;
    use crate::engine::rulebook::Toggle;

    fn st(sky: Weather) -> WeatherState {
        WeatherState { sky, fixed: false, tests: 0, checks: 0 }
    }

    #[test]
    fn three_002_checkpoints_a_lap_the_last_before_the_pit_entrance() {
        for name in crate::track::load::shipped_names() {
            let t = crate::track::load::resolve(&name).unwrap();
            let (first, third) = checkpoints(&t);
            let lap = t.lap_length as u64;
            assert!(first > lap && first <= lap + lap, "{name}: the first check is on lap 1");
            assert_eq!(third, lap / 3, "{name}");
            // Three a lap: from the first check, one more every third of a lap.
            assert_eq!(checkpoints_before(&t, first - 1), 0);
            assert_eq!(checkpoints_before(&t, first), 1);
            assert_eq!(checkpoints_before(&t, first + 3 * third), 4, "{name}");
            assert_eq!(checkpoints_before(&t, first + 9 * third), 10, "{name}");
        }
    }

    #[test]
    fn a_changeable_race_starts_wet_after_rainy_trials_but_dry_under_003_4() {
        // 3-2-4: « si c'était la pluie alors la piste est mouillée »; 003-4: "CHANGEABLE: At the
        // start of the race the weather is sunshine."
        let t = crate::track::load::resolve("monaco").unwrap();
        let rain = (1..=20u8).find(|&v| t.weather.weather(v) == Weather::Rain).unwrap();
        let changeable_roll = (1..=20u8).find(|&v| t.weather.weather(v) == Weather::Changeable).unwrap();
        let euro = RuleSet::eurogames(&[Toggle::Weather]);
        for (set, wet) in [(RuleSet::COMPETITION_2004, true), (RuleSet::COMPETITION_2002, true), (euro, false)] {
            let mut dice = FixedDice::new(vec![rain]);
            let (sky, w) = draw(&t.weather, Forecast::Changeable, &set, &mut dice, &mut Vec::new());
            assert_eq!((sky.map(|s| s.sky), w), (Some(Weather::Changeable), wet), "{set:?}");
            let mut dice = FixedDice::new(vec![rain, changeable_roll]);
            let (sky, w) = draw(&t.weather, Forecast::Track, &set, &mut dice, &mut Vec::new());
            assert_eq!((sky.map(|s| s.sky), w), (Some(Weather::Changeable), wet), "{set:?}");
        }
    }

    #[test]
    fn the_3_2_6_diagram() {
        // 1) changeable to sun: temporary, dry.
        assert_eq!(evolve(changeable(), true, Weather::Sun), (st(Weather::Sun), false));
        // 2) changeable to rain: temporary, wet.
        assert_eq!(evolve(changeable(), false, Weather::Rain), (st(Weather::Rain), true));
        // 3) sun or rain to changeable: the track stays.
        assert_eq!(evolve(st(Weather::Rain), true, Weather::Changeable), (changeable(), true));
        assert_eq!(evolve(st(Weather::Sun), false, Weather::Changeable), (changeable(), false));
        // 4) two in a row: final.
        let (f, wet) = evolve(st(Weather::Rain), true, Weather::Rain);
        assert!(f.fixed && wet);
        let (f, wet) = evolve(st(Weather::Sun), false, Weather::Sun);
        assert!(f.fixed && !wet);
        assert_eq!(evolve(f, wet, Weather::Rain), (f, false), "final: no change");
        // 5) sun to rain, rain to sun.
        assert_eq!(evolve(st(Weather::Sun), false, Weather::Rain), (st(Weather::Rain), true));
        assert_eq!(evolve(st(Weather::Rain), true, Weather::Sun), (st(Weather::Sun), false));
    }
}
