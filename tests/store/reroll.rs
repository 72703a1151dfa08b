//! 002 "Expending Driver Points" (ruling 45): a driver point re-rolls the gear roll awaiting the
//! car's choice; the second result stands; the points run out; both verifiers re-derive the
//! re-rolls (labelled with the same move at its next index).

use steward::engine::bot::Bot;
use steward::store::files::TurnFile;
use steward::store::verify::verify;
use steward::store::{By, Handle, Join, Meta, NewGame, Store, StoreError};

use super::{python, scratch};

fn join(h: &mut Handle, car: u8, points: u8) {
    let j = Join { driver_points: points, ..Join::plain(&format!("p{car}@x.invalid"), &format!("t{car}"), car) };
    h.join(&j, Meta::by("test")).unwrap();
}

/// Car `car`'s next gear: one up from its current gear, at most 3rd.
fn next_gear(h: &Handle, car: u8) -> u8 {
    let g = h.game();
    let (id, _) = g.player(car).unwrap();
    (g.now.race.as_ref().unwrap().state.car(id).gear + 1).clamp(1, 3)
}

/// Plays (gear, then choice A) until car `car` holds a choice on a gear roll it may re-roll.
fn until_choice(h: &mut Handle, car: u8) {
    for _ in 0..200 {
        match h.game().awaited() {
            Some((c, true)) if c == car && steward::engine::play::rerollable(h.game().pending_roll(c).unwrap()) => {
                return;
            }
            Some((c, true)) => {
                h.choose(c, "A", By::Player, Meta::by("test")).unwrap();
            }
            Some((c, false)) => {
                let gear = next_gear(h, c);
                h.gear(c, gear, By::Player, Meta::by("test")).unwrap();
            }
            None => panic!("the race ended before car {car} had a choice"),
        }
    }
    panic!("car {car} never had a choice");
}

fn last(h: &Handle) -> TurnFile {
    h.last().clone()
}

#[test]
fn a_driver_point_rerolls_the_gear_roll_once_and_the_points_run_out() {
    let dir = scratch("reroll");
    let store = Store::new(&dir);
    let req = NewGame::plain("dp", "sprint", 1);
    let mut h = store.create(&req, [9; 32], Meta::by("test")).unwrap();
    join(&mut h, 1, 2);
    join(&mut h, 2, 0);
    // The field is left out of the files of a player with no points.
    let game_toml = std::fs::read_to_string(dir.join("dp").join("game.toml")).unwrap();
    assert_eq!(game_toml.matches("driver_points = 2").count(), 1, "{game_toml}");
    h.start(Meta::by("test")).unwrap();
    assert_eq!(h.game().driver_points_left(1), 2);

    // Nothing to re-roll before the gear.
    if h.game().awaited() == Some((1, false)) {
        let e = h.reroll(1, By::Player, Meta::by("test")).unwrap_err();
        assert!(matches!(e, StoreError::NothingToReroll(1)), "{e}");
    }
    until_choice(&mut h, 1);
    let before = last(&h);
    let first = before.pending.clone().unwrap();
    let move_no = before.move_no.unwrap();
    let used = h.game().now.race.as_ref().unwrap().pending.as_ref().unwrap().next_index;

    h.reroll(1, By::Player, Meta::by("test")).unwrap();
    let t = last(&h);
    assert!(t.orders[0].reroll && t.orders[0].gear.is_none() && t.orders[0].choose.is_none(), "{t:?}");
    assert_eq!(t.move_no, Some(move_no));
    // The gear die again, labelled with the same move at its next index.
    // (Labels name the car by its grid index: car 1 joined first.)
    // In steward-dice-v3 the label ends with the line of decisions, the re-roll being one.
    let (label, line) = t.rolls[0].label.split_once('@').unwrap();
    assert_eq!(label, format!("{move_no}/0/move/{used}"));
    assert_ne!(before.rolls[0].label.split_once('@').unwrap().1, line, "the re-roll is a decision of its own");
    assert_eq!(t.rolls[0].die, first_die(&before));
    assert!(
        t.events
            .iter()
            .any(|e| e.article == "002 Expending Driver Points" && e.text.contains(&format!("roll of {}", first.roll))),
        "{:?}",
        t.events
    );
    assert_eq!(h.game().driver_points_left(1), 1);
    // The new roll's options are on offer (this seed's re-roll offers a choice); the second
    // result stands.
    let p = t.pending.as_ref().expect("the re-roll offers a choice");
    assert_eq!(p.roll, t.rolls[0].value);
    let e = h.reroll(1, By::Player, Meta::by("test")).unwrap_err();
    assert!(matches!(e, StoreError::AlreadyRerolled { car: 1, .. }), "{e}");
    assert!(e.to_string().contains("cannot be re-rolled again"), "{e}");
    h.choose(1, "A", By::Player, Meta::by("test")).unwrap();
    // Car 2's driver has no points.
    until_choice(&mut h, 2);
    let e = h.reroll(2, By::Player, Meta::by("test")).unwrap_err();
    assert!(matches!(e, StoreError::NoDriverPoints { car: 2, .. }), "{e}");
    // Car 1 spends its second point, then has none left.
    until_choice(&mut h, 1);
    h.reroll(1, By::Player, Meta::by("test")).unwrap();
    assert_eq!(h.game().driver_points_left(1), 0);
    if h.game().awaited().is_some_and(|a| a == (1, true)) {
        h.choose(1, "A", By::Player, Meta::by("test")).unwrap();
    }
    until_choice(&mut h, 1);
    let e = h.reroll(1, By::Player, Meta::by("test")).unwrap_err();
    assert!(matches!(e, StoreError::NoDriverPoints { car: 1, .. }), "{e}");

    // The bot plays the race out; both verifiers re-derive every roll, the re-rolls included.
    let mut bot = Bot::new();
    while h.game().awaited().is_some() {
        h.bot_move(&mut bot, Meta::by("bot")).unwrap();
    }
    let game_dir = dir.join("dp");
    let r = verify(&game_dir, None).unwrap();
    assert!(r.game.now.over);
    assert_eq!(r.game.now.spent.get(&1), Some(&2));
    let out = python(&["tools/verify_game.py", &game_dir.display().to_string()]);
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
}

/// The die of the turn's gear roll.
fn first_die(t: &TurnFile) -> std::borrow::Cow<'static, str> {
    t.rolls.iter().rfind(|r| r.label.contains("/move/")).map(|r| r.die.clone()).unwrap()
}
