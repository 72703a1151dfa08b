//! The finishing order of cars that cross the line for the last time in the same round of play.
//!
//! Why a module of its own: two texts disagree and a game picks one. The competition (21-1-4):
//! « Ce n'est pas la case d'arrivée des voitures qui détermine l'ordre d'arrivée mais bien l'ordre
//! de franchissement de la ligne » — the order in which they cross, i.e. the order of play, which
//! `play` keeps by pushing each finisher in turn. A league race on 004's layer (the game's
//! `finish_ties = "portion"`, [`RuleSet::finish_by_portion`](super::RuleSet)): "When two or more
//! cars touch the finish line on the same game turn, the car that uses the smallest portion of
//! its movement to complete the race places higher", the portion being the spaces used to touch
//! the line over every space moved that turn, slipstreams included; equal portions roll off
//! (docs/rulings.md, ruling 50).

use crate::track::{SpaceIdx, Track};

use super::dice::Dice;
use super::dice::roll_off;
use super::events::Event;
use super::state::{CarId, RaceState, Status};

/// How a car that finished used its last move (004): `used` of its `moved` spaces took it to
/// the line, in round `round`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Portion {
    /// The car.
    pub car: CarId,
    /// The round (game turn) it finished in.
    pub round: u32,
    /// Spaces used to touch the line.
    pub used: u8,
    /// Spaces moved in the whole move.
    pub moved: u8,
}

/// The spaces of `path` (entered from `from`, in order) up to and including the one reached by
/// the `nth` line crossing (1-based): the spaces a car used to touch the line.
pub fn spaces_to_line(t: &Track, from: SpaceIdx, path: &[SpaceIdx], nth: u16) -> u8 {
    let mut prev = from;
    let mut seen = 0;
    for (i, &x) in path.iter().enumerate() {
        if t.crosses_line(prev, x) {
            seen += 1;
            if seen == nth {
                return (i + 1).min(u8::MAX as usize) as u8;
            }
        }
        prev = x;
    }
    path.len().min(u8::MAX as usize) as u8
}

/// 004: places `p.car`, which has just finished (last in `s.finish_order`), among the cars that
/// finished earlier in the same round: the smaller portion `used / moved` places higher; equal
/// portions are separated by one black die each, the lowest higher, ties rolled again (the
/// 2d10 of 004 in the dice the game has; ruling 50). Cars whose place changes get a new
/// `Finished` event.
pub fn place_by_portion(s: &mut RaceState, events: &mut Vec<Event>, p: Portion, dice: &mut dyn Dice) {
    s.finish_portions.push(p);
    let portion = |c: CarId| s.finish_portions.iter().rev().find(|q| q.car == c).copied();
    let n = s.finish_order.len();
    let first = (0..n.saturating_sub(1))
        .rev()
        .take_while(|&i| portion(s.finish_order[i]).is_some_and(|q| q.round == p.round))
        .last()
        .unwrap_or(n - 1);
    let mut same: Vec<(Portion, CarId)> =
        s.finish_order[first..].iter().map(|&c| (portion(c).expect("a portion for each"), c)).collect();
    if same.len() < 2 {
        return;
    }
    // Smaller portion first: a/b < c/d <=> a*d < c*b (moved is never 0 for a finisher).
    let less = |a: &Portion, b: &Portion| (a.used as u32 * b.moved as u32).cmp(&(b.used as u32 * a.moved as u32));
    same.sort_by(|a, b| less(&a.0, &b.0));
    let mut order: Vec<CarId> = Vec::with_capacity(same.len());
    let mut i = 0;
    while i < same.len() {
        let j = same[i..].iter().position(|x| less(&x.0, &same[i].0).is_ne()).map_or(same.len(), |k| i + k);
        let group: Vec<CarId> = same[i..j].iter().map(|x| x.1).collect();
        if group.len() > 1 && group.contains(&p.car) {
            order.extend(roll_off(&group, true, dice));
        } else {
            // Ties among cars placed before are kept as they were decided.
            let mut g = group;
            g.sort_by_key(|c| s.finish_order.iter().position(|x| x == c));
            order.extend(g);
        }
        i = j;
    }
    for (k, &c) in order.iter().enumerate() {
        let place = (first + k + 1) as u8;
        s.finish_order[first + k] = c;
        if s.car(c).status != (Status::Finished { place }) {
            s.car_mut(c).status = Status::Finished { place };
            events.push(Event::Finished { car: c, place });
        }
    }
}
