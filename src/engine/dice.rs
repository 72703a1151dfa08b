//! Dice as an input to the engine. The engine never draws randomness itself: whoever calls it
//! supplies a [`Dice`] (committed-seed dice in play, fixed faces in rulebook cases).

use super::rulebook::Die;
use super::state::CarId;

/// Why a die is rolled; becomes part of the published roll label.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Purpose {
    /// The gear die of a move (6-2-1).
    Move,
    /// A road-handling test on entering a dangerous space (17-0-2).
    Handling,
    /// A body test in a collision (14-1).
    Collision,
    /// An engine test after a 20 in 5th or a 30 in 6th (16-0-1).
    Engine,
    /// The start roll (9-0-1) or a restart after a spinout (10-4-6).
    Start,
    /// A weather roll (3).
    Weather,
    /// The black die of a quick pit stop (19-3-2).
    Pit,
    /// Anything else the rules roll the black die for.
    Other,
}

impl Purpose {
    /// Name used in roll labels.
    pub fn name(self) -> &'static str {
        match self {
            Purpose::Move => "move",
            Purpose::Handling => "handling",
            Purpose::Collision => "collision",
            Purpose::Engine => "engine",
            Purpose::Start => "start",
            Purpose::Weather => "weather",
            Purpose::Pit => "pit",
            Purpose::Other => "other",
        }
    }
}

/// A source of die results.
pub trait Dice {
    /// Rolls `die` for `car` (if any) and `purpose`; returns one of the die's faces.
    fn roll(&mut self, die: Die, car: Option<CarId>, purpose: Purpose) -> u8;
}

/// Dice that return a fixed sequence of results, as rulebook cases need. When the sequence runs
/// out, or a result is not a face of the die asked for, it returns the die's first face and
/// records the problem in [`FixedDice::problems`] instead of panicking.
#[derive(Clone, Debug, Default)]
pub struct FixedDice {
    values: Vec<u8>,
    next: usize,
    /// What went wrong, if anything (exhausted, impossible face).
    pub problems: Vec<String>,
    /// Every roll made: die, value.
    pub log: Vec<(Die, u8)>,
}

impl FixedDice {
    /// Dice that will return `values` in order.
    pub fn new(values: Vec<u8>) -> Self {
        FixedDice { values, ..Default::default() }
    }

    /// Results not used yet.
    pub fn remaining(&self) -> &[u8] {
        &self.values[self.next.min(self.values.len())..]
    }
}

impl Dice for FixedDice {
    fn roll(&mut self, die: Die, _car: Option<CarId>, purpose: Purpose) -> u8 {
        let v = match self.values.get(self.next) {
            Some(&v) if die.faces().contains(&v) => v,
            Some(&v) => {
                self.problems.push(format!(
                    "roll {} ({}): {v} is not a face of {}",
                    self.next + 1,
                    purpose.name(),
                    die.name()
                ));
                die.faces()[0]
            }
            None => {
                self.problems.push(format!("roll {} ({}): no die result left", self.next + 1, purpose.name()));
                die.faces()[0]
            }
        };
        self.next += 1;
        self.log.push((die, v));
        v
    }
}

/// Orders `entries` by one black die each (Purpose::Other), re-rolling among those still tied
/// until every tie is broken; `lowest_first` puts the smallest roll first (002), otherwise the
/// highest. Returns the entries in their new order; dice are rolled in the entries' order.
pub fn roll_off<T: Copy>(entries: &[T], lowest_first: bool, dice: &mut dyn Dice) -> Vec<T> {
    if entries.len() <= 1 {
        return entries.to_vec();
    }
    let mut rolled: Vec<(u8, T)> = entries.iter().map(|&e| (dice.roll(Die::Black, None, Purpose::Other), e)).collect();
    // A stable sort keeps the entries' order among equals until they roll again.
    if lowest_first {
        rolled.sort_by_key(|r| r.0);
    } else {
        rolled.sort_by_key(|r| std::cmp::Reverse(r.0));
    }
    let mut out = Vec::with_capacity(entries.len());
    let mut i = 0;
    while i < rolled.len() {
        let j = rolled[i..].iter().position(|r| r.0 != rolled[i].0).map_or(rolled.len(), |k| i + k);
        let group: Vec<T> = rolled[i..j].iter().map(|r| r.1).collect();
        out.extend(roll_off(&group, lowest_first, dice));
        i = j;
    }
    out
}
