//! steward: a play-by-email adjudicator for the racing board game Formula Dé.
//!
//! The crate is a library with a thin binary. `track` models the boards; the rules engine (a pure
//! library: state + track + order + dice → new state + events) sits on top of it; mail, files,
//! the command line and templates wrap around the engine. See `docs/ARCHITECTURE.md` for the map.

/// Print to standard output and return the `io::Error` instead of panicking, so a closed pipe
/// (`steward verify ... | head`) ends the command quietly (see `cli::main`). For the shell only.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        write!(std::io::stdout().lock(), $($arg)*)?
    }};
}

/// `out!` with a newline.
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)?
    }};
}

pub mod cli;
pub mod demo;
pub mod dice;
pub mod engine;
pub mod judge;
pub mod league;
pub mod mail;
pub mod orders;
pub mod render;
pub mod scenario;
pub mod sim;
pub mod site;
pub mod store;
pub mod track;
pub mod words;
