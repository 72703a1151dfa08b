//! The transports: Maildir round trips and idempotent marking; IMAP and SMTP against the real
//! servers of the harness.

use std::fs;
use std::path::Path;
use std::time::Duration;

use steward::mail::transport::{Inbox, MaildirInbox, MaildirSender, Sender, TransportError, deliver};

use super::scratch;

fn mail(subject: &str) -> Vec<u8> {
    format!("From: a@example.org\nTo: b@example.org\nSubject: {subject}\n\nbody of {subject}\n").into_bytes()
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> =
        fs::read_dir(dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    v.sort();
    v
}

#[test]
fn maildir_inbox_fetches_in_order_and_marks_idempotently() {
    let dir = scratch("inbox-order");
    let mut inbox = MaildirInbox::open(dir.join("box")).unwrap();
    for sub in ["new", "cur", "tmp"] {
        assert!(dir.join("box").join(sub).is_dir(), "{sub}/ is created");
    }
    let keys: Vec<String> = (0..3).map(|i| deliver(&dir.join("box"), &mail(&format!("m{i}"))).unwrap()).collect();
    let got = inbox.fetch(10).unwrap();
    assert_eq!(got.iter().map(|f| f.key.clone()).collect::<Vec<_>>(), keys, "oldest first, keys from deliver");
    assert_eq!(got[1].raw, mail("m1"), "bytes unchanged");

    assert_eq!(inbox.fetch(2).unwrap().len(), 2, "the limit holds");

    inbox.mark_processed(&keys[1]).unwrap();
    inbox.mark_processed(&keys[1]).unwrap();
    let cur = names(&dir.join("box/cur"));
    assert_eq!(cur, vec![format!("{}:2,S", keys[1])], "processed = cur/ with the S flag");
    let left: Vec<String> = inbox.fetch(10).unwrap().into_iter().map(|f| f.key).collect();
    assert_eq!(left, vec![keys[0].clone(), keys[2].clone()]);

    // A fresh handle (a restart) sees the same state and can mark what it never fetched.
    let mut again = MaildirInbox::open(dir.join("box")).unwrap();
    again.mark_processed(&keys[1]).unwrap();
    again.mark_processed(&keys[2]).unwrap();
    again.mark_processed("1.M1P1Q1.gone").unwrap();
    let left: Vec<String> = again.fetch(10).unwrap().into_iter().map(|f| f.key).collect();
    assert_eq!(left, vec![keys[0].clone()]);
    again.mark_processed(&keys[0]).unwrap();
    assert!(again.fetch(10).unwrap().is_empty());
    assert!(names(&dir.join("box/new")).is_empty());
}

#[test]
fn a_message_in_cur_without_the_seen_flag_is_still_unprocessed() {
    let dir = scratch("inbox-cur");
    let mut inbox = MaildirInbox::open(&dir).unwrap();
    fs::write(dir.join("cur/1700000000.M1P1Q1.host:2,F"), mail("flagged")).unwrap();
    fs::write(dir.join("cur/1700000000.M2P1Q1.host:2,RS"), mail("read")).unwrap();
    fs::write(dir.join("new/.hidden"), mail("hidden")).unwrap();
    let got = inbox.fetch(10).unwrap();
    assert_eq!(got.len(), 1, "{got:?}");
    assert_eq!(got[0].key, "1700000000.M1P1Q1.host");
    inbox.mark_processed(&got[0].key).unwrap();
    assert!(dir.join("cur/1700000000.M1P1Q1.host:2,FS").is_file(), "other flags kept, sorted");
    assert!(inbox.fetch(10).unwrap().is_empty());
}

#[test]
fn a_key_that_is_a_path_is_refused() {
    let dir = scratch("inbox-badkey");
    let mut inbox = MaildirInbox::open(&dir).unwrap();
    for bad in ["", "../x", ".hidden", "a/b"] {
        let e = inbox.mark_processed(bad).unwrap_err();
        assert!(matches!(e, TransportError::Config(_)), "{bad}: {e}");
        assert!(!e.is_transient());
    }
}

#[test]
fn wait_returns_once_new_mail_is_there() {
    let dir = scratch("inbox-wait");
    let mut inbox = MaildirInbox::open(&dir).unwrap();
    assert!(inbox.fetch(10).unwrap().is_empty());
    deliver(&dir, &mail("late")).unwrap();
    // Returns at once: a message arrived after the fetch (a 10-minute timeout would hang the test).
    inbox.wait(Duration::from_secs(600)).unwrap();
    assert_eq!(inbox.fetch(10).unwrap().len(), 1);
    inbox.wait(Duration::ZERO).unwrap();
}

#[test]
fn maildir_sender_delivers_one_copy_per_recipient_with_trace_headers() {
    let dir = scratch("sender");
    let mut one = MaildirSender::new(dir.join("all"));
    let to = vec!["p1@example.org".to_owned(), "P2@Example.org".to_owned()];
    one.send("steward@example.org", &to, b"Subject: hi\r\n\r\nboard\r\n").unwrap();
    let mut inbox = MaildirInbox::open(dir.join("all")).unwrap();
    let mut got: Vec<String> =
        inbox.fetch(10).unwrap().into_iter().map(|f| String::from_utf8(f.raw).unwrap()).collect();
    got.sort();
    assert_eq!(
        got,
        vec![
            "Return-Path: <steward@example.org>\r\nDelivered-To: P2@Example.org\r\nSubject: hi\r\n\r\nboard\r\n",
            "Return-Path: <steward@example.org>\r\nDelivered-To: p1@example.org\r\nSubject: hi\r\n\r\nboard\r\n",
        ]
    );

    let mut each = MaildirSender::per_recipient(dir.join("boxes"));
    each.send("", &to, b"Subject: bounce\n\nx\n").unwrap();
    assert_eq!(each.mailbox_of("P2@Example.org"), dir.join("boxes/p2@example.org"));
    for rcpt in &to {
        let mut inbox = MaildirInbox::open(each.mailbox_of(rcpt)).unwrap();
        let got = inbox.fetch(10).unwrap();
        assert_eq!(got.len(), 1);
        let text = String::from_utf8(got[0].raw.clone()).unwrap();
        assert_eq!(text, format!("Return-Path: <>\nDelivered-To: {rcpt}\nSubject: bounce\n\nx\n"));
    }
    assert_eq!(each.mailbox_of("../../etc"), dir.join("boxes/_.._.._etc"));

    let e = one.send("a@b", &[], b"x").unwrap_err();
    assert!(matches!(e, TransportError::Config(_)) && !e.is_transient(), "{e}");
    let e = one.send("a@b\r\nBcc: x", &to, b"x").unwrap_err();
    assert!(matches!(e, TransportError::Config(_)), "{e}");
    assert!(names(&dir.join("all/tmp")).is_empty(), "nothing left in tmp/");
}

#[test]
fn a_missing_maildir_is_a_permanent_error() {
    let dir = scratch("inbox-gone");
    let mut inbox = MaildirInbox::open(dir.join("box")).unwrap();
    fs::remove_dir_all(dir.join("box")).unwrap();
    let e = inbox.fetch(10).unwrap_err();
    assert!(!e.is_transient(), "{e}");
    assert!(e.to_string().contains("box/new"), "{e}");
}

// ---- IMAP and SMTP against the real servers (tests/mail/servers.rs) ----

use steward::mail::transport::{Fetched, ImapInbox, ProcessedMark, SmtpSender};

use super::servers::{Servers, servers};

/// A small mail to `to` with `subject`.
fn letter(s: &Servers, to: &[&str], subject: &str) -> Vec<u8> {
    let to: Vec<String> = to.iter().map(|u| s.address(u)).collect();
    format!(
        "From: referee@steward.test\r\nTo: {}\r\nSubject: {subject}\r\nMessage-ID: <{subject}@steward.test>\r\n\
         Date: Sun, 22 Nov 2026 20:00:00 +0000\r\n\r\nbody of {subject}\r\n",
        to.join(", ")
    )
    .into_bytes()
}

fn send(s: &Servers, to: &[&str], subject: &str) {
    let mut smtp = SmtpSender::new(s.smtp()).unwrap();
    let rcpts: Vec<String> = to.iter().map(|u| s.address(u)).collect();
    smtp.send("referee@steward.test", &rcpts, &letter(s, to, subject)).unwrap();
}

/// Fetches until at least `n` messages are there (Postfix delivers asynchronously), waiting with
/// `Inbox::wait` in between; fails after a minute.
fn fetch_at_least(s: &Servers, inbox: &mut ImapInbox, n: usize) -> Vec<Fetched> {
    for _ in 0..60 {
        let got = inbox.fetch(100).unwrap();
        if got.len() >= n {
            return got;
        }
        inbox.wait(Duration::from_secs(1)).unwrap();
    }
    panic!("fewer than {n} messages arrived in a minute\n{}", s.logs());
}

fn subject_of(f: &Fetched) -> String {
    let text = String::from_utf8_lossy(&f.raw);
    text.lines().find_map(|l| l.strip_prefix("Subject: ")).unwrap_or_default().trim().to_owned()
}

fn uid_of(key: &str) -> u32 {
    key.split_once(':').unwrap().1.parse().unwrap()
}

#[test]
fn smtp_to_two_users_then_imap_fetch_mark_and_new_mail() {
    let s = servers();
    send(s, &["alice", "bob"], "first");
    let mut bob = ImapInbox::connect(s.imap("bob")).unwrap();
    let got = fetch_at_least(s, &mut bob, 1);
    assert_eq!(got.iter().map(subject_of).collect::<Vec<_>>(), ["first"]);

    let mut alice = ImapInbox::connect(s.imap("alice")).unwrap();
    assert!(alice.supports_idle(), "Dovecot announces IDLE");
    let got = fetch_at_least(s, &mut alice, 1);
    assert_eq!(got.len(), 1);
    let first = got[0].clone();
    assert_eq!(subject_of(&first), "first");
    assert!(String::from_utf8_lossy(&first.raw).contains("\r\n\r\nbody of first\r\n"), "the whole message");
    let (validity, uid) = first.key.split_once(':').expect("key = <uidvalidity>:<uid>");
    assert!(validity.parse::<u32>().unwrap() > 0 && uid.parse::<u32>().unwrap() > 0, "{}", first.key);

    // Keys survive a reconnect: a second session, a severed socket, a server-side kick.
    let mut other = ImapInbox::connect(s.imap("alice")).unwrap();
    assert_eq!(other.fetch(10).unwrap(), vec![first.clone()]);
    alice.sever();
    assert_eq!(alice.fetch(10).unwrap(), vec![first.clone()], "fetch after a broken connection");
    assert_eq!(alice.reconnects(), 1);
    s.kick("alice");
    assert_eq!(alice.fetch(10).unwrap(), vec![first.clone()], "fetch after the server hung up");
    assert_eq!(alice.reconnects(), 2);

    // Marking is idempotent and recorded on the server.
    alice.mark_processed(&first.key).unwrap();
    alice.mark_processed(&first.key).unwrap();
    assert!(alice.fetch(10).unwrap().is_empty(), "a second fetch returns nothing");
    assert!(other.fetch(10).unwrap().is_empty(), "another session sees the mark");
    alice.mark_processed(&format!("{validity}:999999")).unwrap();
    alice.mark_processed("1:1").unwrap(); // another UIDVALIDITY: names nothing any more
    assert!(matches!(alice.mark_processed("not-a-key"), Err(TransportError::Config(_))));
    assert_eq!(bob.fetch(10).unwrap().len(), 1, "bob's copy is his own");

    // New mail ends an IDLE wait at once (a 10-minute sleep would hang the test) and is the
    // only one fetched.
    assert!(alice.fetch(10).unwrap().is_empty());
    send(s, &["alice"], "second");
    let mut watcher = ImapInbox::connect(s.imap("alice")).unwrap();
    fetch_at_least(s, &mut watcher, 1);
    alice.wait(Duration::from_secs(600)).unwrap();
    let got = alice.fetch(10).unwrap();
    assert_eq!(got.iter().map(subject_of).collect::<Vec<_>>(), ["second"]);
    assert!(uid_of(&got[0].key) > uid_of(&first.key));
    drop(other);
    let mut fresh = ImapInbox::connect(s.imap("alice")).unwrap();
    assert_eq!(fresh.fetch(10).unwrap(), got, "same key from a new connection");
}

#[test]
fn imap_fetch_is_oldest_first_and_limited() {
    let s = servers();
    for i in 0..5 {
        send(s, &["carol"], &format!("order-{i}"));
    }
    let mut carol = ImapInbox::connect(s.imap("carol")).unwrap();
    let all = fetch_at_least(s, &mut carol, 5);
    let mut uids: Vec<u32> = all.iter().map(|f| uid_of(&f.key)).collect();
    let sorted = {
        uids.sort_unstable();
        uids.clone()
    };
    assert_eq!(all.iter().map(|f| uid_of(&f.key)).collect::<Vec<_>>(), sorted, "oldest (lowest UID) first");
    let two = carol.fetch(2).unwrap();
    assert_eq!(two, all[..2].to_vec());
    // More is waiting: wait returns at once (a 10-minute IDLE would hang the test).
    carol.wait(Duration::from_secs(600)).unwrap();
    for f in &two {
        carol.mark_processed(&f.key).unwrap();
    }
    assert_eq!(carol.fetch(10).unwrap(), all[2..].to_vec());
}

#[test]
fn imap_can_mark_with_the_seen_flag_instead() {
    let s = servers();
    send(s, &["dave"], "seen-mode");
    let mut cfg = s.imap("dave");
    cfg.mark = ProcessedMark::Seen;
    let mut dave = ImapInbox::connect(cfg.clone()).unwrap();
    let got = fetch_at_least(s, &mut dave, 1);
    assert_eq!(dave.fetch(10).unwrap(), got, "fetching does not set \\Seen (BODY.PEEK)");
    dave.mark_processed(&got[0].key).unwrap();
    assert!(ImapInbox::connect(cfg).unwrap().fetch(10).unwrap().is_empty());
    // The keyword mode does not count \Seen: the message is still unprocessed there.
    let mut keyword = ImapInbox::connect(s.imap("dave")).unwrap();
    assert_eq!(keyword.fetch(10).unwrap(), got);
}

#[test]
fn smtp_refusals_are_typed_permanent_or_transient() {
    let s = servers();
    let mut smtp = SmtpSender::new(s.smtp()).unwrap();
    let raw = letter(s, &["erin"], "refused");
    let unknown = smtp.send("referee@steward.test", &[format!("nobody@{}", super::servers::DOMAIN)], &raw).unwrap_err();
    assert!(matches!(unknown, TransportError::Rejected { code: 550, .. }), "{unknown}");
    assert!(!unknown.is_transient(), "{unknown}");
    let relay = smtp.send("referee@steward.test", &["someone@elsewhere.example".to_owned()], &raw).unwrap_err();
    assert!(matches!(relay, TransportError::Rejected { code: 554, .. }), "{relay}");
    assert!(!relay.is_transient() && relay.to_string().contains("Relay access denied"), "{relay}");
    // One refused recipient refuses the whole message: erin gets nothing to be sent twice later.
    let mixed = smtp
        .send("referee@steward.test", &[s.address("erin"), format!("nobody@{}", super::servers::DOMAIN)], &raw)
        .unwrap_err();
    assert!(!mixed.is_transient(), "{mixed}");

    // Nobody listening: transient.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let mut cfg = s.smtp();
    cfg.port = closed;
    let down = SmtpSender::new(cfg).unwrap().send("referee@steward.test", &[s.address("erin")], &raw).unwrap_err();
    assert!(down.is_transient(), "{down}");
    let mut cfg = s.imap("erin");
    cfg.port = closed;
    let down = ImapInbox::connect(cfg).unwrap_err();
    assert!(matches!(down, TransportError::Connect { .. }) && down.is_transient(), "{down}");
}

#[test]
fn a_wrong_imap_password_is_permanent_and_not_printed() {
    let s = servers();
    let mut cfg = s.imap("frank");
    cfg.password = steward::mail::transport::Secret::new("hunter2-wrong");
    assert!(!format!("{cfg:?}").contains("hunter2"), "{cfg:?}");
    let e = ImapInbox::connect(cfg).unwrap_err();
    assert!(matches!(e, TransportError::Login { .. }) && !e.is_transient(), "{e}");
    assert!(!e.to_string().contains("hunter2") && !format!("{e:?}").contains("hunter2"), "{e}");
    let mut cfg = s.imap("frank");
    cfg.mailbox = "NoSuchFolder".into();
    let e = ImapInbox::connect(cfg).unwrap_err();
    assert!(matches!(e, TransportError::Refused { .. }) && !e.is_transient(), "{e}");
}

#[test]
fn starttls_and_tls_on_both_protocols() {
    use steward::mail::transport::Security;
    let s = servers();
    for (i, security) in [Security::StartTls, Security::Tls].into_iter().enumerate() {
        let raw = letter(s, &["grace"], &format!("secure-{i}"));
        SmtpSender::new(s.smtp_secure(security))
            .unwrap()
            .send("referee@steward.test", &[s.address("grace")], &raw)
            .unwrap();
    }
    let mut plain = ImapInbox::connect(s.imap("grace")).unwrap();
    let got = fetch_at_least(s, &mut plain, 2);
    assert_eq!(got.iter().map(subject_of).collect::<Vec<_>>(), ["secure-0", "secure-1"]);
    for security in [Security::StartTls, Security::Tls] {
        let mut inbox = ImapInbox::connect(s.imap_secure("grace", security)).unwrap();
        assert_eq!(inbox.fetch(10).unwrap(), got, "{security:?}: same messages, same keys");
        inbox.sever();
        assert_eq!(inbox.fetch(10).unwrap(), got, "{security:?}: after a reconnect");
        assert!(inbox.supports_idle());
        inbox.wait(Duration::from_millis(50)).unwrap();
    }

    // Without the test certificate the servers are not trusted: a permanent TLS error.
    let mut cfg = s.imap_secure("grace", Security::Tls);
    cfg.ca_file = None;
    let e = ImapInbox::connect(cfg).unwrap_err();
    assert!(matches!(e, TransportError::Tls { .. }) && !e.is_transient(), "{e}");
    let mut cfg = s.smtp_secure(Security::StartTls);
    cfg.ca_file = None;
    let e = SmtpSender::new(cfg).unwrap().send("referee@steward.test", &[s.address("grace")], b"x").unwrap_err();
    assert!(matches!(e, TransportError::Tls { .. }) && !e.is_transient(), "{e}");
    // A CA file that is not there is a configuration error.
    let mut cfg = s.imap_secure("grace", Security::StartTls);
    cfg.ca_file = Some("/nonexistent/ca.pem".into());
    assert!(matches!(ImapInbox::connect(cfg), Err(TransportError::Config(_))));
}

#[test]
fn configurations_read_from_toml_and_never_print_passwords() {
    use steward::mail::transport::{ImapConfig, Security, SmtpConfig};
    let imap: ImapConfig = toml::from_str(
        "host = \"imap.example.org\"\nport = 993\nuser = \"referee\"\npassword = \"s3cret-pw\"\nsecurity = \"tls\"\n",
    )
    .unwrap();
    assert_eq!((imap.mailbox.as_str(), imap.mark, imap.security), ("INBOX", ProcessedMark::Keyword, Security::Tls));
    assert_eq!(imap.password.expose(), "s3cret-pw");
    assert!(!format!("{imap:?}").contains("s3cret"), "{imap:?}");
    let smtp: SmtpConfig = toml::from_str(
        "host = \"smtp.example.org\"\nport = 587\nuser = \"referee\"\npassword = \"s3cret-pw\"\nsecurity = \"starttls\"\n",
    )
    .unwrap();
    assert_eq!(smtp.security, Security::StartTls);
    let sender = SmtpSender::new(smtp).unwrap();
    assert!(!format!("{sender:?}").contains("s3cret"), "{sender:?}");
    let half: SmtpConfig = toml::from_str("host = \"h\"\nport = 25\nuser = \"u\"\n").unwrap();
    assert!(matches!(SmtpSender::new(half), Err(TransportError::Config(_))));
    assert!(
        toml::from_str::<ImapConfig>("host = \"h\"\nport = 1\nuser = \"u\"\npassword = \"p\"\nmark = \"move\"\n")
            .is_err()
    );
}
