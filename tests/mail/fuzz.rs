//! Thousands of malformed mails: fixtures mutated byte by byte, cut, spliced, and random text,
//! through `Incoming::parse`, the order parser and the receipt. Nothing may panic, and every
//! receipt stays within 78 columns.

use proptest::prelude::*;
use steward::mail::message::{Incoming, clean_body, html_to_text, unflow};
use steward::mail::orders::{Lang, RECEIPT_WIDTH, parse, receipt};

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
