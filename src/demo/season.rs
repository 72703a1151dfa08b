//! `steward league demo`: a whole simulated season by mail. A league of bot drivers in two-car
//! teams races its season on the shipped tracks; every race is a steward game created, joined
//! (in the order of the grid the season's method gives), started and played through the
//! daemon's Maildir, exactly as real mail would be, with the demo's bot `Player`s. After each
//! race the daemon mails the standings to the whole league; the next race is started by its
//! referee (the previous race's top scorer, 004) with the moderator's rights.

use std::path::PathBuf;

use crate::dice::{LabelledDice, sim_key};
use crate::engine::bot::Bot;
use crate::league::config::{BidRecord, GridMethod, League, RaceRecord};
use crate::league::results::{league_standings, referee};
use crate::league::{grid, table};

use crate::demo::{MODERATOR, MODERATOR_TOKEN, Player, STEWARD, daemon_pass, local_daemon, say, send_reply};
use crate::judge::daemon::DaemonError;

/// What season to run.
#[derive(Clone, Debug)]
pub struct SeasonSpec {
    /// Where everything goes (mailboxes, games, the league).
    pub dir: PathBuf,
    /// The league's name.
    pub league: String,
    /// Races.
    pub races: usize,
    /// Drivers (an even number: teams of two).
    pub drivers: u8,
    /// Laps per race.
    pub laps: u16,
    /// Tracks, raced in turn.
    pub tracks: Vec<String>,
    /// Seed of the grid draws (d20) and of nothing else: the races' dice are the games' own.
    pub seed: u64,
}

/// How the season went.
#[derive(Clone, Debug, Default)]
pub struct SeasonResult {
    /// The games, in season order.
    pub games: Vec<String>,
    /// Mails the daemon read.
    pub mails_in: usize,
    /// The final standings table.
    pub table: String,
}

fn err(what: &str, e: impl std::fmt::Display) -> DaemonError {
    DaemonError::Io { what: what.into(), source: std::io::Error::other(e.to_string()) }
}

/// Runs the season to its end.
pub fn run(spec: &SeasonSpec) -> Result<SeasonResult, DaemonError> {
    let games = spec.dir.join("games");
    let (mut daemon, mut inbox, mut via, sender, inbox_dir) = local_daemon(&spec.dir)?;
    let mut n = 0u64;
    let mut mails_in = 0;

    // The league: drivers in teams of two; grid methods in turn.
    let mut league = League::new(&spec.league, MODERATOR).map_err(|e| err("the league", e))?;
    league.season = "demo".into();
    league.scoring.counted = Some((spec.races as u32 * 3).div_ceil(4).max(1));
    let address = |k: u8| format!("driver{k}@demo.invalid");
    for k in 1..=spec.drivers {
        league.enter(&address(k), Some(&format!("Driver {k}")), 1).map_err(|e| err("the league", e))?;
    }
    for t in 0..spec.drivers / 2 {
        let (a, b) = (address(2 * t + 1), address(2 * t + 2));
        league.form_team(&format!("team-{}", t + 1), &[&a, &b], 1).map_err(|e| err("the league", e))?;
    }
    let methods = [GridMethod::Rotating, GridMethod::Bids, GridMethod::D20, GridMethod::Qualifying];
    for r in 0..spec.races {
        let race = RaceRecord {
            game: format!("{}-{:02}", spec.league, r + 1),
            track: spec.tracks[r % spec.tracks.len()].clone(),
            laps: spec.laps,
            grid: methods[r % methods.len()],
            referee: None,
            bids: Vec::new(),
        };
        league.add_race(race).map_err(|e| err("the league", e))?;
    }
    league.save(&games).map_err(|e| err("the league", e))?;

    let mut bot = Bot::new();
    let mut out = SeasonResult::default();
    for r in 1..=spec.races {
        let game = league.races[r - 1].game.clone();
        if league.races[r - 1].grid == GridMethod::Bids {
            // Sealed bids: 8 points each, revealed in an order that turns with the races.
            let k = spec.drivers as usize;
            league.races[r - 1].bids = (0..k)
                .map(|i| BidRecord { driver: address(((i + r) % k) as u8 + 1), points: 8, bought: 0, late: false })
                .collect();
            league.save(&games).map_err(|e| err("the league", e))?;
        }
        let mut dice = LabelledDice::new(sim_key(spec.seed, &spec.league), &format!("grid-{r}"));
        let grid = grid::grid(&league, r, &mut dice).map_err(|e| err("the grid", e))?;
        let track = &league.races[r - 1].track;
        say(
            &inbox_dir,
            MODERATOR,
            &mut n,
            "new race",
            &format!(
                "TOKEN {MODERATOR_TOKEN}\nCREATE {game} TRACK {track} LAPS {} CARS {} GRID {}{}",
                spec.laps,
                spec.drivers,
                // The league's own grids are the join order; `qualifying` is the game's (ruling 31).
                if league.races[r - 1].grid == GridMethod::Qualifying { "qualifying" } else { "join" },
                // After a d20 grid the boxes are chosen from the back of the grid (002, ruling 48).
                if league.races[r - 1].grid == GridMethod::D20 { " PITS REVERSE-GRID" } else { "" }
            ),
        )?;
        daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
        // One join a pass: the game's grid is its join order.
        let mut players = Vec::new();
        for a in &grid {
            let car = league.drivers.iter().position(|d| &d.address == a).expect("a league driver") as u8 + 1;
            let join = format!(
                "JOIN {game} CAR {car} PHRASE {a} races {game}\nSETUP tyres=6 brakes=3 gas=3 body=3 engine=3 handling=2\nBOXES 1 2"
            );
            say(&inbox_dir, a, &mut n, "join", &join)?;
            daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
            // Choices by a standing `POLICY BOT` (the daemon applies it), gears by mail.
            let mut p = Player::new(a, car, &sender.mailbox_of(a), true)?;
            // The address confirms its JOIN with the code mailed to it (issue 45).
            let confirmed = p.confirmed_join(&join)?;
            say(&inbox_dir, a, &mut n, "join", &confirmed)?;
            daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
            players.push(p);
        }
        for p in &mut players {
            p.read_token()?;
            let token = p.token.clone().unwrap_or_default();
            say(
                &inbox_dir,
                &p.address,
                &mut n,
                "policy",
                &format!("GAME {game}\nCAR {}\nTOKEN {token}\nPOLICY BOT", p.car),
            )?;
        }
        // The referee starts the race with their own car's token (004 "The Race Day").
        let referee = referee(&games, &league, r).map_err(|e| err("the referee", e))?;
        match players.iter().find(|p| p.address == referee) {
            Some(p) => {
                let token = p.token.clone().unwrap_or_default();
                say(
                    &inbox_dir,
                    &p.address,
                    &mut n,
                    "start",
                    &format!("GAME {game}\nCAR {}\nTOKEN {token}\nSTART", p.car),
                )?
            }
            None => {
                say(&inbox_dir, MODERATOR, &mut n, "start", &format!("GAME {game}\nTOKEN {MODERATOR_TOKEN}\nSTART"))?
            }
        }
        for _round in 0..200_000 {
            daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
            // The game as the daemon left it: its store keeps the games it replayed, so this is
            // no new replay of the whole race a round (`Store::load` would be).
            let h = daemon.store().open(&game).map_err(|source| DaemonError::Store { game: game.clone(), source })?;
            let g = h.game();
            if g.now.over {
                break;
            }
            if !g.started() {
                return Err(err("the season", format!("race {r} was not started by its referee {referee}")));
            }
            let mut wrote = false;
            for p in &mut players {
                if let Some(r) = p.reply(g, &mut bot, STEWARD)? {
                    send_reply(&inbox_dir, &p.address, &mut n, &r)?;
                    wrote = true;
                }
            }
            if !wrote {
                return Err(err("the season", format!("race {r}: nobody has anything to answer")));
            }
        }
        daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
        out.games.push(game);
    }
    let s = league_standings(&games, &league).map_err(|e| err("the standings", e))?;
    out.table = table::text(&league, &s);
    out.mails_in = mails_in;
    Ok(out)
}
