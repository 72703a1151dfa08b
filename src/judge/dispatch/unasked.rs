//! What the daemon plays without asking anyone: bot cars, gears sent ahead and standing
//! policies as soon as their car is awaited (the cascade), and the default moves and reminders
//! of missed deadlines. Split from the orders of a message (`super`).

use super::*;

impl Daemon {
    /// Plays on while the car awaited can be played without asking anyone: bot cars, gears sent
    /// ahead, standing policies.
    pub(in crate::judge) fn cascade(&mut self, job: &mut Job, game: &str) -> Result<(), DaemonError> {
        let mut h = match self.store.open(game) {
            Ok(h) => h,
            Err(source) => return Err(DaemonError::Store { game: game.into(), source }),
        };
        for _ in 0..MAX_CASCADE {
            let g = h.game();
            if g.now.over || g.now.paused {
                break;
            }
            // The first awaited car that can play without asking anyone (in a qualifying
            // session every car on its lap is awaited at once, ruling 31).
            let mut acted = false;
            for (car, choice) in g.awaited_cars() {
                if self.play_unasked(job, &mut h, game, car, choice)? {
                    acted = true;
                    break;
                }
            }
            if !acted {
                break;
            }
        }
        Ok(())
    }

    /// Plays car `car`'s awaited answer if nobody needs asking: a bot car, a standing POLICY for
    /// a choice, a GEAR sent ahead. Returns whether a turn was written.
    pub(super) fn play_unasked(
        &mut self,
        job: &mut Job,
        h: &mut Handle,
        game: &str,
        car: u8,
        choice: bool,
    ) -> Result<bool, DaemonError> {
        let store_err = |source| DaemonError::Store { game: game.into(), source };
        let g = h.game();
        let Some((_, p)) = g.player(car) else { return Ok(false) };
        let next = g.next_turn();
        let now = self.now();
        if p.bot || self.absent_plays(game, car, choice, now) {
            let who = if p.bot { "bot" } else { "absent" };
            self.touch(job, game, next)?;
            let meta = self.meta_by(who);
            if g.now.qualifying.is_some() {
                h.bot_lap(car, &mut self.bot, meta).map_err(store_err)?;
            } else {
                h.bot_move(&mut self.bot, meta).map_err(store_err)?;
            }
            return Ok(true);
        }
        let orders = self.car_orders(game, car)?;
        if choice {
            let Some(text) = &orders.policy else { return Ok(false) };
            let parsed = orders::parse(&format!("POLICY {text}"));
            let Some(Order::Policy(policy)) = parsed.orders().first().copied().cloned() else { return Ok(false) };
            let Some(rolled) = g.pending_roll(car) else { return Ok(false) };
            let boxes: Vec<bool> = (0..rolled.options.len())
                .map(|i| g.now.qualifying.is_none() && crate::engine::play::reaches_box(&g.track, rolled, i))
                .collect();
            // The bot's stop when the bot picks, or when the PIT rule does (19-2-6).
            let (index, bot_stop) = match decide_at(&policy, &rolled.options, &boxes) {
                Some(Decision::Take { index, .. }) => (index, false),
                Some(Decision::AskBot) => (self.bot.option(&g.track, rolled), true),
                Some(Decision::Stop { index, .. }) => (index, true),
                None => return Ok(false),
            };
            let label = MoveOption::label(index);
            let pit = if bot_stop {
                crate::store::driver::bot_pit(&self.bot, &g.track, &g.rules, rolled, index)
            } else {
                None
            };
            self.touch(job, game, next)?;
            let meta = self.meta_by("policy");
            match pit {
                Some(p) => h.choose_with_pit(car, &label, p, By::Player, meta),
                None => h.choose(car, &label, By::Player, meta),
            }
            .map_err(store_err)?;
            return Ok(true);
        }
        let Some(q) = orders.gear.clone() else { return Ok(false) };
        let mut cleared = orders.clone();
        cleared.gear = None;
        if !Self::done_before(g, &q.message_id, Kind::Move, Some(car)) {
            self.touch(job, game, next)?;
            let meta = Meta {
                at: self.now(),
                source: Some(Source {
                    from: Some(q.from.clone()),
                    message_id: Some(q.message_id.clone()),
                    imap_uid: None,
                    by: None,
                }),
            };
            if let Err(e) = h.gear(car, q.gear, By::Player, meta) {
                if e.is_system() {
                    // The game's files, not the order: the job stops and the gear is kept.
                    return Err(DaemonError::Store { game: game.into(), source: e });
                }
                // The gear sent ahead is no longer possible: the player is asked.
                job.announce.push((game.into(), format!("Car {car}'s GEAR {} sent ahead was refused: {e}", q.gear)));
                self.set_car_orders(game, car, &cleared)?;
                return Ok(false);
            }
        }
        self.set_car_orders(game, car, &cleared)?;
        Ok(true)
    }

    pub(super) fn meta_by(&mut self, by: &str) -> Meta {
        Meta { at: self.now(), source: Some(Source { by: Some(by.into()), ..Source::default() }) }
    }

    /// Reminders and default moves for every game whose deadline is near or past.
    pub fn deadlines(&mut self) -> Result<usize, DaemonError> {
        let now = self.now();
        self.deadlines_until(now)
    }

    /// Reminders and default moves for every game whose deadline is near or past at `now`
    /// (the daemon's clock, or the arrival of the message about to be read).
    pub fn deadlines_until(&mut self, now: Stamp) -> Result<usize, DaemonError> {
        let ids = self.store.list().map_err(|source| DaemonError::Store { game: "-".into(), source })?;
        let mut jobs = 0;
        for id in ids {
            let dir = self.store.game_dir(&id);
            let Some(last) = self.last_turns.get(&id, &dir) else { continue };
            let Some(due) = last.due.as_deref().and_then(Stamp::parse) else { continue };
            if last.over {
                continue;
            }
            let cars: Vec<u8> = match last.to_play {
                Some(car) => vec![car],
                // A qualifying session: every car still on its lap (ruling 31).
                None => match self.store.load(&id, None) {
                    Ok(g) if g.now.qualifying.is_some() => g.awaited_cars().into_iter().map(|a| a.0).collect(),
                    _ => continue,
                },
            };
            let Some(&car) = cars.first() else { continue };
            let named = cars.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ");
            if now >= due {
                let key = format!("deadline:{id}:{}", last.turn);
                if self.ledger.get(&key).map_err(io("reading the ledger"))?.is_some() {
                    continue;
                }
                let mut job = self.start_job(&key, None, "")?;
                let mut h = self.store.open(&id).map_err(|source| DaemonError::Store { game: id.clone(), source })?;
                if h.game().next_turn() == last.turn + 1 {
                    self.touch(&mut job, &id, last.turn + 1)?;
                    if h.game().now.qualifying.is_some() {
                        // The bot drives the rest of every late lap (ruling 31).
                        for &c in &cars {
                            for _ in 0..crate::engine::qualifying::lap::MAX_LAP_MOVES {
                                let on = h
                                    .game()
                                    .now
                                    .qualifying
                                    .as_ref()
                                    .and_then(|q| q.entry(c))
                                    .is_some_and(|e| !e.lap.is_over());
                                if !on {
                                    break;
                                }
                                let meta = self.meta_by("deadline");
                                h.bot_lap(c, &mut self.bot, meta)
                                    .map_err(|source| DaemonError::Store { game: id.clone(), source })?;
                            }
                        }
                        job.announce.push((
                            id.clone(),
                            format!("Car(s) {named} did not finish the timed lap by {due}: the bot drove the rest of it (ruling 31)."),
                        ));
                    } else {
                        let meta = self.meta_by("deadline");
                        h.bot_move(&mut self.bot, meta)
                            .map_err(|source| DaemonError::Store { game: id.clone(), source })?;
                        job.announce.push((
                            id.clone(),
                            format!("Car {car} did not answer by {due}: the bot played a default move for it."),
                        ));
                    }
                } else {
                    self.touch(&mut job, &id, last.turn + 1)?;
                }
                drop(h);
                self.cascade(&mut job, &id)?;
                self.commit_job(&key, format!("default move for car(s) {named}"), &mut job)?;
                jobs += 1;
            } else if self.cfg.reminder_hours > 0 && now.0 >= due.0 - self.cfg.reminder_hours as i64 * 3600 {
                let key = format!("reminder:{id}:{}", last.turn);
                if self.ledger.get(&key).map_err(io("reading the ledger"))?.is_some() {
                    continue;
                }
                let mut job = self.start_job(&key, None, "")?;
                let h = self.store.open(&id).map_err(|source| DaemonError::Store { game: id.clone(), source })?;
                for &car in &cars {
                    if let Some((_, p)) = h.game().player(car)
                        && !p.bot
                        && !self.absent_on(&id, car, now)
                    {
                        let lang = self.lang_of(&p.address);
                        let reply = self.prompt_address(h.game(), car);
                        let ctx = serde_json::json!({
                            "game": id, "car": car, "due": due.to_string(), "turn": last.turn, "reply": reply,
                        });
                        let text = self.templates.render(lang, "reminder", ctx)?;
                        job.drafts.push(Draft {
                            to: vec![p.address.clone()],
                            subject: format!("[{id}] reminder: car {car} to play by {due}"),
                            text,
                            in_reply_to: None,
                            message_id: String::new(),
                            reply_to: reply,
                            picture: None,
                        });
                    }
                }
                self.commit_job(&key, format!("reminder for car(s) {named}"), &mut job)?;
                jobs += 1;
            }
        }
        Ok(jobs)
    }
}

/// The last turn file of a game directory, read without replaying the game.
fn last_turn(dir: &std::path::Path) -> Option<(u32, TurnFile)> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("turns"))
        .ok()?
        .flatten()
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .filter(|n| n.ends_with(".toml") && !n.starts_with('.'))
        .collect();
    names.sort();
    let name = names.last()?;
    let n = name.strip_suffix(".toml")?.parse().ok()?;
    let text = std::fs::read_to_string(dir.join("turns").join(name)).ok()?;
    toml::from_str(&text).ok().map(|t| (n, t))
}

/// What the deadline scan needs of a game's last turn: its number, its deadline, whether the
/// race is over and the car awaited (`None` in a qualifying session).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LastTurn {
    /// The turn's number.
    pub turn: u32,
    /// Its deadline, as recorded.
    pub due: Option<String>,
    /// The race is over.
    pub over: bool,
    /// The car awaited.
    pub to_play: Option<u8>,
}

impl LastTurn {
    fn of(t: &TurnFile) -> Self {
        LastTurn { turn: t.turn, due: t.due.clone(), over: t.over, to_play: t.to_play }
    }
}

/// Each game's last turn as the deadline scan last read it (issue 17: a pass reads every game's
/// last turn before every message; listing and parsing a long race's turns each time cost more
/// than the message). Kept while the file is the same (its length, modification time and inode)
/// and no file follows it; a turn written by anyone, a file edited or removed, is read again.
/// Only what the scan needs is kept: handing it out copies a few fields, not the turn's events.
#[derive(Debug, Default)]
pub struct LastTurns(std::collections::HashMap<String, (u32, FileStamp, LastTurn)>);

/// What tells a file changed without reading it.
type FileStamp = (u64, Option<std::time::SystemTime>, u64);

fn stamp(path: &std::path::Path) -> Option<FileStamp> {
    let m = std::fs::metadata(path).ok()?;
    #[cfg(unix)]
    let ino = std::os::unix::fs::MetadataExt::ino(&m);
    #[cfg(not(unix))]
    let ino = 0;
    Some((m.len(), m.modified().ok(), ino))
}

impl LastTurns {
    /// The last turn of the game in `dir` (named `id`).
    pub fn get(&mut self, id: &str, dir: &std::path::Path) -> Option<LastTurn> {
        let file = |n: u32| dir.join("turns").join(TurnFile::file_name(n));
        if let Some((n, kept, turn)) = self.0.get(id)
            && stamp(&file(*n)).as_ref() == Some(kept)
            && !file(n + 1).exists()
        {
            return Some(turn.clone());
        }
        self.0.remove(id);
        let (n, turn) = last_turn(dir)?;
        let turn = LastTurn::of(&turn);
        if let Some(st) = stamp(&file(n)) {
            self.0.insert(id.to_string(), (n, st, turn.clone()));
        }
        Some(turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::bot::Bot;

    #[test]
    fn the_deadline_scan_sees_every_new_turn_and_every_edit() {
        let (dir, store, mut h) = crate::store::test_game("lt", 2);
        let game_dir = h.dir().to_path_buf();
        let mut last = LastTurns::default();
        assert_eq!(last.get("lt", &game_dir).unwrap().turn, 2);
        // Turns written by anyone (here, a store beside the scan) are seen.
        h.start(Meta::now()).unwrap();
        let mut bot = Bot::new();
        h.bot_move(&mut bot, Meta::now()).unwrap();
        let n = h.game().next_turn() - 1;
        drop(h);
        let seen = last.get("lt", &game_dir).unwrap();
        assert_eq!((seen.turn, seen.to_play), (n, store.open("lt").unwrap().last().to_play));
        assert_eq!(last.get("lt", &game_dir).unwrap().turn, n, "kept");
        // The last file edited by hand (its deadline moved) is read again.
        let path = game_dir.join("turns").join(TurnFile::file_name(n));
        let text = std::fs::read_to_string(&path).unwrap();
        let mut t: TurnFile = toml::from_str(&text).unwrap();
        t.due = Some("2099-01-01T00:00:00Z".into());
        std::fs::write(&path, toml::to_string(&t).unwrap()).unwrap();
        assert_eq!(last.get("lt", &game_dir).unwrap().due.as_deref(), Some("2099-01-01T00:00:00Z"));
        // Removed: the turn before is the last again.
        std::fs::remove_file(&path).unwrap();
        assert_eq!(last.get("lt", &game_dir).unwrap().turn, n - 1);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
