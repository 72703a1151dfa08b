//! Game-store benchmarks: `verify` of a finished 10-car 3-lap race on Monaco against only reading
//! and parsing its TOML files (the target is at most 1.5 times), and `audit` over 1,000 games.
//!
//! The games are kept bot races (`steward sim --keep`), generated once under the system's temp
//! directory (`steward-bench-store/`) and reused. `cargo bench --features bench --bench store`;
//! the ratio is also printed on its own line.

#[path = "support/allocator.rs"]
mod allocator;

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Instant;

use criterion::{Criterion, criterion_group, criterion_main};
use steward::engine::Rulebook;
use steward::sim::{SimConfig, SimWeather};
use steward::store::files::GameFile;
use steward::store::fsio::Durability;
use steward::store::{Store, audit, verify};

#[path = "support/cpu.rs"]
mod cpu;
use cpu::cpu_seconds;

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
        steward::store::keep::run(&t, "monaco", &Rulebook::competition_2004(), &cfg, &dir, Durability::NoSync).unwrap();
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
    let mut g = c.benchmark_group("store/10-car-3-lap-monaco");
    g.bench_function("read+parse", |b| b.iter(|| black_box(read_and_parse(dir))));
    g.bench_function("verify", |b| b.iter(|| black_box(full_verify(dir))));
    g.finish();
}

fn audit_1000(c: &mut Criterion) {
    let games = corpus(1000);
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
