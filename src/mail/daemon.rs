//! The daemon's work, one job at a time: a message read from the mailbox, or a deadline that
//! passed. A job commits its turns through the store's driver, writes its replies to the outbox,
//! then records itself in the ledger (docs/daemon.md has the crash analysis).
//!
//! The loop itself (`run`) is at the bottom: fetch, process each message, check deadlines,
//! flush the outbox, wait.

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use crate::engine::bot::Bot;
use crate::store::fsio::Durability;
use crate::store::{Stamp, Store, StoreError};

use super::compose::{Draft, TemplateError, Templates, build};
use super::config::ServeConfig;
use super::ledger::{Entry, Ledger, key_name};
use super::message::Incoming;
use super::outbox::{Deliver, Envelope, Flushed, Outbox};
use super::secrets::Secrets;
use super::standing::{Inflight, Standing};
use super::transport::{Inbox, TransportError};
use super::{Lang, orders};

/// What stops the daemon (a player's bad order never does: it gets a receipt).
#[derive(Debug, thiserror::Error)]
pub enum DaemonError {
    /// A file of the daemon's state cannot be read or written.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// Why it failed.
        source: std::io::Error,
    },
    /// A game cannot be read (a damaged game directory).
    #[error("game {game}: {source}")]
    Store {
        /// The game.
        game: String,
        /// Why.
        source: StoreError,
    },
    /// A template does not render.
    #[error(transparent)]
    Template(#[from] TemplateError),
    /// The mailbox failed.
    #[error("mailbox: {0}")]
    Transport(#[from] TransportError),
}

pub(super) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> DaemonError {
    let what = what.into();
    move |source| DaemonError::Io { what, source }
}

/// The job being processed: what it touched and what it will send.
pub(super) struct Job {
    /// Its ledger key.
    pub key: String,
    /// The message id its turns record (a message's own, or one made from the key).
    pub mid: String,
    /// The sender (empty for deadline jobs).
    pub sender: String,
    /// The sender's language.
    pub lang: Lang,
    /// Where each touched game's report starts.
    pub first: std::collections::BTreeMap<String, u32>,
    /// Replies to send (masked: `secrets`).
    pub drafts: Vec<Draft>,
    /// Mails carrying a secret to the address it belongs to (a welcome and its token): the
    /// only drafts not masked.
    pub secret_drafts: Vec<Draft>,
    /// What the sender wrote that must not be echoed (docs/orders.md).
    pub secrets: super::secrets::Secrets,
    /// Notes for the sender's receipt.
    pub notes: Vec<String>,
    /// Whether any order was applied.
    pub applied: bool,
    /// Games whose players must get a report, with extra lines for it.
    pub announce: Vec<(String, String)>,
    /// What the sender's reply carries besides the notes.
    pub extras: super::dispatch::SenderExtras,
    /// When the message arrived in the mailbox, if the mailbox says (lateness is judged on it).
    pub arrived: Option<Stamp>,
}

/// Counts of one pass of the loop.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pass {
    /// Messages read from the mailbox.
    pub fetched: usize,
    /// Of those, processed now (the others were already in the ledger).
    pub processed: usize,
    /// Deadline jobs run (reminders, default moves).
    pub deadlines: usize,
    /// What the outbox flush did.
    pub flushed: Flushed,
}

/// The daemon's state.
pub struct Daemon {
    /// Its configuration.
    pub cfg: ServeConfig,
    pub(super) store: Store,
    pub(super) ledger: Ledger,
    pub(super) outbox: Outbox,
    pub(super) standing: Standing,
    pub(super) templates: Templates,
    pub(super) bot: Bot,
    pub(super) secret: [u8; 32],
    rate: HashMap<String, Vec<i64>>,
    clock: Box<dyn FnMut() -> Stamp + Send>,
    domain: String,
}

impl Daemon {
    /// A daemon over `cfg`'s games and state directories.
    pub fn new(cfg: ServeConfig, durability: Durability) -> Result<Self, DaemonError> {
        let ledger = Ledger::open(&cfg.state, durability).map_err(io("opening the ledger"))?;
        let outbox = Outbox::open(&cfg.state, durability).map_err(io("opening the outbox"))?;
        let standing = Standing::open(&cfg.state, durability).map_err(io("opening the state directory"))?;
        let secret = daemon_secret(&cfg.state, durability)?;
        let templates = Templates::new(cfg.templates.clone())?;
        let mut store = Store::new(cfg.games.clone());
        store.durability = durability;
        let domain = cfg.address.rsplit('@').next().unwrap_or("steward.invalid").to_string();
        Ok(Daemon {
            cfg,
            store,
            ledger,
            outbox,
            standing,
            templates,
            bot: Bot::new(),
            secret,
            rate: HashMap::new(),
            clock: Box::new(Stamp::now),
            domain,
        })
    }

    /// Replaces the clock (tests and the demo run on their own time).
    pub fn set_clock(&mut self, clock: impl FnMut() -> Stamp + Send + 'static) {
        self.clock = Box::new(clock);
    }

    pub(super) fn now(&mut self) -> Stamp {
        (self.clock)()
    }

    /// The games directory.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The ledger.
    pub fn ledger(&self) -> &Ledger {
        &self.ledger
    }

    /// The outbox.
    pub fn outbox(&self) -> &Outbox {
        &self.outbox
    }

    /// The language of mail to `address`.
    pub(super) fn lang_of(&self, address: &str) -> Lang {
        self.standing
            .lang(address)
            .ok()
            .flatten()
            .or_else(|| Some(self.cfg.language.clone()))
            .and_then(|l| Lang::parse(&l.to_lowercase()))
            .unwrap_or_default()
    }

    /// Processes one message read under mailbox key `key`, unless the ledger has it. Returns
    /// whether it was processed now. The caller marks it processed in the mailbox afterwards.
    pub fn process(&mut self, key: &str, raw: &[u8]) -> Result<bool, DaemonError> {
        self.process_arrived(key, raw, None)
    }

    /// [`Daemon::process`] for a message that arrived at `arrived`: the deadlines that passed
    /// before it are played first (their default moves, docs/daemon.md), so an order that
    /// arrived after its deadline is late however long it waited to be read. An arrival time
    /// after the daemon's clock is not believed (a clock set by tests or the demo).
    pub fn process_arrived(&mut self, key: &str, raw: &[u8], arrived: Option<Stamp>) -> Result<bool, DaemonError> {
        if self.ledger.get(key).map_err(io("reading the ledger"))?.is_some() {
            return Ok(false);
        }
        let now = self.now();
        let arrived = arrived.filter(|a| *a <= now);
        if let Some(a) = arrived {
            self.deadlines_until(a)?;
        }
        self.process_message(key, raw, arrived)
    }

    fn process_message(&mut self, key: &str, raw: &[u8], arrived: Option<Stamp>) -> Result<bool, DaemonError> {
        if self.ledger.get(key).map_err(io("reading the ledger"))?.is_some() {
            return Ok(false);
        }
        let now = self.now();
        let mut entry = Entry {
            key: key.into(),
            message_id: None,
            from: None,
            at: now.to_string(),
            outcome: String::new(),
            games: Vec::new(),
            replies: Vec::new(),
        };
        let ignored = |entry: &mut Entry, why: String| entry.outcome = format!("ignored: {why}");
        if raw.len() > self.cfg.max_message_bytes {
            ignored(&mut entry, format!("{} bytes, more than the limit of {}", raw.len(), self.cfg.max_message_bytes));
            return self.commit(entry, Vec::new()).map(|_| true);
        }
        let msg = match Incoming::parse(raw) {
            Ok(m) => m,
            Err(e) => {
                ignored(&mut entry, e.to_string());
                return self.commit(entry, Vec::new()).map(|_| true);
            }
        };
        entry.from = Some(msg.from.clone());
        entry.message_id = msg.message_id.clone();
        if let Some(why) = msg.loop_reason() {
            ignored(&mut entry, format!("not answered ({why})"));
            return self.commit(entry, Vec::new()).map(|_| true);
        }
        if let Some(mid) = &msg.message_id
            && let Some(prev) = self.ledger.by_message_id(mid).map_err(io("reading the ledger"))?
            && prev.key != key
        {
            ignored(&mut entry, format!("the same Message-ID as {} (a second copy)", prev.key));
            entry.message_id = None;
            return self.commit(entry, Vec::new()).map(|_| true);
        }
        if !self.within_rate(&msg.from, now) {
            ignored(&mut entry, format!("more than {} messages in an hour from {}", self.cfg.rate_per_hour, msg.from));
            return self.commit(entry, Vec::new()).map(|_| true);
        }
        let mut job = self.start_job(key, msg.message_id.clone(), &msg.from)?;
        job.arrived = arrived;
        job.secrets = Secrets::of(&[&msg.body, &msg.subject, msg.from_name.as_deref().unwrap_or("")]);
        let parsed = orders::parse(&msg.body);
        self.handle(&mut job, &msg, &parsed)?;
        entry.outcome = if job.applied { "applied".into() } else { "answered".into() };
        entry.games = job.first.keys().cloned().collect();
        let drafts = self.finish_job(&mut job, Some(&msg))?;
        self.commit(entry, drafts).map(|_| true)
    }

    fn within_rate(&mut self, from: &str, now: Stamp) -> bool {
        let v = self.rate.entry(from.to_string()).or_default();
        v.retain(|&t| now.0 - t < 3600);
        v.push(now.0);
        v.len() as u32 <= self.cfg.rate_per_hour
    }

    /// A job for ledger key `key`: resumes the one in flight if a crash interrupted it.
    pub(super) fn start_job(&mut self, key: &str, mid: Option<String>, sender: &str) -> Result<Job, DaemonError> {
        let first = match self.standing.inflight().map_err(io("reading inflight.toml"))? {
            Some(f) if f.key == key => f.first,
            _ => Default::default(),
        };
        let inflight = Inflight { key: key.into(), first: first.clone() };
        self.standing.set_inflight(&inflight).map_err(io("writing inflight.toml"))?;
        Ok(Job {
            key: key.into(),
            mid: mid.unwrap_or_else(|| format!("{}@{}", key_name("key", key), self.domain)),
            sender: sender.into(),
            lang: self.lang_of(sender),
            first,
            drafts: Vec::new(),
            secret_drafts: Vec::new(),
            secrets: Default::default(),
            notes: Vec::new(),
            applied: false,
            announce: Vec::new(),
            extras: Default::default(),
            arrived: None,
        })
    }

    /// Notes that `game` is touched by `job` from turn `next` on (kept across a crash).
    pub(super) fn touch(&mut self, job: &mut Job, game: &str, next: u32) -> Result<(), DaemonError> {
        if !job.first.contains_key(game) {
            job.first.insert(game.to_string(), next);
            let inflight = Inflight { key: job.key.clone(), first: job.first.clone() };
            self.standing.set_inflight(&inflight).map_err(io("writing inflight.toml"))?;
        }
        Ok(())
    }

    /// Writes the job's replies to the outbox and records it in the ledger.
    fn commit(&mut self, mut entry: Entry, drafts: Vec<Draft>) -> Result<(), DaemonError> {
        let base = key_name("key", &entry.key);
        for (i, mut d) in drafts.into_iter().enumerate() {
            let id = format!("{base}-{i:03}");
            d.message_id = format!("{id}@{}", self.domain);
            let raw = build(&d, &self.cfg.name, &self.cfg.address)?;
            let env = Envelope {
                id: id.clone(),
                from: self.cfg.address.clone(),
                to: d.to.clone(),
                attempts: 0,
                next_try: 0,
                last_error: None,
            };
            self.outbox.put(&env, &raw).map_err(io("writing the outbox"))?;
            entry.replies.push(id);
        }
        self.ledger.record(&entry).map_err(io("writing the ledger"))
    }

    /// Records a deadline job.
    pub(super) fn commit_job(&mut self, key: &str, outcome: String, job: &mut Job) -> Result<(), DaemonError> {
        let drafts = self.finish_job(job, None)?;
        let entry = Entry {
            key: key.into(),
            message_id: None,
            from: None,
            at: self.now().to_string(),
            outcome,
            games: job.first.keys().cloned().collect(),
            replies: Vec::new(),
        };
        self.commit(entry, drafts)
    }

    /// One pass: every new message, then deadlines, then the outbox.
    pub fn pass(&mut self, inbox: &mut dyn Inbox, via: &mut dyn Deliver) -> Result<Pass, DaemonError> {
        let mut p = Pass::default();
        loop {
            let batch = inbox.fetch(64)?;
            if batch.is_empty() {
                break;
            }
            let n = batch.len();
            p.fetched += n;
            // In arrival order (the inbox gives them so); each after the deadlines before it.
            for m in batch {
                if self.process_arrived(&m.key, &m.raw, m.arrived.map(Stamp))? {
                    p.processed += 1;
                }
                inbox.mark_processed(&m.key)?;
            }
            if n < 64 {
                break;
            }
        }
        p.deadlines = self.deadlines()?;
        let now = self.now();
        p.flushed = self.outbox.flush(via, now).map_err(io("flushing the outbox"))?;
        Ok(p)
    }

    /// Runs until `stop` says so, waiting on the mailbox between passes.
    pub fn run(
        &mut self,
        inbox: &mut dyn Inbox,
        via: &mut dyn Deliver,
        mut stop: impl FnMut(&Pass) -> bool,
    ) -> Result<(), DaemonError> {
        loop {
            let p = self.pass(inbox, via)?;
            if stop(&p) {
                return Ok(());
            }
            if p.fetched == 0 && p.processed == 0 {
                inbox.wait(Duration::from_secs(self.cfg.poll_seconds.max(1)))?;
            }
        }
    }
}

/// The daemon's own secret (`<state>/secret.toml`, 0600): players' tokens are derived from it
/// and the message that gave them, so a reply written again after a crash carries the same
/// token.
fn daemon_secret(state: &Path, durability: Durability) -> Result<[u8; 32], DaemonError> {
    #[derive(serde::Serialize, serde::Deserialize)]
    struct SecretFile {
        secret: String,
    }
    let path = state.join("secret.toml");
    if let Ok(text) = std::fs::read_to_string(&path) {
        let f: SecretFile = toml::from_str(&text)
            .map_err(|e| DaemonError::Io { what: path.display().to_string(), source: std::io::Error::other(e) })?;
        let v = hex::decode(f.secret.trim()).ok().and_then(|v| <[u8; 32]>::try_from(v).ok()).ok_or_else(|| {
            DaemonError::Io { what: path.display().to_string(), source: std::io::Error::other("not 64 hex digits") }
        })?;
        return Ok(v);
    }
    let s = crate::store::driver::os_random().map_err(|e| DaemonError::Store { game: "-".into(), source: e })?;
    let text = toml::to_string(&SecretFile { secret: hex::encode(s) }).unwrap_or_default();
    crate::store::fsio::write_atomic(&path, text.as_bytes(), durability, true).map_err(io("writing secret.toml"))?;
    Ok(s)
}
