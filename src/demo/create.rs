//! What the demo checks before its race and what it does with the moderator's CREATE (issue 48):
//! the track, cars and laps checked as `steward sim` checks them, a track file copied into the
//! demo's tracks folder for the CREATE to name, and a refused CREATE reported with the
//! receipt's own note.

use std::path::Path;

use crate::judge::daemon::DaemonError;
use crate::mail::message::Incoming;
use crate::mail::transport::{Inbox, MaildirInbox};

/// Why a demo cannot race, in one sentence: what the moderator's CREATE would be refused for.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct DemoRefused(pub String);

/// Checks what a demo would race before it mails anything (issue 48): the track resolves as
/// `steward sim --track` resolves it (a shipped track's name, or a `.toml` or `.dat` file), the
/// cars fit its grid, and the race has a lap. Returns the track.
pub fn check(track: &str, cars: u8, laps: u16) -> Result<crate::track::Track, DemoRefused> {
    let t = crate::track::load::resolve(track).map_err(|e| {
        let first = crate::track::TrackError {
            file: e.file.clone(),
            diagnostics: e.diagnostics[..1.min(e.diagnostics.len())].to_vec(),
        };
        match e.diagnostics.len() {
            0 | 1 => DemoRefused(e.to_string()),
            n => DemoRefused(format!("{first} (and {} more: `steward track check {track}` lists them all)", n - 1)),
        }
    })?;
    let grid = t.grid.len();
    if !crate::store::driver::cars_fit(&t, cars) {
        return Err(DemoRefused(format!("--cars must be 1 to {grid} (the grid of {})", t.name)));
    }
    if laps < 1 {
        return Err(DemoRefused("--laps must be at least 1".into()));
    }
    Ok(t)
}

/// The folder of the demo's own tracks (`tracks` in the daemon's configuration): a track given
/// as a file is copied there, since a CREATE names a track and never a path.
pub(super) const DEMO_TRACKS: &str = "tracks";

/// The `TRACK` of the moderator's CREATE for `track`: a shipped track's name as it is; a file
/// copied into the demo's tracks folder under a plain name (`.dat` or `.toml`, as
/// [`crate::track::load::resolve`] reads it), and that name.
pub(super) fn track_for_create(dir: &Path, track: &str) -> Result<String, DaemonError> {
    let path = Path::new(track);
    if !path.is_file() {
        return Ok(track.to_string());
    }
    let ext = if path.extension().is_some_and(|e| e == "dat") { "dat" } else { "toml" };
    let stem: String = path
        .file_stem()
        .map(|s| s.to_string_lossy())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '-' })
        .take(48)
        .collect();
    let stem = if stem.is_empty() || stem.starts_with('-') { format!("track{stem}") } else { stem };
    let name = format!("{stem}.{ext}");
    let folder = dir.join(DEMO_TRACKS);
    std::fs::create_dir_all(&folder).map_err(crate::judge::service::io(format!("creating {}", folder.display())))?;
    let to = folder.join(&name);
    std::fs::copy(path, &to).map_err(crate::judge::service::io(format!(
        "copying {} to {}",
        path.display(),
        to.display()
    )))?;
    Ok(name)
}

/// Why the moderator's CREATE made no game: the first note of the daemon's receipt in the
/// moderator's `mailbox` (`* there is no track ...`), in one sentence.
pub(super) fn create_refused(mailbox: &Path, game: &str) -> DaemonError {
    let note = MaildirInbox::open(mailbox)
        .and_then(|mut inbox| inbox.fetch(1000))
        .ok()
        .into_iter()
        .flatten()
        .filter_map(|m| Incoming::parse(&m.raw).ok())
        .find_map(|msg| first_note(&msg.full_body));
    let why = match note {
        Some(n) => format!("the moderator's CREATE was refused: {n}"),
        None => format!("the moderator's CREATE made no game `{game}` (its receipt is in {})", mailbox.display()),
    };
    DaemonError::Io { what: "the demo".into(), source: std::io::Error::other(why) }
}

/// The first note of a receipt: the text after its `* ` bullet and the lines that continue it.
fn first_note(body: &str) -> Option<String> {
    let mut lines = body.lines().skip_while(|l| !l.starts_with("* "));
    let mut note = lines.next()?.trim_start_matches("* ").trim().to_string();
    for l in lines.take_while(|l| l.starts_with("  ") && !l.trim().is_empty()) {
        note.push(' ');
        note.push_str(l.trim());
    }
    Some(note)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A CREATE the daemon refused for a reason the demo did not check first is reported with
    /// the receipt's own note, in one sentence (issue 48).
    #[test]
    fn a_refused_create_is_reported_with_the_receipts_note() {
        let dir = std::env::temp_dir().join(format!("steward-demo-refused-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mailbox = dir.join("mail").join("moderator@demo.invalid");
        let receipt = "From: steward <steward@demo.invalid>\r\nTo: moderator@demo.invalid\r\nSubject: Re: new game\r\n\
            Content-Type: text/plain; charset=utf-8\r\n\r\nReceipt for your message \"new game\":\r\n\r\nOrders read:\r\n\
            \x20  1  TOKEN ********\r\n\r\n2 lines read.\r\n\r\n\r\n* the race needs two laps or more\r\n\
            \x20 for its backmarkers (ruling 49)\r\n\r\n* a second note\r\n";
        crate::mail::transport::deliver(&mailbox, receipt.as_bytes()).unwrap();
        let e = create_refused(&mailbox, "g").to_string();
        assert_eq!(
            e,
            "the demo: the moderator's CREATE was refused: the race needs two laps or more for its backmarkers (ruling 49)"
        );
        // No receipt: where to look instead.
        let e = create_refused(&dir.join("none").join("moderator@demo.invalid"), "g").to_string();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(e.contains("made no game `g`") && e.contains("moderator@demo.invalid"), "{e}");
    }

    #[test]
    fn the_demo_checks_track_cars_and_laps_first() {
        assert!(check("nosuch", 4, 1).unwrap_err().0.contains("no shipped track named `nosuch`"));
        assert_eq!(check("monaco", 0, 1).unwrap_err().0, "--cars must be 1 to 10 (the grid of monaco)");
        assert_eq!(check("monaco", 11, 1).unwrap_err().0, "--cars must be 1 to 10 (the grid of monaco)");
        assert_eq!(check("monaco", 4, 0).unwrap_err().0, "--laps must be at least 1");
        assert_eq!(check("monaco", 10, 1).unwrap().name, "monaco");
    }
}
