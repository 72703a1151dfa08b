//! Plain-text rendering for mail: the ASCII board (and later car sheets).

pub mod board;
