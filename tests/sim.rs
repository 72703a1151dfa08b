//! Whole bot races: deterministic, and no engine invariant breaks on any shipped track.

use steward::engine::Rulebook;
use steward::sim::{SimConfig, SimWeather, run};

use crate::support::{stdout, steward};

#[test]
fn the_same_seed_gives_the_same_bytes() {
    let a = steward(&["sim", "--track", "sprint", "--cars", "6", "--laps", "1", "--races", "3", "--seed", "9"]);
    let b = steward(&["sim", "--track", "sprint", "--cars", "6", "--laps", "1", "--races", "3", "--seed", "9"]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    assert_eq!(a.stdout, b.stdout);
    let c = steward(&["sim", "--track", "sprint", "--cars", "6", "--laps", "1", "--races", "3", "--seed", "10"]);
    assert_ne!(a.stdout, c.stdout, "another seed, other dice");
    let text = stdout(&a);
    assert!(text.contains("3 races on sprint") && text.contains("digest "), "{text}");
}

#[test]
fn bot_races_keep_every_invariant_on_every_shipped_track() {
    let rules = Rulebook::competition_2004();
    for name in steward::track::load::shipped_names() {
        let t = steward::track::load::resolve(&name).unwrap();
        let cfg = SimConfig {
            cars: 10,
            laps: 2,
            races: 10,
            seed: 3,
            trace: None,
            weather: SimWeather::Dry,
            backmarkers: false,
        };
        let summary = run(&t, &rules, &cfg).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(summary.contains("10 races on"), "{summary}");
    }
}

#[test]
fn wet_and_changeable_races_keep_every_invariant_on_every_shipped_track() {
    let rules = Rulebook::competition_2004();
    for name in steward::track::load::shipped_names() {
        let t = steward::track::load::resolve(&name).unwrap();
        for weather in [SimWeather::Wet, SimWeather::Changeable, SimWeather::Track] {
            let cfg = SimConfig { cars: 10, laps: 2, races: 10, seed: 5, trace: None, weather, backmarkers: false };
            let summary = run(&t, &rules, &cfg).unwrap_or_else(|e| panic!("{name} {weather:?}: {e}"));
            assert!(summary.contains("10 races on") && summary.contains("weather: "), "{summary}");
        }
    }
}

#[test]
fn the_2002_and_eurogames_profiles_keep_every_invariant_on_monaco() {
    // Issue 4: both profiles (Eurogames with its seven advanced rules on, and with none) play
    // whole races under the sim's invariant checks; `.ci/run` plays 1,000 races of each.
    let t = steward::track::load::resolve("monaco").unwrap();
    let all = Rulebook::from_cli("eurogames-advanced", None).unwrap();
    let basic = Rulebook::from_cli("eurogames-advanced", Some(&[])).unwrap();
    for (rules, weather) in [
        (Rulebook::competition_2002(), SimWeather::Changeable),
        (all.clone(), SimWeather::Changeable),
        (basic, SimWeather::Wet),
    ] {
        let cfg = SimConfig { cars: 10, laps: 3, races: 100, seed: 4, trace: None, weather, backmarkers: false };
        let summary = run(&t, &rules, &cfg).unwrap_or_else(|e| panic!("{}: {e}", rules.spec()));
        assert!(summary.contains("100 races on monaco"), "{summary}");
        if rules.set.slipstream {
            assert!(!summary.contains("slipstreams 0 "), "{}: {summary}", rules.spec());
        } else {
            assert!(summary.contains("slipstreams 0 "), "{}: {summary}", rules.spec());
        }
    }
    let out = steward(&[
        "sim",
        "--track",
        "sprint",
        "--laps",
        "1",
        "--profile",
        "eurogames-advanced",
        "--toggles",
        "tyres,weather",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let bad = steward(&["sim", "--track", "sprint", "--profile", "competition-2004", "--toggles", "tyres"]);
    assert!(!bad.status.success());
    assert!(String::from_utf8_lossy(&bad.stderr).contains("eurogames-advanced"));
}

#[test]
fn a_changeable_race_rolls_weather_tests_that_cite_3_2_6() {
    // Long enough for some car to roll a 20 in 5th or a 30 in 6th.
    let out = steward(&[
        "sim",
        "--track",
        "monaco",
        "--cars",
        "10",
        "--laps",
        "3",
        "--races",
        "1",
        "--seed",
        "1",
        "--weather",
        "changeable",
        "--trace",
        "1",
    ]);
    let text = stdout(&out);
    assert!(text.contains("black-d20 rolled for weather"), "{text}");
    assert!(text.contains("(3-2-6)"), "no weather test in the race");
}

#[test]
fn a_trace_shows_every_event_with_its_article() {
    let out = steward(&["sim", "--track", "monaco", "--cars", "2", "--laps", "1", "--races", "1", "--trace", "1"]);
    let text = stdout(&out);
    assert!(text.contains("trace of race 1:"), "{text}");
    assert!(text.contains("round 1 starts with car 1 (0-0-2)"), "{text}");
    assert!(text.contains("rolls gear1-d4 for move"), "{text}");
}

#[test]
fn bad_arguments_are_refused_clearly() {
    let out = steward(&["sim", "--track", "monaco", "--cars", "11"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--cars must be 1 to 10"));
}

/// A reader that stops early (`steward sim ... | head -1`) ends the command quietly: no panic, no
/// error status. CI's own `verify | head` once failed on exactly this.
#[test]
fn a_closed_pipe_ends_the_output_quietly() {
    use std::process::{Command, Stdio};
    let mut child = Command::new(env!("CARGO_BIN_EXE_steward"))
        .args(["sim", "--track", "monaco", "--races", "3", "--trace", "1"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the steward binary runs");
    drop(child.stdout.take()); // the reader goes away before the first line
    let out = child.wait_with_output().expect("it ends");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "it panicked: {err}");
    assert!(out.status.success(), "status {:?}, stderr: {err}", out.status);
}
