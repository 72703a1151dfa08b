//! An incoming mail, reduced to what the daemon needs: who sent it, what it answers, whether it
//! must never be answered (bounces, auto-replies, lists: no mail loops), and the text the
//! player wrote, whatever the client did to it (any charset and transfer encoding, HTML only,
//! quoted replies, signatures, Outlook and Gmail top-posting). Pure: bytes in, values out.

use std::fmt;

use mail_parser::{Address, HeaderValue, MessageParser, MimeHeaders};
use thiserror::Error;

/// Largest text read, in bytes (the default of `max_message_bytes`): orders are a few lines.
/// Attachments and other non-text parts do not count; a mail whose text is longer gets a short
/// reply saying so and is not read.
pub const MAX_MESSAGE_BYTES: usize = 256 * 1024;

/// Largest mail whose body is parsed at all, attachments included: a mail above this has only
/// its headers read (for the short reply that says it was too large).
pub const MAX_RAW_BYTES: usize = 32 * 1024 * 1024;

/// Quote levels an HTML mail's text shows (`> ` each): deeper `blockquote`s read as this deep,
/// so the text stays linear in the mail's bytes however deep the nesting (issue 45, item 7: a
/// 515 KB mail of nested blockquotes grew with the square of its depth and exhausted memory).
/// Every quoted line is dropped from the orders anyway.
pub const MAX_QUOTE_DEPTH: usize = 8;

/// Most bytes of text an HTML mail is turned into; the rest is not read (the daemon's
/// `max_message_bytes` refuses far smaller mails).
pub const MAX_HTML_TEXT_BYTES: usize = 8 * 1024 * 1024;

/// Why a mail cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum MessageError {
    /// Bigger than the limit.
    #[error("the mail is {size} bytes; the most read is {max}: send your orders as plain text")]
    TooLarge {
        /// Its size.
        size: usize,
        /// The limit.
        max: usize,
    },
    /// Not a mail at all.
    #[error("this is not a mail message (no header could be read)")]
    Unreadable,
    /// No usable From address.
    #[error("the mail has no sender address (From:)")]
    NoSender,
    /// A From address no reply could be sent to (checked when the mail is read, so that nothing
    /// is committed for an address that cannot be answered).
    #[error("the sender address `{0}` is not one a reply can be sent to")]
    BadSender(String),
}

/// Why a mail must not be answered (RFC 3834, RFC 2369, RFC 3464).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoopReason {
    /// `Auto-Submitted` other than `no` (RFC 3834).
    AutoSubmitted(String),
    /// `Precedence: bulk`, `junk` or `list`.
    Precedence(String),
    /// From a mailer daemon or postmaster.
    DaemonSender(String),
    /// An empty `Return-Path: <>` (bounces, RFC 5321 4.5.5).
    NullReturnPath,
    /// A `List-*` header (RFC 2369, RFC 2919): mailing-list mail.
    ListHeader(String),
    /// A vendor auto-reply header (`X-Autoreply`, `X-Autorespond`, `X-Auto-Response-Suppress`...).
    AutoReplyHeader(String),
    /// A delivery or disposition report (`multipart/report`, RFC 3462).
    Report,
    /// A subject that only an automatic reply has ("Out of Office", "Absence du bureau",
    /// "Réponse automatique"...), from a client that sets no header for it.
    AutoReplySubject(String),
}

impl fmt::Display for LoopReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LoopReason::AutoSubmitted(v) => write!(f, "Auto-Submitted: {v}"),
            LoopReason::Precedence(v) => write!(f, "Precedence: {v}"),
            LoopReason::DaemonSender(a) => write!(f, "sent by {a}"),
            LoopReason::NullReturnPath => write!(f, "empty Return-Path (a bounce)"),
            LoopReason::ListHeader(h) => write!(f, "mailing-list header {h}"),
            LoopReason::AutoReplyHeader(h) => write!(f, "auto-reply header {h}"),
            LoopReason::Report => write!(f, "delivery report"),
            LoopReason::AutoReplySubject(s) => write!(f, "automatic-reply subject {s:?}"),
        }
    }
}

/// What the daemon reads of an incoming mail.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Incoming {
    /// The sender's address (From), lower case.
    pub from: String,
    /// The sender's display name, if any, cleaned and shortened (`crate::words::names`).
    pub from_name: Option<String>,
    /// The Reply-To address, lower case, if any.
    pub reply_to: Option<String>,
    /// The addresses the mail was sent to, lower case: `Delivered-To` and `X-Original-To` (the
    /// envelope recipient, added on delivery), then `To` and `Cc`. A signed reply address is
    /// looked for among them (`mail::tag`).
    pub recipients: Vec<String>,
    /// Message-ID without angle brackets.
    pub message_id: Option<String>,
    /// In-Reply-To ids.
    pub in_reply_to: Vec<String>,
    /// References ids.
    pub references: Vec<String>,
    /// Subject (empty if none).
    pub subject: String,
    /// The Date header in RFC 3339, if any and readable.
    pub date: Option<String>,
    /// The text the sender wrote: quotes, signature and quoted replies removed.
    pub body: String,
    /// The whole body as text, before cleaning.
    pub full_body: String,
    /// Bytes of the text read (the text part, or the HTML part of an HTML-only mail, decoded;
    /// attachments and other parts not counted), or the whole mail's size when it was above
    /// [`MAX_RAW_BYTES`] and only its headers were read.
    pub text_bytes: usize,
    loop_reason: Option<LoopReason>,
}

/// Checks a text's size against `max` before reading it.
pub fn check_size(size: usize, max: usize) -> Result<(), MessageError> {
    if size > max {
        return Err(MessageError::TooLarge { size, max });
    }
    Ok(())
}

/// Whether a reply can be addressed to `address`: the same check the mail builder makes
/// (`lettre::Address`), plus a domain that neither starts nor ends with a dot nor has an empty
/// label, ASCII only, so that an address accepted here never makes the builder fail later.
pub fn is_mailable(address: &str) -> bool {
    let Ok(a) = address.parse::<lettre::Address>() else { return false };
    let domain = a.domain();
    !domain.ends_with('.')
        && !domain.starts_with('.')
        && !domain.contains("..")
        && address.is_ascii()
        && !address.chars().any(|c| c.is_ascii_control() || c == ' ')
        && address.len() <= 254
}

fn first_address(a: Option<&Address<'_>>) -> Option<(String, Option<String>)> {
    let a = a?.first()?;
    let addr = a.address()?.trim().trim_matches(['<', '>']).to_lowercase();
    if addr.is_empty() {
        return None;
    }
    // Shown to other players in every report: cleaned and shortened here (crate::words::names).
    let name = a.name().and_then(crate::words::names::clean_display_name);
    Some((addr, name))
}

fn ids(v: &HeaderValue<'_>) -> Vec<String> {
    match v {
        HeaderValue::Text(t) => vec![t.to_string()],
        HeaderValue::TextList(l) => l.iter().map(|t| t.to_string()).collect(),
        _ => Vec::new(),
    }
}

impl Incoming {
    /// Reads a raw RFC 5322 message: its headers, and its text unless the mail is above
    /// [`MAX_RAW_BYTES`]. The From address is checked here ([`is_mailable`]); a Reply-To that
    /// is not mailable is dropped.
    pub fn parse(raw: &[u8]) -> Result<Incoming, MessageError> {
        let headers_only = raw.len() > MAX_RAW_BYTES;
        let parser = MessageParser::default();
        let m = if headers_only { parser.parse_headers(raw) } else { parser.parse(raw) };
        let m = m.ok_or(MessageError::Unreadable)?;
        if m.headers().is_empty() {
            return Err(MessageError::Unreadable);
        }
        let headers: Vec<(String, String)> =
            m.headers_raw().map(|(n, v)| (n.to_ascii_lowercase(), v.trim().to_string())).collect();
        let (from, from_name) = first_address(m.from()).ok_or(MessageError::NoSender)?;
        if !is_mailable(&from) {
            return Err(MessageError::BadSender(from.chars().filter(|c| !c.is_control()).take(80).collect()));
        }
        let reply_to = first_address(m.reply_to()).map(|(a, _)| a).filter(|a| is_mailable(a));
        let mut recipients: Vec<String> = headers
            .iter()
            .filter(|(n, _)| n == "delivered-to" || n == "x-original-to")
            .map(|(_, v)| v.trim().trim_matches(['<', '>']).to_lowercase())
            .collect();
        for list in [m.to(), m.cc()].into_iter().flatten() {
            recipients.extend(
                list.iter().filter_map(|a| a.address()).map(|a| a.trim().trim_matches(['<', '>']).to_lowercase()),
            );
        }
        recipients.retain(|a| !a.is_empty() && a.len() <= 254);
        recipients.dedup();
        // HTML-only mail: block elements become lines and blockquotes become `>` quotes, which
        // mail-parser's own conversion does not do.
        let html_only = m.text_part(0).is_some_and(|p| p.is_text_html());
        let mut html_bytes = 0;
        let full_body = if headers_only {
            String::new()
        } else if html_only {
            m.body_html(0)
                .map(|h| {
                    html_bytes = h.len();
                    html_to_text(&h)
                })
                .unwrap_or_default()
        } else {
            let text = m.body_text(0).map(|b| b.into_owned()).unwrap_or_default();
            let attr = |name: &str| {
                m.text_part(0)
                    .and_then(|p| p.content_type())
                    .and_then(|ct| ct.attribute(name))
                    .map(str::to_ascii_lowercase)
            };
            if attr("format").as_deref() == Some("flowed") {
                unflow(&text, attr("delsp").as_deref() == Some("yes"))
            } else {
                text
            }
        };
        // An HTML mail is as big as its HTML: its size limit holds whatever the text became.
        let text_bytes = if headers_only { raw.len() } else { full_body.len().max(html_bytes) };
        let body = clean_body(&full_body);
        let report = m.root_part().content_type().is_some_and(|ct| {
            ct.ctype().eq_ignore_ascii_case("multipart")
                && ct.subtype().is_some_and(|s| s.eq_ignore_ascii_case("report"))
        });
        let subject = m.subject().unwrap_or_default().trim().to_string();
        let loop_reason = if report {
            Some(LoopReason::Report)
        } else {
            loop_reason(&headers, &from).or_else(|| auto_reply_subject(&subject))
        };
        Ok(Incoming {
            from,
            from_name,
            reply_to,
            recipients,
            message_id: m.message_id().map(str::to_string),
            in_reply_to: ids(m.in_reply_to()),
            references: ids(m.references()),
            subject,
            date: m.date().map(|d| d.to_rfc3339()),
            body,
            full_body,
            text_bytes,
            loop_reason,
        })
    }

    /// Why this mail must not be answered, if it must not.
    pub fn loop_reason(&self) -> Option<LoopReason> {
        self.loop_reason.clone()
    }

    /// The address replies go to: Reply-To if given, else From.
    pub fn reply_address(&self) -> &str {
        self.reply_to.as_deref().unwrap_or(&self.from)
    }
}

/// The loop checks on raw headers (lower-case names, trimmed values) and the sender.
fn loop_reason(headers: &[(String, String)], from: &str) -> Option<LoopReason> {
    let local = from.split('@').next().unwrap_or_default();
    if matches!(local, "mailer-daemon" | "postmaster" | "mail-daemon" | "mailerdaemon")
        || local.starts_with("mailer-daemon")
    {
        return Some(LoopReason::DaemonSender(from.to_string()));
    }
    for (name, value) in headers {
        let v = value.to_ascii_lowercase();
        let reason = match name.as_str() {
            "auto-submitted" if !v.is_empty() && !v.starts_with("no") => Some(LoopReason::AutoSubmitted(value.clone())),
            "precedence" if matches!(v.as_str(), "bulk" | "junk" | "list" | "auto_reply") => {
                Some(LoopReason::Precedence(value.clone()))
            }
            "return-path" if v.trim_matches(['<', '>', ' ']).is_empty() => Some(LoopReason::NullReturnPath),
            n if n.starts_with("list-") => Some(LoopReason::ListHeader(name.clone())),
            "x-autoreply" | "x-autorespond" | "x-auto-response-suppress" | "x-autogenerated" | "x-loop" => {
                Some(LoopReason::AutoReplyHeader(name.clone()))
            }
            "x-mailing-list" | "mailing-list" => Some(LoopReason::ListHeader(name.clone())),
            _ => None,
        };
        if reason.is_some() {
            return reason;
        }
    }
    None
}

/// How the automatic replies of mail clients and servers begin their subject when they set no
/// `Auto-Submitted` header (Outlook, Exchange, Lotus, Zimbra, Gmail's vacation responder in
/// English, French, German, Spanish, Italian), folded to lower-case ASCII.
const AUTO_REPLY_SUBJECTS: &[&str] = &[
    "out of office",
    "out of the office",
    "automatic reply",
    "auto reply",
    "auto-reply",
    "autoreply",
    "auto:",
    "away from the office",
    "on vacation",
    "vacation reply",
    "absence du bureau",
    "reponse automatique",
    "message d'absence",
    "absent du bureau",
    "abwesenheitsnotiz",
    "automatische antwort",
    "fuera de la oficina",
    "respuesta automatica",
    "risposta automatica",
    "fuori sede",
];

/// An automatic reply told by its subject alone (issue 45, item 14).
fn auto_reply_subject(subject: &str) -> Option<LoopReason> {
    let folded: String = subject
        .chars()
        .map(|c| match c {
            'é' | 'è' | 'ê' | 'É' | 'È' => 'e',
            'á' | 'Á' => 'a',
            'ó' => 'o',
            _ => c.to_ascii_lowercase(),
        })
        .collect();
    let folded = folded.trim_start_matches(['[', ' ']);
    AUTO_REPLY_SUBJECTS.iter().any(|p| folded.starts_with(p)).then(|| LoopReason::AutoReplySubject(subject.to_string()))
}

/// Undoes `format=flowed` (RFC 3676): a line ending in a space goes on with the next line of the
/// same quote depth (Thunderbird and Apple Mail wrap long lines so); space-stuffing is removed;
/// with `delsp=yes` the trailing space itself is dropped. The signature separator stays a line.
pub fn unflow(text: &str, delsp: bool) -> String {
    let text = text.replace("\r\n", "\n");
    let mut out: Vec<String> = Vec::new();
    let mut open: Option<usize> = None;
    for raw in text.split('\n') {
        let depth = raw.chars().take_while(|&c| c == '>').count();
        let mut line = &raw[depth..];
        if let Some(l) = line.strip_prefix(' ') {
            line = l;
        }
        let quote = ">".repeat(depth);
        let joined = match (open, out.last_mut()) {
            (Some(d), Some(last)) if d == depth => {
                last.push_str(line);
                true
            }
            _ => false,
        };
        if !joined {
            out.push(if depth > 0 { format!("{quote} {line}") } else { line.to_string() });
        }
        let soft = line.ends_with(' ') && line != "-- ";
        open = soft.then_some(depth);
        if soft
            && delsp
            && let Some(last) = out.last_mut()
        {
            last.pop();
        }
    }
    out.join("\n")
}

/// Whether a line starts a top-posted quote whose text is not marked with `>`: Outlook's
/// "-----Original Message-----" or its line of underscores, and a "From: ... Sent:" block.
fn quote_block_starts(lines: &[&str], i: usize) -> bool {
    let l = lines[i].trim();
    let lower = l.to_lowercase();
    if lower.starts_with("-----") && (lower.contains("original") || lower.contains("origine")) {
        return true;
    }
    if l.len() >= 10 && l.chars().all(|c| c == '_') {
        return true;
    }
    let header = |s: &str, names: &[&str]| {
        let s = s.trim().trim_start_matches('*').to_lowercase();
        names.iter().any(|n| s.starts_with(n))
    };
    if header(l, &["from:", "de :", "de:", "von:"]) {
        return lines[i + 1..]
            .iter()
            .take(4)
            .any(|n| header(n, &["sent:", "date:", "envoyé :", "envoyé:", "gesendet:", "to:", "à :"]));
    }
    false
}

/// Whether a line (perhaps with the next, when the client wrapped it) is an attribution such as
/// "On Mon, 3 Nov 2026, Ann <ann@x.org> wrote:" or "Le lun. 3 nov. 2026, Ann a écrit :".
/// Returns the number of lines it takes.
fn attribution(lines: &[&str], i: usize) -> Option<usize> {
    let ends = |s: &str| {
        let s = s.trim_end().to_lowercase();
        s.ends_with("wrote:") || s.ends_with("écrit :") || s.ends_with("écrit:") || s.ends_with("schrieb:")
    };
    let l = lines[i].trim_start();
    let starts = ["On ", "Le ", "Am "].iter().any(|p| l.starts_with(p));
    if !starts {
        return None;
    }
    if ends(l) {
        return Some(1);
    }
    match lines.get(i + 1) {
        Some(n) if ends(n) && !n.trim_start().starts_with('>') => Some(2),
        _ => None,
    }
}

/// The text a sender wrote: lines quoted with `>` dropped, everything after a signature
/// separator (`-- `) or the start of a top-posted quote dropped, and an attribution line
/// ("On ... wrote:") dropped when quoted lines follow it (a bottom-posted answer goes on below
/// them) or cut with all that follows when the quote is not marked (HTML converted to text).
pub fn clean_body(text: &str) -> String {
    let text = text.replace("\r\n", "\n").replace(['\r', '\u{a0}'], " ").replace('\u{feff}', "");
    let lines: Vec<&str> = text.lines().collect();
    let mut out: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = lines[i];
        let t = l.trim_end();
        if t == "--" || t == "-- " || l == "-- " {
            break;
        }
        if l.trim_start().starts_with('>') {
            i += 1;
            continue;
        }
        if quote_block_starts(&lines, i) {
            break;
        }
        if let Some(n) = attribution(&lines, i) {
            let quoted_next =
                lines[i + n..].iter().find(|l| !l.trim().is_empty()).is_none_or(|l| l.trim_start().starts_with('>'));
            if !quoted_next {
                break;
            }
            i += n;
            continue;
        }
        out.push(t);
        i += 1;
    }
    while out.last().is_some_and(|l| l.trim().is_empty()) {
        out.pop();
    }
    let start = out.iter().position(|l| !l.trim().is_empty()).unwrap_or(out.len());
    let mut s = out[start..].join("\n");
    if !s.is_empty() {
        s.push('\n');
    }
    s
}

/// HTML to plain text for order reading: block elements (`p`, `div`, `br`, `li`, `tr`,
/// headings) end lines, text inside `blockquote` is quoted with `> `, `head`, `style` and
/// `script` are dropped, entities are decoded, other tags vanish. Time and memory are linear in
/// `html`'s bytes: at most [`MAX_QUOTE_DEPTH`] quote marks a line, at most
/// [`MAX_HTML_TEXT_BYTES`] of text.
pub fn html_to_text(html: &str) -> String {
    let mut out = String::new();
    let mut quote = 0usize;
    let mut skip: Option<String> = None;
    let mut at_line_start = true;
    let mut rest = html;
    let newline = |out: &mut String, at_line_start: &mut bool| {
        out.push('\n');
        *at_line_start = true;
    };
    while !rest.is_empty() && out.len() < MAX_HTML_TEXT_BYTES {
        if let Some(tag_start) = rest.strip_prefix('<') {
            let end = tag_start.find('>').unwrap_or(tag_start.len());
            let tag = &tag_start[..end];
            rest = tag_start.get(end + 1..).unwrap_or("");
            let closing = tag.starts_with('/');
            let name: String = tag
                .trim_start_matches('/')
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric())
                .collect::<String>()
                .to_ascii_lowercase();
            if let Some(s) = &skip {
                if closing && *s == name {
                    skip = None;
                }
                continue;
            }
            match name.as_str() {
                "head" | "style" | "script" | "title" if !closing && !tag.ends_with('/') => skip = Some(name),
                "blockquote" => {
                    quote = if closing { quote.saturating_sub(1) } else { quote + 1 };
                    if !at_line_start {
                        newline(&mut out, &mut at_line_start);
                    }
                }
                "br" | "p" | "div" | "li" | "tr" | "h1" | "h2" | "h3" | "h4" | "h5" | "h6" | "pre" | "table" | "ul"
                | "ol" | "hr"
                    if !at_line_start || name == "br" =>
                {
                    newline(&mut out, &mut at_line_start);
                }
                _ => {}
            }
            continue;
        }
        let next = rest.find('<').unwrap_or(rest.len());
        let text = &rest[..next];
        rest = &rest[next..];
        if skip.is_some() {
            continue;
        }
        for c in decode_entities(text).chars() {
            let c = if c == '\u{a0}' || c == '\t' { ' ' } else { c };
            if c == '\n' || c == '\r' {
                // Source line breaks are spaces in HTML.
                if !at_line_start && !out.ends_with(' ') {
                    out.push(' ');
                }
                continue;
            }
            if at_line_start {
                if c == ' ' {
                    continue;
                }
                out.extend(std::iter::repeat_n("> ", quote.min(MAX_QUOTE_DEPTH)));
                at_line_start = false;
            }
            out.push(c);
        }
    }
    out.lines().map(str::trim_end).collect::<Vec<_>>().join("\n")
}

/// Decodes the HTML entities mail clients write (`&lt;`, `&amp;`, `&nbsp;`, `&#233;`, `&#xE9;`,
/// and the accented letters of French); an unknown entity stays as written.
fn decode_entities(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(p) = rest.find('&') {
        out.push_str(&rest[..p]);
        rest = &rest[p..];
        let end = rest[1..].find(';').map(|e| e + 1).filter(|&e| e <= 10);
        let decoded = end.and_then(|e| {
            let name = &rest[1..e];
            let c = match name {
                "lt" => Some('<'),
                "gt" => Some('>'),
                "amp" => Some('&'),
                "quot" => Some('"'),
                "apos" => Some('\''),
                "nbsp" => Some(' '),
                "eacute" => Some('é'),
                "egrave" => Some('è'),
                "ecirc" => Some('ê'),
                "agrave" => Some('à'),
                "ccedil" => Some('ç'),
                "ucirc" => Some('û'),
                "Eacute" => Some('É'),
                _ => {
                    let n = name.strip_prefix('#')?;
                    let v = match n.strip_prefix(['x', 'X']) {
                        Some(h) => u32::from_str_radix(h, 16).ok()?,
                        None => n.parse().ok()?,
                    };
                    char::from_u32(v)
                }
            };
            c.map(|c| (c, e))
        });
        match decoded {
            Some((c, e)) => {
                out.push(c);
                rest = &rest[e + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}
