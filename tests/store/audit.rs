//! `steward audit`: fair dice pass, loaded dice and impossible rolls are flagged.

use steward::store::files::TurnFile;

use super::{copy_dir, keep, scratch};
use crate::support::steward;

#[test]
fn fair_dice_pass_and_loaded_dice_are_flagged() {
    let dir = scratch("audit");
    let games = keep(&dir, "sprint", 6, 1, 12, 21);
    let out = steward(&["audit", "--games", &dir.display().to_string()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(
        text.contains("Audit of 12 game(s)") && text.contains("gear4-d12:") && text.contains("Nothing improbable"),
        "{text}"
    );
    assert!(text.contains(" 12 | #"), "a histogram: {text}");

    // Load the dice: every 4th-gear roll made a 12 in a copy of the games.
    let loaded = scratch("audit-loaded");
    for g in &games {
        let to = loaded.join(g.file_name().unwrap());
        copy_dir(g, &to);
        for e in std::fs::read_dir(to.join("turns")).unwrap().flatten() {
            let mut t: TurnFile = toml::from_str(&std::fs::read_to_string(e.path()).unwrap()).unwrap();
            for r in t.rolls.iter_mut().filter(|r| r.die == "gear4-d12") {
                r.face = 11;
                r.value = 12;
            }
            std::fs::write(e.path(), toml::to_string(&t).unwrap()).unwrap();
        }
    }
    let out = steward(&["audit", "--games", &loaded.display().to_string()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("FLAG: the counts are improbable") && text.contains("FLAG: a run of"), "{text}");

    // An impossible roll: a value that is not its face's.
    let t0 = games[0].join("turns");
    let f = std::fs::read_dir(&t0).unwrap().flatten().map(|e| e.path()).find(|p| {
        let t: TurnFile = toml::from_str(&std::fs::read_to_string(p).unwrap()).unwrap();
        !t.rolls.is_empty()
    });
    let f = f.unwrap();
    let mut t: TurnFile = toml::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
    t.rolls[0].value = 99;
    std::fs::write(&f, toml::to_string(&t).unwrap()).unwrap();
    let out = steward(&["audit", &games[0].display().to_string()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("impossible roll"), "{text}");
}
