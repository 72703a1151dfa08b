//! `steward.toml`: the daemon's one configuration file (docs/daemon.md).
//!
//! Secrets (IMAP/SMTP passwords) are never in this file's values that get logged: they are read
//! from a named environment variable or a file, and [`ServeConfig`]'s `Debug` prints neither.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::mail::transport::{self, ProcessedMark, Secret as TSecret, Security};

/// The whole configuration.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ServeConfig {
    /// The address players write to; replies come from it.
    pub address: String,
    /// The display name on replies.
    #[serde(default = "default_name")]
    pub name: String,
    /// The games directory (relative paths are relative to the configuration file).
    #[serde(default = "default_games")]
    pub games: PathBuf,
    /// The daemon's own state: the ledger of processed messages, the outbox, players' standing
    /// orders.
    #[serde(default = "default_state")]
    pub state: PathBuf,
    /// Language of mail to people who have not chosen one (`en` or `fr`).
    #[serde(default = "default_lang")]
    pub language: String,
    /// Seconds between polls when the mailbox cannot say when mail arrives.
    #[serde(default = "default_poll")]
    pub poll_seconds: u64,
    /// Larger messages are refused unread.
    #[serde(default = "default_max_bytes")]
    pub max_message_bytes: usize,
    /// At most this many messages per sender per hour are answered; more are recorded unanswered.
    #[serde(default = "default_rate")]
    pub rate_per_hour: u32,
    /// Hours before a deadline when the awaited player is reminded (0: no reminder).
    #[serde(default = "default_reminder")]
    pub reminder_hours: u32,
    /// Hours before a round's deadline (a game with `PACE ROUND`) when the awaited player is
    /// reminded. 0, the default: no reminder, the round prompt is the round's one mail (issue 46).
    #[serde(default)]
    pub round_reminder_hours: u32,
    /// Where mail comes from.
    pub inbox: InboxConfig,
    /// Where replies go.
    pub send: SendConfig,
    /// Who may create, start, pause... games.
    #[serde(default, rename = "moderator")]
    pub moderators: Vec<ModeratorConfig>,
    /// Directory of mail templates overriding the built-in ones (`templates/` layout).
    #[serde(default)]
    pub templates: Option<PathBuf>,
    /// A folder of track files that `CREATE ... TRACK name` may name besides the shipped
    /// tracks (`name`, `name.toml` or `name.dat` inside it, nothing outside it).
    #[serde(default)]
    pub tracks: Option<PathBuf>,
    /// Where `steward site` writes the web pages, refreshed whenever a race ends (docs/site.md).
    #[serde(default)]
    pub site: Option<PathBuf>,
    /// The key of the signed reply addresses (`steward+<tag>@domain`, docs/daemon.md): `env:NAME`
    /// or `file:PATH`. Without it, a key made once in `<state>/reply-key` (mode 0600).
    #[serde(default)]
    pub reply_key: Option<Secret>,
}

fn default_name() -> String {
    "steward".into()
}
fn default_games() -> PathBuf {
    "games".into()
}
fn default_state() -> PathBuf {
    "mail-state".into()
}
fn default_lang() -> String {
    "en".into()
}
fn default_poll() -> u64 {
    30
}
fn default_max_bytes() -> usize {
    crate::mail::message::MAX_MESSAGE_BYTES
}
fn default_rate() -> u32 {
    60
}
fn default_reminder() -> u32 {
    12
}

/// Where mail comes from.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum InboxConfig {
    /// A local Maildir (the embedded default: no server needed).
    Maildir {
        /// Its directory.
        dir: PathBuf,
    },
    /// An IMAP mailbox.
    Imap(ImapConfig),
}

/// An IMAP account. The password is named, never written here: `env:VARIABLE` or
/// `file:/path`.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    /// Server host.
    pub host: String,
    /// Port (143 plain/STARTTLS, 993 TLS).
    #[serde(default = "default_imap_port")]
    pub port: u16,
    /// Login.
    pub user: String,
    /// The password: `env:NAME` or `file:PATH`.
    pub password: Secret,
    /// Folder to read.
    #[serde(default = "default_folder")]
    pub folder: String,
    /// `none` (loopback), `starttls` or `tls`.
    #[serde(default)]
    pub security: Security,
    /// A PEM certificate to trust besides the system's.
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
    /// How processed mail is marked: `keyword` (`$StewardDone`, the default) or `seen`.
    #[serde(default)]
    pub mark: ProcessedMark,
}

fn default_imap_port() -> u16 {
    143
}
fn default_folder() -> String {
    "INBOX".into()
}

impl ImapConfig {
    /// The transport's configuration, with the password read.
    pub fn transport(&self) -> Result<transport::ImapConfig, ConfigError> {
        let mut c = transport::ImapConfig::new(&self.host, self.port, &self.user, TSecret::new(self.password.read()?));
        c.mailbox = self.folder.clone();
        c.security = self.security;
        c.ca_file = self.ca_file.clone();
        c.mark = self.mark;
        Ok(c)
    }
}

/// Where replies go.
#[derive(Clone, Debug, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase", deny_unknown_fields)]
pub enum SendConfig {
    /// Into Maildirs, one per recipient, under `dir` (`dir/<address>/new/...`): the embedded
    /// default and the demo's "network".
    Maildir {
        /// The root directory.
        dir: PathBuf,
    },
    /// An SMTP server.
    Smtp(SmtpConfig),
}

/// An SMTP relay.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    /// Server host.
    pub host: String,
    /// Port.
    #[serde(default = "default_smtp_port")]
    pub port: u16,
    /// Login, if the relay wants one.
    #[serde(default)]
    pub user: Option<String>,
    /// The password: `env:NAME` or `file:PATH`.
    #[serde(default)]
    pub password: Option<Secret>,
    /// `none` (loopback), `starttls` or `tls`.
    #[serde(default)]
    pub security: Security,
    /// A PEM certificate to trust besides the system's.
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
}

fn default_smtp_port() -> u16 {
    25
}

impl SmtpConfig {
    /// The transport's configuration, with the password read.
    pub fn transport(&self) -> Result<transport::SmtpConfig, ConfigError> {
        let mut c = transport::SmtpConfig::new(&self.host, self.port);
        c.user = self.user.clone();
        c.password = self.password.as_ref().map(|p| p.read().map(TSecret::new)).transpose()?;
        c.security = self.security;
        c.ca_file = self.ca_file.clone();
        Ok(c)
    }
}

/// A moderator: an address and the hash of their token (`steward token-hash`).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModeratorConfig {
    /// Their mail address.
    pub address: String,
    /// `SHA-256("steward-moderator-v1" || 0x00 || token)` in hex.
    pub token_sha256: String,
}

/// Where a secret is read from; the value itself never sits in the configuration.
#[derive(Clone, Deserialize)]
#[serde(try_from = "String")]
pub struct Secret {
    source: String,
}

impl TryFrom<String> for Secret {
    type Error = String;
    fn try_from(s: String) -> Result<Self, String> {
        if s.starts_with("env:") || s.starts_with("file:") {
            Ok(Secret { source: s })
        } else {
            Err("a password is given as `env:VARIABLE` or `file:/path/to/file`, never in the file itself".into())
        }
    }
}

impl Secret {
    /// Reads the secret.
    pub fn read(&self) -> Result<String, ConfigError> {
        if let Some(var) = self.source.strip_prefix("env:") {
            return std::env::var(var)
                .map_err(|_| ConfigError::Secret(format!("environment variable {var} is not set")));
        }
        let path = self.source.strip_prefix("file:").unwrap_or_default();
        std::fs::read_to_string(path)
            .map(|s| s.trim_end_matches(['\n', '\r']).to_string())
            .map_err(|e| ConfigError::Secret(format!("cannot read {path}: {e}")))
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secret({})", self.source.split(':').next().unwrap_or("?"))
    }
}

/// A configuration that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file cannot be read.
    #[error("cannot read {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not valid.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong, with the line.
        message: String,
    },
    /// A secret cannot be read.
    #[error("{0}")]
    Secret(String),
    /// A value is out of range.
    #[error("{0}")]
    Invalid(String),
}

impl ServeConfig {
    /// Reads `path`; relative directories become relative to the file's directory.
    pub fn load(path: &Path) -> Result<Self, ConfigError> {
        let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read { path: path.into(), source })?;
        let mut c: ServeConfig =
            toml::from_str(&text).map_err(|e| ConfigError::Parse { path: path.into(), message: e.to_string() })?;
        let base = path.parent().unwrap_or(Path::new("."));
        c.rebase(base);
        c.check()?;
        Ok(c)
    }

    /// Makes relative paths relative to `base`.
    pub fn rebase(&mut self, base: &Path) {
        let fix = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        fix(&mut self.games);
        fix(&mut self.state);
        if let InboxConfig::Maildir { dir } = &mut self.inbox {
            fix(dir);
        }
        if let SendConfig::Maildir { dir } = &mut self.send {
            fix(dir);
        }
        if let Some(t) = &mut self.templates {
            fix(t);
        }
        if let Some(t) = &mut self.tracks {
            fix(t);
        }
        if let Some(t) = &mut self.site {
            fix(t);
        }
    }

    /// Checks values that serde cannot.
    pub fn check(&self) -> Result<(), ConfigError> {
        if !self.address.contains('@') {
            return Err(ConfigError::Invalid(format!("address `{}` is not a mail address", self.address)));
        }
        if crate::words::Lang::parse(&self.language.to_lowercase()).is_none() {
            return Err(ConfigError::Invalid(format!("language `{}`: write en or fr", self.language)));
        }
        for m in &self.moderators {
            if m.token_sha256.len() != 64 || hex::decode(&m.token_sha256).is_err() {
                return Err(ConfigError::Invalid(format!(
                    "moderator {}: token_sha256 must be 64 hex digits (steward token-hash TOKEN)",
                    m.address
                )));
            }
        }
        Ok(())
    }

    /// A configuration for a local Maildir set-up under `root` (the demo's and tests').
    pub fn local(root: &Path, address: &str) -> Self {
        ServeConfig {
            address: address.into(),
            name: default_name(),
            games: root.join("games"),
            state: root.join("mail-state"),
            language: default_lang(),
            poll_seconds: 1,
            max_message_bytes: crate::mail::message::MAX_MESSAGE_BYTES,
            rate_per_hour: default_rate(),
            reminder_hours: default_reminder(),
            round_reminder_hours: 0,
            inbox: InboxConfig::Maildir { dir: root.join("mail").join(address) },
            send: SendConfig::Maildir { dir: root.join("mail") },
            moderators: Vec::new(),
            templates: None,
            tracks: None,
            site: None,
            reply_key: None,
        }
    }
}

/// The hash of a moderator's token, as `steward.toml` records it.
pub fn moderator_token_hash(token: &str) -> String {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"steward-moderator-v1");
    h.update([0u8]);
    h.update(token.trim().as_bytes());
    hex::encode(h.finalize())
}
