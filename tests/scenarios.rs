//! Runs every rulebook case in `tests/scenarios/` (see docs/scenarios.md) and reports all the
//! failures at once, like the Diplomacy adjudicator's DATC runner.

use steward::scenario::{Verdict, collect, run_file, run_files};

use crate::support::root;

#[test]
fn every_rulebook_case_holds() {
    let paths = collect(&[root().join("tests/scenarios")]);
    assert!(paths.len() >= 5, "the rulebook cases are there: {paths:?}");
    let mut report = String::new();
    let failed = run_files(&paths, &mut report);
    assert_eq!(failed, 0, "rulebook cases failed:\n{report}");
}

#[test]
fn a_wrong_expectation_fails_with_a_readable_diff() {
    let dir = std::env::temp_dir().join(format!("steward-scenario-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let case = std::fs::read_to_string(root().join("tests/scenarios/12-2-blocking-five-spaces.toml"))
        .unwrap()
        .replace(
            "track = \"tracks/practice.toml\"",
            &format!("track = \"{}\"", root().join("tests/scenarios/tracks/practice.toml").display()),
        )
        .replace("tyre_points = 2", "tyre_points = 1");
    let file = dir.join("wrong.toml");
    std::fs::write(&file, case).unwrap();
    match run_file(&file) {
        Verdict::Fail(msgs) => {
            assert!(msgs.iter().any(|m| m.contains("no option matches") && m.contains("t2")), "{msgs:?}")
        }
        other => panic!("a wrong case must fail, got {other:?}"),
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_scenario_command_exits_non_zero_on_failure() {
    let ok = crate::support::steward(&["scenario", "tests/scenarios"]);
    assert!(ok.status.success(), "{}", crate::support::stdout(&ok));
    let dir = std::env::temp_dir().join(format!("steward-scenario-cmd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "article = \"x\"\ntitle = \"broken\"\ntrack = \"nowhere\"\n[[car]]\nnumber = 1\nspace = \"s0.m.1\"\n",
    )
    .unwrap();
    let out = crate::support::steward(&["scenario", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(crate::support::stdout(&out).contains("FAILED"));
    std::fs::remove_dir_all(&dir).ok();
}
