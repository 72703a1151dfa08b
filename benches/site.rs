//! `steward site` benchmarks (targets in docs/site.md): the whole site of a 12-race season
//! (`steward league demo`'s default: 4 drivers, 1 lap, every shipped track in turn) written
//! from nothing, under 2 s; one race's pages rebuilt (its race page with the replay and its
//! dice page), under 100 ms.
//!
//! The season is simulated once through the daemon's Maildir under the system's temp directory
//! (`steward-bench-site/`) and reused. `cargo bench --features bench --bench site`.

use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use steward::demo::season::{SeasonSpec, run};

/// The games directory of the benchmark's season, simulated on first use.
fn season() -> PathBuf {
    let dir = std::env::temp_dir().join("steward-bench-site");
    let done = dir.join(".complete");
    if !done.exists() {
        eprintln!("simulating a 12-race season in {} (once)...", dir.display());
        let _ = std::fs::remove_dir_all(&dir);
        let spec = SeasonSpec {
            dir: dir.clone(),
            league: "bench".into(),
            races: 12,
            drivers: 4,
            laps: 1,
            tracks: steward::track::load::shipped_names(),
            seed: 1,
        };
        run(&spec).unwrap();
        std::fs::write(&done, "").unwrap();
    }
    dir.join("games")
}

fn bench(c: &mut Criterion) {
    let games = season();
    let out = std::env::temp_dir().join("steward-bench-site-out");
    let mut g = c.benchmark_group("site");
    g.sample_size(10);
    g.bench_function("season of 12 races, from nothing", |b| {
        b.iter(|| {
            let _ = std::fs::remove_dir_all(&out);
            let built = steward::site::build(&games, &out).unwrap();
            assert_eq!(built.rebuilt.len(), 12);
        })
    });
    let race = one_race(&games);
    g.bench_function("one race rebuilt", |b| {
        b.iter(|| steward::site::game_pages(&games, &race, Some("bench"), &out).unwrap())
    });
    g.finish();
}

/// The longest race of the season (most turn files).
fn one_race(games: &Path) -> String {
    let (names, _) = steward::site::scan(games).unwrap();
    names
        .into_iter()
        .max_by_key(|n| std::fs::read_dir(games.join(n).join("turns")).map(|d| d.count()).unwrap_or(0))
        .unwrap()
}

criterion_group!(benches, bench);
criterion_main!(benches);
