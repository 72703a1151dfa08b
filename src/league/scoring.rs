//! The championships, as pure functions: a race's classification (finishers, then the cars that
//! dropped out, latest first: 004 "Winning and Scoring"), points by place (10-6-4-3-2-1, 002
//! "Finishing Results", 004), the best N of M results (004 "The Drivers"), tie-breaks by
//! countback (002, 004) and the constructors' title (004 "The Teams": ties shared).
//!
//! No I/O: the results come in as plain data (read from finished games by `league::results`).
//! Rulings 36-42 in docs/rulings.md decide what the seeds leave open.

use std::cmp::Ordering;
use std::collections::BTreeMap;

use serde::Serialize;

use super::classification::{Ending, Placed};

/// The default points scale: 10, 6, 4, 3, 2, 1 for places 1 to 6 (002 "Finishing Results";
/// 004 "Winning and Scoring").
pub const DEFAULT_POINTS: [u32; 6] = [10, 6, 4, 3, 2, 1];

/// How constructors' ties are settled.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TeamTies {
    /// "Ties are not resolved and the title is shared" (004 "The Teams").
    #[default]
    Shared,
    /// Most wins, then most seconds... as for drivers (002 "Finishing Results").
    Countback,
}

/// The scoring options of a season.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scoring {
    /// Points for places 1, 2, ... (default [`DEFAULT_POINTS`]).
    pub points: Vec<u32>,
    /// Best N results count for the drivers (004: 9 of 12); `None`: all count.
    pub counted: Option<u32>,
    /// Cars that did not finish are classified and score when fewer than the scoring places
    /// finish (004); `false`: only finishers score (002 "the first six cars to finish").
    pub dnf_score: bool,
    /// Constructors' ties.
    pub team_ties: TeamTies,
}

impl Default for Scoring {
    fn default() -> Self {
        Scoring { points: DEFAULT_POINTS.to_vec(), counted: None, dnf_score: true, team_ties: TeamTies::Shared }
    }
}

impl Scoring {
    /// Points for a classified place.
    pub fn points_for(&self, p: &Placed) -> u32 {
        if !self.dnf_score && p.ending != Ending::Finished {
            return 0;
        }
        self.points.get(p.place as usize - 1).copied().unwrap_or(0)
    }
}

/// A driver of the season, as scoring needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entrant {
    /// Mail address (the key).
    pub driver: String,
    /// Display name.
    pub name: String,
    /// Team, and the race (1-based) from which the driver's points count for it.
    pub team: Option<(String, u32)>,
}

/// One driver's season.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DriverStanding {
    /// 1-based rank; equal ranks are shared.
    pub rank: u32,
    /// Address.
    pub driver: String,
    /// Display name.
    pub name: String,
    /// Team, if any.
    pub team: Option<String>,
    /// Points that count (best N).
    pub points: u32,
    /// Points scored in every race, counted or not.
    pub gross: u32,
    /// Per race run (in order): place (`None` = did not start) and points.
    pub races: Vec<(Option<u32>, u32)>,
    /// Indices of the races dropped (004 "worst three finishes").
    pub dropped: Vec<usize>,
    /// Times at each place: `places[0]` wins, `places[1]` seconds...
    pub places: Vec<u32>,
    /// 002 driver points earned so far, in halves (`series::driver_points_halves`).
    pub driver_points_halves: u32,
}

/// One team's season.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TeamStanding {
    /// 1-based rank; equal ranks are shared (004).
    pub rank: u32,
    /// Team name.
    pub team: String,
    /// Points of all its drivers in every race (004: "all points accumulated by the team and
    /// substitute drivers").
    pub points: u32,
    /// Places of its cars: wins, seconds...
    pub places: Vec<u32>,
}

/// Both championships after the races run so far.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Standings {
    /// Races run (classified).
    pub races_run: usize,
    /// Drivers, best first.
    pub drivers: Vec<DriverStanding>,
    /// Teams, best first.
    pub teams: Vec<TeamStanding>,
}

/// Countback (002, 004): more wins first, then more seconds, and so on.
fn countback(a: &[u32], b: &[u32]) -> Ordering {
    let n = a.len().max(b.len());
    for i in 0..n {
        let (x, y) = (a.get(i).copied().unwrap_or(0), b.get(i).copied().unwrap_or(0));
        if x != y {
            return y.cmp(&x);
        }
    }
    Ordering::Equal
}

/// The races to drop (ruling 38): the worst `run - counted` results by points, a non-start
/// counting as a result of 0 (004 "which may include non-participating races"); among equal
/// results the earliest race is dropped first.
fn dropped(points: &[u32], counted: Option<u32>) -> Vec<usize> {
    let Some(n) = counted else { return Vec::new() };
    let drop = points.len().saturating_sub(n as usize);
    let mut idx: Vec<usize> = (0..points.len()).collect();
    idx.sort_by_key(|&i| (points[i], i));
    let mut d: Vec<usize> = idx.into_iter().take(drop).collect();
    d.sort_unstable();
    d
}

/// Gives shared ranks: equal under `same` keeps the rank of the first of the group.
fn ranks<T>(v: &[T], same: impl Fn(&T, &T) -> bool) -> Vec<u32> {
    let mut out = Vec::with_capacity(v.len());
    for i in 0..v.len() {
        let r = if i > 0 && same(&v[i - 1], &v[i]) { out[i - 1] } else { i as u32 + 1 };
        out.push(r);
    }
    out
}

/// Both championships from the classifications of the races run, in order.
pub fn standings(entrants: &[Entrant], races: &[Vec<Placed>], scoring: &Scoring) -> Standings {
    let mut drivers: Vec<DriverStanding> = entrants
        .iter()
        .map(|e| {
            let mut places = Vec::new();
            let per: Vec<(Option<u32>, u32)> = races
                .iter()
                .map(|r| match r.iter().find(|p| p.driver == e.driver) {
                    Some(p) => {
                        let k = p.place as usize;
                        if places.len() < k {
                            places.resize(k, 0);
                        }
                        places[k - 1] += 1;
                        (Some(p.place), scoring.points_for(p))
                    }
                    None => (None, 0),
                })
                .collect();
            let pts: Vec<u32> = per.iter().map(|r| r.1).collect();
            let dropped = dropped(&pts, scoring.counted);
            let gross: u32 = pts.iter().sum();
            let points = gross - dropped.iter().map(|&i| pts[i]).sum::<u32>();
            DriverStanding {
                rank: 0,
                driver: e.driver.clone(),
                name: e.name.clone(),
                team: e.team.as_ref().map(|t| t.0.clone()),
                points,
                gross,
                races: per,
                dropped,
                places,
                driver_points_halves: super::series::earned(&e.driver, races),
            }
        })
        .collect();
    // Most points, then countback (ruling 39: over every race, dropped ones too); still equal:
    // shared rank, listed by name.
    drivers.sort_by(|a, b| {
        b.points.cmp(&a.points).then_with(|| countback(&a.places, &b.places)).then_with(|| a.name.cmp(&b.name))
    });
    let r = ranks(&drivers, |a, b| a.points == b.points && countback(&a.places, &b.places) == Ordering::Equal);
    for (d, r) in drivers.iter_mut().zip(r) {
        d.rank = r;
    }

    let mut teams: BTreeMap<String, TeamStanding> = BTreeMap::new();
    for e in entrants {
        let Some((team, from)) = &e.team else { continue };
        let t = teams.entry(team.clone()).or_insert_with(|| TeamStanding {
            rank: 0,
            team: team.clone(),
            points: 0,
            places: Vec::new(),
        });
        for (i, race) in races.iter().enumerate() {
            if (i as u32) + 1 < *from {
                continue;
            }
            if let Some(p) = race.iter().find(|p| p.driver == e.driver) {
                t.points += scoring.points_for(p);
                let k = p.place as usize;
                if t.places.len() < k {
                    t.places.resize(k, 0);
                }
                t.places[k - 1] += 1;
            }
        }
    }
    let mut teams: Vec<TeamStanding> = teams.into_values().collect();
    let ties = scoring.team_ties;
    let cmp = |a: &TeamStanding, b: &TeamStanding| match ties {
        TeamTies::Shared => b.points.cmp(&a.points),
        TeamTies::Countback => b.points.cmp(&a.points).then_with(|| countback(&a.places, &b.places)),
    };
    teams.sort_by(|a, b| cmp(a, b).then_with(|| a.team.cmp(&b.team)));
    let r = ranks(&teams, |a, b| cmp(a, b) == Ordering::Equal);
    for (t, r) in teams.iter_mut().zip(r) {
        t.rank = r;
    }
    Standings { races_run: races.len(), drivers, teams }
}

/// The referee of race `n` (1-based; FORS "the steward for each event is the driver from the
/// previous race with the highest score", the pit steward the second): the classified drivers of
/// race `n - 1` in order, skipping those no longer `entered`. `None` for the first race.
pub fn referees(previous: Option<&[Placed]>, entered: impl Fn(&str) -> bool) -> Vec<&str> {
    previous.map_or_else(Vec::new, |r| r.iter().map(|p| p.driver.as_str()).filter(|d| entered(d)).take(2).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_the_worst_results_earliest_first() {
        assert_eq!(dropped(&[10, 0, 6, 0, 3], Some(3)), vec![1, 3]);
        assert_eq!(dropped(&[10, 0], Some(3)), Vec::<usize>::new());
    }
}
