//! The game store: a game is a directory of TOML files, its current state a replay of its turns.
//!
//! - [`files`]: the serde types of `game.toml`, `turns/NNNN.toml` and `secret.toml`;
//! - [`game`]: the game in memory; [`replay`]: `apply`, the one code path from a turn's inputs
//!   to the turn (rolls, events, options, state digest); [`records`]: engine values as the
//!   files write them; [`hash`]: the hashes the store writes;
//! - [`canon`]: the canonical text of a race state, whose SHA-256 every turn records;
//! - [`driver`]: the calls the mail daemon makes (create, join, start, gear, choose, bot move,
//!   reveal), each writing one turn under the game's lock;
//! - [`verify`]: reading and replaying a game with every check;
//! - [`fsio`]: atomic writes, the directory lock, fault injection for the crash test;
//! - [`show`], [`audit`]: `steward show`, `steward audit`.
//!
//! Architecture invariant: only `store` writes under `games/`. See `docs/store.md`.

pub mod audit;
pub mod canon;
pub mod driver;
pub mod error;
pub mod files;
pub mod fsio;
pub mod game;
pub mod handle;
pub mod hash;
pub mod qualifying;
pub mod records;
pub mod replay;
pub mod replayed;
pub mod requests;
pub mod schedule;
pub mod show;
pub mod time;
pub mod verify;

pub use driver::{Join, Meta, NewGame, Store, games_dir};
pub use error::StoreError;
pub use files::{By, Moderation};
pub use game::Game;
pub use handle::Handle;
pub use requests::{Beacon, beacon_value};
pub use schedule::Schedule;
pub use time::Stamp;

/// A small game for the library's unit tests: `cars` players joined on a 1-lap sprint, not
/// started, in a fresh directory under the system's temporary one (no fsync).
#[cfg(test)]
pub(crate) fn test_game(name: &str, cars: u8) -> (std::path::PathBuf, Store, Handle) {
    let dir = std::env::temp_dir().join(format!("steward-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut store = Store::new(&dir);
    store.durability = fsio::Durability::NoSync;
    let mut h = store.create(&NewGame::plain(name, "sprint", 1), [9; 32], Meta::now()).expect("a new game");
    for car in 1..=cars {
        h.join(&Join::plain(&format!("p{car}@players.test"), "t", car), Meta::now()).expect("a join");
    }
    (dir, store, h)
}
