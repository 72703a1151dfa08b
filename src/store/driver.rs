//! The game driver: the calls the mail daemon (and the command line) make, independent of mail.
//! Each call checks the order against the replayed game, writes exactly one new turn file, and
//! changes nothing when it fails.
//!
//! Writing protocol (docs/store.md): the game directory is locked; the turn file is written
//! atomically and is the commit point; `game.toml` is then rewritten from the turns if it
//! changed. A new game is built in a hidden directory and renamed into place.

use std::fs;
use std::path::{Path, PathBuf};

use crate::dice::Scheme;
use crate::engine::bot::Bot;
use crate::engine::pits::PitChoice;
use crate::engine::weather::Forecast;
use crate::engine::{Rulebook, Step, Tyres, Wear, roll};
use crate::track;

use super::error::StoreError;
use super::files::{
    By, Kind, Moderation, OrderRecord, PitRecord, PlayerRecord, SecretFile, SetupRecord, Source, TurnFile,
};
use super::fsio::{self, DirLock, Durability, write_atomic};
use super::qualifying::GridMethod;
use super::replay::{Game, hex32, sha256_hex, token_hash, valid_id, wear_record};
use super::replayed::Replayed;
use super::time::Stamp;
use super::verify::{self, render_game_toml, turn_path};

/// Environment variable naming the games directory.
pub const GAMES_ENV: &str = "STEWARD_GAMES";

/// The games directory: `flag`, else `$STEWARD_GAMES`, else `./games`.
pub fn games_dir(flag: Option<PathBuf>) -> PathBuf {
    flag.or_else(|| std::env::var_os(GAMES_ENV).map(PathBuf::from)).unwrap_or_else(|| PathBuf::from("games"))
}

/// When and from where a call comes.
#[derive(Clone, Debug)]
pub struct Meta {
    /// When the order was received.
    pub at: Stamp,
    /// The message it came from.
    pub source: Option<Source>,
}

impl Meta {
    /// Now, with no message.
    pub fn now() -> Self {
        Meta { at: Stamp::now(), source: None }
    }

    /// Now, on behalf of `who` (`moderator`, `bot`...).
    pub fn by(who: &str) -> Self {
        Meta { at: Stamp::now(), source: Some(Source { by: Some(who.into()), ..Source::default() }) }
    }
}

/// The `finish_ties` setting of 004's same-turn finishes (ruling 50).
pub const FINISH_PORTION: &str = "portion";

/// The `weather_checks` setting of 002's three checks a lap (ruling 46).
pub const LAP_THIRDS: &str = "lap-thirds";

/// What a new game is.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Its name.
    pub id: String,
    /// A shipped track's name or a track file.
    pub track: String,
    /// Rule profile, optionally with the Eurogames toggles after a colon
    /// (`eurogames-advanced:tyres,weather`, docs/profiles.md).
    pub profile: String,
    /// Laps.
    pub laps: u16,
    /// Most cars (default: the grid).
    pub max_cars: Option<u8>,
    /// Hours to answer.
    pub move_hours: u32,
    /// Joins close at.
    pub join_by: Option<Stamp>,
    /// How the race weather is decided (3-0-1).
    pub weather: Forecast,
    /// How the grid is made (1, ruling 31).
    pub grid: GridMethod,
    /// A changeable sky is tested three times a lap (002 "Weather", ruling 46).
    pub lap_third_weather: bool,
    /// Late arrivals may join from the pit-lane exit (004, ruling 47).
    pub late_arrivals: bool,
    /// Cars finishing in the same round are placed by the portion of their move used to touch
    /// the line (004, ruling 50), not by the order of crossing (21-1-4).
    pub finish_by_portion: bool,
    /// In which order the players choose their pit boxes (4-0-1; 002 after a d20 grid, ruling 48).
    pub pit_choice: PitChoice,
    /// The race plays with 002's backmarkers (ruling 49).
    pub backmarkers: bool,
    /// The dice scheme (docs/dice.md): v2 for every new game; `steward sim --keep` writes v1
    /// games, whose key is the one `steward sim` plays with.
    pub scheme: Scheme,
}

impl NewGame {
    /// A game as the library's callers mostly want it (simulations, benches, tests): the 2004
    /// rules, sun, the join order as the grid, 48 hours to answer, no other option.
    pub fn plain(id: &str, track: &str, laps: u16) -> NewGame {
        NewGame {
            id: id.into(),
            track: track.into(),
            profile: Rulebook::competition_2004().profile_name().into(),
            laps,
            max_cars: None,
            move_hours: 48,
            join_by: None,
            weather: Forecast::Sun,
            grid: GridMethod::Join,
            lap_third_weather: false,
            late_arrivals: false,
            finish_by_portion: false,
            pit_choice: PitChoice::GridOrder,
            backmarkers: false,
            scheme: Scheme::V2,
        }
    }
}

/// A player's join.
#[derive(Clone, Debug)]
pub struct Join {
    /// Mail address.
    pub address: String,
    /// The token that will authenticate the player's orders (only its hash is stored).
    pub token: String,
    /// Car number wanted (default: the lowest free).
    pub car: Option<u8>,
    /// Display name.
    pub name: Option<String>,
    /// Wear points.
    pub wear: Wear,
    /// Tyres.
    pub tyres: Tyres,
    /// Tyres if the track is wet at the start (none: the same).
    pub wet_tyres: Option<Tyres>,
    /// Entropy phrase mixed into the dice key.
    pub entropy: Option<String>,
    /// The bot drives this car.
    pub bot: bool,
    /// The driver's points for this race (002 "Expending Driver Points", ruling 45): 0 for none.
    pub driver_points: u8,
    /// The pit boxes wanted, best first, numbered from 1 along the lane (4-0-1, ruling 48).
    pub boxes: Vec<u8>,
}

impl Join {
    /// Car `car` for `address` with `token`: the standard sheet (5-0-2), hard tyres, no phrase,
    /// no driver point, driven by its player.
    pub fn plain(address: &str, token: &str, car: u8) -> Join {
        Join {
            address: address.into(),
            token: token.into(),
            car: Some(car),
            name: None,
            wear: Wear::standard(),
            tyres: Tyres::Hard,
            wet_tyres: None,
            entropy: None,
            bot: false,
            driver_points: 0,
            boxes: Vec::new(),
        }
    }
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
            dice: req.scheme.name().into(),
            commitment: hex32(&req.scheme.commit(&req.id, &seed)),
        };
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

/// An open game, locked for writing until dropped.
#[derive(Debug)]
pub struct Handle {
    dir: PathBuf,
    /// `None` only while dropped (the game goes back to `kept`).
    game: Option<Game>,
    game_toml: Vec<u8>,
    durability: Durability,
    kept: Option<Replayed>,
    // Declared last: dropped after `Drop::drop` has put the game back, so that happens under
    // the game's lock.
    _lock: DirLock,
}

impl Drop for Handle {
    fn drop(&mut self) {
        if let (Some(kept), Some(game)) = (self.kept.take(), self.game.take()) {
            kept.put(self.dir.clone(), game, std::mem::take(&mut self.game_toml));
        }
    }
}

impl Handle {
    /// The game as it stands.
    pub fn game(&self) -> &Game {
        self.game.as_ref().expect("a handle holds its game until dropped")
    }

    fn game_mut(&mut self) -> &mut Game {
        self.game.as_mut().expect("a handle holds its game until dropped")
    }

    /// Keep the state right after each move (`Race::after_move`), for invariant checks.
    pub fn keep_states_after_moves(&mut self) {
        self.game_mut().keep_after_move = true;
    }

    /// The game's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The last turn written.
    pub fn last(&self) -> &TurnFile {
        self.game().turns.last().expect("a game has turn 0")
    }

    fn input(&self, kind: Kind, meta: Meta) -> TurnFile {
        let mut t = TurnFile::new(self.game().next_turn(), kind, meta.at.to_string());
        t.source = meta.source;
        t
    }

    fn need_seed(&self) -> Result<(), StoreError> {
        if self.game().seed.is_none() {
            return Err(StoreError::NoSecret(self.dir.join("secret.toml")));
        }
        Ok(())
    }

    /// Applies `input`, writes the turn file it produces, and rewrites `game.toml` if needed.
    fn commit(&mut self, input: TurnFile) -> Result<&TurnFile, StoreError> {
        let (out, next) = self.game().apply(&input)?;
        let text = toml::to_string(&out).map_err(|e| StoreError::io(&self.dir, std::io::Error::other(e)))?;
        let rel = turn_path(out.turn);
        let path = self.dir.join(&rel);
        if path.exists() {
            return Err(StoreError::BadTurn { turn: out.turn, file: rel, why: "the file exists already".into() });
        }
        write_atomic(&path, text.as_bytes(), self.durability, false).map_err(|e| StoreError::io(&path, e))?;
        self.game_mut().push(out, next, sha256_hex(text.as_bytes()));
        self.sync_game_toml()?;
        Ok(self.last())
    }

    fn sync_game_toml(&mut self) -> Result<(), StoreError> {
        let want = render_game_toml(self.game());
        if want.as_bytes() != self.game_toml.as_slice() {
            let path = self.dir.join("game.toml");
            write_atomic(&path, want.as_bytes(), self.durability, false).map_err(|e| StoreError::io(&path, e))?;
            self.game_toml = want.into_bytes();
        }
        Ok(())
    }

    /// A player joins; returns the turn (its `player.car` is the car's number).
    pub fn join(&mut self, req: &Join, meta: Meta) -> Result<&TurnFile, StoreError> {
        let g = self.game();
        let car = match req.car {
            Some(c) => c,
            None => (1..=99u8).find(|c| g.now.players.iter().all(|p| p.car != *c)).unwrap_or(0),
        };
        if req.token.trim().is_empty() {
            return Err(StoreError::BadSetting("a join needs a token".into()));
        }
        let player = PlayerRecord {
            car,
            address: req.address.trim().to_string(),
            name: req.name.clone().filter(|n| !n.trim().is_empty()),
            token_sha256: token_hash(&g.setup.id, &req.token),
            bot: req.bot,
            tyres: req.tyres.name().to_string(),
            wet_tyres: req.wet_tyres.map(|t| t.name().to_string()),
            entropy: req.entropy.clone().unwrap_or_default(),
            driver_points: req.driver_points,
            boxes: req.boxes.clone(),
            wear: wear_record(&req.wear),
        };
        let mut input = self.input(Kind::Join, meta);
        input.player = Some(player);
        self.commit(input)
    }

    /// The moderator starts the race: the dice key is derived from the seed and every phrase.
    pub fn start(&mut self, meta: Meta) -> Result<&TurnFile, StoreError> {
        self.need_seed()?;
        let input = self.input(Kind::Start, meta);
        self.commit(input)
    }

    /// Car `car` announces `gear`: the die is rolled and the options offered (a single option is
    /// played at once).
    pub fn gear(&mut self, car: u8, gear: u8, by: By, meta: Meta) -> Result<&TurnFile, StoreError> {
        self.need_seed()?;
        let mut input = self.input(Kind::Move, meta);
        input.orders.push(OrderRecord::gear(car, by, gear));
        self.commit(input)
    }

    /// Car `car` expends one of its driver's points to re-roll the gear roll awaiting its choice
    /// (002 "Expending Driver Points", ruling 45): the new options are offered (a single option
    /// is played at once).
    pub fn reroll(&mut self, car: u8, by: By, meta: Meta) -> Result<&TurnFile, StoreError> {
        self.need_seed()?;
        let mut input = self.input(Kind::Move, meta);
        input.orders.push(OrderRecord::reroll(car, by));
        self.commit(input)
    }

    /// Car `car` chooses an option by label (`B`) or by destination space id.
    pub fn choose(&mut self, car: u8, answer: &str, by: By, meta: Meta) -> Result<&TurnFile, StoreError> {
        self.answer(car, answer, None, by, meta)
    }

    /// Car `car` chooses an option that ends at its box, with its decision there (19-2-6, 19-3,
    /// 19-4): `pit` is recorded with the choice.
    pub fn choose_with_pit(
        &mut self,
        car: u8,
        answer: &str,
        pit: PitRecord,
        by: By,
        meta: Meta,
    ) -> Result<&TurnFile, StoreError> {
        self.answer(car, answer, Some(pit), by, meta)
    }

    /// The turn of an answer to a roll, with the decision at the box if any.
    fn answer(
        &mut self,
        car: u8,
        answer: &str,
        pit: Option<PitRecord>,
        by: By,
        meta: Meta,
    ) -> Result<&TurnFile, StoreError> {
        self.need_seed()?;
        let mut input = self.input(Kind::Move, meta);
        let choose = Some(answer.trim().to_string());
        input.orders.push(OrderRecord { car, by, gear: None, choose, space: None, reroll: false, pit });
        self.commit(input)
    }

    /// The bot plays for the car awaited (a bot car, or a player past the deadline): its gear and
    /// its choice, or only the choice when the roll is made.
    pub fn bot_move(&mut self, bot: &mut Bot, meta: Meta) -> Result<&TurnFile, StoreError> {
        self.need_seed()?;
        if let Some(q) = &self.game().now.qualifying {
            // The first lap still going on, a bot's first (ruling 31).
            let bots: Vec<u8> = self.game().now.players.iter().filter(|p| p.bot).map(|p| p.car).collect();
            let awaited = q.awaited();
            let car = awaited
                .iter()
                .find(|(c, _)| bots.contains(c))
                .or(awaited.first())
                .map(|(c, _)| *c)
                .ok_or(StoreError::Over)?;
            return self.bot_lap(car, bot, meta);
        }
        let g = self.game();
        let race = g.now.race.as_ref().ok_or(StoreError::NotStarted)?;
        if g.now.over {
            return Err(StoreError::Over);
        }
        let mut input = self.input(Kind::Move, meta);
        if let Some(p) = &race.pending {
            let car = g.number(p.rolled.car);
            let i = bot.option(&g.track, &p.rolled);
            let label = crate::engine::MoveOption::label(i);
            let pit = bot_pit(bot, &g.track, &g.rules, &p.rolled, i);
            input.orders.push(OrderRecord { pit, ..OrderRecord::choice(car, By::Bot, label) });
            return self.commit(input);
        }
        let id = race.state.to_play.ok_or(StoreError::Over)?;
        let car = g.number(id);
        let gear = bot.gear(&g.track, &race.state, id);
        input.orders.push(OrderRecord::gear(car, By::Bot, gear));
        // Look at the roll the gear gives (the dice are derived, so this is the roll the turn
        // will make) to pick the option in the same turn.
        let key = g.now.key;
        if let Some(key) = key {
            let mut dice = crate::dice::LabelledDice::new(key, &super::replay::move_label(g.now.epoch, race.moves + 1));
            if let Ok(Step::Choose(r)) = roll(&g.track, &race.state, id, gear, &mut dice, &g.rules)
                && (r.options.len() > 1 || crate::engine::play::reaches_box(&g.track, &r, 0))
            {
                let i = bot.option(&g.track, &r);
                let pit = bot_pit(bot, &g.track, &g.rules, &r, i);
                input.orders.push(OrderRecord {
                    pit,
                    ..OrderRecord::choice(car, By::Bot, crate::engine::MoveOption::label(i))
                });
            }
        }
        self.commit(input)
    }

    /// The bot plays the next step of car `car`'s timed lap (ruling 31): its choice when a roll
    /// awaits one, else its gear and, in the same turn, its choice.
    pub fn bot_lap(&mut self, car: u8, bot: &mut Bot, meta: Meta) -> Result<&TurnFile, StoreError> {
        use crate::engine::qualifying::LapDriver;
        self.need_seed()?;
        let g = self.game();
        let q = g.now.qualifying.as_ref().ok_or(StoreError::NotStarted)?;
        let e = q.entry(car).ok_or(StoreError::NoSuchCar(car))?;
        let mut input = self.input(Kind::Move, meta);
        let order =
            |gear, choose| OrderRecord { car, by: By::Bot, gear, choose, space: None, reroll: false, pit: None };
        if let Some((r, _)) = &e.pending {
            let i = LapDriver::option(bot, &g.track, &e.lap, r);
            input.orders.push(order(None, Some(crate::engine::MoveOption::label(i))));
            return self.commit(input);
        }
        let gear = LapDriver::gear(bot, &g.track, &e.lap);
        input.orders.push(order(Some(gear), None));
        if let Some(key) = g.now.key {
            // The roll the gear gives (derived dice): choose in the same turn.
            let mut dice = crate::dice::LabelledDice::new(key, &super::replay::move_label(g.now.epoch, q.moves + 1));
            if let Ok(r) = e.lap.roll(&g.track, gear, &mut dice)
                && r.options.len() > 1
            {
                let i = LapDriver::option(bot, &g.track, &e.lap, &r);
                input.orders.push(order(None, Some(crate::engine::MoveOption::label(i))));
            }
        }
        self.commit(input)
    }

    /// The moderator reveals the seed: the race ends where it stands.
    pub fn reveal(&mut self, meta: Meta) -> Result<&TurnFile, StoreError> {
        self.need_seed()?;
        let input = self.input(Kind::Reveal, meta);
        self.commit(input)
    }

    /// A moderator's action, logged as its own turn.
    pub fn moderate(&mut self, action: Moderation, meta: Meta) -> Result<&TurnFile, StoreError> {
        let mut input = self.input(Kind::Moderate, meta);
        input.moderation = Some(action);
        self.commit(input)
    }

    /// Moderator: the game returns to the end of turn `to` (docs/store.md, "Rollbacks"): the
    /// turns after it stay in the chain, rolled back, and later rolls take new labels.
    pub fn rollback(&mut self, to: u32, meta: Meta) -> Result<&TurnFile, StoreError> {
        if let Some(why) = self.game().rollback_refusal(to) {
            return Err(StoreError::BadModeration(why));
        }
        let mut input = self.input(Kind::Rollback, meta);
        input.rollback = Some(super::files::RollbackRecord {
            to,
            head: self.game().hashes.last().cloned().unwrap_or_default(),
            epoch: self.game().now.epoch + 1,
        });
        self.commit(input)
    }

    /// Car `car`'s player retires it: out of the race where it stands, a DNF (ruling 51).
    pub fn retire(&mut self, car: u8, meta: Meta) -> Result<&TurnFile, StoreError> {
        let mut input = self.input(Kind::Player, meta);
        input.retire = Some(super::files::RetireRecord { car });
        self.commit(input)
    }

    /// The car of the player at `address` whose token is `token`.
    pub fn authenticate(&self, address: &str, token: &str) -> Result<u8, StoreError> {
        authenticate(self.game(), address, token)
    }
}

/// The car of the player at `address` whose token is `token`.
pub fn authenticate(game: &Game, address: &str, token: &str) -> Result<u8, StoreError> {
    let p = game
        .now
        .players
        .iter()
        .find(|p| p.address.eq_ignore_ascii_case(address.trim()))
        .ok_or_else(|| StoreError::NotAPlayer(address.to_string()))?;
    if p.token_sha256 != token_hash(&game.setup.id, token.trim()) {
        return Err(StoreError::BadToken(p.address.clone()));
    }
    Ok(p.car)
}

/// The bot's decision at the box (19-2-6) when option `i` of `r` ends there.
pub fn bot_pit(
    bot: &Bot,
    t: &crate::track::Track,
    rules: &crate::engine::Rulebook,
    r: &crate::engine::Rolled,
    i: usize,
) -> Option<PitRecord> {
    if !crate::engine::play::reaches_box(t, r, i) {
        return None;
    }
    let o = bot.pit_order_for(&r.state, r.car, rules);
    Some(PitRecord {
        kind: o.kind.map(|k| k.name().to_string()),
        tyres: o.tyres.map(|x| x.name().to_string()),
        repairs: o.repairs.iter().map(|&(p, n)| (p.name().to_string(), n)).collect(),
    })
}
