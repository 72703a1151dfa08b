//! Track loading speed: the shipped Monaco from `tracks/monaco.toml`, and the import of the 39
//! reference `.dat` graphs from `../shared/reference-tracks/` (skipped when absent).
//!
//! Run with `cargo bench --features bench --bench tracks -- --warm-up-time 1 --measurement-time 3`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use steward::track::import::import_file;
use steward::track::load::from_file;

fn load_monaco(c: &mut Criterion) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tracks/monaco.toml");
    c.bench_function("load shipped monaco.toml", |b| b.iter(|| from_file(black_box(&path)).unwrap()));
}

fn import_reference(c: &mut Criterion) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference-tracks");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        println!("skipped: {} is absent", dir.display());
        return;
    };
    let mut files: Vec<PathBuf> =
        entries.map(|e| e.unwrap().path()).filter(|p| p.extension().is_some_and(|e| e == "dat")).collect();
    files.sort();
    c.bench_function(&format!("import all {} reference .dat files", files.len()), |b| {
        b.iter(|| {
            // Files with a known defect fail their check; the work is the same.
            files.iter().map(|f| import_file(black_box(f)).is_ok()).filter(|&ok| ok).count()
        })
    });
}

criterion_group!(benches, load_monaco, import_reference);
criterion_main!(benches);
