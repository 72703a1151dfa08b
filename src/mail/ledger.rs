//! The ledger of processed messages: what makes the daemon apply each message exactly once.
//!
//! A message is processed in this order (docs/daemon.md): its turns are committed to the game,
//! its replies are written to the outbox, then its ledger entry is written — the commit point —
//! and only then is it marked processed in the mailbox. A crash before the entry means the
//! message is read again; re-applying it is harmless because every turn records the message's
//! `Message-ID` and the dispatcher skips orders whose turn exists, and the replies are rewritten
//! under the same outbox names. A crash after the entry means the mailbox still shows the
//! message as new; the ledger says it is done and it is only marked.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::store::fsio::{Durability, write_atomic, write_linked};

/// One processed message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The mailbox key (Maildir name, IMAP `uidvalidity:uid`).
    pub key: String,
    /// The message's `Message-ID`, if it had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The sender.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// When it was processed (UTC).
    pub at: String,
    /// What became of it: `applied`, `refused`, `ignored: <why>`...
    pub outcome: String,
    /// The games it touched.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub games: Vec<String>,
    /// The outbox ids of its replies.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub replies: Vec<String>,
}

/// The ledger directory: `<state>/processed/`.
#[derive(Clone, Debug)]
pub struct Ledger {
    dir: PathBuf,
    durability: Durability,
}

/// A short stable name for a key: 32 hex digits of its SHA-256.
pub fn key_name(kind: &str, key: &str) -> String {
    let mut h = Sha256::new();
    h.update(kind.as_bytes());
    h.update([0u8]);
    h.update(key.as_bytes());
    hex::encode(&h.finalize()[..16])
}

impl Ledger {
    /// The ledger under `state`.
    pub fn open(state: &Path, durability: Durability) -> io::Result<Self> {
        let dir = state.join("processed");
        fs::create_dir_all(&dir)?;
        Ok(Ledger { dir, durability })
    }

    fn path(&self, kind: &str, key: &str) -> PathBuf {
        self.dir.join(format!("{}-{}.toml", kind, key_name(kind, key)))
    }

    /// The entry of mailbox key `key`, if processed.
    pub fn get(&self, key: &str) -> io::Result<Option<Entry>> {
        read(&self.path("key", key))
    }

    /// The mailbox key that processed `message_id`, if any.
    pub fn by_message_id(&self, message_id: &str) -> io::Result<Option<Entry>> {
        read(&self.path("mid", message_id))
    }

    /// Records `entry`: the commit point of its message. With `claim`, the entry also claims
    /// its `Message-ID`, so that another copy of the message is known as a second copy; a
    /// message that was not answered (a list's copy, a bounce) claims nothing, so that it never
    /// hides the copy addressed to steward directly.
    pub fn record(&self, entry: &Entry, claim: bool) -> io::Result<()> {
        let text = toml::to_string(entry).map_err(io::Error::other)?;
        let key = self.path("key", &entry.key);
        match entry.message_id.as_ref().filter(|_| claim) {
            // One file under both names (issue 17): written and flushed once, the `mid-` name
            // first, both landing with one flush of the directory.
            Some(mid) => write_linked(&key, &self.path("mid", mid), text.as_bytes(), self.durability),
            None => write_atomic(&key, text.as_bytes(), self.durability, false),
        }
    }

    /// Every entry (for tests and audits), in no particular order.
    pub fn entries(&self) -> io::Result<Vec<Entry>> {
        let mut v = Vec::new();
        for e in fs::read_dir(&self.dir)? {
            let p = e?.path();
            let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if name.starts_with("key-")
                && name.ends_with(".toml")
                && let Some(entry) = read(&p)?
            {
                v.push(entry);
            }
        }
        Ok(v)
    }
}

fn read(path: &Path) -> io::Result<Option<Entry>> {
    match fs::read_to_string(path) {
        Ok(t) => toml::from_str(&t).map(Some).map_err(|e| io::Error::other(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}
