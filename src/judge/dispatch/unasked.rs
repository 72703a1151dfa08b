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
        let lap = orders.lap.as_deref().filter(|_| g.now.qualifying.is_some());
        if !choice && let Some(q) = g.now.qualifying.as_ref().filter(|_| lap.is_some() && orders.gear.is_none()) {
            // A timed lap by one mail: the lap driver's gear (ruling 31, issue 46).
            use crate::engine::qualifying::LapDriver;
            let Some(e) = q.entry(car).filter(|e| !e.lap.is_over()) else { return Ok(false) };
            let gear = LapDriver::gear(&mut self.bot, &g.track, &e.lap);
            self.touch(job, game, next)?;
            let meta = self.meta_by("lap");
            h.gear(car, gear, By::Player, meta).map_err(store_err)?;
            return Ok(true);
        }
        if choice {
            let Some(rolled) = g.pending_roll(car) else { return Ok(false) };
            let mut facts = crate::orders::preview::facts(&g.track, rolled);
            if g.now.qualifying.is_some() {
                facts.boxes.clear();
            }
            // A round order's instructions for this move first (issue 46), then the standing
            // policy; `ASK` in the instructions asks the player at once.
            let drive = orders.drive.clone().filter(|d| g.now.qualifying.is_none() && d.serves(g, car, true));
            let mut decided = None;
            if let Some(p) = lap.and_then(|text| super::round::parsed("LAP", text)) {
                decided = decide_with(&p, &rolled.options, &facts).map(|x| (x, None));
                if matches!(decided, Some((Decision::Ask, _))) {
                    return Ok(false);
                }
            }
            if decided.is_none()
                && let Some(d) = &drive
                && let Some(p) = super::round::parsed("DRIVE", &d.text)
            {
                decided = decide_with(&p, &rolled.options, &facts).map(|x| (x, Some(d.clone())));
            }
            if decided.is_none()
                && let Some(p) = orders.policy.as_deref().and_then(|text| super::round::parsed("POLICY", text))
            {
                decided = decide_with(&p, &rolled.options, &facts).map(|x| (x, None));
            }
            if orders.drive.is_some() {
                // Used, or left behind by the move it was for: dropped either way.
                let mut cleared = orders.clone();
                cleared.drive = None;
                self.set_car_orders(game, car, &cleared)?;
            }
            let Some((decision, by_drive)) = decided else { return Ok(false) };
            // The bot's stop when the bot picks, or when the PIT rule does with no stop written
            // (19-2-6).
            let (index, bot_stop, plan) = match decision {
                Decision::Take { index, .. } => (index, false, None),
                Decision::AskBot => (self.bot.option(&g.track, rolled), true, None),
                Decision::Stop { index, plan: None, .. } => (index, true, None),
                Decision::Stop { index, plan: Some(p), .. } => (index, false, Some(p)),
                Decision::Ask => return Ok(false),
            };
            let label = MoveOption::label(index);
            let pit = if bot_stop {
                crate::store::handle::bot_pit(&self.bot, &g.track, &g.rules, rolled, index)
            } else {
                plan.as_ref().map(super::driving::pit_record)
            };
            self.touch(job, game, next)?;
            let meta = match &by_drive {
                Some(d) => Meta {
                    at: self.now(),
                    source: Some(Source {
                        from: Some(d.from.clone()),
                        message_id: Some(d.message_id.clone()),
                        imap_uid: None,
                        by: Some("drive".into()),
                    }),
                },
                None => self.meta_by("policy"),
            };
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
        self.deadlines_at(now, true)
    }

    /// The default moves due by `now`, the arrival of a message about to be read late (after
    /// downtime, or in a backlog): they are played in order, as if the daemon had been up. No
    /// reminder is sent while catching up: its moment has passed and the answer may be in the
    /// mails still to read (issue 45, item 12); the pass's last scan, at the daemon's clock,
    /// reminds whoever is still awaited.
    pub fn deadlines_until(&mut self, now: Stamp) -> Result<usize, DaemonError> {
        self.deadlines_at(now, false)
    }

    /// Default moves and, with `remind`, reminders for every game whose deadline is near or
    /// past at `now`.
    fn deadlines_at(&mut self, now: Stamp, remind: bool) -> Result<usize, DaemonError> {
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
            // An absence that began while its car was awaited plays the car now, not at the
            // deadline (docs/orders.md: "as soon as it is awaited"; issue 45, item 13). Once a
            // turn: the ledger keeps the key.
            if cars.iter().any(|&c| self.absent_on(&id, c, now)) {
                let key = format!("absent:{id}:{}", last.turn);
                if self.ledger.get(&key).map_err(io("reading the ledger"))?.is_none() {
                    let mut job = self.start_job(&key, None, "")?;
                    self.cascade(&mut job, &id)?;
                    self.commit_job(&key, format!("absent car(s) {named} played"), &mut job)?;
                    jobs += 1;
                    continue;
                }
            }
            // The default move comes once the deadline's grace is over too (a schedule's GRACE).
            if now.0 >= due.0 + i64::from(last.grace_minutes) * 60 {
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
                        job.quiet.push((
                            id.clone(),
                            format!("Car(s) {named} did not finish the timed lap by {due}: the bot drove the rest of it (ruling 31)."),
                        ));
                    } else {
                        let meta = self.meta_by("deadline");
                        h.bot_move(&mut self.bot, meta)
                            .map_err(|source| DaemonError::Store { game: id.clone(), source })?;
                        job.quiet.push((
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
            } else if remind && self.reminds(&last, now, due) {
                // One reminder for a car and a deadline: with deadlines per round (issue 46) the
                // gear and the choice after it may share one.
                let key = format!("reminder:{id}:{}:{due}", named.replace(", ", "+"));
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
                        let when = self.due_for(Some(&p.address), h.game(), &due.to_string(), lang);
                        let ctx = serde_json::json!({
                            "game": id, "car": car, "due": when, "turn": last.turn, "reply": reply,
                        });
                        let text = self.templates.render(lang, "reminder", ctx)?;
                        job.drafts.push(Draft {
                            to: vec![p.address.clone()],
                            subject: match lang {
                                Lang::Fr => format!("[{id}] rappel : voiture {car} à jouer avant le {when}"),
                                Lang::En => format!("[{id}] reminder: car {car} to play by {when}"),
                            },
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

impl Daemon {
    /// Whether the awaited player of game `id` is reminded now: within `reminder_hours` of a
    /// move's deadline, or of a round's within `round_reminder_hours` (none by default: a race
    /// at email pace mails a player once a round, issue 46).
    fn reminds(&self, last: &crate::judge::last_turns::LastTurn, now: Stamp, due: Stamp) -> bool {
        let hours = if last.paced { self.cfg.round_reminder_hours } else { self.cfg.reminder_hours };
        hours > 0 && now.0 >= due.0 - i64::from(hours) * 3600
    }
}
