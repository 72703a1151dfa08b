//! `games/<league>/league.toml`: a season's races, drivers, teams and scoring options, with the
//! moderator's edits (add a race, enter or withdraw a driver, form a team) as checked methods.
//! The file is the league's only state; race results are read from the games themselves.
//! Format: docs/leagues.md.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::store::fsio::{Durability, write_atomic};
use crate::store::game::valid_id;

use super::scoring::{DEFAULT_POINTS, Entrant, Scoring, TeamTies};
use super::series::{Category, check_design, convert_for_two_laps};

/// Version tag of the league file.
pub const FORMAT: &str = "steward-league-1";

/// Most drivers entered on a team at once (004 "There can be one or two drivers on a team"; 002 speaks of one-
/// and two-car teams).
pub const TEAM_SIZE: usize = 2;

/// Why a league file or a league edit is refused. A refused edit writes nothing.
#[derive(Debug, Error)]
pub enum LeagueError {
    /// The name cannot be a directory name.
    #[error(
        "`{0}` is not a valid league or game name: use 1 to 64 lowercase letters, digits, `-`, `_` or `.`, starting with a letter or digit"
    )]
    BadName(String),
    /// No league file.
    #[error("there is no league `{name}`: {path} does not exist (create it with `steward league create {name}`)")]
    NoLeague {
        /// League name.
        name: String,
        /// The file looked for.
        path: PathBuf,
    },
    /// Creating a league that exists.
    #[error("there is already a league `{0}`")]
    Exists(String),
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The system's error.
        #[source]
        source: std::io::Error,
    },
    /// The file does not parse or is inconsistent.
    #[error("{path}: {why}")]
    Bad {
        /// The file.
        path: PathBuf,
        /// What is wrong, and where.
        why: String,
    },
    /// A race's game is already in the season.
    #[error("game `{0}` is already a race of this season")]
    DuplicateRace(String),
    /// A driver is already entered.
    #[error("{0} is already entered in this league")]
    DuplicateDriver(String),
    /// No such driver.
    #[error("{0} is not a driver of this league: enter them first (`ENTER address`)")]
    UnknownDriver(String),
    /// No such team.
    #[error("there is no team `{0}`: form it first (`TEAM name address [address]`)")]
    UnknownTeam(String),
    /// Too many drivers for a team.
    #[error("team `{team}` would have {n} drivers; a team has one or two (004 \"The Teams\")")]
    TeamSize {
        /// Team.
        team: String,
        /// Drivers it would have.
        n: usize,
    },
    /// FORS: "Team owners cannot leave their team during the season".
    #[error("{driver} already drives for `{team}` and cannot change team during the season (004 \"The Teams\")")]
    TeamChange {
        /// Driver.
        driver: String,
        /// Their team.
        team: String,
    },
    /// A race number out of range.
    #[error("there is no race {n}: the season has {races} races")]
    NoRace {
        /// Asked for.
        n: usize,
        /// Races in the season.
        races: usize,
    },
    /// A race's game could not be read.
    #[error("race game `{game}`: {source}")]
    Store {
        /// The game.
        game: String,
        /// The store's error.
        #[source]
        source: crate::store::StoreError,
    },
    /// A grid cannot be built.
    #[error("race {race}: {why}")]
    Grid {
        /// Race (1-based).
        race: usize,
        /// Why.
        why: String,
    },
}

/// How a race's grid is set.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GridMethod {
    /// Timed laps by email (1); the game sets its own grid.
    #[default]
    Qualifying,
    /// One d20 per car, lowest first, ties re-rolled (002 "Normal method").
    D20,
    /// Pairs of slots rotated between teams over the season (002 "Rotating Grid method").
    Rotating,
    /// Sealed bids from a season budget (004 "Qualifying").
    Bids,
}

impl GridMethod {
    /// Parses `qualifying`, `d20`, `rotating` or `bids`.
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "qualifying" => Some(GridMethod::Qualifying),
            "d20" => Some(GridMethod::D20),
            "rotating" => Some(GridMethod::Rotating),
            "bids" => Some(GridMethod::Bids),
            _ => None,
        }
    }

    /// Name in files.
    pub fn name(self) -> &'static str {
        match self {
            GridMethod::Qualifying => "qualifying",
            GridMethod::D20 => "d20",
            GridMethod::Rotating => "rotating",
            GridMethod::Bids => "bids",
        }
    }
}

/// A sealed qualifying bid (004), in reveal order.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BidRecord {
    /// Driver's address.
    pub driver: String,
    /// Points from the season allotment.
    pub points: u32,
    /// Points bought from the Team Design Table, used in this race only (004; ruling 29).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub bought: u32,
    /// Arrived after the first card was revealed: starts at the back, bids zero (004 "Late
    /// Arrivals"); late bids are listed in order of arrival.
    #[serde(default, skip_serializing_if = "is_false")]
    pub late: bool,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// One race of the season: a steward game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RaceRecord {
    /// The game's name (its directory beside the league's).
    pub game: String,
    /// The track.
    pub track: String,
    /// Laps (002 "Race Duration": two or three).
    pub laps: u16,
    /// How the grid is set.
    #[serde(default)]
    pub grid: GridMethod,
    /// The referee, when the moderator names one; otherwise the previous race's top scorer
    /// (004 "The Race Day"), and the league's moderator for the first race.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub referee: Option<String>,
    /// The sealed bids (grid = "bids"), in reveal order.
    #[serde(default, rename = "bid", skip_serializing_if = "Vec::is_empty")]
    pub bids: Vec<BidRecord>,
}

/// A driver of the league.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriverRecord {
    /// Mail address: the driver's identity in games and in mail.
    pub address: String,
    /// Display name (default: the address).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Team, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
    /// The race (1-based) from which the driver's points count for the team (ruling 40).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub team_from: u32,
    /// The first race (1-based) the driver was entered for: prorates the bid allotment (004).
    #[serde(default = "one", skip_serializing_if = "is_one")]
    pub joined: u32,
    /// The race (1-based) from which the driver no longer races, once withdrawn; results so far
    /// stay in the standings.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawn: Option<u32>,
}

fn one() -> u32 {
    1
}

fn is_one(n: &u32) -> bool {
    *n == 1
}

impl DriverRecord {
    /// True when the driver is entered for race `n` (1-based).
    pub fn entered_for(&self, n: u32) -> bool {
        self.joined <= n && self.withdrawn.is_none_or(|w| n < w)
    }
}

/// A team (constructor).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TeamRecord {
    /// Its name.
    pub name: String,
    /// The 002 car design (construction points by category), fixed for the season: 24 points
    /// in a series with three-lap races, 20 with two-lap races only (002 "Car Construction").
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub design: BTreeMap<Category, u32>,
    /// The four categories a three-lap car gives a point of before each two-lap race (002 "Race
    /// Preparation"; ruling 43: declared once for the season).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub two_lap: Vec<Category>,
}

/// Scoring options (docs/leagues.md).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScoringRecord {
    /// Points for places 1, 2, ...
    #[serde(default = "default_points")]
    pub points: Vec<u32>,
    /// Best N results count for the drivers (004: 9 of 12); absent: all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub counted: Option<u32>,
    /// Cars that did not finish are classified and score (004).
    #[serde(default = "yes")]
    pub dnf_score: bool,
    /// Constructors' ties: `shared` (004) or `countback` (002).
    #[serde(default)]
    pub team_ties: TeamTies,
}

fn default_points() -> Vec<u32> {
    DEFAULT_POINTS.to_vec()
}

fn yes() -> bool {
    true
}

impl Default for ScoringRecord {
    fn default() -> Self {
        ScoringRecord { points: default_points(), counted: None, dnf_score: true, team_ties: TeamTies::Shared }
    }
}

/// `league.toml`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct League {
    /// [`FORMAT`].
    pub format: String,
    /// The league's name (its directory).
    pub name: String,
    /// The season's label (e.g. `2026`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub season: String,
    /// The league's moderator: referee of the first race, and of any race whose referee cannot
    /// be found.
    pub moderator: String,
    /// 002 "Series Length": each race has a Track Marshal, a team in turn, whose drivers sit
    /// it out; its first driver is the race's referee (ruling 42). Absent: the FORS referee.
    #[serde(default, skip_serializing_if = "is_false")]
    pub marshals: bool,
    /// The most absences (`ABSENT` by mail) a driver may declare in the season; absent: no cap.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_absences: Option<u32>,
    /// Scoring.
    #[serde(default)]
    pub scoring: ScoringRecord,
    /// Teams.
    #[serde(default, rename = "team", skip_serializing_if = "Vec::is_empty")]
    pub teams: Vec<TeamRecord>,
    /// Drivers, in entry order.
    #[serde(default, rename = "driver", skip_serializing_if = "Vec::is_empty")]
    pub drivers: Vec<DriverRecord>,
    /// Races, in season order.
    #[serde(default, rename = "race", skip_serializing_if = "Vec::is_empty")]
    pub races: Vec<RaceRecord>,
}

/// The path of league `name`'s file under the games directory.
pub fn league_path(games: &Path, name: &str) -> PathBuf {
    games.join(name).join("league.toml")
}

impl League {
    /// A new, empty league.
    pub fn new(name: &str, moderator: &str) -> Result<League, LeagueError> {
        if !valid_id(name) {
            return Err(LeagueError::BadName(name.into()));
        }
        Ok(League {
            format: FORMAT.into(),
            name: name.into(),
            season: String::new(),
            moderator: moderator.into(),
            marshals: false,
            scoring: ScoringRecord::default(),
            teams: Vec::new(),
            drivers: Vec::new(),
            races: Vec::new(),
            max_absences: None,
        })
    }

    /// Parses and checks a league file's text.
    pub fn parse(text: &str, path: &Path) -> Result<League, LeagueError> {
        let l: League = toml::from_str(text).map_err(|e| LeagueError::Bad { path: path.into(), why: e.to_string() })?;
        l.check().map_err(|why| LeagueError::Bad { path: path.into(), why })?;
        Ok(l)
    }

    /// Reads league `name` from the games directory.
    pub fn load(games: &Path, name: &str) -> Result<League, LeagueError> {
        if !valid_id(name) {
            return Err(LeagueError::BadName(name.into()));
        }
        let path = league_path(games, name);
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(LeagueError::NoLeague { name: name.into(), path });
            }
            Err(source) => return Err(LeagueError::Io { path, source }),
        };
        League::parse(&text, &path)
    }

    /// Writes the file atomically (through the store's `fsio`, the one writer under `games/`).
    pub fn save(&self, games: &Path) -> Result<(), LeagueError> {
        let path = league_path(games, &self.name);
        let dir = games.join(&self.name);
        std::fs::create_dir_all(&dir).map_err(|source| LeagueError::Io { path: dir, source })?;
        let text = toml::to_string(self).map_err(|e| LeagueError::Bad { path: path.clone(), why: e.to_string() })?;
        write_atomic(&path, text.as_bytes(), Durability::Sync, false).map_err(|source| LeagueError::Io { path, source })
    }

    /// The consistency rules a hand-edited file must keep; the message says where.
    pub fn check(&self) -> Result<(), String> {
        if self.format != FORMAT {
            return Err(format!("format is `{}`, expected `{FORMAT}`", self.format));
        }
        if !valid_id(&self.name) {
            return Err(format!("name `{}` is not a valid league name", self.name));
        }
        if self.scoring.points.is_empty() {
            return Err(
                "[scoring] points is empty: give the points of each scoring place, e.g. [10, 6, 4, 3, 2, 1]".into()
            );
        }
        if self.scoring.counted == Some(0) {
            return Err("[scoring] counted = 0 would count no result: leave it out to count them all".into());
        }
        for (i, t) in self.teams.iter().enumerate() {
            if self.teams[..i].iter().any(|u| u.name == t.name) {
                return Err(format!("team `{}` appears twice", t.name));
            }
            let n = self.drivers.iter().filter(|d| d.team.as_deref() == Some(&t.name) && d.withdrawn.is_none()).count();
            if n > TEAM_SIZE {
                return Err(format!("team `{}` has {n} drivers; a team has one or two (004 \"The Teams\")", t.name));
            }
        }
        for t in &self.teams {
            self.design_check(t).map_err(|why| format!("team `{}`: {why}", t.name))?;
        }
        for (i, d) in self.drivers.iter().enumerate() {
            if self.drivers[..i].iter().any(|e| e.address.eq_ignore_ascii_case(&d.address)) {
                return Err(format!("driver {} appears twice", d.address));
            }
            if let Some(t) = &d.team
                && !self.teams.iter().any(|u| &u.name == t)
            {
                return Err(format!("driver {} drives for `{t}`, which is not a [[team]]", d.address));
            }
        }
        for (i, r) in self.races.iter().enumerate() {
            if !valid_id(&r.game) {
                return Err(format!("race {}: `{}` is not a valid game name", i + 1, r.game));
            }
            if self.races[..i].iter().any(|q| q.game == r.game) {
                return Err(format!("race {}: game `{}` appears twice", i + 1, r.game));
            }
            for b in &r.bids {
                if self.driver(&b.driver).is_none() {
                    return Err(format!("race {}: a bid from {}, who is not a [[driver]]", i + 1, b.driver));
                }
            }
        }
        Ok(())
    }

    /// The race length a series' designs are built for (002): its longest race (three laps if
    /// any race has three, else two); `None` without races.
    pub fn series_laps(&self) -> Option<u16> {
        self.races.iter().map(|r| r.laps).max()
    }

    fn design_check(&self, t: &TeamRecord) -> Result<(), String> {
        if t.design.is_empty() {
            return Ok(());
        }
        let Some(laps) = self.series_laps() else { return Ok(()) };
        check_design(&t.design, laps).map_err(|e| e.to_string())?;
        if laps == 3 && self.races.iter().any(|r| r.laps == 2) {
            convert_for_two_laps(&t.design, &t.two_lap).map_err(|e| format!("two_lap: {e}"))?;
        }
        Ok(())
    }

    /// Team `team`'s 002 car for race `n` (1-based): its design, less the two-lap conversion
    /// in a two-lap race of a three-lap series. `None` without a design.
    pub fn design_for(&self, team: &str, n: usize) -> Option<BTreeMap<Category, u32>> {
        let t = self.teams.iter().find(|t| t.name == team)?;
        if t.design.is_empty() {
            return None;
        }
        let race = self.races.get(n.checked_sub(1)?)?;
        if race.laps == 2 && self.series_laps() == Some(3) {
            return convert_for_two_laps(&t.design, &t.two_lap).ok();
        }
        Some(t.design.clone())
    }

    /// The driver of `address` (case-insensitive).
    pub fn driver(&self, address: &str) -> Option<&DriverRecord> {
        self.drivers.iter().find(|d| d.address.eq_ignore_ascii_case(address))
    }

    fn driver_mut(&mut self, address: &str) -> Result<&mut DriverRecord, LeagueError> {
        self.drivers
            .iter_mut()
            .find(|d| d.address.eq_ignore_ascii_case(address))
            .ok_or_else(|| LeagueError::UnknownDriver(address.into()))
    }

    /// The scoring options.
    pub fn scoring(&self) -> Scoring {
        Scoring {
            points: self.scoring.points.clone(),
            counted: self.scoring.counted,
            dnf_score: self.scoring.dnf_score,
            team_ties: self.scoring.team_ties,
        }
    }

    /// The drivers as scoring sees them.
    pub fn entrants(&self) -> Vec<Entrant> {
        self.drivers
            .iter()
            .enumerate()
            .map(|(i, d)| Entrant {
                driver: d.address.clone(),
                name: crate::words::names::public_name(d.name.as_deref(), || format!("driver {}", i + 1)),
                team: d.team.clone().map(|t| (t, d.team_from)),
            })
            .collect()
    }

    /// Adds a race at the end of the season.
    pub fn add_race(&mut self, race: RaceRecord) -> Result<(), LeagueError> {
        if !valid_id(&race.game) {
            return Err(LeagueError::BadName(race.game));
        }
        if self.races.iter().any(|r| r.game == race.game) {
            return Err(LeagueError::DuplicateRace(race.game));
        }
        self.races.push(race);
        Ok(())
    }

    /// Enters a driver from race `joined` (1-based; prorates the bid allotment, 004).
    pub fn enter(&mut self, address: &str, name: Option<&str>, joined: u32) -> Result<(), LeagueError> {
        if let Some(d) = self.drivers.iter_mut().find(|d| d.address.eq_ignore_ascii_case(address)) {
            // A withdrawn driver may come back (ruling 40): the earlier results stay.
            if d.withdrawn.is_some() {
                d.withdrawn = None;
                return Ok(());
            }
            return Err(LeagueError::DuplicateDriver(address.into()));
        }
        self.drivers.push(DriverRecord {
            address: address.into(),
            name: name.map(str::to_string),
            team: None,
            team_from: 1,
            joined: joined.max(1),
            withdrawn: None,
        });
        Ok(())
    }

    /// Withdraws a driver from race `from` on; their results so far stay.
    pub fn withdraw(&mut self, address: &str, from: u32) -> Result<(), LeagueError> {
        let d = self.driver_mut(address)?;
        d.withdrawn = Some(from.max(1));
        Ok(())
    }

    /// Forms team `name` (or adds drivers to it) with `drivers`, whose points count for it from
    /// race `from` (ruling 40). A driver cannot leave a team (004 "The Teams").
    pub fn form_team(&mut self, name: &str, drivers: &[&str], from: u32) -> Result<(), LeagueError> {
        for a in drivers {
            let d = self.driver(a).ok_or_else(|| LeagueError::UnknownDriver(a.to_string()))?;
            if let Some(t) = &d.team
                && t != name
            {
                return Err(LeagueError::TeamChange { driver: d.address.clone(), team: t.clone() });
            }
        }
        // A withdrawn driver's seat can go to a substitute (004 counts substitutes' points).
        let already = self.drivers.iter().filter(|d| d.team.as_deref() == Some(name) && d.withdrawn.is_none()).count();
        let new = drivers.iter().filter(|a| self.driver(a).is_some_and(|d| d.team.is_none())).count();
        if already + new > TEAM_SIZE {
            return Err(LeagueError::TeamSize { team: name.into(), n: already + new });
        }
        if !self.teams.iter().any(|t| t.name == name) {
            self.teams.push(TeamRecord { name: name.into(), design: BTreeMap::new(), two_lap: Vec::new() });
        }
        for a in drivers {
            let d = self.driver_mut(a)?;
            if d.team.is_none() {
                d.team = Some(name.into());
                d.team_from = from.max(1);
            }
        }
        Ok(())
    }

    /// The race of 1-based number `n`.
    pub fn race(&self, n: usize) -> Result<&RaceRecord, LeagueError> {
        n.checked_sub(1).and_then(|i| self.races.get(i)).ok_or(LeagueError::NoRace { n, races: self.races.len() })
    }

    /// The Track Marshal's team of race `n` (1-based) in a league with marshals (002 "Series
    /// Length": "The duty of Track Marshall ... will rotate among all the players in turn. The
    /// Marshall's team will not run in the race"). The team of the referee the moderator names
    /// for the race (who settled a conflict, by die roll, 002); otherwise the teams that have a
    /// driver entered for the race take turns in the order they were formed (ruling 42).
    pub fn marshal_team(&self, n: usize) -> Option<&str> {
        if !self.marshals {
            return None;
        }
        let race = self.races.get(n.checked_sub(1)?)?;
        if let Some(r) = &race.referee {
            return self.driver(r).and_then(|d| d.team.as_deref());
        }
        let racing: Vec<&str> = self
            .teams
            .iter()
            .map(|t| t.name.as_str())
            .filter(|t| self.drivers.iter().any(|d| d.team.as_deref() == Some(*t) && d.entered_for(n as u32)))
            .collect();
        (!racing.is_empty()).then(|| racing[(n - 1) % racing.len()])
    }

    /// The 1-based number of the race played as game `game`.
    pub fn race_of_game(&self, game: &str) -> Option<usize> {
        self.races.iter().position(|r| r.game == game).map(|i| i + 1)
    }
}
