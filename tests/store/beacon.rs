//! A public beacon (docs/dice.md, section 6): named at the creation, before any join; joins close
//! when its value becomes public; the start waits for the value and mixes it into the key. Then
//! nothing the operator controls before the start (phrases, seats, car numbers, the order of the
//! joins) steers the key, which the levers below, ground as an operator would, show.

use steward::dice::{Scheme, derive};
use steward::engine::Die;
use steward::store::files::Kind;
use steward::store::verify::{trust_lines, verify};
use steward::store::{Beacon, Join, Meta, NewGame, Stamp, Store, StoreError};

use super::{python, scratch};

fn at(t: Stamp) -> Meta {
    Meta { at: t, source: None }
}

#[test]
fn a_beacon_game_starts_only_with_its_value_once_it_is_public() {
    let dir = scratch("beacon-flow");
    let store = Store::new(&dir);
    let now = Stamp::parse("2026-12-01T10:00:00Z").unwrap();
    let beacon = Beacon::parse("nist", "2026-12-01T12:00:00Z").unwrap();
    assert!(beacon.source.contains("1796126400000"), "{}", beacon.source);
    // A beacon already public is no beacon.
    let stale = NewGame {
        beacon: Some(Beacon::parse("nist", "2026-12-01T09:00:00Z").unwrap()),
        ..NewGame::plain("old", "sprint", 1)
    };
    assert!(matches!(store.create(&stale, [1; 32], at(now)), Err(StoreError::BadSetting(_))));
    let req = NewGame { beacon: Some(beacon.clone()), ..NewGame::plain("bc", "sprint", 1) };
    let mut h = store.create(&req, [1; 32], at(now)).unwrap();
    assert_eq!(h.game().setup.beacon.as_deref(), Some(beacon.source.as_str()));
    assert_eq!(h.game().setup.beacon_at.as_deref(), Some("2026-12-01T12:00:00Z"));
    h.join(&Join::plain("a@x.invalid", "ta", 1), at(Stamp(now.0 + 60))).unwrap();
    h.join(&Join::plain("b@x.invalid", "tb", 2), at(Stamp(now.0 + 120))).unwrap();
    // From the beacon's minute on, no seat is taken: its value could steer the key.
    let late = h.join(&Join::plain("c@x.invalid", "tc", 3), at(beacon.at));
    assert!(matches!(late, Err(StoreError::JoinsClosed(_))), "{late:?}");
    let value = "ab".repeat(64);
    let refused = |r: Result<&steward::store::files::TurnFile, StoreError>, want: &str| match r {
        Err(StoreError::BadModeration(why)) => assert!(why.contains(want), "{why}"),
        other => panic!("{other:?}"),
    };
    refused(h.start_with(None, at(Stamp(beacon.at.0 + 60))), "START BEACON");
    refused(h.start_with(Some(&value), at(Stamp(beacon.at.0 - 60))), "not public before");
    refused(h.start_with(Some("12ab"), at(Stamp(beacon.at.0 + 60))), "64 or 128 hex digits");
    let t = h.start_with(Some(&value), at(Stamp(beacon.at.0 + 60))).unwrap().clone();
    assert_eq!(t.kind, Kind::Start);
    assert_eq!(t.beacon.as_deref(), Some(value.as_str()));
    // The key is v2's with the beacon mixed in.
    let pairs: Vec<(u8, &str)> = vec![(1, ""), (2, "")];
    let want = Scheme::V3.key("bc", &[1; 32], &value, &pairs);
    assert_eq!(h.game().now.key, Some(want));
    assert_ne!(Scheme::V3.key("bc", &[1; 32], "", &pairs), want, "without the value, another key");
    // Both verifiers name the beacon, so that each player checks the value at its source.
    let gdir = dir.join("bc");
    let lines = trust_lines(&verify(&gdir, Some([1; 32])).unwrap().game);
    assert!(lines[0].starts_with("public beacon NIST Randomness Beacon pulse of 2026-12-01T12:00:00Z"), "{lines:?}");
    let out = python(&["tools/verify_game.py", gdir.to_str().unwrap(), "--seed", &"01".repeat(32)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success() && text.contains(&format!("= {value}: check that value at its source")), "{text}");
    // A game without a beacon says what that leaves open.
    let plain = store.create(&NewGame::plain("nb", "sprint", 1), [2; 32], at(now)).unwrap();
    assert!(trust_lines(plain.game())[0].starts_with("no public beacon"));
}

/// The operator's target: car 1's first roll is a 1 on the black die (a stall at the start,
/// 9-1-1: one chance in 20).
fn hit(key: &[u8; 32]) -> bool {
    derive(key, "0/0/start/0@0000000000000000", Die::Black) == 1
}

/// A beacon value nobody knows before the start: one per trial.
fn beacon_of(trial: u32) -> String {
    hex::encode(steward::dice::sim_key(u64::from(trial), "beacon"))
}

#[test]
fn grinding_the_levers_against_a_beacon_finds_no_better_than_chance() {
    let seed = [7u8; 32];
    let honest: Vec<(u8, String)> = vec![(1, "ann".into()), (2, String::new()), (3, "carla".into())];
    let key_with = |extra: (u8, String), beacon: &str, order: &[usize]| {
        let mut all = honest.clone();
        all.push(extra);
        let ordered: Vec<(u8, &str)> = order.iter().map(|&i| (all[i].0, all[i].1.as_str())).collect();
        Scheme::V3.key("g", &seed, beacon, &ordered)
    };
    let order = [0, 1, 2, 3];
    let (trials, tries) = (200u32, 60u32);
    // Lever 1, a sock puppet's phrase joined last; lever 2, a bot seat's car number (95 free).
    // Without a beacon the operator, who holds the seed, tries until the target is hit.
    let phrase = |trial: u32, i: u32| (9u8, format!("puppet {trial} {i}"));
    let number = |_: u32, i: u32| (5 + (i % 95) as u8, String::new());
    for (lever, pick) in [("phrase", &phrase as &dyn Fn(u32, u32) -> (u8, String)), ("car number", &number)] {
        let mut without = 0;
        let mut with = 0;
        for trial in 0..trials {
            // No beacon: search among the lever's values.
            let g = |i: u32| key_with(pick(trial, i), "", &order);
            if (0..tries).any(|i| hit(&g(i))) {
                without += 1;
            }
            // With a beacon the seats close before its value is known: the operator's best
            // guess (the value that hits under an empty beacon) meets the real value.
            let chosen = (0..tries).find(|&i| hit(&key_with(pick(trial, i), "", &order))).unwrap_or(0);
            if hit(&key_with(pick(trial, chosen), &beacon_of(trial), &order)) {
                with += 1;
            }
        }
        eprintln!("{lever}: target hit in {without}/{trials} races without a beacon, {with}/{trials} with one");
        // Chance is 1 in 20 (10 of 200, standard deviation about 3).
        assert!(without >= trials * 9 / 10, "{lever}: without a beacon the operator steers: {without}/{trials}");
        assert!(with <= 22, "{lever}: with a beacon no better than chance: {with}/{trials}");
    }
    // Lever 3, the order the joins are processed in: the key does not change at all (v2/v3 take
    // the phrases by car number).
    let extra = (9u8, "puppet".to_string());
    let k = key_with(extra.clone(), "b", &order);
    for o in [[3, 2, 1, 0], [1, 0, 3, 2], [2, 3, 0, 1]] {
        assert_eq!(key_with(extra.clone(), "b", &o), k, "join order {o:?}");
    }
}
