//! The starts of a race: the qualifying session's orders and the grid it ends with, the race
//! state built on the grid (boxes, backmarkers, tyres for the weather), a late arrival's car, and
//! the reveal of the seed. Split from the replay (`super`).

use super::moves::unread;
use super::*;

impl Game {
    /// The orders of a qualifying turn (ruling 31): one car's gear and/or choice on its lap;
    /// when the last lap ends, the grid (1-3-2), the race weather (3-2-1) and the race's start.
    pub(super) fn qualify_orders(
        &self,
        next: &mut Progress,
        out: &mut TurnFile,
        input: &TurnFile,
    ) -> Result<(), StoreError> {
        if next.over {
            return Err(StoreError::Over);
        }
        if next.paused {
            return Err(StoreError::Paused);
        }
        let mut q = next.qualifying.take().expect("a qualifying turn");
        let mut last_move = 0u32;
        for order in input.orders.iter().filter(|o| !matches!(o.by, By::Forced | By::Backmarker)) {
            let car = order.car;
            if order.reroll {
                // Driver points re-roll race rolls only (ruling 45).
                return Err(StoreError::BadSetting(
                    "a driver point re-rolls a roll of the race, not of a timed lap (ruling 45)".into(),
                ));
            }
            match (order.gear, &order.choose) {
                (Some(gear), None) => {
                    let move_no = q.moves + 1;
                    next.decide(&decision_text(&OrderRecord::gear(car, order.by, gear)));
                    let mut dice = TurnDice::new(next, unread(input, out), move_no, 0);
                    let events = q.gear(&self.track, car, gear, move_no, &mut dice)?;
                    self.dice_done(dice, out)?;
                    q.moves = move_no;
                    last_move = move_no;
                    out.move_no = Some(move_no);
                    out.orders.push(OrderRecord::gear(car, order.by, gear));
                    out.events.extend(events);
                    if q.entry(car).and_then(|e| e.pending.as_ref()).is_some_and(|(r, _)| r.options.len() == 1) {
                        // A single option is played at once.
                        let events = q.choose(&self.track, car, 0)?;
                        out.orders.push(OrderRecord::choice(car, By::Forced, MoveOption::label(0)));
                        out.events.extend(events);
                    }
                }
                (None, Some(answer)) => {
                    let e = q.entry(car).ok_or(StoreError::NoSuchCar(car))?;
                    let (rolled, move_no) = e.pending.as_ref().ok_or(StoreError::NothingToChoose { car })?;
                    let index = pick(&self.track, &rolled.rolled, answer)?;
                    next.decide(&decision_text(&OrderRecord::choice(car, order.by, MoveOption::label(index))));
                    last_move = *move_no;
                    out.move_no = Some(*move_no);
                    let events = q.choose(&self.track, car, index)?;
                    out.orders.push(OrderRecord::choice(car, order.by, MoveOption::label(index)));
                    out.events.extend(events);
                }
                _ => return Err(StoreError::BadOrder),
            }
        }
        if out.orders.is_empty() {
            return Err(StoreError::BadOrder);
        }
        if !q.is_over() {
            next.qualifying = Some(q);
            return Ok(());
        }
        // The grid, then the race weather drawn by the pole (3-2-1), on the move that ended the
        // session (its roll was index 0).
        let mut dice = TurnDice::new(next, unread(input, out), last_move, 1);
        let order = q.grid(self.grid_method(), self.rules.set.aborted_laps_by_black_die, &mut dice);
        let mut drawn = Vec::new();
        let (sky, wet) =
            weather::draw_race(&self.track.weather, self.forecast(), q.weather, &self.rules.set, &mut dice, &mut drawn);
        self.dice_done(dice, out)?;
        let players: Vec<PlayerRecord> =
            order.iter().filter_map(|c| next.players.iter().find(|p| p.car == *c).cloned()).collect();
        out.events.push(EventRecord {
            article: Cow::Borrowed("1-3-2"),
            text: format!(
                "qualifying is over; the grid: {}",
                order.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(", ")
            ),
        });
        next.players = Arc::new(players);
        let state = self.race_state(&next.players, wet, sky)?;
        self.events(&state, &drawn, out);
        let mut race = Race { state, pending: None, moves: q.moves, after_move: None };
        next.qualified = Some(Arc::new(q));
        let index = out.rolls.iter().filter(|r| r.label.starts_with(&format!("{}/", race.moves))).count() as u32;
        self.complete(&mut race, next, out, input, index)?;
        next.race = Some(race);
        Ok(())
    }

    /// Puts the car of `p`, who joins a started race, in the pit lane (004 "Late Arrivals",
    /// ruling 47): into the race state and into a roll awaiting its choice, if any.
    pub(super) fn late_arrival(&self, race: &mut Race, p: &PlayerRecord, out: &mut TurnFile) -> Result<(), StoreError> {
        let rules = Rulebook { laps: self.setup.laps, ..self.rules.clone() };
        let setup = Setup { wear: wear_of(&p.wear), tyres: starting_tyres(p, race.state.wet, &self.rules) };
        let id = race.state.late_arrival(&self.track, &rules, p.car, &setup).map_err(StoreError::BadSetting)?;
        if let Some(pending) = race.pending.as_mut() {
            pending.rolled.state.late_arrival(&self.track, &rules, p.car, &setup).map_err(StoreError::BadSetting)?;
        }
        let space = &self.track.space(race.state.car(id).space).id;
        out.events.push(EventRecord {
            article: Cow::Borrowed("004"),
            text: format!(
                "car {} arrives late: it waits in the pit lane on {space} until every car has passed it",
                p.car
            ),
        });
        Ok(())
    }

    /// The race on the grid `players` (in grid order), under the weather drawn (3-0-1), each car
    /// on the tyres its player chose for that track (ruling 30).
    pub(super) fn race_state(
        &self,
        players: &[PlayerRecord],
        wet: bool,
        sky: Option<crate::engine::weather::WeatherState>,
    ) -> Result<RaceState, StoreError> {
        let setups: Vec<(u8, Setup)> = players
            .iter()
            .map(|p| (p.car, Setup { wear: wear_of(&p.wear), tyres: starting_tyres(p, wet, &self.rules) }))
            .collect();
        let rules = Rulebook { laps: self.setup.laps, ..self.rules.clone() };
        let mut state = RaceState::new_for(&self.track, &rules, &setups).map_err(StoreError::BadSetting)?;
        if self.setup.backmarkers {
            state.backmarkers = backmarkers::Backmarkers::Due; // 002, ruling 49
        }
        // The boxes, chosen in grid order or its reverse (4-0-1, ruling 48).
        let wishes: Vec<Vec<usize>> =
            players.iter().map(|p| p.boxes.iter().map(|&b| usize::from(b)).collect()).collect();
        let boxes =
            choose_boxes(&self.track, &wishes, self.pit_choice()).map_err(|e| StoreError::BadSetting(e.to_string()))?;
        state.assign_boxes(&self.track, &boxes);
        state.wet = wet;
        state.weather = sky;
        Ok(state)
    }

    /// Puts the seed in the turn: the known one, or the one the turn file reveals.
    pub(super) fn reveal(&self, next: &mut Progress, out: &mut TurnFile, input: &TurnFile) -> Result<(), StoreError> {
        let seed = match (self.seed, &input.seed) {
            (Some(s), _) => s,
            (None, Some(text)) => parse_hex32(text).ok_or_else(|| StoreError::BadSeed(text.clone()))?,
            (None, None) => return Err(StoreError::BadSetting("the race is over but the turn reveals no seed".into())),
        };
        if hex32(&self.scheme().commit(&self.setup.id, &seed)) != self.setup.commitment {
            return Err(StoreError::SeedMismatch { seed: hex32(&seed), commitment: self.setup.commitment.clone() });
        }
        next.revealed = Some(seed);
        out.seed = Some(hex32(&seed));
        Ok(())
    }
}
