//! A game in memory: its setup, its track and where its turns have brought it (the race, the
//! choice awaited, the qualifying session, the dice namespace). `replay` builds and advances it
//! turn by turn; everything else reads it.

use std::sync::Arc;

use crate::engine::{RaceState, Rolled, Rulebook};
use crate::track::Track;

use super::files::{PlayerRecord, SetupRecord, TurnFile};
use super::qualifying::Session;

/// A roll made and its options, awaiting the car's choice.
#[derive(Clone, Debug)]
pub struct Pending {
    /// The engine's roll.
    pub rolled: Rolled,
    /// The move number its rolls are labelled with.
    pub move_no: u32,
    /// Index of the next roll of this move.
    pub next_index: u32,
    /// True once a driver point has re-rolled it: the second result stands (002, ruling 45).
    pub rerolled: bool,
}

/// The race once started.
#[derive(Clone, Debug)]
pub struct Race {
    /// The state (after the gear change when a choice is pending).
    pub state: RaceState,
    /// The choice awaited, if any.
    pub pending: Option<Pending>,
    /// Moves begun (gear orders applied).
    pub moves: u32,
    /// The state right after the last move, before the next car was called (kept only when
    /// [`Game::keep_after_move`] is set, for the simulations' invariant checks).
    pub after_move: Option<RaceState>,
}

/// What changes turn by turn.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    /// Players in grid order (shared: they change only before the start).
    pub players: Arc<Vec<PlayerRecord>>,
    /// The race, once started.
    pub race: Option<Race>,
    /// True once the race is over (finished, or ended by a reveal).
    pub over: bool,
    /// The seed, once a turn has revealed it.
    pub revealed: Option<[u8; 32]>,
    /// The dice key, when the seed is known.
    pub key: Option<[u8; 32]>,
    /// True while a moderator has paused the game: no deadline runs, no move is accepted.
    pub paused: bool,
    /// Hours a player has to answer (the setup's, unless a moderator changed it).
    pub move_hours: u32,
    /// With deadlines per round (`SetupRecord::deadlines`): the round under way and when its
    /// clock started (the round's first turn, or the turn that resumed a paused game).
    pub round_clock: Option<(u32, crate::store::Stamp)>,
    /// The qualifying session, between the start and the race (ruling 31).
    pub qualifying: Option<Session>,
    /// The session once over: the laps the grid was made from.
    pub qualified: Option<Arc<Session>>,
    /// Driver points expended so far, by car number (002 "Expending Driver Points", ruling 45).
    pub spent: std::collections::BTreeMap<u8, u8>,
    /// The dice namespace: 0 until the first rollback, then the number of rollbacks made; the
    /// labels of rolls made in namespace `k > 0` start with `r<k>/` (docs/dice.md).
    pub epoch: u32,
    /// The line of decisions since the start (`steward-dice-v3`; `None` in older schemes): the
    /// end of every roll label, so that the same decisions give the same dice (docs/dice.md).
    pub line: Option<[u8; 32]>,
}

impl Progress {
    /// The move part and the end of the labels of the rolls made now for move `move_no`:
    /// `r1/12` and nothing after a first rollback in v1 and v2, `12` and `@` the line of decisions
    /// in v3 (docs/dice.md, sections 3 and 3a).
    pub fn label_parts(&self, move_no: u32) -> (String, String) {
        match &self.line {
            Some(l) => (move_no.to_string(), crate::dice::line_suffix(l)),
            None => (super::records::move_label(self.epoch, move_no), String::new()),
        }
    }

    /// One more decision on the line (v3; nothing in older schemes), before the rolls it leads to.
    pub fn decide(&mut self, decision: &str) {
        if let Some(l) = &mut self.line {
            *l = crate::dice::line_step(l, decision);
        }
    }
}

/// A game: its setup, its track, and where its turns have brought it.
#[derive(Clone, Debug)]
pub struct Game {
    /// The setup (turn 0).
    pub setup: SetupRecord,
    /// The track played on (the game's `track.toml`), shared by the games loaded from the
    /// same bytes (`verify::load`) and by a game's copies.
    pub track: std::sync::Arc<Track>,
    /// The rules.
    pub rules: Rulebook,
    /// The seed, when known (operator, `--seed`, or revealed); `None` takes rolls as recorded.
    pub seed: Option<[u8; 32]>,
    /// Where the game stands.
    pub now: Progress,
    /// Every turn applied.
    pub turns: Vec<TurnFile>,
    /// SHA-256 (hex) of each turn file's bytes.
    pub hashes: Vec<String>,
    /// Keep the state right after each move in [`Race::after_move`].
    pub keep_after_move: bool,
    /// Every roll label used by the turns applied (a label is used once, docs/dice.md).
    pub labels: std::collections::HashSet<String>,
    /// The progress after some turns, kept while a rollback replays the turns before its target
    /// (the targets of the rollbacks among them), so that a chain of rollbacks replays each turn
    /// once instead of once per rollback before it.
    pub snapshots: std::collections::HashMap<u32, Progress>,
}

/// True for a valid game name.
pub fn valid_id(id: &str) -> bool {
    let b = id.as_bytes();
    !b.is_empty()
        && b.len() <= 64
        && b[0].is_ascii_alphanumeric()
        && b.iter().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, b'-' | b'_' | b'.'))
}
