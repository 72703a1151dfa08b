//! Maildir transports: the embedded default inbox, the demo's "network", and the tests'.
//!
//! A Maildir is three directories: a message is written whole in `tmp/`, flushed to disk and
//! renamed into `new/`, so a reader never sees half a message. Its file name's unique part
//! (`<secs>.M<micros>P<pid>Q<n>.<host>`, everything before `:`) is its [`Fetched::key`] for
//! life.
//!
//! **Processed** means "in `cur/` with the `S` (seen) flag": [`MaildirInbox::mark_processed`]
//! renames `new/<key>` (or `cur/<key>:2,<flags>`) to `cur/<key>:2,<flags>S`, one atomic and
//! idempotent `rename`. We chose the standard flag over a private folder so that any mail
//! client pointed at the same Maildir shows what the daemon has handled. Unprocessed =
//! everything in `new/` plus everything in `cur/` without `S` (a client that moved a message to
//! `cur/`, or a person who marked it unread, does not hide it from the daemon).
//!
//! Delivery is flushed to disk; marking is not: a mark lost to a power cut makes the message
//! come back once, and the daemon's ledger (Message-ID and key, committed with the turn)
//! recognises it.
//!
//! [`MaildirSender`] delivers like a local MDA: one copy per envelope recipient, with
//! `Return-Path:` and `Delivered-To:` trace headers prepended, into one Maildir (a catch-all)
//! or into one Maildir per recipient under a root.

use std::collections::{HashMap, HashSet};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::{Fetched, Inbox, Sender, TransportError};

/// How often [`MaildirInbox::wait`] looks at `new/`.
const POLL: Duration = Duration::from_millis(100);

/// The flag that marks a message processed (Maildir "seen").
const PROCESSED_FLAG: char = 'S';

/// Creates `dir/{tmp,new,cur}` when missing.
fn ensure_maildir(dir: &Path) -> Result<(), TransportError> {
    for sub in ["tmp", "new", "cur"] {
        let d = dir.join(sub);
        fs::create_dir_all(&d).map_err(|e| TransportError::maildir("create the Maildir folder", d, e))?;
    }
    Ok(())
}

/// The unique part of a Maildir file name (before the `:2,` info).
fn unique_part(name: &str) -> &str {
    name.split_once(':').map_or(name, |(u, _)| u)
}

/// The flags of a `cur/` file name (`"FRS"` in `key:2,FRS`); none for other info versions.
fn flags_of(name: &str) -> &str {
    match name.split_once(':') {
        Some((_, info)) => info.strip_prefix("2,").unwrap_or(""),
        None => "",
    }
}

/// `flags` with `flag` added, sorted as the Maildir convention asks.
fn with_flag(flags: &str, flag: char) -> String {
    let mut v: Vec<char> = flags.chars().filter(|&c| c != flag).collect();
    v.push(flag);
    v.sort_unstable();
    v.dedup();
    v.into_iter().collect()
}

/// A message file found in `new/` or `cur/`.
struct Entry {
    key: String,
    path: PathBuf,
    modified: SystemTime,
}

/// A Maildir read as an [`Inbox`].
#[derive(Debug)]
pub struct MaildirInbox {
    dir: PathBuf,
    /// Where each key was last seen, to mark without scanning the folders again.
    known: HashMap<String, PathBuf>,
    /// The names in `new/` when the last fetch listed it: `wait` looks for others.
    new_seen: HashSet<String>,
    /// The last fetch left unprocessed messages behind (it hit its limit).
    more: bool,
}

impl MaildirInbox {
    /// Opens the Maildir at `dir`, creating `new/`, `cur/` and `tmp/` if missing.
    pub fn open(dir: impl Into<PathBuf>) -> Result<MaildirInbox, TransportError> {
        let dir = dir.into();
        ensure_maildir(&dir)?;
        Ok(MaildirInbox { dir, known: HashMap::new(), new_seen: HashSet::new(), more: false })
    }

    /// The Maildir's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The message names in `new/` now.
    fn new_names(&self) -> Result<HashSet<String>, TransportError> {
        let d = self.dir.join("new");
        let rd = fs::read_dir(&d).map_err(|e| TransportError::maildir("read the Maildir folder", &d, e))?;
        Ok(rd.flatten().map(|e| e.file_name().to_string_lossy().into_owned()).filter(|n| !n.starts_with('.')).collect())
    }

    /// Every unprocessed message, oldest first (modification time, then name).
    fn unprocessed(&self) -> Result<Vec<Entry>, TransportError> {
        let mut found: HashMap<String, Entry> = HashMap::new();
        for sub in ["new", "cur"] {
            let d = self.dir.join(sub);
            let rd = fs::read_dir(&d).map_err(|e| TransportError::maildir("read the Maildir folder", &d, e))?;
            for item in rd {
                let item = item.map_err(|e| TransportError::maildir("read the Maildir folder", &d, e))?;
                let name = item.file_name().to_string_lossy().into_owned();
                if name.starts_with('.') || (sub == "cur" && flags_of(&name).contains(PROCESSED_FLAG)) {
                    continue;
                }
                let modified = match item.metadata() {
                    Ok(m) if m.is_file() => m.modified().unwrap_or(UNIX_EPOCH),
                    Ok(_) => continue,
                    Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                    Err(e) => return Err(TransportError::maildir("read", item.path(), e)),
                };
                let key = unique_part(&name).to_owned();
                found.insert(key.clone(), Entry { key, path: item.path(), modified });
            }
        }
        let mut all: Vec<Entry> = found.into_values().collect();
        all.sort_by(|a, b| a.modified.cmp(&b.modified).then_with(|| a.key.cmp(&b.key)));
        Ok(all)
    }

    /// Finds the file holding `key` in `new/` or `cur/`.
    fn locate(&self, key: &str) -> Result<Option<PathBuf>, TransportError> {
        for sub in ["new", "cur"] {
            let d = self.dir.join(sub);
            let rd = fs::read_dir(&d).map_err(|e| TransportError::maildir("read the Maildir folder", &d, e))?;
            for item in rd.flatten() {
                let name = item.file_name();
                if unique_part(&name.to_string_lossy()) == key {
                    return Ok(Some(item.path()));
                }
            }
        }
        Ok(None)
    }

    /// Renames `path` to `cur/<key>:2,<flags>S`; false when it vanished meanwhile.
    fn mark_at(&self, key: &str, path: &Path) -> Result<bool, TransportError> {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let in_cur = path.parent().and_then(Path::file_name).is_some_and(|p| p == "cur");
        let flags = if in_cur { flags_of(&name) } else { "" };
        if in_cur && flags.contains(PROCESSED_FLAG) {
            return Ok(true);
        }
        let target = self.dir.join("cur").join(format!("{key}:2,{}", with_flag(flags, PROCESSED_FLAG)));
        // No fsync: a mark lost to a power cut only makes the message come back, and the
        // daemon's ledger (Message-ID and key, committed with the turn) recognises it. Flushing
        // each mark cost 4 ms, 4 s per 1,000 mails (benches/mail_fetch.rs).
        match fs::rename(path, &target) {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
            Err(e) => Err(TransportError::maildir("mark as processed", path, e)),
        }
    }
}

impl Inbox for MaildirInbox {
    fn fetch(&mut self, limit: usize) -> Result<Vec<Fetched>, TransportError> {
        self.new_seen = self.new_names()?;
        let entries = self.unprocessed()?;
        self.more = entries.len() > limit;
        self.known = entries.iter().map(|e| (e.key.clone(), e.path.clone())).collect();
        let mut out = Vec::new();
        for e in entries {
            if out.len() >= limit {
                break;
            }
            match fs::read(&e.path) {
                Ok(raw) => {
                    let arrived = e.modified.duration_since(UNIX_EPOCH).ok().map(|d| d.as_secs() as i64);
                    out.push(Fetched { key: e.key, raw, arrived })
                }
                // Marked or removed by someone else since the listing.
                Err(err) if err.kind() == io::ErrorKind::NotFound => continue,
                Err(err) => return Err(TransportError::maildir("read", e.path, err)),
            }
        }
        Ok(out)
    }

    fn mark_processed(&mut self, key: &str) -> Result<(), TransportError> {
        if key.is_empty() || key.contains(['/', '\0']) || key.starts_with('.') {
            return Err(TransportError::Config(format!("{key:?} is not a Maildir message key")));
        }
        if let Some(path) = self.known.remove(key)
            && self.mark_at(key, &path)?
        {
            return Ok(());
        }
        match self.locate(key)? {
            Some(path) => self.mark_at(key, &path).map(|_| ()),
            None => Ok(()), // vanished, or never there: nothing to do
        }
    }

    fn wait(&mut self, timeout: Duration) -> Result<(), TransportError> {
        let start = Instant::now();
        loop {
            if self.more || self.new_names()?.iter().any(|n| !self.new_seen.contains(n)) {
                return Ok(());
            }
            let left = timeout.saturating_sub(start.elapsed());
            if left.is_zero() {
                return Ok(());
            }
            std::thread::sleep(left.min(POLL));
        }
    }
}

/// Flushes a directory's entries (a rename into it) to disk.
fn sync_dir(dir: &Path) -> Result<(), TransportError> {
    crate::store::fsio::sync_dir(dir).map_err(|e| TransportError::maildir("flush", dir, e))
}

/// The host part of unique names, with `/` and `:` escaped as the Maildir convention asks.
fn host_name() -> String {
    let raw = fs::read_to_string("/proc/sys/kernel/hostname")
        .or_else(|_| fs::read_to_string("/etc/hostname"))
        .unwrap_or_else(|_| "localhost".to_owned());
    let raw = raw.trim();
    let raw = if raw.is_empty() { "localhost" } else { raw };
    raw.replace('/', "\\057").replace(':', "\\072")
}

/// A name no other delivery uses: time, process and a per-process counter.
fn unique_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = SystemTime::now().duration_since(UNIX_EPOCH).unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("{}.M{:06}P{}Q{}.{}", now.as_secs(), now.subsec_micros(), std::process::id(), n, host_name())
}

/// Delivers `raw` unchanged into the Maildir at `dir` (created if missing): written in `tmp/`,
/// flushed, renamed into `new/`, the folder flushed. Returns the message's key.
pub fn deliver(dir: &Path, raw: &[u8]) -> Result<String, TransportError> {
    ensure_maildir(dir)?;
    let (key, tmp, mut file) = loop {
        let key = unique_name();
        let tmp = dir.join("tmp").join(&key);
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(f) => break (key, tmp, f),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(TransportError::maildir("create", tmp, e)),
        }
    };
    let written = file.write_all(raw).and_then(|()| crate::store::fsio::sync_file(&file));
    drop(file);
    if let Err(e) = written {
        let _ = fs::remove_file(&tmp);
        return Err(TransportError::maildir("write", tmp, e));
    }
    let new = dir.join("new");
    let target = new.join(&key);
    if let Err(e) = fs::rename(&tmp, &target) {
        let _ = fs::remove_file(&tmp);
        return Err(TransportError::maildir("move into new/", target, e));
    }
    sync_dir(&new)?;
    Ok(key)
}

/// Where a [`MaildirSender`] puts each recipient's copy.
#[derive(Clone, Debug)]
enum Layout {
    /// Every copy in one Maildir.
    One(PathBuf),
    /// Each recipient's copy in `root/<address>/`.
    PerRecipient(PathBuf),
}

/// A [`Sender`] that delivers into Maildirs as a local MDA would.
#[derive(Clone, Debug)]
pub struct MaildirSender {
    layout: Layout,
}

impl MaildirSender {
    /// Every recipient's copy goes into the one Maildir `dir` (a catch-all mailbox).
    pub fn new(dir: impl Into<PathBuf>) -> MaildirSender {
        MaildirSender { layout: Layout::One(dir.into()) }
    }

    /// Each recipient's copy goes into its own Maildir `root/<address>/` (see
    /// [`MaildirSender::mailbox_of`]).
    pub fn per_recipient(root: impl Into<PathBuf>) -> MaildirSender {
        MaildirSender { layout: Layout::PerRecipient(root.into()) }
    }

    /// The Maildir a recipient's copy is delivered to.
    pub fn mailbox_of(&self, recipient: &str) -> PathBuf {
        match &self.layout {
            Layout::One(dir) => dir.clone(),
            Layout::PerRecipient(root) => root.join(folder_name(recipient)),
        }
    }
}

/// A recipient address as a folder name: lower case, anything unusual (and a leading dot)
/// replaced by `_`.
fn folder_name(address: &str) -> String {
    let mut s: String = address
        .trim()
        .to_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || "@._+-".contains(c) { c } else { '_' })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

/// Refuses envelope addresses that would break the trace headers.
fn check_address(what: &str, a: &str) -> Result<(), TransportError> {
    if a.contains(['\r', '\n', '<', '>']) {
        return Err(TransportError::Config(format!(
            "the envelope {what} {a:?} contains a line break or angle bracket"
        )));
    }
    Ok(())
}

impl MaildirSender {
    /// Each recipient's copy with its trace headers, handed to `put(mailbox, bytes)`.
    fn each_copy(
        &self,
        from: &str,
        to: &[String],
        raw: &[u8],
        mut put: impl FnMut(&Path, &[u8]) -> Result<(), TransportError>,
    ) -> Result<(), TransportError> {
        if to.is_empty() {
            return Err(TransportError::Config("a message needs at least one envelope recipient".into()));
        }
        check_address("sender", from)?;
        let eol: &[u8] = if first_line_ends_crlf(raw) { b"\r\n" } else { b"\n" };
        for rcpt in to {
            check_address("recipient", rcpt)?;
            let mut copy = Vec::with_capacity(raw.len() + 64 + from.len() + rcpt.len());
            copy.extend_from_slice(format!("Return-Path: <{from}>").as_bytes());
            copy.extend_from_slice(eol);
            copy.extend_from_slice(format!("Delivered-To: {rcpt}").as_bytes());
            copy.extend_from_slice(eol);
            copy.extend_from_slice(raw);
            put(&self.mailbox_of(rcpt), &copy)?;
        }
        Ok(())
    }
}

impl Sender for MaildirSender {
    fn send(&mut self, from: &str, to: &[String], raw: &[u8]) -> Result<(), TransportError> {
        self.each_copy(from, to, raw, |dir, copy| deliver(dir, copy).map(|_| ()))
    }

    /// Exactly once: the file is named `<id>.steward` and a name already in `new/` or `cur/`
    /// is not delivered again. The file is flushed; its directory at the next
    /// `fsio::barrier` (the outbox makes one after its deliveries, before any leaves it), so
    /// a flush's deliveries into one mailbox share one directory flush.
    fn send_once(&mut self, id: &str, from: &str, to: &[String], raw: &[u8]) -> Result<(), TransportError> {
        if id.is_empty() || id.contains(['/', '\\', ':']) || id.starts_with('.') {
            return Err(TransportError::Config(format!("`{id}` cannot name a Maildir file")));
        }
        let name = format!("{id}.steward");
        self.each_copy(from, to, raw, |dir, copy| deliver_named(dir, &name, copy))
    }
}

/// Delivers `raw` into `dir` as `new/<name>` unless `name` is already in `new/` or `cur/`.
fn deliver_named(dir: &Path, name: &str, raw: &[u8]) -> Result<(), TransportError> {
    ensure_maildir(dir)?;
    if dir.join("new").join(name).exists() {
        return Ok(());
    }
    let cur = dir.join("cur");
    for e in fs::read_dir(&cur).map_err(|e| TransportError::maildir("read", &cur, e))? {
        let e = e.map_err(|e| TransportError::maildir("read", &cur, e))?;
        if e.file_name().to_str().is_some_and(|n| unique_part(n) == name) {
            return Ok(());
        }
    }
    let tmp = dir.join("tmp").join(name);
    let mut file = File::create(&tmp).map_err(|e| TransportError::maildir("create", &tmp, e))?;
    file.write_all(raw)
        .and_then(|()| crate::store::fsio::sync_file(&file))
        .map_err(|e| TransportError::maildir("write", &tmp, e))?;
    drop(file);
    let target = dir.join("new").join(name);
    fs::rename(&tmp, &target).map_err(|e| TransportError::maildir("move into new/", target, e))?;
    crate::store::fsio::defer_dir_sync(&dir.join("new"));
    Ok(())
}

/// True when the message's first line ends with CR LF (we prepend lines in the same style).
fn first_line_ends_crlf(raw: &[u8]) -> bool {
    raw.iter().position(|&b| b == b'\n').is_some_and(|i| i > 0 && raw[i - 1] == b'\r')
}
