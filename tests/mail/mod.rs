//! Mail: incoming-message normalisation on real-world fixtures, the order language, receipts,
//! standing orders, a property test that no mail makes them panic; the transports (Maildir, and
//! IMAP/SMTP against real Dovecot and Postfix started by the harness in `servers`); the daemon
//! end to end, its crash test, and hostile mail (`hostile`: poison addresses, failures, caps,
//! the rate limit, attachments, list copies, `TRACK`).

mod crash;
mod daemon;
mod dicemail;
mod e2e;
mod fuzz;
mod hostile;
mod judge;
mod late;
mod message;
mod orders;
mod policy;
mod reading;
mod replytags;
mod secrets;
mod servers;
mod transport;

use std::path::PathBuf;

/// A fresh scratch directory for test `name`.
pub fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("mail-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}
