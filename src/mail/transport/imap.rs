//! IMAP inbox: the daemon reading a real mailbox (Dovecot, Gmail...) with the `imap` crate.
//!
//! **Key**: `"<uidvalidity>:<uid>"`. A UID names one message for as long as the mailbox keeps
//! its UIDVALIDITY; if the server ever changes it (the mailbox was recreated), old keys name
//! nothing and marking them is a no-op: the daemon's ledger also records each Message-ID, so a
//! message seen again under a new key is still applied once.
//!
//! **Processed** is recorded on the server, by default with the keyword `$StewardDone` (and
//! `\Seen`, so mail clients show the message as read). A keyword rather than `\Seen` alone,
//! because a moderator who opens the mailbox in a webmail marks messages `\Seen` without steward
//! having handled them; a keyword rather than a MOVE, because it is one idempotent `UID STORE`
//! that leaves the UID (and so the key) unchanged. Servers that refuse custom keywords can be
//! configured with `mark = "seen"` (processed = `\Seen`). Fetching uses `BODY.PEEK[]`, which
//! sets no flag.
//!
//! **Failures**: every operation is idempotent (search, fetch, `+FLAGS`), so on a broken
//! connection the inbox reconnects once and repeats it; a second failure is returned, transient.
//! **Waiting** uses IDLE (RFC 2177) when the server announces it, else sleeps.
//!
//! The connection is plain TCP by default (`LOGIN` in the clear: for the Dovecot beside the
//! daemon), or secured ([`Security`]: STARTTLS or TLS, with rustls, trusting the Mozilla root
//! certificates (webpki-roots) plus an optional `ca_file`).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::path::PathBuf;
use std::time::Duration;

use imap::extensions::idle::SetReadTimeout;
use imap::types::{Flag, UnsolicitedResponse};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};

use super::{Fetched, Inbox, Secret, Security, TransportError, read_ca};

/// The keyword that marks a message processed.
pub const PROCESSED_KEYWORD: &str = "$StewardDone";

/// How a processed message is marked on the server.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProcessedMark {
    /// The keyword `$StewardDone` (plus `\Seen`); unprocessed = lacks the keyword.
    #[default]
    Keyword,
    /// `\Seen` only, for servers without custom keywords; unprocessed = unseen.
    Seen,
}

/// Where and how to read mail over IMAP.
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImapConfig {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Secret,
    /// The mailbox to read (default `INBOX`).
    #[serde(default = "default_mailbox")]
    pub mailbox: String,
    #[serde(default)]
    pub mark: ProcessedMark,
    /// Seconds to wait for a connection or a reply (default 30).
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    #[serde(default)]
    pub security: Security,
    /// A PEM certificate to trust besides the system's (a self-signed server).
    #[serde(default)]
    pub ca_file: Option<PathBuf>,
}

fn default_mailbox() -> String {
    "INBOX".to_owned()
}

fn default_timeout() -> u64 {
    30
}

impl ImapConfig {
    /// A configuration for `user` on `host:port`, reading `INBOX`, marking with the keyword.
    pub fn new(host: impl Into<String>, port: u16, user: impl Into<String>, password: Secret) -> ImapConfig {
        ImapConfig {
            host: host.into(),
            port,
            user: user.into(),
            password,
            mailbox: default_mailbox(),
            mark: ProcessedMark::default(),
            timeout_secs: default_timeout(),
            security: Security::None,
            ca_file: None,
        }
    }

    fn server(&self) -> String {
        format!("IMAP server {}:{}", self.host, self.port)
    }

    fn timeout(&self) -> Duration {
        Duration::from_secs(self.timeout_secs.max(1))
    }
}

/// One logged-in connection with the mailbox selected.
struct Conn {
    session: imap::Session<imap::Connection>,
    /// The same socket, to change timeouts and to shut it down.
    socket: TcpStream,
    uid_validity: u32,
    idle: bool,
}

/// An IMAP mailbox read as an [`Inbox`].
pub struct ImapInbox {
    cfg: ImapConfig,
    conn: Option<Conn>,
    /// The last fetch left unprocessed messages behind (it hit its limit).
    more: bool,
    reconnects: u64,
}

impl std::fmt::Debug for ImapInbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ImapInbox").field("cfg", &self.cfg).field("connected", &self.conn.is_some()).finish()
    }
}

/// True for errors after which the connection cannot be trusted: reconnect.
fn broken(e: &imap::Error) -> bool {
    !matches!(e, imap::Error::No(_) | imap::Error::Bad(_) | imap::Error::Validate(_))
}

/// Maps an IMAP error in `command` to a transport error.
fn map_err(cfg: &ImapConfig, command: &str, e: imap::Error) -> TransportError {
    let server = cfg.server();
    match e {
        imap::Error::No(no) => {
            let detail = no.information;
            let transient = ["[UNAVAILABLE]", "[INUSE]", "[LIMIT]", "[SERVERBUG]", "try again"]
                .iter()
                .any(|w| detail.to_ascii_lowercase().contains(&w.to_ascii_lowercase()));
            TransportError::Refused { server, command: command.to_owned(), detail, transient }
        }
        imap::Error::Bad(bad) => {
            TransportError::Refused { server, command: command.to_owned(), detail: bad.information, transient: false }
        }
        imap::Error::Validate(v) => TransportError::Config(format!("{command}: {v}")),
        other => TransportError::Connection { server, detail: format!("{command}: {other}") },
    }
}

/// Opens a connection: TCP, greeting, LOGIN, CAPABILITY, SELECT.
fn open(cfg: &ImapConfig) -> Result<Conn, TransportError> {
    let server = cfg.server();
    let addrs: Vec<_> = (cfg.host.as_str(), cfg.port)
        .to_socket_addrs()
        .map_err(|source| TransportError::Connect { server: server.clone(), source })?
        .collect();
    let mut last = std::io::Error::new(std::io::ErrorKind::NotFound, "the host name has no address");
    let mut stream = None;
    for a in &addrs {
        match TcpStream::connect_timeout(a, cfg.timeout()) {
            Ok(s) => {
                stream = Some(s);
                break;
            }
            Err(e) => last = e,
        }
    }
    let stream = stream.ok_or(TransportError::Connect { server: server.clone(), source: last })?;
    let setup = |s: &TcpStream| {
        s.set_read_timeout(Some(cfg.timeout()))?;
        s.set_write_timeout(Some(cfg.timeout()))?;
        s.set_nodelay(true)?;
        s.try_clone()
    };
    let socket = setup(&stream).map_err(|source| TransportError::Connect { server: server.clone(), source })?;
    let stream: imap::Connection = match cfg.security {
        Security::None => Box::new(stream),
        Security::Tls => Box::new(tls_wrap(cfg, stream)?),
        Security::StartTls => {
            let mut stream = stream;
            starttls(cfg, &mut stream)?;
            Box::new(tls_wrap(cfg, stream)?)
        }
    };
    let mut client = imap::Client::new(stream);
    if cfg.security != Security::StartTls {
        client.read_greeting().map_err(|e| map_err(cfg, "the greeting", e))?;
    }
    let mut session = client.login(&cfg.user, cfg.password.expose()).map_err(|(e, _)| match e {
        imap::Error::No(no) => {
            TransportError::Login { server: server.clone(), user: cfg.user.clone(), detail: no.information }
        }
        imap::Error::Bad(bad) => {
            TransportError::Login { server: server.clone(), user: cfg.user.clone(), detail: bad.information }
        }
        e => map_err(cfg, "LOGIN", e),
    })?;
    let idle = session.capabilities().map_err(|e| map_err(cfg, "CAPABILITY", e))?.has_str("IDLE");
    let mailbox = session.select(&cfg.mailbox).map_err(|e| map_err(cfg, &format!("SELECT {}", cfg.mailbox), e))?;
    if cfg.mark == ProcessedMark::Keyword
        && !mailbox
            .permanent_flags
            .iter()
            .any(|f| matches!(f, Flag::MayCreate) || matches!(f, Flag::Custom(k) if k == PROCESSED_KEYWORD))
    {
        return Err(TransportError::Config(format!(
            "{server} does not keep the keyword {PROCESSED_KEYWORD} in {}: set mark = \"seen\"",
            cfg.mailbox
        )));
    }
    Ok(Conn { session, socket, uid_validity: mailbox.uid_validity.unwrap_or(0), idle })
}

/// A TLS connection to the IMAP server (rustls: no system TLS library is needed to build).
struct TlsConn(rustls::StreamOwned<rustls::ClientConnection, TcpStream>);

impl Read for TlsConn {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.0.read(buf)
    }
}

impl Write for TlsConn {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

impl SetReadTimeout for TlsConn {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> imap::error::Result<()> {
        self.0.sock.set_read_timeout(timeout).map_err(imap::error::Error::Io)
    }
}

/// Wraps `stream` in TLS and completes the handshake, checking the server's certificate against
/// the Mozilla roots (webpki-roots) and `ca_file`.
fn tls_wrap(cfg: &ImapConfig, mut stream: TcpStream) -> Result<TlsConn, TransportError> {
    let tls_err = |detail: String| TransportError::Tls { server: cfg.server(), detail };
    let mut roots = rustls::RootCertStore { roots: webpki_roots::TLS_SERVER_ROOTS.to_vec() };
    if let Some(ca) = &cfg.ca_file {
        let not_pem = |e: String| TransportError::Config(format!("{} is not a PEM certificate: {e}", ca.display()));
        let certs = CertificateDer::pem_slice_iter(&read_ca(ca)?)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| not_pem(e.to_string()))?;
        if certs.is_empty() {
            return Err(not_pem("no certificate in it".into()));
        }
        for cert in certs {
            roots.add(cert).map_err(|e| not_pem(e.to_string()))?;
        }
    }
    let config =
        rustls::ClientConfig::builder_with_provider(std::sync::Arc::new(rustls::crypto::ring::default_provider()))
            .with_safe_default_protocol_versions()
            .map_err(|e| tls_err(e.to_string()))?
            .with_root_certificates(roots)
            .with_no_client_auth();
    let name = ServerName::try_from(cfg.host.clone())
        .map_err(|e| TransportError::Config(format!("{:?} is not a host name for TLS: {e}", cfg.host)))?;
    let mut conn =
        rustls::ClientConnection::new(std::sync::Arc::new(config), name).map_err(|e| tls_err(e.to_string()))?;
    while conn.is_handshaking() {
        conn.complete_io(&mut stream).map_err(|e| match e.kind() {
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut => {
                TransportError::Connection { server: cfg.server(), detail: "the TLS handshake timed out".into() }
            }
            _ => tls_err(e.to_string()),
        })?;
    }
    Ok(TlsConn(rustls::StreamOwned::new(conn, stream)))
}

/// Reads one line (up to CR LF) byte by byte, so nothing after it is consumed before TLS.
fn read_line(stream: &mut TcpStream) -> std::io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    while !line.ends_with(b"\r\n") {
        if stream.read(&mut byte)? == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        line.push(byte[0]);
        if line.len() > 64 * 1024 {
            return Err(std::io::Error::other("the server's line is too long"));
        }
    }
    Ok(String::from_utf8_lossy(&line).into_owned())
}

/// Reads the greeting and asks for STARTTLS (RFC 3501 6.2.1) on the plain connection.
fn starttls(cfg: &ImapConfig, stream: &mut TcpStream) -> Result<(), TransportError> {
    let broken =
        |e: std::io::Error| TransportError::Connection { server: cfg.server(), detail: format!("STARTTLS: {e}") };
    let greeting = read_line(stream).map_err(broken)?;
    if !greeting.starts_with("* OK") {
        return Err(TransportError::Refused {
            server: cfg.server(),
            command: "the connection".into(),
            detail: greeting.trim_end().to_owned(),
            transient: greeting.starts_with("* BYE"),
        });
    }
    stream.write_all(b"s0 STARTTLS\r\n").map_err(broken)?;
    loop {
        let line = read_line(stream).map_err(broken)?;
        if line.starts_with("s0 OK") {
            return Ok(());
        }
        if line.starts_with("s0 ") {
            return Err(TransportError::Tls {
                server: cfg.server(),
                detail: format!("the server does not offer STARTTLS ({})", line.trim_end()),
            });
        }
    }
}

/// A UID set in IMAP syntax, with runs folded into ranges (`1:5,9`).
fn uid_set(uids: &[u32]) -> String {
    let mut out = String::new();
    let mut i = 0;
    while i < uids.len() {
        let start = uids[i];
        let mut end = start;
        while i + 1 < uids.len() && uids[i + 1] == end + 1 {
            i += 1;
            end = uids[i];
        }
        if !out.is_empty() {
            out.push(',');
        }
        if start == end {
            out.push_str(&start.to_string());
        } else {
            out.push_str(&format!("{start}:{end}"));
        }
        i += 1;
    }
    out
}

impl ImapInbox {
    /// Connects, logs in and selects the mailbox now, so a bad address, password or mailbox is
    /// reported at start-up.
    pub fn connect(cfg: ImapConfig) -> Result<ImapInbox, TransportError> {
        let conn = open(&cfg)?;
        Ok(ImapInbox { cfg, conn: Some(conn), more: false, reconnects: 0 })
    }

    /// An inbox that connects on its first call: for the long-running daemon when the server
    /// cannot be reached at start-up (it may be starting too), whose failed passes are then
    /// waited out like any other ([`crate::judge::daemon::serve`]).
    pub fn unconnected(cfg: ImapConfig) -> ImapInbox {
        ImapInbox { cfg, conn: None, more: false, reconnects: 0 }
    }

    /// How many times a broken connection was replaced.
    pub fn reconnects(&self) -> u64 {
        self.reconnects
    }

    /// Whether the server announced IDLE (on the current connection).
    pub fn supports_idle(&self) -> bool {
        self.conn.as_ref().is_some_and(|c| c.idle)
    }

    /// Shuts the socket down without logging out, as a network failure would; the next call
    /// reconnects. For tests of the recovery path.
    pub fn sever(&mut self) {
        if let Some(c) = &self.conn {
            let _ = c.socket.shutdown(Shutdown::Both);
        }
    }

    /// Runs `op` on a connection, reconnecting and repeating it once if the connection broke.
    fn run<R>(
        &mut self,
        command: &str,
        mut op: impl FnMut(&mut Conn) -> Result<R, imap::Error>,
    ) -> Result<R, TransportError> {
        for attempt in 0..2 {
            if self.conn.is_none() {
                self.conn = Some(open(&self.cfg)?);
                self.reconnects += 1;
            }
            let conn = self.conn.as_mut().expect("connected above");
            match op(conn) {
                Ok(r) => return Ok(r),
                Err(e) if broken(&e) => {
                    self.conn = None;
                    if attempt == 1 {
                        return Err(map_err(&self.cfg, command, e));
                    }
                }
                Err(e) => return Err(map_err(&self.cfg, command, e)),
            }
        }
        unreachable!("the loop returns on its second attempt")
    }
}

impl Inbox for ImapInbox {
    fn fetch(&mut self, limit: usize) -> Result<Vec<Fetched>, TransportError> {
        let query = match self.cfg.mark {
            ProcessedMark::Keyword => format!("UNDELETED UNKEYWORD {PROCESSED_KEYWORD}"),
            ProcessedMark::Seen => "UNDELETED UNSEEN".to_owned(),
        };
        let mut more = false;
        let out = self.run("UID SEARCH/FETCH", |c| {
            let mut uids: Vec<u32> = c.session.uid_search(&query)?.into_iter().collect();
            uids.sort_unstable();
            more = uids.len() > limit;
            uids.truncate(limit);
            let mut out = Vec::with_capacity(uids.len());
            if !uids.is_empty() {
                let fetches = c.session.uid_fetch(uid_set(&uids), "(UID INTERNALDATE BODY.PEEK[])")?;
                let mut by_uid: HashMap<u32, (Vec<u8>, Option<i64>)> = fetches
                    .iter()
                    .filter_map(|f| {
                        let raw = f.body().map(<[u8]>::to_vec).unwrap_or_default();
                        Some((f.uid?, (raw, f.internal_date().map(|d| d.timestamp()))))
                    })
                    .collect();
                // In UID order (the order the server received them); a message expunged
                // meanwhile is simply absent.
                for uid in uids {
                    if let Some((raw, arrived)) = by_uid.remove(&uid) {
                        out.push(Fetched { key: format!("{}:{uid}", c.uid_validity), raw, arrived });
                    }
                }
            }
            // The EXISTS/RECENT/FETCH news that came with the replies is now stale.
            c.session.take_all_unsolicited().for_each(drop);
            Ok(out)
        })?;
        self.more = more;
        Ok(out)
    }

    fn mark_processed(&mut self, key: &str) -> Result<(), TransportError> {
        let parsed = key.split_once(':').and_then(|(v, u)| Some((v.parse::<u32>().ok()?, u.parse::<u32>().ok()?)));
        let Some((validity, uid)) = parsed.filter(|&(_, u)| u > 0) else {
            return Err(TransportError::Config(format!("{key:?} is not an IMAP message key (<uidvalidity>:<uid>)")));
        };
        let flags = match self.cfg.mark {
            ProcessedMark::Keyword => format!("+FLAGS.SILENT ({PROCESSED_KEYWORD} \\Seen)"),
            ProcessedMark::Seen => "+FLAGS.SILENT (\\Seen)".to_owned(),
        };
        self.run("UID STORE", |c| {
            if c.uid_validity != validity {
                return Ok(()); // the mailbox was recreated: the key names nothing any more
            }
            c.session.uid_store(uid.to_string(), &flags)?;
            c.session.take_all_unsolicited().for_each(drop);
            Ok(())
        })
    }

    fn wait(&mut self, timeout: Duration) -> Result<(), TransportError> {
        if timeout < Duration::from_millis(1) || self.more {
            return Ok(());
        }
        if self.conn.is_none() {
            self.run("reconnect", |_| Ok(()))?;
        }
        let conn = self.conn.as_mut().expect("connected above");
        // Mail announced since the last fetch (an EXISTS with an earlier reply): no need to wait.
        if conn.session.take_all_unsolicited().any(|r| matches!(r, UnsolicitedResponse::Exists(_))) {
            return Ok(());
        }
        if !conn.idle {
            std::thread::sleep(timeout);
            return Ok(());
        }
        let outcome =
            conn.session.idle().timeout(timeout).keepalive(false).wait_while(imap::extensions::idle::stop_on_any);
        let restored = conn.socket.set_read_timeout(Some(self.cfg.timeout()));
        if outcome.is_err() || restored.is_err() {
            // The next call reconnects; pause so a server that keeps dropping IDLE is not hammered.
            self.conn = None;
            std::thread::sleep(timeout.min(Duration::from_secs(1)));
        }
        Ok(())
    }
}

impl Drop for ImapInbox {
    fn drop(&mut self) {
        if let Some(mut c) = self.conn.take() {
            let _ = c.session.logout();
        }
    }
}
