//! Which track a `CREATE ... TRACK name` may open: a shipped track by its name, or a file
//! inside the folder the configuration names (`tracks = "..."`), nothing else. A mail must
//! never make the daemon open a file of its choosing (`../secret.toml`, `/etc/passwd`, a
//! symbolic link out of the folder).

use std::path::{Path, PathBuf};

use thiserror::Error;

/// Why a `TRACK` name is refused.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum TrackRefused {
    /// Not a plain name: a path, a leading dot, a character outside letters, digits, `-`,
    /// `_` and `.`.
    #[error(
        "TRACK `{0}` is not a track name: write a shipped track's name ({shipped}) or the name of a file in the league's tracks folder, without a path", shipped = shipped_list()
    )]
    NotAName(String),
    /// No shipped track and no file of the folder has that name.
    #[error("there is no track `{0}`: the shipped tracks are {shipped}{folder}", shipped = shipped_list(), folder = if *.1 { ", and the files of the league's tracks folder" } else { "" })]
    Unknown(String, bool),
}

fn shipped_list() -> String {
    crate::track::load::shipped_names().join(", ")
}

/// Whether `name` is a plain file name: 1 to 64 letters, digits, `-`, `_`, `.`, no leading dot.
fn plain(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && !name.starts_with('.')
        && !name.contains("..")
        && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// The file `CREATE ... TRACK name` loads: the shipped track `name`, else `name`, `name.toml`
/// or `name.dat` inside `folder` (after resolving links, still inside it).
pub fn track_file(name: &str, folder: Option<&Path>) -> Result<PathBuf, TrackRefused> {
    if !plain(name) {
        return Err(TrackRefused::NotAName(name.chars().filter(|c| !c.is_control()).take(64).collect()));
    }
    if !name.contains('.') {
        for dir in crate::track::load::track_dirs() {
            let p = dir.join(format!("{name}.toml"));
            if p.is_file() {
                return Ok(p);
            }
        }
    }
    if let Some(folder) = folder
        && let Ok(root) = folder.canonicalize()
    {
        for candidate in [name.to_string(), format!("{name}.toml"), format!("{name}.dat")] {
            let Ok(p) = root.join(&candidate).canonicalize() else { continue };
            let ext_ok = p.extension().is_some_and(|e| e == "toml" || e == "dat");
            if p.starts_with(&root) && p.is_file() && ext_ok {
                return Ok(p);
            }
        }
    }
    Err(TrackRefused::Unknown(name.to_string(), folder.is_some()))
}
