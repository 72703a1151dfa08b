//! Each game's last turn as the deadline scan last read it: kept while its file is unchanged,
//! so a pass does not read every game's turns before every message (issue 17).

use crate::store::files::TurnFile;

/// The last turn file of a game directory, read without replaying the game.
fn last_turn(dir: &std::path::Path) -> Option<(u32, TurnFile)> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("turns"))
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.ends_with(".toml") && !n.starts_with('.'))
        .collect();
    names.sort();
    let name = names.last()?;
    let n = name.strip_suffix(".toml")?.parse().ok()?;
    let text = std::fs::read_to_string(dir.join("turns").join(name)).ok()?;
    toml::from_str(&text).ok().map(|t| (n, t))
}

/// Whether the game in `dir` runs its deadlines per round (`setup.deadlines = "round"` in its
/// `game.toml`), read without replaying the game.
fn paced_by_rounds(dir: &std::path::Path) -> bool {
    #[derive(serde::Deserialize)]
    struct GameToml {
        setup: Setup,
    }
    #[derive(serde::Deserialize)]
    struct Setup {
        deadlines: Option<String>,
    }
    let text = std::fs::read_to_string(dir.join("game.toml")).unwrap_or_default();
    toml::from_str::<GameToml>(&text).is_ok_and(|g| g.setup.deadlines.as_deref() == Some("round"))
}

/// What the deadline scan needs of a game's last turn: its number, its deadline, whether the
/// race is over and the car awaited (`None` in a qualifying session), and whether the game is
/// paced by rounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastTurn {
    /// The turn's number.
    pub turn: u32,
    /// Its deadline, as recorded.
    pub due: Option<String>,
    /// Minutes after the deadline before the default move (a schedule's grace).
    pub grace_minutes: u32,
    /// The race is over.
    pub over: bool,
    /// The car awaited.
    pub to_play: Option<u8>,
    /// The game runs its deadlines per round (`PACE ROUND`, a schedule).
    pub paced: bool,
}

impl LastTurn {
    fn of(t: &TurnFile, paced: bool) -> Self {
        LastTurn {
            paced,
            turn: t.turn,
            due: t.due.clone(),
            grace_minutes: t.grace_minutes.unwrap_or(0),
            over: t.over,
            to_play: t.to_play,
        }
    }
}

/// Each game's last turn as the deadline scan last read it (issue 17: a pass reads every game's
/// last turn before every message; listing and parsing a long race's turns each time cost more
/// than the message). Kept while the file is the same (its length, modification time and inode)
/// and no file follows it; a turn written by anyone, a file edited or removed, is read again.
/// Only what the scan needs is kept: handing it out copies a few fields, not the turn's events.
#[derive(Debug, Default)]
pub struct LastTurns(std::collections::HashMap<String, (u32, FileStamp, LastTurn)>);

/// What tells a file changed without reading it.
type FileStamp = (u64, Option<std::time::SystemTime>, u64);

fn stamp(path: &std::path::Path) -> Option<FileStamp> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    Some((m.len(), m.modified().ok(), ino))
}

impl LastTurns {
    /// The last turn of the game in `dir` (named `id`).
    pub fn get(&mut self, id: &str, dir: &std::path::Path) -> Option<LastTurn> {
        let file = |n: u32| dir.join("turns").join(TurnFile::file_name(n));
        if let Some((n, kept, turn)) = self.0.get(id)
            && stamp(&file(*n)).as_ref() == Some(kept)
            && !file(n + 1).exists()
        {
            return Some(turn.clone());
        }
        self.0.remove(id);
        let (n, turn) = last_turn(dir)?;
        let turn = LastTurn::of(&turn, paced_by_rounds(dir));
        if let Some(st) = stamp(&file(n)) {
            self.0.insert(id.to_string(), (n, st, turn.clone()));
        }
        Some(turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::bot::Bot;
    use crate::store::Meta;

    #[test]
    fn the_deadline_scan_sees_every_new_turn_and_every_edit() {
        let (dir, store, mut h) = crate::store::test_game("lt", 2);
        let game_dir = h.dir().to_path_buf();
        let mut last = LastTurns::default();
        assert_eq!(last.get("lt", &game_dir).unwrap().turn, 2);
        assert!(!last.get("lt", &game_dir).unwrap().paced, "a game paced by moves");
        // Turns written by anyone (here, a store beside the scan) are seen.
        h.start(Meta::now()).unwrap();
        let mut bot = Bot::new();
        h.bot_move(&mut bot, Meta::now()).unwrap();
        let n = h.game().next_turn() - 1;
        drop(h);
        let seen = last.get("lt", &game_dir).unwrap();
        assert_eq!((seen.turn, seen.to_play), (n, store.open("lt").unwrap().last().to_play));
        assert_eq!(last.get("lt", &game_dir).unwrap().turn, n, "kept");
        // The last file edited by hand (its deadline moved) is read again.
        let path = game_dir.join("turns").join(TurnFile::file_name(n));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut t: TurnFile = toml::from_str(&text).unwrap();
        t.due = Some("2099-01-01T00:00:00Z".into());
        std::fs::write(&path, toml::to_string(&t).unwrap()).unwrap();
        assert_eq!(last.get("lt", &game_dir).unwrap().due.as_deref(), Some("2099-01-01T00:00:00Z"));
        // Removed: the turn before is the last again.
        std::fs::remove_file(&path).unwrap();
        assert_eq!(last.get("lt", &game_dir).unwrap().turn, n - 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
