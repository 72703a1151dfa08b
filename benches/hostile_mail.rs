//! The issue-13 mail: 50,000 short lines from a player of a running game, each one refused and
//! so echoed with its error by an uncapped receipt (the limit on the text read is raised to
//! 1 MiB so that the mail is read), through
//! `Daemon::process` (parse, receipt, capped reply, outbox, ledger). Before the fix it took 43 s
//! and drew a 10.5 MB reply: building the mail inserted each CR one at a time. The bench
//! checks the reply stays under `MAX_REPLY_BYTES` and prints its size.
//!
//! `cargo bench --features bench --bench hostile_mail`.
//!
//! Measured on 2026-11-24 (2 cores shared with three other builds): 168 ms a mail (criterion
//! [165, 175] ms), largest reply 14,781 bytes (cap 262,144); with 50,000 lines of prose, which
//! are skipped rather than echoed, 33 ms.

use std::path::PathBuf;
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use steward::judge::config::ServeConfig;
use steward::judge::daemon::Daemon;
use steward::mail::limits::MAX_REPLY_BYTES;
use steward::store::fsio::Durability;
use steward::store::{Join, Meta, NewGame, Store};

const LINES: usize = 50_000;

fn setup() -> (PathBuf, Daemon) {
    let root = std::env::temp_dir().join(format!("steward-bench-hostile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    std::fs::create_dir_all(&root).unwrap();
    let mut store = Store::new(root.join("games"));
    store.durability = Durability::NoSync;
    let mut h = store.create(&NewGame::plain("g", "sprint", 1), [1; 32], Meta::now()).unwrap();
    h.join(&Join::plain("p1@players.test", "t1", 1), Meta::now()).unwrap();
    h.join(&Join::plain("p2@players.test", "t2", 2), Meta::now()).unwrap();
    h.start(Meta::now()).unwrap();
    let mut cfg = ServeConfig::local(&root, "steward@players.test");
    cfg.rate_per_hour = u32::MAX;
    cfg.max_message_bytes = 1 << 20;
    let daemon = Daemon::new(cfg, Durability::NoSync).unwrap();
    (root, daemon)
}

/// 50,000 lines, every one a refused order (`GEAR 9`) that an uncapped receipt echoes.
fn big_mail() -> Vec<u8> {
    let mut m = b"From: p1@players.test\r\nTo: steward@players.test\r\nSubject: orders\r\n\
                  Content-Type: text/plain; charset=utf-8\r\n\r\nGAME g\r\nCAR 1\r\nTOKEN t1\r\n"
        .to_vec();
    for i in 0..LINES {
        m.extend_from_slice(format!("GEAR {}\r\n", 7 + i % 3).as_bytes());
    }
    m
}

fn hostile(c: &mut Criterion) {
    let (root, mut daemon) = setup();
    let raw = big_mail();
    let mut n = 0u64;
    let mut g = c.benchmark_group("hostile_mail");
    g.sample_size(10).measurement_time(Duration::from_secs(20));
    g.bench_function("50k_lines", |b| {
        b.iter(|| {
            n += 1;
            assert!(daemon.process(&format!("bench-{n}"), &raw).unwrap());
        })
    });
    g.finish();
    let largest = std::fs::read_dir(root.join("mail-state/outbox"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
        .map(|e| e.metadata().unwrap().len() as usize)
        .max()
        .unwrap();
    assert!(largest <= MAX_REPLY_BYTES, "reply of {largest} bytes");
    println!("mail of {} bytes, {LINES} lines: largest reply {largest} bytes (cap {MAX_REPLY_BYTES})", raw.len());
    let _ = std::fs::remove_dir_all(&root);
}

criterion_group!(benches, hostile);
criterion_main!(benches);
