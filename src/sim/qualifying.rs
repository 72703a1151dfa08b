//! Bot qualifying sessions: `steward qualify`. Each car drives its timed lap alone with the bot's
//! decisions and committed-seed-style labelled dice, then the grid is drawn up (1-3-2). The rules
//! are the engine's (`engine::qualifying`); this module only drives them and prints the table.

use std::fmt::Write as _;

use crate::dice::{LabelledDice, sim_key};
use crate::engine::bot::{self, Bot};
use crate::engine::qualifying::grid::{self, Qualified, TieBreak};
use crate::engine::qualifying::{Lap, LapEnd, QualifyingError, play_lap};
use crate::engine::weather;
use crate::engine::{Dice, Die, Purpose, Rulebook, Tyres};
use crate::track::Track;

/// The weather of a session (1-0-3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum SessionWeather {
    /// A dry track, no die rolled.
    Dry,
    /// A wet track, no die rolled.
    Wet,
    /// The black die on the track's table (1-0-3, 3-1).
    Track,
}

impl SessionWeather {
    /// Parses `dry`, `wet`, `track`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "dry" => Some(SessionWeather::Dry),
            "wet" => Some(SessionWeather::Wet),
            "track" => Some(SessionWeather::Track),
            _ => None,
        }
    }
}

/// What to run.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    /// Cars, numbered 1 to N, driving in that order.
    pub cars: usize,
    /// Seed of the dice.
    pub seed: u64,
    /// Weather of the session.
    pub weather: SessionWeather,
    /// How equal results are separated.
    pub tie: TieBreak,
    /// The rules: without the Eurogames time trials (003-2 off) the grid is one black die per
    /// car (002), without its weather (003-4 off) the track is dry, without its tyres (003-3
    /// off) every car is on hard tyres (docs/profiles.md).
    pub rules: Rulebook,
}

/// A finished session.
#[derive(Clone, Debug)]
pub struct Session {
    /// Whether the track was wet.
    pub wet: bool,
    /// The weather die, if one was rolled (1-0-3).
    pub weather_roll: Option<u8>,
    /// Every car's lap, in driving order.
    pub laps: Vec<Lap>,
    /// Car numbers, pole first.
    pub grid: Vec<u8>,
}

/// Runs a session on `t`.
pub fn run(t: &Track, cfg: &SessionConfig) -> Result<Session, QualifyingError> {
    let mut dice = LabelledDice::new(sim_key(cfg.seed, &format!("qualify/{}", t.name)), "weather");
    let (wet, weather_roll) = match cfg.weather {
        _ if !cfg.rules.set.weather => (false, None),
        SessionWeather::Dry => (false, None),
        SessionWeather::Wet => (true, None),
        SessionWeather::Track => {
            let v = dice.roll(Die::Black, None, Purpose::Weather);
            (weather::qualifying(&t.weather, v).1, Some(v))
        }
    };
    if !cfg.rules.set.time_trials {
        // 003-2 off: no timed laps; the seeds' grid by one black die per car (002, ruling 32).
        dice.set_turn("grid");
        let cars: Vec<(u8, bool)> = (1..=cfg.cars as u8).map(|n| (n, false)).collect();
        let grid = grid::by_d20(&cars, &mut dice);
        return Ok(Session { wet, weather_roll, laps: Vec::new(), grid });
    }
    let mut driver = Bot::new();
    let mut laps = Vec::with_capacity(cfg.cars);
    let tyres = bot::tyres_for(wet);
    let tyres = if cfg.rules.tyres_allowed(tyres) { tyres } else { Tyres::Hard };
    for i in 0..cfg.cars {
        let number = i as u8 + 1;
        dice.set_turn(&format!("q{number}"));
        let lap = Lap::new(t, number, tyres, wet)?;
        laps.push(play_lap(t, lap, &mut driver, &mut dice)?);
    }
    let standings: Vec<Qualified> =
        laps.iter().enumerate().map(|(i, l)| grid::best_of(l.result.number, &[(i as u32, l.result)])).collect();
    dice.set_turn("grid");
    let grid = grid::from_qualifying(&standings, cfg.tie, cfg.rules.set.aborted_laps_by_black_die, &mut dice);
    Ok(Session { wet, weather_roll, laps, grid })
}

/// The printed result table and grid (deterministic).
pub fn report(t: &Track, s: &Session) -> String {
    let mut out = String::new();
    let sky = if s.wet { "wet" } else { "dry" };
    match s.weather_roll {
        Some(v) => {
            let _ = writeln!(out, "qualifying on {}: black die {v}, {sky} track (1-0-3)", t.name);
        }
        None => {
            let _ = writeln!(out, "qualifying on {}: {sky} track", t.name);
        }
    }
    if s.laps.is_empty() {
        let _ = writeln!(out, "no time trials (advanced rule 2 is off): the grid by one black die per car (002):");
        for (i, n) in s.grid.iter().enumerate() {
            let _ = writeln!(out, "{:>3}. car {n}", i + 1);
        }
        return out;
    }
    let _ = writeln!(out, "car  tyres  moves  rolls  overshoot  errors  total");
    for l in &s.laps {
        let r = &l.result;
        let total = match (r.total(), r.end) {
            (Some(v), _) => v.to_string(),
            (None, Some(LapEnd::Aborted { corner })) => format!("aborted, corner {corner} (1-1-14)"),
            (None, _) => "unfinished".to_string(),
        };
        let _ = writeln!(
            out,
            "{:>3}  {:<5}  {:>5}  {:>5}  {:>9}  {:>6}  {total}",
            r.number,
            l.car().tyres.name(),
            l.moves.len(),
            r.rolls,
            r.overshoot,
            r.errors
        );
    }
    let _ = writeln!(out, "grid (1-3-2):");
    for (i, n) in s.grid.iter().enumerate() {
        let _ = writeln!(out, "{:>3}. car {n}", i + 1);
    }
    out
}
