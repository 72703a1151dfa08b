//! The game driver: the calls the mail daemon (and the command line) make, independent of mail.
//! Each call checks the order against the replayed game, writes exactly one new turn file, and
//! changes nothing when it fails.
//!
//! Writing protocol (docs/store.md): the game directory is locked; the turn file is written
//! atomically and is the commit point; `game.toml` is then rewritten from the turns if it
//! changed. A new game is built in a hidden directory and renamed into place.

use std::fs;
use std::path::{Path, PathBuf};

use crate::engine::pits::PitChoice;
use crate::track;

use super::error::StoreError;
use super::files::{FINISH_PORTION, Kind, LAP_THIRDS, SecretFile, SetupRecord, TurnFile};
use super::fsio::{self, DirLock, Durability, write_atomic};
use super::game::{Game, valid_id};
use super::handle::Handle;
use super::hash::{hex32, sha256_hex};
use super::replayed::Replayed;
pub use super::requests::{Join, Meta, NewGame};
use super::verify::{self, render_game_toml};

/// Environment variable naming the games directory.
pub const GAMES_ENV: &str = "STEWARD_GAMES";

/// The games directory: `flag`, else `$STEWARD_GAMES`, else `./games`.
pub fn games_dir(flag: Option<PathBuf>) -> PathBuf {
    flag.or_else(|| std::env::var_os(GAMES_ENV).map(PathBuf::from)).unwrap_or_else(|| PathBuf::from("games"))
}

/// A directory of games.
#[derive(Clone, Debug)]
pub struct Store {
    /// The directory.
    pub dir: PathBuf,
    /// Whether writes are flushed to disk.
    pub durability: Durability,
    /// Games kept in memory between calls ([`Store::keeping_games`]); none by default.
    replayed: Option<Replayed>,
}

/// 32 bytes from the operating system's random source.
pub fn os_random() -> Result<[u8; 32], StoreError> {
    let mut b = [0u8; 32];
    getrandom::fill(&mut b)
        .map_err(|e| StoreError::io("the operating system's random source", std::io::Error::other(e.to_string())))?;
    Ok(b)
}

/// A fresh random token (32 hex digits).
pub fn new_token() -> Result<String, StoreError> {
    Ok(hex::encode(&os_random()?[..16]))
}

/// The text of a track to copy into a game: a shipped track or a `.toml`/`.dat` file.
pub fn track_text(name_or_path: &str) -> Result<(String, String), StoreError> {
    let path = Path::new(name_or_path);
    let file = if path.is_file() {
        Some(path.to_path_buf())
    } else {
        track::load::track_dirs().into_iter().map(|d| d.join(format!("{name_or_path}.toml"))).find(|p| p.is_file())
    };
    let Some(file) = file else {
        // Let the loader word the error.
        track::load::resolve(name_or_path)?;
        return Err(StoreError::BadSetting(format!("no track `{name_or_path}`")));
    };
    if file.extension().is_some_and(|e| e == "dat") {
        let imported = track::import::import_file(&file)?;
        let text = track::import::to_toml(&imported)?;
        return Ok((imported.track.name.clone(), text));
    }
    let text = fs::read_to_string(&file).map_err(|e| StoreError::io(&file, e))?;
    let t = track::load::from_toml(&text, Some(&file))?;
    Ok((t.name.clone(), text))
}

impl Store {
    /// The store in `dir`, flushing every write.
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Store { dir: dir.into(), durability: Durability::Sync, replayed: None }
    }

    /// This store, keeping each game it opens in memory for the next [`Store::open`] as long as
    /// its files do not change (`store::replayed`): for a long-running process, the daemon.
    pub fn keeping_games(mut self) -> Self {
        self.replayed = Some(Replayed::default());
        self
    }

    /// How many games are kept in memory.
    pub fn kept_games(&self) -> usize {
        self.replayed.as_ref().map_or(0, Replayed::len)
    }

    /// How many times [`Store::open`] replayed a game from its files, in a store
    /// [`keeping_games`](Store::keeping_games) (0 in any other).
    pub fn replays(&self) -> u64 {
        self.replayed.as_ref().map_or(0, Replayed::replays)
    }

    /// The directory of game `id`.
    pub fn game_dir(&self, id: &str) -> PathBuf {
        self.dir.join(id)
    }

    /// Names of the games in the store, sorted.
    pub fn list(&self) -> Result<Vec<String>, StoreError> {
        let mut v = Vec::new();
        let entries = match fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(v),
            Err(e) => return Err(StoreError::io(&self.dir, e)),
        };
        for e in entries.flatten() {
            if let Some(name) = e.file_name().to_str()
                && valid_id(name)
                && e.path().join("turns").is_dir()
            {
                v.push(name.to_string());
            }
        }
        v.sort();
        Ok(v)
    }

    /// Creates game `req.id` with the secret `seed` (use [`os_random`]): writes `game.toml`,
    /// `track.toml`, `secret.toml` (0600) and turn 0, all at once.
    pub fn create(&self, req: &NewGame, seed: [u8; 32], meta: Meta) -> Result<Handle, StoreError> {
        if !valid_id(&req.id) {
            return Err(StoreError::BadId(req.id.clone()));
        }
        let (name, text) = track_text(&req.track)?;
        let t = track::load::from_toml(&text, None)?;
        let max_cars = req.max_cars.unwrap_or(t.grid.len().min(u8::MAX as usize) as u8);
        if !cars_fit(&t, max_cars) {
            return Err(StoreError::BadSetting(format!(
                "CARS {max_cars}: the grid of {} holds {} cars (ruling 55)",
                t.title,
                t.grid.len()
            )));
        }
        let setup = SetupRecord {
            id: req.id.clone(),
            track: name,
            track_sha256: sha256_hex(text.as_bytes()),
            profile: crate::engine::Rulebook::split_spec(&req.profile).0,
            toggles: crate::engine::Rulebook::split_spec(&req.profile).1,
            laps: req.laps,
            max_cars,
            move_hours: req.move_hours,
            join_by: req.join_by.map(|s| s.to_string()),
            weather: Some(req.weather.name().to_string()),
            grid: req.grid.qualifies().then(|| req.grid.name().to_string()),
            weather_checks: req.lap_third_weather.then(|| LAP_THIRDS.to_string()),
            late_arrivals: req.late_arrivals,
            finish_ties: req.finish_by_portion.then(|| FINISH_PORTION.to_string()),
            pit_choice: (req.pit_choice != PitChoice::GridOrder).then(|| req.pit_choice.name().to_string()),
            backmarkers: req.backmarkers,
            deadlines: (req.round_deadlines || req.schedule.is_some()).then(|| "round".to_string()),
            schedule: req.schedule.clone(),
            beacon: req.beacon.as_ref().map(|b| b.source.clone()),
            beacon_at: req.beacon.as_ref().map(|b| b.at.to_string()),
            dice: req.scheme.name().into(),
            commitment: hex32(&req.scheme.commit(&req.id, &seed)),
        };
        if let Some(b) = &req.beacon
            && b.at <= meta.at
        {
            return Err(StoreError::BadSetting(format!(
                "the beacon's value is public from {}: name one that is not known yet (docs/dice.md, section 6)",
                b.at
            )));
        }
        let mut input = TurnFile::new(0, Kind::Create, meta.at.to_string());
        input.source = meta.source;
        input.setup = Some(setup);
        let (mut game, out) = Game::create(t, &input, Some(seed))?;
        fs::create_dir_all(&self.dir).map_err(|e| StoreError::io(&self.dir, e))?;
        let _guard = DirLock::take(&self.dir).map_err(|e| StoreError::io(&self.dir, e))?;
        let dir = self.game_dir(&req.id);
        if dir.exists() {
            return Err(StoreError::Exists(req.id.clone()));
        }
        let tmp = self.dir.join(format!(".new-{}", req.id));
        if tmp.exists() {
            fs::remove_dir_all(&tmp).map_err(|e| StoreError::io(&tmp, e))?;
        }
        let turn_text = toml::to_string(&out).map_err(|e| StoreError::io(&tmp, std::io::Error::other(e)))?;
        let secret = format!(
            "# The secret dice seed of game {}. Never publish it before the race ends: steward reveals it\n# in the last turn (or `steward reveal`). SHA-256 of the seed is the game's commitment.\n{}",
            req.id,
            toml::to_string(&SecretFile { seed: hex32(&seed) }).unwrap_or_default()
        );
        let d = self.durability;
        let io = |p: &Path, e| StoreError::io(p, e);
        fs::create_dir_all(tmp.join("turns")).map_err(|e| io(&tmp, e))?;
        fsio::step();
        write_atomic(&tmp.join("secret.toml"), secret.as_bytes(), d, true).map_err(|e| io(&tmp, e))?;
        write_atomic(&tmp.join("track.toml"), text.as_bytes(), d, false).map_err(|e| io(&tmp, e))?;
        write_atomic(&tmp.join("turns").join(TurnFile::file_name(0)), turn_text.as_bytes(), d, false)
            .map_err(|e| io(&tmp, e))?;
        let next = game.now.clone();
        game.push(out, next, sha256_hex(turn_text.as_bytes()));
        let game_toml = render_game_toml(&game);
        write_atomic(&tmp.join("game.toml"), game_toml.as_bytes(), d, false).map_err(|e| io(&tmp, e))?;
        fs::rename(&tmp, &dir).map_err(|e| io(&dir, e))?;
        fsio::step();
        if d == Durability::Sync {
            fsio::sync_dir(&self.dir).map_err(|e| io(&self.dir, e))?;
        }
        fsio::step();
        drop(_guard);
        let lock = DirLock::take(&dir).map_err(|e| io(&dir, e))?;
        Ok(Handle {
            dir,
            game: Some(game),
            game_toml: game_toml.into_bytes(),
            durability: d,
            kept: self.replayed.clone(),
            _lock: lock,
        })
    }

    /// Opens game `id` for writing: takes its lock and replays it with every check (or, in a
    /// store [`keeping_games`](Store::keeping_games), takes the game kept from the last call if
    /// its files have not changed since).
    pub fn open(&self, id: &str) -> Result<Handle, StoreError> {
        let dir = self.game_dir(id);
        if !valid_id(id) || !dir.join("turns").is_dir() {
            return Err(StoreError::NoSuchGame { id: id.to_string(), dir: self.dir.clone() });
        }
        let lock = DirLock::take(&dir).map_err(|e| StoreError::io(&dir, e))?;
        for d in [dir.clone(), dir.join("turns")] {
            fsio::remove_temps(&d).map_err(|e| StoreError::io(&d, e))?;
        }
        let (game, game_toml) = match self.replayed.as_ref().and_then(|r| r.take_fresh(&dir)) {
            Some(kept) => kept,
            None => {
                if let Some(r) = &self.replayed {
                    r.count_replay();
                }
                let loaded = verify::load(&dir, None, true, None)?;
                verify::check_game_toml(loaded.game_toml.as_deref(), &loaded.game)?;
                (loaded.game, loaded.game_toml.unwrap_or_default())
            }
        };
        let mut h = Handle {
            dir,
            game: Some(game),
            game_toml,
            durability: self.durability,
            kept: self.replayed.clone(),
            _lock: lock,
        };
        h.sync_game_toml()?;
        Ok(h)
    }

    /// Reads game `id` without locking it (for showing): replays turns up to `upto`.
    pub fn load(&self, id: &str, upto: Option<u32>) -> Result<Game, StoreError> {
        let dir = self.game_dir(id);
        if !valid_id(id) || !dir.join("turns").is_dir() {
            return Err(StoreError::NoSuchGame { id: id.to_string(), dir: self.dir.clone() });
        }
        load_dir(&dir, upto)
    }
}

/// Reads the game in `dir` up to turn `upto`, with every check, using the revealed seed if any.
pub fn load_dir(dir: &Path, upto: Option<u32>) -> Result<Game, StoreError> {
    Ok(verify::load(dir, None, false, upto)?.game)
}

/// Whether a race of `cars` cars fits track `t`: one car a grid slot (1-3-2, ruling 55).
pub fn cars_fit(t: &crate::track::Track, cars: u8) -> bool {
    (1..=t.grid.len()).contains(&usize::from(cars))
}
