//! The game store: a game is a directory of TOML files, its current state a replay of its turns.
//!
//! - [`files`]: the serde types of `game.toml`, `turns/NNNN.toml` and `secret.toml`;
//! - [`replay`]: the game in memory and `apply`, the one code path from a turn's inputs to the
//!   turn (rolls, events, options, state digest);
//! - [`canon`]: the canonical text of a race state, whose SHA-256 every turn records;
//! - [`driver`]: the calls the mail daemon makes (create, join, start, gear, choose, bot move,
//!   reveal), each writing one turn under the game's lock;
//! - [`verify`]: reading and replaying a game with every check;
//! - [`fsio`]: atomic writes, the directory lock, fault injection for the crash test;
//! - [`show`], [`audit`], [`keep`]: `steward show`, `steward audit`, `steward sim --keep`.
//!
//! Architecture invariant: only `store` writes under `games/`. See `docs/store.md`.

pub mod audit;
pub mod canon;
pub mod driver;
pub mod error;
pub mod files;
pub mod fsio;
pub mod keep;
pub mod qualifying;
pub mod replay;
pub mod replayed;
pub mod show;
pub mod time;
pub mod verify;

pub use driver::{Handle, Join, Meta, NewGame, Store, games_dir};
pub use error::StoreError;
pub use files::{By, Moderation};
pub use replay::Game;
pub use time::Stamp;
