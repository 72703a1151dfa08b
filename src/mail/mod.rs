//! Mail: what players send and what steward answers. This module holds the pure pieces of the
//! mailbox daemon (no I/O, no clock): reading an incoming message, the order language, and
//! standing orders; transports and the daemon wrap around them.

pub mod message;
pub mod orders;
pub mod policy;
