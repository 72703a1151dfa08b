//! Typed errors of the game store and its driver, each worded for the player or moderator who
//! has to act on it.

use std::path::PathBuf;

use thiserror::Error;

use crate::say;
use crate::words::Lang;

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
    #[error("{}", self.message(Lang::En))]
    Exists(String),
    /// No such game.
    #[error("{}", self.message(Lang::En))]
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
    #[error("{}", self.message(Lang::En))]
    Started,
    /// Joins after the closing date.
    #[error("{}", self.message(Lang::En))]
    JoinsClosed(String),
    /// Orders before the start.
    #[error("{}", self.message(Lang::En))]
    NotStarted,
    /// Anything after the end.
    #[error("{}", self.message(Lang::En))]
    Over,
    /// Moves while a moderator has paused the game.
    #[error("{}", self.message(Lang::En))]
    Paused,
    /// A moderator action that makes no sense now.
    #[error("{0}")]
    BadModeration(String),
    /// A start with nobody.
    #[error("{}", self.message(Lang::En))]
    NoPlayers,
    /// No seat left.
    #[error("{}", self.message(Lang::En))]
    Full(u8),
    /// A second join from one address.
    #[error("{}", self.message(Lang::En))]
    AddressTaken(String),
    /// A car number in use or out of range.
    #[error("{}", self.message(Lang::En))]
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
    #[error("{}", self.message(Lang::En))]
    BadToken(String),
    /// No player with that address.
    #[error("{}", self.message(Lang::En))]
    NotAPlayer(String),
    /// No car with that number.
    #[error("{}", self.message(Lang::En))]
    NoSuchCar(u8),
    /// Someone else's turn.
    #[error("{}", self.message(Lang::En))]
    NotYourTurn {
        /// The car awaited.
        expected: u8,
        /// The car ordered.
        got: u8,
    },
    /// A gear order while a choice is awaited.
    #[error("{}", self.message(Lang::En))]
    ChoicePending {
        /// The car.
        car: u8,
        /// Its roll.
        roll: u8,
        /// The labels on offer.
        labels: String,
    },
    /// A choice with no roll made.
    #[error("{}", self.message(Lang::En))]
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
    #[error("{}", self.message(Lang::En))]
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
    #[error("{}", self.message(Lang::En))]
    MustChoose {
        /// The car.
        car: u8,
    },
    /// A qualifying car has no roll to choose from.
    #[error("{}", self.message(Lang::En))]
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

impl StoreError {
    /// The refusal as the player or moderator reads it in `lang`: the catalogue's `refusal.*`
    /// sentence (`templates/*/messages.toml`), else the error's own words (the system's
    /// failures, which the moderator reads in the daemon's log).
    pub fn message(&self, lang: Lang) -> String {
        match self {
            StoreError::Exists(g) => say!(lang, "refusal.exists", game = g),
            StoreError::NoSuchGame { id, dir } => say!(lang, "refusal.no_such_game", game = id, dir = dir.display()),
            StoreError::Started => say!(lang, "refusal.started"),
            StoreError::JoinsClosed(at) => say!(lang, "refusal.joins_closed", at = at),
            StoreError::NotStarted => say!(lang, "refusal.not_started"),
            StoreError::Over => say!(lang, "refusal.over"),
            StoreError::Paused => say!(lang, "refusal.paused"),
            StoreError::NoPlayers => say!(lang, "refusal.no_players"),
            StoreError::Full(n) => say!(lang, "refusal.full", cars = n),
            StoreError::AddressTaken(a) => say!(lang, "refusal.address_taken", address = a),
            StoreError::CarTaken { car, free } => say!(lang, "refusal.car_taken", car = car, free = free),
            StoreError::BadToken(a) => say!(lang, "refusal.bad_token", address = a),
            StoreError::NotAPlayer(a) => say!(lang, "refusal.not_a_player", address = a),
            StoreError::NoSuchCar(c) => say!(lang, "refusal.no_such_car", car = c),
            StoreError::NotYourTurn { expected, got } => {
                say!(lang, "refusal.not_your_turn", expected = expected, got = got)
            }
            StoreError::ChoicePending { car, roll, labels } => {
                say!(lang, "refusal.choice_pending", car = car, roll = roll, labels = labels)
            }
            StoreError::NoChoicePending(c) => say!(lang, "refusal.no_choice_pending", car = c),
            StoreError::NoSuchOption { got, labels } => {
                say!(lang, "refusal.no_such_option", got = got, labels = labels)
            }
            StoreError::MustChoose { car } => say!(lang, "refusal.must_choose", car = car),
            StoreError::NothingToChoose { car } => say!(lang, "refusal.nothing_to_choose", car = car),
            other => other.to_string(),
        }
    }
}
