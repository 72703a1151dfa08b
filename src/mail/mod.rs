//! The mailbox daemon: orders by mail, replies with the board (docs/daemon.md, docs/orders.md).
//!
//! Everything here is shell around the store and the engine: messages in, turns committed
//! through the store's driver, replies out. The order language and the reading of messages are
//! pure; the ledger and the outbox make each message count exactly once across crashes.

pub mod compose;
pub mod config;
pub mod lang;
pub mod ledger;
pub mod outbox;

pub use lang::Lang;

/// Messages larger than this are refused unread (1 MiB: orders are a few lines; the rest is
/// quoted text and attachments).
pub const MAX_MESSAGE_BYTES: usize = 1 << 20;
