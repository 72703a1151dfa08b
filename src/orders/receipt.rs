//! The receipt of a mail's orders: each line read, echoed with its number, and under each
//! refused line what to write instead. Plain text within [`RECEIPT_WIDTH`] columns, so every
//! mail client shows it whole.

use super::keyword::{Kw, squash};
use super::{Line, Parsed};
use crate::words::Lang;

/// Widest receipt line, in characters.
pub const RECEIPT_WIDTH: usize = 78;

/// Columns before the echoed text: `  12  `.
const GUTTER: usize = 6;

/// The receipt of `parsed` in `lang`.
pub fn receipt(parsed: &Parsed, lang: Lang) -> String {
    let fr = lang == Lang::Fr;
    let mut out = String::new();
    if parsed.lines.is_empty() {
        out.push_str(if fr {
            "Aucun ordre trouvé dans votre message. Écrivez AIDE pour la liste des ordres.\n"
        } else {
            "No order found in your mail. Write HELP for the list of orders.\n"
        });
        return out;
    }
    out.push_str(if fr { "Ordres lus :\n" } else { "Orders read:\n" });
    for line in &parsed.lines {
        echo(&mut out, line);
        if let Err(e) = &line.result {
            let label = if fr { "ERREUR : " } else { "ERROR: " };
            wrap(&mut out, &format!("{label}{}", e.message(lang)), GUTTER);
        }
    }
    let errors = parsed.errors().count();
    let n = parsed.lines.len();
    let summary = match (errors, fr) {
        // Read, not yet applied: what became of the orders follows (issue 48: a refused order
        // was acknowledged "no error" just above its refusal).
        (0, false) => format!("{n} line{} read.", plural(n)),
        (0, true) => format!("{n} ligne{} lue{}.", plural(n), plural(n)),
        (e, false) => format!(
            "{e} error{}: nothing was applied. Correct the lines marked ERROR and send all your orders again.",
            plural(e)
        ),
        (e, true) => format!(
            "{e} erreur{} : rien n'a été appliqué. Corrigez les lignes marquées ERREUR et renvoyez tous vos ordres.",
            plural(e)
        ),
    };
    out.push('\n');
    wrap(&mut out, &summary, 0);
    if parsed.skipped > 0 {
        let s = parsed.skipped;
        let listed = ignored_list(parsed, fr);
        let note = if fr {
            format!("({s} ligne{} de texte ignorée{}{listed}.)", plural(s), plural(s))
        } else {
            format!("({s} line{} of text skipped{listed}.)", plural(s))
        };
        wrap(&mut out, &note, 0);
    }
    out
}

/// Most ignored lines the receipt names.
const IGNORED_LISTED: usize = 5;

/// `: 1 "Dear Steward,", 9 "Thanks,"` — the first ignored lines, each cut short.
fn ignored_list(parsed: &Parsed, fr: bool) -> String {
    let shown: Vec<String> = parsed
        .ignored
        .iter()
        .take(IGNORED_LISTED)
        .map(|(n, text)| {
            let t: String = masked(text).chars().map(|c| if c.is_control() { '?' } else { c }).collect();
            let t = if t.chars().count() > 30 { format!("{}...", t.chars().take(27).collect::<String>()) } else { t };
            format!("{n} \"{t}\"")
        })
        .collect();
    if shown.is_empty() {
        return String::new();
    }
    let more = parsed.ignored.len().saturating_sub(IGNORED_LISTED);
    let more = if more > 0 { format!(", +{more}") } else { String::new() };
    format!("{}{}{more}", if fr { " : " } else { ": " }, shown.join(", "))
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// `  12  GEAR 9`, the text cut to fit and any control character shown as `?`.
fn echo(out: &mut String, line: &Line) {
    let head = format!("{:>4}  ", line.number % 10_000);
    out.push_str(&head);
    let room = RECEIPT_WIDTH - head.chars().count();
    let clean: String = masked(&line.text).chars().map(|c| if c.is_control() { '?' } else { c }).collect();
    if clean.chars().count() > room {
        out.extend(clean.chars().take(room - 3));
        out.push_str("...");
    } else {
        out.push_str(&clean);
    }
    out.push('\n');
}

/// The words of `text`, except that the example after the last "write " / "écrivez " stays
/// whole (so `write CHOOSE B` is never split between lines) when it fits on a line.
fn units(text: &str, room: usize) -> Vec<String> {
    let cut = ["write ", "écrivez "].iter().filter_map(|w| text.rfind(w).map(|p| p + w.len())).max();
    let (head, tail) = match cut {
        Some(p) if text[p..].chars().count() <= room && !text[p..].trim().is_empty() => (&text[..p], Some(&text[p..])),
        _ => (text, None),
    };
    let mut v: Vec<String> = head.split_whitespace().map(str::to_string).collect();
    v.extend(tail.map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")));
    v
}

/// The line with its secrets hidden: the word after `TOKEN` (`JETON`...) and after `PASSWORD`
/// in a `JOIN`, since a receipt may go to another address than the owner's.
pub fn masked(text: &str) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    let secret = |w: &str| matches!(squash(w).as_str(), "token" | "password" | "jeton" | "motdepasse");
    let Some(first) = words.first() else { return text.to_string() };
    let first_kw = Kw::lookup(&squash(first));
    if !words.iter().any(|w| secret(w)) || !matches!(first_kw, Some(Kw::Token | Kw::Join)) {
        return text.to_string();
    }
    let mut out: Vec<&str> = Vec::with_capacity(words.len());
    let mut hide = false;
    for (i, w) in words.iter().enumerate() {
        if first_kw == Some(Kw::Join) && squash(w) == "phrase" {
            // The entropy phrase is no secret (docs/dice.md) and is kept as written.
            out.extend(&words[i..]);
            break;
        }
        out.push(if hide { "********" } else { w });
        hide = secret(w) && !hide;
    }
    out.join(" ")
}

/// A note of the receipt within [`RECEIPT_WIDTH`] columns under its `* ` bullet: each line of
/// prose wrapped with a hanging indent of two, a line that starts with spaces (a line to copy,
/// `    JOIN g CONFIRM 1a2b3c4d`) kept as it is.
pub(crate) fn wrap_note(note: &str) -> String {
    let mut out = String::new();
    for line in note.lines() {
        if line.starts_with(' ') || line.is_empty() {
            out.push_str(line);
            out.push('\n');
        } else {
            wrap(&mut out, line, 2);
        }
    }
    let out = out.trim_end_matches('\n');
    out.strip_prefix("  ").unwrap_or(out).to_string()
}

/// Words of `text` in lines of at most [`RECEIPT_WIDTH`] characters, each indented by
/// `indent`; a word longer than a line is cut.
pub(crate) fn wrap(out: &mut String, text: &str, indent: usize) {
    let room = RECEIPT_WIDTH - indent;
    let mut line = String::new();
    let mut len = 0;
    let flush = |out: &mut String, line: &mut String, len: &mut usize| {
        if *len > 0 {
            out.extend(std::iter::repeat_n(' ', indent));
            out.push_str(line);
            out.push('\n');
            line.clear();
            *len = 0;
        }
    };
    for word in units(text, room) {
        let word: String = word.chars().map(|c| if c.is_control() { '?' } else { c }).collect();
        let mut w: &str = &word;
        loop {
            let wl = w.chars().count();
            let need = if len == 0 { wl } else { len + 1 + wl };
            if need <= room {
                if len > 0 {
                    line.push(' ');
                }
                line.push_str(w);
                len = need;
                break;
            }
            if len > 0 {
                flush(out, &mut line, &mut len);
                continue;
            }
            // A word wider than the line: cut it.
            let cut = w.char_indices().nth(room).map_or(w.len(), |(i, _)| i);
            line.push_str(&w[..cut]);
            len = room;
            flush(out, &mut line, &mut len);
            w = &w[cut..];
            if w.is_empty() {
                break;
            }
        }
    }
    flush(out, &mut line, &mut len);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_not_echoed() {
        assert_eq!(masked("TOKEN k7w2"), "TOKEN ********");
        assert_eq!(masked("jeton  k7w2 extra"), "jeton ******** extra");
        assert_eq!(
            masked("JOIN g CAR 3 PASSWORD pw PHRASE a password b"),
            "JOIN g CAR 3 PASSWORD ******** PHRASE a password b"
        );
        assert_eq!(masked("GEAR 4"), "GEAR 4");
        assert_eq!(masked("I forgot my password"), "I forgot my password");
    }

    #[test]
    fn a_note_is_wrapped_under_its_bullet_and_its_line_to_copy_kept() {
        let note = format!(
            "{}\n    JOIN g CONFIRM 1a2b3c4d CAR 2\n  (If you did not ask, ignore this mail.)",
            "word ".repeat(30)
        );
        let out = wrap_note(&note);
        let lines: Vec<&str> = out.lines().collect();
        // `* ` then the note: every line within the receipt's width.
        assert!(lines.iter().all(|l| l.chars().count() + 2 <= RECEIPT_WIDTH), "{out}");
        assert!(lines[0].starts_with("word") && lines[1].starts_with("  word"), "a hanging indent: {out}");
        assert!(lines.contains(&"    JOIN g CONFIRM 1a2b3c4d CAR 2"), "the line to copy, whole: {out}");
        assert_eq!(out.split_whitespace().filter(|w| *w == "word").count(), 30, "no word lost");
    }

    #[test]
    fn wrap_keeps_every_word_within_the_width() {
        let mut out = String::new();
        let long = format!("{} {} end", "word ".repeat(40), "x".repeat(200));
        wrap(&mut out, &long, 6);
        for l in out.lines() {
            assert!(l.chars().count() <= RECEIPT_WIDTH, "{l:?}");
        }
        assert!(out.ends_with("end\n"));
        assert_eq!(out.matches('x').count(), 200);
    }
}
