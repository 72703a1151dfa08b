//! The game store: kept simulations are real games, `verify` catches every kind of tampering at
//! the right turn, replay is byte-identical, killed writers leave valid games that the next run
//! continues, the dice test vectors hold in Rust and in the independent Python verifier, and
//! the game commands work end to end.

mod audit;
mod beacon;
mod crash;
mod flow;
mod reroll;
mod rollback;
mod tamper;
mod vectors;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use steward::engine::Rulebook;
use steward::sim::{SimConfig, SimWeather};
use steward::store::fsio::Durability;

/// A fresh scratch directory for test `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("store-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `python3` with `args` from the crate root.
pub fn python(args: &[&str]) -> Output {
    Command::new("python3")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("python3 runs (the independent verifier needs Python 3.11 or later)")
}

/// Keeps `races` bot races on `track` in `dir` through the library; returns the game dirs.
pub fn keep(dir: &Path, track: &str, cars: usize, laps: u16, races: u32, seed: u64) -> Vec<PathBuf> {
    let t = steward::track::load::resolve(track).unwrap();
    let cfg = SimConfig { cars, laps, races, seed, trace: None, weather: SimWeather::Dry, backmarkers: false };
    steward::sim::keep::run(&t, track, &Rulebook::competition_2004(), &cfg, dir, Durability::NoSync).unwrap();
    let store = steward::store::Store::new(dir);
    store.list().unwrap().into_iter().map(|id| store.game_dir(&id)).collect()
}

/// Every file under `dir` (relative path → bytes), lock files left out.
pub fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    fn walk(base: &Path, dir: &Path, out: &mut BTreeMap<String, Vec<u8>>) {
        for e in std::fs::read_dir(dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(base, &p, out);
            } else if e.file_name() != ".lock" {
                out.insert(p.strip_prefix(base).unwrap().display().to_string(), std::fs::read(&p).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(dir, dir, &mut out);
    out
}

/// Copies a directory tree.
pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for (rel, bytes) in tree(from) {
        let p = to.join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, bytes).unwrap();
    }
}
