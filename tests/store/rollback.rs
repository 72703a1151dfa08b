//! Rollbacks never re-roll (docs/dice.md, section 3a, `steward-dice-v3`): the same decisions
//! after any chain of rollbacks give the same dice, a changed decision gives dice nobody has
//! seen, and a chain of rollbacks costs one replay, not one per rollback before it.

use steward::engine::bot::Bot;
use steward::store::files::{Kind, OrderRecord, RollRecord};
use steward::store::verify::verify;
use steward::store::{By, Game, Handle, Join, Meta, NewGame, Store};

use super::{python, scratch};

fn game(name: &str, cars: u8) -> (std::path::PathBuf, Handle) {
    let dir = scratch(name);
    let store = Store::new(&dir);
    let req = NewGame::plain("rb", "sprint", 2);
    let mut h = store.create(&req, [5; 32], Meta::by("test")).unwrap();
    for car in 1..=cars {
        h.join(&Join::plain(&format!("p{car}@x.invalid"), &format!("t{car}"), car), Meta::by("test")).unwrap();
    }
    h.start(Meta::by("test")).unwrap();
    (dir.join("rb"), h)
}

/// The decisions of the current line after turn `after`, in order (what the players and the bot
/// decided; the rules' own moves left out).
fn decisions_after(g: &Game, after: u32) -> Vec<OrderRecord> {
    g.live_turns()
        .into_iter()
        .filter(|&n| n > after)
        .flat_map(|n| g.turns[n as usize].orders.clone())
        .filter(|o| !matches!(o.by, By::Forced | By::Backmarker))
        .collect()
}

/// Every roll of the current line, in order.
fn live_rolls(g: &Game) -> Vec<RollRecord> {
    g.live_turns().into_iter().flat_map(|n| g.turns[n as usize].rolls.clone()).collect()
}

/// Gives `orders` again, one turn each (the bot gave a gear and its choice in one turn: the same
/// decisions in two turns must give the same dice).
fn give(h: &mut Handle, orders: &[OrderRecord]) {
    for o in orders {
        match (&o.gear, &o.choose, &o.pit) {
            (Some(g), None, _) => h.gear(o.car, *g, By::Player, Meta::by("test")).map(|_| ()),
            (None, Some(c), None) => h.choose(o.car, c, By::Player, Meta::by("test")).map(|_| ()),
            (None, Some(c), Some(p)) => {
                h.choose_with_pit(o.car, c, p.clone(), By::Player, Meta::by("test")).map(|_| ())
            }
            _ => panic!("an order this test does not give again: {o:?}"),
        }
        .unwrap_or_else(|e| panic!("{o:?}: {e}"));
    }
}

#[test]
fn the_same_decisions_after_any_chain_of_rollbacks_give_the_same_rolls() {
    let (dir, mut h) = game("rollback-same", 3);
    let mut bot = Bot::new();
    let start = h.game().start_turn().unwrap();
    while h.game().next_turn() < start + 60 && !h.game().now.over {
        h.bot_move(&mut bot, Meta::by("test")).unwrap();
    }
    let line = live_rolls(h.game());
    assert!(line.len() > 40, "a race long enough to roll back into: {} rolls", line.len());
    // Six rollbacks, each to a turn of the current line (some to a rollback turn itself), each
    // followed by the very decisions that were undone.
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for round in 0..6 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let live: Vec<u32> = h.game().live_turns().into_iter().filter(|&n| n >= start).collect();
        let to = live[(x as usize) % (live.len() - 1)];
        let undone = decisions_after(h.game(), to);
        h.rollback(to, Meta::by("test")).unwrap();
        give(&mut h, &undone);
        assert_eq!(live_rolls(h.game()), line, "after rollback {} (to turn {to}): the same rolls", round + 1);
    }
    // A changed decision: rolls under labels nobody saw.
    let to = h.game().live_turns().into_iter().rev().nth(3).unwrap();
    let seen: std::collections::HashSet<String> =
        h.game().turns.iter().flat_map(|t| t.rolls.iter().map(|r| r.label.clone())).collect();
    let mut undone = decisions_after(h.game(), to);
    h.rollback(to, Meta::by("test")).unwrap();
    while undone.first().is_some_and(|o| o.gear.is_none()) {
        give(&mut h, &undone[..1]);
        undone.remove(0);
    }
    let original = undone.first().expect("a gear among the decisions undone");
    let before = h.game().turns.len();
    let other = (1..=6u8)
        .filter(|&g| Some(g) != original.gear)
        .find(|&g| h.gear(original.car, g, By::Player, Meta::by("test")).is_ok())
        .expect("another gear is allowed");
    assert_ne!(Some(other), original.gear);
    let fresh: Vec<&RollRecord> = h.game().turns[before..].iter().flat_map(|t| t.rolls.iter()).collect();
    assert!(!fresh.is_empty() && fresh.iter().all(|r| !seen.contains(&r.label)), "{fresh:?}");
    // Both verifiers accept the whole history, the branches rolled back included.
    verify(&dir, Some([5; 32])).unwrap();
    let out = python(&["tools/verify_game.py", dir.to_str().unwrap(), "--seed", &"05".repeat(32)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains("7 rollback(s)"), "{text}{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn thirty_nested_rollbacks_replay_each_turn_once() {
    // Each rollback returns to the turn of the rollback before it: replaying from turn 0 at every
    // rollback, as steward did, doubled the work per rollback (2^30 replays here).
    let (dir, mut h) = game("rollback-nested", 2);
    let mut bot = Bot::new();
    for _ in 0..6 {
        h.bot_move(&mut bot, Meta::by("test")).unwrap();
    }
    let mut to = h.game().next_turn() - 1;
    for _ in 0..30 {
        h.bot_move(&mut bot, Meta::by("test")).unwrap();
        h.rollback(to, Meta::by("test")).unwrap();
        to = h.game().next_turn() - 1;
        assert_eq!(h.game().turns[to as usize].kind, Kind::Rollback);
    }
    let g = steward::store::driver::load_dir(&dir, None).unwrap();
    assert_eq!(g.now.epoch, 30);
    assert_eq!(g.rolled_back_turns().len(), 30, "each rollback undid the one move made after its target");
    verify(&dir, Some([5; 32])).unwrap();
}
