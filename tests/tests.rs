//! The one integration-test binary (see docs/ARCHITECTURE.md): each module tests one area
//! through the public library API or the `steward` command.

mod board;
mod bot;
mod scenarios;
mod support;
mod tracks;
