//! Every word a player reads (issue 48): a whole race played in French mails no English
//! sentence of the catalogue (`templates/*/messages.toml`, the event table
//! `templates/fr/events.toml`), and a mixed race mails each player in their own language.

use std::collections::BTreeMap;

use steward::demo::{DemoLangs, DemoSpec, run};
use steward::words::Lang;
use steward::words::catalogue::{Entry, entries};

use super::{mails_of, scratch};

/// The literal runs of an English sentence worth looking for in a French mail: the text between
/// its `{...}` values, at least 12 characters and two words long (shorter runs, `Turn ` or
/// `car `, are not a sentence).
fn runs(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    loop {
        let (lit, next) = match rest.find('{') {
            Some(i) => (&rest[..i], rest[i..].find('}').map(|j| &rest[i + j + 1..])),
            None => (rest, None),
        };
        let lit = lit.trim();
        if lit.chars().count() >= 12 && lit.contains(' ') {
            out.push(lit.to_string());
        }
        match next {
            Some(n) => rest = n,
            None => return out,
        }
    }
}

/// The English sentences a French mail must not hold: each catalogue entry (but the `[fixed]`
/// verifiers' lines, the same in both), and each phrase of the event table.
fn english() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for (k, e) in entries(Lang::En) {
        if k.starts_with("fixed.") {
            continue;
        }
        let forms: Vec<&str> = match e {
            Entry::Text(t) => vec![t.as_str()],
            Entry::Plural { one, other } => vec![one.as_str(), other.as_str()],
        };
        for f in forms {
            for r in runs(f) {
                out.insert(r, k.clone());
            }
        }
    }
    for p in steward::words::french::english_phrases() {
        for r in runs(&p.replace("{}", "{x}")) {
            out.insert(r, format!("events.toml: {p}"));
        }
    }
    out
}

/// The lines of a mail a player wrote or a verifier reads: the echo of their own orders in a
/// receipt (`   3  GEAR 4`), quoted lines, the roll lines and the receipt block.
fn own_or_fixed(line: &str) -> bool {
    let t = line.trim_start();
    let echo = t.split_once("  ").is_some_and(|(n, _)| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()));
    echo || t.starts_with('>')
        || t.starts_with("roll ")
        || ["Game: ", "Receipt: ", "Commitment: ", "Seed: ", "Beacon", "Car "].iter().any(|p| t.starts_with(p))
}

/// Each English sentence of the catalogue in a mail's `subject` and `body`: (sentence, key).
pub(super) fn english_sentences(subject: &str, body: &str) -> Vec<(String, String)> {
    static ENGLISH: std::sync::OnceLock<BTreeMap<String, String>> = std::sync::OnceLock::new();
    let english = ENGLISH.get_or_init(english);
    assert!(english.len() > 80, "the catalogue's English sentences: {}", english.len());
    let text: String = body.lines().filter(|l| !own_or_fixed(l)).collect::<Vec<_>>().join("\n");
    // A long line folds at 78 columns: read the text as one line of words.
    let flat = format!("{subject} {}", text.split_whitespace().collect::<Vec<_>>().join(" "));
    english.iter().filter(|(s, _)| flat.contains(s.as_str())).map(|(s, k)| (s.clone(), k.clone())).collect()
}

/// Each English sentence found in the mails of `addresses`: (address, subject, sentence, key).
fn english_in(root: &std::path::Path, addresses: &[String]) -> Vec<(String, String, String, String)> {
    let mut found = Vec::new();
    for a in addresses {
        let mails = mails_of(root, a);
        assert!(!mails.is_empty(), "{a} got mail");
        for m in mails {
            for (s, k) in english_sentences(&m.subject, &m.full_body) {
                found.push((a.clone(), m.subject.clone(), s, k));
            }
        }
    }
    found
}

fn orphan_possessives_in(l: &str) -> bool {
    l.match_indices("'s ")
        .any(|(i, _)| l[..i].chars().next_back().is_none_or(|c| c.is_whitespace() || matches!(c, ':' | ';' | '(')))
}

/// Lines where a possessive lost its name (`Turn 6-7 car 1 (gear 1): 's timed lap`, issue 48).
fn orphan_possessives(root: &std::path::Path, addresses: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for a in addresses {
        for m in mails_of(root, a) {
            for l in m.full_body.lines() {
                if orphan_possessives_in(l) {
                    out.push(l.to_string());
                }
            }
        }
    }
    out
}

fn race(name: &str, langs: DemoLangs) -> (std::path::PathBuf, steward::demo::DemoResult) {
    let dir = scratch(name);
    let spec = DemoSpec {
        laps: 2,
        backmarkers: true,
        drive: true,
        langs,
        ..super::sprint_demo(&dir, name, 3, 1, steward::store::qualifying::GridMethod::Qualifying)
    };
    let r = run(&spec).unwrap();
    (dir, r)
}

#[test]
fn a_french_race_mails_no_english_sentence() {
    let (dir, r) = race("words-fr", DemoLangs::French);
    let mut addresses: Vec<String> = r.players.iter().map(|p| p.address.clone()).collect();
    addresses.push(steward::demo::MODERATOR.to_string());
    let found = english_in(&dir, &addresses);
    let shown: Vec<String> = found.iter().take(12).map(|(a, s, e, k)| format!("{a} «{s}»: `{e}` ({k})")).collect();
    assert!(found.is_empty(), "{} English sentences in French mails:\n{}", found.len(), shown.join("\n"));
    // The race was a race: qualifying, the start, moves and the end, all told in French.
    let all: String = mails_of(&dir, &addresses[0]).iter().map(|m| m.full_body.clone()).collect();
    for fr in ["tour chronométré", "LIGNE D'ARRIVÉE", "La course est terminée", "Accusé de réception"] {
        assert!(all.contains(fr), "a French player reads `{fr}`");
    }
}

#[test]
fn a_mixed_race_mails_each_player_in_their_own_language() {
    let (dir, r) = race("words-mixed", DemoLangs::Mixed);
    // The odd cars read French, the even cars English.
    let (fr, en): (Vec<_>, Vec<_>) = r.players.iter().partition(|p| p.car % 2 == 1);
    let fr: Vec<String> = fr.iter().map(|p| p.address.clone()).collect();
    let found = english_in(&dir, &fr);
    assert!(found.is_empty(), "English in the French players' mails: {:?}", &found[..found.len().min(5)]);
    // The check sees English where there is some: the English players' mails.
    let en_addresses: Vec<String> = en.iter().map(|p| p.address.clone()).collect();
    let english_found = english_in(&dir, &en_addresses);
    assert!(english_found.len() > 100, "the English mails hold the catalogue's sentences: {}", english_found.len());
    // Qualifying and the race in condensed lines read as sentences in both languages.
    let everyone: Vec<String> = r.players.iter().map(|p| p.address.clone()).collect();
    let orphans = orphan_possessives(&dir, &everyone);
    assert!(orphans.is_empty(), "{:?}", &orphans[..orphans.len().min(5)]);
    let condensed: String = mails_of(&dir, &en_addresses[0]).iter().map(|m| m.full_body.clone()).collect();
    assert!(condensed.contains("): timed lap: gear "), "the condensed lines of qualifying are read");
    assert!(orphan_possessives_in("Turn 6-7 car 1 (gear 1): 's timed lap"), "the check sees an orphan");
    for p in en {
        let all: String = mails_of(&dir, &p.address).iter().map(|m| m.full_body.clone()).collect();
        assert!(all.contains("FINISH LINE") && all.contains("The race is over"), "{} reads English", p.address);
        assert!(!all.contains("LIGNE D'ARRIVÉE"), "{} reads no French board", p.address);
    }
}
