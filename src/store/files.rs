//! The serde types of a game directory (`docs/store.md`): `game.toml`, `turns/NNNN.toml` and
//! `secret.toml`. Engine types carry no serde derives; [`super::replay`] converts.
//!
//! Field order is the file's order: scalars first, then tables, then arrays of tables. Optional
//! fields are left out when empty, so that a file holds only what its turn did.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

/// Version tag of the game-directory format.
pub const FORMAT: &str = "steward-game-1";

/// `games/<id>/game.toml`: the setup and the players, rewritten from the turns by every join.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameFile {
    /// [`FORMAT`].
    pub format: String,
    /// The setup (the `create` turn's).
    pub setup: SetupRecord,
    /// The players in grid order (join order), pole first.
    #[serde(default, rename = "player", skip_serializing_if = "Vec::is_empty")]
    pub players: Vec<PlayerRecord>,
}

/// Everything fixed when a game is created.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SetupRecord {
    /// The game's name (its directory).
    pub id: String,
    /// The track's name.
    pub track: String,
    /// SHA-256 of `track.toml`, the copy of the track the game is played on.
    pub track_sha256: String,
    /// Rule profile (`competition-2004`).
    pub profile: String,
    /// The Eurogames advanced rules switched on (`eurogames-advanced` only, docs/profiles.md);
    /// absent from the files of games without them, which stay byte for byte as they were.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub toggles: Vec<String>,
    /// Laps.
    pub laps: u16,
    /// Most cars that may join.
    pub max_cars: u8,
    /// Hours a player has to answer before the bot plays for them.
    pub move_hours: u32,
    /// Joins close at this time, if set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_by: Option<String>,
    /// How the race weather is decided (`track`, `sun`, `rain`, `changeable`; 3-0-1). Absent in
    /// games from before it was a setting: sun.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weather: Option<String>,
    /// When a changeable sky is tested: `lap-thirds` (002 "Weather", ruling 46); absent: after a
    /// 20 in 5th or a 30 in 6th (3-2-4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weather_checks: Option<String>,
    /// How cars finishing in the same round are placed: `portion` (004: the smallest portion of
    /// the move used to touch the line first, ruling 50); absent: the order of crossing (21-1-4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finish_ties: Option<String>,
    /// Players may still join once the race has started, while the field has not cleared the
    /// starting grid: they start from the pit-lane exit (004 "Late Arrivals", ruling 47).
    #[serde(default, skip_serializing_if = "is_false")]
    pub late_arrivals: bool,
    /// How the grid is made (`join`, `qualifying`, `qualifying-black-die`; ruling 31). Absent in
    /// older games: join order.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grid: Option<String>,
    /// In which order the players choose their pit boxes: `reverse-grid` (002 after a d20 grid,
    /// ruling 48); absent: the pole first (4-0-1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pit_choice: Option<String>,
    /// The race plays with 002's backmarkers (ruling 49); absent: without.
    #[serde(default, skip_serializing_if = "is_false")]
    pub backmarkers: bool,
    /// `round`: every decision of a round is due `move_hours` after the round began, a choice
    /// asked after a roll at least a quarter of that after it is asked (issue 46); absent: each
    /// decision `move_hours` after it is asked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deadlines: Option<String>,
    /// With deadlines per round: each round due at a time of day in the game's time zone
    /// (`AT 20:00 ZONE Europe/Paris`, issue 46), instead of `move_hours` after it began.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub schedule: Option<crate::store::Schedule>,
    /// A public beacon named before any join (docs/dice.md, section 6): where anyone looks its
    /// value up, e.g. `drand mainnet round 5700000`. Its value is mixed into the dice key at the
    /// start, after every seat and phrase is fixed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<String>,
    /// When the beacon's value becomes public (UTC): joins close then, and the start waits for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon_at: Option<String>,
    /// Dice derivation (`steward-dice-v3`; `steward-dice-v2` or `-v1` in older games; docs/dice.md).
    pub dice: String,
    /// The commitment to the secret seed (v1: `SHA-256(seed)`; v2 binds the game id), published
    /// before any roll.
    pub commitment: String,
}

/// One player and their car.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlayerRecord {
    /// The car's number.
    pub car: u8,
    /// The player's mail address.
    pub address: String,
    /// A display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// `SHA-256("steward-token-v1" || 0x00 || game id || 0x00 || token)`: the token itself is never
    /// stored.
    pub token_sha256: String,
    /// True when the bot drives this car on every turn.
    #[serde(default, skip_serializing_if = "is_false")]
    pub bot: bool,
    /// Starting tyres (on a dry track at the start).
    pub tyres: String,
    /// Starting tyres when the track is wet at the start (none: the same as `tyres`; a bot fits
    /// rain tyres), chosen before the weather is drawn at the start (3-0-1, ruling 30).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub wet_tyres: Option<String>,
    /// The player's entropy phrase (empty when none was given): published, and mixed into the
    /// dice key at the start.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub entropy: String,
    /// The driver's points for this race (002 "Expending Driver Points"): each re-rolls one gear
    /// roll (ruling 45). Left out when 0, so games from before stay byte for byte as they were.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub driver_points: u8,
    /// The pit boxes the player wants, best first, numbered from 1 along the pit lane (4-0-1,
    /// ruling 48). Left out when empty: the box of the car's grid slot.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub boxes: Vec<u8>,
    /// Wear points configured (5).
    pub wear: WearRecord,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_zero(n: &u8) -> bool {
    *n == 0
}

/// Wear points on each part.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WearRecord {
    /// Tyres.
    pub tyres: u8,
    /// Brakes.
    pub brakes: u8,
    /// Gas.
    pub gas: u8,
    /// Body.
    pub body: u8,
    /// Engine.
    pub engine: u8,
    /// Road handling.
    pub handling: u8,
}

/// What a turn records.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// The game is created (turn 0).
    Create,
    /// A player joins.
    Join,
    /// The moderator starts the race: the dice key is fixed.
    Start,
    /// Orders: a gear (and the roll), a choice among options.
    Move,
    /// The moderator reveals the seed; the race ends where it stands.
    Reveal,
    /// A moderator's action that is not a move: pause, resume, deadline, replace a player.
    Moderate,
    /// A moderator returns the game to the end of an earlier turn; the turns after it stay in
    /// the chain, rolled back, and the dice move to a new label namespace (docs/dice.md).
    Rollback,
    /// A player leaves the race: the car is out where it stands (a DNF), or goes absent.
    Player,
}

impl Kind {
    /// Name in files.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Create => "create",
            Kind::Join => "join",
            Kind::Start => "start",
            Kind::Move => "move",
            Kind::Reveal => "reveal",
            Kind::Moderate => "moderate",
            Kind::Rollback => "rollback",
            Kind::Player => "player",
        }
    }
}

/// `games/<id>/turns/NNNN.toml`: one adjudicated step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnFile {
    /// Number, from 0; the file is `turns/{turn:04}.toml`.
    pub turn: u32,
    /// What the turn does.
    pub kind: Kind,
    /// When the order was received (UTC).
    pub at: String,
    /// SHA-256 of the previous turn file's bytes (absent on turn 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prev: Option<String>,
    /// The move number rolls of this turn are labelled with.
    #[serde(default, rename = "move", skip_serializing_if = "Option::is_none")]
    pub move_no: Option<u32>,
    /// The car whose answer is awaited after this turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub to_play: Option<u8>,
    /// The answer is due by (UTC).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub due: Option<String>,
    /// Minutes after `due` in which an answer is still taken; the default move comes then (a
    /// game's schedule's grace, issue 46).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace_minutes: Option<u32>,
    /// True when the race is over after this turn.
    #[serde(default, skip_serializing_if = "is_false")]
    pub over: bool,
    /// The secret seed, revealed at the end of the race.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    /// SHA-256 of the canonical text of the race state after this turn (docs/store.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_sha256: Option<String>,
    /// The message the turn came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Source>,
    /// The setup (turn 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub setup: Option<SetupRecord>,
    /// The player who joins (join turns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<PlayerRecord>,
    /// The beacon's value, as the moderator read it at its source (the start turn of a game
    /// that names a beacon): lowercase hex, mixed into the dice key.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beacon: Option<String>,
    /// Every car's entropy phrase, in grid order (the start turn).
    #[serde(default, rename = "contribution", skip_serializing_if = "Vec::is_empty")]
    pub contributions: Vec<Contribution>,
    /// Orders applied, in order.
    #[serde(default, rename = "order", skip_serializing_if = "Vec::is_empty")]
    pub orders: Vec<OrderRecord>,
    /// Dice rolled, in order.
    #[serde(default, rename = "roll", skip_serializing_if = "Vec::is_empty")]
    pub rolls: Vec<RollRecord>,
    /// What happened, in order.
    #[serde(default, rename = "event", skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventRecord>,
    /// The decision awaited: the roll made and the options offered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<PendingRecord>,
    /// The moderator's action (moderate turns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moderation: Option<Moderation>,
    /// What a rollback turn undoes (rollback turns, docs/store.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rollback: Option<RollbackRecord>,
    /// A player's own action on their car (player turns): retiring it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retire: Option<RetireRecord>,
}

/// A rollback: the game returns to the end of turn `to`; the turns from `to + 1` to the one
/// before this stay in the chain, marked rolled back; later rolls are labelled `r<epoch>/...`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RollbackRecord {
    /// The turn the game returns to the end of.
    pub to: u32,
    /// The SHA-256 of the last turn rolled back (the head of the archived branch).
    pub head: String,
    /// The dice namespace from this turn on: 1 for the game's first rollback, then 2...
    pub epoch: u32,
}

/// A car retired by its player: out of the race where it stands, classified as a DNF.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RetireRecord {
    /// The car.
    pub car: u8,
}

/// A moderator's action, logged as a turn so every player sees it in the game's history.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "lowercase", deny_unknown_fields)]
pub enum Moderation {
    /// No deadline runs and no move is accepted until `resume`.
    Pause {
        /// Why, as announced.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Deadlines run again, from this turn's time.
    Resume,
    /// Players now have `hours` to answer, from this turn's time.
    Deadline {
        /// Hours per answer.
        hours: u32,
    },
    /// Car `car` gets a new player: its address and token change; its car stays.
    Replace {
        /// The car.
        car: u8,
        /// The new player's address.
        address: String,
        /// The hash of the new player's token (docs/store.md).
        token_sha256: String,
    },
}

impl Moderation {
    /// What the action is called in orders and announcements.
    pub fn name(&self) -> &'static str {
        match self {
            Moderation::Pause { .. } => "pause",
            Moderation::Resume => "resume",
            Moderation::Deadline { .. } => "deadline",
            Moderation::Replace { .. } => "replace",
        }
    }
}

impl TurnFile {
    /// A turn with only its number, kind and time.
    pub fn new(turn: u32, kind: Kind, at: String) -> Self {
        TurnFile {
            turn,
            kind,
            at,
            prev: None,
            move_no: None,
            to_play: None,
            due: None,
            grace_minutes: None,
            over: false,
            seed: None,
            state_sha256: None,
            source: None,
            setup: None,
            player: None,
            beacon: None,
            contributions: Vec::new(),
            orders: Vec::new(),
            rolls: Vec::new(),
            events: Vec::new(),
            pending: None,
            moderation: None,
            rollback: None,
            retire: None,
        }
    }

    /// The file name of turn `n`.
    pub fn file_name(n: u32) -> String {
        format!("{n:04}.toml")
    }
}

/// Where an order came from; the mail daemon fills it in.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Source {
    /// The sender's address.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// The message's `Message-ID`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    /// The message's IMAP UID.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub imap_uid: Option<u32>,
    /// Who acted when no message did (`moderator`, `bot`, `sim`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// One car's contribution to the dice key.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Contribution {
    /// The car's number.
    pub car: u8,
    /// Its phrase, exactly as mixed into the key.
    pub entropy: String,
}

/// Who gave an order.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum By {
    /// The car's player.
    Player,
    /// The bot, for a bot car or a missed deadline.
    Bot,
    /// The moderator.
    Moderator,
    /// Nobody: a roll with a single option plays it.
    Forced,
    /// Nobody: a backmarker's move, played by its rules (002, ruling 49).
    Backmarker,
}

/// One order: a gear, a choice among the options of the pending roll, or a re-roll of that roll
/// for a driver point (002 "Expending Driver Points", ruling 45).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrderRecord {
    /// The car's number.
    pub car: u8,
    /// Who gave it.
    pub by: By,
    /// The gear announced.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gear: Option<u8>,
    /// The option label chosen.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choose: Option<String>,
    /// The option's destination space.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub space: Option<String>,
    /// True when the player expends a driver point to re-roll the pending gear roll (002,
    /// ruling 45): the order gives neither a gear nor a choice.
    #[serde(default, skip_serializing_if = "is_false")]
    pub reroll: bool,
    /// The decision at the box, with a choice that ends there (19-2-6, 19-3, 19-4). Absent: a
    /// quick stop on the same tyres (19-2-7).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pit: Option<PitRecord>,
}

impl OrderRecord {
    /// Car `car`'s gear, given by `by`.
    pub fn gear(car: u8, by: By, gear: u8) -> Self {
        OrderRecord { car, by, gear: Some(gear), choose: None, space: None, reroll: false, pit: None }
    }

    /// Car `car`'s choice of the option labelled `label`, given by `by`.
    pub fn choice(car: u8, by: By, label: String) -> Self {
        OrderRecord { car, by, gear: None, choose: Some(label), space: None, reroll: false, pit: None }
    }

    /// A driver point spent by car `car` on a re-roll (ruling 45), given by `by`.
    pub fn reroll(car: u8, by: By) -> Self {
        OrderRecord { car, by, gear: None, choose: None, space: None, reroll: true, pit: None }
    }
}

/// A pit decision as written in a turn: `pit = { kind = "long", tyres = "soft", repairs = {
/// brakes = 1 } }`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PitRecord {
    /// `quick` or `long` (absent: quick).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The tyres announced (absent: the same type).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tyres: Option<String>,
    /// Points taken from the pit points, by part name (long stop).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub repairs: std::collections::BTreeMap<String, u8>,
}

/// One die roll.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RollRecord {
    /// The published label (docs/dice.md).
    pub label: String,
    /// The die (`gear4-d12`, `black-d20`).
    pub die: Cow<'static, str>,
    /// The face index (0-based) the derivation gave.
    pub face: u8,
    /// The value printed on that face.
    pub value: u8,
}

/// One event: what happened and the article that applies.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventRecord {
    /// Article of the 2004 competition rules.
    pub article: Cow<'static, str>,
    /// A one-line description.
    pub text: String,
}

/// A roll made, waiting for its car's choice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PendingRecord {
    /// The car.
    pub car: u8,
    /// The gear engaged.
    pub gear: u8,
    /// The die result.
    pub roll: u8,
    /// The options, farthest first.
    #[serde(rename = "option")]
    pub options: Vec<OptionRecord>,
}

/// One option on offer.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionRecord {
    /// Its label (A, B...).
    pub label: String,
    /// The destination space.
    pub to: String,
    /// Spaces moved.
    pub spaces: u8,
    /// What it costs and does, in words.
    pub text: String,
}

/// `games/<id>/secret.toml` (mode 0600): the seed, never in a turn until the reveal.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SecretFile {
    /// The secret seed, 32 bytes in hex.
    pub seed: String,
}

/// The `finish_ties` setting of 004's same-turn finishes (ruling 50).
pub const FINISH_PORTION: &str = "portion";

/// The `weather_checks` setting of 002's three checks a lap (ruling 46).
pub const LAP_THIRDS: &str = "lap-thirds";
