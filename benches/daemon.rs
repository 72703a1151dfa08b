//! The daemon under load: 1,000 order mails through `Daemon::pass` from a Maildir and from the
//! local IMAP server (Dovecot, started by the test harness `tests/mail/servers.rs`: needs root
//! and the packages `.ci/run` installs), against a plain IMAP `UID FETCH 1:* RFC822` of the same
//! mails; and the memory of `steward serve --once` over 1,000 games.
//!
//! Not criterion: one pass over 1,000 mails changes the games, so each figure is one timed run
//! on fresh state (the spread between runs is printed for three runs of the Maildir case).
//! `cargo bench --bench daemon`.
//!
//! Measured on 2026-11-22 (2 cores, idle, Dovecot 2.3.19 on loopback): Maildir 5.6 ms a mail
//! (median of 4.66 / 5.55 / 5.72 s), 3.3 ms without fsync of the daemon's state; IMAP 6.2 ms a
//! mail against 20.4 ms for a plain `UID FETCH` of all 1,000; `steward serve --once` over 1,000
//! games: peak RSS 11.1 MiB.

use std::fs;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use steward::judge::config::ServeConfig;
use steward::judge::daemon::Daemon;
use steward::judge::outbox::Via;
use steward::mail::transport::{ImapInbox, MaildirInbox, MaildirSender, deliver};
use steward::store::fsio::Durability;

#[path = "support/orders.rs"]
mod orders;
#[allow(dead_code)]
#[path = "../tests/mail/servers.rs"]
mod servers;
use orders::{STEWARD, games, order_mail};

const MAILS: usize = 1000;
const GAMES: usize = 10;

fn fresh(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("steward-bench-daemon-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn daemon(root: &Path, durability: Durability) -> Daemon {
    let mut cfg = ServeConfig::local(root, STEWARD);
    cfg.rate_per_hour = u32::MAX;
    Daemon::new(cfg, durability).unwrap()
}

fn maildir_run(run: usize, durability: Durability) -> Duration {
    let root = fresh(&format!("maildir{run}"));
    let turns = games(&root, GAMES);
    let inbox_dir = root.join("mail").join(STEWARD);
    for i in 0..MAILS {
        deliver(&inbox_dir, &order_mail(i, &turns)).unwrap();
    }
    let mut d = daemon(&root, durability);
    let mut inbox = MaildirInbox::open(&inbox_dir).unwrap();
    let mut via = Via(MaildirSender::per_recipient(root.join("mail")));
    let t = Instant::now();
    let p = d.pass(&mut inbox, &mut via).unwrap();
    let e = t.elapsed();
    assert_eq!(p.processed, MAILS);
    let _ = fs::remove_dir_all(&root);
    e
}

fn main() {
    println!("== {MAILS} order mails over {GAMES} games through Daemon::pass (fsync on, replies to Maildirs)");
    let mut runs: Vec<Duration> = (0..3).map(|r| maildir_run(r, Durability::Sync)).collect();
    runs.sort();
    println!(
        "maildir: median {:.2} s ({:.2} ms per mail), runs {:?}",
        runs[1].as_secs_f64(),
        runs[1].as_secs_f64() * 1000.0 / MAILS as f64,
        runs.iter().map(|d| format!("{:.2} s", d.as_secs_f64())).collect::<Vec<_>>()
    );

    let nosync = maildir_run(9, Durability::NoSync);
    println!(
        "maildir without fsync of the daemon's own state (the CPU's share): {:.2} s ({:.2} ms per mail)",
        nosync.as_secs_f64(),
        nosync.as_secs_f64() * 1000.0 / MAILS as f64
    );

    // The same mails through the local IMAP server.
    let s = servers::servers();
    let root = fresh("imap");
    let turns = games(&root, GAMES);
    let stream = TcpStream::connect(("127.0.0.1", s.imap_port)).unwrap();
    let mut client = imap::Client::new(stream);
    client.read_greeting().unwrap();
    let mut plain = client.login(s.address("daemon"), s.password("daemon")).map_err(|(e, _)| e).unwrap();
    plain.select("INBOX").unwrap();
    for i in 0..MAILS {
        plain.append("INBOX", &order_mail(i, &turns)).finish().unwrap();
    }
    let t = Instant::now();
    let got = plain.uid_fetch("1:*", "RFC822").unwrap();
    let plain_fetch = t.elapsed();
    assert_eq!(got.len(), MAILS);
    let mut d = daemon(&root, Durability::Sync);
    let mut inbox = ImapInbox::connect(s.imap("daemon")).unwrap();
    let mut via = Via(MaildirSender::per_recipient(root.join("mail")));
    let t = Instant::now();
    let p = d.pass(&mut inbox, &mut via).unwrap();
    let imap = t.elapsed();
    assert_eq!(p.processed, MAILS);
    println!(
        "imap:    {:.2} s ({:.2} ms per mail); a plain UID FETCH 1:* RFC822 of the same mails: {:.1} ms",
        imap.as_secs_f64(),
        imap.as_secs_f64() * 1000.0 / MAILS as f64,
        plain_fetch.as_secs_f64() * 1000.0
    );
    let _ = fs::remove_dir_all(&root);

    // Memory: `steward serve --once` over 1,000 started games, with one mail per game.
    let root = fresh("memory");
    let turns = games(&root, 1000);
    let inbox_dir = root.join("mail").join(STEWARD);
    for i in 0..1000 {
        deliver(&inbox_dir, &order_mail(i, &turns)).unwrap();
    }
    let config = root.join("steward.toml");
    fs::write(
        &config,
        format!(
            "address = \"{STEWARD}\"\nrate_per_hour = 1000000\n[inbox]\nkind = \"maildir\"\ndir = \"mail/{STEWARD}\"\n[send]\nkind = \"maildir\"\ndir = \"mail\"\n"
        ),
    )
    .unwrap();
    let t = Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_steward"))
        .args(["serve", "--once", "--config"])
        .arg(&config)
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let status = format!("/proc/{}/status", child.id());
    let mut peak_kb = 0u64;
    while child.try_wait().unwrap().is_none() {
        if let Ok(text) = fs::read_to_string(&status)
            && let Some(kb) =
                text.lines().find_map(|l| l.strip_prefix("VmHWM:")?.trim().strip_suffix(" kB")?.trim().parse().ok())
        {
            peak_kb = peak_kb.max(kb);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    println!(
        "memory:  steward serve --once over 1000 games (1000 mails, one per game): peak RSS {:.1} MiB, {:.1} s",
        peak_kb as f64 / 1024.0,
        t.elapsed().as_secs_f64()
    );
    let _ = fs::remove_dir_all(&root);
}
