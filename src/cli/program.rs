//! How this program names itself in the follow-up commands it prints (`steward` or its path).

/// How to run this program again in a printed follow-up command: `steward` when that name on
/// the `PATH` is this very program (after `cargo install --path .`), else the path it was run
/// from (`./target/release/steward` after `cargo run --release`), so the command works as
/// written.
pub fn self_command() -> String {
    let Ok(me) = std::env::current_exe().and_then(std::fs::canonicalize) else {
        return "steward".into();
    };
    let on_path = std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path).any(|d| std::fs::canonicalize(d.join("steward")).is_ok_and(|p| p == me))
    });
    if on_path {
        return "steward".into();
    }
    let cwd = std::env::current_dir().and_then(std::fs::canonicalize).ok();
    match cwd.as_deref().and_then(|c| me.strip_prefix(c).ok()) {
        Some(rel) => format!("./{}", rel.display()),
        None => me.display().to_string(),
    }
}
