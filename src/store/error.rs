//! Typed errors of the game store and its driver, each worded for the player or moderator who
//! has to act on it.

use std::path::PathBuf;

use thiserror::Error;

use crate::engine::IllegalOrder;
use crate::engine::explain::Refusal;
use crate::track::TrackError;

/// Why a game-store call failed. A failed call writes nothing.
#[derive(Debug, Error)]
pub enum StoreError {
    /// The game name cannot be a directory name.
    #[error(
        "`{0}` is not a valid game name: use 1 to 64 lowercase letters, digits, `-`, `_` or `.`, starting with a letter or digit"
    )]
    BadId(String),
    /// A game of that name exists.
    #[error("there is already a game `{0}`")]
    Exists(String),
    /// No such game.
    #[error("there is no game `{id}` in {dir}")]
    NoSuchGame {
        /// The name asked for.
        id: String,
        /// The games directory searched.
        dir: PathBuf,
    },
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// A file of the game does not parse.
    #[error("{path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A turn does not replay to what it records (tampering, or a bug).
    #[error("turn {turn} ({file}) is bad: {why}")]
    BadTurn {
        /// The turn's number.
        turn: u32,
        /// Its file, relative to the game directory.
        file: String,
        /// What is wrong.
        why: String,
    },
    /// A game file other than a turn is bad.
    #[error("{file} is bad: {why}")]
    BadFile {
        /// The file, relative to the game directory.
        file: String,
        /// What is wrong.
        why: String,
    },
    /// The track does not load.
    #[error(transparent)]
    Track(#[from] TrackError),
    /// Unknown rule profile.
    #[error("unknown rule profile `{0}` (competition-2004, competition-2002, eurogames-advanced)")]
    UnknownProfile(String),
    /// A profile and toggles that make no rulebook.
    #[error(transparent)]
    Profile(#[from] crate::engine::ProfileError),
    /// A setting is out of range.
    #[error("{0}")]
    BadSetting(String),
    /// Joins after the start.
    #[error("the race has started: joins are closed")]
    Started,
    /// Joins after the closing date.
    #[error("joins closed at {0}")]
    JoinsClosed(String),
    /// Orders before the start.
    #[error("the race has not started yet: the moderator starts it with `steward start`")]
    NotStarted,
    /// Anything after the end.
    #[error("the race is over")]
    Over,
    /// Moves while a moderator has paused the game.
    #[error("the game is paused by its moderator: orders are accepted again after RESUME")]
    Paused,
    /// A moderator action that makes no sense now.
    #[error("{0}")]
    BadModeration(String),
    /// A start with nobody.
    #[error("nobody has joined: a race needs at least one car")]
    NoPlayers,
    /// No seat left.
    #[error("the race is full: {0} cars")]
    Full(u8),
    /// A second join from one address.
    #[error("{0} has already joined this game")]
    AddressTaken(String),
    /// A car number in use or out of range.
    #[error("car {car} is not available; free numbers include {free}")]
    CarTaken {
        /// The number asked for.
        car: u8,
        /// Some free numbers.
        free: String,
    },
    /// A car configuration refused by chapter 5.
    #[error("car {car}'s configuration is refused: {why}")]
    BadSetup {
        /// The car.
        car: u8,
        /// Why.
        why: String,
    },
    /// A token that does not match.
    #[error("the token does not match {0}'s: use the token from your join confirmation")]
    BadToken(String),
    /// No player with that address.
    #[error("{0} has not joined this game")]
    NotAPlayer(String),
    /// No car with that number.
    #[error("there is no car {0} in this race")]
    NoSuchCar(u8),
    /// Someone else's turn.
    #[error("it is car {expected}'s turn to play, not car {got}'s (6-2)")]
    NotYourTurn {
        /// The car awaited.
        expected: u8,
        /// The car ordered.
        got: u8,
    },
    /// A gear order while a choice is awaited.
    #[error("car {car} has rolled {roll} and must first choose one of the options {labels}")]
    ChoicePending {
        /// The car.
        car: u8,
        /// Its roll.
        roll: u8,
        /// The labels on offer.
        labels: String,
    },
    /// A choice with no roll made.
    #[error("car {0} has no roll to choose from: send a gear first")]
    NoChoicePending(u8),
    /// A re-roll with no gear roll awaiting the car's choice (002, ruling 45).
    #[error(
        "car {0} has no roll awaiting its choice: a driver point re-rolls the gear die after the gear is rolled and before the choice (002 Expending Driver Points)"
    )]
    NothingToReroll(u8),
    /// A second re-roll of the same move (002).
    #[error(
        "car {car} has already re-rolled this move: the second result, {roll}, stands and cannot be re-rolled again (002 Expending Driver Points); choose one of {labels}"
    )]
    AlreadyRerolled {
        /// The car.
        car: u8,
        /// The second result.
        roll: u8,
        /// The labels on offer.
        labels: String,
    },
    /// A re-roll by a car whose driver has no points left (002).
    #[error(
        "car {car}'s driver has no driver points left to expend (002 Expending Driver Points); choose one of {labels}"
    )]
    NoDriverPoints {
        /// The car.
        car: u8,
        /// The labels on offer.
        labels: String,
    },
    /// A re-roll of a move that rolled no gear die (a super start, 9-2-1; ruling 45).
    #[error(
        "car {car}'s move comes from the black die of its start (a super start, 9-2-1), not the gear die: only the gear die may be re-rolled (ruling 45); choose one of {labels}"
    )]
    NotRerollable {
        /// The car.
        car: u8,
        /// The labels on offer.
        labels: String,
    },
    /// An option label that is not on offer.
    #[error("option `{got}` is not on offer; choose one of {labels} or give a destination space id")]
    NoSuchOption {
        /// What was asked for.
        got: String,
        /// The labels on offer.
        labels: String,
    },
    /// A recorded choice whose label and space disagree.
    #[error("option {label} ends on {end}, not on {space}")]
    OptionMismatch {
        /// The label.
        label: String,
        /// Its destination.
        end: String,
        /// The space recorded.
        space: String,
    },
    /// An order that is neither a gear nor a choice.
    #[error("an order gives a gear, a choice, or a re-roll alone")]
    BadOrder,
    /// The engine refuses an order (its reason is the message, so it is not also a source).
    #[error("{0}")]
    Illegal(IllegalOrder),
    /// A destination the roll does not offer.
    #[error("{0}")]
    Refused(Refusal),
    /// The seed cannot be found.
    #[error("the secret seed is missing ({0}): without it no die can be rolled")]
    NoSecret(PathBuf),
    /// A seed that is not the committed one.
    /// A bot car joined with an entropy phrase (steward-dice-v2).
    #[error("car {0} is a bot: a bot contributes no phrase to the dice key (docs/dice.md); join it without one")]
    BotPhrase(u8),
    #[error("the seed {seed} does not match the commitment {commitment}")]
    SeedMismatch {
        /// The seed (hex).
        seed: String,
        /// The commitment (hex).
        commitment: String,
    },
    /// A qualifying order the timed-lap rules refuse (1).
    #[error("qualifying: {0}")]
    Qualifying(String),
    /// A qualifying car owes a choice before its next gear.
    #[error("car {car} must first choose one of the options of its timed lap's roll")]
    MustChoose {
        /// The car.
        car: u8,
    },
    /// A qualifying car has no roll to choose from.
    #[error("car {car} has no roll to choose from in its timed lap: send a gear first")]
    NothingToChoose {
        /// The car.
        car: u8,
    },
    /// A seed that is not 64 hex digits.
    #[error("a seed is 64 hex digits, not `{0}`")]
    BadSeed(String),
}

impl From<IllegalOrder> for StoreError {
    fn from(e: IllegalOrder) -> Self {
        StoreError::Illegal(e)
    }
}

impl From<Refusal> for StoreError {
    fn from(e: Refusal) -> Self {
        StoreError::Refused(e)
    }
}

impl StoreError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io { path: path.into(), source }
    }

    /// True when the failure is the system's, not the order's: a file of the game cannot be
    /// read or written, or the game directory is damaged (a turn or file that does not read
    /// back, the secret seed missing or not the committed one). Sending the order again would
    /// not help the player; an operator must look (or, for a full disk, wait: see
    /// [`StoreError::is_transient`]).
    pub fn is_system(&self) -> bool {
        matches!(
            self,
            StoreError::Io { .. }
                | StoreError::Parse { .. }
                | StoreError::BadTurn { .. }
                | StoreError::BadFile { .. }
                | StoreError::NoSecret(_)
                | StoreError::SeedMismatch { .. }
        )
    }

    /// True when the failure may clear up by itself: an I/O error such as a full disk or an
    /// exhausted quota ([`crate::store::fsio::is_transient`]).
    pub fn is_transient(&self) -> bool {
        matches!(self, StoreError::Io { source, .. } if crate::store::fsio::is_transient(source))
    }
}
