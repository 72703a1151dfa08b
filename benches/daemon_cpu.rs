//! The daemon's CPU per message (issue 17's row): 500 order mails over 20 four-car games on
//! sprint, Maildir in and out, one `Daemon::pass` (what `steward serve --once` runs), fsync on.
//! Prints the process CPU time per message (user + system, from `/proc/self/stat`), the wall
//! time, and how many times a game was replayed from its files (a game should be replayed at
//! most once per daemon run: `store::replayed`).
//!
//! Not criterion: one pass changes the games, so each figure is a timed run on fresh state;
//! three runs are printed. `cargo bench --bench daemon_cpu`; the fsyncs are counted by
//! `store::fsio::fsyncs`. Run with `TMPDIR=/dev/shm` (tmpfs) to leave the file system's own work
//! out of the count (docs/performance.md, "Fourth pass").

#[path = "support/allocator.rs"]
mod allocator;

use std::fs;
use std::path::PathBuf;
use std::time::Instant;

use steward::judge::config::ServeConfig;
use steward::judge::daemon::Daemon;
use steward::judge::outbox::Via;
use steward::mail::transport::{MaildirInbox, MaildirSender, deliver};
use steward::store::fsio::{self, Durability};

#[path = "support/orders.rs"]
mod orders;
use orders::{CARS, STEWARD, games, order_mail};
#[path = "support/cpu.rs"]
mod cpu;
use cpu::cpu_split;

const MAILS: usize = 500;
const GAMES: usize = 20;

fn run(n: usize) -> (PathBuf, (f64, f64), f64, u64, u64) {
    let root: PathBuf = std::env::temp_dir().join(format!("steward-bench-cpu-{n}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    fs::create_dir_all(&root).unwrap();
    let turns = games(&root, GAMES);
    let inbox_dir = root.join("mail").join(STEWARD);
    for i in 0..MAILS {
        deliver(&inbox_dir, &order_mail(i, &turns)).unwrap();
    }
    let mut cfg = ServeConfig::local(&root, STEWARD);
    cfg.rate_per_hour = u32::MAX;
    let mut d = Daemon::new(cfg, Durability::Sync).unwrap();
    let mut inbox = MaildirInbox::open(&inbox_dir).unwrap();
    let mut via = Via(MaildirSender::per_recipient(root.join("mail")));
    let (c0, t0, f0) = (cpu_split(), Instant::now(), fsio::fsyncs());
    let p = d.pass(&mut inbox, &mut via).unwrap();
    let c1 = cpu_split();
    let (cpu, wall, fsyncs) = ((c1.0 - c0.0, c1.1 - c0.1), t0.elapsed().as_secs_f64(), fsio::fsyncs() - f0);
    assert_eq!(p.processed, MAILS);
    let replays = d.store().replays();
    (root, cpu, wall, replays, fsyncs)
}

fn main() {
    println!(
        "== {MAILS} order mails over {GAMES} games of {CARS} cars, Maildir in and out, one Daemon::pass, fsync on"
    );
    // Each run's files are removed after the last run, not before the next: ext4 skips the
    // inodes freed in the last seconds when it allocates one (`recently_deleted`), and the
    // thousands a run leaves made the next run's daemon pay for the benchmark's clean-up.
    let mut roots = Vec::new();
    for n in 0..3 {
        let (root, cpu, wall, replays, fsyncs) = run(n);
        roots.push(root);
        println!(
            "run {n}: CPU {:.2} ms per message ({:.2} s: user {:.2} s, system {:.2} s), wall {:.2} ms per message, {:.1} fsyncs per message, games replayed from files: {replays} ({GAMES} games)",
            (cpu.0 + cpu.1) * 1000.0 / MAILS as f64,
            cpu.0 + cpu.1,
            cpu.0,
            cpu.1,
            wall * 1000.0 / MAILS as f64,
            fsyncs as f64 / MAILS as f64,
        );
    }
    for root in roots {
        let _ = fs::remove_dir_all(root);
    }
}
