//! A writer killed at any point leaves valid games that the next run continues, to the same
//! bytes as a run that was never interrupted. Two ways to kill it: the fault injection of
//! `STEWARD_CRASH_AFTER=N` (abort at the N-th write step, mid-file included), swept over the
//! whole run; and a real SIGKILL after a range of delays.

use std::path::Path;
use std::process::{Command, ExitStatus};
use std::time::Duration;

use steward::store::Store;
use steward::store::verify::verify;

use super::{scratch, tree};

const SIM: [&str; 12] =
    ["sim", "--track", "sprint", "--cars", "3", "--laps", "1", "--races", "2", "--seed", "5", "--keep"];

/// A longer run for the SIGKILL test, so that it can be killed many times before it ends.
const LONG_SIM: [&str; 12] =
    ["sim", "--track", "sprint", "--cars", "4", "--laps", "1", "--races", "4", "--seed", "8", "--keep"];

fn sim(dir: &Path, crash_after: Option<u64>, sync: bool) -> ExitStatus {
    run(&SIM, dir, crash_after, sync)
}

fn run(args: &[&str], dir: &Path, crash_after: Option<u64>, sync: bool) -> ExitStatus {
    let mut c = Command::new(env!("CARGO_BIN_EXE_steward"));
    c.args(args).arg(dir).current_dir(env!("CARGO_MANIFEST_DIR"));
    if !sync {
        c.arg("--no-sync");
    }
    match crash_after {
        Some(n) => c.env("STEWARD_CRASH_AFTER", n.to_string()),
        None => c.env_remove("STEWARD_CRASH_AFTER"),
    };
    c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null()).status().unwrap()
}

/// Every game in `dir` verifies (a game still being created is not there yet).
fn all_valid(dir: &Path, context: &str) -> usize {
    let store = Store::new(dir);
    let ids = store.list().unwrap();
    for id in &ids {
        if let Err(e) = verify(&store.game_dir(id), None) {
            panic!("{context}: game {id} is not valid after the crash: {e}");
        }
    }
    ids.len()
}

#[test]
fn a_crash_at_any_write_step_leaves_valid_games_that_the_next_run_completes() {
    let reference = scratch("crash-ref");
    assert!(sim(&reference, None, false).success());
    let want = tree(&reference);
    let mut n = 1u64;
    let mut crashes = 0;
    let mut stride = 1u64;
    loop {
        let dir = scratch("crash-run");
        let status = sim(&dir, Some(n), false);
        if status.success() {
            break; // past the last write step
        }
        crashes += 1;
        all_valid(&dir, &format!("crash at step {n}"));
        // Crash the resumed run too, now and then, before letting it finish.
        if crashes % 5 == 0 && !sim(&dir, Some(7 + n % 50), false).success() {
            all_valid(&dir, &format!("second crash after step {n}"));
        }
        assert!(sim(&dir, None, false).success(), "the run after a crash at step {n} fails");
        assert!(tree(&dir) == want, "after a crash at step {n} the games differ from an uninterrupted run");
        // Every step early on (creation and joins), then a spread over the race.
        n += stride;
        if n > 60 {
            stride = 23;
        }
    }
    assert!(crashes > 80, "only {crashes} crash points tried");
}

#[test]
fn a_writer_killed_with_sigkill_leaves_valid_games_that_the_next_run_completes() {
    let reference = scratch("kill-ref");
    assert!(run(&LONG_SIM, &reference, None, true).success());
    let want = tree(&reference);
    let dir = scratch("kill-run");
    let mut kills = 0;
    let delays = [2u64, 5, 9, 14, 20, 27, 35, 44, 54, 65, 77, 90, 104, 119, 135];
    for &ms in delays.iter().cycle().take(60) {
        let mut c = Command::new(env!("CARGO_BIN_EXE_steward"));
        c.args(LONG_SIM).arg(&dir).current_dir(env!("CARGO_MANIFEST_DIR"));
        c.stdout(std::process::Stdio::null()).stderr(std::process::Stdio::null());
        let mut child = c.spawn().unwrap();
        std::thread::sleep(Duration::from_millis(ms));
        let done = child.try_wait().unwrap().is_some();
        if !done {
            child.kill().unwrap(); // SIGKILL
            kills += 1;
        }
        let _ = child.wait();
        all_valid(&dir, &format!("kill after {ms} ms"));
        if done {
            break;
        }
    }
    assert!(kills >= 3, "the run finished before it could be killed enough ({kills} kills)");
    assert!(run(&LONG_SIM, &dir, None, true).success());
    assert!(tree(&dir) == want, "after {kills} kills the games differ from an uninterrupted run");
}
