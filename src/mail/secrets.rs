//! Secrets never leave in a reply. A player's token is mailed once, in the welcome to the
//! address that joined (its From); every other mail steward writes passes through
//! [`Secrets::mask`] before it is built (`dispatch::replies`). What a sender wrote and
//! steward echoes — the receipt's lines, the refusals quoting a word, the subject, a display
//! name — may hold a token, a moderator's token or a join password, wherever it was written:
//! after `TOKEN` or `TOKEN :`, in the middle of a misspelt order, in the subject.
//!
//! The secrets of a mail are found in what its sender wrote ([`Secrets::of`]): the word after
//! each secret keyword (`TOKEN`, `JETON`, `PASSWORD`, `MOTDEPASSE`...), and every run of 24
//! hexadecimal digits or more, the shape of every token steward gives
//! (`dispatch::derive_token`: 12 bytes in hex). Masking hides, in a reply, every word holding
//! one of those words and every hexadecimal run holding 24 digits of one of those runs, so an
//! echo cut short still hides what it shows. Pure.

use std::collections::HashSet;

use crate::orders::{Kw, near, squash};

/// What a hidden secret is shown as (docs/orders.md).
pub const MASK: &str = "********";

/// Hexadecimal digits of a token steward gives (`derive_token`: 12 bytes).
pub const TOKEN_HEX_DIGITS: usize = 24;

/// Shortest word after a secret keyword taken for a secret: "my token is ..." must not hide
/// every "is" of the reply.
const MIN_SECRET: usize = 4;

/// The secrets a sender wrote, to hide in every mail answering them.
#[derive(Clone, Debug, Default)]
pub struct Secrets {
    /// Words given after a secret keyword, lower case.
    words: HashSet<String>,
    /// Every window of [`TOKEN_HEX_DIGITS`] digits of the long hexadecimal runs, lower case.
    windows: HashSet<String>,
}

/// Secret keywords, squashed.
const ANNOUNCING: [&str; 7] = ["token", "jeton", "password", "passwd", "motdepasse", "mdp", "secret"];

/// The keywords of the token lines, squashed, whose misspellings announce a secret too: a
/// `TOKN <moderator token>` line is refused as an unknown order and echoed, and a moderator's
/// token is free text, which no hexadecimal rule finds (issue 45, item 10).
const MISSPELT: [&str; 2] = ["token", "jeton"];

/// Whether a word announces a secret: a secret keyword, a word ending in one (a mail whose
/// line breaks were lost glues `GAME g` and `TOKEN x` into `gTOKEN x`), or a token keyword
/// one letter off (`TOKN`, `TOKEM`, `TOKENS`, `JETOM`).
fn announces(word: &str) -> bool {
    let w = squash(word);
    ANNOUNCING.iter().any(|k| w == *k || (w.len() > k.len() && w.ends_with(k)))
        || MISSPELT.iter().any(|k| w != *k && near(&w, k))
}

/// Characters of a word that may be a secret (`orders::name`: letters, digits, `-`, `_`, `.`).
fn word_char(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// Maximal runs of characters for which `keep` holds, with their byte ranges.
fn runs(text: &str, keep: impl Fn(char) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (keep(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

impl Secrets {
    /// The secrets in what a sender wrote (`texts`: the body read, the subject, the name).
    pub fn of(texts: &[&str]) -> Secrets {
        let mut s = Secrets::default();
        for text in texts {
            s.add(text);
        }
        s
    }

    /// Adds the secrets of `text`.
    pub fn add(&mut self, text: &str) {
        for line in text.lines() {
            let words: Vec<&str> = runs(line, word_char).into_iter().map(|(a, b)| &line[a..b]).collect();
            for (i, w) in words.iter().enumerate() {
                if !announces(w) {
                    continue;
                }
                if let Some(next) = words.get(i + 1) {
                    let next = next.trim_matches('.');
                    if next.chars().count() >= MIN_SECRET && Kw::lookup(&squash(next)).is_none() {
                        self.words.insert(next.to_lowercase());
                    }
                }
            }
        }
        for (a, b) in runs(text, |c| c.is_ascii_hexdigit()) {
            let run = text[a..b].to_ascii_lowercase();
            for i in 0..run.len().saturating_sub(TOKEN_HEX_DIGITS - 1) {
                self.windows.insert(run[i..i + TOKEN_HEX_DIGITS].to_string());
            }
        }
    }

    /// Adds every word of `text` for which `secret` holds (the daemon passes the check of its
    /// moderators' token hashes, so a moderator's token is hidden wherever it was written).
    /// Words shorter than the shortest secret or longer than 128 characters are not tried.
    pub fn add_matching(&mut self, text: &str, secret: impl Fn(&str) -> bool) {
        for (a, b) in runs(text, word_char) {
            let w = text[a..b].trim_matches('.');
            if (MIN_SECRET..=128).contains(&w.chars().count()) && secret(w) {
                self.words.insert(w.to_lowercase());
            }
        }
    }

    /// Whether there is nothing to hide.
    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.windows.is_empty()
    }

    /// `text` with every secret hidden: a hexadecimal run holding a window of a secret run,
    /// and a word holding a secret word, become [`MASK`].
    pub fn mask(&self, text: &str) -> String {
        if self.is_empty() {
            return text.to_string();
        }
        let text = self.mask_runs(
            text,
            |c| c.is_ascii_hexdigit(),
            |run| {
                let run = run.to_ascii_lowercase();
                run.len() >= TOKEN_HEX_DIGITS
                    && (0..=run.len() - TOKEN_HEX_DIGITS).any(|i| self.windows.contains(&run[i..i + TOKEN_HEX_DIGITS]))
            },
        );
        self.mask_runs(&text, word_char, |word| {
            let word = word.to_lowercase();
            self.words.iter().any(|s| word.contains(s.as_str()))
        })
    }

    fn mask_runs(&self, text: &str, keep: impl Fn(char) -> bool, secret: impl Fn(&str) -> bool) -> String {
        let mut out = String::with_capacity(text.len());
        let mut last = 0;
        for (a, b) in runs(text, keep) {
            if secret(&text[a..b]) {
                out.push_str(&text[last..a]);
                out.push_str(MASK);
                last = b;
            }
        }
        out.push_str(&text[last..]);
        out
    }
}

/// `text` as it may be mailed: bidi controls and invisible characters dropped, other control
/// characters but line breaks and tabs shown as `?` (`crate::words::names`), so an echoed line reads
/// as it is.
pub fn visible(text: &str) -> String {
    text.chars()
        .filter(|&c| !crate::words::names::is_invisible(c))
        .map(|c| if c.is_control() && c != '\n' && c != '\t' { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_keyword_glued_to_the_word_before_still_announces_a_secret() {
        let s = super::Secrets::of(&["GAME gTOKEN fuzz-moderatorDEADLINE 12"]);
        let echo = s.mask("ERROR: GAME does not take 'fuzz-moderatorDEADLINE': write GAME monaco-1");
        assert!(!echo.contains("fuzz-moderator"), "{echo}");
        assert!(echo.contains(super::MASK), "{echo}");
    }

    use super::*;

    const T: &str = "0123456789abcdef01234567";

    #[test]
    fn a_misspelt_token_keyword_still_hides_the_free_text_after_it() {
        for line in
            ["TOKN moderator-secret", "tokem moderator-secret", "JETOM moderator-secret", "Tokens: moderator-secret"]
        {
            let s = Secrets::of(&[line]);
            let echo = s.mask(&format!("line 3: unknown order: {line}"));
            assert!(!echo.contains("moderator-secret"), "{line}: {echo}");
        }
        // A word one edit away from nothing announced, and the keyword far off, hide nothing.
        for line in ["TOKYO moderator-secret", "TOUR moderator-secret", "TICKET moderator-secret"] {
            let s = Secrets::of(&[line]);
            assert!(s.mask(line).contains("moderator-secret"), "{line}");
        }
        assert!(announces("tokn") && announces("otken") && announces("token") && !announces("tokyo"));
    }

    #[test]
    fn a_word_the_daemon_knows_for_a_secret_is_hidden_without_a_keyword() {
        let mut s = Secrets::of(&["hello"]);
        s.add_matching("please use moderator-secret. thanks", |w| w == "moderator-secret");
        let echo = s.mask("line 1: unknown order: please use moderator-secret. thanks");
        assert!(!echo.contains("moderator-secret") && echo.contains("thanks"), "{echo}");
    }

    #[test]
    fn tokens_are_hidden_wherever_they_are_echoed() {
        let s = Secrets::of(&[&format!("CAR 1 TOKEN {T}\nJETON : moderator-pw\nGEAR zz{T}zz"), "Re: my token"]);
        let reply = format!("   1  CAR 1 TOKEN {T}\n ERROR: not 'zz{T}zz'\n JETON : moderator-pw.");
        let m = s.mask(&reply);
        assert!(!m.contains(T) && !m.contains("moderator-pw"), "{m}");
        assert!(m.contains("CAR 1 TOKEN ********") && m.contains("JETON : ********"), "{m}");
        // An echo cut short still hides what it shows of a longer run.
        let long = format!("ab{T}cd");
        let s = Secrets::of(&[&long]);
        assert_eq!(s.mask(&format!("x {}...", &long[..26])), "x ********...");
        // Nothing else is touched; short words after a keyword are no secret.
        let s = Secrets::of(&["my token is lost"]);
        assert!(s.is_empty());
        assert_eq!(s.mask("it is lost"), "it is lost");
        assert_eq!(Secrets::of(&["GEAR 4"]).mask("GEAR 4 0123"), "GEAR 4 0123");
    }
}
