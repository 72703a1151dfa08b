//! Shared test helpers: running the `steward` binary and finding shared data.

use std::path::PathBuf;
use std::process::{Command, Output};

/// Runs the built `steward` binary with `args` from the crate root.
pub fn steward(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_steward"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the steward binary runs")
}

/// Standard output as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// The crate root.
#[allow(dead_code)]
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}
