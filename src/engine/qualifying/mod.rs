//! Qualifying (1) and the starting grid. A timed lap is played solo with the race's driving
//! code but its own scoring, so it lives beside `play` rather than in it ([`lap`]); the grid
//! methods, from qualifying and from the seeds (002, 004), are pure functions ([`grid`]).

pub mod grid;
pub mod lap;

pub use grid::{Bid, Qualified, TieBreak};
pub use lap::{Lap, LapDriver, LapEnd, LapResult, LapRoll, QualifyingError, play_lap, start_space};
