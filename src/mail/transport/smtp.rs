//! SMTP sender: handing finished messages to a mail server with `lettre`.
//!
//! One connection per message (no pool: the daemon sends a few messages per turn, and the
//! persistent outbox above retries). The message bytes go out unchanged, with the envelope given
//! by the caller, so the outbox decides who receives what; an empty envelope sender is the null
//! sender `<>` (bounces).
//!
//! The server's verdict decides [`TransportError::is_transient`]: a 4xx reply (mailbox busy,
//! greylisting, server shutting down) or a network failure may clear up, a 5xx reply (unknown
//! user, relay denied, message too big) will not. If any recipient is refused the whole message
//! is refused (nothing is sent), so a retry never delivers twice to the recipients that were
//! accepted.
//!
//! The connection is plain TCP by default (for the Postfix beside the daemon), or secured
//! ([`Security`]: STARTTLS required, or TLS; rustls, trusting the Mozilla root certificates
//! (webpki-roots) plus an optional `ca_file`), optionally with `AUTH` (`user` and `password`).

use std::path::PathBuf;
use std::time::Duration;

use lettre::Transport;
use lettre::address::{Address, Envelope};
use lettre::transport::smtp::SmtpTransport;
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::transport::smtp::extension::ClientId;

use super::{Secret, Security, Sender, TransportError, read_ca};

/// Where and how to send mail over SMTP.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpConfig {
    pub host: String,
    pub port: u16,
    /// Log in with `AUTH` when set (with `password`).
    #[serde(default)]
    pub user: Option<String>,
    #[serde(default)]
    pub password: Option<Secret>,
    /// The name given in `EHLO` (default: this host's name).
    #[serde(default)]
    pub hello_name: Option<String>,
    /// Seconds to wait for a connection or a reply (default 30).
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    #[serde(default)]
    pub security: Security,
    /// A PEM certificate to trust besides the system's (a self-signed server).
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
}

fn default_timeout() -> u64 {
    30
}

impl SmtpConfig {
    /// A configuration for `host:port` without login.
    pub fn new(host: impl Into<String>, port: u16) -> SmtpConfig {
        SmtpConfig {
            host: host.into(),
            port,
            user: None,
            password: None,
            hello_name: None,
            timeout_secs: default_timeout(),
            security: Security::None,
            ca_file: None,
        }
    }

    fn server(&self) -> String {
        format!("SMTP server {}:{}", self.host, self.port)
    }
}

/// An SMTP server as a [`Sender`].
pub struct SmtpSender {
    cfg: SmtpConfig,
    transport: SmtpTransport,
}

impl std::fmt::Debug for SmtpSender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpSender").field("cfg", &self.cfg).finish()
    }
}

impl SmtpSender {
    /// A sender for `cfg`; nothing is connected until the first message.
    pub fn new(cfg: SmtpConfig) -> Result<SmtpSender, TransportError> {
        let mut b = SmtpTransport::builder_dangerous(cfg.host.clone())
            .port(cfg.port)
            .timeout(Some(Duration::from_secs(cfg.timeout_secs.max(1))));
        match (&cfg.user, &cfg.password) {
            (Some(u), Some(p)) => b = b.credentials(Credentials::new(u.clone(), p.expose().to_owned())),
            (None, None) => {}
            _ => {
                return Err(TransportError::Config(
                    "SMTP `user` and `password` go together: set both or neither".into(),
                ));
            }
        }
        if cfg.security != Security::None {
            let mut p = TlsParameters::builder(cfg.host.clone());
            if let Some(ca) = &cfg.ca_file {
                let cert = Certificate::from_pem(&read_ca(ca)?)
                    .map_err(|e| TransportError::Config(format!("{} is not a PEM certificate: {e}", ca.display())))?;
                p = p.add_root_certificate(cert);
            }
            let p = p.build().map_err(|e| TransportError::Config(format!("TLS for {}: {e}", cfg.server())))?;
            b = b.tls(if cfg.security == Security::Tls { Tls::Wrapper(p) } else { Tls::Required(p) });
        }
        if let Some(name) = &cfg.hello_name {
            b = b.hello_name(ClientId::Domain(name.clone()));
        }
        Ok(SmtpSender { transport: b.build(), cfg })
    }

    fn map_err(&self, e: lettre::transport::smtp::Error) -> TransportError {
        let server = self.cfg.server();
        match e.status() {
            Some(code) => TransportError::Rejected { server, code: u16::from(code), detail: e.to_string() },
            None if is_tls_failure(&e) => TransportError::Tls { server, detail: e.to_string() },
            None if e.is_client() => TransportError::Config(format!("{server}: {e}")),
            None => TransportError::Connection { server, detail: e.to_string() },
        }
    }
}

/// True when the TLS layer refused (lettre reports a failed handshake as a connection error
/// whose source is the TLS library's error, often inside an `io::Error`, whose `source()`
/// skips the error it wraps).
fn is_tls_failure(e: &lettre::transport::smtp::Error) -> bool {
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        let wrapped = s.downcast_ref::<std::io::Error>().and_then(|io| io.get_ref());
        if s.is::<rustls::Error>() || wrapped.is_some_and(|w| w.is::<rustls::Error>()) {
            return true;
        }
        source = s.source();
    }
    e.is_tls()
}

fn address(what: &str, a: &str) -> Result<Address, TransportError> {
    a.parse().map_err(|e| TransportError::Config(format!("the envelope {what} {a:?} is not an address: {e}")))
}

impl Sender for SmtpSender {
    fn send(&mut self, from: &str, to: &[String], raw: &[u8]) -> Result<(), TransportError> {
        let from = if from.is_empty() { None } else { Some(address("sender", from)?) };
        let to = to.iter().map(|t| address("recipient", t)).collect::<Result<Vec<_>, _>>()?;
        let envelope = Envelope::new(from, to)
            .map_err(|e| TransportError::Config(format!("cannot send without an envelope recipient: {e}")))?;
        self.transport.send_raw(&envelope, raw).map(drop).map_err(|e| self.map_err(e))
    }
}
