//! Tampering is caught by `verify` at the right turn: a roll value, an order, a state digest, an
//! event, the chain, a deleted or swapped turn, the seed, `game.toml` and `track.toml`. The
//! independent Python verifier catches what concerns the dice.

use std::path::{Path, PathBuf};

use steward::store::StoreError;
use steward::store::files::TurnFile;
use steward::store::verify::verify;

use super::{copy_dir, keep, python, scratch};
use crate::support::steward;

fn turn_file(dir: &Path, n: u32) -> PathBuf {
    dir.join("turns").join(TurnFile::file_name(n))
}

fn read_turn(dir: &Path, n: u32) -> TurnFile {
    toml::from_str(&std::fs::read_to_string(turn_file(dir, n)).unwrap()).unwrap()
}

fn edit(dir: &Path, n: u32, f: impl FnOnce(&mut TurnFile)) {
    let mut t = read_turn(dir, n);
    f(&mut t);
    std::fs::write(turn_file(dir, n), toml::to_string(&t).unwrap()).unwrap();
}

/// A finished kept race, copied fresh for each tampering.
fn finished(name: &str) -> PathBuf {
    let base = scratch(&format!("tamper-src-{name}"));
    let games = keep(&base, "sprint", 4, 1, 1, 11);
    let dir = scratch(&format!("tamper-{name}")).join("game");
    copy_dir(&games[0], &dir);
    dir
}

/// A middle move turn that rolled a die and whose move continues in the next turn files.
fn a_move_turn(dir: &Path) -> u32 {
    (20..).find(|&n| !read_turn(dir, n).rolls.is_empty()).unwrap()
}

/// Verify must fail at turn `n`, through the library and the command, and say `what`.
fn fails_at(dir: &Path, n: u32, what: &str, seed: Option<&str>) {
    let given = seed.map(|s| steward::store::hash::parse_hex32(s).unwrap());
    match verify(dir, given) {
        Err(StoreError::BadTurn { turn, why, .. }) => {
            assert_eq!(turn, n, "verify blamed turn {turn}, not {n}: {why}");
            assert!(why.contains(what), "turn {n}: `{why}` does not mention `{what}`");
        }
        other => panic!("verify should fail at turn {n}, got {other:?}"),
    }
    let d = dir.display().to_string();
    let mut args = vec!["verify", d.as_str()];
    if let Some(s) = seed {
        args.extend(["--seed", s]);
    }
    let out = steward(&args);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&format!("turn {n} (turns/{n:04}.toml) is bad")), "{text}");
}

fn python_fails_at(dir: &Path, n: u32) {
    let out = python(&["tools/verify_game.py", &dir.display().to_string()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains(&format!("turn {n} (turns/{n:04}.toml)")), "{text}");
}

#[test]
fn an_untouched_game_verifies_in_rust_and_in_python() {
    let dir = finished("clean");
    let r = verify(&dir, None).unwrap();
    assert!(r.game.now.over && r.game.now.revealed.is_some());
    let out = python(&["tools/verify_game.py", &dir.display().to_string()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    let rolls: usize = r.game.turns.iter().map(|t| t.rolls.len()).sum();
    assert!(text.contains(&format!("{rolls} rolls re-derived from the committed seed, all agree")), "{text}");
}

#[test]
fn a_changed_roll_value_is_caught_at_its_turn() {
    let dir = finished("roll");
    let n = a_move_turn(&dir);
    edit(&dir, n, |t| {
        let r = &mut t.rolls[0];
        let die = steward::store::audit::die_named(&r.die).unwrap();
        let other = *die.faces().iter().find(|&&v| v != r.value).unwrap();
        r.value = other;
    });
    fails_at(&dir, n, "the committed dice give", None);
    python_fails_at(&dir, n);
}

#[test]
fn a_changed_face_and_value_is_caught_even_before_the_seed_is_public() {
    // A game in progress whose public copy has no secret: the rolls are taken as recorded, but a
    // roll changed consistently (face and value) no longer replays to the recorded events.
    let dir = finished("unrevealed");
    let last = std::fs::read_dir(dir.join("turns")).unwrap().count() as u32 - 1;
    std::fs::remove_file(turn_file(&dir, last)).unwrap();
    std::fs::remove_file(dir.join("secret.toml")).unwrap();
    let r = verify(&dir, None).unwrap();
    assert_eq!(r.seed_from, steward::store::verify::SeedFrom::Unknown);
    let n = a_move_turn(&dir);
    edit(&dir, n, |t| {
        let r = &mut t.rolls[0];
        let faces = steward::store::audit::die_named(&r.die).unwrap().faces();
        let f = (0..faces.len()).find(|&f| faces[f] != r.value).unwrap();
        r.face = f as u8;
        r.value = faces[f];
    });
    // The replay then differs from the record: the roll's event, or the option chosen.
    fails_at(&dir, n, "", None);
}

#[test]
fn a_changed_order_is_caught_at_its_turn() {
    let dir = finished("order");
    let n = (20..).find(|&n| read_turn(&dir, n).orders.iter().any(|o| o.gear.is_some_and(|g| g >= 2))).unwrap();
    edit(&dir, n, |t| {
        let o = t.orders.iter_mut().find(|o| o.gear.is_some()).unwrap();
        o.gear = o.gear.map(|g| g - 1);
    });
    match verify(&dir, None) {
        Err(StoreError::BadTurn { turn, .. }) => assert_eq!(turn, n),
        other => panic!("{other:?}"),
    }
    fails_at(&dir, n, "", None);
}

#[test]
fn a_changed_choice_is_caught_at_its_turn() {
    let dir = finished("choice");
    let n = (20..).find(|&n| read_turn(&dir, n).orders.iter().any(|o| o.choose.as_deref() == Some("A"))).unwrap();
    edit(&dir, n, |t| {
        let o = t.orders.iter_mut().find(|o| o.choose.is_some()).unwrap();
        o.choose = Some("B".into());
    });
    fails_at(&dir, n, "", None);
}

#[test]
fn a_changed_state_digest_is_caught_at_its_turn() {
    let dir = finished("digest");
    let n = a_move_turn(&dir);
    edit(&dir, n, |t| t.state_sha256 = Some("0".repeat(64)));
    fails_at(&dir, n, "state digest", None);
}

#[test]
fn a_changed_event_is_caught_at_its_turn() {
    let dir = finished("event");
    let n = a_move_turn(&dir);
    edit(&dir, n, |t| t.events[0].text.push_str(" at full speed"));
    fails_at(&dir, n, "event 1", None);
}

#[test]
fn a_deleted_turn_is_caught_where_it_is_missing() {
    let dir = finished("delete");
    let n = a_move_turn(&dir);
    std::fs::remove_file(turn_file(&dir, n)).unwrap();
    fails_at(&dir, n, "missing", None);
    python_fails_at(&dir, n);
}

#[test]
fn a_deleted_and_renumbered_turn_breaks_the_chain() {
    let dir = finished("renumber");
    let n = a_move_turn(&dir);
    let count = std::fs::read_dir(dir.join("turns")).unwrap().count() as u32;
    std::fs::remove_file(turn_file(&dir, n)).unwrap();
    for k in n + 1..count {
        let mut t = read_turn(&dir, k);
        t.turn = k - 1;
        std::fs::remove_file(turn_file(&dir, k)).unwrap();
        std::fs::write(turn_file(&dir, k - 1), toml::to_string(&t).unwrap()).unwrap();
    }
    fails_at(&dir, n, "does not follow", None);
    python_fails_at(&dir, n);
}

#[test]
fn swapped_turns_are_caught_at_the_first() {
    let dir = finished("swap");
    let n = a_move_turn(&dir);
    let (a, b) = (std::fs::read(turn_file(&dir, n)).unwrap(), std::fs::read(turn_file(&dir, n + 1)).unwrap());
    std::fs::write(turn_file(&dir, n), b).unwrap();
    std::fs::write(turn_file(&dir, n + 1), a).unwrap();
    fails_at(&dir, n, "says it is turn", None);
    python_fails_at(&dir, n);
}

#[test]
fn a_changed_prev_hash_is_caught() {
    let dir = finished("prev");
    let n = a_move_turn(&dir);
    edit(&dir, n, |t| t.prev = Some("1".repeat(64)));
    fails_at(&dir, n, "does not follow", None);
    python_fails_at(&dir, n);
}

#[test]
fn a_wrong_seed_is_refused() {
    let dir = finished("seed");
    fails_at(&dir, 0, "does not match the commitment", Some(&"ab".repeat(32)));
    let last = std::fs::read_dir(dir.join("turns")).unwrap().count() as u32 - 1;
    edit(&dir, last, |t| t.seed = Some("cd".repeat(32)));
    fails_at(&dir, last, "does not match the commitment", None);
    python_fails_at(&dir, last);
}

#[test]
fn a_wrong_secret_file_is_refused() {
    let dir = finished("secret");
    let last = std::fs::read_dir(dir.join("turns")).unwrap().count() as u32 - 1;
    std::fs::remove_file(turn_file(&dir, last)).unwrap();
    std::fs::write(dir.join("secret.toml"), format!("seed = \"{}\"\n", "ef".repeat(32))).unwrap();
    let e = verify(&dir, None).unwrap_err().to_string();
    assert!(e.contains("secret.toml is bad") && e.contains("commitment"), "{e}");
}

#[test]
fn an_edited_game_toml_or_track_is_caught() {
    let dir = finished("setup");
    let text = std::fs::read_to_string(dir.join("game.toml")).unwrap();
    std::fs::write(dir.join("game.toml"), text.replace("bot2@sim.invalid", "mallory@example.org")).unwrap();
    let e = verify(&dir, None).unwrap_err().to_string();
    assert!(e.contains("game.toml is bad"), "{e}");
    std::fs::write(dir.join("game.toml"), text).unwrap();
    verify(&dir, None).unwrap();
    let track = std::fs::read_to_string(dir.join("track.toml")).unwrap();
    std::fs::write(dir.join("track.toml"), format!("{track}\n# moved a corner\n")).unwrap();
    let e = verify(&dir, None).unwrap_err().to_string();
    assert!(e.contains("track.toml is bad"), "{e}");
}

#[test]
fn replay_is_byte_identical() {
    let dir = finished("bytes");
    let game = steward::store::driver::load_dir(&dir, None).unwrap();
    for (i, t) in game.turns.iter().enumerate() {
        let file = std::fs::read_to_string(turn_file(&dir, i as u32)).unwrap();
        assert_eq!(toml::to_string(t).unwrap(), file, "turn {i} replays to other bytes");
    }
    assert_eq!(
        steward::store::verify::render_game_toml(&game),
        std::fs::read_to_string(dir.join("game.toml")).unwrap()
    );
    // The same race kept twice is the same bytes.
    let again = scratch("bytes-again");
    let games = keep(&again, "sprint", 4, 1, 1, 11);
    assert_eq!(super::tree(&games[0]), super::tree(&dir));
}

/// The decision at the box is part of the turn: a kept race with a long stop verifies, and the
/// same turn with another repair does not (19-4-1: the state digest changes).
#[test]
fn a_changed_pit_decision_is_caught() {
    let base = scratch("tamper-src-pit");
    // The oval wears brakes and tyres: its 3-lap races hold long stops with repairs (the bot
    // keeps away from the other cars since issue 15, and a dry 3-lap Monaco no longer needs a
    // stop at all).
    let games = keep(&base, "oval", 10, 3, 2, 2);
    let (game, n) = games
        .iter()
        .find_map(|g| {
            let turns = std::fs::read_dir(g.join("turns")).unwrap().count() as u32;
            (1..turns)
                .find(|&n| read_turn(g, n).orders.iter().any(|o| o.pit.as_ref().is_some_and(|p| !p.repairs.is_empty())))
                .map(|n| (g.clone(), n))
        })
        .expect("a kept race with a long stop (oval, 10 cars, seed 2)");
    assert!(verify(&game, None).is_ok(), "the untouched race verifies");
    let dir = scratch("tamper-pit").join("game");
    copy_dir(&game, &dir);
    edit(&dir, n, |t| {
        for o in &mut t.orders {
            if let Some(p) = &mut o.pit {
                p.repairs.clear();
                p.kind = Some("long".into());
            }
        }
    });
    match verify(&dir, None) {
        Err(StoreError::BadTurn { turn, .. }) => assert_eq!(turn, n),
        other => panic!("verify should fail at turn {n}, got {other:?}"),
    }
}

/// Nothing to check is not a tampered game (issue 15): `steward verify` of a game, mailbox or
/// games directory that does not exist, and the independent verifier on a missing folder, exit
/// 3 with one sentence (no traceback), where a failed check exits 1.
#[test]
fn verifying_what_does_not_exist_has_its_own_exit_code() {
    let cases: [&[&str]; 3] = [
        &["verify", "--games", "tests/no-such-games", "no-such-game"],
        &["verify", "--mail", "tests/no-such-mailbox"],
        &["verify", "--mail", "tests/golden", "--games", "tests/no-such-games"],
    ];
    for args in cases {
        let o = crate::support::steward(args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {err}");
        assert!(err.starts_with("no such") && err.lines().count() == 1, "{args:?}: {err}");
    }
    for args in [&["tests/no-such-game"][..], &["--mail", "tests/no-such-mailbox"][..]] {
        let o = super::python(&[&["tools/verify_game.py"][..], args].concat());
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {err}");
        assert!(!err.contains("Traceback") && err.contains("no such game or mailbox"), "{args:?}: {err}");
    }
}
