//! Display names from mail (`From: "Ann Dupont" <ann@x.org>`), made safe to show to other
//! players. A sender chooses their display name freely, and steward copies it into every
//! player's report, so a name could otherwise carry line breaks (a fake "MODERATOR NOTICE" on
//! a line of its own), ANSI escapes (a terminal repainted), bidi overrides and zero-width
//! characters (text that reads other than it is) or a secret. The mail reader cleans a name
//! when the mail is read, and the reports clean it again when they show it, so names stored
//! by older versions are shown clean too. Pure.

/// Most characters of a name as shown; longer names are cut and end with `...`.
pub const MAX_NAME_CHARS: usize = 32;

/// Runs of this many hexadecimal digits or more are hidden in a name: a player's token has 24
/// (`mail::secrets`), and no name needs one.
const HEX_RUN: usize = 24;

/// Whether `c` changes how text around it is read without being visible: the bidi controls
/// (U+061C, U+200E/F, U+202A-E, U+2066-9), zero-width and invisible format characters,
/// variation selectors, Hangul fillers and the tag characters.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{061C}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{17B4}'
            | '\u{17B5}'
            | '\u{180B}'..='\u{180F}'
            | '\u{200B}'..='\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E0FFF}'
    )
}

/// Whether `c` may not appear in a cleaned name: a control character or an invisible one.
pub fn is_unsafe(c: char) -> bool {
    c.is_control() || is_invisible(c) || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Drops ANSI escape sequences: CSI (`ESC [` ... final byte), OSC (`ESC ]` ... BEL or `ESC \`)
/// and two-character escapes.
fn strip_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut it = s.chars().peekable();
    while let Some(c) = it.next() {
        if c != '\u{1b}' && c != '\u{9b}' {
            out.push(c);
            continue;
        }
        let csi = c == '\u{9b}' || it.next_if_eq(&'[').is_some();
        if csi {
            // Parameters and intermediates up to the final byte (0x40-0x7E).
            for d in it.by_ref() {
                if ('\u{40}'..='\u{7e}').contains(&d) {
                    break;
                }
            }
        } else if it.next_if_eq(&']').is_some() {
            while let Some(d) = it.next() {
                if d == '\u{7}' || (d == '\u{1b}' && it.next_if_eq(&'\\').is_some()) {
                    break;
                }
            }
        } else {
            it.next();
        }
    }
    out
}

/// Hides runs of [`HEX_RUN`] hexadecimal digits or more (`********`).
fn hide_hex(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut run = String::new();
    let flush = |out: &mut String, run: &mut String| {
        if run.len() >= HEX_RUN {
            out.push_str("********");
        } else {
            out.push_str(run);
        }
        run.clear();
    };
    for c in s.chars() {
        if c.is_ascii_hexdigit() {
            run.push(c);
        } else {
            flush(&mut out, &mut run);
            out.push(c);
        }
    }
    flush(&mut out, &mut run);
    out
}

/// A display name as it may be shown: escapes, control and invisible characters removed (line
/// breaks and tabs become spaces), spaces collapsed, long hexadecimal runs hidden, cut to
/// [`MAX_NAME_CHARS`]. `None` when nothing printable is left.
pub fn clean_display_name(name: &str) -> Option<String> {
    let text: String = strip_escapes(name)
        .chars()
        .map(|c| if c.is_whitespace() { ' ' } else { c })
        .filter(|&c| !is_unsafe(c))
        .collect();
    let text = hide_hex(&text.split_whitespace().collect::<Vec<_>>().join(" "));
    let text = text.trim_matches(|c: char| c == '"' || c == '\'' || c.is_whitespace());
    if text.is_empty() {
        return None;
    }
    if text.chars().count() <= MAX_NAME_CHARS {
        return Some(text.to_string());
    }
    let cut: String = text.chars().take(MAX_NAME_CHARS - 3).collect();
    Some(format!("{}...", cut.trim_end()))
}

/// Whether `text` holds something shaped like an e-mail address (`name@host.tld`, as a word or
/// inside one): what a public page must never show (issue 50).
pub fn holds_address(text: &str) -> bool {
    text.char_indices().filter(|&(_, c)| c == '@').any(|(i, _)| {
        let local = |c: char| c.is_alphanumeric() || "._%+-".contains(c);
        let before = text[..i].chars().next_back().is_some_and(local);
        let host: String = text[i + 1..].chars().take_while(|&c| c.is_alphanumeric() || c == '.' || c == '-').collect();
        before && host.trim_end_matches('.').contains('.')
    })
}

/// The name of a player or a driver as others see it (reports, pages, tables): the display name
/// cleaned ([`clean_display_name`]), else `fallback` ("car 3", "driver 2"). Never an address:
/// a bare `From:` has no name, and a display name that is itself an address is not used
/// (issue 45, item 9: a player who joined with a bare `From:` had their address on the public
/// race page and in every other player's report).
pub fn public_name(name: Option<&str>, fallback: impl FnOnce() -> String) -> String {
    name.and_then(clean_display_name).filter(|n| !n.contains('@')).unwrap_or_else(fallback)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_is_seen_wherever_it_stands() {
        assert!(holds_address("driver1@demo.invalid races demo-league-03"));
        assert!(holds_address("write to <ann.d@x.org>."));
        assert!(!holds_address("demo driver 1 says hello"));
        assert!(!holds_address("@ home, a@b, 5 @ 3.2"));
    }

    #[test]
    fn names_lose_breaks_escapes_bidi_and_length() {
        assert_eq!(clean_display_name("Ann Dupont").as_deref(), Some("Ann Dupont"));
        assert_eq!(clean_display_name("Ann\r\nMODERATOR NOTICE").as_deref(), Some("Ann MODERATOR NOTICE"));
        assert_eq!(clean_display_name("\u{1b}[31mRed\u{1b}[0m").as_deref(), Some("Red"));
        assert_eq!(clean_display_name("\u{1b}]0;title\u{7}Bob").as_deref(), Some("Bob"));
        assert_eq!(clean_display_name("evil\u{202E}gnp.exe").as_deref(), Some("evilgnp.exe"));
        assert_eq!(clean_display_name("a\u{200B}d\u{2066}m\u{FEFF}in").as_deref(), Some("admin"));
        assert_eq!(clean_display_name("\u{202E}\u{200B} \r\n"), None);
        let long = clean_display_name(&"x".repeat(200)).unwrap();
        assert_eq!(long.chars().count(), MAX_NAME_CHARS);
        assert!(long.ends_with("..."));
        let t = "0123456789abcdef01234567";
        assert_eq!(clean_display_name(&format!("my {t}")).as_deref(), Some("my ********"));
    }
}
