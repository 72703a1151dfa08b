//! Mail: what players send and what steward answers (docs/daemon.md, docs/orders.md).
//!
//! The pure pieces (no I/O, no clock): reading an incoming message, the order language, and
//! standing orders. Around them, the shell: the configuration, the ledger and the outbox that
//! make each message count exactly once across crashes, the templates and MIME replies, and the
//! daemon that commits turns through the store's driver.

pub mod compose;
pub mod config;
pub mod daemon;
pub mod demo;
mod dispatch;
pub(crate) mod french;
pub mod league;
pub mod ledger;
pub mod limits;
pub mod message;
pub mod modes;
pub mod orders;
pub mod outbox;
pub mod policy;
pub mod report;
pub mod season;
pub mod secrets;
pub mod standing;
pub mod tag;
pub mod tracks;
pub mod transport;
pub mod verify;

pub use orders::Lang;
