//! The daemon's work, one job at a time: a message read from the mailbox, or a deadline that
//! passed. A job commits its turns through the store's driver, writes its replies to the outbox,
//! then records itself in the ledger (docs/daemon.md has the crash analysis).
//!
//! The loop itself (`run`) is at the bottom: fetch, process each message, check deadlines,
//! flush the outbox, wait; and `serve`, which outlives the failures that clear up by themselves
//! (a full disk, the mailbox server restarting) by waiting and starting again from the files.

use std::time::Duration;

use crate::store::Stamp;
use crate::store::fsio::Durability;

use crate::judge::config::ServeConfig;
use crate::judge::ledger::{Entry, key_name};
use crate::judge::outbox::{Deliver, Envelope, Flushed};
use crate::judge::standing::Inflight;
use crate::mail::compose::{Draft, build};
use crate::mail::limits::{STRANGER_TEXT, cap_text};
use crate::mail::message::{Incoming, check_size};
use crate::mail::secrets::Secrets;
use crate::mail::transport::Inbox;
use crate::orders;
use crate::words::Lang;

pub use crate::judge::service::{Daemon, DaemonError};
use crate::judge::service::{Job, io};

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

impl Daemon {
    /// Processes one message read under mailbox key `key`, unless the ledger has it. Returns
    /// whether it was processed now. The caller marks it processed in the mailbox afterwards.
    ///
    /// One message never stops the daemon: whatever fails while it is handled (a store error,
    /// a template, even a panic) becomes its recorded outcome (`failed: ...` in the ledger, a
    /// line on standard error, a note to the moderators and a short reply to its sender). Only
    /// a failure to record that (the state directory itself) is returned.
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
        let mut reply_to: Option<(String, Option<String>, Lang)> = None;
        let handled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            self.read_and_handle(key, raw, now, arrived, &mut entry, &mut reply_to)
        }));
        let failure = match handled {
            Ok(Ok((drafts, claim))) => return self.commit(entry, drafts, claim).map(|_| true),
            // A full disk, the mailbox server gone: nothing is recorded, and the message is read
            // again once it clears (`serve`), as after a crash at this point (inflight.toml
            // keeps what the job wrote): recorded as failed, the player would have to send it
            // again.
            Ok(Err(e)) if e.is_transient() => return Err(e),
            Ok(Err(e)) => e.to_string(),
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic".into());
                format!("internal error: {what}")
            }
        };
        eprintln!(
            "steward serve: message {key} from {}: failed: {failure}",
            entry.from.as_deref().unwrap_or("(unknown sender)")
        );
        entry.outcome = format!("failed: {failure}");
        entry.replies.clear();
        let drafts = self.failure_notes(&entry, &failure, reply_to);
        self.commit(entry, drafts, false).map(|_| true)
    }

    /// Reads a message and handles it: the ledger entry filled in, the replies to send, and
    /// whether the entry claims the message's `Message-ID` (answered messages do).
    /// `reply_to` gets where a reply would go, as soon as that is known.
    fn read_and_handle(
        &mut self,
        key: &str,
        raw: &[u8],
        now: Stamp,
        arrived: Option<Stamp>,
        entry: &mut Entry,
        reply_to: &mut Option<(String, Option<String>, Lang)>,
    ) -> Result<(Vec<Draft>, bool), DaemonError> {
        let ignored = |entry: &mut Entry, why: String| entry.outcome = format!("ignored: {why}");
        let msg = match Incoming::parse(raw) {
            Ok(m) => m,
            Err(e) => {
                ignored(entry, e.to_string());
                return Ok((Vec::new(), false));
            }
        };
        entry.from = Some(msg.from.clone());
        entry.message_id = msg.message_id.clone();
        if let Some(why) = msg.loop_reason() {
            ignored(entry, format!("not answered ({why})"));
            return Ok((Vec::new(), false));
        }
        if let Some(mid) = &msg.message_id
            && let Some(prev) = self.ledger.by_message_id(mid).map_err(io("reading the ledger"))?
            && prev.key != key
        {
            ignored(entry, format!("the same Message-ID as {} (a second copy)", prev.key));
            return Ok((Vec::new(), false));
        }
        if !self.within_rate(&msg.from, key, now)? {
            // Issue 45, item 5: forged mails "from" a player spend the allowance of what a header
            // claims, never that of what a mail proves. A mail with its car's token, a
            // moderator's token or a valid reply address counts in the allowance of what it
            // proves, so the player's real orders still go through.
            let proved = match self.proves(&msg) {
                Some(who) => self.within_rate(&who, key, now)?,
                None => false,
            };
            if !proved {
                ignored(entry, format!("more than {} messages in an hour from {}", self.cfg.rate_per_hour, msg.from));
                return Ok((Vec::new(), false));
            }
        }
        *reply_to = Some((msg.reply_address().to_string(), msg.message_id.clone(), self.lang_of(&msg.from)));
        let mut job = self.start_job(key, msg.message_id.clone(), &msg.from)?;
        job.arrived = arrived;
        job.secrets = Secrets::of(&[&msg.body, &msg.subject, msg.from_name.as_deref().unwrap_or("")]);
        if !self.cfg.moderators.is_empty() {
            // A moderator's token is free text: hidden wherever it was written (issue 45, item 10).
            let is_moderator_token = |w: &str| {
                let h = crate::judge::config::moderator_token_hash(w);
                self.cfg.moderators.iter().any(|m| m.token_sha256 == h)
            };
            job.secrets.add_matching(&msg.body, is_moderator_token);
            job.secrets.add_matching(&msg.subject, is_moderator_token);
        }
        if let Err(e) = check_size(msg.text_bytes, self.cfg.max_message_bytes) {
            entry.outcome = format!("refused: {e}");
            job.notes.push(e.to_string());
            job.stranger = true;
            let drafts = self.finish_job(&mut job, Some(&msg))?;
            return Ok((drafts, true));
        }
        let mut parsed = orders::parse(&msg.body);
        job.tag = self.reply_tag(&msg);
        if let Some(Ok(_)) = &job.tag {
            crate::mail::tag::read_bare(&mut parsed);
        }
        self.handle(&mut job, &msg, &parsed)?;
        entry.outcome = if job.applied { "applied".into() } else { "answered".into() };
        entry.games = job.first.keys().cloned().collect();
        // A mail sent to a valid reply address answers a prompt steward sent: not a stranger's.
        job.stranger = !job.applied && !self.knows(&msg.from, &parsed) && !matches!(job.tag, Some(Ok(_)));
        let drafts = self.finish_job(&mut job, Some(&msg))?;
        Ok((drafts, true))
    }

    /// Whether `address` is a moderator's, or a player's of a game the mail names (`GAME` or
    /// `JOIN`).
    fn knows(&self, address: &str, parsed: &orders::Parsed) -> bool {
        if self.cfg.moderators.iter().any(|m| m.address.eq_ignore_ascii_case(address)) {
            return true;
        }
        // The lines read well, even in a mail refused for another line.
        parsed.lines.iter().filter_map(|l| l.result.as_ref().ok()).any(|o| match o {
            orders::Order::Game(g) | orders::Order::Join { game: g, .. } => self
                .store
                .load(g, None)
                .is_ok_and(|game| game.now.players.iter().any(|p| p.address.eq_ignore_ascii_case(address))),
            _ => false,
        })
    }

    /// The mails that say a message could not be handled: a note to each moderator, and a
    /// short reply to its sender when there is one to answer.
    fn failure_notes(
        &self,
        entry: &Entry,
        failure: &str,
        reply_to: Option<(String, Option<String>, Lang)>,
    ) -> Vec<Draft> {
        let from = entry.from.as_deref().unwrap_or("(unknown sender)");
        let mut drafts: Vec<Draft> = self
            .cfg
            .moderators
            .iter()
            .map(|m| Draft {
                to: vec![m.address.clone()],
                subject: "[steward] a mail could not be handled".into(),
                text: cap_text(
                    &format!(
                        "A mail could not be handled; it is recorded as failed and will not be read again.\n\n\
                         mailbox key: {}\nfrom:        {from}\nMessage-ID:  {}\nwhy:         {failure}\n",
                        entry.key,
                        entry.message_id.as_deref().unwrap_or("-"),
                    ),
                    STRANGER_TEXT,
                ),
                in_reply_to: None,
                message_id: String::new(),
                reply_to: None,
                picture: None,
            })
            .collect();
        if let Some((to, in_reply_to, lang)) = reply_to {
            let text = if lang == Lang::Fr {
                "Votre message n'a pas pu etre traite (erreur interne). Les moderateurs sont prevenus ; renvoyez vos ordres plus tard.\n"
            } else {
                "Your mail could not be handled (an internal error). The moderators have been told; send your orders again later.\n"
            };
            drafts.insert(
                0,
                Draft {
                    to: vec![to],
                    subject: "steward: not handled".into(),
                    text: text.into(),
                    in_reply_to,
                    message_id: String::new(),
                    reply_to: None,
                    picture: None,
                },
            );
        }
        drafts
    }

    /// What a mail proves about its sender, as a rate-limit bucket: `car:<game>:<n>` for a car's
    /// token, `moderator:<address>` for a moderator's address with a moderator's token,
    /// `tag:<game>:<n>:<turn>` for a valid reply address (its prompt alone); `None` for a mail that proves nothing. Only
    /// asked for a mail over its address's allowance.
    fn proves(&self, msg: &Incoming) -> Option<String> {
        if let Some(Ok(tag)) = self.reply_tag(msg) {
            return Some(format!("tag:{}:{}:{}", tag.game, tag.car, tag.turn));
        }
        let head = orders::parse(&msg.body).headers();
        let token = head.token.as_deref()?;
        let is_moderator = self.cfg.moderators.iter().any(|m| {
            m.address.eq_ignore_ascii_case(&msg.from)
                && m.token_sha256 == crate::judge::config::moderator_token_hash(token)
        });
        if is_moderator {
            return Some(format!("moderator:{}", msg.from.to_lowercase()));
        }
        let (game, car) = (head.game.as_deref()?, head.car?);
        let g = self.store.load(game, None).ok()?;
        let (_, p) = g.player(car)?;
        (p.token_sha256 == crate::store::hash::token_hash(game, token)).then(|| format!("car:{game}:{car}"))
    }

    /// Counts a mail from `from` in its hour; false when it is over `rate_per_hour`.
    fn within_rate(&mut self, from: &str, key: &str, now: Stamp) -> Result<bool, DaemonError> {
        let limit = self.cfg.rate_per_hour as usize;
        let n = self.standing.count_mail(from, key, now.0, limit).map_err(io("writing the rate log"))?;
        Ok(n <= limit)
    }

    /// A job for ledger key `key`: resumes the one in flight if a crash interrupted it.
    pub(super) fn start_job(&mut self, key: &str, mid: Option<String>, sender: &str) -> Result<Job, DaemonError> {
        let (first, marks) = match self.standing.inflight().map_err(io("reading inflight.toml"))? {
            Some(f) if f.key == key => (f.first, f.marks),
            _ => Default::default(),
        };
        // Nothing to remember yet: an inflight.toml of another key reads as this empty one,
        // so it is written when the job first touches a game or moves a mark (issue 17: two
        // fsyncs a message saved).
        if !first.is_empty() || !marks.is_empty() {
            let inflight = Inflight { key: key.into(), first: first.clone(), marks: marks.clone() };
            self.standing.set_inflight(&inflight).map_err(io("writing inflight.toml"))?;
        }
        Ok(Job {
            key: key.into(),
            mid: mid.unwrap_or_else(|| format!("{}@{}", key_name("key", key), self.domain)),
            sender: sender.into(),
            lang: self.lang_of(sender),
            first,
            marks,
            drafts: Vec::new(),
            secret_drafts: Vec::new(),
            secrets: Default::default(),
            notes: Vec::new(),
            applied: false,
            announce: Vec::new(),
            extras: Default::default(),
            stranger: false,
            arrived: None,
            tag: None,
            copies: Vec::new(),
            queued: Vec::new(),
            quiet: Vec::new(),
        })
    }

    /// Notes that `game` is touched by `job` from turn `next` on (kept across a crash).
    pub(super) fn touch(&mut self, job: &mut Job, game: &str, next: u32) -> Result<(), DaemonError> {
        if !job.first.contains_key(game) {
            job.first.insert(game.to_string(), next);
            let inflight = Inflight { key: job.key.clone(), first: job.first.clone(), marks: job.marks.clone() };
            self.standing.set_inflight(&inflight).map_err(io("writing inflight.toml"))?;
        }
        Ok(())
    }

    /// Writes the job's replies to the outbox and records it in the ledger (`claim`: the entry
    /// claims its `Message-ID`). A reply that cannot be built (an address no mail can go to,
    /// such as a player's recorded before addresses were checked) goes straight to the outbox's
    /// `failed/` with the reason: the job goes on.
    fn commit(&mut self, mut entry: Entry, drafts: Vec<Draft>, claim: bool) -> Result<(), DaemonError> {
        let base = key_name("key", &entry.key);
        for (i, mut d) in drafts.into_iter().enumerate() {
            let id = format!("{base}-{i:03}");
            d.message_id = format!("{id}@{}", self.domain);
            let env = Envelope {
                id: id.clone(),
                from: self.cfg.address.clone(),
                to: d.to.clone(),
                attempts: 0,
                next_try: 0,
                last_error: None,
            };
            match build(&d, &self.cfg.name, &self.cfg.address) {
                Ok(raw) => self.outbox.put(&env, &raw).map_err(io("writing the outbox"))?,
                Err(e) => {
                    eprintln!("steward serve: reply {id} to {}: not sent: {e}", d.to.join(", "));
                    self.outbox.put_failed(&env, &e.to_string()).map_err(io("writing the outbox"))?;
                }
            }
            entry.replies.push(id);
        }
        self.ledger.record(&entry, claim).map_err(io("writing the ledger"))
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
        self.commit(entry, drafts, true)
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

    /// Runs until `stop` says so, waiting on the mailbox between passes. The first failed pass
    /// ends it ([`serve`] outlives the transient ones).
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

/// The longest wait between two tries after transient failures ([`serve`]).
pub const MAX_BACKOFF: Duration = Duration::from_secs(300);

/// The long-running daemon (`steward serve` without `--once`): [`Daemon::run`] until `stop`
/// says so, outliving the failures that clear up by themselves ([`DaemonError::is_transient`]:
/// the mailbox server restarting or unreachable, a full disk). After one, the daemon says why
/// on standard error, waits (`wait`: the configured poll interval, doubled at each failure in
/// a row up to [`MAX_BACKOFF`]), and starts again from its files with a new [`Daemon`], as a
/// restarted process would: what a failed job wrote is then found again through
/// `inflight.toml`, as after a crash (the crash test), so nothing is applied twice or lost.
/// Any other failure ends it, in a pass or in building the daemon.
pub fn serve(
    cfg: &ServeConfig,
    durability: Durability,
    inbox: &mut dyn Inbox,
    via: &mut dyn Deliver,
    mut stop: impl FnMut(&Pass) -> bool,
    mut wait: impl FnMut(Duration),
) -> Result<(), DaemonError> {
    let first = Duration::from_secs(cfg.poll_seconds.max(1));
    let mut delay = first;
    loop {
        let mut passed = false;
        let ran = Daemon::new(cfg.clone(), durability).and_then(|mut daemon| {
            daemon.run(inbox, via, |p| {
                passed = true;
                stop(p)
            })
        });
        let Err(e) = ran else { return Ok(()) };
        if !e.is_transient() {
            return Err(e);
        }
        if passed {
            delay = first; // a pass went through since the last failure
        }
        eprintln!("steward serve: {e} (may clear up by itself): trying again in {} s", delay.as_secs());
        wait(delay);
        delay = (delay * 2).min(MAX_BACKOFF);
    }
}
