//! The rules engine: a pure library. State + track + order + dice → new state + events.
//!
//! Architecture invariant: nothing under `engine` reads a clock, touches a file or the network,
//! or draws randomness; dice are an input ([`dice::Dice`]). Same inputs, same outputs, byte for
//! byte. Every rule applied cites its article of the 2004 competition rules.
//!
//! - [`rulebook`]: editions and every rule table, each row cited;
//! - [`car`], [`state`]: the car sheet and the race state;
//! - [`gearbox`]: gear changes and over-revving (6-1, 13);
//! - [`movement`]: legal paths under the driving code (7, 10-2);
//! - `chains`: items chained by their space, for the search's layers and pruning;
//! - [`options`]: the priced choices after a roll (10, 11, 12);
//! - [`slipstream`]: the slipstreams that extend a move, as more options (18);
//! - [`pits`]: the pit lane and pit stops (19);
//! - [`play`]: one move, roll then resolve (6-3);
//! - [`qualifying`]: the solo timed lap and the starting grid methods (1, 002, 004);
//! - [`incidents`]: body tests and engine tests at the end of a move (14, 16);
//! - [`inertia`]: the last moves of a car whose engine broke (16-0-3, 16-0-6);
//! - [`order`]: who plays next (6-2);
//! - [`tyres`]: the soft-tyre +1 and the slide on a wet track (8);
//! - [`weather`]: the weather draws and the changeable weather of a race (3);
//! - [`wall`]: the body tests against an oval's concrete wall (15);
//! - [`bot`]: a policy that plays a car sensibly;
//! - [`events`]: what happened and why;
//! - [`explain`]: why a destination is not on offer.

pub mod backmarkers;
pub mod bot;
pub mod car;
mod chains;
pub mod dice;
pub mod events;
pub mod explain;
pub mod finish;
pub mod gearbox;
pub mod incidents;
pub mod inertia;
pub mod movement;
pub mod options;
pub mod order;
pub mod pits;
pub mod play;
pub mod qualifying;
pub mod rulebook;
pub mod slipstream;
pub mod state;
pub mod tyres;
pub mod wall;
pub mod weather;

pub use car::{Part, Setup, Wear};
pub use dice::{Dice, FixedDice, Purpose};
pub use events::Event;
pub use options::{Fate, MoveOption};
pub use play::{IllegalOrder, Outcome, Rolled, Step, reroll, resolve, retire, roll};
pub use rulebook::{Construction, Die, Edition, Profile, ProfileError, RuleSet, Rulebook, Toggle, Tyres};
pub use state::{CarId, CarState, Elimination, RaceState, Status};
