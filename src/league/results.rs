//! Race results read from finished steward games: the store's final state gives the finishing
//! order (21); a replay of the turns gives the round of play each eliminated car went out in
//! (20) and how far it had run, which the classification of cars that did not finish needs
//! (004 "Winning and Scoring"). A race counts once its game is over.

use std::path::Path;

use crate::engine::order::race_distance;
use crate::engine::{CarId, Status};
use crate::store::driver::load_dir;
use crate::store::{Game, StoreError};

use super::classification::{CarOutcome, Placed, classify};
use super::config::{League, LeagueError};
use super::scoring::{Standings, referees, standings};

/// How each car of game `dir` ended, or `None` while the game is not over (or not created).
pub fn outcomes(dir: &Path) -> Result<Option<Vec<CarOutcome>>, StoreError> {
    if !dir.join("turns").is_dir() {
        return Ok(None);
    }
    let g = load_dir(dir, None)?;
    if !g.now.over || g.now.race.is_none() {
        return Ok(None);
    }
    // Replay once more, watching when each car goes out.
    let (mut r, first) = Game::create(g.track.clone(), &g.turns[0], g.seed)?;
    let next = r.now.clone();
    r.push(first, next, g.hashes[0].clone());
    let mut out: Vec<Option<(u32, u64)>> = vec![None; g.now.players.len()];
    for (t, hash) in g.turns[1..].iter().zip(&g.hashes[1..]) {
        let (_, next) = r.apply(t)?;
        if let Some(race) = &next.race {
            // The players' cars: backmarkers come after them (002, ruling 49).
            for (i, c) in race.state.cars.iter().enumerate().take(out.len()) {
                if !matches!(c.status, Status::Eliminated { .. }) {
                    out[i] = None; // racing again after a rollback
                } else if out[i].is_none() {
                    out[i] = Some((race.state.round, race_distance(&race.state, &r.track, CarId(i as u8))));
                }
            }
        }
        // The real hashes: a rollback turn checks the head of the turns it undoes.
        r.push(t.clone(), next, hash.clone());
    }
    let state = &g.now.race.as_ref().expect("checked above").state;
    Ok(Some(
        state
            .cars
            .iter()
            .enumerate()
            .take(g.now.players.len())
            .map(|(i, c)| CarOutcome {
                driver: g.now.players[i].address.clone(),
                finished: match c.status {
                    Status::Finished { place } => Some(place as u32),
                    _ => None,
                },
                out: out[i].filter(|_| matches!(c.status, Status::Eliminated { .. })),
                distance: race_distance(state, &g.track, CarId(i as u8)),
            })
            .collect(),
    ))
}

/// The classified races of the season so far: `(race number, classification)` for every race
/// whose game is over, in season order. Cars driven by addresses that are not league drivers
/// are classified too (they take places), but score for nobody.
pub fn results(games: &Path, league: &League) -> Result<Vec<(usize, Vec<Placed>)>, LeagueError> {
    let mut v = Vec::new();
    for (i, r) in league.races.iter().enumerate() {
        let o = outcomes(&games.join(&r.game)).map_err(|source| LeagueError::Store { game: r.game.clone(), source })?;
        if let Some(cars) = o {
            let mut placed = classify(&cars);
            for p in &mut placed {
                if let Some(d) = league.driver(&p.driver) {
                    p.driver = d.address.clone();
                }
            }
            v.push((i + 1, placed));
        }
    }
    Ok(v)
}

/// The standings after the races run so far.
pub fn league_standings(games: &Path, league: &League) -> Result<Standings, LeagueError> {
    let res = results(games, league)?;
    let races: Vec<Vec<Placed>> = res.into_iter().map(|r| r.1).collect();
    Ok(standings(&league.entrants(), &races, &league.scoring()))
}

/// The referee of race `n` (1-based): the one the moderator named; in a league with marshals,
/// the first driver of the Track Marshal's team (002 "Series Length"); else the top scorer of
/// race `n - 1` still entered (004 "The Race Day"); else the league's moderator.
pub fn referee(games: &Path, league: &League, n: usize) -> Result<String, LeagueError> {
    let race = league.race(n)?;
    if let Some(r) = &race.referee {
        return Ok(r.clone());
    }
    if let Some(team) = league.marshal_team(n) {
        // 002 "Series Length": the Track Marshal, the first driver of the team sitting it out.
        let first = league.drivers.iter().find(|d| d.team.as_deref() == Some(team) && d.entered_for(n as u32));
        return Ok(first.map_or_else(|| league.moderator.clone(), |d| d.address.clone()));
    }
    if n >= 2 {
        let prev = &league.races[n - 2];
        let o = outcomes(&games.join(&prev.game))
            .map_err(|source| LeagueError::Store { game: prev.game.clone(), source })?;
        if let Some(cars) = o {
            let placed = classify(&cars);
            let entered = |a: &str| league.driver(a).is_some_and(|d| d.entered_for(n as u32));
            if let Some(r) = referees(Some(&placed), entered).first() {
                return Ok(r.to_string());
            }
        }
    }
    Ok(league.moderator.clone())
}

/// True once race game `game` is over.
pub fn is_over(games: &Path, game: &str) -> Result<bool, LeagueError> {
    let dir = games.join(game);
    if !dir.join("turns").is_dir() {
        return Ok(false);
    }
    let g = load_dir(&dir, None).map_err(|source| LeagueError::Store { game: game.into(), source })?;
    Ok(g.now.over)
}

/// The 1-based number of the next race to run: the first whose game is not over (a driver
/// entered now joins from it, which prorates the bid allotment, 004).
pub fn next_race(games: &Path, league: &League) -> Result<u32, LeagueError> {
    for (i, r) in league.races.iter().enumerate() {
        if !is_over(games, &r.game)? {
            return Ok(i as u32 + 1);
        }
    }
    Ok(league.races.len() as u32 + 1)
}

/// The driver points `address` holds for race `n` (1-based) of `league` (002 "Finishing
/// Results", ruling 45): the Driver points of the team's design for that race (bought with
/// construction points: available each race, never accumulated) plus the whole points earned
/// in the races already over (½ for a top-three finish, ½ for finishing) and not yet expended.
/// A race's re-rolls spend its bought points first (they are lost at its end anyway), then
/// earned ones. Read from the games: each earlier race's final state and the points its player
/// spent there.
pub fn driver_points_for(games: &Path, league: &League, address: &str, n: usize) -> Result<u32, LeagueError> {
    use super::series::Category;
    let team = league.driver(address).and_then(|d| d.team.clone());
    let bought = |k: usize| -> u32 {
        team.as_deref()
            .and_then(|t| league.design_for(t, k))
            .and_then(|d| d.get(&Category::Driver).copied())
            .unwrap_or(0)
    };
    let (mut halves, mut spent_earned) = (0u32, 0u32);
    for (i, r) in league.races.iter().enumerate().take(n.saturating_sub(1)) {
        let dir = games.join(&r.game);
        if !dir.join("turns").is_dir() {
            continue;
        }
        let g = load_dir(&dir, None).map_err(|source| LeagueError::Store { game: r.game.clone(), source })?;
        let Some(ix) = g.now.players.iter().position(|p| p.address.eq_ignore_ascii_case(address)) else { continue };
        let number = g.now.players[ix].car;
        let spent = u32::from(g.now.spent.get(&number).copied().unwrap_or(0));
        spent_earned += spent.saturating_sub(bought(i + 1));
        if let (true, Some(race)) = (g.now.over, &g.now.race)
            && let Status::Finished { place } = race.state.cars[ix].status
        {
            let placed = Placed {
                driver: address.to_string(),
                place: place as u32,
                ending: super::classification::Ending::Finished,
            };
            halves += super::series::driver_points_halves(&placed);
        }
    }
    Ok(bought(n) + (halves / 2).saturating_sub(spent_earned))
}
