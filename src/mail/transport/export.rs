//! The mails a player exported, read back as raw messages: a Maildir folder (`cur/` and `new/`;
//! a plain directory of message files is taken file by file) or an mbox file (mboxrd: a line
//! `>From ` loses one `>`). `steward verify --mail` checks the dice from them (docs/dice.md); like
//! the rest of the transports this only moves bytes, it never parses a message.

use std::fs;
use std::path::Path;

use super::TransportError;

/// One exported message: where it was (a file name, or `mbox #n`) and its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Exported {
    /// The file (Maildir) or the message's place in the mbox, for naming it in a report.
    pub place: String,
    /// The RFC 5322 bytes.
    pub raw: Vec<u8>,
}

/// The messages of the Maildir folder or mbox file at `path`, in the mbox's order, or by file
/// name in a folder.
pub fn read_exported(path: &Path) -> Result<Vec<Exported>, TransportError> {
    let meta = fs::metadata(path).map_err(|e| TransportError::maildir("read", path, e))?;
    if !meta.is_dir() {
        let bytes = fs::read(path).map_err(|e| TransportError::maildir("read the mbox", path, e))?;
        return Ok(split_mbox(&bytes));
    }
    let subdirs: Vec<_> = ["cur", "new"].iter().map(|s| path.join(s)).filter(|d| d.is_dir()).collect();
    let dirs = if subdirs.is_empty() { vec![path.to_path_buf()] } else { subdirs };
    let mut out = Vec::new();
    for d in dirs {
        let mut names = Vec::new();
        for e in fs::read_dir(&d).map_err(|e| TransportError::maildir("list the Maildir folder", &d, e))? {
            let e = e.map_err(|e| TransportError::maildir("list the Maildir folder", &d, e))?;
            if e.file_type().is_ok_and(|t| t.is_file()) {
                names.push(e.path());
            }
        }
        names.sort();
        for p in names {
            let raw = fs::read(&p).map_err(|e| TransportError::maildir("read the message", &p, e))?;
            let place = p.strip_prefix(path).unwrap_or(&p).display().to_string();
            out.push(Exported { place, raw });
        }
    }
    Ok(out)
}

/// The messages of an mbox file: each starts at a `From ` line at the start of the file or after
/// an empty line; `>From ` (with any number of `>`) loses one `>`.
pub fn split_mbox(bytes: &[u8]) -> Vec<Exported> {
    let mut out: Vec<Exported> = Vec::new();
    let mut current: Option<Vec<u8>> = None;
    let mut blank_before = true;
    for line in bytes.split_inclusive(|&b| b == b'\n') {
        if line.starts_with(b"From ") && blank_before {
            if let Some(raw) = current.take() {
                out.push(Exported { place: format!("mbox message {}", out.len() + 1), raw });
            }
            current = Some(Vec::new());
            blank_before = false;
            continue;
        }
        blank_before = line == b"\n" || line == b"\r\n";
        if let Some(raw) = current.as_mut() {
            let quoted = line.iter().position(|&b| b != b'>').is_some_and(|i| i > 0 && line[i..].starts_with(b"From "));
            raw.extend_from_slice(if quoted { &line[1..] } else { line });
        }
    }
    if let Some(raw) = current {
        out.push(Exported { place: format!("mbox message {}", out.len() + 1), raw });
    }
    out
}
