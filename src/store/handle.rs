//! An open game, locked for writing until dropped: each call (join, start, gear, choose, a bot's
//! move, a moderator's act, the reveal) checks the order against the replayed game, writes
//! exactly one new turn file, and changes nothing when it fails (docs/store.md).

use std::path::{Path, PathBuf};

use crate::engine::bot::Bot;
use crate::engine::{Step, roll};

use super::error::StoreError;
use super::files::{By, Kind, Moderation, OrderRecord, PitRecord, PlayerRecord, TurnFile};
use super::fsio::{DirLock, Durability, write_atomic};
use super::game::Game;
use super::hash::{sha256_hex, token_hash};
use super::records::{move_label, wear_record};
use super::replayed::Replayed;
use super::requests::{Join, Meta};
use super::verify::{render_game_toml, turn_path};

/// An open game, locked for writing until dropped.
#[derive(Debug)]
pub struct Handle {
    pub(super) dir: PathBuf,
    /// `None` only while dropped (the game goes back to `kept`).
    pub(super) game: Option<Game>,
    pub(super) game_toml: Vec<u8>,
    pub(super) durability: Durability,
    pub(super) kept: Option<Replayed>,
    // Declared last: dropped after `Drop::drop` has put the game back, so that happens under
    // the game's lock.
    pub(super) _lock: DirLock,
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

    pub(super) fn sync_game_toml(&mut self) -> Result<(), StoreError> {
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
        self.start_with(None, meta)
    }

    /// The start of a game that names a beacon, with its value as read at its source.
    pub fn start_with(&mut self, beacon: Option<&str>, meta: Meta) -> Result<&TurnFile, StoreError> {
        self.need_seed()?;
        let mut input = self.input(Kind::Start, meta);
        input.beacon = beacon.map(str::to_string);
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
            let mut dice = after_decision(&g.now, key, race.moves + 1, &OrderRecord::gear(car, By::Bot, gear));
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
            let mut dice = after_decision(&g.now, key, q.moves + 1, &order(Some(gear), None));
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

/// The dice a decision leads to, as the turn that records it will derive them: labelled with move
/// `move_no` and, in v3, the line of decisions with this one added (docs/dice.md).
fn after_decision(
    now: &super::game::Progress,
    key: [u8; 32],
    move_no: u32,
    o: &OrderRecord,
) -> crate::dice::LabelledDice {
    let text = super::records::decision_text(o);
    let (label, suffix) = match &now.line {
        Some(l) => (move_no.to_string(), crate::dice::line_suffix(&crate::dice::line_step(l, &text))),
        None => (move_label(now.epoch, move_no), String::new()),
    };
    crate::dice::LabelledDice::with_suffix(key, &label, suffix, 0)
}
