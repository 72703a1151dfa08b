//! Every word a player reads that is not the order grammar: the languages (`Lang`), display
//! names made safe to show, and the French of the engine's event texts.

pub mod french;
mod lang;
pub mod names;
pub mod when;

pub use lang::Lang;
