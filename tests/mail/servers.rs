//! The real-server harness: Dovecot (IMAP, LMTP) and Postfix (SMTP) on loopback.
//!
//! [`servers`] starts both once per test process, on free high ports, from a throwaway
//! configuration under `/tmp/steward-mail-<pid>/` (short: Dovecot's sockets live there): nothing
//! of the system's `/etc/dovecot` or `/etc/postfix` is read for settings. Postfix accepts mail
//! for the domain [`DOMAIN`] from loopback, refuses unknown users (550) and relaying (554), and
//! hands mail to Dovecot over LMTP; Dovecot stores it in per-user Maildirs and serves them over
//! IMAP with plaintext LOGIN, STARTTLS, and IMAPS on a port of its own; Postfix also offers
//! STARTTLS and has an SMTPS port. Both use one certificate for `127.0.0.1`, signed by a throwaway
//! CA made here with `openssl` ([`Servers::ca_file`] trusts it). Users and passwords ([`USERS`], `pw-<user>`) come from a
//! passwd-file written here.
//!
//! Statics are never dropped, so a small watchdog shell started beside the servers stops them
//! (and removes the directory) once the test process has exited, however it exited.
//!
//! Postfix must start as root (as it does in CI); the packages come from `.ci/run`.

use std::fmt::Write as _;
use std::fs;
use std::io::Read;
use std::net::{TcpListener, TcpStream};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use steward::mail::transport::{ImapConfig, Secret, Security, SmtpConfig};

/// The mail domain the servers accept mail for.
pub const DOMAIN: &str = "players.test";

/// The mailboxes that exist (each test uses its own, as tests run in parallel).
pub const USERS: &[&str] = &[
    "referee", "alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "bench", "steward",
    "mod", "racer1", "racer2", "daemon",
];

/// The uid and gid mail is stored under when the harness runs as root (Dovecot refuses root).
const MAIL_UID: u32 = 65534;

const INSTALL: &str = "run .ci/run, which apt-installs dovecot-imapd dovecot-lmtpd postfix \
                       (or: apt-get install -y dovecot-imapd dovecot-lmtpd postfix)";

/// The running servers.
pub struct Servers {
    dir: PathBuf,
    pub imap_port: u16,
    pub imaps_port: u16,
    pub smtp_port: u16,
    pub smtps_port: u16,
}

/// The servers of this test process, started on first use.
pub fn servers() -> &'static Servers {
    static SERVERS: OnceLock<Result<Servers, String>> = OnceLock::new();
    match SERVERS.get_or_init(start) {
        Ok(s) => s,
        Err(e) => panic!("the mail servers did not start: {e}"),
    }
}

impl Servers {
    /// The address of mailbox `user`.
    pub fn address(&self, user: &str) -> String {
        format!("{user}@{DOMAIN}")
    }

    /// The Maildir Dovecot delivers `user`'s mail to.
    pub fn maildir(&self, user: &str) -> PathBuf {
        self.dir.join("mail").join(user).join("Maildir")
    }

    /// The password of mailbox `user`.
    pub fn password(&self, user: &str) -> String {
        format!("pw-{user}")
    }

    /// An IMAP configuration that reads `user`'s inbox.
    pub fn imap(&self, user: &str) -> ImapConfig {
        let mut c = ImapConfig::new("127.0.0.1", self.imap_port, self.address(user), Secret::new(self.password(user)));
        c.timeout_secs = 20;
        c
    }

    /// An SMTP configuration for the Postfix instance.
    pub fn smtp(&self) -> SmtpConfig {
        let mut c = SmtpConfig::new("127.0.0.1", self.smtp_port);
        c.timeout_secs = 20;
        c
    }

    /// The throwaway CA that signed the certificate both servers present.
    pub fn ca_file(&self) -> PathBuf {
        self.dir.join("ca.pem")
    }

    /// [`Servers::imap`] secured with `security` (on the IMAPS port for `Security::Tls`),
    /// trusting the servers' certificate.
    pub fn imap_secure(&self, user: &str, security: Security) -> ImapConfig {
        let mut c = self.imap(user);
        c.security = security;
        c.ca_file = Some(self.ca_file());
        if security == Security::Tls {
            c.port = self.imaps_port;
        }
        c
    }

    /// [`Servers::smtp`] secured with `security` (on the SMTPS port for `Security::Tls`).
    pub fn smtp_secure(&self, security: Security) -> SmtpConfig {
        let mut c = self.smtp();
        c.security = security;
        c.ca_file = Some(self.ca_file());
        if security == Security::Tls {
            c.port = self.smtps_port;
        }
        c
    }

    /// Closes every IMAP connection of `user` from the server side (`doveadm kick`).
    pub fn kick(&self, user: &str) {
        let out = Command::new("doveadm")
            .arg("-c")
            .arg(self.dir.join("dovecot.conf"))
            .args(["kick", &self.address(user)])
            .output()
            .expect("doveadm runs");
        assert!(out.status.success(), "doveadm kick: {}", String::from_utf8_lossy(&out.stderr));
        // The kick signals the user's IMAP processes and returns: wait until Dovecot lists none
        // of them, so that the next command meets a connection the server has closed (else it
        // may still be served by a process about to die, and no reconnect is seen).
        let user = self.address(user);
        for _ in 0..100 {
            let who = Command::new("doveadm")
                .arg("-c")
                .arg(self.dir.join("dovecot.conf"))
                .args(["who", "-1", &user])
                .output()
                .expect("doveadm runs");
            assert!(who.status.success(), "doveadm who: {}", String::from_utf8_lossy(&who.stderr));
            if !String::from_utf8_lossy(&who.stdout).contains(&user) {
                return;
            }
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
        panic!("{user} still connected 5 s after doveadm kick");
    }

    /// The servers' logs, for failure messages.
    pub fn logs(&self) -> String {
        logs(&self.dir)
    }
}

fn logs(dir: &Path) -> String {
    let mut s = String::new();
    for f in ["dovecot.log", "dovecot.out", "postfix.log"] {
        let text = fs::read_to_string(dir.join(f)).unwrap_or_default();
        let tail: Vec<&str> = text.lines().rev().take(30).collect();
        let _ = writeln!(s, "--- {f} (last lines)");
        for l in tail.into_iter().rev() {
            let _ = writeln!(s, "{l}");
        }
    }
    s
}

/// A port nobody listens on now.
fn free_port() -> Result<u16, String> {
    let l = TcpListener::bind("127.0.0.1:0").map_err(|e| format!("no free port on loopback: {e}"))?;
    l.local_addr().map(|a| a.port()).map_err(|e| e.to_string())
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn chown(path: &Path, uid: u32, gid: u32) -> Result<(), String> {
    std::os::unix::fs::chown(path, Some(uid), Some(gid)).map_err(|e| format!("cannot chown {}: {e}", path.display()))
}

fn spawn(cmd: &mut Command, log: &Path) -> Result<Child, String> {
    let out = fs::File::create(log).map_err(|e| e.to_string())?;
    let err = out.try_clone().map_err(|e| e.to_string())?;
    cmd.stdin(Stdio::null()).stdout(out).stderr(err).spawn().map_err(|e| format!("cannot start {cmd:?}: {e}"))
}

fn start() -> Result<Servers, String> {
    for bin in ["/usr/sbin/dovecot", "/usr/lib/dovecot/imap", "/usr/lib/dovecot/lmtp", "/usr/sbin/postfix"] {
        if !Path::new(bin).exists() {
            return Err(format!("{bin} is missing: {INSTALL}"));
        }
    }
    let uid = fs::metadata("/proc/self").map(|m| m.uid()).map_err(|e| e.to_string())?;
    if uid != 0 {
        return Err("Postfix starts only as root: run the mail tests as root (CI does)".into());
    }
    let dir = PathBuf::from(format!("/tmp/steward-mail-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    for d in ["run", "mail", "pf/etc", "pf/queue", "pf/data"] {
        fs::create_dir_all(dir.join(d)).map_err(|e| format!("cannot create {}: {e}", dir.join(d).display()))?;
    }
    chown(&dir.join("mail"), MAIL_UID, MAIL_UID)?;
    let postfix_uid = user_id("postfix").ok_or_else(|| format!("the postfix user is missing: {INSTALL}"))?;
    chown(&dir.join("pf/data"), postfix_uid, 0)?;

    let (imap, imaps, lmtp, smtp, smtps) = (free_port()?, free_port()?, free_port()?, free_port()?, free_port()?);
    // A throwaway CA and the servers' certificate signed by it: rustls (webpki) refuses a CA
    // certificate presented as the server's own.
    let openssl = |args: &[&str]| -> Result<(), String> {
        let out = Command::new("openssl")
            .current_dir(&dir)
            .args(args)
            .output()
            .map_err(|e| format!("cannot run openssl to make the test certificates: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!("openssl {} failed: {}", args[0], String::from_utf8_lossy(&out.stderr)))
        }
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "7",
        "-subj",
        "/CN=steward test CA",
        "-keyout",
        "ca-key.pem",
        "-out",
        "ca.pem",
    ])?;
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-subj",
        "/CN=127.0.0.1",
        "-keyout",
        "key.pem",
        "-out",
        "req.pem",
    ])?;
    write(&dir.join("ext.cnf"), "basicConstraints=critical,CA:FALSE\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n")?;
    openssl(&[
        "x509",
        "-req",
        "-in",
        "req.pem",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca-key.pem",
        "-CAcreateserial",
        "-days",
        "7",
        "-extfile",
        "ext.cnf",
        "-out",
        "cert.pem",
    ])?;
    let d = dir.display();
    let mut users = String::new();
    let mut vmailbox = String::new();
    for u in USERS {
        let _ = writeln!(users, "{u}@{DOMAIN}:{{PLAIN}}pw-{u}:{MAIL_UID}:{MAIL_UID}::{d}/mail/{u}");
        let _ = writeln!(vmailbox, "{u}@{DOMAIN} ok");
    }
    write(&dir.join("users"), &users)?;
    write(&dir.join("dovecot.conf"), &dovecot_conf(&d.to_string(), imap, imaps, lmtp))?;
    write(&dir.join("pf/etc/main.cf"), &postfix_main(&d.to_string(), lmtp))?;
    write(&dir.join("pf/etc/master.cf"), &postfix_master(smtp, smtps))?;
    write(&dir.join("pf/etc/vmailbox"), &vmailbox)?;

    let dovecot =
        spawn(Command::new("dovecot").arg("-F").arg("-c").arg(dir.join("dovecot.conf")), &dir.join("dovecot.out"))?;
    let postfix =
        spawn(Command::new("postfix").arg("-c").arg(dir.join("pf/etc")).arg("start-fg"), &dir.join("postfix.log"))?;
    watchdog(&dir, &[dovecot.id(), postfix.id()])?;

    let mut children = [("dovecot", dovecot), ("postfix", postfix)];
    let deadline = Instant::now() + Duration::from_secs(60);
    for (port, greeting) in [(imap, "* OK"), (smtp, "220 ")] {
        loop {
            if greets(port, greeting) {
                break;
            }
            for (name, c) in &mut children {
                if let Ok(Some(status)) = c.try_wait() {
                    return Err(format!("{name} exited ({status}) while starting\n{}", logs(&dir)));
                }
            }
            if Instant::now() > deadline {
                return Err(format!("port {port} did not answer within a minute\n{}", logs(&dir)));
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    Ok(Servers { dir, imap_port: imap, imaps_port: imaps, smtp_port: smtp, smtps_port: smtps })
}

/// The uid of a system user, from /etc/passwd.
fn user_id(name: &str) -> Option<u32> {
    let text = fs::read_to_string("/etc/passwd").ok()?;
    text.lines().find_map(|l| {
        let mut f = l.split(':');
        (f.next()? == name).then(|| f.nth(1)?.parse().ok())?
    })
}

/// True when something on `port` sends a line starting with `greeting`.
fn greets(port: u16, greeting: &str) -> bool {
    let Ok(mut s) = TcpStream::connect(("127.0.0.1", port)) else { return false };
    let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
    let mut buf = [0u8; 64];
    let n = s.read(&mut buf).unwrap_or(0);
    buf[..n].starts_with(greeting.as_bytes())
}

/// Starts a shell that waits for this process to end, then stops the servers and removes `dir`.
fn watchdog(dir: &Path, pids: &[u32]) -> Result<(), String> {
    let d = dir.display();
    let pids: Vec<String> = pids.iter().map(u32::to_string).collect();
    let script = format!(
        "while kill -0 {me} 2>/dev/null; do sleep 1; done\n\
         postfix -c {d}/pf/etc stop >/dev/null 2>&1\n\
         kill {pids} 2>/dev/null\n\
         sleep 2\n\
         kill -9 {pids} 2>/dev/null\n\
         rm -rf {d}\n",
        me = std::process::id(),
        pids = pids.join(" "),
    );
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map(drop)
        .map_err(|e| format!("cannot start the watchdog shell: {e}"))
}

fn dovecot_conf(d: &str, imap: u16, imaps: u16, lmtp: u16) -> String {
    format!(
        r#"# Throwaway Dovecot for steward's tests (tests/mail/servers.rs).
base_dir = {d}/run
state_dir = {d}/state
log_path = {d}/dovecot.log
instance_name = steward-test-{pid}
protocols = imap lmtp
listen = 127.0.0.1
ssl = yes
ssl_cert = <{d}/cert.pem
ssl_key = <{d}/key.pem
disable_plaintext_auth = no
auth_mechanisms = plain login
default_internal_user = dovecot
default_login_user = dovenull
first_valid_uid = 1
mail_location = maildir:~/Maildir
mail_max_userip_connections = 50
# steward+tag@ is steward@'s mailbox (the signed reply addresses, mail::tag).
recipient_delimiter = +
passdb {{
  driver = passwd-file
  args = scheme=PLAIN username_format=%u {d}/users
}}
userdb {{
  driver = passwd-file
  args = username_format=%u {d}/users
}}
service imap-login {{
  chroot =
  inet_listener imap {{
    address = 127.0.0.1
    port = {imap}
  }}
  inet_listener imaps {{
    address = 127.0.0.1
    port = {imaps}
    ssl = yes
  }}
}}
service lmtp {{
  inet_listener lmtp {{
    address = 127.0.0.1
    port = {lmtp}
  }}
}}
service pop3-login {{
  chroot =
}}
service submission-login {{
  chroot =
}}
"#,
        pid = std::process::id()
    )
}

fn postfix_main(d: &str, lmtp: u16) -> String {
    format!(
        r#"# Throwaway Postfix for steward's tests (tests/mail/servers.rs).
compatibility_level = 3.6
queue_directory = {d}/pf/queue
data_directory = {d}/pf/data
mail_owner = postfix
setgid_group = postdrop
myhostname = mx.steward.test
mydomain = steward.test
myorigin = $myhostname
mydestination =
mynetworks = 127.0.0.1/32
relay_domains =
inet_interfaces = 127.0.0.1
inet_protocols = ipv4
smtpd_relay_restrictions = reject_unauth_destination
smtpd_recipient_restrictions =
smtpd_peername_lookup = no
smtp_dns_support_level = disabled
lmtp_host_lookup = native
virtual_mailbox_domains = {DOMAIN}
virtual_mailbox_maps = texthash:{d}/pf/etc/vmailbox
# steward+tag@ goes to steward@ (the signed reply addresses, mail::tag).
recipient_delimiter = +
virtual_transport = lmtp:inet:127.0.0.1:{lmtp}
alias_maps =
alias_database =
local_recipient_maps =
maillog_file = /dev/stdout
biff = no
append_dot_mydomain = no
delay_warning_time = 0
smtpd_tls_cert_file = {d}/cert.pem
smtpd_tls_key_file = {d}/key.pem
smtpd_tls_security_level = may
"#
    )
}

fn postfix_master(smtp: u16, smtps: u16) -> String {
    let services = [
        format!("127.0.0.1:{smtp} inet n - n - - smtpd"),
        format!("127.0.0.1:{smtps} inet n - n - - smtpd -o smtpd_tls_wrappermode=yes"),
        "tlsmgr unix - - n 1000? 1 tlsmgr".into(),
        "cleanup unix n - n - 0 cleanup".into(),
        "qmgr unix n - n 300 1 qmgr".into(),
        "rewrite unix - - n - - trivial-rewrite".into(),
        "bounce unix - - n - 0 bounce".into(),
        "defer unix - - n - 0 bounce".into(),
        "trace unix - - n - 0 bounce".into(),
        "verify unix - - n - 1 verify".into(),
        "flush unix n - n 1000? 0 flush".into(),
        "proxymap unix - - n - - proxymap".into(),
        "smtp unix - - n - - smtp".into(),
        "relay unix - - n - - smtp".into(),
        "showq unix n - n - - showq".into(),
        "error unix - - n - - error".into(),
        "retry unix - - n - - error".into(),
        "discard unix - - n - - discard".into(),
        "local unix - n n - - local".into(),
        "virtual unix - n n - - virtual".into(),
        "lmtp unix - - n - - lmtp".into(),
        "anvil unix - - n - 1 anvil".into(),
        "scache unix - - n - 1 scache".into(),
        "postlog unix-dgram n - n - 1 postlogd".into(),
    ];
    let mut s = String::from("# Throwaway Postfix for steward's tests (tests/mail/servers.rs).\n");
    for l in services {
        s.push_str(&l);
        s.push('\n');
    }
    s
}
