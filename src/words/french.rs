//! The report's summary in French: the engine writes its events in English (the turn files keep
//! them so, and the verifiers read them), and a French player reads them translated, line by
//! line, from the table in `templates/fr/events.toml` (data, not code: each English phrase with
//! `{}` for what varies, its French, and the words a `{}` may hold). A line no phrase matches
//! stays in English; the lines the verifiers read from the mails (`roll ...`, `Car n contributes
//! entropy ...`, the receipt block) are never touched.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde::Deserialize;

/// The table, compiled in: a report is a pure function of the game.
const TABLE: &str = include_str!("../../templates/fr/events.toml");

#[derive(Deserialize)]
struct Table {
    phrase: Vec<Phrase>,
    words: BTreeMap<String, String>,
    endings: BTreeMap<String, String>,
}

#[derive(Deserialize)]
struct Phrase {
    en: String,
    fr: String,
}

fn table() -> &'static Table {
    static T: OnceLock<Table> = OnceLock::new();
    T.get_or_init(|| toml::from_str(TABLE).expect("templates/fr/events.toml is valid (a unit test reads it)"))
}

/// The captures of `text` against `pattern` (literal text, `{}` for a non-empty run), or `None`.
/// A `{}` takes the shortest run after which the rest of the pattern matches.
fn captures<'a>(pattern: &str, text: &'a str) -> Option<Vec<&'a str>> {
    let parts: Vec<&str> = pattern.split("{}").collect();
    let mut rest = text.strip_prefix(parts[0])?;
    if parts.len() == 1 {
        // A phrase without blanks is the whole line.
        return rest.is_empty().then(Vec::new);
    }
    let mut out = Vec::new();
    for (i, lit) in parts.iter().enumerate().skip(1) {
        let last = i == parts.len() - 1;
        let at = if last {
            if lit.is_empty() { Some(rest.len()) } else { rest.strip_suffix(lit).map(str::len) }
        } else if lit.is_empty() {
            return None; // two `{}` side by side: not in the table
        } else {
            rest.get(1..).and_then(|r| r.find(lit)).map(|k| k + 1)
        };
        let at = at.filter(|&k| k > 0)?;
        out.push(&rest[..at]);
        rest = &rest[at + lit.len()..];
        if last && !rest.is_empty() {
            return None;
        }
    }
    Some(out)
}

/// The English phrases of the table (the record's words a French mail shows translated), each
/// with `{}` for what varies.
pub fn english_phrases() -> impl Iterator<Item = &'static str> {
    table().phrase.iter().map(|p| p.en.as_str())
}

/// A captured word in French: a word of the table, or its ending (`4 (bot)`), else as it is.
fn word(w: &str) -> String {
    let t = table();
    if let Some(f) = t.words.get(w) {
        return f.clone();
    }
    for (en, fr) in &t.endings {
        if let Some(head) = w.strip_suffix(en.as_str()) {
            return format!("{}{fr}", word(head));
        }
    }
    w.to_string()
}

/// One phrase (no article, no indentation) in French, if the table has it.
pub fn phrase(text: &str) -> Option<String> {
    for p in &table().phrase {
        if let Some(caps) = captures(&p.en, text) {
            let mut out = String::new();
            let mut caps = caps.into_iter();
            for (i, lit) in p.fr.split("{}").enumerate() {
                if i > 0 {
                    out.push_str(&word(caps.next().unwrap_or_default()));
                }
                out.push_str(lit);
            }
            return Some(out);
        }
    }
    None
}

/// A part of car `car`'s move in a condensed line (`rolls gear3-d8 for move: 8`, `takes C`),
/// in French: the phrase with its car, less `la voiture <car> ` when the French starts so.
fn part(car: &str, text: &str) -> String {
    // `'s quick stop ...` follows the car's number without a space.
    let sep = if text.starts_with('\'') { "" } else { " " };
    if let Some(f) = phrase(&format!("car {car}{sep}{text}")) {
        return f.strip_prefix(&format!("la voiture {car} ")).map(str::to_string).unwrap_or(f);
    }
    phrase(text).unwrap_or_else(|| text.to_string())
}

/// A condensed line's head: `Turn 17-18 car 1 (gear 3): a; b; c` (`mail::modes::condensed`).
fn condensed(body: &str) -> Option<String> {
    let rest = body.strip_prefix("Turn ")?;
    let (turns, rest) = rest.split_once(" car ")?;
    let (head, tail) = rest.split_once(':')?;
    let (car, gear) = match head.split_once(" (gear ") {
        Some((car, g)) => (car, Some(g.strip_suffix(')')?)),
        None => (head, None),
    };
    if !turns.chars().all(|c| c.is_ascii_digit() || c == '-') || !car.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut out = format!("Tour {turns} voiture {car}");
    if let Some(g) = gear {
        out.push_str(&format!(" (vitesse {g})"));
    }
    out.push_str(" :");
    let parts: Vec<String> = tail.split(';').map(str::trim).filter(|p| !p.is_empty()).map(|p| part(car, p)).collect();
    if !parts.is_empty() {
        out.push(' ');
        out.push_str(&parts.join(" ; "));
    }
    Some(out)
}

/// A line of a summary in French: its indentation, a `! ` mark and an article in brackets at
/// the end kept as they are.
fn line(l: &str) -> String {
    let body = l.trim_start();
    let indent = &l[..l.len() - body.len()];
    let (mark, body) = match body.strip_prefix("! ") {
        Some(b) => ("! ", b),
        None => ("", body),
    };
    if let Some(c) = condensed(body) {
        return format!("{indent}{mark}{c}");
    }
    // An event's line ends with its article in brackets: `(7-0-1)`, `(002 ...)`, `(ruling 51)`.
    if let Some((head, article)) = body.strip_suffix(')').and_then(|b| b.rsplit_once(" ("))
        && (article.starts_with(|c: char| c.is_ascii_digit())
            || article.starts_with("ruling ")
            || article == "rollback")
    {
        return match phrase(head) {
            Some(f) => {
                let article =
                    article.strip_prefix("ruling ").map_or_else(|| word(article), |n| format!("décision {n}"));
                format!("{indent}{mark}{f} ({article})")
            }
            None => l.to_string(),
        };
    }
    match phrase(body) {
        Some(f) => format!("{indent}{mark}{f}"),
        None => l.to_string(),
    }
}

/// An option's line as the record writes it (`3 space(s) to s1.l.2; overshoots corner 4 by 1
/// (2 tyre point(s))`) in French, part by part; a part no phrase matches stays as it is.
pub fn option(text: &str) -> String {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0usize);
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'(' => depth += 1,
            b')' => depth -= 1,
            b';' if depth == 0 && bytes.get(i + 1) == Some(&b' ') => {
                parts.push(&text[start..i]);
                start = i + 2;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    let fr: Vec<String> = parts.iter().map(|p| phrase(p).unwrap_or_else(|| p.to_string())).collect();
    super::plurals::plurals(&fr.join(" ; "))
}

/// A report's summary in French, line by line.
pub fn summary(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 4);
    for l in text.split_inclusive('\n') {
        let (l, nl) = match l.strip_suffix('\n') {
            Some(l) => (l, "\n"),
            None => (l, ""),
        };
        out.push_str(&line(l));
        out.push_str(nl);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_and_every_phrase_has_as_many_blanks_in_both_languages() {
        for p in &table().phrase {
            assert_eq!(p.en.matches("{}").count(), p.fr.matches("{}").count(), "{}", p.en);
            assert!(!p.en.contains("{}{}"), "{}", p.en);
        }
    }

    #[test]
    fn event_lines_condensed_lines_and_orders_in_french() {
        let cases = [
            (
                "  car 9 moves 2 space(s) from s10.l.10 to s10.m.12 (7-0-1)",
                "  la voiture 9 avance de 2 case(s), de s10.l.10 à s10.m.12 (7-0-1)",
            ),
            ("  ! car 2 spins out (10-4-1)", "  ! la voiture 2 fait un tête-à-queue (10-4-1)"),
            ("  car 3 loses 1 tyres point(s) (10-1-1)", "  la voiture 3 perd 1 point(s) de pneus (10-1-1)"),
            ("  car 4 is eliminated (handling) (17-0-2)", "  la voiture 4 est éliminée (tenue de route) (17-0-2)"),
            ("Car 3 announces gear 4 (bot)", "La voiture 3 annonce la vitesse 4 (robot)"),
            ("Car 1 takes option B to s0.l.2", "La voiture 1 prend l'option B vers s0.l.2"),
            (
                "Turn 17-18 car 1 (gear 3): rolls gear3-d8 for move: 8; takes C; moves 9 space(s) from s0.l.4 to c1.l.6; takes the slipstream of car 2: 3 more spaces",
                "Tour 17-18 voiture 1 (vitesse 3) : lance gear3-d8 (déplacement) : 8 ; prend C ; avance de 9 case(s), de s0.l.4 à c1.l.6 ; prend l'aspiration de la voiture 2 : 3 cases de plus",
            ),
            (
                "Turn 5 car 2: 's quick stop is missed: it waits in its box; brakes 1 space(s) short",
                "Tour 5 voiture 2 : l'arrêt rapide de la voiture 2 est manqué : elle attend à son stand ; freine et s'arrête 1 case(s) plus tôt",
            ),
            ("Turn 4 (move) at 2026-11-22T12:00:00Z", "Tour 4 (déplacement) le 2026-11-22T12:00:00Z"),
            // Read by the verifiers: untouched.
            (
                "  roll 7/0/move/0             gear3-d8   face  7 = 8",
                "  roll 7/0/move/0             gear3-d8   face  7 = 8",
            ),
            ("Car 2 contributes entropy \"x\"", "Car 2 contributes entropy \"x\""),
            // A rollback (steward-dice-v3) and a retirement, as the turn files record them.
            (
                "the moderator rolls the game back to the end of turn 12: turns 13 to 15 are rolled back (kept in the history); the same decisions give the same dice again, a changed one new dice",
                "le modérateur ramène la partie à la fin du tour 12 : les tours 13 à 15 sont annulés (gardés dans l'historique) ; les mêmes décisions redonnent les mêmes dés, une décision changée donne de nouveaux dés",
            ),
            (
                "car 3 retires at s2.l.4: out of the race, classified as did not finish",
                "la voiture 3 abandonne en s2.l.4 : hors course, classée parmi les non-arrivées",
            ),
            // The daemon's announcements.
            (
                "Car 3 did not answer by 2026-11-26T10:00:00Z: the bot played a default move for it.",
                "La voiture 3 n'a pas répondu avant le 2026-11-26T10:00:00Z : le robot a joué un coup par défaut pour elle.",
            ),
            (
                "Car 2's GEAR 6 sent ahead was refused: over-revving",
                "La voiture 2 : sa VITESSE 6 envoyée d'avance est refusée : over-revving",
            ),
            ("The game is open to observers (WATCH).", "La partie est ouverte aux observateurs (SUIVRE)."),
            ("The game is open to observers (WATCH). And more", "The game is open to observers (WATCH). And more"),
            ("something new (1-1-1)", "something new (1-1-1)"),
        ];
        for (en, fr) in cases {
            assert_eq!(line(en), fr, "{en}");
        }
        assert_eq!(summary("a\n  car 2 spins out (10-4-1)\n"), "a\n  la voiture 2 fait un tête-à-queue (10-4-1)\n");
    }
}
