//! The persistent outbox: every reply is written here before any attempt to send it, and sent
//! until delivered, with backoff between failed attempts.
//!
//! `<state>/outbox/<id>.eml` holds the message. Its envelope is the message's own `From` and
//! `To` (as `sendmail -t` reads them) until an attempt fails: then `<id>.toml` records the
//! envelope with the attempts and the next try (issue 17: one file a reply, not two). The
//! replies of a job are written with their directory's flush left to the job's commit point
//! (`fsio::barrier`, made by the ledger's write). A delivered message leaves the outbox and its
//! id is appended to `sent.log` (one line a reply: issue 17, a new file for every reply made
//! ext4 allocate an inode each time); one refused for good moves to `failed/` with the server's
//! answer. Ids are chosen by the caller and stable (the ledger name of the message answered and
//! the reply's index), so writing a reply again after a crash replaces it instead of adding a
//! second copy. Delivery into a Maildir uses the id as the file name and skips a file that is
//! already there, so a crash between delivering and recording it in `sent.log` does not deliver
//! twice; SMTP cannot promise that (the server may have taken the message when the connection
//! died) and may, rarely, send one reply twice. The `sent/` folder of earlier versions (one
//! `<id>.toml` a reply) is still read.

use std::collections::HashSet;
use std::fs;
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

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
    sent: Arc<Mutex<SentIds>>,
}

/// The ids delivered: `sent.log` as far as it was read, and the `sent/` records of earlier
/// versions (read once, when the outbox is opened).
#[derive(Debug, Default)]
struct SentIds {
    /// Bytes of `sent.log` read so far (always at a line's end).
    read: u64,
    ids: HashSet<String>,
    /// From `sent/`.
    legacy: HashSet<String>,
}

/// The log of delivered ids under the outbox directory.
const SENT_LOG: &str = "sent.log";

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
        // A record of attempts whose message is gone (a run that died between removing the
        // two) is never read: it goes.
        for e in fs::read_dir(&dir)?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(id) = name.strip_suffix(".toml")
                && !name.starts_with('.')
                && !dir.join(format!("{id}.eml")).exists()
            {
                remove_if_there(&e.path())?;
            }
        }
        // A line cut short by a crash is dropped (its reply is delivered again: the Maildir
        // path skips it), so that the next line does not run on from it.
        match fs::OpenOptions::new().read(true).write(true).open(dir.join(SENT_LOG)) {
            Ok(log) => {
                crate::store::fsio::cut_torn_line(&log)?;
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let mut sent = SentIds::default();
        for e in fs::read_dir(dir.join("sent"))?.flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if let Some(id) = name.strip_suffix(".toml").filter(|_| !name.starts_with('.')) {
                sent.legacy.insert(id.to_string());
            }
        }
        Ok(Outbox { dir, durability, sent: Arc::new(Mutex::new(sent)) })
    }

    /// Whether `id` was delivered: `sent.log` is read on from where it was last read (it only
    /// grows; read again whole if it shrank), so that every run and every process sees the ids
    /// any of them recorded.
    fn is_sent(&self, id: &str) -> io::Result<bool> {
        let s = self.sent_ids()?;
        Ok(s.ids.contains(id) || s.legacy.contains(id))
    }

    /// The ids delivered, `sent.log` read up to its end.
    fn sent_ids(&self) -> io::Result<std::sync::MutexGuard<'_, SentIds>> {
        let mut s = self.sent.lock().unwrap_or_else(|e| e.into_inner());
        self.read_log(&mut s)?;
        Ok(s)
    }

    fn read_log(&self, s: &mut SentIds) -> io::Result<()> {
        let mut f = match fs::File::open(self.dir.join(SENT_LOG)) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(e),
        };
        let len = f.metadata()?.len();
        if len < s.read {
            (s.read, s.ids) = (0, HashSet::new());
        }
        if len == s.read {
            return Ok(());
        }
        f.seek(io::SeekFrom::Start(s.read))?;
        let mut text = String::new();
        f.take(len - s.read).read_to_string(&mut text).map_err(|e| io::Error::other(format!("sent.log: {e}")))?;
        // Only whole lines: one being appended is read next time.
        let whole = text.rfind('\n').map_or(0, |i| i + 1);
        s.ids.extend(text[..whole].lines().filter(|l| !l.is_empty()).map(str::to_string));
        s.read += whole as u64;
        Ok(())
    }

    /// Appends `id` to `sent.log`, not flushed (the delivery was; see `finish`).
    fn record_sent(&self, id: &str) -> io::Result<()> {
        let mut f = fs::OpenOptions::new().create(true).append(true).open(self.dir.join(SENT_LOG))?;
        f.write_all(format!("{id}\n").as_bytes())
    }

    /// Queues a message (replacing one queued under the same id). Nothing is sent here.
    /// An envelope that is the message's own (`envelope_of`: its `From` and `To`, no attempt
    /// yet), as the daemon's replies always have, is not written: it is read back from the
    /// message.
    pub fn put(&self, env: &Envelope, raw: &[u8]) -> io::Result<()> {
        if self.is_sent(&env.id)? {
            return Ok(());
        }
        let durability = self.durability.grouped();
        if envelope_of(&env.id, raw).as_ref() != Some(env) {
            // An envelope the message does not carry is recorded beside it, before it.
            let text = toml::to_string(env).map_err(io::Error::other)?;
            write_atomic(&self.dir.join(format!("{}.toml", env.id)), text.as_bytes(), durability, false)?;
        }
        write_atomic(&self.dir.join(format!("{}.eml", env.id)), raw, durability, false)
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
            let Some(id) = name.strip_suffix(".eml").filter(|_| !name.starts_with('.')) else {
                continue;
            };
            if !e.file_type()?.is_file() {
                continue;
            }
            let toml_path = self.dir.join(format!("{id}.toml"));
            let env = match fs::read_to_string(&toml_path) {
                Ok(text) => {
                    toml::from_str(&text).map_err(|err| io::Error::other(format!("{}: {err}", toml_path.display())))?
                }
                Err(err) if err.kind() == io::ErrorKind::NotFound => envelope_of(id, &fs::read(e.path())?)
                    .ok_or_else(|| io::Error::other(format!("{}: no From or no To", e.path().display())))?,
                Err(err) => return Err(err),
            };
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

    /// Ids delivered so far, sorted.
    pub fn sent(&self) -> io::Result<Vec<String>> {
        let s = self.sent_ids()?;
        let mut v: Vec<String> = s.ids.union(&s.legacy).cloned().collect();
        v.sort();
        Ok(v)
    }

    /// Tries every message whose time has come. The deliveries are made durable together
    /// (`fsio::barrier`: a Maildir delivery's directory flush) before any leaves the outbox.
    pub fn flush(&self, via: &mut dyn Deliver, now: Stamp) -> io::Result<Flushed> {
        let mut f = Flushed::default();
        let mut delivered = Vec::new();
        for mut env in self.pending()? {
            if env.next_try > now.0 {
                f.waiting += 1;
                continue;
            }
            // Recorded as sent by a run that died before removing the message.
            if self.is_sent(&env.id)? {
                self.remove(&env.id)?;
                continue;
            }
            let raw = self.raw(&env.id)?;
            match via.deliver(&env.id, &env.from, &env.to, &raw) {
                Delivery::Done => {
                    env.attempts += 1;
                    env.last_error = None;
                    delivered.push(env);
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
        crate::store::fsio::barrier()?;
        for env in &delivered {
            self.finish(env, "sent")?;
            f.sent += 1;
        }
        Ok(f)
    }

    /// Records a message as sent (a line in `sent.log`) or moves it to `failed/`: the record
    /// first, then the message goes, then its envelope (a record of attempts left alone is
    /// never read: `pending` reads messages).
    fn finish(&self, env: &Envelope, to: &str) -> io::Result<()> {
        if to == "sent" {
            // Not flushed (issue 17: two fsyncs a reply): the delivery was. A power cut that
            // loses the line loses it with the message's removal (not flushed either), so the
            // mail is delivered again: the Maildir path skips it, SMTP sends it again under the
            // same Message-ID.
            self.record_sent(&env.id)?;
            return self.remove(&env.id);
        }
        // A failure's record is flushed: it holds the mail.
        let text = toml::to_string(env).map_err(io::Error::other)?;
        let dest = self.dir.join(to);
        let eml = self.dir.join(format!("{}.eml", env.id));
        if eml.exists() {
            write_atomic(&dest.join(format!("{}.eml", env.id)), &fs::read(&eml)?, self.durability, false)?;
        }
        write_atomic(&dest.join(format!("{}.toml", env.id)), text.as_bytes(), self.durability, false)?;
        self.remove(&env.id)
    }

    /// Removes a queued message and its record of attempts, the message first.
    fn remove(&self, id: &str) -> io::Result<()> {
        remove_if_there(&self.dir.join(format!("{id}.eml")))?;
        remove_if_there(&self.dir.join(format!("{id}.toml")))
    }
}

/// The envelope a queued message carries: its `From` and `To` addresses, no attempt yet.
pub fn envelope_of(id: &str, raw: &[u8]) -> Option<Envelope> {
    let m = mail_parser::MessageParser::default().parse_headers(raw)?;
    let addrs = |a: Option<&mail_parser::Address>| -> Vec<String> {
        a.map(|a| a.iter().filter_map(|x| x.address().map(str::to_string)).collect()).unwrap_or_default()
    };
    let from = addrs(m.from()).into_iter().next()?;
    let to = addrs(m.to());
    if to.is_empty() {
        return None;
    }
    Some(Envelope { id: id.to_string(), from, to, attempts: 0, next_try: 0, last_error: None })
}

fn remove_if_there(p: &Path) -> io::Result<()> {
    match fs::remove_file(p) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

/// Delivery through any transport [`Sender`](crate::mail::transport::Sender), with the reply's id
/// (`send_once`: exactly once into a Maildir, at least once over SMTP).
pub struct Via<S>(pub S);

impl<S: crate::mail::transport::Sender> Deliver for Via<S> {
    fn deliver(&mut self, id: &str, from: &str, to: &[String], raw: &[u8]) -> Delivery {
        match self.0.send_once(id, from, to, raw) {
            Ok(()) => Delivery::Done,
            Err(e) if e.is_transient() => Delivery::Retry(e.to_string()),
            Err(e) => Delivery::Fail(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::compose::{Draft, build};

    /// Delivers what it is told to, failing the ids it was told to fail (retry), counting calls.
    #[derive(Default)]
    struct Fake {
        fail: Vec<String>,
        got: Vec<(String, String, Vec<String>)>,
    }

    impl Deliver for Fake {
        fn deliver(&mut self, id: &str, from: &str, to: &[String], _raw: &[u8]) -> Delivery {
            self.got.push((id.to_string(), from.to_string(), to.to_vec()));
            if self.fail.iter().any(|f| f == id) { Delivery::Retry("421 busy".into()) } else { Delivery::Done }
        }
    }

    fn state(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("steward-outbox-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&d);
        d
    }

    fn reply(id: &str, to: &[&str]) -> (Envelope, Vec<u8>) {
        let d = Draft {
            to: to.iter().map(|t| t.to_string()).collect(),
            subject: "[gp1] car 3: your gear (turn 7)".into(),
            text: "GEAR 4\n".into(),
            in_reply_to: None,
            message_id: format!("{id}@league.test"),
            reply_to: None,
            picture: None,
        };
        let raw = build(&d, "Formula De steward", "steward@league.test").unwrap();
        let env = Envelope {
            id: id.into(),
            from: "steward@league.test".into(),
            to: d.to.clone(),
            attempts: 0,
            next_try: 0,
            last_error: None,
        };
        (env, raw)
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .filter(|e| e.file_type().unwrap().is_file())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn a_reply_waits_as_one_file_whose_headers_are_its_envelope() {
        let dir = state("one-file");
        let o = Outbox::open(&dir, Durability::Sync).unwrap();
        let (env, raw) = reply("r-000", &["p1@players.test", "p2@players.test"]);
        o.put(&env, &raw).unwrap();
        assert_eq!(names(&dir.join("outbox")), vec!["r-000.eml"]);
        assert_eq!(o.pending().unwrap(), vec![env.clone()], "the envelope is read back from From and To");
        // An envelope the message does not carry is kept beside it.
        let (mut other, raw2) = reply("r-001", &["p3@players.test"]);
        other.to = vec!["moderator@league.test".into()];
        o.put(&other, &raw2).unwrap();
        assert_eq!(names(&dir.join("outbox")), vec!["r-000.eml", "r-001.eml", "r-001.toml"]);
        assert!(o.pending().unwrap().contains(&other));
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_failed_attempt_is_recorded_and_a_delivered_reply_leaves_once() {
        let dir = state("flush");
        let o = Outbox::open(&dir, Durability::Sync).unwrap();
        let (a, raw_a) = reply("a-000", &["p1@players.test"]);
        let (b, raw_b) = reply("b-000", &["p2@players.test"]);
        o.put(&a, &raw_a).unwrap();
        o.put(&b, &raw_b).unwrap();
        let mut via = Fake { fail: vec!["b-000".into()], ..Fake::default() };
        let f = o.flush(&mut via, Stamp(1000)).unwrap();
        assert_eq!((f.sent, f.deferred), (1, 1));
        assert_eq!(o.sent().unwrap(), vec!["a-000"]);
        assert_eq!(names(&dir.join("outbox")), vec!["b-000.eml", "b-000.toml", "sent.log"]);
        let waiting = o.pending().unwrap();
        assert_eq!((waiting[0].attempts, waiting[0].next_try), (1, 1000 + backoff(1)));
        assert_eq!(waiting[0].last_error.as_deref(), Some("421 busy"));
        // Not before its time; then delivered, and nothing is left behind.
        via.fail.clear();
        assert_eq!(o.flush(&mut via, Stamp(1001)).unwrap().waiting, 1);
        assert_eq!(o.flush(&mut via, Stamp(1000 + backoff(1))).unwrap().sent, 1);
        assert_eq!(names(&dir.join("outbox")), vec!["sent.log"], "nothing left behind but the log");
        assert_eq!(via.got.iter().filter(|g| g.0 == "b-000").count(), 2);
        assert_eq!(via.got[0].1, "steward@league.test");
        // A reply put again after it was sent (a job processed again) is not queued again.
        o.put(&a, &raw_a).unwrap();
        assert!(o.pending().unwrap().is_empty());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_reply_recorded_as_sent_by_a_run_that_died_is_not_delivered_again() {
        let dir = state("died");
        let o = Outbox::open(&dir, Durability::Sync).unwrap();
        let (a, raw_a) = reply("a-000", &["p1@players.test"]);
        o.put(&a, &raw_a).unwrap();
        // The run died after the line in sent.log, before the message left the outbox.
        fs::write(dir.join("outbox/sent.log"), "a-000\n").unwrap();
        let mut via = Fake::default();
        o.flush(&mut via, Stamp(1000)).unwrap();
        assert!(via.got.is_empty(), "{:?}", via.got);
        assert_eq!(names(&dir.join("outbox")), vec!["sent.log"]);
        // The same with a record in sent/, as earlier versions kept them (read when opened).
        let (b, raw_b) = reply("b-000", &["p2@players.test"]);
        o.put(&b, &raw_b).unwrap();
        fs::write(dir.join("outbox/sent/b-000.toml"), toml::to_string(&b).unwrap()).unwrap();
        let o = Outbox::open(&dir, Durability::Sync).unwrap();
        o.flush(&mut via, Stamp(1000)).unwrap();
        assert!(via.got.is_empty(), "{:?}", via.got);
        assert_eq!(o.sent().unwrap(), vec!["a-000", "b-000"]);
        assert_eq!(names(&dir.join("outbox")), vec!["sent.log"]);
        // A record of attempts left without its message goes when the outbox is opened.
        fs::write(dir.join("outbox/c-000.toml"), toml::to_string(&a).unwrap()).unwrap();
        Outbox::open(&dir, Durability::Sync).unwrap();
        assert_eq!(names(&dir.join("outbox")), vec!["sent.log"]);
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn the_sent_log_is_shared_and_a_line_cut_short_is_dropped() {
        let dir = state("log");
        let o = Outbox::open(&dir, Durability::Sync).unwrap();
        let other = Outbox::open(&dir, Durability::Sync).unwrap();
        let (a, raw_a) = reply("a-000", &["p1@players.test"]);
        o.put(&a, &raw_a).unwrap();
        o.flush(&mut Fake::default(), Stamp(1000)).unwrap();
        // Another outbox on the same folder (another process) sees it delivered.
        assert_eq!(other.sent().unwrap(), vec!["a-000"]);
        other.put(&a, &raw_a).unwrap();
        assert!(other.pending().unwrap().is_empty(), "not queued again");
        // A crash in the middle of an append: the cut line goes when the outbox is opened, and
        // the next line starts afresh.
        let mut f = fs::OpenOptions::new().append(true).open(dir.join("outbox/sent.log")).unwrap();
        f.write_all(b"b-0").unwrap();
        assert_eq!(o.sent().unwrap(), vec!["a-000"], "a line being written is not read yet");
        let o = Outbox::open(&dir, Durability::Sync).unwrap();
        let (b, raw_b) = reply("b-000", &["p2@players.test"]);
        o.put(&b, &raw_b).unwrap();
        o.flush(&mut Fake::default(), Stamp(1000)).unwrap();
        assert_eq!(fs::read_to_string(dir.join("outbox/sent.log")).unwrap(), "a-000\nb-000\n");
        assert_eq!(o.sent().unwrap(), vec!["a-000", "b-000"]);
        let _ = fs::remove_dir_all(&dir);
    }
}
