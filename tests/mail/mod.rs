//! Mail: the transports (Maildir, and IMAP/SMTP against real Dovecot and Postfix started by the
//! harness in `servers`).

mod crash;
mod daemon;
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
