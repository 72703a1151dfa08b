//! A qualifying session in a stored game (1, ruling 31): every car drives its timed lap alone,
//! by mail, at the same time as the others, with the game's committed dice; when the last lap is
//! over the grid is drawn up (1-3-2), the race weather drawn (3-2-1) and the race starts.
//!
//! The rules are the engine's ([`crate::engine::qualifying`]); this module keeps the session
//! between turns and turns its steps into turn records. A lap's moves are numbered with the
//! game's moves, so every roll of the game has its own label and both verifiers re-derive them.

use crate::engine::qualifying::grid::{self, Qualified, TieBreak};
use crate::engine::qualifying::{Lap, LapEnd, LapRoll};
use crate::engine::{Dice, MoveOption};
use crate::track::{Track, Weather};

use super::error::StoreError;
use super::files::{EventRecord, OptionRecord, PendingRecord, PlayerRecord};

/// The grid methods of a game (`grid = "..."` in its setup).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum GridMethod {
    /// Join order (games from before the setting).
    Join,
    /// Timed laps by mail (1), ties by the order the laps were completed (ruling 24).
    Qualifying,
    /// Timed laps by mail, ties by a black die roll-off (ruling 24).
    QualifyingBlackDie,
}

impl GridMethod {
    /// The name in game files.
    pub fn name(self) -> &'static str {
        match self {
            GridMethod::Join => "join",
            GridMethod::Qualifying => "qualifying",
            GridMethod::QualifyingBlackDie => "qualifying-black-die",
        }
    }

    /// Parses [`GridMethod::name`].
    pub fn parse(s: &str) -> Option<Self> {
        [GridMethod::Join, GridMethod::Qualifying, GridMethod::QualifyingBlackDie].into_iter().find(|g| g.name() == s)
    }

    /// Whether the race is preceded by a qualifying session.
    pub fn qualifies(self) -> bool {
        self != GridMethod::Join
    }

    fn ties(self) -> TieBreak {
        if self == GridMethod::QualifyingBlackDie { TieBreak::BlackDie } else { TieBreak::Completion }
    }
}

/// One car's timed lap.
#[derive(Clone, Debug)]
pub struct Entry {
    /// Car number.
    pub car: u8,
    /// The lap so far.
    pub lap: Lap,
    /// A roll awaiting the driver's choice, with its move number.
    pub pending: Option<(LapRoll, u32)>,
    /// The lap's rank of completion (0 = first over), once over.
    pub done: Option<u32>,
}

/// The session between turns.
#[derive(Clone, Debug)]
pub struct Session {
    /// Its weather (3-1): the race weather depends on it (3-2-4).
    pub weather: Weather,
    /// Whether the track is wet.
    pub wet: bool,
    /// The laps, in the players' order.
    pub entries: Vec<Entry>,
    /// Laps over so far.
    pub over: u32,
    /// Moves made so far: the race's moves are numbered after them.
    pub moves: u32,
}

impl Session {
    /// Opens the session: each car on its start space in 1st (1-1-3) on the tyres its player
    /// chose for this track (ruling 30).
    pub fn open(
        t: &Track,
        rules: &crate::engine::Rulebook,
        players: &[PlayerRecord],
        weather: Weather,
        wet: bool,
    ) -> Result<Session, StoreError> {
        let entries = players
            .iter()
            .map(|p| {
                let tyres = super::records::starting_tyres(p, wet, rules);
                Lap::new(t, p.car, tyres, wet)
                    .map(|lap| Entry { car: p.car, lap, pending: None, done: None })
                    .map_err(|e| StoreError::BadSetting(e.to_string()))
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Session { weather, wet, entries, over: 0, moves: 0 })
    }

    /// Car `car`'s lap.
    pub fn entry(&self, car: u8) -> Option<&Entry> {
        self.entries.iter().find(|e| e.car == car)
    }

    /// True once every lap is over.
    pub fn is_over(&self) -> bool {
        self.entries.iter().all(|e| e.lap.is_over())
    }

    /// The cars whose lap goes on, and whether each owes a choice (else a gear).
    pub fn awaited(&self) -> Vec<(u8, bool)> {
        self.entries.iter().filter(|e| !e.lap.is_over()).map(|e| (e.car, e.pending.is_some())).collect()
    }

    /// Car `car` announces `gear` and rolls (1-1-7) in move `move_no`. Returns the events.
    pub fn gear(
        &mut self,
        t: &Track,
        car: u8,
        gear: u8,
        move_no: u32,
        dice: &mut dyn Dice,
    ) -> Result<Vec<EventRecord>, StoreError> {
        let e = self.entry_mut(car)?;
        if e.pending.is_some() {
            return Err(StoreError::MustChoose { car });
        }
        let rolled = e.lap.roll(t, gear, dice).map_err(|x| StoreError::Qualifying(x.to_string()))?;
        let text = format!(
            "car {car}'s timed lap: gear {gear}, the die shows {} ({} option(s))",
            rolled.roll,
            rolled.options.len()
        );
        e.pending = Some((rolled, move_no));
        Ok(vec![EventRecord { article: "1-1-7".into(), text }])
    }

    /// Car `car` plays option `index` of its roll (1-1-9). Returns the events.
    pub fn choose(&mut self, t: &Track, car: u8, index: usize) -> Result<Vec<EventRecord>, StoreError> {
        let over = self.over;
        let e = self.entry_mut(car)?;
        let Some((rolled, _)) = e.pending.take() else {
            return Err(StoreError::NothingToChoose { car });
        };
        let lap = match e.lap.resolve(t, &rolled, index) {
            Ok(l) => l,
            Err(x) => {
                e.pending = Some((rolled, 0));
                return Err(StoreError::Qualifying(x.to_string()));
            }
        };
        e.lap = lap;
        let m = e.lap.moves.last().expect("a move was played");
        let mut events = vec![EventRecord {
            article: "1-1-9".into(),
            text: format!("car {car} moves {} space(s) to {}", m.spaces, t.space(m.to).id),
        }];
        if let Some((corner, n)) = m.overshoot {
            events.push(EventRecord {
                article: "1-1-12".into(),
                text: format!("car {car} overshoots corner {corner} by {n}: {} penalty roll(s)", m.penalty),
            });
        }
        match e.lap.result.end {
            Some(LapEnd::Completed) => {
                e.done = Some(over);
                let r = e.lap.result;
                events.push(EventRecord {
                    article: "1-1-10".into(),
                    text: format!(
                        "car {car}'s lap is over: {} roll(s) + {} penalty = {}",
                        r.rolls,
                        r.overshoot + r.errors * crate::engine::rulebook::QUALIFYING_ERROR_ROLLS,
                        r.total().unwrap_or(0)
                    ),
                });
                self.over += 1;
            }
            Some(LapEnd::Aborted { corner }) => {
                e.done = Some(over);
                events.push(EventRecord {
                    article: "1-1-14".into(),
                    text: format!("car {car}'s lap is aborted: corner {corner} without its stops; last on the grid"),
                });
                self.over += 1;
            }
            None => {}
        }
        Ok(events)
    }

    fn entry_mut(&mut self, car: u8) -> Result<&mut Entry, StoreError> {
        let e = self.entries.iter_mut().find(|e| e.car == car).ok_or(StoreError::NoSuchCar(car))?;
        if e.lap.is_over() {
            return Err(StoreError::Qualifying(format!("the timed lap of car {car} is over")));
        }
        Ok(e)
    }

    /// The grid, pole first (1-3-2; ties as the game says, ruling 24; aborted laps by the
    /// black die under 003-2, `aborted_by_black_die`).
    pub fn grid(&self, method: GridMethod, aborted_by_black_die: bool, dice: &mut dyn Dice) -> Vec<u8> {
        let q: Vec<Qualified> =
            self.entries.iter().map(|e| grid::best_of(e.car, &[(e.done.unwrap_or(u32::MAX), e.lap.result)])).collect();
        grid::from_qualifying(&q, method.ties(), aborted_by_black_die, dice)
    }

    /// The pending record of car `car`'s roll, as a turn file shows it.
    pub fn pending_record(&self, t: &Track, car: u8) -> Option<PendingRecord> {
        let e = self.entry(car)?;
        let (r, _) = e.pending.as_ref()?;
        Some(PendingRecord {
            car,
            gear: r.gear,
            roll: r.roll,
            options: r
                .options
                .iter()
                .enumerate()
                .map(|(i, o)| OptionRecord {
                    label: MoveOption::label(i),
                    to: t.space(o.end).id.clone(),
                    spaces: o.spaces,
                    text: super::records::option_text(t, o),
                })
                .collect(),
        })
    }

    /// One line per car for reports: its lap so far.
    pub fn table(&self, t: &Track, lang: crate::words::Lang) -> String {
        use crate::say;
        let mut out = String::new();
        for e in &self.entries {
            let r = e.lap.result;
            let c = e.lap.car();
            let state = match r.end {
                Some(LapEnd::Completed) => {
                    say!(lang, "lap.over", rolls = say!(lang, "count.rolls", n = r.total().unwrap_or(0)))
                }
                Some(LapEnd::Aborted { corner }) => say!(lang, "lap.aborted", corner = corner),
                None if e.pending.is_some() => say!(lang, "lap.choosing"),
                None => say!(lang, "lap.to_announce"),
            };
            let gear = e.pending.as_ref().map_or(c.gear, |(r, _)| r.gear);
            let gear = if gear == 0 { "-".to_string() } else { gear.to_string() };
            let line = say!(
                lang,
                "lap.row",
                car = format!("{:>2}", e.car),
                tyres = format!("{:<6}", crate::words::catalogue::word(lang, "tyres", c.tyres.name())),
                gear = gear,
                space = format!("{:<10}", t.space(c.space).id),
                rolls = format!("{:>2}", r.rolls),
                penalty = format!("{:>2}", r.overshoot),
                state = state
            );
            out.push_str(&line);
            out.push('\n');
        }
        out
    }
}
