//! Mail: incoming-message normalisation on real-world fixtures, the order language, receipts,
//! standing orders, a property test that no mail makes them panic; the transports (Maildir, and
//! IMAP/SMTP against real Dovecot and Postfix started by the harness in `servers`); the daemon
//! end to end, its crash test, and hostile mail (`hostile`: poison addresses, failures, caps,
//! the rate limit, attachments, list copies, `TRACK`).

#[macro_use]
mod desk;

mod crash;
mod daemon;
mod dicemail;
mod e2e;
mod fuzz;
mod hostile;
mod judge;
mod late;
mod leaked;
mod message;
mod orders;
mod policy;
mod reading;
mod replytags;
mod reports;
mod rounds;
mod secrets;
mod servers;
mod transport;
mod words;

use std::path::{Path, PathBuf};

use steward::demo::DemoSpec;
use steward::store::qualifying::GridMethod;

/// A fresh scratch directory for test `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("mail-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A one-lap demo race on sprint in `dir`: `cars` players, the first `policy_cars` of them on a
/// standing `POLICY`, the grid by `grid`, no backmarkers.
pub fn sprint_demo(dir: &Path, game: &str, cars: u8, policy_cars: u8, grid: GridMethod) -> DemoSpec {
    DemoSpec {
        dir: dir.to_path_buf(),
        game: game.into(),
        track: "sprint".into(),
        cars,
        laps: 1,
        policy_cars,
        grid,
        backmarkers: false,
        reports: None,
        drive: false,
        answer_hours: None,
        seed: 1,
        langs: Default::default(),
    }
}

/// The `TOKEN` line of a welcome mail's text, if any.
/// Every mail `address` was sent under `root/mail/`, parsed, without marking them read (its
/// Maildir's `new/` and `cur/`).
pub fn mails_of(root: &Path, address: &str) -> Vec<steward::mail::message::Incoming> {
    let mut v = Vec::new();
    for sub in ["new", "cur"] {
        for e in std::fs::read_dir(root.join("mail").join(address).join(sub)).into_iter().flatten().flatten() {
            if let Ok(m) = steward::mail::message::Incoming::parse(&std::fs::read(e.path()).unwrap()) {
                v.push(m);
            }
        }
    }
    v
}

/// `bytes` in base64 as a mail client writes a body: lines of 76 characters, each full one
/// ended by CRLF.
pub fn base64_lines(bytes: &[u8]) -> String {
    use base64::Engine;
    let text = base64::engine::general_purpose::STANDARD.encode(bytes);
    let mut out = String::with_capacity(text.len() + text.len() / 38);
    for line in text.as_bytes().chunks(76) {
        out.push_str(std::str::from_utf8(line).expect("base64 is ASCII"));
        if line.len() == 76 {
            out.push_str("\r\n");
        }
    }
    out
}

/// The code that follows `before` in a reply (a confirmation code: 8 characters).
pub fn code_in(reply: &str, before: &str) -> String {
    let i = reply.find(before).unwrap_or_else(|| panic!("no `{before}` in {reply}"));
    reply[i + before.len()..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect()
}

pub fn token_in(text: &str) -> Option<String> {
    text.lines().find_map(|l| l.trim().strip_prefix("TOKEN ").map(str::to_string))
}
