//! The ledger of processed messages: what makes the daemon apply each message exactly once.
//!
//! A message is processed in this order (docs/daemon.md): its turns are committed to the game,
//! its replies are written to the outbox, then its ledger entry is written — the commit point —
//! and only then is it marked processed in the mailbox. A crash before the entry means the
//! message is read again; re-applying it is harmless because every turn records the message's
//! `Message-ID` and the dispatcher skips orders whose turn exists, and the replies are rewritten
//! under the same outbox names. A crash after the entry means the mailbox still shows the
//! message as new; the ledger says it is done and it is only marked.
//!
//! The entries are lines of one append-only file, `processed/ledger.log` (a JSON object a line:
//! the entry and whether it claims its `Message-ID`), flushed at each append. Issue 17: a file
//! a message (`key-<hash>.toml`, with a hard link `mid-<hash>.toml`) cost a new inode and a
//! directory flush a message, the largest part of the daemon's system time on ext4. A line a
//! crash cut short was never committed: it is cut off when the ledger is next opened, and its
//! message is read again. The files of earlier versions are still read (their names are listed
//! when the ledger is opened); nothing new is written there. Lookups go through an index of the
//! log (hashed key and `Message-ID` → the line's offset), brought up to date from the log's end
//! before each lookup, so that entries appended by another process are seen.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::store::fsio::{self, Durability};

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

/// The ledger: `<state>/processed/ledger.log` and the entry files of earlier versions beside it.
#[derive(Clone, Debug)]
pub struct Ledger {
    dir: PathBuf,
    durability: Durability,
    index: Arc<Mutex<Index>>,
}

/// One line of the log.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Line {
    /// Whether the entry claims its `Message-ID` ([`Ledger::record`]).
    #[serde(default)]
    claim: bool,
    entry: Entry,
}

/// A line of the log: its offset and its length.
type Span = (u64, usize);

/// Where each entry of the log is, read up to `read`.
#[derive(Debug)]
struct Index {
    log: File,
    /// Bytes of the log indexed (always at a line's end).
    read: u64,
    /// `key_name("key", key)` → its line.
    keys: HashMap<String, Span>,
    /// `key_name("mid", message_id)` → the line that claimed it (the last).
    mids: HashMap<String, Span>,
    /// Names of the entry files of earlier versions (`key-<hash>.toml`, `mid-<hash>.toml`).
    legacy: HashSet<String>,
}

impl Index {
    /// Indexes `entry`, the line `span` of the log (`claim`: it claims its `Message-ID`).
    fn add(&mut self, entry: &Entry, claim: bool, span: Span) {
        self.keys.insert(key_name("key", &entry.key), span);
        if let Some(mid) = entry.message_id.as_ref().filter(|_| claim) {
            self.mids.insert(key_name("mid", mid), span);
        }
        self.read = self.read.max(span.0 + span.1 as u64);
    }

    /// The log's line `span`.
    fn line(&self, (at, len): Span, dir: &Path) -> io::Result<Line> {
        let mut raw = vec![0; len];
        self.log.read_exact_at(&mut raw, at)?;
        parse(&raw, at, dir)
    }
}

/// The log's name under `processed/`.
const LOG: &str = "ledger.log";

/// A short stable name for a key: 32 hex digits of its SHA-256.
pub fn key_name(kind: &str, key: &str) -> String {
    let mut h = Sha256::new();
    h.update(kind.as_bytes());
    h.update([0u8]);
    h.update(key.as_bytes());
    hex::encode(&h.finalize()[..16])
}

impl Ledger {
    /// The ledger under `state`: a line a crash cut short is cut off, the log indexed.
    pub fn open(state: &Path, durability: Durability) -> io::Result<Self> {
        let dir = state.join("processed");
        fs::create_dir_all(&dir)?;
        let path = dir.join(LOG);
        let created = !path.exists();
        let log = OpenOptions::new().read(true).append(true).create(true).open(&path)?;
        if created && durability != Durability::NoSync {
            fsio::sync_dir(&dir)?;
        }
        fsio::cut_torn_line(&log)?;
        let mut legacy = HashSet::new();
        for e in fs::read_dir(&dir)?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if (name.starts_with("key-") || name.starts_with("mid-")) && name.ends_with(".toml") {
                legacy.insert(name);
            }
        }
        let index = Index { log, read: 0, keys: HashMap::new(), mids: HashMap::new(), legacy };
        let ledger = Ledger { dir, durability, index: Arc::new(Mutex::new(index)) };
        drop(ledger.index()?);
        Ok(ledger)
    }

    /// The index, brought up to the log's end (whole lines only).
    fn index(&self) -> io::Result<MutexGuard<'_, Index>> {
        let mut ix = self.index.lock().unwrap_or_else(|e| e.into_inner());
        let len = ix.log.metadata()?.len();
        if len < ix.read {
            // Cut short by another process's open after a crash: read again from the start.
            (ix.read, ix.keys, ix.mids) = (0, HashMap::new(), HashMap::new());
        }
        if len > ix.read {
            let mut tail = vec![0; (len - ix.read) as usize];
            ix.log.read_exact_at(&mut tail, ix.read)?;
            let whole = tail.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
            let start = ix.read;
            for line in lines(&tail[..whole], start, &self.dir) {
                let (span, line) = line?;
                ix.add(&line.entry, line.claim, span);
            }
        }
        Ok(ix)
    }

    /// The entry found under `kind` (`key`, `mid`) for `key`, in the log or an earlier version's file.
    fn find(&self, kind: &str, key: &str) -> io::Result<Option<Entry>> {
        let name = key_name(kind, key);
        let ix = self.index()?;
        let span = if kind == "key" { ix.keys.get(&name) } else { ix.mids.get(&name) };
        if let Some(&span) = span {
            return ix.line(span, &self.dir).map(|l| Some(l.entry));
        }
        let file = format!("{kind}-{name}.toml");
        if ix.legacy.contains(&file) {
            return read(&self.dir.join(file));
        }
        Ok(None)
    }

    /// The entry of mailbox key `key`, if processed.
    pub fn get(&self, key: &str) -> io::Result<Option<Entry>> {
        self.find("key", key)
    }

    /// The mailbox key that processed `message_id`, if any.
    pub fn by_message_id(&self, message_id: &str) -> io::Result<Option<Entry>> {
        self.find("mid", message_id)
    }

    /// Records `entry`: the commit point of its message, a line appended to the log and flushed
    /// after everything written before it (`fsio::barrier`). With `claim`, the entry also
    /// claims its `Message-ID`, so that another copy of the message is known as a second copy;
    /// a message that was not answered (a list's copy, a bounce) claims nothing, so that it
    /// never hides the copy addressed to steward directly.
    pub fn record(&self, entry: &Entry, claim: bool) -> io::Result<()> {
        let mut text = serde_json::to_string(&Line { claim, entry: entry.clone() }).map_err(io::Error::other)?;
        text.push('\n');
        if self.durability == Durability::Sync {
            fsio::barrier()?;
        }
        let mut ix = self.index()?;
        let before = ix.log.metadata()?.len();
        fsio::step();
        let written = fsio::write_in_steps(&ix.log, text.as_bytes()).and_then(|()| match self.durability {
            Durability::NoSync => Ok(()),
            _ => fsio::sync_file(&ix.log),
        });
        if let Err(e) = written {
            // A line half written is not an entry: cut off, so that the next one starts clean.
            let _ = ix.log.set_len(before);
            return Err(e);
        }
        fsio::step();
        if ix.read == before {
            // Indexed at once (the log held nothing unread before it).
            ix.add(entry, claim, (before, text.len()));
        }
        Ok(())
    }

    /// Every entry (for tests and audits), in no particular order.
    pub fn entries(&self) -> io::Result<Vec<Entry>> {
        let ix = self.index()?;
        let mut log = vec![0; ix.read as usize];
        ix.log.read_exact_at(&mut log, 0)?;
        // Every line, a key found twice included (the crash test counts them).
        let mut v = lines(&log, 0, &self.dir).map(|l| l.map(|(_, l)| l.entry)).collect::<io::Result<Vec<_>>>()?;
        let mut files: Vec<&String> = ix.legacy.iter().filter(|n| n.starts_with("key-")).collect();
        files.sort();
        for name in files {
            if let Some(entry) = read(&self.dir.join(name))? {
                v.push(entry);
            }
        }
        Ok(v)
    }
}

/// The whole lines `buf` holds, `buf` being the log from byte `start` on, each with its span.
fn lines<'a>(buf: &'a [u8], start: u64, dir: &'a Path) -> impl Iterator<Item = io::Result<(Span, Line)>> + 'a {
    let mut at = start;
    buf.split_inclusive(|&b| b == b'\n').map(move |raw| {
        let span = (at, raw.len());
        at += raw.len() as u64;
        parse(raw, span.0, dir).map(|l| (span, l))
    })
}

fn parse(raw: &[u8], at: u64, dir: &Path) -> io::Result<Line> {
    serde_json::from_slice(raw)
        .map_err(|e| io::Error::other(format!("{}, the line at byte {at}: {e}", dir.join(LOG).display())))
}

fn read(path: &Path) -> io::Result<Option<Entry>> {
    match fs::read_to_string(path) {
        Ok(t) => toml::from_str(&t).map(Some).map_err(|e| io::Error::other(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn state(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("steward-ledger-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    fn entry(key: &str, mid: Option<&str>) -> Entry {
        Entry {
            key: key.into(),
            message_id: mid.map(str::to_string),
            from: Some("p1@league.test".into()),
            at: "2026-11-29T12:00:00Z".into(),
            outcome: "applied".into(),
            games: vec!["gp1".into()],
            replies: vec!["r-000".into()],
        }
    }

    #[test]
    fn an_entry_is_found_by_its_key_and_its_claimed_message_id_after_a_reopen_too() {
        let d = state("find");
        let l = Ledger::open(&d, Durability::Sync).unwrap();
        assert_eq!(l.get("k1").unwrap(), None);
        l.record(&entry("k1", Some("m1@x")), true).unwrap();
        l.record(&entry("k2", Some("m2@x")), false).unwrap();
        for l in [l.clone(), Ledger::open(&d, Durability::Sync).unwrap()] {
            assert_eq!(l.get("k1").unwrap(), Some(entry("k1", Some("m1@x"))));
            assert_eq!(l.by_message_id("m1@x").unwrap().map(|e| e.key), Some("k1".into()));
            assert_eq!(l.get("k2").unwrap().map(|e| e.outcome), Some("applied".into()));
            // Not answered: claims nothing.
            assert_eq!(l.by_message_id("m2@x").unwrap(), None);
            assert_eq!(l.get("k3").unwrap(), None);
            assert_eq!(l.entries().unwrap().len(), 2);
        }
        // One file for every message.
        let names: Vec<String> =
            fs::read_dir(d.join("processed")).unwrap().map(|e| e.unwrap().file_name().into_string().unwrap()).collect();
        assert_eq!(names, vec![LOG.to_string()]);
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn a_line_cut_short_is_no_entry_and_the_next_one_starts_clean() {
        let d = state("torn");
        let l = Ledger::open(&d, Durability::NoSync).unwrap();
        l.record(&entry("k1", None), false).unwrap();
        // A crash in the middle of the second line.
        let path = d.join("processed").join(LOG);
        let mut f = OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(br#"{"claim":true,"entry":{"key":"k2","at":"#).unwrap();
        let l = Ledger::open(&d, Durability::NoSync).unwrap();
        assert_eq!(l.get("k2").unwrap(), None);
        l.record(&entry("k3", Some("m3@x")), true).unwrap();
        let l = Ledger::open(&d, Durability::NoSync).unwrap();
        let mut keys: Vec<String> = l.entries().unwrap().into_iter().map(|e| e.key).collect();
        keys.sort();
        assert_eq!(keys, ["k1", "k3"]);
        assert_eq!(l.by_message_id("m3@x").unwrap().map(|e| e.key), Some("k3".into()));
        let _ = fs::remove_dir_all(&d);
    }

    #[test]
    fn entries_another_process_appends_are_seen_and_earlier_versions_files_still_count() {
        let d = state("others");
        let ours = Ledger::open(&d, Durability::NoSync).unwrap();
        // An earlier version's entry: a file under `key-` and a link under `mid-`.
        let text = toml::to_string(&entry("old", Some("m0@x"))).unwrap();
        let dir = d.join("processed");
        fs::write(dir.join(format!("key-{}.toml", key_name("key", "old"))), &text).unwrap();
        fs::write(dir.join(format!("mid-{}.toml", key_name("mid", "m0@x"))), &text).unwrap();
        let theirs = Ledger::open(&d, Durability::NoSync).unwrap();
        assert_eq!(theirs.get("old").unwrap().map(|e| e.key), Some("old".into()));
        assert_eq!(theirs.by_message_id("m0@x").unwrap().map(|e| e.key), Some("old".into()));
        // Appended by one, seen by the other (opened before it).
        theirs.record(&entry("new", Some("m1@x")), true).unwrap();
        assert_eq!(ours.get("new").unwrap().map(|e| e.key), Some("new".into()));
        assert_eq!(ours.by_message_id("m1@x").unwrap().map(|e| e.key), Some("new".into()));
        assert_eq!(theirs.entries().unwrap().len(), 2);
        let _ = fs::remove_dir_all(&d);
    }
}
