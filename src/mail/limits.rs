//! The sizes no mail can push steward past: how much of a mail's lines a receipt echoes, how
//! long a reply to a stranger is, and the largest reply of all. They exist so that a sender
//! (perhaps spoofing someone else's address) can never make steward mail out much more than
//! it was sent (docs/daemon.md, "Limits"). Every function here is linear in its input.

/// Largest reply steward sends, in bytes, headers and both parts included (docs/daemon.md). A
/// text that would make a larger mail is cut ([`cap_text`]) before it is built.
pub const MAX_REPLY_BYTES: usize = 256 * 1024;

/// Largest text of a reply, in bytes: the mail carries it twice (text and HTML, each perhaps
/// quoted-printable) and its headers, all within [`MAX_REPLY_BYTES`].
pub const MAX_REPLY_TEXT: usize = 96 * 1024;

/// `text` cut to at most `max` bytes at a line end, with a last line saying how many lines were
/// left out. Linear in the text.
pub fn cap_text(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let room = max.saturating_sub(80);
    let mut cut = text[..text.floor_char_boundary(room)].rfind('\n').map_or(0, |i| i + 1);
    if cut == 0 {
        cut = text.floor_char_boundary(room);
    }
    let left = text[cut..].lines().count();
    let mut out = String::with_capacity(cut + 80);
    out.push_str(&text[..cut]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("... {left} more lines not shown\n"));
    out
}

/// Most orders one mail may give (headers such as `GAME` and `TOKEN` not counted): a mail with
/// more is refused whole. A player's mail holds a handful; each order may load its game, so a
/// mail of 50,000 orders would otherwise keep the daemon busy for minutes.
pub const MAX_ORDERS: usize = 100;

/// Most lines of a mail a receipt echoes; the rest are counted, not shown.
pub const ECHO_LINES: usize = 200;

/// Most bytes of a receipt's echoed lines.
pub const ECHO_BYTES: usize = 16 * 1024;

/// Most lines echoed to a sender who is not a player of the game the mail names (nor a
/// moderator) and whose mail applied nothing.
pub const STRANGER_ECHO_LINES: usize = 20;

/// Largest text of a reply to such a stranger, in bytes.
pub const STRANGER_TEXT: usize = 8 * 1024;

/// A receipt cut to at most `lines` echoed lines and `bytes` bytes, with "... N more lines not
/// shown" in place of the rest; the summary (the paragraph after the last blank line) is kept.
pub fn cap_receipt(receipt: &str, lines: usize, bytes: usize) -> String {
    let all: Vec<&str> = receipt.lines().collect();
    let split = all.iter().rposition(|l| l.trim().is_empty()).unwrap_or(all.len());
    let (body, summary) = all.split_at(split);
    let mut out = String::new();
    let mut shown = 0;
    for l in body {
        if shown >= lines || out.len() + l.len() + 1 > bytes {
            break;
        }
        out.push_str(l);
        out.push('\n');
        shown += 1;
    }
    let hidden = body.len() - shown;
    if hidden == 0 {
        return receipt.to_string();
    }
    out.push_str(&format!("... {hidden} more lines not shown\n"));
    for l in summary {
        out.push_str(l);
        out.push('\n');
    }
    out
}
