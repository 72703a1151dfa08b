//! Tidy checks that keep the architecture invariants of docs/ARCHITECTURE.md true.

use std::path::Path;

use crate::support::root;

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

#[test]
fn the_engine_is_pure() {
    let mut files = Vec::new();
    rust_files(&root().join("src/engine"), &mut files);
    assert!(files.len() >= 8, "engine files found: {files:?}");
    let forbidden =
        ["std::fs", "std::net", "SystemTime", "Instant::now", "thread_rng", "rand::random", "OsRng", "std::env"];
    let mut hits = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for (n, line) in text.lines().enumerate() {
            for bad in forbidden {
                if line.contains(bad) {
                    hits.push(format!("{}:{}: {}", f.display(), n + 1, line.trim()));
                }
            }
        }
    }
    assert!(hits.is_empty(), "the engine must not do I/O, read clocks or draw randomness:\n{}", hits.join("\n"));
}

#[test]
fn the_engine_depends_only_on_the_track_model() {
    let mut files = Vec::new();
    rust_files(&root().join("src/engine"), &mut files);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for bad in ["crate::render", "crate::sim", "crate::scenario", "crate::cli", "crate::dice::"] {
            assert!(!text.contains(bad), "{} uses {bad}", f.display());
        }
    }
}

#[test]
fn every_module_says_why_it_exists() {
    let mut files = Vec::new();
    rust_files(&root().join("src"), &mut files);
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        assert!(text.starts_with("//!"), "{} has no module doc (a `//!` first line)", f.display());
    }
}
