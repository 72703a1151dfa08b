//! Games kept in memory between the calls of one long-running process (the mail daemon), so a
//! game is replayed from its files once per run rather than at every `Store::open`.
//!
//! Why: a message used to replay its game three times or more (its orders, the unasked moves
//! after them, the replies), each replay reading and checking every turn file; a 500-message
//! pass spent most of its CPU there (issue 17, docs/performance.md).
//!
//! A kept game is trusted only while the files still say what it says: the highest turn file
//! in `turns/` is the kept game's last turn, byte for byte (the SHA-256 the hash chain uses),
//! and `game.toml` holds the bytes the last handle saw. Any other writer (a command run beside
//! the daemon, a file edited by hand, a crash's repair) changes one of them, and the game is
//! replayed from its files with every check, as before. A handle takes its game out of the
//! cache while it holds the game's lock and puts it back when dropped, still under the lock.

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use super::game::Game;
use super::hash::sha256_hex;
use super::verify::{list_turns, turn_path};

/// Most games kept at once; past it the least recently used is dropped (it is replayed again
/// from its files when next opened).
pub const KEPT_GAMES: usize = 64;

#[derive(Debug)]
struct Kept {
    game: Game,
    game_toml: Vec<u8>,
    used: u64,
}

#[derive(Debug, Default)]
struct Inner {
    games: HashMap<PathBuf, Kept>,
    clock: u64,
    replays: u64,
}

/// The kept games, shared by the clones of a `Store`.
#[derive(Clone, Debug, Default)]
pub struct Replayed(Arc<Mutex<Inner>>);

impl Replayed {
    /// The game kept for `dir`, taken out, if its files have not changed since; `None` (and
    /// the kept copy forgotten) otherwise. Call it holding the game's lock.
    pub fn take_fresh(&self, dir: &Path) -> Option<(Game, Vec<u8>)> {
        let kept = self.0.lock().ok()?.games.remove(dir)?;
        let last = kept.game.turns.last()?.turn;
        let hash = kept.game.hashes.last()?;
        let files = list_turns(dir).ok()?;
        if files.last().map(|f| f.0) != Some(last) {
            return None;
        }
        let bytes = fs::read(dir.join(turn_path(last))).ok()?;
        if &sha256_hex(&bytes) != hash {
            return None;
        }
        let game_toml = fs::read(dir.join("game.toml")).ok()?;
        if game_toml != kept.game_toml {
            return None;
        }
        Some((kept.game, kept.game_toml))
    }

    /// Keeps `game` (whose `game.toml` bytes are `game_toml`) for `dir`.
    pub fn put(&self, dir: PathBuf, game: Game, game_toml: Vec<u8>) {
        let Ok(mut inner) = self.0.lock() else { return };
        inner.clock += 1;
        let used = inner.clock;
        if inner.games.len() >= KEPT_GAMES
            && !inner.games.contains_key(&dir)
            && let Some(oldest) = inner.games.iter().min_by_key(|(_, k)| k.used).map(|(d, _)| d.clone())
        {
            inner.games.remove(&oldest);
        }
        inner.games.insert(dir, Kept { game, game_toml, used });
    }

    /// Counts a game replayed from its files because none was kept, or it was stale.
    pub fn count_replay(&self) {
        if let Ok(mut inner) = self.0.lock() {
            inner.replays += 1;
        }
    }

    /// How many times a game was replayed from its files.
    pub fn replays(&self) -> u64 {
        self.0.lock().map(|i| i.replays).unwrap_or(0)
    }

    /// How many games are kept.
    pub fn len(&self) -> usize {
        self.0.lock().map(|i| i.games.len()).unwrap_or(0)
    }

    /// True when no game is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
