//! Thousands of malformed mails: fixtures mutated byte by byte, cut, spliced, and random text,
//! through `Incoming::parse`, the order parser and the receipt. Nothing may panic, and every
//! receipt stays within 78 columns. Then 10,000 generated mails through the daemon itself
//! (`daemon_fuzz`): every pass completes, every mail is recorded, no reply is over the cap.

use proptest::prelude::*;
use steward::mail::message::{Incoming, clean_body, html_to_text, unflow};
use steward::orders::{RECEIPT_WIDTH, parse, receipt};
use steward::words::Lang;

use crate::support::root;

fn fixtures() -> Vec<Vec<u8>> {
    let mut v: Vec<Vec<u8>> = std::fs::read_dir(root().join("tests/mail/fixtures"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().extension().is_some_and(|x| x == "eml"))
        .map(|e| std::fs::read(e.path()).unwrap())
        .collect();
    v.sort();
    assert!(v.len() >= 10);
    v
}

fn check_text(text: &str) {
    let p = parse(text);
    let _ = p.orders();
    for lang in [Lang::En, Lang::Fr] {
        let r = receipt(&p, lang);
        for l in r.lines() {
            assert!(l.chars().count() <= RECEIPT_WIDTH, "{} columns: {l:?}", l.chars().count());
            assert!(!l.chars().any(|c| c.is_control()), "control character in {l:?}");
        }
    }
}

fn check_mail(raw: &[u8]) {
    if let Ok(m) = Incoming::parse(raw) {
        let _ = m.loop_reason();
        check_text(&m.body);
        check_text(&m.full_body);
    }
}

/// An HTML-only mail whose body is `html`, as a client would send it.
fn html_mail(html: &str) -> Vec<u8> {
    format!(
        "From: bomb@fuzz.invalid\r\nTo: steward@fuzz.invalid\r\nSubject: b\r\nMessage-ID: <b@fuzz.invalid>\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
    )
    .into_bytes()
}

/// HTML bombs (issue 45, item 7): nesting that made the text grow with the square of the depth
/// (a 515 KB mail exhausted memory and aborted the daemon on every restart), and other
/// shapes a converter can blow up on. Each mail's text stays within a fixed multiple of its
/// bytes, and orders before the bomb are still read.
#[test]
fn html_bombs_turn_into_text_linear_in_their_bytes() {
    let depth = 40_000;
    let bombs = [
        format!("GEAR 3<br>{}", "<blockquote>x".repeat(depth)),
        format!("GEAR 3<br>{}", "<blockquote><p>x</p>".repeat(depth)),
        format!("GEAR 3<br>{}{}", "<blockquote>".repeat(depth), "x<br>".repeat(depth)),
        format!("GEAR 3<br>{}", "<div>&amp;</div>".repeat(depth)),
        format!("GEAR 3<br>{}", "<br>".repeat(depth * 4)),
        format!("GEAR 3<br><style>{}", "<".repeat(depth)),
        format!("GEAR 3<br>{}", "<blockquote".repeat(depth)),
    ];
    for html in &bombs {
        let raw = html_mail(html);
        let m = Incoming::parse(&raw).expect("an HTML mail is read");
        assert!(
            m.full_body.len() <= 20 * raw.len() + 1024,
            "{} bytes of text from {} bytes",
            m.full_body.len(),
            raw.len()
        );
        assert!(m.text_bytes >= html.len() / 2, "the size limit sees the HTML's bytes");
        assert!(m.body.lines().next().is_some_and(|l| l.trim() == "GEAR 3"), "{:?}", &m.body[..m.body.len().min(80)]);
        let text = html_to_text(html);
        assert!(text.len() <= 20 * html.len() + 1024);
        check_text(&m.body);
    }
}

/// A mutation of a fixture: byte flips, insertions of mail-ish fragments, deletions, a cut.
#[derive(Clone, Debug)]
enum Edit {
    Set(usize, u8),
    Insert(usize, &'static str),
    Delete(usize, usize),
    Cut(usize),
}

const FRAGMENTS: &[&str] = &[
    "\r\n",
    "\r\n\r\n",
    "--",
    "=?UTF-8?B?",
    "=?ISO-8859-1?Q?=E9",
    "=",
    "=\r\n",
    "Content-Type: multipart/mixed; boundary=\"x\"\r\n",
    "Content-Transfer-Encoding: base64\r\n",
    "charset=utf-16",
    "<blockquote>",
    "<br>",
    "&#x1F600;",
    "&#99999999;",
    "> ",
    "-- \r\n",
    "GEAR 9\r\n",
    "SETUP tyres=99",
    "JOIN g PHRASE ",
    "\u{0}",
    "\u{202e}",
    "é",
    "\t",
];

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(i, b)| Edit::Set(i, b)),
        (any::<usize>(), prop::sample::select(FRAGMENTS)).prop_map(|(i, f)| Edit::Insert(i, f)),
        (any::<usize>(), 1usize..64).prop_map(|(i, n)| Edit::Delete(i, n)),
        any::<usize>().prop_map(Edit::Cut),
    ]
}

fn apply(mut raw: Vec<u8>, edits: &[Edit]) -> Vec<u8> {
    for e in edits {
        let len = raw.len().max(1);
        match *e {
            Edit::Set(i, b) => {
                if !raw.is_empty() {
                    raw[i % len] = b;
                }
            }
            Edit::Insert(i, f) => {
                let at = i % (raw.len() + 1);
                raw.splice(at..at, f.bytes());
            }
            Edit::Delete(i, n) => {
                let at = i % len;
                let end = (at + n).min(raw.len());
                if at < end {
                    raw.drain(at..end);
                }
            }
            Edit::Cut(i) => raw.truncate(i % len),
        }
    }
    raw
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_mails_never_panic(which in any::<usize>(), edits in prop::collection::vec(edit(), 1..12)) {
        let all = fixtures();
        let raw = apply(all[which % all.len()].clone(), &edits);
        check_mail(&raw);
    }

    #[test]
    fn random_bytes_never_panic(raw in prop::collection::vec(any::<u8>(), 0..2000)) {
        check_mail(&raw);
    }

    #[test]
    fn random_text_never_panics(text in "(\\PC|[\\r\\n\\t >=&<;#]){0,600}") {
        check_text(&text);
        check_text(&clean_body(&text));
        check_text(&html_to_text(&text));
        check_text(&unflow(&text, true));
        check_text(&clean_body(&unflow(&text, false)));
    }

    #[test]
    fn order_like_lines_never_panic(
        lines in prop::collection::vec(
            (prop::sample::select(&[
                "GEAR", "VITESSE", "CHOOSE", "JOIN", "SETUP", "PIT", "STAND", "POLICY", "CONSIGNE", "CREATE",
                "REPLACE", "FORCE", "HISTORY", "LANG", "TURN", "CAR", "TOKEN", "GAME", "END", "RÉVÉLER", "geer",
            ][..]), "( ([a-zA-Z0-9=:,;<>@.-]{0,12}|ELSE|SINON|REPAIR|TYRES|CAR|PHRASE|é)){0,10}"),
            0..20,
        )
    ) {
        let text: String = lines.iter().map(|(k, rest)| format!("{k}{rest}\n")).collect();
        check_text(&text);
    }
}

/// The daemon itself against 10,000 generated mails (issue 13): shapes of real clients (plain,
/// quoted-printable, base64, HTML only, multipart with attachments, format=flowed, Latin-1)
/// carrying orders for a running game, from its players, its moderator, strangers and
/// addresses no mail can go to, with hostile headers (bad Reply-To, list and auto-reply
/// headers, huge subjects and ids, repeated Message-IDs), sizes up to 50,000 lines, and
/// byte-level mutations of all of it. Holds: no panic and no failed message, every pass
/// completes, every message gets its ledger entry, no reply above `MAX_REPLY_BYTES`.
mod daemon_fuzz {
    use std::collections::HashMap;

    use steward::judge::config::{ModeratorConfig, ServeConfig, moderator_token_hash};
    use steward::judge::daemon::Daemon;
    use steward::judge::outbox::{Deliver, Delivery};
    use steward::mail::limits::MAX_REPLY_BYTES;
    use steward::mail::transport::{Fetched, Inbox, TransportError};
    use steward::store::fsio::Durability;
    use steward::store::{Join, Meta, NewGame, Stamp, Store};

    use super::{Edit, FRAGMENTS, apply, fixtures};
    use crate::mail::scratch;

    const MAILS: usize = 10_000;
    const BATCH: usize = 250;
    const MOD: &str = "mod@test.invalid";
    const MOD_TOKEN: &str = "fuzz-moderator";
    /// The two players' tokens: long and distinctive, so any copy of one in a reply is found.
    const TOKENS: [&str; 2] = ["5f3a9c0e1d2b4a6f8e7d6c5b4a3f2e1d", "9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b"];

    /// splitmix64: a fixed sequence, so a failure can be replayed.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
        fn pick(&mut self, v: &[&'static str]) -> &'static str {
            v[self.below(v.len())]
        }
        fn chance(&mut self, percent: usize) -> bool {
            self.below(100) < percent
        }
    }

    struct MemoryInbox {
        mails: Vec<Fetched>,
        done: std::collections::HashSet<String>,
    }

    impl Inbox for MemoryInbox {
        fn fetch(&mut self, limit: usize) -> Result<Vec<Fetched>, TransportError> {
            Ok(self.mails.iter().filter(|m| !self.done.contains(&m.key)).take(limit).cloned().collect())
        }
        fn mark_processed(&mut self, key: &str) -> Result<(), TransportError> {
            self.done.insert(key.to_string());
            Ok(())
        }
        fn wait(&mut self, _: std::time::Duration) -> Result<(), TransportError> {
            Ok(())
        }
    }

    /// Delivery that keeps only what the checks need: the largest reply and who got mail.
    #[derive(Default)]
    struct Counting {
        largest: usize,
        sent: usize,
        to: HashMap<String, usize>,
    }

    impl Deliver for Counting {
        fn deliver(&mut self, id: &str, _: &str, to: &[String], raw: &[u8]) -> Delivery {
            assert!(raw.len() <= MAX_REPLY_BYTES, "reply {id} is {} bytes", raw.len());
            // No token in any mail (no welcome is sent here: the players joined before): the
            // decoded subject and every text part, so an encoding cannot hide one.
            let m = mail_parser::MessageParser::default().parse(raw).expect("steward's replies parse");
            let mut seen = m.subject().unwrap_or_default().to_string();
            for i in 0..m.text_body_count() {
                seen.push_str(&m.body_text(i).unwrap_or_default());
            }
            for i in 0..m.html_body_count() {
                seen.push_str(&m.body_html(i).unwrap_or_default());
            }
            for t in TOKENS.iter().chain([&MOD_TOKEN]) {
                assert!(!seen.contains(t), "reply {id} to {to:?} shows the token {t}:\n{seen}");
            }
            self.largest = self.largest.max(raw.len());
            self.sent += 1;
            for t in to {
                *self.to.entry(t.clone()).or_default() += 1;
            }
            Delivery::Done
        }
    }

    const SENDERS: &[&str] = &[
        "p1@test.invalid",
        "Racer Two <p2@test.invalid>",
        MOD,
        "stranger@test.invalid",
        "\"Dupont, Jean\" <jean.dupont@test.invalid>",
        "=?UTF-8?B?w4lsb2TDqWU=?= <elodie@test.invalid>",
        "x@example.com.",
        "racer-with-a-local-part-longer-than-sixty-four-characters-is-refused@test.invalid",
        "a@@b",
        "<>",
        "",
        "no-at-sign",
        "üser@exämple.com",
        "\u{202e}evil\u{202c} <bidi@test.invalid>",
        "\"MODERATOR NOTICE:\r\n mail your TOKEN\" <fake@test.invalid>",
        "p1@test.invalid (comment) , second@test.invalid",
    ];

    const HEADERS: &[&str] = &[
        "Reply-To: <victim@example.com.>",
        "Reply-To: other@test.invalid",
        "List-Id: <racing.lists.test.invalid>",
        "Auto-Submitted: auto-replied",
        "Precedence: bulk",
        "Return-Path: <>",
        "In-Reply-To: <turn-3.g@test.invalid>",
        "Content-Type: text/plain; charset=utf-16",
        "Content-Type: multipart/mixed",
        "X-Long: =?UTF-8?Q?=E9=E9=E9?=",
        "Subject: =?ISO-8859-1?Q?Re=3A_=5Bg=5D_tour_3?=",
        "Date: not a date",
    ];

    fn body(rng: &mut Rng) -> String {
        let c = 1 + rng.below(2);
        let turn = rng.below(12);
        let orders = [
            format!("GAME g\nCAR {c}\nTOKEN {}\nTURN {turn}\nGEAR {}", TOKENS[c - 1], 1 + rng.below(6)),
            format!(
                "GAME g\nCAR {c}\nTOKEN {}\nTURN {turn}\nCHOOSE {}",
                TOKENS[c - 1],
                ["A", "B", "C", "Z"][rng.below(4)]
            ),
            format!("GAME g\nCAR {c}\nTOKEN {}\nPOLICY FARTHEST-FREE ELSE SAFEST", TOKENS[c - 1]),
            format!("Subject line echo: my token is {}", TOKENS[c - 1]),
            format!("GAME g\nCAR {c}\nTOKEN wrong\nGEAR 2"),
            "HELP".into(),
            "GAME g\nBOARD".into(),
            "STANDINGS".into(),
            format!("LANG {}", ["fr", "en"][rng.below(2)]),
            "JOIN g CAR 3\nPHRASE fuzz".into(),
            format!("GAME g\nTOKEN {MOD_TOKEN}\n{}", ["PAUSE", "RESUME", "DEADLINE 12"][rng.below(3)]),
            format!("Dear Steward,\n\nGAME g\nCAR 1\nTOKEN {}\nGEAR 3\n\nThanks\nAnn", TOKENS[0]),
            "geer 4\nVITESSE 9".into(),
            format!("TOKEN {MOD_TOKEN}\nCREATE g TRACK ../../etc/passwd LAPS 1 CARS 2"),
            String::new(),
        ];
        let mut b = orders[rng.below(orders.len())].clone();
        match rng.below(100) {
            0..=1 => {
                // Tens of thousands of short lines (the 50,000-line mail).
                let n = [2_000, 20_000, 50_000][rng.below(3)];
                b.extend((0..n).map(|i| ["\nGEAR 7", "\nx", "\n>", "\nCHOOSE A"][i % 4]));
            }
            2..=4 => b.push_str(&format!("\n{}", "A".repeat(1 + rng.below(20_000)))),
            5..=7 => b.push_str("\n\u{0}\u{7}\u{1b}[31m\u{202e}\r\r\n"),
            8..=10 => b.push_str("\n\n-- \nAnn\nGEAR 6"),
            _ => {}
        }
        b
    }

    fn encode_qp(s: &str) -> String {
        let mut o = String::new();
        for b in s.bytes() {
            match b {
                b'\n' => o.push_str("\r\n"),
                b'=' => o.push_str("=3D"),
                b' '..=b'~' => o.push(b as char),
                _ => o.push_str(&format!("={b:02X}")),
            }
        }
        o
    }

    /// One mail in one of the clients' shapes.
    fn mail(rng: &mut Rng, i: usize) -> Vec<u8> {
        let from = rng.pick(SENDERS);
        let mut head = format!("From: {from}\r\nTo: steward@test.invalid\r\n");
        let mid = match rng.below(20) {
            0 => format!("<{}@test.invalid>", "x".repeat(5_000)),
            1..=3 => format!("<dup-{}@test.invalid>", rng.below(5)),
            4 => String::new(),
            _ => format!("<fuzz-{i}@test.invalid>"),
        };
        if !mid.is_empty() {
            head.push_str(&format!("Message-ID: {mid}\r\n"));
        }
        let subject = if rng.chance(3) { "S".repeat(1 + rng.below(60_000)) } else { "Re: [g] turn 3".into() };
        head.push_str(&format!("Subject: {subject}\r\n"));
        for _ in 0..rng.below(3) {
            head.push_str(rng.pick(HEADERS));
            head.push_str("\r\n");
        }
        let text = body(rng);
        let crlf = text.replace('\n', "\r\n");
        let shaped = match rng.below(8) {
            0 => format!("{head}Content-Type: text/plain; charset=utf-8\r\n\r\n{crlf}\r\n"),
            1 => format!(
                "{head}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\n{}\r\n",
                encode_qp(&text)
            ),
            2 => format!(
                "{head}MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: base64\r\n\r\n{}\r\n",
                crate::mail::base64_lines(text.as_bytes())
            ),
            3 => format!(
                "{head}MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n<html><body>{}</body></html>\r\n",
                text.lines().map(|l| format!("<div>{l}</div>")).collect::<String>()
            ),
            4 => format!(
                "{head}MIME-Version: 1.0\r\nContent-Type: multipart/alternative; boundary=\"a\"\r\n\r\n--a\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{crlf}\r\n--a\r\nContent-Type: text/html\r\n\r\n<p>{}</p>\r\n--a--\r\n",
                text.replace('\n', "<br>")
            ),
            5 => {
                let size = if rng.chance(10) { 400_000 } else { rng.below(20_000) };
                let photo: String = (0..size / 76).map(|k| format!("{:A>76}\r\n", k % 977)).collect();
                format!(
                    "{head}MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"m\"\r\n\r\n--m\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{crlf}\r\n--m\r\nContent-Type: image/jpeg\r\nContent-Disposition: attachment; filename=\"p.jpg\"\r\nContent-Transfer-Encoding: base64\r\n\r\n{photo}--m--\r\n"
                )
            }
            6 => format!(
                "{head}Content-Type: text/plain; charset=utf-8; format=flowed; delsp=yes\r\n\r\n{}\r\n",
                crlf.replace("\r\n", " \r\n")
            ),
            _ => {
                let latin1: Vec<u8> = text.chars().map(|c| if (c as u32) < 256 { c as u8 } else { b'?' }).collect();
                let mut v = format!("{head}Content-Type: text/plain; charset=iso-8859-1\r\n\r\n").into_bytes();
                v.extend(latin1);
                return v;
            }
        };
        shaped.into_bytes()
    }

    fn edits(rng: &mut Rng) -> Vec<Edit> {
        (0..1 + rng.below(8))
            .map(|_| match rng.below(4) {
                0 => Edit::Set(rng.next() as usize, rng.next() as u8),
                1 => Edit::Insert(rng.next() as usize, rng.pick(FRAGMENTS)),
                2 => Edit::Delete(rng.next() as usize, 1 + rng.below(64)),
                _ => Edit::Cut(rng.next() as usize),
            })
            .collect()
    }

    #[test]
    fn ten_thousand_mails_never_stop_the_daemon() {
        let root = scratch("fuzz-daemon");
        let mut cfg = ServeConfig::local(&root, "steward@test.invalid");
        cfg.moderators.push(ModeratorConfig { address: MOD.into(), token_sha256: moderator_token_hash(MOD_TOKEN) });
        cfg.rate_per_hour = 1_000_000;
        cfg.max_message_bytes = 1 << 20;
        let mut store = Store::new(root.join("games"));
        store.durability = Durability::NoSync;
        let mut h = store.create(&NewGame::plain("g", "sprint", 3), [3; 32], Meta::now()).unwrap();
        h.join(&Join::plain("p1@test.invalid", TOKENS[0], 1), Meta::now()).unwrap();
        h.join(&Join::plain("p2@test.invalid", TOKENS[1], 2), Meta::now()).unwrap();
        h.start(Meta::now()).unwrap();
        drop(h); // its lock
        let mut daemon = Daemon::new(cfg, Durability::NoSync).unwrap();
        let clock = std::sync::Arc::new(std::sync::Mutex::new(Stamp::parse("2026-11-22T12:00:00Z").unwrap().0));
        let c = clock.clone();
        daemon.set_clock(move || Stamp(*c.lock().unwrap()));
        let real: Vec<Vec<u8>> =
            fixtures().into_iter().map(|f| String::from_utf8_lossy(&f).replace("monaco-1", "g").into_bytes()).collect();
        let mut rng = Rng(0x005e_ed13);
        let mut via = Counting::default();
        let mut inbox = MemoryInbox { mails: Vec::new(), done: Default::default() };
        let mut n = 0;
        while n < MAILS {
            let start = inbox.mails.len();
            for _ in 0..BATCH {
                let raw = if rng.chance(15) { real[rng.below(real.len())].clone() } else { mail(&mut rng, n) };
                let raw = if rng.chance(40) { apply(raw, &edits(&mut rng)) } else { raw };
                inbox.mails.push(Fetched { key: format!("fuzz-{n}"), raw, arrived: None });
                n += 1;
            }
            let p = daemon.pass(&mut inbox, &mut via).unwrap_or_else(|e| panic!("the pass stopped at mail {n}: {e}"));
            assert_eq!(p.fetched, BATCH);
            assert_eq!(p.processed, BATCH, "every mail processed in its pass");
            for m in &inbox.mails[start..] {
                let e = daemon.ledger().get(&m.key).unwrap().unwrap_or_else(|| panic!("{} has no ledger entry", m.key));
                assert!(
                    !e.outcome.starts_with("failed"),
                    "{} failed: {}\n{}",
                    m.key,
                    e.outcome,
                    String::from_utf8_lossy(&m.raw[..m.raw.len().min(3000)])
                );
            }
            *clock.lock().unwrap() += 600;
        }
        assert!(n >= 10_000);
        assert!(via.sent > MAILS / 4, "most mails are answered: {} replies", via.sent);
        assert!(via.to.keys().all(|t| steward::mail::message::is_mailable(t)), "{:?}", via.to.keys());
        eprintln!("{n} mails, {} replies, largest {} bytes", via.sent, via.largest);
    }
}

/// The fuzz shapes that took the daemon down (issue 45, item 7), mailed to `steward serve
/// --once` run as a process under a 1 GiB address-space limit (`ulimit -v`), with a signed
/// order after them: HTML-only mails of nested `blockquote`s (the 515 KB one that exhausted
/// memory and the 644 KB one that took 1.6 GB), the same base64-encoded, MIME nested 10,000
/// deep, a 20 MB mail, a header of a million folded lines. The process ends normally, every
/// mail is recorded once, and the order after the bombs is applied.
#[test]
fn html_bombs_and_deep_nesting_under_a_memory_limit() {
    use steward::store::fsio::Durability;
    use steward::store::{Join, Meta, NewGame, Store};

    let root = crate::mail::scratch("fuzz-memory");
    let steward_at = crate::mail::crash::STEWARD;
    let token = "5f3a9c0e1d2b4a6f8e7d6c5b";
    let config = crate::mail::crash::write_config(&root);
    let mut store = Store::new(root.join("games"));
    store.durability = Durability::NoSync;
    let mut h = store.create(&NewGame::plain("g", "sprint", 1), [5; 32], Meta::now()).unwrap();
    h.join(&Join::plain("p1@bomb.invalid", token, 1), Meta::now()).unwrap();
    h.start(Meta::now()).unwrap();
    drop(h);
    let inbox = root.join("mail").join(steward_at);
    let mut n = 0;
    let mut put = |head: &str, body: &[u8]| {
        n += 1;
        let mut raw = format!(
            "From: bomber@bomb.invalid\r\nTo: {steward_at}\r\nSubject: b\r\nMessage-ID: <bomb{n}@bomb.invalid>\r\n{head}\r\n"
        )
        .into_bytes();
        raw.extend_from_slice(body);
        steward::mail::transport::deliver(&inbox, &raw).unwrap();
    };
    let html = "Content-Type: text/html; charset=utf-8\r\n";
    let nested = |depth: usize| format!("GEAR 3<br>{}", "<blockquote>x".repeat(depth));
    put(html, nested(515_000 / 13).as_bytes());
    put(html, nested(644_000 / 13).as_bytes());
    put(html, format!("{}{}", "<blockquote>".repeat(50_000), "x<br>".repeat(50_000)).as_bytes());
    let b64 = crate::mail::base64_lines(nested(600_000 / 13).as_bytes());
    put(&format!("{html}Content-Transfer-Encoding: base64\r\n"), b64.as_bytes());
    let depth = 10_000;
    let mut mime = String::new();
    for d in 0..depth {
        mime.push_str(&format!("--b{d}\r\nContent-Type: multipart/mixed; boundary=\"b{}\"\r\n\r\n", d + 1));
    }
    mime.push_str(&format!("--b{depth}\r\nContent-Type: text/plain\r\n\r\nGEAR 3\r\n"));
    put("MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b0\"\r\n", mime.as_bytes());
    put("Content-Type: text/plain\r\n", "GEAR 3\r\n".repeat(20 * 1024 * 1024 / 8).as_bytes());
    put(&format!("X-Folded: a{}\r\n", "\r\n b".repeat(1_000_000)), b"GEAR 3\r\n");
    n += 1;
    let order = format!(
        "From: p1@bomb.invalid\r\nTo: {steward_at}\r\nSubject: o\r\nMessage-ID: <order@bomb.invalid>\r\n\r\nGAME g\r\nCAR 1\r\nTOKEN {token}\r\nGEAR 1\r\n"
    );
    steward::mail::transport::deliver(&inbox, order.as_bytes()).unwrap();
    let bin = env!("CARGO_BIN_EXE_steward");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 1048576 && exec \"$0\" serve --once --config \"$1\"")
        .arg(bin)
        .arg(&config)
        .output()
        .unwrap();
    assert!(out.status.success(), "the daemon stopped: {:?}\n{}", out.status, String::from_utf8_lossy(&out.stderr));
    let ledger = steward::judge::ledger::Ledger::open(&root.join("state"), Durability::NoSync).unwrap();
    let entries = ledger.entries().unwrap();
    assert_eq!(entries.len(), n, "every mail recorded: {:?}", entries.iter().map(|e| &e.outcome).collect::<Vec<_>>());
    let g = Store::new(root.join("games")).load("g", None).unwrap();
    assert!(
        g.turns.iter().any(|t| t.kind == steward::store::files::Kind::Move),
        "the order after the bombs is applied: {:?}",
        entries.iter().map(|e| &e.outcome).collect::<Vec<_>>()
    );
}
