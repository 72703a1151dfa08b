//! The persistent outbox: every reply is written here before any attempt to send it, and sent
//! until delivered, with backoff between failed attempts.
//!
//! `<state>/outbox/<id>.eml` holds the message, `<id>.toml` its envelope and attempts (written
//! second: it is the commit point). A delivered message moves to `sent/`, one refused for good
//! to `failed/` with the server's answer. Ids are chosen by the caller and stable (the ledger
//! name of the message answered and the reply's index), so writing a reply again after a crash
//! replaces it instead of adding a second copy. Delivery into a Maildir uses the id as the file
//! name and skips a file that is already there, so a crash between delivering and moving to
//! `sent/` does not deliver twice; SMTP cannot promise that (the server may have taken the
//! message when the connection died) and may, rarely, send one reply twice.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::store::Stamp;
use crate::store::fsio::{Durability, remove_temps, write_atomic};

/// A message waiting to be sent.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Envelope {
    /// Its id (the file names).
    pub id: String,
    /// Envelope sender.
    pub from: String,
    /// Envelope recipients.
    pub to: Vec<String>,
    /// Attempts made.
    #[serde(default)]
    pub attempts: u32,
    /// Do not try before this (seconds since 1970).
    #[serde(default)]
    pub next_try: i64,
    /// The last error, if an attempt failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

/// What delivering one message gave.
#[derive(Debug)]
pub enum Delivery {
    /// Delivered.
    Done,
    /// Failed; trying again may help.
    Retry(String),
    /// Refused for good.
    Fail(String),
}

/// Something that can deliver a message, given its stable id.
pub trait Deliver {
    /// Delivers `raw` to `to`.
    fn deliver(&mut self, id: &str, from: &str, to: &[String], raw: &[u8]) -> Delivery;
}

/// The outbox directory.
#[derive(Clone, Debug)]
pub struct Outbox {
    dir: PathBuf,
    durability: Durability,
}

/// Seconds to wait after `attempts` failed attempts: 30 s doubling up to an hour.
pub fn backoff(attempts: u32) -> i64 {
    (30i64 << attempts.min(7)).min(3600)
}

/// How one flush went.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flushed {
    /// Delivered now.
    pub sent: usize,
    /// Failed, to be retried later.
    pub deferred: usize,
    /// Refused for good (moved to `failed/`).
    pub failed: usize,
    /// Still waiting for their next try.
    pub waiting: usize,
}

impl Outbox {
    /// The outbox under `state`.
    pub fn open(state: &Path, durability: Durability) -> io::Result<Self> {
        let dir = state.join("outbox");
        for d in ["", "sent", "failed"] {
            fs::create_dir_all(dir.join(d))?;
        }
        remove_temps(&dir)?;
        Ok(Outbox { dir, durability })
    }

    /// Queues a message (replacing one queued under the same id). Nothing is sent here.
    pub fn put(&self, env: &Envelope, raw: &[u8]) -> io::Result<()> {
        if self.dir.join("sent").join(format!("{}.toml", env.id)).exists() {
            return Ok(());
        }
        write_atomic(&self.dir.join(format!("{}.eml", env.id)), raw, self.durability, false)?;
        let text = toml::to_string(env).map_err(io::Error::other)?;
        write_atomic(&self.dir.join(format!("{}.toml", env.id)), text.as_bytes(), self.durability, false)
    }

    /// Records a reply that cannot be sent at all (its recipient is not an address a mail can
    /// be built for): straight to `failed/` with `why`, so that the job goes on and a
    /// moderator can read what was not sent.
    pub fn put_failed(&self, env: &Envelope, why: &str) -> io::Result<()> {
        let mut env = env.clone();
        env.last_error = Some(why.to_string());
        let text = toml::to_string(&env).map_err(io::Error::other)?;
        write_atomic(&self.dir.join("failed").join(format!("{}.toml", env.id)), text.as_bytes(), self.durability, false)
    }

    /// Ids refused for good or never sendable (`failed/`).
    pub fn failed(&self) -> io::Result<Vec<String>> {
        self.ids_in("failed")
    }

    /// The ids recorded in the sub-folder `sub` (`sent`, `failed`), sorted.
    fn ids_in(&self, sub: &str) -> io::Result<Vec<String>> {
        let mut v: Vec<String> = fs::read_dir(self.dir.join(sub))?
            .flatten()
            .filter_map(|e| e.file_name().to_str()?.strip_suffix(".toml").map(str::to_string))
            .filter(|n| !n.starts_with('.'))
            .collect();
        v.sort();
        Ok(v)
    }

    /// Messages queued, oldest first.
    pub fn pending(&self) -> io::Result<Vec<Envelope>> {
        let mut v = Vec::new();
        for e in fs::read_dir(&self.dir)? {
            let e = e?;
            let name = e.file_name().to_string_lossy().into_owned();
            if !e.file_type()?.is_file() || !name.ends_with(".toml") || name.starts_with('.') {
                continue;
            }
            let text = fs::read_to_string(e.path())?;
            let env: Envelope =
                toml::from_str(&text).map_err(|err| io::Error::other(format!("{}: {err}", e.path().display())))?;
            let queued = e.metadata()?.modified().ok();
            v.push((queued, env));
        }
        // In the order queued (ids are stable names, not sequence numbers).
        v.sort_by(|a, b| (a.0, &a.1.id).cmp(&(b.0, &b.1.id)));
        let v: Vec<Envelope> = v.into_iter().map(|(_, e)| e).collect();
        Ok(v)
    }

    /// The bytes of queued message `id`.
    pub fn raw(&self, id: &str) -> io::Result<Vec<u8>> {
        fs::read(self.dir.join(format!("{id}.eml")))
    }

    /// Ids delivered so far.
    pub fn sent(&self) -> io::Result<Vec<String>> {
        self.ids_in("sent")
    }

    /// Tries every message whose time has come.
    pub fn flush(&self, via: &mut dyn Deliver, now: Stamp) -> io::Result<Flushed> {
        let mut f = Flushed::default();
        for mut env in self.pending()? {
            if env.next_try > now.0 {
                f.waiting += 1;
                continue;
            }
            let raw = match self.raw(&env.id) {
                Ok(r) => r,
                // The envelope was committed after the message; a missing message is a
                // message already moved to sent/ by a run that died before removing this.
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    self.finish(&env, "sent")?;
                    continue;
                }
                Err(e) => return Err(e),
            };
            match via.deliver(&env.id, &env.from, &env.to, &raw) {
                Delivery::Done => {
                    env.attempts += 1;
                    env.last_error = None;
                    self.finish(&env, "sent")?;
                    f.sent += 1;
                }
                Delivery::Retry(why) => {
                    env.attempts += 1;
                    env.next_try = now.0 + backoff(env.attempts);
                    env.last_error = Some(why);
                    let text = toml::to_string(&env).map_err(io::Error::other)?;
                    write_atomic(&self.dir.join(format!("{}.toml", env.id)), text.as_bytes(), self.durability, false)?;
                    f.deferred += 1;
                }
                Delivery::Fail(why) => {
                    env.attempts += 1;
                    env.last_error = Some(why);
                    self.finish(&env, "failed")?;
                    f.failed += 1;
                }
            }
        }
        Ok(f)
    }

    /// Moves a message to `sent/` or `failed/`: the record first, then the files go.
    fn finish(&self, env: &Envelope, to: &str) -> io::Result<()> {
        let text = toml::to_string(env).map_err(io::Error::other)?;
        let dest = self.dir.join(to);
        let eml = self.dir.join(format!("{}.eml", env.id));
        if to == "failed" && eml.exists() {
            write_atomic(&dest.join(format!("{}.eml", env.id)), &fs::read(&eml)?, self.durability, false)?;
        }
        // A sent mail's record is not flushed (issue 17: two fsyncs a reply): the delivery was.
        // A power cut that loses the record loses it with the pending envelope's removal (not
        // flushed either, before as now), so the mail is delivered again: the Maildir path skips
        // it, SMTP sends it again under the same Message-ID. A failure's record is flushed: it
        // holds the mail.
        let durability = if to == "sent" { Durability::NoSync } else { self.durability };
        write_atomic(&dest.join(format!("{}.toml", env.id)), text.as_bytes(), durability, false)?;
        remove_if_there(&self.dir.join(format!("{}.toml", env.id)))?;
        remove_if_there(&eml)
    }
}

fn remove_if_there(p: &Path) -> io::Result<()> {
    match fs::remove_file(p) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Delivery through any transport [`Sender`](super::transport::Sender), with the reply's id
/// (`send_once`: exactly once into a Maildir, at least once over SMTP).
pub struct Via<S>(pub S);

impl<S: super::transport::Sender> Deliver for Via<S> {
    fn deliver(&mut self, id: &str, from: &str, to: &[String], raw: &[u8]) -> Delivery {
        match self.0.send_once(id, from, to, raw) {
            Ok(()) => Delivery::Done,
            Err(e) if e.is_transient() => Delivery::Retry(e.to_string()),
            Err(e) => Delivery::Fail(e.to_string()),
        }
    }
}
