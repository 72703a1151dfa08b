//! Rollbacks (`Kind::Rollback`): a moderator returns the game to the end of an earlier turn.
//! The turns after it stay in the chain, each still replayed and checked, and are marked rolled
//! back; the game's progress becomes what it was after the target turn, replayed again from turn
//! 0; and the dice move to a new namespace (`r<epoch>/` labels), so that no label is ever used
//! twice and the rolls already seen stay in the history for everyone to read (docs/dice.md,
//! section 3a). Also a player's retirement (`Kind::Player`), the car out where it stands.

use super::*;
use crate::store::files::{RetireRecord, RollbackRecord};

impl Game {
    /// The turns of the game's current line, in order: every turn but those a later rollback
    /// undid (a rollback turn itself is on the line).
    pub fn live_turns(&self) -> Vec<u32> {
        let mut live = Vec::with_capacity(self.turns.len());
        for t in &self.turns {
            if let (Kind::Rollback, Some(r)) = (t.kind, &t.rollback) {
                live.retain(|&n| n <= r.to);
            }
            live.push(t.turn);
        }
        live
    }

    /// The turns rolled back so far, in order.
    pub fn rolled_back_turns(&self) -> Vec<u32> {
        let live = self.live_turns();
        (0..self.next_turn()).filter(|n| live.binary_search(n).is_err()).collect()
    }

    /// The turn that started the race (or its qualifying), on the current line.
    pub fn start_turn(&self) -> Option<u32> {
        self.live_turns().into_iter().find(|&n| self.turns[n as usize].kind == Kind::Start)
    }

    /// Why the game cannot return to the end of turn `to` now, if it cannot: the race must be
    /// running (not over: a finished race keeps its result), `to` on the current line, at or
    /// after the start (before it the dice key did not exist) and before the last turn.
    pub fn rollback_refusal(&self, to: u32) -> Option<String> {
        if self.now.over {
            return Some("the race is over: a finished race is never rolled back".into());
        }
        let Some(start) = self.start_turn() else {
            return Some("the race has not started: there is nothing to roll back".into());
        };
        let last = self.next_turn().saturating_sub(1);
        if to < start {
            return Some(format!(
                "turn {to} is before the start (turn {start}): a rollback never goes past the start, whose dice key is fixed"
            ));
        }
        if to >= last {
            return Some(format!("turn {to} is not before the last turn ({last}): there is nothing to roll back"));
        }
        if !self.live_turns().contains(&to) {
            return Some(format!("turn {to} was itself rolled back: name a turn of the current line"));
        }
        None
    }

    /// The progress after turn `r.to` (replayed again from turn 0), in the next dice namespace,
    /// and the events that say what changed.
    pub(super) fn roll_back(
        &self,
        r: &RollbackRecord,
        now: &Progress,
    ) -> Result<(Progress, Vec<EventRecord>), StoreError> {
        if let Some(why) = self.rollback_refusal(r.to) {
            return Err(StoreError::BadModeration(why));
        }
        let head = self.hashes.last().cloned().unwrap_or_default();
        if r.head != head {
            return Err(StoreError::BadSetting(format!(
                "the rollback names {} as the head of the turns it undoes, but the last turn hashes to {head}",
                r.head
            )));
        }
        if r.epoch != now.epoch + 1 {
            return Err(StoreError::BadSetting(format!(
                "the rollback opens dice namespace r{}, but the next one is r{}",
                r.epoch,
                now.epoch + 1
            )));
        }
        let mut back = match self.snapshots.get(&r.to) {
            Some(p) => p.clone(),
            None => self.replayed_to(r.to)?,
        };
        back.epoch = r.epoch;
        // The clock settings are the moderator's present ones.
        back.paused = now.paused;
        back.move_hours = now.move_hours;
        if back.line.is_none()
            && let Some(p) = back.race.as_mut().and_then(|race| race.pending.as_mut())
        {
            // A roll awaiting its choice at `to` stays (it was seen); the rest of its move rolls
            // in the new namespace, from index 0. (In v3 the labels follow the line of
            // decisions, which the rollback restores with the rest.)
            p.next_index = 0;
        }
        let last = self.next_turn() - 1;
        let mut events = vec![EventRecord {
            article: Cow::Borrowed("rollback"),
            text: if back.line.is_some() {
                format!(
                    "the moderator rolls the game back to the end of turn {}: turns {} to {last} are rolled back (kept in the history); the same decisions give the same dice again, a changed one new dice",
                    r.to,
                    r.to + 1
                )
            } else {
                format!(
                    "the moderator rolls the game back to the end of turn {}: turns {} to {last} are rolled back (kept in the history); rolls are now labelled r{}/",
                    r.to,
                    r.to + 1,
                    r.epoch
                )
            },
        }];
        if let (Some(a), Some(b)) = (now.race.as_ref(), back.race.as_ref()) {
            for cb in &b.state.cars {
                let Some(ca) = a.state.cars.iter().find(|c| c.number == cb.number) else { continue };
                if (ca.space, ca.gear, ca.status, ca.wear) != (cb.space, cb.gear, cb.status, cb.wear) {
                    events.push(EventRecord {
                        article: Cow::Borrowed("rollback"),
                        text: format!(
                            "car {}: back to {} in gear {} ({}), from {} in gear {} ({})",
                            cb.number,
                            self.track.space(cb.space).id,
                            cb.gear,
                            car_summary(cb),
                            self.track.space(ca.space).id,
                            ca.gear,
                            car_summary(ca)
                        ),
                    });
                }
            }
        }
        if now.players != back.players {
            for p in back.players.iter() {
                let before = now.players.iter().find(|q| q.car == p.car);
                if before.is_none_or(|q| q.address != p.address) {
                    events.push(EventRecord {
                        article: Cow::Borrowed("rollback"),
                        text: format!("car {}: driven again by {}", p.car, p.address),
                    });
                }
            }
        }
        Ok((back, events))
    }

    /// The progress after turn `to`, exactly as it was: the same code path from turn 0. The
    /// targets of the rollbacks on the way are kept as they pass, so that each of those
    /// rollbacks restores its target without replaying again: a chain of rollbacks costs one
    /// replay of the turns before the last target, not one per rollback (issue 49).
    fn replayed_to(&self, to: u32) -> Result<Progress, StoreError> {
        let targets: std::collections::HashSet<u32> =
            self.turns[1..=to as usize].iter().filter_map(|t| t.rollback.as_ref().map(|x| x.to)).collect();
        let (mut past, out0) = Game::create(self.track.clone(), &self.turns[0], self.seed)?;
        let p0 = past.now.clone();
        past.push(out0, p0, self.hashes[0].clone());
        for n in 1..=to as usize {
            let (out, next) = past.apply(&self.turns[n])?;
            past.push(out, next, self.hashes[n].clone());
            if targets.contains(&(n as u32)) {
                past.snapshots.insert(n as u32, past.now.clone());
            }
        }
        Ok(past.now)
    }

    /// Car `r.car` retires: out of the race where it stands, classified among the cars that did
    /// not finish (docs/leagues.md); the order of play goes on without it.
    pub(super) fn retire(
        &self,
        r: &RetireRecord,
        next: &mut Progress,
        out: &mut TurnFile,
        input: &TurnFile,
    ) -> Result<(), StoreError> {
        if next.over {
            return Err(StoreError::Over);
        }
        let (id, _) = self.player(r.car).ok_or(StoreError::NoSuchCar(r.car))?;
        let mut race = next.race.take().ok_or(StoreError::NotStarted)?;
        next.decide(&format!("{} retire", r.car));
        let r = self.retire_in(r, id, &mut race, next, out, input);
        next.race = Some(race);
        r
    }

    fn retire_in(
        &self,
        r: &RetireRecord,
        id: CarId,
        race: &mut Race,
        next: &mut Progress,
        out: &mut TurnFile,
        input: &TurnFile,
    ) -> Result<(), StoreError> {
        if race.pending.as_ref().is_some_and(|p| p.rolled.car == id) {
            return Err(StoreError::BadModeration(format!(
                "car {} has a roll awaiting its choice: choose first, then retire",
                r.car
            )));
        }
        let car = race.state.car(id);
        if !car.status.plays() {
            return Err(StoreError::BadModeration(format!("car {} is no longer racing", r.car)));
        }
        let space = self.track.space(car.space).id.clone();
        let was_to_play = race.state.to_play == Some(id);
        let (state, events) = crate::engine::retire(&race.state, id);
        self.events(&state, &events, out);
        race.state = state;
        out.events.push(EventRecord {
            article: Cow::Borrowed("ruling 51"),
            text: format!("car {} retires at {space}: out of the race, classified as did not finish", r.car),
        });
        if was_to_play {
            // The next car is called (a backmarker called plays on the last move's indices).
            let index = if next.line.is_some() {
                // v3: the retirement is a decision of its own, whose line no roll has used.
                0
            } else {
                let prefix = format!("{}/", move_label(next.epoch, race.moves));
                self.labels.iter().filter(|l| l.starts_with(&prefix)).count() as u32
            };
            self.complete(race, next, out, input, index)?;
            if !out.rolls.is_empty() {
                out.move_no = Some(race.moves);
            }
        }
        Ok(())
    }
}

/// A car's status and wear in a line of the rollback's announcement.
fn car_summary(c: &crate::engine::CarState) -> String {
    let w = c.wear;
    format!(
        "{}, wear {}/{}/{}/{}/{}/{}",
        crate::store::canon::status(c.status),
        w.tyres,
        w.brakes,
        w.gas,
        w.body,
        w.engine,
        w.handling
    )
}
