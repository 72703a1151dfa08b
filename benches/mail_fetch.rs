//! Mail-fetch benchmarks: 1,000 small order mails read from a Maildir and from the local IMAP
//! server (Dovecot, started by the test harness `tests/mail/servers.rs`, so this needs root and
//! the packages `.ci/run` installs), through `Inbox`, against a plain IMAP `UID FETCH 1:* RFC822`
//! of the same mails on the same connection kind.
//!
//! Two measures each: `fetch` (one `fetch(1000)`, nothing marked, so it repeats) and
//! `fetch+mark` (the daemon's loop: fetch all, mark each processed; the marks are undone between
//! samples, outside the timing). `cargo bench --features bench --bench mail_fetch`.
//!
//! Measured on 2026-11-22 (2 shared cores, Dovecot 2.3.19 on loopback, plain TCP): Maildir
//! fetch 8.7 ms, IMAP `Inbox::fetch` 44.5 ms against 39.6 ms for the plain `UID FETCH` (1.12
//! times: the `UID SEARCH` and the copy into `Fetched`); fetch+mark: Maildir 26.6 ms (it was
//! 4.3 s while each mark was flushed to disk), IMAP 209 ms (one `UID STORE` round trip each).
//!
//! Over TLS too (IMAPS, on the harness's TLS port): `imaps Inbox::fetch` and `imaps connect and
//! log in` (the handshake and the login, paid once a connection). On 2026-11-28, rustls's own
//! code unoptimised as the release profile now builds it: IMAPS fetch 17.9 ms, connect and log in
//! 16.7 ms, against 24.2 ms and 15.3 ms with it optimised, run just after (plain IMAP's fetch moved
//! 16.9 → 26.5 ms between the same two runs: the difference is the machine's noise).

use std::fs;
use std::hint::black_box;
use std::net::TcpStream;
use std::path::Path;
use std::time::Duration;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use steward::mail::transport::{ImapInbox, Inbox, MaildirInbox, Security, deliver};

#[allow(dead_code)]
#[path = "../tests/mail/servers.rs"]
mod servers;

const MAILS: usize = 1000;
const USER: &str = "bench";

/// Order mail number `i` (about 400 bytes, like a player's order).
fn order_mail(i: usize) -> Vec<u8> {
    format!(
        "From: player{n}@players.test\r\nTo: referee@steward.test\r\nSubject: Re: monaco turn {i}\r\n\
         Message-ID: <order-{i}@players.test>\r\nDate: Sun, 22 Nov 2026 20:00:00 +0000\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n\
         GAME monaco TURN {i} CAR {n} TOKEN 7f3a9c01\r\nGEAR 4\r\nTAKE B\r\n\r\n-- \r\nsent from a phone\r\n",
        n = i % 10
    )
    .into_bytes()
}

/// Moves every message of the Maildir back to `new/` (undoes the marks).
fn unmark_maildir(dir: &Path) {
    for e in fs::read_dir(dir.join("cur")).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let unique = name.split(':').next().unwrap().to_owned();
        fs::rename(e.path(), dir.join("new").join(unique)).unwrap();
    }
}

fn plain_session(s: &servers::Servers) -> imap::Session<TcpStream> {
    let stream = TcpStream::connect(("127.0.0.1", s.imap_port)).unwrap();
    let mut client = imap::Client::new(stream);
    client.read_greeting().unwrap();
    let mut session = client.login(s.address(USER), s.password(USER)).map_err(|(e, _)| e).unwrap();
    session.select("INBOX").unwrap();
    session
}

fn benches(c: &mut Criterion) {
    // The Maildir.
    let dir = std::env::temp_dir().join(format!("steward-bench-maildir-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    for i in 0..MAILS {
        deliver(&dir, &order_mail(i)).unwrap();
    }
    // The IMAP mailbox, filled by APPEND (the same bytes; SMTP delivery is not what is measured).
    let s = servers::servers();
    let mut plain = plain_session(s);
    for i in 0..MAILS {
        plain.append("INBOX", &order_mail(i)).finish().unwrap();
    }

    let mut g = c.benchmark_group("fetch 1000 order mails");
    g.sample_size(10).measurement_time(Duration::from_secs(10)).warm_up_time(Duration::from_secs(1));
    let mut maildir = MaildirInbox::open(&dir).unwrap();
    g.bench_function("maildir Inbox::fetch", |b| {
        b.iter(|| {
            let got = maildir.fetch(MAILS).unwrap();
            assert_eq!(got.len(), MAILS);
            black_box(got)
        })
    });
    let mut imap_inbox = ImapInbox::connect(s.imap(USER)).unwrap();
    g.bench_function("imap Inbox::fetch", |b| {
        b.iter(|| {
            let got = imap_inbox.fetch(MAILS).unwrap();
            assert_eq!(got.len(), MAILS);
            black_box(got)
        })
    });
    // The same over TLS (IMAPS): what a deployed daemon does, rustls's record layer included;
    // and a connection's set-up, the TLS handshake and the login, which a daemon pays once a pass.
    let mut imaps_inbox = ImapInbox::connect(s.imap_secure(USER, Security::Tls)).unwrap();
    g.bench_function("imaps Inbox::fetch", |b| {
        b.iter(|| {
            let got = imaps_inbox.fetch(MAILS).unwrap();
            assert_eq!(got.len(), MAILS);
            black_box(got)
        })
    });
    g.bench_function("imaps connect and log in", |b| {
        b.iter(|| black_box(ImapInbox::connect(s.imap_secure(USER, Security::Tls)).unwrap()))
    });
    g.bench_function("imap plain UID FETCH 1:* RFC822", |b| {
        b.iter(|| {
            let got = plain.uid_fetch("1:*", "RFC822").unwrap();
            assert_eq!(got.len(), MAILS);
            let bytes: usize = got.iter().map(|f| f.body().map_or(0, <[u8]>::len)).sum();
            black_box(bytes)
        })
    });
    g.bench_function("maildir fetch+mark", |b| {
        b.iter_batched(
            || unmark_maildir(&dir),
            |()| {
                for f in maildir.fetch(MAILS).unwrap() {
                    maildir.mark_processed(&f.key).unwrap();
                }
            },
            BatchSize::PerIteration,
        )
    });
    g.bench_function("imap fetch+mark", |b| {
        b.iter_batched(
            || {
                plain.uid_store("1:*", "-FLAGS.SILENT ($StewardDone \\Seen)").unwrap();
            },
            |()| {
                for f in imap_inbox.fetch(MAILS).unwrap() {
                    imap_inbox.mark_processed(&f.key).unwrap();
                }
            },
            BatchSize::PerIteration,
        )
    });
    g.finish();
    let _ = fs::remove_dir_all(&dir);
}

criterion_group!(mail, benches);
criterion_main!(mail);
