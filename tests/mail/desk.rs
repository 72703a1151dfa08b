//! The daemon on Maildirs in a scratch directory, as the mail tests drive it: the steward's
//! inbox and every address's Maildir under `mail/`, the moderator `MOD` registered, the clock at
//! 2026-11-22T12:00Z until a test moves it. Each test file's `World` wraps one and adds its own
//! ways of sending and reading.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use steward::judge::config::{ModeratorConfig, ServeConfig, moderator_token_hash};
use steward::judge::daemon::{Daemon, Pass};
use steward::judge::outbox::Via;
use steward::mail::message::Incoming;
use steward::mail::transport::{Inbox, MaildirInbox, MaildirSender, deliver};
use steward::store::fsio::Durability;
use steward::store::{Game, Stamp, Store};

use super::daemon::{MOD, MOD_TOKEN, STEWARD, mail};
use super::scratch;

/// A daemon, its inbox and its way out, on the state under `root`.
pub struct Desk {
    pub root: PathBuf,
    /// The steward's address: its inbox is `mail/<address>`.
    pub address: String,
    pub daemon: Daemon,
    pub inbox: MaildirInbox,
    pub via: Via<MaildirSender>,
    /// The daemon's clock, seconds since 1970.
    pub clock: Arc<Mutex<i64>>,
    /// Mails sent with [`Desk::mail`] so far (their Message-IDs are numbered).
    sent: u32,
}

impl Desk {
    /// The configuration a desk on `root` starts from: `STEWARD` on local Maildirs, `MOD` a
    /// moderator.
    pub fn config(root: &Path) -> ServeConfig {
        Desk::config_for(root, STEWARD, MOD, MOD_TOKEN)
    }

    /// The same for other addresses: `steward` on local Maildirs, `moderator` (with `token`) a
    /// moderator.
    pub fn config_for(root: &Path, steward: &str, moderator: &str, token: &str) -> ServeConfig {
        let mut cfg = ServeConfig::local(root, steward);
        cfg.moderators.push(ModeratorConfig { address: moderator.into(), token_sha256: moderator_token_hash(token) });
        cfg
    }

    /// A desk in the emptied scratch directory `name`, its configuration edited by `edit`.
    pub fn new(name: &str, edit: impl FnOnce(&mut ServeConfig)) -> Desk {
        let root = scratch(name);
        let mut cfg = Desk::config(&root);
        edit(&mut cfg);
        Desk::open(root, cfg)
    }

    /// A daemon on `root`'s state with `cfg` (its inbox the Maildir of `cfg.address` under
    /// `mail/`), as a new `serve --once` run would start.
    pub fn open(root: PathBuf, cfg: ServeConfig) -> Desk {
        let address = cfg.address.clone();
        let mut daemon = Daemon::new(cfg, Durability::NoSync).unwrap();
        let clock = Arc::new(Mutex::new(Stamp::parse("2026-11-22T12:00:00Z").unwrap().0));
        let c = clock.clone();
        daemon.set_clock(move || Stamp(*c.lock().unwrap()));
        let inbox = MaildirInbox::open(root.join("mail").join(&address)).unwrap();
        let via = Via(MaildirSender::per_recipient(root.join("mail")));
        Desk { root, address, daemon, inbox, via, clock, sent: 0 }
    }

    /// Puts `raw` in the steward's inbox; its Maildir key.
    pub fn deliver(&self, raw: &[u8]) -> String {
        deliver(&self.root.join("mail").join(&self.address), raw).unwrap()
    }

    /// One daemon pass over the inbox.
    pub fn pass(&mut self) -> Pass {
        self.daemon.pass(&mut self.inbox, &mut self.via).expect("the pass goes on")
    }

    /// The number of the next mail sent (1, 2, ...), for its Message-ID.
    pub fn next_number(&mut self) -> u32 {
        self.sent += 1;
        self.sent
    }

    /// Mails `body` from `from` (Message-ID `<{prefix}{n}@test.invalid>`, `n` from
    /// [`Desk::next_number`]) and runs one pass.
    ///
    /// A JOIN is confirmed as its player would: the code steward mailed to `from` is put on the
    /// JOIN line and the mail sent again (issue 45); the mail with the code is read.
    pub fn mail(&mut self, from: &str, prefix: &str, body: &str) {
        let id = format!("{prefix}{}", self.next_number());
        self.deliver(&mail(from, &id, body));
        self.pass();
        if let Some(confirmed) = self.confirm_join(from, body) {
            let id = format!("{prefix}{}", self.next_number());
            self.deliver(&mail(from, &id, &confirmed));
            self.pass();
        }
    }

    /// `body` with the confirmation code `from` was mailed put on its JOIN line, if it holds a
    /// JOIN that waits for one; the mail with the code is marked read.
    pub fn confirm_join(&self, from: &str, body: &str) -> Option<String> {
        let mut ib = MaildirInbox::open(self.root.join("mail").join(from)).ok()?;
        for m in ib.fetch(10_000).unwrap() {
            let text = Incoming::parse(&m.raw).map(|i| i.full_body).unwrap_or_default();
            if let Some(confirmed) = steward::demo::with_join_code(body, &text) {
                ib.mark_processed(&m.key).unwrap();
                return Some(confirmed);
            }
        }
        None
    }

    /// The raw mails `address` received since it was last read, marked read (none when it has
    /// no Maildir yet).
    pub fn received(&self, address: &str) -> Vec<Vec<u8>> {
        let Ok(mut ib) = MaildirInbox::open(self.root.join("mail").join(address)) else { return Vec::new() };
        let mut v = Vec::new();
        for m in ib.fetch(10_000).unwrap() {
            ib.mark_processed(&m.key).unwrap();
            v.push(m.raw);
        }
        v
    }

    /// [`Desk::received`], parsed.
    pub fn messages(&self, address: &str) -> Vec<Incoming> {
        self.received(address).iter().map(|r| Incoming::parse(r).unwrap()).collect()
    }

    /// The games' store.
    pub fn store(&self) -> Store {
        Store::new(self.root.join("games"))
    }

    /// Game `g` as its files stand.
    pub fn game(&self, g: &str) -> Game {
        self.store().load(g, None).unwrap()
    }

    /// The daemon's clock.
    pub fn now(&self) -> Stamp {
        Stamp(*self.clock.lock().unwrap())
    }

    /// Moves the daemon's clock `h` hours on.
    pub fn advance_hours(&self, h: i64) {
        *self.clock.lock().unwrap() += h * 3600;
    }
}

/// Gives a test file's `World { desk: Desk, .. }` the desk's fields and methods (`w.root`,
/// `w.pass()`), beside its own.
macro_rules! on_a_desk {
    ($world:ty) => {
        impl std::ops::Deref for $world {
            type Target = $crate::mail::desk::Desk;
            fn deref(&self) -> &Self::Target {
                &self.desk
            }
        }

        impl std::ops::DerefMut for $world {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.desk
            }
        }
    };
}
