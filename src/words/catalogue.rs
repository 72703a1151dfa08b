//! The message catalogue: every sentence a player or a moderator reads that the code writes
//! (board legends, sheets, prompts, option lines, refusals, announcements, subjects), in English
//! and in French, as data: `templates/en/messages.toml` and `templates/fr/messages.toml`, built
//! into the binary. Code asks for a sentence by key ([`say!`](crate::say)) with named values;
//! the catalogue writes plural forms itself (an entry with `one` and `other` chooses by the value
//! named `n`), so no `(s)` is ever patched after the fact.
//!
//! The lines the verifiers parse from mails (the receipt block, `roll ...`) are not in here: they
//! are a format, the same in every language (docs/dice.md), written where they are parsed.
//!
//! A unit test checks that both languages hold the same keys with the same names in braces, and
//! that every key the code asks for is there; the mail tests check that a French race's mails
//! hold no English sentence of the catalogue.

use std::collections::BTreeMap;
use std::fmt::Display;
use std::sync::OnceLock;

use super::Lang;

const EN: &str = include_str!("../../templates/en/messages.toml");
const FR: &str = include_str!("../../templates/fr/messages.toml");

/// One entry: a sentence, or its singular and plural.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// The same sentence for any count.
    Text(String),
    /// `one` for a count of 1 (French: 0 and 1), `other` otherwise.
    Plural {
        /// The singular.
        one: String,
        /// The plural.
        other: String,
    },
}

impl Entry {
    /// Every form of the entry.
    pub fn forms(&self) -> Vec<&str> {
        match self {
            Entry::Text(t) => vec![t],
            Entry::Plural { one, other } => vec![one, other],
        }
    }
}

/// A language's entries by dotted key (`board.finish_line`).
pub type Entries = BTreeMap<String, Entry>;

fn flatten(prefix: &str, table: &toml::Table, out: &mut Entries) {
    for (k, v) in table {
        let key = if prefix.is_empty() { k.clone() } else { format!("{prefix}.{k}") };
        match v {
            toml::Value::String(s) => {
                out.insert(key, Entry::Text(s.clone()));
            }
            toml::Value::Table(t) if t.contains_key("one") && t.contains_key("other") => {
                let get = |f: &str| t.get(f).and_then(toml::Value::as_str).unwrap_or_default().to_string();
                out.insert(key, Entry::Plural { one: get("one"), other: get("other") });
            }
            toml::Value::Table(t) => flatten(&key, t, out),
            _ => {}
        }
    }
}

/// Reads a catalogue file's text.
pub fn parse(text: &str) -> Result<Entries, toml::de::Error> {
    let table: toml::Table = toml::from_str(text)?;
    let mut out = Entries::new();
    flatten("", &table, &mut out);
    Ok(out)
}

/// The entries of `lang`.
pub fn entries(lang: Lang) -> &'static Entries {
    static E: OnceLock<(Entries, Entries)> = OnceLock::new();
    let (en, fr) = E.get_or_init(|| {
        (
            parse(EN).expect("templates/en/messages.toml is valid (a unit test reads it)"),
            parse(FR).expect("templates/fr/messages.toml is valid (a unit test reads it)"),
        )
    });
    match lang {
        Lang::En => en,
        Lang::Fr => fr,
    }
}

/// The sentence `key` in `lang` with each `{name}` replaced by its value in `args`; an entry
/// with a plural takes its form from the value named `n`. A key the catalogue lacks (a unit test
/// keeps that from happening) reads as the key itself, so nothing is lost.
pub fn say(lang: Lang, key: &str, args: &[(&str, &dyn Display)]) -> String {
    let Some(entry) = entries(lang).get(key).or_else(|| entries(Lang::En).get(key)) else {
        return key.to_string();
    };
    let text = match entry {
        Entry::Text(t) => t.as_str(),
        Entry::Plural { one, other } => {
            let n = args.iter().find(|(k, _)| *k == "n").and_then(|(_, v)| v.to_string().parse::<u64>().ok());
            // French takes the singular for 0 and 1, English for 1 only.
            let single = match lang {
                Lang::En => n == Some(1),
                Lang::Fr => n.is_some_and(|n| n <= 1),
            };
            if single { one } else { other }
        }
    };
    fill(text, args)
}

/// The word `name` of catalogue section `section` in `lang` (`word(Fr, "tyres", "soft")` is
/// `tendres`), else `name` as it is: the record's words (tyre types, statuses) read in French.
pub fn word(lang: Lang, section: &str, name: &str) -> String {
    let key = format!("{section}.{name}");
    match entries(lang).get(&key) {
        Some(_) => say(lang, &key, &[]),
        None => name.to_string(),
    }
}

/// `text` with each `{name}` replaced by its value in `args` (a `{name}` without one stays).
pub fn fill(text: &str, args: &[(&str, &dyn Display)]) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        out.push_str(&rest[..i]);
        let after = &rest[i + 1..];
        match after.find('}') {
            Some(j) if after[..j].chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => {
                let name = &after[..j];
                match args.iter().find(|(k, _)| *k == name) {
                    Some((_, v)) => out.push_str(&v.to_string()),
                    None => out.push_str(&rest[i..i + j + 2]),
                }
                rest = &after[j + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The names in braces of `text`, sorted.
pub fn names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(i) = rest.find('{') {
        let after = &rest[i + 1..];
        if let Some(j) = after.find('}')
            && after[..j].chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && j > 0
        {
            out.push(after[..j].to_string());
            rest = &after[j + 1..];
        } else {
            rest = after;
        }
    }
    out.sort();
    out.dedup();
    out
}

/// A sentence of the catalogue: `say!(lang, "board.finish_line")`,
/// `say!(lang, "awaited.send_gear", car = 3, by = by)`.
#[macro_export]
macro_rules! say {
    ($lang:expr, $key:literal $(, $name:ident = $val:expr)* $(,)?) => {
        $crate::words::catalogue::say($lang, $key, &[$((stringify!($name), &$val as &dyn ::std::fmt::Display)),*])
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn both_languages_hold_the_same_keys_with_the_same_names() {
        let en = parse(EN).unwrap();
        let fr = parse(FR).unwrap();
        let missing_fr: Vec<&String> = en.keys().filter(|k| !fr.contains_key(*k)).collect();
        let missing_en: Vec<&String> = fr.keys().filter(|k| !en.contains_key(*k)).collect();
        assert!(missing_fr.is_empty(), "keys missing in French: {missing_fr:?}");
        assert!(missing_en.is_empty(), "keys missing in English: {missing_en:?}");
        for (k, e) in &en {
            let f = &fr[k];
            assert_eq!(
                std::mem::discriminant(e),
                std::mem::discriminant(f),
                "{k}: a plural in one language is a plural in the other"
            );
            let of = |e: &Entry| {
                let mut n: Vec<String> = e.forms().iter().flat_map(|t| names(t)).collect();
                n.sort();
                n.dedup();
                n
            };
            assert_eq!(of(e), of(f), "{k}: the same values in both languages");
        }
        assert!(en.len() > 20);
        // The verifiers' lines are the same in every language.
        for (k, e) in en.iter().filter(|(k, _)| k.starts_with("fixed.")) {
            assert_eq!(Some(e), fr.get(k), "{k} is a fixed line: the same in both files");
        }
    }

    #[test]
    fn every_key_the_code_asks_for_is_in_the_catalogue() {
        // Every `say!(lang, "key"` in the sources.
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = vec![src];
        let mut asked = Vec::new();
        while let Some(p) = files.pop() {
            if p.is_dir() {
                files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            } else if p.extension().is_some_and(|e| e == "rs") {
                let text = std::fs::read_to_string(&p).unwrap();
                let mut rest = text.as_str();
                while let Some(i) = rest.find("say!(") {
                    rest = &rest[i + 5..];
                    let Some(q) = rest.find('"') else { break };
                    let head = &rest[..q];
                    if head.contains(')') || head.contains(';') {
                        continue;
                    }
                    let key: String = rest[q + 1..].chars().take_while(|&c| c != '"').collect();
                    if key.chars().all(|c| c.is_ascii_lowercase() || c == '.' || c == '_') && key.contains('.') {
                        asked.push((p.display().to_string(), key));
                    }
                }
            }
        }
        assert!(asked.len() > 20, "the sources ask for keys: {}", asked.len());
        let en = parse(EN).unwrap();
        let unknown: Vec<&(String, String)> = asked.iter().filter(|(_, k)| !en.contains_key(k)).collect();
        assert!(unknown.is_empty(), "keys the code asks for that the catalogue lacks: {unknown:?}");
    }

    #[test]
    fn plurals_follow_the_count_and_values_fill_their_names() {
        let e = Entry::Plural { one: "{n} lap".into(), other: "{n} laps".into() };
        assert_eq!(e.forms(), vec!["{n} lap", "{n} laps"]);
        assert_eq!(fill("car {car} to {x} {{", &[("car", &3), ("x", &"s1.l.2")]), "car 3 to s1.l.2 {{");
        assert_eq!(fill("{missing} stays", &[]), "{missing} stays");
        assert_eq!(names("{b} and {a} and {b} {not a name}"), vec!["a", "b"]);
        assert_eq!(say(Lang::En, "count.laps", &[("n", &1)]), "1 lap");
        assert_eq!(say(Lang::En, "count.laps", &[("n", &3)]), "3 laps");
        assert_eq!(say(Lang::Fr, "count.laps", &[("n", &0)]), "0 tour");
        assert_eq!(say(Lang::Fr, "count.laps", &[("n", &2)]), "2 tours");
        assert_eq!(say(Lang::En, "no.such.key", &[]), "no.such.key");
    }
}
