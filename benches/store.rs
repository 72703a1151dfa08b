//! Game-store benchmarks: `verify` of a finished 10-car 3-lap race on Monaco against only reading
//! and parsing its TOML files (the target is at most 1.5 times), and `audit` over 1,000 games.
//!
//! The games are kept bot races (`steward sim --keep`), generated once under the system's temp
//! directory (`steward-bench-store/`) and reused. `cargo bench --features bench --bench store`;
//! the ratio is also printed on its own line, and on the next the floor of any verification
//! that checks what the turn files say (the engine's roll of every move, the track built from its
//! file, the hash chain, the states' digests, each timed alone) against the ratio's budget.
//! `cargo bench --features bench --bench store -- xyz` prints those two lines and nothing else
//! (a filter that selects no benchmark also skips the audit's one-off timing).

#[path = "support/allocator.rs"]
mod allocator;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use steward::engine::{CarId, FixedDice, RaceState, Rulebook};
use steward::sim::{SimConfig, SimWeather};
use steward::store::files::GameFile;
use steward::store::fsio::Durability;
use steward::store::hash::sha256_hex;
use steward::store::{Game, Store, audit, verify};

#[path = "support/cpu.rs"]
mod cpu;
use cpu::{cpu_seconds, thread_seconds};

/// `races` kept 10-car 3-lap races on Monaco, generated on first use.
fn corpus(races: u32) -> Vec<PathBuf> {
    let dir = std::env::temp_dir().join("steward-bench-store").join(format!("monaco-{races}"));
    let done = dir.join(".complete");
    if !done.exists() {
        eprintln!("generating {races} kept races in {} (once)...", dir.display());
        let t = steward::track::load::resolve("monaco").unwrap();
        let cfg = SimConfig {
            cars: 10,
            laps: 3,
            races,
            seed: 2026,
            trace: None,
            weather: SimWeather::Dry,
            backmarkers: false,
        };
        steward::sim::keep::run(&t, "monaco", &Rulebook::competition_2004(), &cfg, &dir, Durability::NoSync).unwrap();
        std::fs::write(&done, "").unwrap();
    }
    let store = Store::new(&dir);
    store.list().unwrap().into_iter().map(|id| store.game_dir(&id)).collect()
}

/// Only reading and parsing: every file of the game into its serde type (the track as TOML).
fn read_and_parse(dir: &Path) -> usize {
    let raw = verify::read(dir).unwrap();
    let parsed = verify::parse(&raw).unwrap();
    let game: GameFile = toml::from_str(std::str::from_utf8(raw.game_toml.as_deref().unwrap()).unwrap()).unwrap();
    let track: toml::Table = toml::from_str(std::str::from_utf8(&raw.track).unwrap()).unwrap();
    parsed.turns.len() + game.players.len() + track.len()
}

fn full_verify(dir: &Path) -> usize {
    verify::verify(dir, None).unwrap().game.turns.len()
}

/// Whether the command line's filter selects the benchmark `id`, as criterion reads it (a regular
/// expression, or the whole name after `--exact`; none selects all): a group's one-off timing
/// printed before its benchmarks is skipped with them.
fn selected(id: &str) -> bool {
    // criterion's options that take a value (the value is not the filter).
    const VALUED: [&str; 16] = [
        "--warm-up-time",
        "--measurement-time",
        "--profile-time",
        "--save-baseline",
        "--baseline",
        "--baseline-lenient",
        "--load-baseline",
        "--sample-size",
        "--nresamples",
        "--noise-threshold",
        "--confidence-level",
        "--significance-level",
        "--plotting-backend",
        "--output-format",
        "--format",
        "--color",
    ];
    let (mut exact, mut filter) = (false, None);
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if VALUED.contains(&a.as_str()) {
            args.next();
        } else if a == "--exact" {
            exact = true;
        } else if !a.starts_with('-') {
            filter = Some(a);
        }
    }
    match filter {
        None => true,
        Some(f) if exact => f == id,
        Some(f) => regex::Regex::new(&f).map_or(true, |r| r.is_match(id)),
    }
}

/// The engine's inputs for every move of the game read in `raw`, as its replay meets them: the state
/// before the move's turn, the car, the gear it announces and the turn's recorded die results.
struct Moves {
    track: String,
    rules: Rulebook,
    moves: Vec<(RaceState, CarId, u8, Vec<u8>)>,
}

fn moves_of(raw: &verify::RawGame) -> Moves {
    let parsed = verify::parse(raw).unwrap();
    let track = String::from_utf8(raw.track.clone()).unwrap();
    let t = steward::track::load::from_toml(&track, None).unwrap();
    let mut turns = parsed.turns.into_iter().zip(raw.turns.iter().map(|(_, bytes)| sha256_hex(bytes)));
    let (first, hash) = turns.next().unwrap();
    // No seed: the rolls are taken as recorded (the game verifies with its seed elsewhere).
    let (mut game, out) = Game::create(t, &first, None).unwrap();
    let next = game.now.clone();
    game.push(out, next, hash);
    let mut moves = Vec::new();
    for (rec, hash) in turns {
        let gear = rec.orders.iter().find_map(|o| Some((o.car, o.gear?)));
        if let (Some(race), Some((number, gear))) = (game.now.race.as_ref(), gear) {
            let (car, _) = game.player(number).unwrap();
            moves.push((race.state.clone(), car, gear, rec.rolls.iter().map(|r| r.value).collect()));
        }
        let (_, next) = game.apply(&rec).unwrap();
        game.push(rec, next, hash);
    }
    Moves { track, rules: game.rules.clone(), moves }
}

/// CPU seconds (this thread's) of the engine's roll of every move in `m` (the gear change, the
/// dice, the move's options), on a track built afresh before the clock starts, as `verify` builds
/// one: no search is kept from an earlier run. The dice are the recorded results, so the rolls'
/// derivation from the seed, which `verify` also does, is left out. The mean of `n` runs, and the
/// options offered in one.
fn engine_alone(m: &Moves, n: u32) -> (f64, usize) {
    let tracks: Vec<_> = (0..=n).map(|_| steward::track::load::from_toml(&m.track, None).unwrap()).collect();
    let run = |t: &steward::track::Track| {
        let mut offered = 0;
        for (state, car, gear, values) in &m.moves {
            let mut dice = FixedDice::new(values.clone());
            let step = steward::engine::roll(t, state, *car, *gear, &mut dice, &m.rules).unwrap();
            offered += match step {
                steward::engine::Step::Choose(r) => r.options.len(),
                _ => 1,
            };
        }
        offered
    };
    // A track for each run (the first one's too): every run offers the same options.
    let (mut tracks, mut offered) = (tracks.iter(), None);
    let secs = thread_mean(n, || {
        let o = black_box(run(tracks.next().expect("a track a run")));
        assert_eq!(*offered.get_or_insert(o), o);
    });
    (secs, offered.expect("one run at least"))
}

/// Mean CPU time of `f` on this thread, in seconds, over `n` runs after one.
fn thread_mean(n: u32, mut f: impl FnMut()) -> f64 {
    f();
    let c = thread_seconds();
    for _ in 0..n {
        f();
    }
    (thread_seconds() - c) / n as f64
}

/// Mean wall time and mean CPU time (every thread's) of `f`, in seconds.
fn mean_secs(n: u32, mut f: impl FnMut()) -> (f64, f64) {
    f();
    let (t, c) = (Instant::now(), cpu_seconds());
    for _ in 0..n {
        f();
    }
    (t.elapsed().as_secs_f64() / n as f64, (cpu_seconds() - c) / n as f64)
}

fn verify_vs_parse(c: &mut Criterion) {
    let games = corpus(1000);
    // The first finished race with the most turns among the first ten: a long race.
    let dir = games.iter().take(10).max_by_key(|d| std::fs::read_dir(d.join("turns")).unwrap().count()).unwrap();
    let turns = std::fs::read_dir(dir.join("turns")).unwrap().count();
    // In rounds, each reading and parsing then verifying: the machine's load drifts, and two
    // long runs one after the other measured the drift as much as the difference (the same
    // binary gave CPU ratios of 1.85 to 2.80). The ratio is the total's; the rounds' spread shows
    // how far to trust it.
    const ROUNDS: usize = 5;
    let (mut parse, mut verify) = ((0.0, 0.0), (0.0, 0.0));
    let mut rounds = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let p = mean_secs(20, || {
            black_box(read_and_parse(dir));
        });
        let v = mean_secs(20, || {
            black_box(full_verify(dir));
        });
        rounds.push(v.1 / p.1);
        parse = (parse.0 + p.0 / ROUNDS as f64, parse.1 + p.1 / ROUNDS as f64);
        verify = (verify.0 + v.0 / ROUNDS as f64, verify.1 + v.1 / ROUNDS as f64);
    }
    rounds.sort_by(f64::total_cmp);
    // Wall time (verify reads and parses on one thread while it replays on another) and the
    // CPU time of both threads together: the row is CPU time.
    println!(
        "store: {} ({turns} turn files): read+parse {:.2} ms, verify {:.2} ms, ratio {:.2}; CPU read+parse {:.2} ms, verify {:.2} ms, ratio {:.2} (rounds {:.2}-{:.2}; target <= 1.5)",
        dir.file_name().unwrap().to_string_lossy(),
        parse.0 * 1e3,
        verify.0 * 1e3,
        verify.0 / parse.0,
        parse.1 * 1e3,
        verify.1 * 1e3,
        verify.1 / parse.1,
        rounds[0],
        rounds[ROUNDS - 1]
    );
    // The floor of any verification that checks what the turn files say (the options offered,
    // the hash chain, the states' digests), each part alone, against the row's budget.
    let raw = verify::read(dir).unwrap();
    let m = moves_of(&raw);
    let (engine, offered) = engine_alone(&m, 20);
    let track = thread_mean(20, || {
        black_box(steward::track::load::from_toml(&m.track, None).unwrap());
    });
    let chain = thread_mean(20, || {
        black_box(raw.turns.iter().map(|(_, bytes)| sha256_hex(bytes).len()).sum::<usize>());
    });
    let t = steward::track::load::from_toml(&m.track, None).unwrap();
    let digests = thread_mean(20, || {
        black_box(
            m.moves.iter().map(|(s, ..)| steward::store::canon::state_digest(&t, s, 0, None).len()).sum::<usize>(),
        );
    });
    let floor = engine + track + chain + digests;
    println!(
        "store: its floor beyond reading and parsing, CPU: the engine's rolls of its {} moves (gear, dice, options: {offered} offered) {:.2} ms, the track built from its file {:.2} ms, the files' hash chain {:.2} ms, a state digest a move {:.2} ms; {:.2} ms in all, against the row's budget (0.5 x read+parse) {:.2} ms",
        m.moves.len(),
        engine * 1e3,
        track * 1e3,
        chain * 1e3,
        digests * 1e3,
        floor * 1e3,
        parse.1 * 0.5e3
    );
    let mut g = c.benchmark_group("store/10-car-3-lap-monaco");
    g.bench_function("read+parse", |b| b.iter(|| black_box(read_and_parse(dir))));
    g.bench_function("verify", |b| b.iter(|| black_box(full_verify(dir))));
    g.finish();
}

fn audit_1000(c: &mut Criterion) {
    let games = corpus(1000);
    // The one-off timing of a whole audit (a minute), only when the benchmark is selected.
    if !selected("store/audit-1000-games") {
        return;
    }
    let t = Instant::now();
    let (text, _) = audit::audit(&games).unwrap();
    println!(
        "store: audit of {} games in {:.2} s: {}",
        games.len(),
        t.elapsed().as_secs_f64(),
        text.lines().next().unwrap_or_default()
    );
    let mut g = c.benchmark_group("store");
    g.sample_size(10);
    g.bench_function("audit-1000-games", |b| b.iter(|| black_box(audit::audit(&games).unwrap())));
    g.finish();
}

criterion_group!(benches, verify_vs_parse, audit_1000);
criterion_main!(benches);
