//! A league race's starting grid by the method the season names for it, on the grid functions
//! of `engine::qualifying::grid`: one d20 per car (002), the rotating grid of the teams (002),
//! sealed bids against each driver's prorated season budget and the team cap (004). Dice are an
//! input; the result lists drivers (addresses), pole first.

use crate::engine::Dice;
use crate::engine::qualifying::grid::{Bid, by_d20, check_bid, from_bids, rotating};

use super::config::{GridMethod, League, LeagueError};

/// The drivers entered for race `n` (1-based), in entry order; in a league with marshals, not
/// those of the Track Marshal's team, which sits the race out (002 "Series Length", ruling 42).
pub fn entered(league: &League, n: usize) -> Vec<String> {
    let marshal = league.marshal_team(n);
    league
        .drivers
        .iter()
        .filter(|d| d.entered_for(n as u32) && (marshal.is_none() || d.team.as_deref() != marshal))
        .map(|d| d.address.clone())
        .collect()
}

/// The grid of race `n` (1-based), pole first. `qualifying` keeps entry order (the game's own
/// qualifying sets the grid).
pub fn grid(league: &League, n: usize, dice: &mut dyn Dice) -> Result<Vec<String>, LeagueError> {
    let race = league.race(n)?;
    let drivers = entered(league, n);
    let err = |why: String| LeagueError::Grid { race: n, why };
    match race.grid {
        GridMethod::Qualifying => Ok(drivers),
        GridMethod::D20 => {
            let cars: Vec<(u8, bool)> = (0..drivers.len()).map(|i| (i as u8 + 1, false)).collect();
            Ok(by_d20(&cars, dice).into_iter().map(|c| drivers[c as usize - 1].clone()).collect())
        }
        GridMethod::Rotating => rotating_grid(league, n, &drivers).map_err(err),
        GridMethod::Bids => bids_grid(league, n, &drivers).map_err(err),
    }
}

/// 002 "Rotating Grid method": teams in the order they were formed, each on its pair of slots
/// for this race (ruling 28).
fn rotating_grid(league: &League, n: usize, drivers: &[String]) -> Result<Vec<String>, String> {
    let mut teams: Vec<Vec<String>> = Vec::new();
    for t in &league.teams {
        let members: Vec<String> = drivers
            .iter()
            .filter(|a| league.driver(a).and_then(|d| d.team.as_deref()) == Some(t.name.as_str()))
            .cloned()
            .collect();
        if !members.is_empty() {
            teams.push(members);
        }
    }
    if let Some(a) = drivers.iter().find(|a| league.driver(a).is_none_or(|d| d.team.is_none())) {
        return Err(format!("a rotating grid rotates teams, and {a} has none: form the teams first (002)"));
    }
    let size = teams.first().map_or(1, Vec::len);
    if teams.iter().any(|t| t.len() != size) {
        return Err("a rotating grid needs teams of equal size this race (002 pairs the slots of two-car teams)".into());
    }
    let slots = rotating(teams.len(), size, n - 1).map_err(|e| e.to_string())?;
    let mut grid = vec![String::new(); drivers.len()];
    for (team, s) in teams.iter().zip(slots) {
        for (d, slot) in team.iter().zip(s) {
            grid[slot - 1] = d.clone();
        }
    }
    Ok(grid)
}

/// Points a driver has bid from the allotment in races before `n` (late bids count zero).
pub fn spent(league: &League, driver: &str, n: usize) -> u32 {
    league.races[..n - 1]
        .iter()
        .filter(|r| r.grid == GridMethod::Bids)
        .flat_map(|r| &r.bids)
        .filter(|b| b.driver.eq_ignore_ascii_case(driver) && !b.late)
        .map(|b| b.points)
        .sum()
}

/// 004 "Qualifying": each bid checked against the driver's prorated allotment and the team's 200
/// points a season, then higher bids first, equal bids in reveal order (the order of
/// `[[race.bid]]`), late arrivals at the back in order of arrival. An entered driver with no
/// bid starts behind the late arrivals (ruling 41).
fn bids_grid(league: &League, n: usize, drivers: &[String]) -> Result<Vec<String>, String> {
    let race = &league.races[n - 1];
    let team_of = |a: &str| league.driver(a).and_then(|d| d.team.clone());
    let mut this_race: Vec<(String, u32)> = Vec::new();
    let mut revealed = Vec::new();
    let mut late = Vec::new();
    for (k, b) in race.bids.iter().enumerate() {
        let Some(i) = drivers.iter().position(|a| a.eq_ignore_ascii_case(&b.driver)) else {
            return Err(format!("{} bid but is not entered for this race", b.driver));
        };
        // 004: "Each driver receives a qualifying card"; "There is one qualifying bid session
        // per race": one card per driver, late or not.
        if race.bids[..k].iter().any(|e| e.driver.eq_ignore_ascii_case(&b.driver)) {
            return Err(format!(
                "{} has a qualifying card for this race already: one qualifying card per race (004 \"Qualifying\")",
                b.driver
            ));
        }
        if b.late {
            late.push(i as u8);
            continue;
        }
        let d = league.driver(&b.driver).expect("entered drivers are league drivers");
        let team_spent: u32 = match team_of(&b.driver) {
            Some(t) => {
                league
                    .drivers
                    .iter()
                    .filter(|e| e.team.as_deref() == Some(t.as_str()))
                    .map(|e| spent(league, &e.address, n))
                    .sum::<u32>()
                    + this_race
                        .iter()
                        .filter(|(a, _)| team_of(a).as_deref() == Some(t.as_str()))
                        .map(|x| x.1)
                        .sum::<u32>()
            }
            None => 0,
        };
        check_bid(b.points, d.joined, spent(league, &b.driver, n), team_spent)
            .map_err(|e| format!("{}: {e}", b.driver))?;
        this_race.push((b.driver.clone(), b.points));
        revealed.push(Bid { number: i as u8, points: b.points + b.bought });
    }
    let mut order = from_bids(&revealed, &late);
    for i in 0..drivers.len() as u8 {
        if !order.contains(&i) {
            order.push(i);
        }
    }
    Ok(order.into_iter().map(|i| drivers[i as usize].clone()).collect())
}
