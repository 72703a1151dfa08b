//! Dice checked from the mails alone (docs/dice.md, sections 5 and 6; issue 12): every mail of a
//! demo race carries the receipt block, and each attack an operator could make on the stored
//! game (re-seed before the start with re-chained turns, a deleted tail, a phrase changed in a
//! join turn, a roll removed, the turns re-hashed) is caught by `steward verify --mail` with a
//! player's real mails and by the independent verifier.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use mail_parser::MessageParser;
use steward::demo::{DemoSpec, run, run_with};
use steward::dice::{Scheme, commitment_v2};
use steward::mail::verify::verify_mail;
use steward::store::hash::{hex32, sha256_hex};

use super::scratch;
use crate::support::steward;

const GAME: &str = "dicemail";

fn spec(dir: &Path) -> DemoSpec {
    super::sprint_demo(dir, GAME, 2, 1, steward::store::qualifying::GridMethod::Join)
}

/// One honest demo race, played once; each test copies it.
fn honest() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = scratch("dicemail-honest");
        run(&spec(&dir)).unwrap();
        dir
    })
}

fn copy(name: &str) -> PathBuf {
    let dir = scratch(&format!("dicemail-{name}"));
    copy_tree(honest(), &dir);
    dir
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap() {
        let e = e.unwrap();
        let p = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_tree(&e.path(), &p);
        } else {
            std::fs::copy(e.path(), p).unwrap();
        }
    }
}

fn mailbox(dir: &Path, car: u8) -> PathBuf {
    dir.join("mail").join(format!("driver{car}@demo.invalid"))
}

fn game_dir(dir: &Path) -> PathBuf {
    dir.join("games").join(GAME)
}

fn turn_file(dir: &Path, n: u32) -> PathBuf {
    game_dir(dir).join("turns").join(format!("{n:04}.toml"))
}

fn turns(dir: &Path) -> u32 {
    std::fs::read_dir(game_dir(dir).join("turns")).unwrap().count() as u32
}

/// Rewrites the `prev` of every turn after `from` so that the chain holds again, as an operator
/// covering an edit would.
fn rechain(dir: &Path, from: u32) {
    for n in from + 1..turns(dir) {
        let prev = sha256_hex(&std::fs::read(turn_file(dir, n - 1)).unwrap());
        let text = std::fs::read_to_string(turn_file(dir, n)).unwrap();
        let text: String = text
            .lines()
            .map(|l| if l.starts_with("prev = ") { format!("prev = \"{prev}\"") } else { l.to_string() })
            .collect::<Vec<_>>()
            .join("\n")
            + "\n";
        std::fs::write(turn_file(dir, n), text).unwrap();
    }
}

fn edit(path: &Path, f: impl FnOnce(String) -> String) {
    let text = std::fs::read_to_string(path).unwrap();
    let new = f(text.clone());
    assert_ne!(new, text, "the edit of {} changed nothing", path.display());
    std::fs::write(path, new).unwrap();
}

/// Both mail verifiers, with the player's mails and the games directory, fail saying `what`.
fn mail_verifiers_fail(dir: &Path, what: &str) {
    let m = mailbox(dir, 1).display().to_string();
    let games = dir.join("games").display().to_string();
    let out = steward(&["verify", "--mail", &m, "--games", &games]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "steward verify --mail should fail: {text}");
    assert!(text.contains(what), "steward: `{text}` does not say `{what}`");
    let out = crate::store::python(&["tools/verify_game.py", "--mail", &m, "--games", &games]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "verify_game.py --mail should fail: {text}");
    assert!(text.contains(what), "python: `{text}` does not say `{what}`");
}

fn python_dir(dir: &Path) -> (Option<i32>, String) {
    let out = crate::store::python(&["tools/verify_game.py", &game_dir(dir).display().to_string()]);
    (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn every_first_mail_carries_the_commitment_and_every_report_its_receipt() {
    let dir = honest();
    let g = steward::store::verify::verify(&game_dir(dir), None).unwrap().game;
    let commitment = g.setup.commitment.clone();
    for car in 1..=2u8 {
        let mut mails: Vec<(i64, String, String)> = Vec::new();
        for sub in ["new", "cur"] {
            for f in std::fs::read_dir(mailbox(dir, car).join(sub)).unwrap() {
                let path = f.unwrap().path();
                let raw = std::fs::read(&path).unwrap();
                let m = MessageParser::default().parse(&raw).unwrap();
                // Delivery order: the date, then the sender's delivery counter in the Maildir
                // name (`<secs>.M<usecs>P<pid>Q<n>`), since mails a second apart share a date.
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let q: i64 = name
                    .split_once('Q')
                    .map(|(_, r)| r.chars().take_while(char::is_ascii_digit).collect::<String>())
                    .and_then(|d| d.parse().ok())
                    .unwrap_or(0);
                let date = m.date().unwrap().to_timestamp() * 1_000_000_000 + q;
                mails.push((
                    date,
                    m.subject().unwrap_or("").to_string(),
                    m.body_text(0).unwrap().replace("\r\n", "\n"),
                ));
            }
        }
        mails.sort();
        // The commitment reaches the player before any mail that shows a roll (a receipt to an
        // order that rolls nothing, `POLICY` say, may come first).
        let committed = mails.iter().position(|(_, _, body)| body.contains(&format!("Commitment: {commitment}")));
        let rolled = mails.iter().position(|(_, _, body)| body.contains(" rolls ")).expect("a roll was mailed");
        assert!(
            committed.is_some_and(|c| c <= rolled),
            "car {car}: the first roll came before the commitment:\n{}",
            mails[rolled].2
        );
        let welcome = mails.iter().find(|(_, s, _)| s.contains("you drive car")).unwrap();
        assert!(welcome.2.contains(&format!("Commitment: {commitment}")), "{}", welcome.2);
        // The reports: mailed to every player ("[game] turn N: ..."), or in the reply to the
        // player's own orders ("Re: [game] turn N: ...", "Re: turn N").
        let reports: Vec<_> = mails
            .iter()
            .filter(|(_, s, _)| {
                // A report's subject names game, car, what is asked and the turn (`[game] car 1:
                // your gear (turn N)`); a reply to a report keeps it after `Re: `.
                let s = s.strip_prefix("Re: ").unwrap_or(s);
                s.starts_with(&format!("[{GAME}] ")) && s.contains("(turn ")
            })
            // The acknowledgement of a round order sent ahead (issue 46) is a receipt, not a
            // report: it tells no turn.
            .filter(|(_, _, body)| !body.contains("Received for car") || body.contains("Game: "))
            .collect();

        // Report mode MINE (the default): a mail per decision, about.
        assert!(reports.len() > 10, "car {car} got {} reports", reports.len());
        let mut with_block = 0;
        for (_, _, body) in &reports {
            let head = format!("Game: {GAME}  Turn: ");
            let Some(i) = body.find(&head) else { continue };
            let turn: u32 = body[i + head.len()..].split_whitespace().next().unwrap().parse().unwrap();
            let hash = &g.hashes[turn as usize];
            if body[i..].starts_with(&format!(
                "{head}{turn}  Dice: steward-dice-v3\nReceipt: {hash}\nCommitment: {commitment}\n"
            )) {
                with_block += 1;
            }
        }
        assert_eq!(with_block, reports.len(), "car {car}: every report carries game, turn, receipt and commitment");
    }
}

#[test]
fn an_honest_race_verifies_from_every_players_mails() {
    let dir = honest();
    for car in 1..=2u8 {
        let r = verify_mail(&mailbox(dir, car), Some(&dir.join("games"))).unwrap();
        let g = &r.games[0];
        assert!(g.seed_checked && g.rolls > 10 && g.receipts > 10 && g.replayed, "{g:?}");
        let m = mailbox(dir, car).display().to_string();
        let out = crate::store::python(&["tools/verify_game.py", "--mail", &m]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        assert!(text.contains(&format!("{} mailed roll(s) re-derived, all agree", g.rolls)), "{text}");
    }
    // The same mails exported as an mbox file (mboxrd: `From ` lines in a body quoted as `>From `).
    let mbox = scratch("dicemail-mbox").join("driver1.mbox");
    let mut bytes = Vec::new();
    for sub in ["cur", "new"] {
        for f in std::fs::read_dir(mailbox(dir, 1).join(sub)).unwrap() {
            bytes.extend_from_slice(b"From steward@demo.invalid Sun Nov 22 12:00:00 2026\n");
            for line in std::fs::read(f.unwrap().path()).unwrap().split_inclusive(|&b| b == b'\n') {
                if line.starts_with(b"From ") {
                    bytes.push(b'>');
                }
                bytes.extend_from_slice(line);
            }
            bytes.extend_from_slice(b"\n");
        }
    }
    std::fs::write(&mbox, bytes).unwrap();
    let from_maildir = verify_mail(&mailbox(dir, 1), None).unwrap();
    let from_mbox = verify_mail(&mbox, None).unwrap();
    assert_eq!(from_mbox.mails, from_maildir.mails);
    assert_eq!(from_mbox.games[0].rolls, from_maildir.games[0].rolls);
    let out = crate::store::python(&["tools/verify_game.py", "--mail", &mbox.display().to_string()]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    assert!(text.contains(&format!("{} mail(s) from steward read", from_maildir.mails)), "{text}");
    // Without a seed and without the games directory, nothing is checked: exit 1.
    let only_first = scratch("dicemail-first-only");
    let first = std::fs::read_dir(mailbox(dir, 1).join("cur"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| std::fs::read_to_string(p).unwrap().contains("you drive car"))
        .unwrap();
    std::fs::create_dir_all(only_first.join("cur")).unwrap();
    std::fs::copy(&first, only_first.join("cur").join("welcome")).unwrap();
    let out = steward(&["verify", "--mail", &only_first.display().to_string()]);
    assert_eq!(out.status.code(), Some(4), "nothing to check is not a failure: its own code");
    assert!(String::from_utf8_lossy(&out.stdout).contains("NOT VERIFIED"));
    let out = crate::store::python(&["tools/verify_game.py", "--mail", &only_first.display().to_string()]);
    assert_eq!(out.status.code(), Some(4), "{}", String::from_utf8_lossy(&out.stdout));
}

#[test]
fn the_last_mail_alone_verifies_every_roll_it_carries() {
    // A player who kept nothing but the mail that ends the race (a watcher, a late arrival, a
    // player whose reports were cut short): it carries the seed and the key's other inputs.
    let dir = honest();
    let mut with_rolls = 0;
    for car in 1..=2u8 {
        let last = ["cur", "new"]
            .iter()
            .filter_map(|s| std::fs::read_dir(mailbox(dir, car).join(s)).ok())
            .flatten()
            .map(|e| e.unwrap().path())
            .find(|p| {
                let raw = std::fs::read(p).unwrap();
                let msg = MessageParser::default().parse(&raw).unwrap();
                let t = msg.body_text(0).unwrap();
                t.contains("\nSeed: ")
            })
            .expect("a mail reveals the seed");
        let only = scratch(&format!("dicemail-last-only-{car}"));
        std::fs::create_dir_all(only.join("cur")).unwrap();
        std::fs::copy(&last, only.join("cur").join("last")).unwrap();
        let r = verify_mail(&only, None).unwrap();
        let g = &r.games[0];
        assert!(g.seed_checked && g.lacks.is_none(), "{g:?}");
        with_rolls += usize::from(g.rolls > 0);
        assert!(g.line().contains("no public beacon"), "{}", g.line());
        let out = crate::store::python(&["tools/verify_game.py", "--mail", &only.display().to_string()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success() && text.contains(&format!("{} mailed roll(s) re-derived", g.rolls)), "{text}");
        if g.rolls == 0 {
            continue; // the race ended on this car's choice: its last mail reports no roll
        }
        // Without the phrases (a mail cut before them), the check says what it lacks: exit 4.
        let body = std::fs::read_to_string(only.join("cur").join("last")).unwrap();
        let cut: String =
            body.lines().filter(|l| !l.contains("contributes entropy")).map(|l| format!("{l}\n")).collect();
        std::fs::write(only.join("cur").join("last"), cut).unwrap();
        let out = steward(&["verify", "--mail", &only.display().to_string()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.code() == Some(4) && text.contains("NOT CHECKED"), "{text}");
        let out = crate::store::python(&["tools/verify_game.py", "--mail", &only.display().to_string()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.code() == Some(4) && text.contains("NOT CHECKED"), "{text}");
    }
    assert!(with_rolls > 0, "the last mails carry the last rolls");
}

#[test]
fn a_game_reseeded_before_the_start_is_caught_from_the_mails() {
    let dir = scratch("dicemail-reseed");
    // After the joins, the operator draws another seed (one that suits them), rewrites turn 0,
    // game.toml and secret.toml, and re-chains the join turns; then the race is played out.
    let mut reseed = |g: &Path| -> Result<(), steward::judge::daemon::DaemonError> {
        let seed = [7u8; 32];
        let new = hex32(&commitment_v2(GAME, &seed));
        let old = steward::store::verify::verify(g, None).unwrap().game.setup.commitment;
        for f in ["turns/0000.toml", "game.toml"] {
            edit(&g.join(f), |t| t.replace(&old, &new));
        }
        std::fs::write(g.join("secret.toml"), format!("seed = \"{}\"\n", hex32(&seed))).unwrap();
        let root = g.parent().unwrap().parent().unwrap();
        rechain(root, 0);
        Ok(())
    };
    run_with(&spec(&dir), &mut reseed).unwrap();
    // The files alone cannot tell: both directory verifiers pass.
    steward::store::verify::verify(&game_dir(&dir), None).unwrap();
    assert_eq!(python_dir(&dir).0, Some(0));
    assert_eq!(Scheme::V2.commit(GAME, &[7u8; 32]), commitment_v2(GAME, &[7u8; 32]));
    // The mails can, even without the games directory: the first commitment mailed differs.
    let m = mailbox(&dir, 1).display().to_string();
    let out = steward(&["verify", "--mail", &m]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("re-seeded"), "{text}");
    let out = crate::store::python(&["tools/verify_game.py", "--mail", &m]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(text.contains("re-seeded"), "{text}");
    mail_verifiers_fail(&dir, "re-seeded");
}

#[test]
fn a_deleted_tail_is_caught_from_the_receipts() {
    let dir = copy("tail");
    let n = turns(&dir);
    for t in n - 3..n {
        std::fs::remove_file(turn_file(&dir, t)).unwrap();
    }
    // The shortened chain still verifies on its own (with the operator's secret.toml).
    steward::store::verify::verify(&game_dir(&dir), None).unwrap();
    mail_verifiers_fail(&dir, "turns were deleted");
}

#[test]
fn a_phrase_changed_in_a_join_turn_is_caught_from_the_receipts() {
    let dir = copy("phrase");
    // Turn 2 is car 2's join; its phrase, and the start's copy of it, are changed and re-hashed.
    edit(&turn_file(&dir, 2), |t| t.replace("demo driver 2 says hello", "a phrase that suits me"));
    let start = (3..turns(&dir))
        .find(|&n| std::fs::read_to_string(turn_file(&dir, n)).unwrap().contains("kind = \"start\""))
        .unwrap();
    edit(&turn_file(&dir, start), |t| t.replace("demo driver 2 says hello", "a phrase that suits me"));
    rechain(&dir, 1);
    mail_verifiers_fail(&dir, "the history was rewritten");
    assert_eq!(python_dir(&dir).0, Some(1), "the independent verifier re-derives other dice");
}

#[test]
fn a_roll_removed_from_a_turn_is_caught() {
    let dir = copy("roll");
    // The last roll of a move turn (its event left in place), the turns after it re-hashed.
    let n =
        (5..turns(&dir)).find(|&n| std::fs::read_to_string(turn_file(&dir, n)).unwrap().contains("[[roll]]")).unwrap();
    edit(&turn_file(&dir, n), |t| {
        let i = t.rfind("[[roll]]").unwrap();
        let end = t[i..].find("\n\n").map_or(t.len(), |e| i + e + 2);
        format!("{}{}", &t[..i], &t[end..])
    });
    rechain(&dir, n);
    mail_verifiers_fail(&dir, "the history was rewritten");
    let (code, text) = python_dir(&dir);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains(&format!("turn {n} ")) && text.contains("a roll was removed"), "{text}");
}
