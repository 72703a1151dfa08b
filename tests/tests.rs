//! The one integration-test binary (see docs/ARCHITECTURE.md): each module tests one area
//! through the public library API or the `steward` command.

mod backmarkers;
mod board;
mod bot;
mod cli;
mod engine_props;
mod import;
mod league;
mod mail;
mod picture;
mod qualifying;
mod scenarios;
mod sim;
mod site;
mod store;
mod support;
mod tidy;
mod tracks;
