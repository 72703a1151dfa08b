//! The referee service's state and the types all its parts share: the daemon itself, what
//! stops it, the job in hand, and why an order was not carried out. The job loop (`daemon`),
//! the dispatch of orders (`dispatch`) and the league glue (`league`) all build on these.

use std::path::Path;

use crate::engine::bot::Bot;
use crate::judge::config::ServeConfig;
use crate::judge::ledger::Ledger;
use crate::judge::outbox::Outbox;
use crate::judge::report::Boards;
use crate::judge::standing::Standing;
use crate::mail::compose::{Draft, TemplateError, Templates};
use crate::mail::tag::{ReplyTag, TagError, TagKey};
use crate::mail::transport::TransportError;
use crate::store::fsio::Durability;
use crate::store::{Stamp, Store, StoreError};
use crate::words::Lang;

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

impl DaemonError {
    /// True when the failure may clear up by itself: the mailbox server unreachable or busy
    /// ([`TransportError::is_transient`]), a full disk or an exhausted quota under the state or
    /// the games ([`crate::store::fsio::is_transient`]). A message whose job fails so is not
    /// recorded: it is read again on a later pass ([`serve`]).
    pub fn is_transient(&self) -> bool {
        match self {
            DaemonError::Io { source, .. } => crate::store::fsio::is_transient(source),
            DaemonError::Store { source, .. } => source.is_transient(),
            DaemonError::Transport(e) => e.is_transient(),
            DaemonError::Template(_) => false,
        }
    }
}

pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> DaemonError {
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
    /// The report marks this job moves, as they were before it (kept across a crash).
    pub marks: std::collections::BTreeMap<String, crate::judge::modes::Mark>,
    /// Replies to send (masked: `secrets`).
    pub drafts: Vec<Draft>,
    /// Mails carrying a secret to the address it belongs to (a welcome and its token): the
    /// only drafts not masked.
    pub secret_drafts: Vec<Draft>,
    /// What the sender wrote that must not be echoed (docs/orders.md).
    pub secrets: crate::mail::secrets::Secrets,
    /// Notes for the sender's receipt.
    pub notes: Vec<String>,
    /// Whether any order was applied.
    pub applied: bool,
    /// Games whose players must get a report, with extra lines for it.
    pub announce: Vec<(String, String)>,
    /// What the sender's reply carries besides the notes.
    pub extras: SenderExtras,
    /// Whether the sender is a stranger to the mail's game (not a player of it, not a
    /// moderator) whose mail applied nothing: they get a short reply (`limits`).
    pub stranger: bool,
    /// When the message arrived in the mailbox, if the mailbox says (lateness is judged on it).
    pub arrived: Option<Stamp>,
    /// The signed reply address the message was sent to, verified or refused (`tag`).
    pub tag: Option<Result<ReplyTag, TagError>>,
    /// Cars whose orders came from another address than their player's: the player gets a
    /// copy saying what became of them once the mail's orders are done (`dispatch`).
    pub copies: Vec<OwnerCopy>,
    /// The cars for which the mail queued a round order (a GEAR or a DRIVE ahead of the car's
    /// move): their acknowledgement and preview close the receipt (`dispatch::round`).
    pub queued: Vec<(String, u8)>,
    /// Lines for a game's mails that make no mail of their own (a default move at a deadline:
    /// the car's player hears of it, `modes::hits`; the others in their next mail).
    pub quiet: Vec<(String, String)>,
}

/// An order for a car that came from another address than its player's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct OwnerCopy {
    pub game: String,
    pub car: u8,
    /// The player's address.
    pub owner: String,
    /// Signed by the mail's address (a prompt's reply address), not by the car's token.
    pub via_tag: bool,
}

/// What the sender's reply carries besides the receipt.
#[derive(Default)]
pub(super) struct SenderExtras {
    pub receipt: String,
    pub help: bool,
    /// Games whose report (from the given turn) the sender asked for (BOARD, HISTORY).
    pub reports: Vec<(String, u32)>,
    /// League tables the sender asked for (STANDINGS).
    pub league: Vec<String>,
}

/// Why an order was not carried out (`Daemon::act`): the sender's doing, said in their
/// receipt (`Note`: a wrong token, an order out of turn...), or the system's (`System`: a file
/// of the game or of the daemon's state cannot be read or written, a damaged game). A system
/// failure is never shown to the sender as their order's fault: the job stops there, and the
/// daemon decides (a transient failure, such as a full disk, leaves the message to be read again
/// later; another is reported to the sender and the moderators as a mail not handled).
pub(super) enum Failure {
    /// A note for the sender's receipt.
    Note(String),
    /// The system failed.
    System(DaemonError),
}

impl From<String> for Failure {
    fn from(note: String) -> Self {
        Failure::Note(note)
    }
}

impl From<DaemonError> for Failure {
    fn from(e: DaemonError) -> Self {
        Failure::System(e)
    }
}

/// A store call's failure on `game`, as [`Failure`] sorts it ([`StoreError::is_system`]).
pub(super) fn store_failure(game: &str, lang: Lang) -> impl FnOnce(StoreError) -> Failure + '_ {
    move |e| {
        if e.is_system() {
            Failure::System(DaemonError::Store { game: game.to_string(), source: e })
        } else {
            Failure::Note(e.message(lang))
        }
    }
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
    pub(super) tag_key: TagKey,
    pub(super) clock: Box<dyn FnMut() -> Stamp + Send>,
    pub(super) domain: String,
    /// The boards (pictures, race text boards) of the last positions reported, drawn once for all
    /// their players.
    pub(super) boards: Boards,
    /// Each game's last turn as the deadline scan last read it.
    pub(super) last_turns: crate::judge::last_turns::LastTurns,
}

impl Daemon {
    /// A daemon over `cfg`'s games and state directories.
    pub fn new(cfg: ServeConfig, durability: Durability) -> Result<Self, DaemonError> {
        let ledger = Ledger::open(&cfg.state, durability).map_err(io("opening the ledger"))?;
        let outbox = Outbox::open(&cfg.state, durability).map_err(io("opening the outbox"))?;
        let standing = Standing::open(&cfg.state, durability).map_err(io("opening the state directory"))?;
        let secret = daemon_secret(&cfg.state, durability)?;
        let tag_key = match &cfg.reply_key {
            Some(k) => TagKey::from_text(&k.read().map_err(|e| DaemonError::Io {
                what: "reading reply_key".into(),
                source: std::io::Error::other(e.to_string()),
            })?),
            None => TagKey::load(&cfg.state, durability).map_err(io("reading the reply key"))?,
        };
        let templates = Templates::new(cfg.templates.clone())?;
        let mut store = Store::new(cfg.games.clone()).keeping_games();
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
            tag_key,
            clock: Box::new(Stamp::now),
            domain,
            boards: Boards::default(),
            last_turns: Default::default(),
        })
    }

    /// Replaces the clock (tests and the demo run on their own time).
    pub fn set_clock(&mut self, clock: impl FnMut() -> Stamp + Send + 'static) {
        self.clock = Box::new(clock);
    }

    pub(super) fn now(&mut self) -> Stamp {
        (self.clock)()
    }

    /// The daemon's configuration.
    pub fn config(&self) -> &ServeConfig {
        &self.cfg
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

    /// `due` (a UTC time as the turn files write it) as `address` reads it: the weekday, the
    /// day and the time in their own time zone (`TIMEZONE`), else the game's (its schedule's
    /// `ZONE`), else UTC; the UTC time beside it (`words::when`).
    pub(super) fn due_for(&self, address: Option<&str>, g: &crate::store::Game, due: &str, lang: Lang) -> String {
        let zone = address
            .and_then(|a| self.standing.zone(a).ok().flatten())
            .or_else(|| g.setup.schedule.as_ref().map(|s| s.zone.clone()));
        match Stamp::parse(due) {
            Some(s) => crate::words::when::deadline(s.0, zone.as_deref(), lang),
            None => due.to_string(),
        }
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
