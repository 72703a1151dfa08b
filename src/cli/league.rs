//! The league commands of the command line (`steward league ...`): clap arguments turned into
//! calls on `league`. No scoring logic lives here; like `cli.rs`, this is where `anyhow` may be
//! used.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Subcommand;

use crate::dice::LabelledDice;
use crate::league::config::{BidRecord, GridMethod, League, RaceRecord};
use crate::league::{grid, results, table};
use crate::store::driver::{games_dir, os_random};
use crate::store::hash::{hex32, parse_hex32};

/// `steward league ...`.
#[derive(Debug, Subcommand)]
pub enum LeagueCommand {
    /// Create a league (`games/<league>/league.toml`).
    Create {
        /// The league's name.
        league: String,
        /// The moderator's address (referee of the first race).
        #[arg(long)]
        moderator: String,
        /// The season's label.
        #[arg(long, default_value = "")]
        season: String,
        /// Best N results count for the drivers (004: 9 of 12).
        #[arg(long)]
        counted: Option<u32>,
        /// 002 Track Marshals: each race a team in turn sits out, its first driver referees.
        #[arg(long)]
        marshals: bool,
        /// The games directory (default `$STEWARD_GAMES`, else `./games`).
        #[arg(long, value_name = "DIR")]
        games: Option<PathBuf>,
    },
    /// Add a race (a steward game) at the end of the season.
    AddRace {
        /// The league.
        league: String,
        /// The race's game name.
        game: String,
        /// The track.
        #[arg(long)]
        track: String,
        /// Laps.
        #[arg(long, default_value_t = 3)]
        laps: u16,
        /// Grid: qualifying, d20, rotating or bids.
        #[arg(long, default_value = "qualifying")]
        grid: String,
        /// The referee (default: the previous race's top scorer, 004).
        #[arg(long)]
        referee: Option<String>,
        /// The games directory.
        #[arg(long, value_name = "DIR")]
        games: Option<PathBuf>,
    },
    /// Enter a driver (from the next race to run).
    Enter {
        /// The league.
        league: String,
        /// The driver's mail address.
        address: String,
        /// Display name.
        #[arg(long)]
        name: Option<String>,
        /// The games directory.
        #[arg(long, value_name = "DIR")]
        games: Option<PathBuf>,
    },
    /// Withdraw a driver from the next race to run on (their results stay).
    Withdraw {
        /// The league.
        league: String,
        /// The driver's mail address.
        address: String,
        /// The games directory.
        #[arg(long, value_name = "DIR")]
        games: Option<PathBuf>,
    },
    /// Form a team (or add a driver to it): one or two drivers (004).
    Team {
        /// The league.
        league: String,
        /// The team's name.
        team: String,
        /// Its drivers' addresses.
        #[arg(required = true)]
        drivers: Vec<String>,
        /// The games directory.
        #[arg(long, value_name = "DIR")]
        games: Option<PathBuf>,
    },
    /// Record a sealed qualifying bid (004), in reveal order.
    Bid {
        /// The league.
        league: String,
        /// The race (1-based).
        race: usize,
        /// The driver's address.
        driver: String,
        /// Points from the season allotment.
        points: u32,
        /// Points bought from the Team Design Table (this race only).
        #[arg(long, default_value_t = 0)]
        bought: u32,
        /// Arrived after the first card was revealed: starts at the back (004).
        #[arg(long)]
        late: bool,
        /// The games directory.
        #[arg(long, value_name = "DIR")]
        games: Option<PathBuf>,
    },
    /// Print the grid of race N by its method (pole first).
    Grid {
        /// The league.
        league: String,
        /// The race (1-based).
        race: usize,
        /// For a d20 grid: the 64-hex-digit seed of the rolls (default: a fresh one, printed).
        #[arg(long)]
        seed: Option<String>,
        /// The games directory.
        #[arg(long, value_name = "DIR")]
        games: Option<PathBuf>,
    },
    /// A simulated season by mail: bot drivers in teams of two race every shipped track in turn
    /// through the daemon's Maildir; prints the final standings.
    Demo {
        /// Where everything goes (mailboxes, games, the league).
        #[arg(long, default_value = "league-demo")]
        dir: PathBuf,
        /// Races.
        #[arg(long, default_value_t = 12)]
        races: usize,
        /// Drivers (even: teams of two).
        #[arg(long, default_value_t = 4)]
        drivers: u8,
        /// Laps per race.
        #[arg(long, default_value_t = 1)]
        laps: u16,
        /// Seed of the d20 grid draws.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Print the drivers' and constructors' standings.
    Standings {
        /// The league.
        league: String,
        /// Print JSON instead of the table.
        #[arg(long)]
        json: bool,
        /// The games directory.
        #[arg(long, value_name = "DIR")]
        games: Option<PathBuf>,
    },
}

/// Runs a league command.
pub fn run(cmd: LeagueCommand) -> Result<ExitCode> {
    match cmd {
        LeagueCommand::Create { league, moderator, season, counted, marshals, games } => {
            let dir = games_dir(games);
            if crate::league::config::league_path(&dir, &league).exists() {
                bail!("there is already a league `{league}`");
            }
            let mut l = League::new(&league, &moderator)?;
            l.season = season;
            l.scoring.counted = counted;
            l.marshals = marshals;
            l.save(&dir)?;
            outln!("created league {league} in {}", dir.join(&league).display());
        }
        LeagueCommand::AddRace { league, game, track, laps, grid, referee, games } => {
            let dir = games_dir(games);
            let mut l = League::load(&dir, &league)?;
            let grid = GridMethod::parse(&grid)
                .with_context(|| format!("unknown grid `{grid}`: qualifying, d20, rotating or bids"))?;
            l.add_race(RaceRecord { game: game.clone(), track, laps, grid, referee, bids: Vec::new() })?;
            l.save(&dir)?;
            outln!("race {} of {league}: {game}", l.races.len());
        }
        LeagueCommand::Enter { league, address, name, games } => {
            let dir = games_dir(games);
            let mut l = League::load(&dir, &league)?;
            let from = results::next_race(&dir, &l)?;
            l.enter(&address, name.as_deref(), from)?;
            l.save(&dir)?;
            outln!("{address} entered in {league} from race {from}");
        }
        LeagueCommand::Withdraw { league, address, games } => {
            let dir = games_dir(games);
            let mut l = League::load(&dir, &league)?;
            let from = results::next_race(&dir, &l)?;
            l.withdraw(&address, from)?;
            l.save(&dir)?;
            outln!("{address} withdrawn from {league} from race {from}");
        }
        LeagueCommand::Team { league, team, drivers, games } => {
            let dir = games_dir(games);
            let mut l = League::load(&dir, &league)?;
            let from = results::next_race(&dir, &l)?;
            let refs: Vec<&str> = drivers.iter().map(String::as_str).collect();
            l.form_team(&team, &refs, from)?;
            l.save(&dir)?;
            outln!("team {team}: {}", drivers.join(", "));
        }
        LeagueCommand::Bid { league, race, driver, points, bought, late, games } => {
            let dir = games_dir(games);
            let mut l = League::load(&dir, &league)?;
            l.race(race)?;
            l.races[race - 1].bids.push(BidRecord { driver, points, bought, late });
            // The bid is checked against the budgets before it is kept.
            grid::grid(&l, race, &mut crate::engine::FixedDice::new(Vec::new()))?;
            l.save(&dir)?;
            outln!("bid recorded");
        }
        LeagueCommand::Grid { league, race, seed, games } => {
            let dir = games_dir(games);
            let l = League::load(&dir, &league)?;
            let key = match seed {
                Some(s) => parse_hex32(&s).with_context(|| format!("--seed `{s}` is not 64 hex digits"))?,
                None => os_random()?,
            };
            let mut dice = LabelledDice::new(key, &format!("league-{league}-race-{race}"));
            let g = grid::grid(&l, race, &mut dice)?;
            for (i, d) in g.iter().enumerate() {
                outln!("{:>3}  {d}", i + 1);
            }
            if l.race(race)?.grid == GridMethod::D20 {
                outln!("d20 seed (rolls re-derivable with --seed): {}", hex32(&key));
            }
        }
        LeagueCommand::Demo { dir, races, drivers, laps, seed } => {
            if drivers < 2 || drivers % 2 == 1 {
                bail!("--drivers must be even (teams of two), not {drivers}");
            }
            let spec = crate::demo::season::SeasonSpec {
                dir: dir.clone(),
                league: "demo-league".into(),
                races,
                drivers,
                laps,
                tracks: crate::track::load::shipped_names(),
                seed,
            };
            let r = crate::demo::season::run(&spec)?;
            out!("{}", r.table);
            outln!();
            outln!("{} races, {} mails read; games in {}", r.games.len(), r.mails_in, dir.join("games").display());
            outln!(
                "check every race: {} verify --games {} <game>",
                super::program::self_command(),
                dir.join("games").display()
            );
        }
        LeagueCommand::Standings { league, json, games } => {
            let dir = games_dir(games);
            let l = League::load(&dir, &league)?;
            let s = results::league_standings(&dir, &l)?;
            if json {
                outln!("{}", table::json(&s));
            } else {
                out!("{}", table::text(&l, &s));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
