//! Every word a player reads that is not the order grammar: the languages (`Lang`), the message
//! catalogue (`catalogue`, `say!`), display names made safe to show, and the French of the
//! engine's event texts.

pub mod catalogue;
pub mod french;
mod lang;
pub mod names;
pub mod plurals;
pub mod when;

pub use lang::Lang;
