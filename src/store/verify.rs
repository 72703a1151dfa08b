//! Reading a game directory and replaying it with every check: the turn numbering, the hash
//! chain, the commitment, every roll (when the seed is known), every event, option and state
//! digest, and `game.toml` against the turns. Loading a game for play runs the same checks, so
//! a game that loads is a game that verifies.

use std::fs;
use std::path::Path;
use std::sync::{Arc, Mutex, Weak};

use crate::dice::Scheme;
use crate::track;

use super::error::StoreError;
use super::files::{FORMAT, GameFile, Kind, OrderRecord, SecretFile, TurnFile};
use super::game::Game;
use super::hash::{hex32, parse_hex32, sha256_hex};

/// The files of a game directory, as bytes (what `audit` and the benchmark's baseline read).
#[derive(Clone, Debug)]
pub struct RawGame {
    /// `game.toml`, if present.
    pub game_toml: Option<Vec<u8>>,
    /// `track.toml`.
    pub track: Vec<u8>,
    /// The turn files: number from the name, bytes.
    pub turns: Vec<(u32, Vec<u8>)>,
}

/// The parsed turn files.
#[derive(Clone, Debug)]
pub struct Parsed {
    /// The turns, in file order.
    pub turns: Vec<TurnFile>,
}

/// Where the seed used for checking the rolls came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeedFrom {
    /// `--seed`.
    Given,
    /// A turn revealed it.
    Revealed(u32),
    /// `secret.toml` (the operator's copy, not yet public).
    Secret,
    /// Unknown: rolls taken as recorded.
    Unknown,
}

/// A turn file's path relative to its game directory.
pub fn turn_path(n: u32) -> String {
    format!("turns/{}", TurnFile::file_name(n))
}

fn bad(turn: u32, why: impl Into<String>) -> StoreError {
    StoreError::BadTurn { turn, file: turn_path(turn), why: why.into() }
}

/// Reads every file of the game in `dir`, without checking anything.
pub fn read(dir: &Path) -> Result<RawGame, StoreError> {
    let mut turns = Vec::new();
    for (n, name) in list_turns(dir)? {
        let p = dir.join("turns").join(name);
        turns.push((n, fs::read(&p).map_err(|e| StoreError::io(&p, e))?));
    }
    let track_path = dir.join("track.toml");
    let track = fs::read(&track_path).map_err(|e| StoreError::io(&track_path, e))?;
    Ok(RawGame { game_toml: fs::read(dir.join("game.toml")).ok(), track, turns })
}

/// Parses every turn file; the first that does not parse, or is out of place, is named.
pub fn parse(raw: &RawGame) -> Result<Parsed, StoreError> {
    let mut turns = Vec::with_capacity(raw.turns.len());
    for (i, (n, bytes)) in raw.turns.iter().enumerate() {
        if *n != i as u32 {
            return Err(bad(i as u32, "the file is missing"));
        }
        turns.push(parse_turn(*n, bytes)?);
    }
    Ok(Parsed { turns })
}

fn read_turn(dir: &Path, i: u32, files: &[(u32, String)]) -> Result<(String, TurnFile), StoreError> {
    let Some((n, name)) = files.get(i as usize) else {
        return Err(bad(i, "the file is missing"));
    };
    if *n != i {
        return Err(if *n > i {
            bad(i, format!("the file is missing: the turns jump from {} to {n}", i as i64 - 1))
        } else {
            bad(*n, "two files carry this number")
        });
    }
    let p = dir.join("turns").join(name);
    let bytes = fs::read(&p).map_err(|e| StoreError::io(&p, e))?;
    let t = parse_turn(i, &bytes)?;
    Ok((sha256_hex(&bytes), t))
}

fn parse_turn(n: u32, bytes: &[u8]) -> Result<TurnFile, StoreError> {
    let text = std::str::from_utf8(bytes).map_err(|_| bad(n, "the file is not UTF-8"))?;
    let t: TurnFile = toml::from_str(text).map_err(|e| bad(n, format!("the file does not parse: {e}")))?;
    if t.turn != n {
        return Err(bad(n, format!("the file says it is turn {}", t.turn)));
    }
    Ok(t)
}

pub(super) fn list_turns(dir: &Path) -> Result<Vec<(u32, String)>, StoreError> {
    let turns_dir = dir.join("turns");
    let entries = fs::read_dir(&turns_dir).map_err(|e| StoreError::io(&turns_dir, e))?;
    let mut numbers = Vec::new();
    for e in entries {
        let e = e.map_err(|e| StoreError::io(&turns_dir, e))?;
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(stem) = name.strip_suffix(".toml")
            && stem.len() >= 4
            && stem.bytes().all(|b| b.is_ascii_digit())
            && let Ok(n) = stem.parse::<u32>()
        {
            numbers.push((n, name.to_string()));
        }
    }
    numbers.sort();
    Ok(numbers)
}

/// Turn files handed from the reading thread to the replaying one at a time.
const BATCH: usize = 16;

/// A game read and replayed with every check.
#[derive(Clone, Debug)]
pub struct Loaded {
    /// The game.
    pub game: Game,
    /// Where the seed the rolls were checked with came from.
    pub seed_from: SeedFrom,
    /// The bytes of `game.toml`, if present.
    pub game_toml: Option<Vec<u8>>,
}

fn secret_seed(bytes: &[u8], committed: &str, commit: impl Fn(&[u8; 32]) -> [u8; 32]) -> Result<[u8; 32], StoreError> {
    let file = "secret.toml".to_string();
    let text =
        std::str::from_utf8(bytes).map_err(|_| StoreError::BadFile { file: file.clone(), why: "not UTF-8".into() })?;
    let secret: SecretFile =
        toml::from_str(text).map_err(|e| StoreError::BadFile { file: file.clone(), why: e.to_string() })?;
    let s = parse_hex32(&secret.seed)
        .ok_or_else(|| StoreError::BadFile { file: file.clone(), why: "the seed is not 64 hex digits".into() })?;
    if hex32(&commit(&s)) != committed {
        return Err(StoreError::BadFile { file, why: format!("its seed does not match the commitment {committed}") });
    }
    Ok(s)
}

/// Reads the game in `dir` and replays turns 0 to `upto` (all when `None`) with every check:
/// numbering, chain, commitment, rolls, events, options, state digests. The seed is `given`,
/// else the one the last turn reveals, else (with `use_secret`) `secret.toml`; without one the
/// rolls are taken as recorded. One thread reads and parses the turn files while this one
/// replays them.
pub fn load(dir: &Path, given: Option<[u8; 32]>, use_secret: bool, upto: Option<u32>) -> Result<Loaded, StoreError> {
    let files = list_turns(dir)?;
    if files.first().map(|f| f.0) != Some(0) {
        return Err(bad(0, "the game has no turn 0"));
    }
    let track_path = dir.join("track.toml");
    let track_bytes = fs::read(&track_path).map_err(|e| StoreError::io(&track_path, e))?;
    let game_toml = fs::read(dir.join("game.toml")).ok();
    let (hash0, first) = read_turn(dir, 0, &files)?;
    let setup = first.setup.as_ref().ok_or_else(|| bad(0, "turn 0 has no [setup]"))?;
    let committed = setup.commitment.clone();
    // An unknown scheme is refused by the replay of turn 0, below.
    let scheme = Scheme::parse(&setup.dice).unwrap_or_default();
    let commitment = |s: &[u8; 32]| scheme.commit(&setup.id, s);
    let track_hash = sha256_hex(&track_bytes);
    if track_hash != setup.track_sha256 {
        return Err(StoreError::BadFile {
            file: "track.toml".into(),
            why: format!(
                "it has changed since the game was created: SHA-256 {track_hash}, the setup says {}",
                setup.track_sha256
            ),
        });
    }
    // The seed: given, revealed by the last turn (the race is over), or the operator's copy.
    let last_n = files.len() as u32 - 1;
    let revealed = if last_n > 0 {
        read_turn(dir, last_n, &files).ok().and_then(|(_, t)| t.seed.map(|s| (t.turn, s)))
    } else {
        first.seed.clone().map(|s| (0, s))
    };
    let (seed, seed_from) = if let Some(s) = given {
        if hex32(&commitment(&s)) != committed {
            return Err(bad(
                0,
                format!("the seed given ({}) does not match the commitment {committed} of turn 0", hex32(&s)),
            ));
        }
        (Some(s), SeedFrom::Given)
    } else if let Some((n, text)) = revealed {
        let s = parse_hex32(&text).ok_or_else(|| bad(n, format!("the revealed seed `{text}` is not 64 hex digits")))?;
        if hex32(&commitment(&s)) != committed {
            return Err(bad(
                n,
                format!("the revealed seed {text} does not match the commitment {committed} of turn 0"),
            ));
        }
        (Some(s), SeedFrom::Revealed(n))
    } else if let Some(bytes) = use_secret.then(|| fs::read(dir.join("secret.toml")).ok()).flatten() {
        (Some(secret_seed(&bytes, &committed, commitment)?), SeedFrom::Secret)
    } else {
        (None, SeedFrom::Unknown)
    };
    let text = std::str::from_utf8(&track_bytes)
        .map_err(|_| StoreError::BadFile { file: "track.toml".into(), why: "not UTF-8".into() })?;
    let last = upto.map_or(last_n, |n| n.min(last_n));
    type Batch = Vec<Result<(String, TurnFile), StoreError>>;
    std::thread::scope(|scope| {
        // Batches, so that the two threads do not hand over every single file.
        let (tx, rx) = std::sync::mpsc::sync_channel::<Batch>(8);
        let files = &files;
        std::thread::Builder::new()
            .name("verify-read".into())
            .spawn_scoped(scope, move || {
                let mut batch = Vec::with_capacity(BATCH);
                for i in 1..=last {
                    let item = read_turn(dir, i, files);
                    let stop = item.is_err();
                    batch.push(item);
                    let full = stop || batch.len() == BATCH;
                    if full {
                        let gone = tx.send(std::mem::take(&mut batch)).is_err();
                        if gone || stop {
                            return;
                        }
                    }
                }
                let _ = tx.send(batch);
            })
            .map_err(|e| StoreError::io(dir, e))?;
        let t = shared_track(&track_hash, text, &dir.join("track.toml"))?;
        let (mut game, out) = Game::create(t, &first, seed).map_err(|e| bad(0, e.to_string()))?;
        if let Some(why) = diff(&first, &out) {
            return Err(bad(0, why));
        }
        // Room for every turn at once: a vector of turns grown by doubling copied them and
        // touched fresh memory at each growth (issue 17: 5.5 % of the CPU samples of a
        // `steward verify` run).
        game.turns.reserve(last as usize + 1);
        game.hashes.reserve(last as usize + 1);
        let next = game.now.clone();
        game.push(out, next, hash0);
        for item in rx.into_iter().flatten() {
            let (hash, rec) = item?;
            step(&mut game, rec, hash)?;
        }
        if game.turns.len() as u32 != last + 1 {
            return Err(bad(game.turns.len() as u32, "the file could not be read"));
        }
        Ok(Loaded { game, seed_from, game_toml })
    })
}

/// The track built from a game's `track.toml` whose SHA-256 is `hash`, shared with every game
/// loaded from the same bytes while one of them holds it (issue 17: the daemon loads each of its
/// games once a run, and building a track from its file cost it more than the game's replay;
/// a league's games are mostly on a few tracks). Same bytes, same track: sharing it changes
/// nothing but the time.
fn shared_track(hash: &str, text: &str, path: &Path) -> Result<Arc<track::Track>, StoreError> {
    static BUILT: Mutex<Vec<(String, Weak<track::Track>)>> = Mutex::new(Vec::new());
    let built = |b: &[(String, Weak<track::Track>)]| b.iter().find(|(h, _)| h == hash).and_then(|(_, t)| t.upgrade());
    if let Some(t) = built(&BUILT.lock().unwrap_or_else(|e| e.into_inner())) {
        return Ok(t);
    }
    let t = Arc::new(track::load::from_toml(text, Some(path))?);
    let mut b = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    b.retain(|(_, t)| t.strong_count() > 0);
    b.push((hash.to_string(), Arc::downgrade(&t)));
    Ok(t)
}

/// Replays one recorded turn onto `game` with every check.
fn step(game: &mut Game, rec: TurnFile, hash: String) -> Result<(), StoreError> {
    let n = game.next_turn();
    let expected = game.hashes.last().map(String::as_str).unwrap_or_default();
    if rec.prev.as_deref() != Some(expected) {
        return Err(bad(
            n,
            format!(
                "it does not follow turn {}: its `prev` is {} but {} hashes to {expected} (a turn was edited, removed or reordered)",
                n - 1,
                rec.prev.as_deref().unwrap_or("missing"),
                turn_path(n - 1)
            ),
        ));
    }
    let (out, next) = game.apply(&rec).map_err(|e| bad(n, e.to_string()))?;
    if let Some(why) = diff(&rec, &out) {
        return Err(bad(n, why));
    }
    // The record and the replay are equal; keeping the record frees the replay's strings here,
    // in the thread that allocated them.
    drop(out);
    game.push(rec, next, hash);
    Ok(())
}

/// The `game.toml` the turns of `game` say.
pub fn render_game_toml(game: &Game) -> String {
    let file = GameFile { format: FORMAT.into(), setup: game.setup.clone(), players: game.now.players.to_vec() };
    let body = toml::to_string(&file).unwrap_or_default();
    format!("# Written by steward from the turns (docs/store.md); edits are detected.\n{body}")
}

/// Checks `game.toml` against the turns. A file one join behind is an interrupted write, which
/// the next command completes: that is a note, not a failure.
pub fn check_game_toml(file: Option<&[u8]>, game: &Game) -> Result<Option<String>, StoreError> {
    let want = render_game_toml(game);
    let have = file.unwrap_or_default();
    if have == want.as_bytes() {
        return Ok(None);
    }
    if game.turns.last().is_some_and(|t| t.kind == Kind::Join) {
        let mut before = game.clone();
        std::sync::Arc::make_mut(&mut before.now.players).pop();
        if have == render_game_toml(&before).as_bytes() {
            return Ok(Some(
                "game.toml lags one join behind the turns (an interrupted write); the next command rewrites it".into(),
            ));
        }
    }
    if file.is_none() {
        return Err(StoreError::BadFile { file: "game.toml".into(), why: "it is missing".into() });
    }
    Err(StoreError::BadFile {
        file: "game.toml".into(),
        why: "it does not match the setup and players the turns record".into(),
    })
}

/// What `verify` found.
#[derive(Clone, Debug)]
pub struct Report {
    /// The game replayed.
    pub game: Game,
    /// Where the seed came from.
    pub seed_from: SeedFrom,
    /// Remarks that are not failures.
    pub notes: Vec<String>,
}

/// Verifies the game in `dir`: the first failure is the error, naming its turn and why.
pub fn verify(dir: &Path, given: Option<[u8; 32]>) -> Result<Report, StoreError> {
    let l = load(dir, given, true, None)?;
    let mut notes = Vec::new();
    if let Some(n) = check_game_toml(l.game_toml.as_deref(), &l.game)? {
        notes.push(n);
    }
    Ok(Report { game: l.game, seed_from: l.seed_from, notes })
}

/// What a verification cannot prove from the files, and what the moderator undid, one line
/// each: the beacon (or that there is none), every rollback with the rolls it discarded, and
/// whether the last turn is the reveal (docs/dice.md, sections 3a and 6).
pub fn trust_lines(g: &Game) -> Vec<String> {
    let mut out = Vec::new();
    let start = g.start_turn().map(|n| &g.turns[n as usize]);
    out.push(match &g.setup.beacon {
        Some(b) => format!(
            "public beacon {b} = {}: check that value at its source",
            start.and_then(|t| t.beacon.as_deref()).unwrap_or("(not yet given)")
        ),
        None => "no public beacon: the operator, who holds the seed, could have tried keys before the start by steering seats and phrases (docs/dice.md, section 6)".into(),
    });
    let mut live: Vec<u32> = Vec::new();
    for t in &g.turns {
        if let (super::files::Kind::Rollback, Some(r)) = (t.kind, &t.rollback) {
            let gone: Vec<String> = live
                .iter()
                .filter(|&&n| n > r.to)
                .flat_map(|&n| g.turns[n as usize].rolls.iter())
                .map(|x| format!("{} {} = {}", x.label, x.die, x.value))
                .collect();
            let list = if gone.is_empty() { String::new() } else { format!(": {}", gone.join(", ")) };
            out.push(format!(
                "rollback in turn {} to the end of turn {}: {} roll(s) discarded{list}",
                t.turn,
                r.to,
                gone.len()
            ));
            live.retain(|&n| n <= r.to);
        }
        live.push(t.turn);
    }
    if g.turns.last().is_some_and(|t| t.seed.is_none()) {
        out.push("the last turn reveals no seed: the race is not over, or the turns after it are missing (the receipts players were mailed tell: --mail)".into());
    }
    out
}

/// Every act of a moderator in `g`, in order (issue 45: the race's dice page lists them): the
/// turn, its time, and what it did. Starts, reveals, pauses, deadlines, replacements,
/// rollbacks and the moves a moderator forced.
pub fn moderator_acts(g: &Game) -> Vec<(u32, String, String)> {
    use super::files::{Kind, Moderation};
    let forced = |t: &super::files::TurnFile| {
        t.source.as_ref().and_then(|s| s.by.as_deref()) == Some("moderator")
            || t.orders.iter().any(|o| o.by == super::files::By::Moderator)
    };
    g.turns
        .iter()
        .filter_map(|t| {
            let what = match (t.kind, &t.moderation, &t.rollback) {
                (Kind::Start, ..) => "start: the dice key is fixed".to_string(),
                (Kind::Reveal, ..) => "reveal: the seed is published and the race ends where it stands".to_string(),
                (Kind::Moderate, Some(Moderation::Pause { .. }), _) => "pause: no deadline runs".to_string(),
                (Kind::Moderate, Some(Moderation::Resume), _) => "resume: deadlines run again".to_string(),
                (Kind::Moderate, Some(Moderation::Deadline { hours }), _) => {
                    format!("deadline: {hours} hours to answer")
                }
                (Kind::Moderate, Some(Moderation::Replace { car, .. }), _) => {
                    format!("replace: car {car} is given to another player")
                }
                (Kind::Rollback, _, Some(r)) => format!("rollback to the end of turn {}", r.to),
                (Kind::Move, ..) if forced(t) => {
                    let cars: Vec<String> = t.orders.iter().map(|o| o.car.to_string()).collect();
                    format!("force: car {} played by the bot", cars.join(", "))
                }
                _ => return None,
            };
            Some((t.turn, t.at.clone(), what))
        })
        .collect()
}

fn order_text(o: &OrderRecord) -> String {
    let by = format!("{:?}", o.by).to_lowercase();
    match (&o.gear, &o.choose) {
        (Some(g), _) => format!("car {} gear {g} ({by})", o.car),
        (None, Some(c)) => format!("car {} chooses {c} ({}) ({by})", o.car, o.space.as_deref().unwrap_or("-")),
        _ => format!("car {} nothing ({by})", o.car),
    }
}

/// The first difference between a turn as recorded and as replayed, worded for a moderator.
pub fn diff(rec: &TurnFile, out: &TurnFile) -> Option<String> {
    if rec.kind != out.kind {
        return Some(format!("it is a `{}` turn but replays as `{}`", rec.kind.name(), out.kind.name()));
    }
    for (i, (a, b)) in rec.orders.iter().zip(&out.orders).enumerate() {
        if a != b {
            return Some(format!(
                "order {} is recorded as `{}`, the replay gives `{}`",
                i + 1,
                order_text(a),
                order_text(b)
            ));
        }
    }
    if rec.orders.len() != out.orders.len() {
        return Some(format!(
            "the turn records {} order(s), the replay applies {}",
            rec.orders.len(),
            out.orders.len()
        ));
    }
    for (i, (a, b)) in rec.rolls.iter().zip(&out.rolls).enumerate() {
        if a != b {
            return Some(format!(
                "roll {} is recorded as `{}` {} face {} = {}, the committed dice give `{}` {} face {} = {}",
                i + 1,
                a.label,
                a.die,
                a.face,
                a.value,
                b.label,
                b.die,
                b.face,
                b.value
            ));
        }
    }
    if rec.rolls.len() != out.rolls.len() {
        return Some(format!("the turn records {} roll(s), the replay makes {}", rec.rolls.len(), out.rolls.len()));
    }
    for (i, (a, b)) in rec.events.iter().zip(&out.events).enumerate() {
        if a != b {
            return Some(format!(
                "event {} is recorded as `{} ({})`, the replay gives `{} ({})`",
                i + 1,
                a.text,
                a.article,
                b.text,
                b.article
            ));
        }
    }
    if rec.events.len() != out.events.len() {
        return Some(format!("the turn records {} event(s), the replay gives {}", rec.events.len(), out.events.len()));
    }
    if rec.pending != out.pending {
        return Some("the pending decision (roll, options offered) differs from the replay's".into());
    }
    if rec.state_sha256 != out.state_sha256 {
        return Some(format!(
            "the state digest is recorded as {}, the replay gives {}",
            rec.state_sha256.as_deref().unwrap_or("none"),
            out.state_sha256.as_deref().unwrap_or("none")
        ));
    }
    let fields: [(&str, bool); 10] = [
        ("turn", rec.turn != out.turn),
        ("at", rec.at != out.at),
        ("prev", rec.prev != out.prev),
        ("move", rec.move_no != out.move_no),
        ("to_play", rec.to_play != out.to_play),
        ("due", rec.due != out.due),
        ("over", rec.over != out.over),
        ("seed", rec.seed != out.seed),
        ("contribution", rec.contributions != out.contributions),
        (
            "setup/player/source/moderation/rollback/retire",
            rec.setup != out.setup
                || rec.player != out.player
                || rec.source != out.source
                || rec.moderation != out.moderation
                || rec.rollback != out.rollback
                || rec.retire != out.retire,
        ),
    ];
    fields.iter().find(|(_, differs)| *differs).map(|(name, _)| format!("its `{name}` differs from the replay's"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Meta, NewGame};

    #[test]
    fn games_loaded_from_the_same_track_bytes_share_one_track() {
        let (dir, store, h) = crate::store::test_game("shared-track", 2);
        store.create(&NewGame::plain("other", "sprint", 1), [7; 32], Meta::now()).unwrap();
        store.create(&NewGame::plain("oval", "oval", 1), [7; 32], Meta::now()).unwrap();
        let a = load(h.dir(), None, true, None).unwrap().game;
        let b = load(&store.game_dir("other"), None, true, None).unwrap().game;
        let c = load(&store.game_dir("oval"), None, true, None).unwrap().game;
        assert!(Arc::ptr_eq(&a.track, &b.track), "one sprint for both");
        assert!(!Arc::ptr_eq(&a.track, &c.track));
        assert_eq!(c.track.name, "oval");
        drop(h);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
