//! Whole bot races: `steward sim`. Drives the pure engine with the bot policy and labelled dice,
//! checks the engine's invariants after every move, and summarises deterministically.

pub mod keep;
pub mod qualifying;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use sha2::{Digest, Sha256};
use thiserror::Error;

use crate::dice::{LabelledDice, sim_race_key};
use crate::engine::bot::{self, Bot};
use crate::engine::order::advance_in;
use crate::engine::rulebook::PIT_POINTS;
use crate::engine::weather::{self, Forecast, WeatherState};
use crate::engine::{CarId, Elimination, Fate, Part, RaceState, Rulebook, Setup, Status, Step, Tyres, Wear, roll};
use crate::track::Track;

/// What to simulate.
#[derive(Clone, Debug)]
pub struct SimConfig {
    /// Cars per race (1 to the grid size).
    pub cars: usize,
    /// Laps per race.
    pub laps: u16,
    /// Races.
    pub races: u32,
    /// Seed: race `i` uses dice keyed by (seed, track, i).
    pub seed: u64,
    /// Print every event of this race (0-based), for moderators checking the bot or the rules.
    pub trace: Option<u32>,
    /// The weather of the races (3).
    pub weather: SimWeather,
    /// The races play with 002's backmarkers (ruling 49).
    pub backmarkers: bool,
}

/// The weather of simulated races (`steward sim --weather`).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SimWeather {
    /// Sun for the whole race, no die rolled (the default; the races of earlier versions).
    Dry,
    /// Rain for the whole race (3-2-3), no die rolled.
    Wet,
    /// A changeable race (3-2-4): the qualifying weather is drawn on the track's table (3-1) for
    /// the track at the start, then the weather tests of 3-2-5.
    Changeable,
    /// Both draws on the track's table, qualifying then race (3-1, 3-2-1).
    Track,
}

impl SimWeather {
    /// The game setting that plays the same weather.
    pub fn forecast(self) -> Forecast {
        match self {
            SimWeather::Dry => Forecast::Sun,
            SimWeather::Wet => Forecast::Rain,
            SimWeather::Changeable => Forecast::Changeable,
            SimWeather::Track => Forecast::Track,
        }
    }

    /// Parses `dry`, `wet`, `changeable`, `track`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "dry" => Some(SimWeather::Dry),
            "wet" => Some(SimWeather::Wet),
            "changeable" => Some(SimWeather::Changeable),
            "track" => Some(SimWeather::Track),
            _ => None,
        }
    }
}

/// Draws the weather of a race before the cars are set up (3-0-1): the sky to keep and whether
/// the track is wet at the start (the same draw as a stored game's start, src/store/replay/mod.rs).
fn draw_weather(t: &Track, w: SimWeather, rules: &Rulebook, dice: &mut LabelledDice) -> (Option<WeatherState>, bool) {
    weather::draw(&t.weather, w.forecast(), &rules.set, dice, &mut Vec::new())
}

/// One race's result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceResult {
    /// Car numbers in finishing order.
    pub finish: Vec<u8>,
    /// Eliminated cars and why.
    pub eliminated: Vec<(u8, Elimination)>,
    /// Dice rolled.
    pub rolls: u32,
    /// Moves played.
    pub moves: u32,
    /// Rounds of play.
    pub rounds: u32,
    /// Pit stops made (19).
    pub pit_stops: u32,
    /// Slipstreams taken (18).
    pub slipstreams: u32,
}

/// An engine invariant broken during a simulation: always a bug.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("race {race}, move {moves}: {what}")]
pub struct Broken {
    /// Race index.
    pub race: u32,
    /// Moves played when it broke.
    pub moves: u32,
    /// What broke.
    pub what: String,
    /// Output produced before it broke (the trace, if one was asked for).
    pub context: String,
}

/// Moves after which a race is declared stuck (a bug): 10 cars × 3 laps need about 500.
const MAX_MOVES: u32 = 20_000;

/// The setups of an `n`-car field: a balanced sheet on hard tyres.
pub fn field(n: usize) -> Vec<(u8, Setup)> {
    (0..n).map(|i| (i as u8 + 1, Setup { wear: Wear::standard(), tyres: Tyres::Hard })).collect()
}

/// Plays race number `race` to the end.
pub fn run_race(
    t: &Track,
    rules: &Rulebook,
    cfg: &SimConfig,
    race: u32,
    bot: &mut Bot,
    trace: &mut Option<String>,
) -> Result<RaceResult, Broken> {
    run_race_watched(t, rules, cfg, race, bot, trace, &mut |_| {})
}

/// [`run_race`], showing `watch` every roll that asks for a choice, as a player would see it
/// (the picture's overlap test draws each).
pub fn run_race_watched(
    t: &Track,
    rules: &Rulebook,
    cfg: &SimConfig,
    race: u32,
    bot: &mut Bot,
    trace: &mut Option<String>,
    watch: &mut dyn FnMut(&crate::engine::play::Rolled),
) -> Result<RaceResult, Broken> {
    let broken = |moves: u32, what: String| Broken { race, moves, what, context: String::new() };
    // The key of the game `steward sim --keep` writes for this race (src/store/keep.rs).
    let mut dice = LabelledDice::new(sim_race_key(cfg.seed, &t.name, race, cfg.cars), "0");
    // Without the weather rule (003-4 off) the sun always shines.
    let (sky, wet) = if rules.set.weather { draw_weather(t, cfg.weather, rules, &mut dice) } else { (None, false) };
    // The bot fits rain tyres when the track is wet at the start, hard ones otherwise (8), when
    // the game plays tyre types (003-3).
    let mut setups = field(cfg.cars);
    for (_, setup) in setups.iter_mut() {
        let tyres = bot::tyres_for(wet);
        setup.tyres = if rules.tyres_allowed(tyres) { tyres } else { Tyres::Hard };
    }
    let rules_laps = Rulebook { laps: cfg.laps, ..rules.clone() };
    let mut state = RaceState::new_for(t, &rules_laps, &setups).map_err(|e| broken(0, e))?;
    state.wet = wet;
    state.weather = sky;
    if cfg.backmarkers {
        state.backmarkers = crate::engine::backmarkers::Backmarkers::Due;
    }
    let mut moves = 0u32;
    let (mut pit_stops, mut slipstreams) = (0u32, 0u32);
    let mut count = |events: &[crate::engine::Event]| {
        for e in events {
            match e {
                crate::engine::Event::PitStop { .. } => pit_stops += 1,
                crate::engine::Event::Slipstream { .. } => slipstreams += 1,
                _ => {}
            }
        }
    };
    loop {
        let (next, events) = advance_in(t, &mut state);
        log(trace, t, &state, &events);
        let Some(car) = next else { break };
        // A backmarker's move is played in the move before it, whose rolls it continues, as the
        // game store plays it (ruling 49).
        let backmarker = state.car(car).backmarker;
        if !backmarker {
            moves += 1;
            dice.set_turn(&moves.to_string());
        }
        if moves > MAX_MOVES {
            return Err(broken(moves, "the race does not end".into()));
        }
        let gear = if backmarker { crate::engine::backmarkers::GEAR } else { bot.gear(t, &state, car) };
        let step = roll(t, &state, car, gear, &mut dice, rules)
            .map_err(|e| broken(moves, format!("bot order refused: {e}")))?;
        // The state before the move stays for the check below (the move makes a new one).
        let after = match step {
            Step::Done(o) => {
                log(trace, t, &o.state, &o.events);
                o.state
            }
            Step::Choose(r) => {
                log(trace, t, &r.state, &r.events);
                watch(&r);
                if r.options.is_empty() {
                    return Err(broken(moves, "no option offered".into()));
                }
                let i = if backmarker {
                    crate::engine::backmarkers::choose(t, &r.state, car, &r.options)
                } else {
                    bot.option(t, &r)
                };
                let o = &r.options[i];
                let c = r.state.car(car);
                if o.fate == Fate::Continues
                    && (o.brake_points() > c.wear.brakes || (o.tyre_points() > 0 && o.tyre_points() >= c.wear.tyres))
                {
                    return Err(broken(moves, format!("option costs more than car {} has", c.number)));
                }
                if let Some(out) = trace.as_mut() {
                    let _ = writeln!(
                        out,
                        "    {} options, bot takes {} (car {} had {})",
                        r.options.len(),
                        crate::engine::MoveOption::label(i),
                        c.number,
                        c.wear
                    );
                }
                let pit = if !backmarker && crate::engine::play::reaches_box(t, &r, i) {
                    bot.pit_order_for(&r.state, car, rules)
                } else {
                    crate::engine::pits::PitOrder::default()
                };
                let o = crate::engine::play::resolve_with(t, &r, i, &pit, &mut dice, rules)
                    .map_err(|e| broken(moves, e.to_string()))?;
                count(&o.events);
                log(trace, t, &o.state, &o.events);
                o.state
            }
        };
        check(t, &state, &after).map_err(|w| broken(moves, w))?;
        state = after;
    }
    let eliminated = eliminations(&state);
    Ok(RaceResult {
        finish: state.finish_order.iter().map(|&c| state.car(c).number).collect(),
        eliminated,
        rolls: dice.log.len() as u32,
        moves,
        rounds: state.round,
        pit_stops,
        slipstreams,
    })
}

fn log(trace: &mut Option<String>, t: &Track, s: &RaceState, events: &[crate::engine::Event]) {
    if let Some(out) = trace.as_mut() {
        for e in events {
            let _ = writeln!(out, "  {}", e.describe(t, |c| s.car(c).number));
        }
    }
}

/// The eliminated cars of a race, by number, with their reasons.
pub fn eliminations(state: &RaceState) -> Vec<(u8, Elimination)> {
    let mut out: Vec<(u8, Elimination)> = state
        .cars
        .iter()
        .filter(|c| !c.backmarker)
        .filter_map(|c| match c.status {
            Status::Eliminated { reason, .. } => Some((c.number, reason)),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

/// The invariants every move keeps (issue: no two cars on one space, laps never go back,
/// finishers crossed the line after the required laps, eliminated cars have a reason).
pub fn check(t: &Track, before: &RaceState, after: &RaceState) -> Result<(), String> {
    let mut seen = vec![None; t.spaces.len()];
    for (i, c) in after.cars.iter().enumerate() {
        if c.status.on_board() {
            if let Some(other) = seen[c.space.get()] {
                return Err(format!("cars {other} and {} share space {}", c.number, t.space(c.space).id));
            }
            seen[c.space.get()] = Some(c.number);
        }
        let b = &before.cars[i];
        if c.crossings < b.crossings {
            return Err(format!("car {} lost a lap", c.number));
        }
        if let Status::Finished { .. } = c.status
            && c.crossings <= after.laps
        {
            return Err(format!("car {} finished after {} crossings of {} laps", c.number, c.crossings, after.laps));
        }
        if c.backmarker {
            // 002: a backmarker takes no damage and stays in 3rd; it never finishes (ruling 49).
            use crate::engine::backmarkers::{GEAR, WEAR};
            if c.status.plays() && (c.wear != WEAR || c.gear != GEAR) {
                return Err(format!("backmarker {} has {} in gear {} after its move", c.number, c.wear, c.gear));
            }
            if matches!(c.status, Status::Finished { .. }) {
                return Err(format!("backmarker {} finished", c.number));
            }
            continue;
        }
        // 4-0-2, 19-4-1: repairs come from the 2 pit points only, and no part goes above the
        // sheet it started with. The same move may also cost points (over-revving into the pit
        // lane costs gas, 13-1), so a part's net gain is at most the pit points used.
        let gained: u32 = [Part::Brakes, Part::Gas, Part::Body, Part::Engine, Part::Handling]
            .iter()
            .map(|&p| c.wear.get(p).saturating_sub(b.wear.get(p)) as u32)
            .sum();
        if c.pit_points > b.pit_points || gained > (b.pit_points - c.pit_points) as u32 {
            return Err(format!(
                "car {} regained {gained} point(s) for {} pit point(s)",
                c.number,
                b.pit_points - c.pit_points
            ));
        }
        if PIT_POINTS.saturating_sub(c.pit_points) > PIT_POINTS
            || Part::ALL.iter().any(|&p| c.wear.get(p) > c.pit.sheet.get(p))
        {
            return Err(format!("car {} has more points than its sheet or its 2 pit points allow", c.number));
        }
        if c.status == Status::Racing && c.wear.tyres == 0 && b.wear.tyres > 0 {
            return Err(format!("car {} used its last tyre point without spinning (10-4-1)", c.number));
        }
    }
    Ok(())
}

/// Runs every race and returns the summary text, or the first broken invariant.
pub fn run(t: &Track, rules: &Rulebook, cfg: &SimConfig) -> Result<String, Broken> {
    let mut bot = Bot::new();
    let mut results = Vec::new();
    let mut out = String::new();
    for race in 0..cfg.races {
        let mut trace = (cfg.trace == Some(race)).then(String::new);
        let result = run_race(t, rules, cfg, race, &mut bot, &mut trace);
        if let Some(text) = trace {
            let _ = writeln!(out, "trace of race {}:", race + 1);
            out.push_str(&text);
        }
        match result {
            Ok(r) => results.push(r),
            Err(mut b) => {
                b.context = out;
                return Err(b);
            }
        }
    }
    out.push_str(&summary(t, cfg, &results));
    Ok(out)
}

/// A deterministic plain-text summary, ending with a digest of every result.
pub fn summary(t: &Track, cfg: &SimConfig, results: &[RaceResult]) -> String {
    let mut out = String::new();
    let _ =
        writeln!(out, "{} races on {}, {} cars, {} laps, seed {}", results.len(), t.name, cfg.cars, cfg.laps, cfg.seed);
    if cfg.weather != SimWeather::Dry {
        let _ = writeln!(out, "weather: {:?}", cfg.weather);
    }
    if cfg.backmarkers {
        let _ = writeln!(out, "backmarkers (002)");
    }
    let mut digest = Sha256::new();
    let mut by_reason: BTreeMap<&str, u32> = BTreeMap::new();
    let mut wins: BTreeMap<u8, u32> = BTreeMap::new();
    let (mut finishers, mut rolls, mut moves, mut rounds) = (0usize, 0u64, 0u64, 0u64);
    let (mut pit_stops, mut slipstreams) = (0u64, 0u64);
    for (i, r) in results.iter().enumerate() {
        let line = format!(
            "race {:>4}: finish {:?} out {:?} rolls {} rounds {}",
            i + 1,
            r.finish,
            r.eliminated.iter().map(|(n, e)| format!("{n}:{}", e.name())).collect::<Vec<_>>(),
            r.rolls,
            r.rounds
        );
        digest.update(line.as_bytes());
        if results.len() <= 20 {
            let _ = writeln!(out, "{line}");
        }
        for (_, e) in &r.eliminated {
            *by_reason.entry(e.name()).or_default() += 1;
        }
        if let Some(&w) = r.finish.first() {
            *wins.entry(w).or_default() += 1;
        }
        finishers += r.finish.len();
        rolls += r.rolls as u64;
        moves += r.moves as u64;
        rounds += r.rounds as u64;
        pit_stops += r.pit_stops as u64;
        slipstreams += r.slipstreams as u64;
    }
    let n = results.len().max(1) as f64;
    let _ = writeln!(out, "finishers: {finishers} of {} cars", results.len() * cfg.cars);
    let _ = writeln!(
        out,
        "eliminations: {}",
        if by_reason.is_empty() {
            "none".to_string()
        } else {
            by_reason.iter().map(|(k, v)| format!("{k} {v}")).collect::<Vec<_>>().join(", ")
        }
    );
    let _ = writeln!(
        out,
        "wins by grid slot: {}",
        wins.iter().map(|(k, v)| format!("#{k} {v}")).collect::<Vec<_>>().join(", ")
    );
    let _ = writeln!(
        out,
        "rolls {rolls} ({:.1} a race), moves {moves}, rounds {:.1} a race",
        rolls as f64 / n,
        rounds as f64 / n
    );
    let _ = writeln!(
        out,
        "pit stops {pit_stops} ({:.1} a race), slipstreams {slipstreams} ({:.1} a race)",
        pit_stops as f64 / n,
        slipstreams as f64 / n
    );
    let _ = writeln!(out, "digest {}", hex::encode(digest.finalize()));
    out
}

/// The number of cars in a result that finished (used by tests).
pub fn finished(r: &RaceResult) -> usize {
    r.finish.len()
}

/// Car ids of a field, for callers that drive races themselves.
pub fn car_ids(n: usize) -> Vec<CarId> {
    (0..n).map(|i| CarId(i as u8)).collect()
}
