//! A game in memory, rebuilt by replaying its turns: `apply` takes a turn's inputs (orders,
//! time, the player who joins...) and returns the whole turn its replay produces (rolls, events,
//! options offered, state digest). The driver writes what `apply` produces; `verify` compares
//! what it produces with what the file says. One code path, so a replay is exact.
//!
//! Dice: with the seed known (the operator, or anyone after the reveal), every roll is derived
//! from the key; without it, rolls are taken from the turn file, checked for label, die and face.

mod moves;
mod rollback;
mod start;

use moves::TurnDice;

use std::borrow::Cow;
use std::sync::Arc;

use crate::dice::{Scheme, face_index, roll_label};
use crate::engine::backmarkers;

use crate::engine::order::advance_in;
use crate::engine::pits::{NoSuchBox, PitChoice, PitOrder, StopKind, choose_boxes};
use crate::engine::play::resolve_with;
use crate::engine::weather::{self, Forecast};

use super::qualifying::{GridMethod, Session};
use crate::engine::{
    CarId, Dice, Die, Event, MoveOption, Part, Purpose, RaceState, Rolled, Rulebook, Setup, Step, Tyres, roll,
};
use crate::track::Track;

use super::canon::state_digest;
use super::error::StoreError;
use super::files::{
    By, Contribution, EventRecord, Kind, Moderation, OptionRecord, OrderRecord, PendingRecord, PitRecord, PlayerRecord,
    RollRecord, TurnFile,
};
use super::game::{Game, Pending, Progress, Race, valid_id};
use super::hash::{hex32, parse_hex32};
use super::records::{decision_text, labels, move_label, option_text, pick, starting_tyres, wear_of};
use super::time::Stamp;

impl Game {
    /// A game from its setup (turn 0's inputs) on `track`. Checks the settings and, when the seed
    /// is known, that it is the committed one.
    pub fn create(
        track: impl Into<std::sync::Arc<Track>>,
        input: &TurnFile,
        seed: Option<[u8; 32]>,
    ) -> Result<(Game, TurnFile), StoreError> {
        let track = track.into();
        let Some(setup) = input.setup.clone() else {
            return Err(StoreError::BadSetting("turn 0 has no [setup]".into()));
        };
        if input.kind != Kind::Create || input.turn != 0 {
            return Err(StoreError::BadSetting("turn 0 must be the `create` turn".into()));
        }
        if !valid_id(&setup.id) {
            return Err(StoreError::BadId(setup.id.clone()));
        }
        let mut rules = Rulebook::from_setup(&setup.profile, &setup.toggles)?;
        match setup.weather_checks.as_deref() {
            None => {}
            Some(super::files::LAP_THIRDS) => rules.set.lap_third_weather = true,
            Some(w) => {
                return Err(StoreError::BadSetting(format!(
                    "unknown weather_checks `{w}` ({} for 002's three checks a lap; absent for 3-2-4)",
                    super::files::LAP_THIRDS
                )));
            }
        }
        match setup.finish_ties.as_deref() {
            None => {}
            Some(super::files::FINISH_PORTION) => rules.set.finish_by_portion = true,
            Some(w) => {
                return Err(StoreError::BadSetting(format!(
                    "unknown finish_ties `{w}` ({} for 004's portion of the move; absent for 21-1-4)",
                    super::files::FINISH_PORTION
                )));
            }
        }
        if setup.laps == 0 {
            return Err(StoreError::BadSetting("a race has at least 1 lap".into()));
        }
        if setup.max_cars == 0 || setup.max_cars as usize > track.grid.len() {
            return Err(StoreError::BadSetting(format!(
                "max_cars must be 1 to {} (the grid of {})",
                track.grid.len(),
                track.name
            )));
        }
        if let Some(w) = &setup.weather
            && Forecast::parse(w).is_none_or(|f| f.name() != w)
        {
            return Err(StoreError::BadSetting(format!("unknown weather `{w}` (track, sun, rain, changeable)")));
        }
        if let Some(g) = &setup.grid {
            match GridMethod::parse(g) {
                None => {
                    return Err(StoreError::BadSetting(format!(
                        "unknown grid `{g}` (join, qualifying, qualifying-black-die)"
                    )));
                }
                Some(m) if m.qualifies() && !rules.set.time_trials => {
                    return Err(StoreError::BadSetting(
                        "this game's rules have no time trials (003-2 off): its grid cannot be qualifying".into(),
                    ));
                }
                Some(_) => {}
            }
        }
        if let Some(c) = &setup.pit_choice
            && PitChoice::parse(c).is_none_or(|o| o.name() != c)
        {
            return Err(StoreError::BadSetting(format!(
                "unknown pit_choice `{c}` (reverse-grid for 002's d20 grid; absent: the pole first, 4-0-1)"
            )));
        }
        let Some(scheme) = Scheme::parse(&setup.dice) else {
            return Err(StoreError::BadSetting(format!("unknown dice scheme `{}` ({})", setup.dice, Scheme::names())));
        };
        if let Some(j) = &setup.join_by
            && Stamp::parse(j).is_none()
        {
            return Err(StoreError::BadSetting(format!("join_by `{j}` is not a time like 2026-05-01T12:00:00Z")));
        }
        let committed = parse_hex32(&setup.commitment).ok_or_else(|| StoreError::BadSeed(setup.commitment.clone()))?;
        if let Some(s) = seed
            && scheme.commit(&setup.id, &s) != committed
        {
            return Err(StoreError::SeedMismatch { seed: hex32(&s), commitment: setup.commitment.clone() });
        }
        Stamp::parse(&input.at).ok_or_else(|| StoreError::BadSetting(format!("`{}` is not a UTC time", input.at)))?;
        let mut out = TurnFile::new(0, Kind::Create, input.at.clone());
        out.source = input.source.clone();
        out.setup = Some(setup.clone());
        let move_hours = setup.move_hours;
        let game = Game {
            setup,
            track,
            rules,
            seed,
            now: Progress { move_hours, ..Progress::default() },
            turns: Vec::new(),
            hashes: Vec::new(),
            keep_after_move: false,
            labels: std::collections::HashSet::new(),
            snapshots: std::collections::HashMap::new(),
        };
        Ok((game, out))
    }

    /// How the race weather is decided (absent in older games: sun; checked by [`Game::create`]).
    pub fn forecast(&self) -> Forecast {
        if !self.rules.set.weather {
            return Forecast::Sun; // 003-4 off: sunshine and a dry track (ruling 32)
        }
        self.setup.weather.as_deref().and_then(Forecast::parse).unwrap_or(Forecast::Sun)
    }

    /// How the grid is made (absent in older games: join order).
    pub fn grid_method(&self) -> GridMethod {
        self.setup.grid.as_deref().and_then(GridMethod::parse).unwrap_or(GridMethod::Join)
    }

    /// In which order the players choose their boxes (absent: the pole first, 4-0-1; checked by
    /// [`Game::create`]).
    pub fn pit_choice(&self) -> PitChoice {
        self.setup.pit_choice.as_deref().and_then(PitChoice::parse).unwrap_or_default()
    }

    /// The number of the next turn.
    pub fn next_turn(&self) -> u32 {
        self.turns.len() as u32
    }

    /// Records a turn applied and the hash of its file.
    pub fn push(&mut self, turn: TurnFile, next: Progress, hash: String) {
        self.labels.extend(turn.rolls.iter().map(|r| r.label.clone()));
        self.turns.push(turn);
        self.hashes.push(hash);
        self.now = next;
    }

    /// The player driving car `number`, with its index in the grid.
    pub fn player(&self, number: u8) -> Option<(CarId, &PlayerRecord)> {
        self.now.players.iter().enumerate().find(|(_, p)| p.car == number).map(|(i, p)| (CarId(i as u8), p))
    }

    /// The car's number: its player's, or a backmarker's (002, ruling 49), which no player has.
    pub fn number(&self, car: CarId) -> u8 {
        match self.now.players.get(car.get()) {
            Some(p) => p.car,
            None => self.now.race.as_ref().and_then(|r| r.state.cars.get(car.get())).map_or(0, |c| c.number),
        }
    }

    /// True once the moderator has started the game (its qualifying, or its race).
    pub fn started(&self) -> bool {
        self.now.race.is_some() || self.now.qualifying.is_some()
    }

    /// The car whose answer is awaited, and whether it is a choice (else a gear).
    pub fn awaited(&self) -> Option<(u8, bool)> {
        if self.now.over {
            return None;
        }
        let race = self.now.race.as_ref()?;
        if let Some(p) = &race.pending {
            return Some((self.number(p.rolled.car), true));
        }
        race.state.to_play.map(|c| (self.number(c), false))
    }

    /// Every car whose answer is awaited, and whether each owes a choice (else a gear): the one
    /// car of a race, every car still on its lap in a qualifying session (ruling 31).
    pub fn awaited_cars(&self) -> Vec<(u8, bool)> {
        if self.now.over {
            return Vec::new();
        }
        if let Some(q) = &self.now.qualifying {
            return q.awaited();
        }
        self.awaited().into_iter().collect()
    }

    /// The driver points car `car` has left (002 "Expending Driver Points"): its player's, less
    /// those expended in this game.
    pub fn driver_points_left(&self, car: u8) -> u8 {
        left(&self.now, car)
    }

    /// The roll awaiting car `car`'s choice, in the race or on its timed lap.
    pub fn pending_roll(&self, car: u8) -> Option<&Rolled> {
        if let Some(q) = &self.now.qualifying {
            return q.entry(car)?.pending.as_ref().map(|(r, _)| &r.rolled);
        }
        let p = self.now.race.as_ref()?.pending.as_ref()?;
        (self.number(p.rolled.car) == car).then_some(&p.rolled)
    }

    /// Applies the inputs of turn `input` (its number must be the next) and returns the turn the
    /// replay produces with the progress after it. `self` is not changed: [`Game::push`] commits.
    pub fn apply(&self, input: &TurnFile) -> Result<(TurnFile, Progress), StoreError> {
        let at = Stamp::parse(&input.at)
            .ok_or_else(|| StoreError::BadSetting(format!("`{}` is not a UTC time", input.at)))?;
        let mut out = TurnFile::new(self.next_turn(), input.kind, input.at.clone());
        out.prev = self.hashes.last().cloned();
        out.source = input.source.clone();
        let mut next = self.now.clone();
        match input.kind {
            Kind::Create => return Err(StoreError::BadSetting("only turn 0 creates the game".into())),
            Kind::Join => {
                let p = input
                    .player
                    .clone()
                    .ok_or_else(|| StoreError::BadSetting("a join turn names its player".into()))?;
                self.check_join(&p, at)?;
                Arc::make_mut(&mut next.players).push(p.clone());
                if next.race.is_some() {
                    next.decide(&format!("{} join", p.car));
                }
                if let Some(race) = next.race.as_mut() {
                    self.late_arrival(race, &p, &mut out)?;
                }
                out.player = Some(p);
            }
            Kind::Start => {
                if next.over {
                    return Err(StoreError::Over);
                }
                if next.race.is_some() {
                    return Err(StoreError::Started);
                }
                if next.players.is_empty() {
                    return Err(StoreError::NoPlayers);
                }
                // Every car's phrase as its join turn fixed it: in grid order (v1) or in car-number
                // order (v2, so that the order joins were processed in steers nothing).
                out.contributions =
                    next.players.iter().map(|p| Contribution { car: p.car, entropy: p.entropy.clone() }).collect();
                let scheme = self.scheme();
                if scheme.by_car_number() {
                    out.contributions.sort_by_key(|c| c.car);
                }
                if scheme.has_line() {
                    next.line = Some(crate::dice::LINE_START);
                }
                let beacon = self.beacon_at_start(input, at)?;
                out.beacon = beacon.clone();
                let pairs: Vec<(u8, &str)> = out.contributions.iter().map(|c| (c.car, c.entropy.as_str())).collect();
                let beacon = beacon.unwrap_or_default();
                next.key = self.seed.map(|s| scheme.key(&self.setup.id, &s, &beacon, &pairs));
                if self.grid_method().qualifies() {
                    // The qualifying's weather (3-1-1), then every car on its timed lap (ruling 31).
                    let mut dice = TurnDice::new(&next, &input.rolls, 0, 0);
                    let mut drawn = Vec::new();
                    let (q, wet) =
                        weather::draw_qualifying(&self.track.weather, self.forecast(), &mut dice, &mut drawn);
                    if self.dice_done(dice, &mut out)? > 0 {
                        out.move_no = Some(0);
                    }
                    let session = Session::open(&self.track, &self.rules, &next.players, q, wet)?;
                    let lone = RaceState::from_cars(Vec::new(), self.setup.laps, wet);
                    self.events(&lone, &drawn, &mut out);
                    out.events.push(EventRecord {
                        article: Cow::Borrowed("1-1-1"),
                        text: format!(
                            "qualifying: every car drives one timed lap alone ({} track); send your gears",
                            if wet { "wet" } else { "dry" }
                        ),
                    });
                    next.qualifying = Some(session);
                    return self.finish_apply(out, next, at);
                }
                // The weather before the cars are set up (3-0-1): rolls of "move 0".
                let mut dice = TurnDice::new(&next, &input.rolls, 0, 0);
                let mut drawn = Vec::new();
                let (sky, wet) =
                    weather::draw(&self.track.weather, self.forecast(), &self.rules.set, &mut dice, &mut drawn);
                if self.dice_done(dice, &mut out)? > 0 {
                    out.move_no = Some(0);
                }
                let state = self.race_state(&next.players, wet, sky)?;
                if self.setup.weather.is_some() {
                    // Games from before the setting: sun, announced by no event.
                    self.events(&state, &drawn, &mut out);
                }
                let mut race = Race { state, pending: None, moves: 0, after_move: None };
                let index = out.rolls.len() as u32;
                self.complete(&mut race, &mut next, &mut out, input, index)?;
                next.race = Some(race);
            }
            Kind::Move if next.qualifying.is_some() => {
                self.qualify_orders(&mut next, &mut out, input)?;
            }
            Kind::Move => {
                if next.over {
                    return Err(StoreError::Over);
                }
                if next.paused {
                    return Err(StoreError::Paused);
                }
                let mut race = next.race.take().ok_or(StoreError::NotStarted)?;
                for order in input.orders.iter().filter(|o| !matches!(o.by, By::Forced | By::Backmarker)) {
                    if next.over {
                        return Err(StoreError::Over);
                    }
                    self.order(&mut race, &mut next, &mut out, input, order)?;
                }
                // Every roll the turn made, the backmarkers' included.
                let used = out.rolls.len();
                if out.orders.is_empty() {
                    return Err(StoreError::BadOrder);
                }
                if let Some(p) = &race.pending {
                    race.state = p.rolled.state.clone();
                }
                if used < input.rolls.len() && next.key.is_none() {
                    return Err(StoreError::BadSetting(format!(
                        "the turn records {} roll(s) but its orders make {used}",
                        input.rolls.len()
                    )));
                }
                next.race = Some(race);
            }
            Kind::Reveal => {
                if next.over {
                    return Err(StoreError::Over);
                }
                next.over = true;
                self.reveal(&mut next, &mut out, input)?;
            }
            Kind::Moderate => {
                let m = input
                    .moderation
                    .clone()
                    .ok_or_else(|| StoreError::BadSetting("a moderate turn names its action".into()))?;
                self.moderate(&m, &mut next)?;
                out.moderation = Some(m);
            }
            Kind::Rollback => {
                let r = input
                    .rollback
                    .clone()
                    .ok_or_else(|| StoreError::BadSetting("a rollback turn names its target".into()))?;
                let (restored, events) = self.roll_back(&r, &next)?;
                next = restored;
                out.events = events;
                out.rollback = Some(r);
            }
            Kind::Player => {
                let r = input
                    .retire
                    .clone()
                    .ok_or_else(|| StoreError::BadSetting("a player turn names what the player does".into()))?;
                self.retire(&r, &mut next, &mut out, input)?;
                out.retire = Some(r);
            }
        }
        self.check_labels(&out)?;
        self.finish_apply(out, next, at)
    }

    /// A label is used once in a game's whole history, rolled-back turns included (docs/dice.md);
    /// in v3 the same decisions after a rollback use the same labels again, on purpose, and a
    /// label is used once in a turn.
    fn check_labels(&self, out: &TurnFile) -> Result<(), StoreError> {
        let whole = !self.scheme().has_line();
        for (i, r) in out.rolls.iter().enumerate() {
            if (whole && self.labels.contains(&r.label)) || out.rolls[..i].iter().any(|q| q.label == r.label) {
                return Err(StoreError::BadSetting(format!(
                    "roll label `{}` was already used: a label is used once (docs/dice.md)",
                    r.label
                )));
            }
        }
        Ok(())
    }

    /// The end of every turn: the digest, who is called and by when.
    fn finish_apply(
        &self,
        mut out: TurnFile,
        mut next: Progress,
        at: Stamp,
    ) -> Result<(TurnFile, Progress), StoreError> {
        let per_round = self.setup.deadlines.as_deref() == Some("round");
        if let Some(q) = &next.qualifying
            && !next.over
        {
            // Every lap goes on at once: the acting car's roll, one deadline for the session.
            let acting = out.orders.last().map(|o| o.car);
            out.pending = acting.and_then(|c| q.pending_record(&self.track, c));
            if !next.paused {
                out.due = Some(at.plus_hours(next.move_hours).to_string());
            }
        }
        if let Some(race) = &next.race {
            out.state_sha256 = Some(state_digest(&self.track, &race.state, race.moves, race.pending.as_ref()));
            if !next.over {
                if let Some(p) = &race.pending {
                    out.to_play = Some(race.state.car(p.rolled.car).number);
                    out.pending = Some(PendingRecord {
                        car: race.state.car(p.rolled.car).number,
                        gear: p.rolled.gear,
                        roll: p.rolled.roll,
                        options: p
                            .rolled
                            .options
                            .iter()
                            .enumerate()
                            .map(|(i, o)| OptionRecord {
                                label: MoveOption::label(i),
                                to: self.track.space(o.end).id.clone(),
                                spaces: o.spaces,
                                text: option_text(&self.track, o),
                            })
                            .collect(),
                    });
                } else {
                    out.to_play = race.state.to_play.map(|c| race.state.car(c).number);
                }
                if out.to_play.is_some() && !next.paused {
                    out.due = Some(if per_round {
                        // Issue 46: the round's clock starts with the round (or a resume); every
                        // gear of the round is due then, a choice asked after a roll gets at least
                        // a quarter of the time from the roll.
                        let round = race.state.round;
                        let start = match next.round_clock {
                            Some((r, s)) if r == round => s,
                            _ => at,
                        };
                        next.round_clock = Some((round, start));
                        // A schedule's deadline: the first time of day after its notice
                        // (issue 46, ruling 54); its grace goes with the turn.
                        let scheduled = self.setup.schedule.as_ref().and_then(|s| Some((s, s.deadline(start)?)));
                        if let Some((s, _)) = scheduled {
                            out.grace_minutes = (s.grace_minutes > 0).then_some(s.grace_minutes);
                        }
                        let due = scheduled.map_or_else(|| start.plus_hours(next.move_hours), |(_, d)| d);
                        if race.pending.is_some() {
                            let own = at.plus_hours(next.move_hours.div_ceil(4));
                            if own.0 > due.0 { own } else { due }
                        } else {
                            due
                        }
                        .to_string()
                    } else {
                        at.plus_hours(next.move_hours).to_string()
                    });
                }
            }
        }
        out.over = next.over;
        Ok((out, next))
    }

    /// A moderator's action (`Kind::Moderate`) applied to `next`.
    fn moderate(&self, m: &Moderation, next: &mut Progress) -> Result<(), StoreError> {
        if next.over {
            return Err(StoreError::Over);
        }
        match m {
            Moderation::Pause { .. } if next.paused => {
                return Err(StoreError::BadModeration("the game is already paused".into()));
            }
            Moderation::Pause { .. } => next.paused = true,
            Moderation::Resume if !next.paused => {
                return Err(StoreError::BadModeration("the game is not paused".into()));
            }
            Moderation::Resume => {
                next.paused = false;
                // A round's clock starts again at the resume (issue 46).
                next.round_clock = None;
            }
            Moderation::Deadline { hours } => {
                if !(1..=24 * 60).contains(hours) {
                    return Err(StoreError::BadModeration(format!(
                        "a deadline of {hours} hours is out of range: write 1 to 1440 hours"
                    )));
                }
                next.move_hours = *hours;
            }
            Moderation::Replace { car, address, token_sha256 } => {
                if address.trim().is_empty() || address.contains(char::is_whitespace) || !address.contains('@') {
                    return Err(StoreError::BadModeration(format!("`{address}` is not a mail address")));
                }
                if token_sha256.len() != 64 || parse_hex32(token_sha256).is_none() {
                    return Err(StoreError::BadSetting("token_sha256 must be 64 hex digits".into()));
                }
                if next.players.iter().any(|p| p.car != *car && p.address.eq_ignore_ascii_case(address)) {
                    return Err(StoreError::AddressTaken(address.clone()));
                }
                let players = Arc::make_mut(&mut next.players);
                let p = players
                    .iter_mut()
                    .find(|p| p.car == *car)
                    .ok_or_else(|| StoreError::BadModeration(format!("there is no car {car} in this game")))?;
                p.address = address.trim().to_string();
                p.token_sha256 = token_sha256.clone();
                p.bot = false;
            }
        }
        Ok(())
    }

    /// The game's dice scheme (checked when the game was created).
    pub fn scheme(&self) -> Scheme {
        Scheme::parse(&self.setup.dice).unwrap_or(Scheme::V1)
    }

    /// The beacon value a start mixes into the key: the one its turn gives, required when the game
    /// names a beacon (and refused otherwise), given once the value is public (docs/dice.md, 6).
    fn beacon_at_start(&self, input: &TurnFile, at: Stamp) -> Result<Option<String>, StoreError> {
        match (&self.setup.beacon, &input.beacon) {
            (None, None) => Ok(None),
            (None, Some(_)) => {
                Err(StoreError::BadModeration("this game names no beacon: START takes no BEACON value".into()))
            }
            (Some(source), None) => Err(StoreError::BadModeration(format!(
                "this game's dice key mixes in a public beacon, {source}: once its value is public ({}), start with `START BEACON <the value>`",
                self.setup.beacon_at.as_deref().unwrap_or("-")
            ))),
            (Some(source), Some(v)) => {
                let value = super::requests::beacon_value(v).filter(|x| x == v).ok_or_else(|| {
                    StoreError::BadModeration(format!(
                        "`{v}` is not a beacon value: 64 or 128 hex digits, as {source} gives it"
                    ))
                })?;
                if let Some(b) = self.setup.beacon_at.as_deref().and_then(Stamp::parse)
                    && at < b
                {
                    return Err(StoreError::BadModeration(format!(
                        "the beacon ({source}) is not public before {b}: nobody can know its value yet"
                    )));
                }
                Ok(Some(value))
            }
        }
    }

    fn check_join(&self, p: &PlayerRecord, at: Stamp) -> Result<(), StoreError> {
        if self.now.over {
            return Err(StoreError::Over);
        }
        if p.bot && !p.entropy.is_empty() && self.scheme().by_car_number() {
            // A bot is the operator's seat: its phrase would let the operator steer the key.
            return Err(StoreError::BotPhrase(p.car));
        }
        if !self.started()
            && let Some(b) = &self.setup.beacon_at
            && Stamp::parse(b).is_some_and(|b| at >= b)
        {
            // The beacon's value is public from then: a seat taken later could be chosen
            // knowing the key (docs/dice.md, section 6).
            return Err(StoreError::JoinsClosed(b.clone()));
        }
        if self.started() {
            // 004 "Late Arrivals": only into a race whose field is still on the grid (ruling 47).
            let late = self.setup.late_arrivals
                && self.now.qualifying.is_none()
                && self.now.race.as_ref().is_some_and(|r| r.state.on_the_grid(&self.track));
            if !late {
                return Err(StoreError::Started);
            }
        }
        if let Some(j) = &self.setup.join_by
            && Stamp::parse(j).is_some_and(|j| at > j)
        {
            return Err(StoreError::JoinsClosed(j.clone()));
        }
        if self.now.players.len() >= self.setup.max_cars as usize {
            return Err(StoreError::Full(self.setup.max_cars));
        }
        if p.address.trim().is_empty() || p.address.contains(char::is_whitespace) {
            return Err(StoreError::BadSetting(format!("`{}` is not a mail address", p.address)));
        }
        if self.now.players.iter().any(|q| q.address.eq_ignore_ascii_case(&p.address)) {
            return Err(StoreError::AddressTaken(p.address.clone()));
        }
        if p.car == 0 || p.car > 99 || self.now.players.iter().any(|q| q.car == p.car) {
            return Err(StoreError::CarTaken { car: p.car, free: self.free_cars(5) });
        }
        if p.token_sha256.len() != 64 || parse_hex32(&p.token_sha256).is_none() {
            return Err(StoreError::BadSetting("token_sha256 must be 64 hex digits".into()));
        }
        let tyres = Tyres::parse(&p.tyres).ok_or_else(|| StoreError::BadSetup {
            car: p.car,
            why: format!("unknown tyres `{}` (hard, soft, rain)", p.tyres),
        })?;
        if tyres.name() != p.tyres {
            return Err(StoreError::BadSetup { car: p.car, why: format!("tyres are written `{}`", tyres.name()) });
        }
        if let Some(w) = &p.wet_tyres
            && Tyres::parse(w).is_none_or(|t| t.name() != w)
        {
            return Err(StoreError::BadSetup { car: p.car, why: format!("wet-track tyres `{w}` (hard, soft, rain)") });
        }
        let boxes = self.track.pit_boxes.len();
        if let Some(&b) = p.boxes.iter().find(|&&b| b == 0 || usize::from(b) > boxes) {
            return Err(StoreError::BadSetup { car: p.car, why: NoSuchBox { wanted: b.into(), boxes }.to_string() });
        }
        if let Some((i, &b)) = p.boxes.iter().enumerate().find(|(i, b)| p.boxes[..*i].contains(b)) {
            return Err(StoreError::BadSetup { car: p.car, why: format!("box {b} is wished twice (wish {})", i + 1) });
        }
        Setup { wear: wear_of(&p.wear), tyres }
            .validate_for(&self.rules)
            .map_err(|e| StoreError::BadSetup { car: p.car, why: e.to_string() })?;
        Ok(())
    }

    /// Up to `n` free car numbers, lowest first.
    pub fn free_cars(&self, n: usize) -> String {
        let free: Vec<String> = (1..=99u8)
            .filter(|c| self.now.players.iter().all(|p| p.car != *c))
            .take(n)
            .map(|c| c.to_string())
            .collect();
        free.join(", ")
    }
}

/// The driver points car `number` has left in `now`: its player's, less those expended.
fn left(now: &Progress, number: u8) -> u8 {
    let had = now.players.iter().find(|p| p.car == number).map_or(0, |p| p.driver_points);
    had.saturating_sub(now.spent.get(&number).copied().unwrap_or(0))
}
