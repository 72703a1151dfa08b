//! Moving raw messages in and out: the only code in steward that touches mailboxes and the
//! network.
//!
//! The daemon sees two small traits: an [`Inbox`] it fetches unprocessed messages from and marks
//! them processed in (after the turn they caused is committed), and a [`Sender`] that delivers
//! one finished RFC 5322 message. Each comes in a local flavour (a Maildir: the embedded default,
//! the demo's "network", the tests) and a network flavour (IMAP in, SMTP out). The transports
//! never parse a message: they move bytes, so a malformed mail reaches the order parser intact.
//!
//! Errors are one typed enum, [`TransportError`], that says whether retrying may help
//! ([`TransportError::is_transient`]) and never carries a password: passwords live in
//! [`Secret`], whose `Debug` and `Display` print `***`.

use std::fmt;
use std::io;
use std::path::PathBuf;

pub mod export;
pub mod imap;
pub mod maildir;
pub mod smtp;

pub use self::imap::{ImapConfig, ImapInbox, ProcessedMark};
pub use self::maildir::{MaildirInbox, MaildirSender, deliver};
pub use self::smtp::{SmtpConfig, SmtpSender};

/// A message as it sits in a mailbox: `key` is stable and unique within that mailbox
/// (Maildir: the unique part of the file name; IMAP: "<uidvalidity>:<uid>"), and when it
/// arrived there, which decides whether an order was late (docs/daemon.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fetched {
    pub key: String,
    pub raw: Vec<u8>,
    /// When the mailbox received it, in seconds since 1970 (UTC): the Maildir delivery time
    /// (the file's modification time, set when it was written into `tmp/`), the IMAP
    /// INTERNALDATE. `None` when the mailbox cannot say.
    pub arrived: Option<i64>,
}

/// Where incoming mail is read.
pub trait Inbox {
    /// Messages not yet marked processed, oldest first (at most `limit`).
    fn fetch(&mut self, limit: usize) -> Result<Vec<Fetched>, TransportError>;
    /// Mark one message processed; idempotent (marking twice or a vanished key is Ok).
    fn mark_processed(&mut self, key: &str) -> Result<(), TransportError>;
    /// Block until new mail may have arrived or `timeout` passed (IMAP IDLE where supported,
    /// else sleep); returns early is fine.
    fn wait(&mut self, timeout: std::time::Duration) -> Result<(), TransportError>;
}

/// Where outgoing mail is handed over.
pub trait Sender {
    /// Deliver one RFC 5322 message to `to` (envelope), from envelope sender `from`.
    fn send(&mut self, from: &str, to: &[String], raw: &[u8]) -> Result<(), TransportError>;

    /// Delivers the message the caller names `id` (stable across attempts): a transport that
    /// can tell it delivered `id` already does not deliver it again (Maildir); others send
    /// (SMTP cannot know whether a server kept a message when the connection died).
    fn send_once(&mut self, id: &str, from: &str, to: &[String], raw: &[u8]) -> Result<(), TransportError> {
        let _ = id;
        self.send(from, to, raw)
    }
}

impl<T: Inbox + ?Sized> Inbox for Box<T> {
    fn fetch(&mut self, limit: usize) -> Result<Vec<Fetched>, TransportError> {
        (**self).fetch(limit)
    }
    fn mark_processed(&mut self, key: &str) -> Result<(), TransportError> {
        (**self).mark_processed(key)
    }
    fn wait(&mut self, timeout: std::time::Duration) -> Result<(), TransportError> {
        (**self).wait(timeout)
    }
}

impl<T: Sender + ?Sized> Sender for Box<T> {
    fn send(&mut self, from: &str, to: &[String], raw: &[u8]) -> Result<(), TransportError> {
        (**self).send(from, to, raw)
    }
    fn send_once(&mut self, id: &str, from: &str, to: &[String], raw: &[u8]) -> Result<(), TransportError> {
        (**self).send_once(id, from, to, raw)
    }
}

/// How a connection to a server is secured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Security {
    /// Plain TCP, passwords in the clear: only for a server on the same host or a trusted
    /// network (the default, as for the Dovecot and Postfix beside the daemon).
    #[default]
    None,
    /// Plain TCP upgraded with STARTTLS before logging in (IMAP 143, SMTP 587); a server that
    /// does not offer it is refused, never used in the clear.
    StartTls,
    /// TLS from the first byte (IMAPS 993, SMTPS 465).
    Tls,
}

/// Reads a PEM certificate to trust besides the system's (a self-signed server's).
fn read_ca(path: &std::path::Path) -> Result<Vec<u8>, TransportError> {
    std::fs::read(path)
        .map_err(|e| TransportError::Config(format!("cannot read the CA certificate {}: {e}", path.display())))
}

/// A password or other secret from the configuration: compared and used, never printed.
#[derive(Clone, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(transparent)]
pub struct Secret(String);

impl Secret {
    pub fn new(s: impl Into<String>) -> Secret {
        Secret(s.into())
    }
    /// The secret itself, for the one place that sends it to a server.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("***")
    }
}

/// Why a transport failed. Messages name the server or directory and what to check; none
/// contains a password.
#[derive(Debug, thiserror::Error)]
pub enum TransportError {
    /// A Maildir (or file in it) could not be read or written.
    #[error("cannot {action} {}: {source}", path.display())]
    Maildir {
        action: &'static str,
        path: PathBuf,
        #[source]
        source: io::Error,
    },
    /// The server could not be reached (refused, unreachable, timed out).
    #[error("cannot reach {server}: {source} (is the server running and the address right?)")]
    Connect {
        server: String,
        #[source]
        source: io::Error,
    },
    /// An open connection broke or timed out; reconnecting may help.
    #[error("the connection to {server} broke: {detail}")]
    Connection { server: String, detail: String },
    /// The server refused the user name or password.
    #[error("{server} refused the login of user {user:?}: {detail} (check the user name and password)")]
    Login { server: String, user: String, detail: String },
    /// The server refused a command; `transient` when it said to try again later.
    #[error("{server} refused {command}: {detail}")]
    Refused { server: String, command: String, detail: String, transient: bool },
    /// The SMTP server refused the message or one of its recipients (reply `code`: 4xx means
    /// try again later, 5xx means never).
    #[error("{server} refused the message ({code}): {detail}")]
    Rejected { server: String, code: u16, detail: String },
    /// The TLS handshake failed (untrusted certificate, wrong host name, no STARTTLS offered):
    /// the configuration or the server must change.
    #[error("secure connection to {server} failed: {detail}")]
    Tls { server: String, detail: String },
    /// The configuration cannot work (bad address, empty recipient list...).
    #[error("transport configuration: {0}")]
    Config(String),
}

impl TransportError {
    /// True when the same call may succeed later unchanged (network trouble, a 4xx reply, a
    /// full disk); false when something must be fixed first (credentials, a 5xx reply, a
    /// missing directory, a bad configuration).
    pub fn is_transient(&self) -> bool {
        match self {
            TransportError::Maildir { source, .. } => crate::store::fsio::is_transient(source),
            TransportError::Connect { .. } | TransportError::Connection { .. } => true,
            TransportError::Login { .. } | TransportError::Tls { .. } | TransportError::Config(_) => false,
            TransportError::Refused { transient, .. } => *transient,
            TransportError::Rejected { code, .. } => (400..500).contains(code),
        }
    }

    pub(crate) fn maildir(action: &'static str, path: impl Into<PathBuf>, source: io::Error) -> TransportError {
        TransportError::Maildir { action, path: path.into(), source }
    }
}
