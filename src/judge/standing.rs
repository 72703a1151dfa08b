//! What the daemon remembers between messages that is not part of a game's history: players'
//! standing orders (a gear sent ahead of the car's turn, a policy that decides after a roll),
//! each address's language, each game's join password, and the job in flight.
//!
//! Files under `<state>/`: `games/<game>/car-<n>.toml`, `games/<game>/reports-<n>.toml`,
//! `games/<game>/settings.toml`,
//! `people/<hash of address>.toml`, `inflight.toml`. Every write is atomic; re-applying the
//! same message writes the same values, so a crash between two writes is repaired by
//! processing the message again. `inflight.toml` is flushed at once; the other files have their
//! directories flushed with the job's other writes, before its ledger entry (the commit point;
//! `fsio::barrier`), and the hourly mail counts are not flushed at all.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::judge::ledger::key_name;
use crate::store::fsio::{Durability, write_atomic};

/// A gear sent before the car's turn: used when the car is next asked for a gear.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueuedGear {
    /// The gear.
    pub gear: u8,
    /// The message that sent it (its turn records this id, which makes it apply once).
    pub message_id: String,
    /// The sender.
    pub from: String,
}

/// The instructions for one move sent with a round order (`DRIVE`, issue 46): used after the
/// roll of the car's next move, then dropped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QueuedDrive {
    /// The instructions as written after `DRIVE`, in English (re-read with the order parser).
    pub text: String,
    /// The game's next turn when they were sent: they decide the first move of the car whose
    /// gear comes at or after that turn (or the move whose roll was waiting then), never a
    /// later one ([`QueuedDrive::serves`]).
    pub turn: u32,
    /// The message that sent them.
    pub message_id: String,
    /// The sender.
    pub from: String,
}

impl QueuedDrive {
    /// Whether these instructions still serve car `car` in `g`: with `rolled`, for the roll
    /// awaiting its choice (no gear of the car between their sending and that roll's gear);
    /// without, for the car's next move (no gear of the car since their sending).
    pub fn serves(&self, g: &crate::store::Game, car: u8, rolled: bool) -> bool {
        let gears: Vec<u32> = g
            .turns
            .iter()
            .filter(|t| t.turn >= self.turn && t.orders.iter().any(|o| o.car == car && o.gear.is_some()))
            .map(|t| t.turn)
            .collect();
        if rolled {
            // Sent while the roll waited (no gear since), or before the one gear of its move.
            gears.len() <= 1
        } else {
            gears.is_empty()
        }
    }
}

/// A car's standing orders.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarOrders {
    /// The policy as written after `POLICY` (re-read with the order parser).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<String>,
    /// A gear waiting for the car's turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gear: Option<QueuedGear>,
    /// The instructions for the car's next move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub drive: Option<QueuedDrive>,
    /// The instructions for the car's timed lap (`LAP`, in English), the lap driven by steward.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lap: Option<String>,
}

/// A game's mail settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GameSettings {
    /// SHA-256 of the join password, if joining needs one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub join_password_sha256: Option<String>,
    /// Who created the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by: Option<String>,
    /// The last turn a reminder was sent for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reminded_turn: Option<u32>,
}

/// A player's report mode and where their last report stopped (`REPORTS`, docs/orders.md).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReportPrefs {
    /// `mine`, `round`, `all` or `none`; none written: `mine`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Where the player's last mail stopped; none yet: the job's first turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mark: Option<crate::judge::modes::Mark>,
}

/// An address's preferences.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Person {
    /// The address.
    pub address: String,
    /// `en` or `fr` (empty: none chosen).
    #[serde(default)]
    pub lang: String,
    /// The time zone the address's deadlines are written in (`Europe/Paris`; issue 46).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone: Option<String>,
}

/// The job being processed: a message or a deadline. Its `first` turns say where its report
/// starts, so processing it again after a crash reports the same turns.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Inflight {
    /// The job's ledger key.
    pub key: String,
    /// For each game the job touches, the first turn of its report.
    #[serde(default)]
    pub first: std::collections::BTreeMap<String, u32>,
    /// The report marks (`<game>/<car>`) as they were before the job moved them: processed
    /// again, the job decides on these and sends the same mails.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub marks: std::collections::BTreeMap<String, crate::judge::modes::Mark>,
}

/// The mail an address sent in the last hour, for `rate_per_hour`: kept in the state directory
/// so that `serve --once` run from cron counts across runs.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RateLog {
    /// The address.
    pub address: String,
    /// Each mail counted: when it was read (seconds since 1970) and its mailbox key, so that a
    /// mail read again after a crash is not counted twice.
    #[serde(default)]
    pub seen: Vec<(i64, String)>,
}

/// The standing-orders directory.
#[derive(Clone, Debug)]
pub struct Standing {
    dir: PathBuf,
    durability: Durability,
}

impl Standing {
    /// The directory under `state`.
    pub fn open(state: &Path, durability: Durability) -> io::Result<Self> {
        fs::create_dir_all(state)?;
        Ok(Standing { dir: state.to_path_buf(), durability })
    }

    fn car_path(&self, game: &str, car: u8) -> PathBuf {
        self.dir.join("games").join(game).join(format!("car-{car}.toml"))
    }

    /// Car `car`'s standing orders in `game`.
    pub fn car(&self, game: &str, car: u8) -> io::Result<CarOrders> {
        read(&self.car_path(game, car))
    }

    /// Replaces them.
    pub fn set_car(&self, game: &str, car: u8, o: &CarOrders) -> io::Result<()> {
        self.write(&self.car_path(game, car), o)
    }

    fn reports_path(&self, game: &str, car: u8) -> PathBuf {
        self.dir.join("games").join(game).join(format!("reports-{car}.toml"))
    }

    /// Car `car`'s player's report mode and mark in `game`.
    pub fn reports(&self, game: &str, car: u8) -> io::Result<ReportPrefs> {
        read(&self.reports_path(game, car))
    }

    /// Replaces them.
    pub fn set_reports(&self, game: &str, car: u8, r: &ReportPrefs) -> io::Result<()> {
        self.write(&self.reports_path(game, car), r)
    }

    /// A game's settings.
    pub fn game(&self, game: &str) -> io::Result<GameSettings> {
        read(&self.dir.join("games").join(game).join("settings.toml"))
    }

    /// Replaces them.
    pub fn set_game(&self, game: &str, s: &GameSettings) -> io::Result<()> {
        self.write(&self.dir.join("games").join(game).join("settings.toml"), s)
    }

    fn person_path(&self, address: &str) -> PathBuf {
        self.dir.join("people").join(format!("{}.toml", key_name("address", &address.to_lowercase())))
    }

    /// The language `address` chose, if any.
    pub fn lang(&self, address: &str) -> io::Result<Option<String>> {
        let p: Person = read(&self.person_path(address))?;
        Ok((!p.lang.is_empty()).then_some(p.lang))
    }

    /// Records `address`'s language.
    pub fn set_lang(&self, address: &str, lang: &str) -> io::Result<()> {
        let mut p: Person = read(&self.person_path(address))?;
        p.address = address.to_lowercase();
        p.lang = lang.into();
        self.write(&self.person_path(address), &p)
    }

    /// The time zone `address` chose, if any.
    pub fn zone(&self, address: &str) -> io::Result<Option<String>> {
        let p: Person = read(&self.person_path(address))?;
        Ok(p.zone)
    }

    /// Records `address`'s time zone.
    pub fn set_zone(&self, address: &str, zone: &str) -> io::Result<()> {
        let mut p: Person = read(&self.person_path(address))?;
        p.address = address.to_lowercase();
        p.zone = Some(zone.into());
        self.write(&self.person_path(address), &p)
    }

    fn rate_path(&self, address: &str) -> PathBuf {
        self.dir.join("rate").join(format!("{}.toml", key_name("address", &address.to_lowercase())))
    }

    /// Counts mail `key` from `address` read at `now` (once per key) and returns how many
    /// mails that address sent in the hour up to `now`, this one included, counting at most
    /// `limit + 1` (only whether the limit is passed matters; the file stays small).
    pub fn count_mail(&self, address: &str, key: &str, now: i64, limit: usize) -> io::Result<usize> {
        let path = self.rate_path(address);
        // A count a crash cut short reads as no count (below).
        let mut log: RateLog = read(&path).unwrap_or_default();
        log.address = address.to_lowercase();
        log.seen.retain(|(t, _)| now - *t < 3600);
        if !log.seen.iter().any(|(_, k)| k == key) {
            log.seen.push((now, key.to_string()));
        }
        let keep = limit.saturating_add(1).min(4096);
        if log.seen.len() > keep {
            log.seen.drain(..log.seen.len() - keep);
        }
        // Rewritten in place and not flushed (issue 17: two fsyncs and a new file a message): a
        // count lost to a crash or a power cut only lets a sender past the limit by the mails
        // of that hour.
        if let Some(d) = path.parent() {
            fs::create_dir_all(d)?;
        }
        fs::write(&path, toml::to_string(&log).map_err(io::Error::other)?)?;
        Ok(log.seen.len())
    }

    /// The job in flight, if a run stopped in the middle of one.
    pub fn inflight(&self) -> io::Result<Option<Inflight>> {
        let p = self.dir.join("inflight.toml");
        if !p.exists() {
            return Ok(None);
        }
        read(&p).map(Some)
    }

    /// Records the job in flight.
    pub fn set_inflight(&self, job: &Inflight) -> io::Result<()> {
        // Flushed before the job writes what it protects, and after what came before it.
        self.write_as(&self.dir.join("inflight.toml"), job, self.durability)
    }

    /// A game's judge state (`games/<game>/judge.toml`: observers, absences; `dispatch::judge`).
    pub fn judge<T: DeserializeOwned + Default>(&self, game: &str) -> io::Result<T> {
        read(&self.dir.join("games").join(game).join("judge.toml"))
    }

    /// Replaces it.
    pub fn set_judge<T: Serialize>(&self, game: &str, v: &T) -> io::Result<()> {
        self.write(&self.dir.join("games").join(game).join("judge.toml"), v)
    }

    /// Writes a file of the job in flight: its directory is flushed with the job's other
    /// files, before the ledger entry that commits the job (`Durability::Grouped`).
    fn write<T: Serialize>(&self, path: &Path, v: &T) -> io::Result<()> {
        self.write_as(path, v, self.durability.grouped())
    }

    fn write_as<T: Serialize>(&self, path: &Path, v: &T, durability: Durability) -> io::Result<()> {
        if let Some(d) = path.parent() {
            fs::create_dir_all(d)?;
        }
        let text = toml::to_string(v).map_err(io::Error::other)?;
        write_atomic(path, text.as_bytes(), durability, false)
    }
}

fn read<T: DeserializeOwned + Default>(path: &Path) -> io::Result<T> {
    match fs::read_to_string(path) {
        Ok(t) => toml::from_str(&t).map_err(|e| io::Error::other(format!("{}: {e}", path.display()))),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(T::default()),
        Err(e) => Err(e),
    }
}
