//! Rulebook cases as data (`tests/scenarios/*.toml`), like the Diplomacy adjudicator test cases:
//! each file sets up a position, fixes the dice, plays orders and states what the rulebook says
//! must follow. `steward scenario FILE...` and `cargo test` run them; `docs/scenarios.md`
//! documents the format for rules experts.
//!
//! A missing expectation is not checked; every mismatch of a case is reported, not only the
//! first. A move without `choose` is a look: its roll and options are checked and nothing is
//! played, so several rolls can be tried on one position. `[[move.expect.path]]` checks a path
//! named by its spaces against the driving code (7, 10-2), as the rulebook's worked examples
//! name theirs ("A-C-D").

mod check;
mod format;
mod run;

pub use format::{CarExpect, CarSpec, Expect, MoveSpec, OptionSpec, PathSpec, PitSpec, Scenario, WearSpec};
pub use run::{Verdict, collect, run, run_file, run_files};
