//! Leagues and seasons (issue 7): a league owns a season of steward games, its drivers and
//! teams, and scores the drivers' and constructors' championships from the games' results.
//!
//! - [`classification`]: pure: a race's places (with the cars that did not finish);
//! - [`scoring`]: pure: points, best N of M, countback, shared constructors' ties, the referee rotation;
//! - [`config`]: `games/<league>/league.toml` and the moderator's edits;
//! - [`grid`]: a race's grid by the season's method (d20, rotating, bids);
//! - [`series`]: the 002 series options that carry numbers (construction points, driver points);
//! - [`results`]: race results read from finished games; the standings;
//! - [`table`]: the plain-text standings for mail and the JSON for the command line.
//!
//! By mail: `judge::league` (STANDINGS, LEAGUE edits, standings after each race, the referee)
//! and `demo::season` (a simulated season through the daemon's Maildir).
//!
//! Seeds: `shared/rules/002_*.txt` (race and series rules) and `004_*.txt` (FORS, its league
//! layer only). Rulings 36-44 in docs/rulings.md; format and commands in docs/leagues.md.

pub mod classification;
pub mod config;
pub mod grid;
pub mod results;
pub mod scoring;
pub mod series;
pub mod table;

pub use config::{GridMethod, League, LeagueError, RaceRecord};
pub use results::{league_standings, referee};
pub use scoring::Standings;
