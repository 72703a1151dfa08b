//! A car's orders in a move: `GEAR`, `CHOOSE`, `REROLL`, `PIT` and `POLICY`, and the checks
//! that an answer is the car's, awaited, not late and not stale (`TURN`). Split from the orders
//! of a message (`super`).

use super::*;
use crate::orders::policy::PitPlan;

impl Daemon {
    /// GEAR, CHOOSE, REROLL, PIT and POLICY.
    pub(super) fn drive(&mut self, job: &mut Job, head: &Header, o: &Order) -> Result<Option<String>, Failure> {
        let lang = job.lang;
        match o {
            Order::Gear(gear) => {
                let game = Self::need_game(job, head)?;
                let mut h = self.open(&game, job.lang)?;
                let car = self.player_car(job, h.game(), head)?;
                if Self::done_before(h.game(), &job.mid, Kind::Move, Some(car)) {
                    // Applied before a crash: the message is being processed again.
                    job.applied = true;
                    return Ok(Some(game));
                }
                if let Some(late) = self.late_answer(job, h.game(), head, car, false) {
                    return Err(late.into());
                }
                self.stale_gear(job, h.game(), head, car)?;
                if h.game().awaited_cars().contains(&(car, false)) && !h.game().now.paused {
                    let next = h.game().next_turn();
                    self.touch(job, &game, next)?;
                    let meta = self.meta(job, None);
                    h.gear(car, *gear, By::Player, meta).map_err(store_failure(&game, job.lang))?;
                    job.applied = true;
                    return Ok(Some(game));
                }
                if h.game().now.over {
                    return Err(StoreError::Over.to_string().into());
                }
                let mut orders = self.car_orders(&game, car)?;
                orders.gear = Some(QueuedGear { gear: *gear, message_id: job.mid.clone(), from: job.sender.clone() });
                self.set_car_orders(&game, car, &orders)?;
                if !job.queued.contains(&(game.clone(), car)) {
                    job.queued.push((game.clone(), car));
                }
                job.applied = true;
                Ok(Some(game))
            }
            Order::Choose(answer) => {
                let Some((game, mut h, car)) = self.awaiting_choice(job, head)? else {
                    return Ok(head.game.clone());
                };
                let next = h.game().next_turn();
                self.touch(job, &game, next)?;
                let meta = self.meta(job, None);
                h.choose(car, answer, By::Player, meta).map_err(store_failure(&game, job.lang))?;
                job.applied = true;
                Ok(Some(game))
            }
            Order::Reroll => {
                // 002 "Expending Driver Points" (ruling 45): like CHOOSE, it answers the roll
                // awaiting the car's choice; the reply offers the second roll's options.
                let Some((game, mut h, car)) = self.awaiting_choice(job, head)? else {
                    return Ok(head.game.clone());
                };
                let next = h.game().next_turn();
                self.touch(job, &game, next)?;
                let meta = self.meta(job, None);
                h.reroll(car, By::Player, meta).map_err(|e| {
                    if e.is_system() {
                        store_failure(&game, job.lang)(e)
                    } else {
                        Failure::Note(reroll_refusal(lang, &e))
                    }
                })?;
                job.applied = true;
                Ok(Some(game))
            }
            Order::Pit { stop, tyres, repairs } => {
                // PIT answers a roll as CHOOSE does: it takes the option that ends at the car's
                // box (the cheapest, if several) with the decision there (19-2-6, 19-3, 19-4).
                let Some((game, mut h, car)) = self.awaiting_choice(job, head)? else {
                    return Ok(head.game.clone());
                };
                let g = h.game();
                let at_box = g.now.race.as_ref().and_then(|r| r.pending.as_ref()).and_then(|p| {
                    (0..p.rolled.options.len()).find(|&i| crate::engine::play::reaches_box(&g.track, &p.rolled, i))
                });
                let Some(i) = at_box else {
                    return Err(tr(
                        lang,
                        &format!(
                            "PIT: no option of car {car}'s roll ends at its box (19-2): send CHOOSE with an option."
                        ),
                        &format!(
                            "STAND : aucune option du jet de la voiture {car} n'arrive à son stand (19-2) : envoyez CHOIX avec une option."
                        ),
                    ).into());
                };
                let pit = pit_record(&PitPlan { stop: *stop, tyres: *tyres, repairs: repairs.clone() });
                let next = g.next_turn();
                self.touch(job, &game, next)?;
                let meta = self.meta(job, None);
                h.choose_with_pit(car, &MoveOption::label(i), pit, By::Player, meta)
                    .map_err(store_failure(&game, job.lang))?;
                job.applied = true;
                Ok(Some(game))
            }
            Order::Policy(p) => {
                let game = Self::need_game(job, head)?;
                let h = self.open(&game, job.lang)?;
                let car = self.player_car(job, h.game(), head)?;
                let mut orders = self.car_orders(&game, car)?;
                orders.policy = (!p.rules.is_empty()).then(|| p.en());
                self.set_car_orders(&game, car, &orders)?;
                job.notes.push(match &orders.policy {
                    Some(_) => tr(
                        lang,
                        &format!("Standing order for car {car}: {}.", p.en()),
                        &format!("Consigne permanente de la voiture {car} : {}.", p.fr()),
                    ),
                    None => tr(
                        lang,
                        &format!("Car {car} has no standing order: you are asked after every roll."),
                        &format!("La voiture {car} n'a plus de consigne : on vous demande après chaque jet."),
                    ),
                });
                job.applied = true;
                Ok(Some(game))
            }
            Order::Lap(p) => {
                // A timed lap by one mail (issue 46, ruling 31): steward drives the lap, its gears
                // as the lap driver picks them, its choices by these instructions.
                let game = Self::need_game(job, head)?;
                let h = self.open(&game, job.lang)?;
                let car = self.player_car(job, h.game(), head)?;
                let g = h.game();
                let on_lap = g.now.qualifying.as_ref().and_then(|q| q.entry(car)).is_some_and(|e| !e.lap.is_over());
                let before = !g.started() && g.setup.grid.is_some();
                if !on_lap && !before {
                    return Err(tr(
                        lang,
                        &format!("LAP gives the instructions for car {car}'s timed lap, in a game whose grid is made by qualifying, before its lap is over."),
                        &format!("CHRONO donne les consignes du tour chronométré de la voiture {car}, dans une partie a grille par essais, avant la fin de son tour."),
                    )
                    .into());
                }
                let mut orders = self.car_orders(&game, car)?;
                orders.lap = (!p.rules.is_empty()).then(|| p.en());
                self.set_car_orders(&game, car, &orders)?;
                job.notes.push(match &orders.lap {
                    Some(_) => tr(
                        lang,
                        &format!("LAP {} kept: steward drives car {car}'s timed lap, each gear as its lap driver picks it, each choice by these instructions (ASK, or nothing fits: you are asked).", p.en()),
                        &format!("CHRONO {} gardé : steward conduit le tour chronométré de la voiture {car}, chaque vitesse comme son pilote de tour la choisit, chaque choix selon ces consignes (DEMANDER, ou rien ne convient : on vous demande).", p.fr()),
                    ),
                    None => tr(
                        lang,
                        &format!("Car {car} has no LAP instructions any more: you drive its timed lap by mail."),
                        &format!("La voiture {car} n'a plus de consignes CHRONO : vous conduisez son tour chronométré par courrier."),
                    ),
                });
                job.applied = true;
                Ok(Some(game))
            }
            Order::Drive(p) => {
                // The instructions for the car's next move only (issue 46): kept until that
                // move's roll, which they decide (`unasked::play_unasked`), then dropped.
                let game = Self::need_game(job, head)?;
                let h = self.open(&game, job.lang)?;
                let car = self.player_car(job, h.game(), head)?;
                let g = h.game();
                // A mail's GEAR writes its turn before its DRIVE is read: only a move this mail
                // saw to its end means the DRIVE was used before a crash.
                if Self::done_before(g, &job.mid, Kind::Move, Some(car)) && g.pending_roll(car).is_none() {
                    job.applied = true;
                    return Ok(Some(game));
                }
                if g.now.over {
                    return Err(StoreError::Over.to_string().into());
                }
                if let Some(late) = self.late_answer(job, g, head, car, false) {
                    return Err(late.into());
                }
                self.stale_gear(job, g, head, car)?;
                if g.now.race.is_none() || g.now.qualifying.is_some() {
                    return Err(tr(
                        lang,
                        "DRIVE gives the instructions for a move of the race, once it has started (a timed lap is driven with GEAR and CHOOSE, or a POLICY).",
                        "PILOTER donne les consignes d'un coup de la course, une fois celle-ci demarree (un tour chronométré se conduit avec VITESSE et CHOIX, ou une CONSIGNE).",
                    )
                    .into());
                }
                let mut orders = self.car_orders(&game, car)?;
                // The roll waiting now, if it is this car's, else the car's next move.
                let turn = match g.pending_roll(car) {
                    Some(_) => g
                        .turns
                        .iter()
                        .rev()
                        .find(|t| t.orders.iter().any(|o| o.car == car && o.gear.is_some()))
                        .map_or(0, |t| t.turn),
                    None => g.next_turn(),
                };
                orders.drive = (!p.rules.is_empty()).then(|| QueuedDrive {
                    text: p.en(),
                    turn,
                    message_id: job.mid.clone(),
                    from: job.sender.clone(),
                });
                self.set_car_orders(&game, car, &orders)?;
                if orders.drive.is_none() {
                    job.notes.push(tr(
                        lang,
                        &format!("Car {car} has no DRIVE for its next move any more."),
                        &format!("La voiture {car} n'a plus de consignes PILOTER pour son prochain coup."),
                    ));
                }
                if !job.queued.contains(&(game.clone(), car)) {
                    job.queued.push((game.clone(), car));
                }
                job.applied = true;
                Ok(Some(game))
            }
            _ => unreachable!("act routes only a car's orders here"),
        }
    }

    /// The game, its handle and the car for an answer to a roll (CHOOSE, PIT): authenticated,
    /// awaited, not stale. `None` when this message's answer is already in the game (processed
    /// again after a crash).
    fn awaiting_choice(&mut self, job: &mut Job, head: &Header) -> Result<Option<(String, Handle, u8)>, Failure> {
        let game = Self::need_game(job, head)?;
        let h = self.open(&game, job.lang)?;
        let car = self.player_car(job, h.game(), head)?;
        if Self::done_before(h.game(), &job.mid, Kind::Move, Some(car)) {
            job.applied = true;
            return Ok(None);
        }
        let awaited = h.game().awaited_cars().contains(&(car, true));
        if let Some(late) = self.late_answer(job, h.game(), head, car, !awaited) {
            return Err(late.into());
        }
        if !awaited {
            return Err(tr(
                job.lang,
                &format!("No roll of car {car} awaits a choice: send GEAR first."),
                &format!("Aucun jet de la voiture {car} n'attend de choix : envoyez d'abord VITESSE."),
            )
            .into());
        }
        self.stale_choice(job, h.game(), head, car)?;
        Ok(Some((game, h, car)))
    }

    /// Why an answer for `car` is late, if it is (docs/daemon.md): its deadline passed before
    /// the mail arrived and the bot played a default move for the car after the turn the mail
    /// answers (`TURN n`; without one, when the answer is refused anyway, `not_awaited`, and the
    /// car's last move was the default one). Says when the deadline passed and what was played.
    fn late_answer(&self, job: &Job, g: &Game, head: &Header, car: u8, not_awaited: bool) -> Option<String> {
        let by_deadline = |t: &TurnFile| {
            t.source.as_ref().and_then(|s| s.by.as_deref()) == Some("deadline") && t.orders.iter().any(|o| o.car == car)
        };
        let first = match head.turn {
            Some(n) => g.turns.iter().find(|t| t.turn > n && by_deadline(t))?,
            None if not_awaited => {
                let last = g.turns.iter().rev().find(|t| t.orders.iter().any(|o| o.car == car))?;
                if !by_deadline(last) {
                    return None;
                }
                // The first of the default moves in a row (a move may take two turns).
                let mut first = last;
                while let Some(prev) = first.turn.checked_sub(1).and_then(|p| g.turns.get(p as usize)) {
                    if !by_deadline(prev) {
                        break;
                    }
                    first = prev;
                }
                first
            }
            None => return None,
        };
        let asked = g.turns.get(first.turn.checked_sub(1)? as usize)?;
        let due_text = asked.due.clone()?;
        let due = Stamp::parse(&due_text)?;
        let grace = i64::from(asked.grace_minutes.unwrap_or(0)) * 60;
        if job.arrived.is_some_and(|a| a.0 < due.0 + grace) {
            return None;
        }
        let mut played = Vec::new();
        for t in g.turns[first.turn as usize..].iter().take_while(|t| by_deadline(t)) {
            for o in t.orders.iter().filter(|o| o.car == car) {
                if let Some(gear) = o.gear {
                    played.push(format!("GEAR {gear}"));
                }
                if let Some(c) = &o.choose {
                    played.push(match &o.space {
                        Some(s) => format!("CHOOSE {c} ({s})"),
                        None => format!("CHOOSE {c}"),
                    });
                }
            }
        }
        let played = played.join(", ");
        let arrived = job.arrived.map(|a| a.to_string());
        Some(tr(
            job.lang,
            &format!(
                "Late: the deadline for car {car} passed at {due}{}; the bot played a default move for it at turn {}: {played}. Nothing of this mail was applied: send BOARD for the game as it stands.",
                arrived.as_ref().map(|a| format!(" and your mail arrived at {a}")).unwrap_or_default(),
                first.turn
            ),
            &format!(
                "En retard : le délai de la voiture {car} a expiré le {due}{} ; le bot a joué un coup par défaut pour elle au tour {} : {played}. Rien de ce message n'a été appliqué : envoyez PLATEAU pour la partie telle qu'elle est.",
                arrived.as_ref().map(|a| format!(" et votre message est arrivé le {a}")).unwrap_or_default(),
                first.turn
            ),
        ))
    }

    /// The turn the orders answer: `TURN n`, or the current turn when the mail names none
    /// (docs/orders.md).
    fn need_turn(head: &Header, g: &Game) -> Result<u32, String> {
        let last = g.next_turn() - 1;
        let n = head.turn.unwrap_or(last);
        if n > last {
            return Err(format!("Turn {n} has not been played: game {} is at turn {last}.", g.setup.id));
        }
        Ok(n)
    }

    /// A gear answering turn `n` is stale if the car moved after turn `n`, by another mail than
    /// this one (a round order's GEAR rolls at once when the car is awaited; its DRIVE, on the
    /// next line, then decides that roll).
    fn stale_gear(&self, job: &Job, g: &Game, head: &Header, car: u8) -> Result<(), String> {
        let n = Self::need_turn(head, g)?;
        let own = |t: &TurnFile| t.source.as_ref().and_then(|s| s.message_id.as_deref()) == Some(job.mid.as_str());
        if let Some(t) = g.turns[n as usize + 1..]
            .iter()
            .find(|t| !own(t) && t.orders.iter().any(|o| o.car == car && o.gear.is_some()))
        {
            return Err(tr(
                job.lang,
                &format!(
                    "Stale order: it answers turn {n}, but car {car} has moved since (turn {}). Send BOARD for the game as it stands.",
                    t.turn
                ),
                &format!(
                    "Ordre perime : il repond au tour {n}, mais la voiture {car} a bouge depuis (tour {}). Envoyez PLATEAU.",
                    t.turn
                ),
            ));
        }
        Ok(())
    }

    /// A choice answering turn `n` is stale if the roll awaiting it came after turn `n`.
    fn stale_choice(&self, job: &Job, g: &Game, head: &Header, car: u8) -> Result<(), String> {
        let n = Self::need_turn(head, g)?;
        let offered = if g.now.qualifying.is_some() {
            // Laps run side by side: the roll is the last gear of this car (ruling 31).
            g.turns
                .iter()
                .rev()
                .find(|t| t.orders.iter().any(|o| o.car == car && o.gear.is_some()))
                .map_or(0, |t| t.turn)
        } else {
            let rolled_at =
                g.turns.iter().rev().find(|t| t.pending.is_some() && t.kind == Kind::Move).map_or(0, |t| t.turn);
            // The decision awaited is the last turn's; it was offered at the turn that rolled,
            // or at the driver point's re-roll that replaced that roll (ruling 45).
            let run = || g.turns.iter().rev().take_while(|t| t.pending.is_some());
            let rerolled = run().find(|t| t.orders.iter().any(|o| o.reroll)).map(|t| t.turn);
            rerolled.unwrap_or_else(|| run().last().map_or(rolled_at, |t: &TurnFile| t.turn))
        };
        if n < offered {
            return Err(tr(
                job.lang,
                &format!(
                    "Stale order: it answers turn {n}, but the roll awaiting a choice was made at turn {offered}. Send BOARD for the options."
                ),
                &format!(
                    "Ordre périmé : il répond au tour {n}, mais le jet qui attend un choix date du tour {offered}. Envoyez PLATEAU."
                ),
            ));
        }
        Ok(())
    }
}

/// A pit stop as written (`PIT LONG TYRES hard REPAIR brakes 2`, or a `PIT` instruction's), as
/// the turn records it (19-2-6, 19-3, 19-4).
pub(super) fn pit_record(p: &PitPlan) -> PitRecord {
    PitRecord {
        kind: Some(
            match p.stop {
                orders::Stop::Quick => "quick",
                orders::Stop::Long => "long",
            }
            .to_string(),
        ),
        tyres: p.tyres.map(|x| x.name().to_string()),
        repairs: p.repairs.iter().map(|&(part, n)| (part.name().to_string(), n)).collect(),
    }
}

/// A refused re-roll (002, ruling 45), in the player's language.
fn reroll_refusal(lang: Lang, e: &StoreError) -> String {
    let fr = match e {
        StoreError::AlreadyRerolled { car, roll, labels } => format!(
            "La voiture {car} a déjà relancé ce coup : le second résultat, {roll}, est définitif et ne peut pas être relancé (002 Expending Driver Points) ; choisissez parmi {labels}."
        ),
        StoreError::NoDriverPoints { car, labels } => format!(
            "Le pilote de la voiture {car} n'a plus de points pilote a depenser (002 Expending Driver Points) ; choisissez parmi {labels}."
        ),
        StoreError::NotRerollable { car, labels } => format!(
            "Le déplacement de la voiture {car} vient du dé noir de son départ (super départ, 9-2-1), pas du dé de vitesse : seul le dé de vitesse se relance (décision 45) ; choisissez parmi {labels}."
        ),
        _ => return e.to_string(),
    };
    tr(lang, &e.to_string(), &fr)
}
