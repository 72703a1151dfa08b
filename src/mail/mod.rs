//! Mail: moving messages in and out (`transport`).

pub mod transport;
