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
