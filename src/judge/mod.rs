//! The referee service (docs/daemon.md): the job loop that turns each mail or deadline into
//! turns through the store's driver, the dispatch of orders, the judge's commands between
//! races, report modes and reports, the ledger and outbox that make a message count exactly
//! once, the league glue, and `steward.toml`.

pub mod config;
pub mod daemon;
mod dispatch;
pub mod last_turns;
pub mod league;
pub mod ledger;
pub mod modes;
pub mod outbox;
pub mod report;
pub mod round;
pub mod service;
pub mod standing;
pub mod tracks;
