//! The starting grid (1-3-2 and the seeds' other methods), as pure functions with typed inputs:
//! from qualifying results, one d20 per car (002 "Normal method"), the rotating grid (002), and
//! sealed qualifying bids (004). Dice are an input; every grid lists entries pole first.

use thiserror::Error;

use super::super::dice::{Dice, Purpose, roll_off};
use super::super::rulebook::{
    BID_PRORATE_PER_RACE, BID_SEASON_ALLOTMENT, BID_TEAM_SEASON_CAP, Die, QUALIFYING_ERROR_ROLLS,
};
use super::lap::LapResult;

/// How ties between equal qualifying results are broken. Minutes (1-1-13) and the real time of
/// 1-3-2 do not exist by mail, so a game picks one of these (issue 4; ruling 24).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum TieBreak {
    /// The lap completed first ranks first (1-3-2, last sentence: "dans l'ordre où ils auront
    /// réalisé cette performance").
    Completion,
    /// A black die per tied car, highest first, re-rolled among cars still tied (ruling 24).
    BlackDie,
}

impl TieBreak {
    /// Parses `completion` or `black-die`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "completion" => Some(TieBreak::Completion),
            "black-die" => Some(TieBreak::BlackDie),
            _ => None,
        }
    }
}

/// One car's qualifying: its lap results, in the order they were completed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Qualified {
    /// Car number.
    pub number: u8,
    /// The best completed lap's absolute time in rolls (fewest; 1-3-2), `None` if every lap was
    /// aborted (1-1-14: classed last).
    pub best: Option<u32>,
    /// When the best performance was completed (0 = first lap of the session), for ties.
    pub completed: u32,
}

/// A car's standing from its laps (ruling 25: over several sessions, the best lap counts).
/// `laps` are `(completion index, result)`.
pub fn best_of(number: u8, laps: &[(u32, LapResult)]) -> Qualified {
    let best = laps.iter().filter_map(|(i, r)| r.total().map(|v| (v, *i))).min();
    let last = laps.iter().map(|(i, _)| *i).max().unwrap_or(0);
    Qualified { number, best: best.map(|b| b.0), completed: best.map_or(last, |b| b.1) }
}

/// The grid from qualifying (1-3-2): fewest rolls first; aborted laps last (1-1-14); ties by
/// `tie` (ruling 24). Aborted cars among themselves are ordered the same way, except under
/// `aborted_by_black_die` (003-2: "they must each throw the black die, with the highest result
/// positioned last on the grid, the next highest next to last": lowest first, ties re-rolled).
pub fn from_qualifying(cars: &[Qualified], tie: TieBreak, aborted_by_black_die: bool, dice: &mut dyn Dice) -> Vec<u8> {
    let mut sorted: Vec<&Qualified> = cars.iter().collect();
    sorted.sort_by_key(|q| (q.best.is_none(), q.best.unwrap_or(u32::MAX), q.completed));
    let mut out = Vec::with_capacity(cars.len());
    let mut i = 0;
    while i < sorted.len() {
        let j = sorted[i..].iter().position(|q| q.best != sorted[i].best).map_or(sorted.len(), |k| i + k);
        let group: Vec<u8> = sorted[i..j].iter().map(|q| q.number).collect();
        match tie {
            _ if sorted[i].best.is_none() && aborted_by_black_die => out.extend(roll_off(&group, true, dice)),
            TieBreak::Completion => out.extend(group),
            TieBreak::BlackDie => out.extend(roll_off(&group, false, dice)),
        }
        i = j;
    }
    out
}

/// The absolute time of a referee's sheet (1-4): rolls, full minutes (1-1-13, at the table
/// only), overshoot penalty rolls and errors at ten rolls each (1-1-11).
pub fn absolute_time(rolls: u32, minutes: u32, overshoot: u32, errors: u32) -> u32 {
    rolls + minutes + overshoot + errors * QUALIFYING_ERROR_ROLLS
}

/// 002 "Normal method": one d20 per car, lowest first, ties re-rolled. A car with a Qualifying
/// Point rolls twice and keeps the better (lower) of the two (ruling 27: by mail the referee
/// chooses the lower for the player). `cars` are `(number, qualifying point)`.
pub fn by_d20(cars: &[(u8, bool)], dice: &mut dyn Dice) -> Vec<u8> {
    let mut rolled: Vec<(u8, u8)> = cars
        .iter()
        .map(|&(n, point)| {
            let a = dice.roll(Die::Black, None, Purpose::Other);
            let v = if point { a.min(dice.roll(Die::Black, None, Purpose::Other)) } else { a };
            (v, n)
        })
        .collect();
    rolled.sort_by_key(|r| r.0);
    let mut out = Vec::with_capacity(cars.len());
    let mut i = 0;
    while i < rolled.len() {
        let j = rolled[i..].iter().position(|r| r.0 != rolled[i].0).map_or(rolled.len(), |k| i + k);
        let group: Vec<u8> = rolled[i..j].iter().map(|r| r.1).collect();
        out.extend(roll_off(&group, true, dice));
        i = j;
    }
    out
}

/// Why a rotating grid cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum RotationError {
    /// No team.
    #[error("a rotating grid needs at least one team")]
    NoTeams,
    /// 002 speaks of one- or two-car teams only.
    #[error("a rotating grid takes teams of 1 or 2 cars, not {0} (002 \"Rotating Grid method\")")]
    TeamSize(usize),
}

/// 002 "Rotating Grid method": the grid slots (1-based, pole = 1) of each team at race `race`
/// (0-based). Teams of two share a pair of slots adding up to 2T+1 (1st and last, 2nd and next
/// to last...); teams of one a slot. Each race every team moves to the next pair (ruling 28:
/// the text fixes the pairs, not the rotation), so over T races each team uses each pair once.
/// Returns, for each team in entry order, its slots (its first car takes the first).
pub fn rotating(teams: usize, cars_per_team: usize, race: usize) -> Result<Vec<Vec<usize>>, RotationError> {
    if teams == 0 {
        return Err(RotationError::NoTeams);
    }
    let slots = cars_per_team * teams;
    (0..teams)
        .map(|i| {
            let k = (i + race) % teams + 1;
            match cars_per_team {
                1 => Ok(vec![k]),
                2 => Ok(vec![k, slots + 1 - k]),
                n => Err(RotationError::TeamSize(n)),
            }
        })
        .collect()
}

/// Why a sealed bid is refused (004 "Qualifying").
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum BidError {
    /// More than the driver has left this season.
    #[error("a bid of {bid} is more than the {left} qualifying points left this season (004)")]
    OverBudget {
        /// The bid.
        bid: u32,
        /// Points left.
        left: u32,
    },
    /// More than the team may still spend this season.
    #[error("a bid of {bid} takes the team over its {cap} points for the season ({left} left, 004)")]
    OverTeamCap {
        /// The bid.
        bid: u32,
        /// The cap.
        cap: u32,
        /// Points the team has left.
        left: u32,
    },
}

/// The season allotment of a driver joining at race `first_race` (1-based): 100 prorated, 90 at
/// the second race, 80 at the third... (004); 0 from the eleventh on (ruling 29: the text gives
/// no season length).
pub fn bid_allotment(first_race: u32) -> u32 {
    BID_SEASON_ALLOTMENT.saturating_sub(first_race.saturating_sub(1) * BID_PRORATE_PER_RACE)
}

/// Checks a driver's bid from the standard allotment (004): within what the driver has left
/// and within the team's 200 points a season. `driver_spent` and `team_spent` are the season's
/// bids so far. Points bought from the Team Design Table are added on top and need no check
/// here (its costs are absent from the text, ruling 29).
pub fn check_bid(bid: u32, first_race: u32, driver_spent: u32, team_spent: u32) -> Result<(), BidError> {
    let left = bid_allotment(first_race).saturating_sub(driver_spent);
    if bid > left {
        return Err(BidError::OverBudget { bid, left });
    }
    let team_left = BID_TEAM_SEASON_CAP.saturating_sub(team_spent);
    if bid > team_left {
        return Err(BidError::OverTeamCap { bid, cap: BID_TEAM_SEASON_CAP, left: team_left });
    }
    Ok(())
}

/// A sealed bid, in the order the cards are revealed.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Bid {
    /// Car number.
    pub number: u8,
    /// Points from the standard allotment plus those bought from the Team Design Table (004).
    pub points: u32,
}

/// The reveal order of `n` sealed cards: 004 shuffles them face down; by mail one black die per
/// card, highest first, ties re-rolled (ruling 29). Returns indices into the cards.
pub fn shuffle(n: usize, dice: &mut dyn Dice) -> Vec<usize> {
    let idx: Vec<usize> = (0..n).collect();
    roll_off(&idx, false, dice)
}

/// 004: bids in reveal order → grid. Higher bids first; an equal bid revealed earlier is "a
/// fraction of a second faster". Late arrivals (after the first card was revealed) start at the
/// back with a zero bid, the tardiest farthest back: `late` lists them in order of arrival.
pub fn from_bids(revealed: &[Bid], late: &[u8]) -> Vec<u8> {
    let mut order: Vec<(usize, &Bid)> = revealed.iter().enumerate().collect();
    order.sort_by_key(|(i, b)| (std::cmp::Reverse(b.points), *i));
    order.into_iter().map(|(_, b)| b.number).chain(late.iter().copied()).collect()
}
