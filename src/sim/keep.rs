//! `steward sim --keep DIR`: every simulated race played through the game driver and kept as a
//! real game directory (committed seed, bot players, one turn per move, the seed revealed in the
//! last turn), so that the store, `verify` and `audit` run on thousands of games without mail.
//!
//! Race `i` is the game whose committed seed is `sim_key(seed, "<track>/<i>")` and whose cars,
//! numbered 1 to N, gave no phrase: the very key `steward sim` plays race `i` with, so the
//! summary is the same bytes with or without `--keep`. Turn times are synthetic (one minute a
//! turn from 2000-01-01), so a kept game is the same bytes on every run, and a run that finds a
//! game half-written (a killed process) continues it.

use std::fmt::Write as _;
use std::path::Path;

use thiserror::Error;

use crate::dice::sim_key;
use crate::engine::Rulebook;
use crate::engine::bot::Bot;
use crate::sim::{Broken, RaceResult, SimConfig, check, summary};
use crate::track::Track;

use crate::store::error::StoreError;
use crate::store::fsio::Durability;
use crate::store::time::Stamp;
use crate::store::{Handle, Join, Meta, NewGame, Store};

/// Moves after which a race is declared stuck.
const MAX_MOVES: u32 = 20_000;

/// First turn time of a kept game: 2000-01-01T00:00:00Z.
const EPOCH: i64 = 946_684_800;

/// Why a kept simulation stopped.
#[derive(Debug, Error)]
pub enum KeepError {
    /// The store refused something (a bug, or a damaged game left in the directory).
    #[error("race {race}: {source}")]
    Store {
        /// Race index (1-based).
        race: u32,
        /// The error.
        #[source]
        source: StoreError,
    },
    /// An engine invariant broke.
    #[error(transparent)]
    Broken(#[from] Broken),
}

/// The name of kept race `race` (0-based).
pub fn game_id(t: &Track, cfg: &SimConfig, race: u32) -> String {
    format!("sim-{}-c{}-l{}-s{}-{:04}", t.name, cfg.cars, cfg.laps, cfg.seed, race + 1)
}

fn meta(turn: u32) -> Meta {
    Meta { at: Stamp(EPOCH + 60 * turn as i64), source: None }
}

/// Plays (or continues) every race into `dir` and returns the same summary as `steward sim`.
pub fn run(
    t: &Track,
    track: &str,
    rules: &Rulebook,
    cfg: &SimConfig,
    dir: &Path,
    durability: Durability,
) -> Result<String, KeepError> {
    let mut store = Store::new(dir);
    store.durability = durability;
    let mut bot = Bot::new();
    let mut results = Vec::new();
    let mut out = String::new();
    for race in 0..cfg.races {
        let err = |source| KeepError::Store { race: race + 1, source };
        let mut h = play(&store, t, track, rules, cfg, race, &mut bot).map_err(|e| match e {
            PlayError::Store(s) => err(s),
            PlayError::Broken(b) => KeepError::Broken(b),
        })?;
        if cfg.trace == Some(race) {
            let _ = writeln!(out, "trace of race {}:", race + 1);
            for turn in &h.game().turns {
                for e in &turn.events {
                    let _ = writeln!(out, "  {} ({})", e.text, e.article);
                }
            }
        }
        results.push(result(&mut h));
    }
    out.push_str(&summary(t, cfg, &results));
    Ok(out)
}

enum PlayError {
    Store(StoreError),
    Broken(Broken),
}

impl From<StoreError> for PlayError {
    fn from(e: StoreError) -> Self {
        PlayError::Store(e)
    }
}

fn play(
    store: &Store,
    t: &Track,
    track: &str,
    rules: &Rulebook,
    cfg: &SimConfig,
    race: u32,
    bot: &mut Bot,
) -> Result<Handle, PlayError> {
    let id = game_id(t, cfg, race);
    let mut h = if store.game_dir(&id).join("turns").is_dir() {
        store.open(&id)?
    } else {
        let req = NewGame {
            max_cars: Some(cfg.cars as u8),
            weather: cfg.weather.forecast(),
            profile: rules.spec(),
            backmarkers: cfg.backmarkers,
            // The key `steward sim` plays with (`sim_race_key`) is a v1 key.
            scheme: crate::dice::Scheme::V1,
            ..NewGame::plain(&id, track, cfg.laps)
        };
        store.create(&req, sim_key(cfg.seed, &format!("{}/{race}", t.name)), meta(0))?
    };
    h.keep_states_after_moves();
    while h.game().now.players.len() < cfg.cars {
        let n = h.game().now.players.len() as u8 + 1;
        let join = Join { bot: true, ..Join::plain(&format!("bot{n}@sim.invalid"), &format!("sim-bot-{n}"), n) };
        let at = meta(h.game().next_turn());
        h.join(&join, at)?;
    }
    if !h.game().started() {
        let at = meta(h.game().next_turn());
        h.start(at)?;
    }
    while !h.game().now.over {
        let race_now = h.game().now.race.as_ref().expect("started");
        let moves = race_now.moves;
        if moves >= MAX_MOVES {
            return Err(PlayError::Broken(Broken {
                race,
                moves,
                what: "the race does not end".into(),
                context: String::new(),
            }));
        }
        let before = race_now.state.clone();
        let at = meta(h.game().next_turn());
        h.bot_move(bot, at)?;
        let race_now = h.game().now.race.as_ref().expect("started");
        let after = race_now.after_move.as_ref().unwrap_or(&race_now.state);
        check(t, &before, after)
            .map_err(|what| PlayError::Broken(Broken { race, moves: moves + 1, what, context: String::new() }))?;
    }
    Ok(h)
}

fn result(h: &mut Handle) -> RaceResult {
    let g = h.game();
    let race = g.now.race.as_ref().expect("a kept race has started");
    let s = &race.state;
    let eliminated = crate::sim::eliminations(s);
    RaceResult {
        finish: s.finish_order.iter().map(|&c| s.car(c).number).collect(),
        eliminated,
        rolls: g.turns.iter().map(|t| t.rolls.len() as u32).sum(),
        moves: race.moves,
        rounds: s.round,
        pit_stops: count_events(g, "19-2-6"),
        slipstreams: count_events(g, "18-0-3"),
    }
}

/// Events of the game's turns citing `article`.
fn count_events(g: &crate::store::game::Game, article: &str) -> u32 {
    g.turns.iter().flat_map(|t| t.events.iter()).filter(|e| e.article == article).count() as u32
}
