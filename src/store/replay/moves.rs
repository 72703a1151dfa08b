//! A turn's moves in a race: a gear order and its roll, the choice among the options, a
//! driver point's re-roll, and what follows a move (the backmarkers called after it, the next
//! car, the end of the race). Split from the replay (`super`) so that each file holds one part of
//! the one code path from a turn's inputs to the whole turn.

use super::*;

/// Dice for one turn: derived from the key, or read back from the turn's records.
pub(super) struct TurnDice<'a> {
    key: Option<[u8; 32]>,
    recorded: &'a [RollRecord],
    label: String,
    suffix: String,
    index: u32,
    log: Vec<RollRecord>,
    problem: Option<String>,
}

impl<'a> TurnDice<'a> {
    pub(super) fn new(now: &Progress, recorded: &'a [RollRecord], move_no: u32, index: u32) -> Self {
        let (label, suffix) = now.label_parts(move_no);
        TurnDice { key: now.key, recorded, label, suffix, index, log: Vec::new(), problem: None }
    }
}

impl Dice for TurnDice<'_> {
    fn roll(&mut self, die: Die, car: Option<CarId>, purpose: Purpose) -> u8 {
        let mut label = roll_label(&self.label, car, purpose, self.index);
        label.push_str(&self.suffix);
        self.index += 1;
        let faces = die.faces();
        let face = match self.key {
            Some(k) => face_index(&k, &label, faces.len()),
            None => match self.recorded.get(self.log.len()) {
                Some(r) if r.label == label && r.die == die.name() && faces.get(r.face as usize) == Some(&r.value) => {
                    r.face as usize
                }
                Some(r) => {
                    let why = if r.label != label || r.die != die.name() {
                        format!(
                            "roll {} is recorded as `{}` on {}, but the move rolls `{label}` on {}",
                            self.log.len() + 1,
                            r.label,
                            r.die,
                            die.name()
                        )
                    } else {
                        format!(
                            "roll `{label}` records value {} for face {} of {}, whose value is {}",
                            r.value,
                            r.face,
                            r.die,
                            faces.get(r.face as usize).map_or("none".to_string(), |v| v.to_string())
                        )
                    };
                    self.problem.get_or_insert(why);
                    0
                }
                None => {
                    self.problem.get_or_insert(format!("the move rolls `{label}` but the turn records no such roll"));
                    0
                }
            },
        };
        self.log.push(RollRecord { label, die: Cow::Borrowed(die.name()), face: face as u8, value: faces[face] });
        faces[face]
    }
}

/// The engine's pit decision from its record, checked for names (19-2-6, 19-3, 19-4).
pub(super) fn pit_order(r: Option<&PitRecord>) -> Result<Option<(PitOrder, PitRecord)>, StoreError> {
    let Some(r) = r else { return Ok(None) };
    let bad = |what: String| StoreError::BadSetting(what);
    let kind = match &r.kind {
        Some(k) => Some(StopKind::parse(k).ok_or_else(|| bad(format!("pit stop `{k}`: quick or long (19-3, 19-4)")))?),
        None => None,
    };
    let tyres = match &r.tyres {
        Some(x) => Some(Tyres::parse(x).ok_or_else(|| bad(format!("tyres `{x}`: hard, soft or rain (19-2-6)")))?),
        None => None,
    };
    let mut repairs = Vec::new();
    for (name, &n) in &r.repairs {
        let part = Part::ALL
            .into_iter()
            .find(|p| p.name() == name.as_str())
            .ok_or_else(|| bad(format!("repair `{name}`: brakes, gas, body, engine or handling (19-4-1)")))?;
        repairs.push((part, n));
    }
    Ok(Some((PitOrder { kind, tyres, repairs }, r.clone())))
}

/// The rolls `input` records that the turn has not replayed yet: those after the rolls already in
/// `out` (a turn's rolls are read back in the order they are made).
pub(super) fn unread<'a>(input: &'a TurnFile, out: &TurnFile) -> &'a [RollRecord] {
    input.rolls.get(out.rolls.len()..).unwrap_or(&[])
}

impl Game {
    /// Applies one order.
    pub(super) fn order(
        &self,
        race: &mut Race,
        next: &mut Progress,
        out: &mut TurnFile,
        input: &TurnFile,
        order: &OrderRecord,
    ) -> Result<(), StoreError> {
        let (car, _) = self.player(order.car).ok_or(StoreError::NoSuchCar(order.car))?;
        if order.reroll && (order.gear.is_some() || order.choose.is_some()) {
            return Err(StoreError::BadOrder);
        }
        let recorded = unread(input, out);
        match (order.gear, &order.choose) {
            (Some(gear), None) => {
                if let Some(p) = &race.pending {
                    return Err(StoreError::ChoicePending {
                        car: self.number(p.rolled.car),
                        roll: p.rolled.roll,
                        labels: labels(&p.rolled),
                    });
                }
                if let Some(expected) = race.state.to_play
                    && expected != car
                {
                    return Err(StoreError::NotYourTurn { expected: self.number(expected), got: order.car });
                }
                let move_no = race.moves + 1;
                next.decide(&decision_text(&OrderRecord::gear(order.car, order.by, gear)));
                let mut dice = TurnDice::new(next, recorded, move_no, 0);
                let step = roll(&self.track, &race.state, car, gear, &mut dice, &self.rules)?;
                race.moves = move_no;
                out.move_no = Some(move_no);
                out.orders.push(OrderRecord::gear(order.car, order.by, gear));
                let n = self.dice_done(dice, out)?;
                match step {
                    Step::Done(o) => {
                        self.events(&o.state, &o.events, out);
                        race.state = o.state;
                        self.complete(race, next, out, input, n as u32)
                    }
                    Step::Choose(r) => {
                        self.events(&r.state, &r.events, out);
                        // `race.state` becomes the rolled state only if the choice stays
                        // pending at the end of the turn (see `apply_with`).
                        let pending = Pending { rolled: *r, move_no, next_index: n as u32, rerolled: false };
                        // A single option is played at once, unless it reaches the car's box: the
                        // player still decides the stop there (19-2-6).
                        if pending.rolled.options.len() == 1
                            && !crate::engine::play::reaches_box(&self.track, &pending.rolled, 0)
                        {
                            return self.choose_with(race, next, out, input, pending, 0, order.car, By::Forced, None);
                        }
                        race.pending = Some(pending);
                        Ok(())
                    }
                }
            }
            (None, Some(choice)) => {
                let Some(pending) = race.pending.take() else {
                    return Err(StoreError::NoChoicePending(order.car));
                };
                if pending.rolled.car != car {
                    let expected = self.number(pending.rolled.car);
                    race.pending = Some(pending);
                    return Err(StoreError::NotYourTurn { expected, got: order.car });
                }
                let index = match pick(&self.track, &pending.rolled, choice) {
                    Ok(i) => i,
                    Err(e) => {
                        race.pending = Some(pending);
                        return Err(e);
                    }
                };
                if let Some(space) = &order.space {
                    let end = &self.track.space(pending.rolled.options[index].end).id;
                    if end != space {
                        return Err(StoreError::OptionMismatch {
                            label: MoveOption::label(index),
                            end: end.clone(),
                            space: space.clone(),
                        });
                    }
                }
                let pit = pit_order(order.pit.as_ref())?;
                let given = OrderRecord {
                    pit: pit.as_ref().map(|(_, r)| r.clone()),
                    ..OrderRecord::choice(order.car, order.by, MoveOption::label(index))
                };
                next.decide(&decision_text(&given));
                self.choose_with(race, next, out, input, pending, index, order.car, order.by, pit)
            }
            (None, None) if order.reroll => self.reroll(race, next, out, input, order),
            _ => Err(StoreError::BadOrder),
        }
    }

    /// 002 "Expending Driver Points" (ruling 45): the car's player spends a driver point to roll
    /// the gear die of the pending roll again, labelled with the same move at its next index; the
    /// first result and its options are discarded and the second stands. A single option is
    /// played at once, as after a gear.
    pub(super) fn reroll(
        &self,
        race: &mut Race,
        next: &mut Progress,
        out: &mut TurnFile,
        input: &TurnFile,
        order: &OrderRecord,
    ) -> Result<(), StoreError> {
        let (car, _) = self.player(order.car).ok_or(StoreError::NoSuchCar(order.car))?;
        let Some(pending) = race.pending.as_ref().filter(|p| p.rolled.car == car) else {
            return Err(StoreError::NothingToReroll(order.car));
        };
        let offered = labels(&pending.rolled);
        if pending.rerolled {
            return Err(StoreError::AlreadyRerolled { car: order.car, roll: pending.rolled.roll, labels: offered });
        }
        if left(next, order.car) == 0 {
            return Err(StoreError::NoDriverPoints { car: order.car, labels: offered });
        }
        next.decide(&decision_text(&OrderRecord::reroll(order.car, order.by)));
        let mut dice = TurnDice::new(next, unread(input, out), pending.move_no, pending.next_index);
        let Some((rolled, fresh)) = crate::engine::reroll(&self.track, &pending.rolled, &mut dice, &self.rules) else {
            return Err(StoreError::NotRerollable { car: order.car, labels: offered });
        };
        let (move_no, first_index) = (pending.move_no, pending.next_index);
        race.pending = None;
        *next.spent.entry(order.car).or_default() += 1;
        out.move_no = Some(move_no);
        out.orders.push(OrderRecord::reroll(order.car, order.by));
        let n = self.dice_done(dice, out)?;
        self.events(&rolled.state, &fresh, out);
        let pending = Pending { rolled, move_no, next_index: first_index + n as u32, rerolled: true };
        if pending.rolled.options.len() == 1 && !crate::engine::play::reaches_box(&self.track, &pending.rolled, 0) {
            return self.choose_with(race, next, out, input, pending, 0, order.car, By::Forced, None);
        }
        race.pending = Some(pending);
        Ok(())
    }

    /// Resolves option `index` of `pending`, with the decision at the box (19-2-6) when `pit`
    /// is given (recorded with the choice).
    #[allow(clippy::too_many_arguments)]
    pub(super) fn choose_with(
        &self,
        race: &mut Race,
        next: &mut Progress,
        out: &mut TurnFile,
        input: &TurnFile,
        pending: Pending,
        index: usize,
        number: u8,
        by: By,
        pit: Option<(PitOrder, PitRecord)>,
    ) -> Result<(), StoreError> {
        let mut dice = TurnDice::new(next, unread(input, out), pending.move_no, pending.next_index);
        let order = pit.as_ref().map(|(o, _)| o.clone()).unwrap_or_default();
        let outcome = resolve_with(&self.track, &pending.rolled, index, &order, &mut dice, &self.rules)?;
        out.move_no = Some(pending.move_no);
        out.orders.push(OrderRecord {
            space: Some(self.track.space(pending.rolled.options[index].end).id.clone()),
            pit: pit.map(|(_, r)| r),
            ..OrderRecord::choice(number, by, MoveOption::label(index))
        });
        let n = self.dice_done(dice, out)?;
        self.events(&outcome.state, &outcome.events, out);
        race.state = outcome.state;
        race.pending = None;
        self.complete(race, next, out, input, pending.next_index + n as u32)
    }

    pub(super) fn dice_done(&self, dice: TurnDice<'_>, out: &mut TurnFile) -> Result<usize, StoreError> {
        if let Some(p) = dice.problem {
            return Err(StoreError::BadSetting(p));
        }
        let n = dice.log.len();
        out.rolls.extend(dice.log);
        Ok(n)
    }

    pub(super) fn events(&self, s: &RaceState, events: &[Event], out: &mut TurnFile) {
        for e in events {
            // The record keeps the article apart from the text.
            let text = e.text(&self.track, |c| s.car(c).number);
            out.events.push(EventRecord { article: Cow::Borrowed(e.article()), text });
        }
    }

    /// After a move (or the start): the backmarkers called play at once (002, ruling 49), then
    /// the next car is called, or the race ends and the seed is revealed. `index` is the next
    /// roll index of move `race.moves`: the backmarkers' rolls continue that move's, so that a
    /// turn's rolls all name its move.
    pub(super) fn complete(
        &self,
        race: &mut Race,
        next: &mut Progress,
        out: &mut TurnFile,
        input: &TurnFile,
        mut index: u32,
    ) -> Result<(), StoreError> {
        if self.keep_after_move && race.moves > 0 {
            race.after_move = Some(race.state.clone());
        }
        loop {
            let (car, events) = advance_in(&self.track, &mut race.state);
            self.events(&race.state, &events, out);
            match car {
                None => {
                    next.over = true;
                    return self.reveal(next, out, input);
                }
                Some(c) if race.state.car(c).backmarker => {
                    index = self.backmarker_move(race, next, out, input, c, index)?;
                }
                Some(_) => return Ok(()),
            }
        }
    }

    /// A backmarker's move (002 "Backmarkers", ruling 49): 3rd gear, the option its rules pick,
    /// recorded as an order `by = "backmarker"` (replays play it again rather than read it).
    /// Returns the next roll index of the move.
    pub(super) fn backmarker_move(
        &self,
        race: &mut Race,
        next: &Progress,
        out: &mut TurnFile,
        input: &TurnFile,
        car: CarId,
        index: u32,
    ) -> Result<u32, StoreError> {
        let mut dice = TurnDice::new(next, unread(input, out), race.moves, index);
        let number = race.state.car(car).number;
        let (state, events, choice) =
            match roll(&self.track, &race.state, car, backmarkers::GEAR, &mut dice, &self.rules)? {
                Step::Done(o) => (o.state, o.events, None),
                Step::Choose(r) => {
                    let i = backmarkers::choose(&self.track, &r.state, car, &r.options);
                    let o = resolve_with(&self.track, &r, i, &PitOrder::default(), &mut dice, &self.rules)?;
                    let mut events = r.events.clone();
                    events.extend(o.events);
                    (o.state, events, Some((MoveOption::label(i), self.track.space(r.options[i].end).id.clone())))
                }
            };
        let n = self.dice_done(dice, out)?;
        out.orders.push(OrderRecord {
            choose: choice.as_ref().map(|c| c.0.clone()),
            space: choice.map(|c| c.1),
            ..OrderRecord::gear(number, By::Backmarker, backmarkers::GEAR)
        });
        self.events(&state, &events, out);
        race.state = state;
        Ok(index + n as u32)
    }
}
