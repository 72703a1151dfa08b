//! Mail texts from `templates/` and the MIME messages that carry them.
//!
//! Every reply is `multipart/alternative`: the text itself, and an HTML part holding the same
//! text in a `<pre>` block, so that webmail (which re-flows plain text in a proportional font)
//! keeps the board's columns. A report that shows a board also carries its picture: the HTML
//! part and the PNG then make a `multipart/related` part, the HTML showing the PNG by its
//! Content-ID above the text. Replies are marked `Auto-Submitted: auto-replied` (RFC 3834) so
//! that other robots do not answer them.

use std::path::PathBuf;

use lettre::Message;
use lettre::message::header::ContentType;
use lettre::message::header::{HeaderName, HeaderValue};
use lettre::message::{Attachment, Body, Mailbox, MultiPart, SinglePart};
use minijinja::Environment;
use serde::Serialize;

use crate::mail::limits::{MAX_REPLY_BYTES, MAX_REPLY_TEXT, cap_text};
use crate::words::Lang;

/// The built-in templates: (language, name, text).
const BUILT_IN: &[(&str, &str, &str)] = &[
    ("en", "receipt", include_str!("../../templates/en/receipt.txt")),
    ("en", "report", include_str!("../../templates/en/report.txt")),
    ("en", "welcome", include_str!("../../templates/en/welcome.txt")),
    ("en", "copy", include_str!("../../templates/en/copy.txt")),
    ("en", "reminder", include_str!("../../templates/en/reminder.txt")),
    ("en", "announce", include_str!("../../templates/en/announce.txt")),
    ("en", "help", include_str!("../../templates/en/help.txt")),
    ("fr", "receipt", include_str!("../../templates/fr/receipt.txt")),
    ("fr", "report", include_str!("../../templates/fr/report.txt")),
    ("fr", "welcome", include_str!("../../templates/fr/welcome.txt")),
    ("fr", "copy", include_str!("../../templates/fr/copy.txt")),
    ("fr", "reminder", include_str!("../../templates/fr/reminder.txt")),
    ("fr", "announce", include_str!("../../templates/fr/announce.txt")),
    ("fr", "help", include_str!("../../templates/fr/help.txt")),
];

/// A template that cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum TemplateError {
    /// No such template.
    #[error("no template `{0}`")]
    Missing(String),
    /// The template does not render.
    #[error("template {name}: {message}")]
    Render {
        /// `lang/name`.
        name: String,
        /// What went wrong, with its line.
        message: String,
    },
    /// The message cannot be built (a bad address...).
    #[error("cannot build the mail: {0}")]
    Build(String),
}

/// The mail texts.
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// The built-in texts, each replaced by `dir/<lang>/<name>.txt` when that file exists.
    pub fn new(dir: Option<PathBuf>) -> Result<Self, TemplateError> {
        let mut env = Environment::new();
        let syntax = minijinja::syntax::SyntaxConfig::builder()
            .keep_trailing_newline(true)
            .build()
            .map_err(|e| TemplateError::Render { name: "syntax".into(), message: e.to_string() })?;
        env.set_syntax(syntax);
        for (lang, name, text) in BUILT_IN {
            let key = format!("{lang}/{name}");
            let text = dir
                .as_ref()
                .and_then(|d| std::fs::read_to_string(d.join(lang).join(format!("{name}.txt"))).ok())
                .unwrap_or_else(|| (*text).to_string());
            env.add_template_owned(key.clone(), text)
                .map_err(|e| TemplateError::Render { name: key, message: e.to_string() })?;
        }
        Ok(Templates { env })
    }

    /// Renders template `name` in `lang` with `ctx`.
    pub fn render<S: Serialize>(&self, lang: Lang, name: &str, ctx: S) -> Result<String, TemplateError> {
        let key = format!("{}/{name}", lang.code());
        let t = self.env.get_template(&key).map_err(|_| TemplateError::Missing(key.clone()))?;
        t.render(minijinja::value::Serde(ctx))
            .map_err(|e| TemplateError::Render { name: key, message: format!("{e:#}") })
    }
}

/// A mail to build.
#[derive(Clone, Debug, Default)]
pub struct Draft {
    /// Recipients.
    pub to: Vec<String>,
    /// Subject.
    pub subject: String,
    /// The text.
    pub text: String,
    /// The message answered, for threading.
    pub in_reply_to: Option<String>,
    /// This message's id (without angle brackets), stable for a given reply.
    pub message_id: String,
    /// `Reply-To`: a prompt's signed reply address (`mail::tag`), so that a reply answers it.
    pub reply_to: Option<String>,
    /// The picture of the board, shown at the top of the HTML part (a report that shows a
    /// board); the text part keeps the ASCII board.
    pub picture: Option<Picture>,
}

/// A picture for the HTML part of a mail.
#[derive(Clone, Debug)]
pub struct Picture {
    /// The PNG.
    pub png: Png,
    /// The text shown where the picture is not (`alt`).
    pub alt: String,
}

/// A PNG as a mail carries it: its bytes and their base64 body, encoded once. One position's
/// picture goes to every player of the game (`report::Boards` keeps it), and encoding it
/// again for each mail was a tenth of the daemon's own CPU a message (issue 17).
#[derive(Clone, Debug)]
pub struct Png {
    bytes: Vec<u8>,
    body: Body,
}

impl Png {
    /// The PNG `bytes`, encoded for mails.
    pub fn new(bytes: Vec<u8>) -> Self {
        // A `Vec<u8>` body is always base64 (lettre's `Body::new`).
        let body = Body::new(bytes.clone());
        Png { bytes, body }
    }

    /// The PNG bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

impl PartialEq for Png {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

/// `text` with every line ending as CR LF, in one pass over its bytes (CR and LF are never part
/// of a longer UTF-8 character). The mail builder would otherwise insert each CR into the string
/// one by one, which is quadratic in the number of lines.
fn crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 16 + 2);
    let mut rest = text;
    while let Some(i) = rest.find('\n') {
        let line = &rest[..i];
        out.push_str(line);
        if !line.ends_with('\r') {
            out.push('\r');
        }
        out.push('\n');
        rest = &rest[i + 1..];
    }
    out.push_str(rest);
    out
}

/// The widest line of a mail's text part: what mail clients show without wrapping (issue 47).
pub const TEXT_WIDTH: usize = 78;

/// `text` with every line over `width` columns folded: at a clause (`; `) where it can, else at
/// a space, each continuation indented four columns deeper than the line. A word longer than
/// a line (an address, a hash) is kept whole. Lines within `width` are kept as they are (the
/// board, the lines to copy).
pub fn fold(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split('\n') {
        if line.chars().count() <= width {
            out.push_str(line);
            out.push('\n');
            continue;
        }
        let lead = line.len() - line.trim_start().len();
        let more = " ".repeat((lead + 4).min(width / 2));
        // The clauses, each with its `; `, then its words.
        let mut pieces: Vec<String> = Vec::new();
        for clause in line.trim_start().split_inclusive("; ") {
            if clause.chars().count() + more.len() <= width {
                pieces.push(clause.to_string());
            } else {
                pieces.extend(clause.split_inclusive(' ').map(str::to_string));
            }
        }
        let mut cur = line[..lead].to_string();
        let mut fresh = true;
        for p in pieces {
            let len = cur.chars().count() + p.trim_end().chars().count();
            if !fresh && len > width {
                out.push_str(cur.trim_end());
                out.push('\n');
                cur = more.clone();
            }
            cur.push_str(&p);
            fresh = false;
        }
        out.push_str(cur.trim_end());
        out.push('\n');
    }
    out.pop();
    out
}

/// Builds the RFC 5322 bytes of `draft`, from `from_name <from>`: at most [`MAX_REPLY_BYTES`]
/// (a longer text is cut, [`cap_text`]), its lines folded within [`TEXT_WIDTH`] ([`fold`]);
/// linear in the text.
pub fn build(draft: &Draft, from_name: &str, from: &str) -> Result<Vec<u8>, TemplateError> {
    let mut max = MAX_REPLY_TEXT;
    // A mail ends with its last line, not with the blank lines its templates leave.
    let whole = format!("{}\n", fold(draft.text.trim_end(), TEXT_WIDTH));
    loop {
        let text = cap_text(&whole, max);
        let raw = build_text(draft, &text, draft.picture.as_ref(), from_name, from)?;
        if raw.len() <= MAX_REPLY_BYTES || max < 1024 {
            return Ok(raw);
        }
        // The picture goes before the text is cut: the text part has the board too.
        if draft.picture.is_some() {
            let raw = build_text(draft, &text, None, from_name, from)?;
            if raw.len() <= MAX_REPLY_BYTES {
                return Ok(raw);
            }
        }
        max /= 2;
    }
}

fn build_text(
    draft: &Draft,
    text: &str,
    picture: Option<&Picture>,
    from_name: &str,
    from: &str,
) -> Result<Vec<u8>, TemplateError> {
    let bad = |e: &dyn std::fmt::Display| TemplateError::Build(e.to_string());
    let from_box = Mailbox::new(Some(from_name.to_string()), from.parse().map_err(|e| bad(&e))?);
    let mut b = Message::builder()
        .from(from_box)
        .subject(short_header(&draft.subject))
        .message_id(Some(format!("<{}>", draft.message_id)))
        .raw_header(HeaderValue::new(HeaderName::new_from_ascii_str("Auto-Submitted"), "auto-replied".into()))
        .raw_header(HeaderValue::new(HeaderName::new_from_ascii_str("X-Auto-Response-Suppress"), "All".into()));
    for t in &draft.to {
        b = b.to(Mailbox::new(None, t.parse().map_err(|e| bad(&e))?));
    }
    if let Some(r) = &draft.reply_to {
        b = b.reply_to(Mailbox::new(Some(from_name.to_string()), r.parse().map_err(|e| bad(&e))?));
    }
    // An id longer than a header line may be is a sender's game, not a thread to follow.
    if let Some(r) = draft.in_reply_to.as_ref().filter(|r| r.len() <= 250 && !r.chars().any(char::is_control)) {
        let r = if r.starts_with('<') { r.clone() } else { format!("<{r}>") };
        b = b.in_reply_to(r.clone()).references(r);
    }
    let text = crlf(text);
    let Some(picture) = picture else {
        let html = format!(
            "<!DOCTYPE html>\r\n<html><body><pre style=\"font-family: monospace\">{}</pre></body></html>\r\n",
            escape_html(&text)
        );
        let m = b.multipart(MultiPart::alternative_plain_html(text, html)).map_err(|e| bad(&e))?;
        return Ok(m.formatted());
    };
    // multipart/alternative: the text, and multipart/related: the HTML and the picture it
    // shows by Content-ID (what Gmail, Outlook and Thunderbird display inline).
    let domain = from.rsplit_once('@').map_or("steward", |(_, d)| d);
    let cid = format!("board@{domain}");
    let (w, h) = crate::render::picture::MAIL_SIZE;
    let html = format!(
        "<!DOCTYPE html>\r\n<html><body><p><img src=\"cid:{cid}\" width=\"{w}\" height=\"{h}\" alt=\"{}\"></p>\r\n\
         <pre style=\"font-family: monospace\">{}</pre></body></html>\r\n",
        escape_html(&picture.alt),
        escape_html(&text)
    );
    let png = ContentType::parse("image/png").map_err(|e| bad(&e))?;
    let m = b
        .multipart(MultiPart::alternative().singlepart(SinglePart::plain(text)).multipart(
            MultiPart::related().singlepart(SinglePart::html(html)).singlepart(
                Attachment::new_inline_with_name(cid, "board.png".into()).body(picture.png.body.clone(), png),
            ),
        ))
        .map_err(|e| bad(&e))?;
    Ok(m.formatted())
}

/// Most characters of a reply's subject (a mail's subject is echoed as `Re: ...`).
const SUBJECT_CHARS: usize = 200;

/// A header text kept to [`SUBJECT_CHARS`] characters, control characters as spaces.
fn short_header(s: &str) -> String {
    let mut out: String = s.chars().take(SUBJECT_CHARS).map(|c| if c.is_control() { ' ' } else { c }).collect();
    if s.chars().nth(SUBJECT_CHARS).is_some() {
        out.push_str("...");
    }
    out
}

/// `<`, `>`, `&`, `"` and `'` as HTML entities: the one escaper of the project's HTML (the
/// mails' HTML part, the board picture, the web pages).
pub use crate::render::picture::escape as escape_html;

#[cfg(test)]
mod tests {
    use super::*;
    use mail_parser::MimeHeaders;

    /// Issue 47: a move's summary line of 181 columns folds at its clauses, indented, and no
    /// word is cut; short lines, blank lines and a word longer than a line stay as they are.
    #[test]
    fn long_lines_fold_at_clauses_within_78_columns() {
        let long = "Turn 289-290 car 4 (gear 5): rolls gear5-d20 for move: 11; takes A; takes the slipstream of car 1: 3 more spaces; moves 14 spaces from c7.l.2 to s7.r.4";
        let text = format!("  board line\n\n{long}\n    {}\nend", "x".repeat(90));
        let f = fold(&text, 78);
        let lines: Vec<&str> = f.lines().collect();
        assert_eq!(lines[0], "  board line");
        assert_eq!(lines[1], "");
        assert!(lines[2].ends_with("takes A;"), "{f}");
        assert!(lines[3].starts_with("    takes the slipstream"), "{f}");
        assert!(f.lines().filter(|l| !l.contains("xxxx")).all(|l| l.chars().count() <= 78), "{f}");
        let words = |s: &str| s.split_whitespace().map(str::to_string).collect::<Vec<_>>();
        assert_eq!(words(&f), words(&text), "nothing lost or cut");
        assert!(f.ends_with("\nend"));
        assert_eq!(fold("short\n", 78), "short\n");
    }

    #[test]
    fn every_line_ends_with_cr_lf_once() {
        assert_eq!(crlf("a\nb\r\nc"), "a\r\nb\r\nc");
        assert_eq!(crlf("\n\nvoilà\n"), "\r\n\r\nvoilà\r\n");
        assert_eq!(crlf("lone\rcr\r\n"), "lone\rcr\r\n");
        assert_eq!(crlf(""), "");
    }

    #[test]
    fn the_picture_encoded_once_is_the_picture_the_mail_carries() {
        let bytes: Vec<u8> = (0..=255u8).cycle().take(5000).collect();
        let draft = Draft {
            to: vec!["p1@league.test".into()],
            subject: "[gp1] car 1: your gear (turn 3)".into(),
            text: "GEAR 4\nline two\n".into(),
            in_reply_to: None,
            message_id: "r1@league.test".into(),
            reply_to: None,
            picture: Some(Picture { png: Png::new(bytes.clone()), alt: "the board".into() }),
        };
        let raw = build(&draft, "steward", "steward@league.test").unwrap();
        let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
        let png = m.attachments().find(|a| a.content_type().is_some_and(|c| c.subtype() == Some("png"))).unwrap();
        assert_eq!(png.contents(), &bytes[..]);
        assert!(m.body_text(0).unwrap().contains("line two"));
    }
}
