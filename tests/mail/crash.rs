//! Exactly once across crashes: `steward serve --once` is killed (by the store's fault
//! injection, `STEWARD_CRASH_AFTER`, which aborts the process at the N-th write step as
//! `kill -9` would) at random points while a race is played by mail, with noise mails mixed in,
//! until 1,000 mails have been sent. Then: every mail is in the ledger once, no order applied
//! twice, every reply delivered exactly once, and the game verifies.

use std::collections::{HashMap, HashSet};
use std::process::Command;

use steward::demo::Player;
use steward::engine::bot::Bot;
use steward::judge::config::moderator_token_hash;
use steward::judge::ledger::Ledger;
use steward::judge::outbox::Outbox;
use steward::mail::message::Incoming;
use steward::mail::transport::deliver;
use steward::store::Store;
use steward::store::fsio::Durability;

use super::scratch;

const STEWARD: &str = "steward@crash.invalid";
const MOD: &str = "mod@crash.invalid";

/// A small deterministic generator (the test must be repeatable).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

/// The daemon's configuration under `root` (Maildirs, moderator token `m`); its path.
fn write_config(root: &std::path::Path) -> std::path::PathBuf {
    let config = root.join("steward.toml");
    std::fs::write(
        &config,
        format!(
            "address = \"{STEWARD}\"\ngames = \"games\"\nstate = \"state\"\npoll_seconds = 1\nrate_per_hour = 1000000\n\
             [inbox]\nkind = \"maildir\"\ndir = \"mail/{STEWARD}\"\n[send]\nkind = \"maildir\"\ndir = \"mail\"\n\
             [[moderator]]\naddress = \"{MOD}\"\ntoken_sha256 = \"{}\"\n",
            moderator_token_hash("m")
        ),
    )
    .unwrap();
    config
}

/// One `steward serve --once`, aborted at write step `crash_after` if given.
fn serve_once(config: &std::path::Path, crash_after: Option<u64>) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_steward"));
    c.args(["serve", "--once", "--config"]).arg(config);
    if let Some(n) = crash_after {
        c.env("STEWARD_CRASH_AFTER", n.to_string());
    }
    c.output().unwrap()
}

#[test]
fn killing_the_daemon_at_random_points_loses_and_doubles_nothing() {
    let root = scratch("crash");
    let config = write_config(&root);
    let inbox = root.join("mail").join(STEWARD);
    let sent = std::cell::Cell::new(0u32);
    // Mails each address sent.
    let by = std::cell::RefCell::new(HashMap::<String, usize>::new());
    let say = |from: &str, body: &str| {
        sent.set(sent.get() + 1);
        *by.borrow_mut().entry(from.to_string()).or_default() += 1;
        let raw = format!(
            "From: {from}\r\nTo: {STEWARD}\r\nSubject: o\r\nMessage-ID: <c{}@crash.invalid>\r\n\r\n{body}\r\n",
            sent.get()
        );
        deliver(&inbox, raw.as_bytes()).unwrap();
    };
    let mut rng = Lcg(2026);
    let crashes = std::cell::Cell::new(0u32);
    let serve = |crash_after: Option<u64>| {
        let out = serve_once(&config, crash_after);
        if !out.status.success() {
            assert!(
                crash_after.is_some(),
                "a run without fault injection failed: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            crashes.set(crashes.get() + 1);
        }
    };
    say(MOD, "TOKEN m\nCREATE race TRACK sprint LAPS 1 CARS 4");
    let mut players = Vec::new();
    for car in 1..=4u8 {
        let a = format!("d{car}@crash.invalid");
        say(&a, &format!("JOIN race CAR {car}"));
        let mut p = Player::new(&a, car, &root.join("mail").join(&a), car == 4).unwrap();
        if car == 2 {
            // Round orders (issue 46): car 2's gear goes with its DRIVE, sent ahead.
            p.drive = Some(steward::demo::DEMO_DRIVE.to_string());
        }
        players.push(p);
    }
    serve(None);
    // Each address confirms its JOIN with the code mailed to it (issue 45).
    for p in &mut players {
        let confirmed = p.confirmed_join(&format!("JOIN race CAR {}", p.car)).unwrap();
        say(&p.address.clone(), &confirmed);
        serve(None);
    }
    for p in &mut players {
        p.read_token().unwrap();
    }
    let t4 = players[3].token.clone().unwrap();
    say("d4@crash.invalid", &format!("GAME race\nCAR 4\nTOKEN {t4}\nPOLICY BOT"));
    say(MOD, "GAME race\nTOKEN m\nSTART");
    let store = Store::new(root.join("games"));
    let mut bot = Bot::new();
    let noise = ["HELP", "GAME race\nBOARD", "GEAR 9", "hello\n\nLANG fr\nHELP", "GAME race\nCAR 1\nTOKEN bad\nGEAR 2"];
    while sent.get() < 1000 {
        let crash = (!rng.next().is_multiple_of(3)).then(|| 1 + rng.next() % 300);
        serve(crash);
        let g = store.load("race", None).unwrap();
        for p in &mut players {
            if let Some(body) = p.answer(&g, &mut bot).unwrap() {
                say(&p.address.clone(), &body);
            }
        }
        for _ in 0..(rng.next() % 3) {
            let who = format!("d{}@crash.invalid", 1 + rng.next() % 4);
            say(&who, noise[(rng.next() % noise.len() as u64) as usize]);
        }
    }
    // Let the daemon finish everything without faults.
    serve(None);
    serve(None);
    let (sent, crashes) = (sent.get(), crashes.get());
    assert!(crashes > 100, "the test crashed the daemon {crashes} times");

    // Every mail read once: one ledger entry per mail, the inbox has nothing new.
    let ledger = Ledger::open(&root.join("state"), Durability::NoSync).unwrap();
    let entries = ledger.entries().unwrap();
    assert_eq!(entries.len(), sent as usize, "one ledger entry per mail");
    let mids: HashSet<_> = entries.iter().filter_map(|e| e.message_id.clone()).collect();
    assert_eq!(mids.len(), sent as usize);

    // No order applied twice: a message's turns are distinct (kind, car).
    let g = store.load("race", None).unwrap();
    assert!(g.now.over, "the race was played to its end ({} turns)", g.next_turn());
    let mut seen: HashMap<(String, String, Vec<u8>, bool), u32> = HashMap::new();
    for t in &g.turns {
        let Some(mid) = t.source.as_ref().and_then(|s| s.message_id.clone()) else { continue };
        let cars: Vec<u8> = t.orders.iter().map(|o| o.car).collect();
        let gear = t.orders.iter().any(|o| o.gear.is_some());
        let k = (mid, t.kind.name().to_string(), cars, gear);
        *seen.entry(k.clone()).or_default() += 1;
        assert_eq!(seen[&k], 1, "turn {} repeats {k:?}", t.turn);
    }
    steward::store::verify::verify(&store.game_dir("race"), None).unwrap();
    let by_drive = g.turns.iter().filter(|t| t.source.as_ref().and_then(|s| s.by.as_deref()) == Some("drive")).count();
    assert!(by_drive > 0, "car 2's DRIVE decided some of its moves through the crashes");

    // Every reply delivered exactly once.
    let outbox = Outbox::open(&root.join("state"), Durability::NoSync).unwrap();
    assert!(outbox.pending().unwrap().is_empty(), "the outbox is empty at the end");
    let sent_ids: HashSet<String> = outbox.sent().unwrap().into_iter().collect();
    let promised: HashSet<String> = entries.iter().flat_map(|e| e.replies.clone()).collect();
    assert_eq!(sent_ids, promised, "every reply the ledger promises was sent, and nothing else");
    let mut delivered = 0;
    for e in std::fs::read_dir(root.join("mail")).unwrap() {
        let mbox = e.unwrap().path();
        if mbox.ends_with(STEWARD) {
            continue;
        }
        let mut ids = HashSet::new();
        let mut receipts = 0;
        for sub in ["new", "cur"] {
            for f in std::fs::read_dir(mbox.join(sub)).unwrap() {
                let m = Incoming::parse(&std::fs::read(f.unwrap().path()).unwrap()).unwrap();
                receipts += m.full_body.matches("Receipt for your message").count()
                    + m.full_body.matches("Accuse de reception de votre message").count();
                assert!(
                    ids.insert(m.message_id.clone()),
                    "{} twice in {}",
                    m.message_id.unwrap_or_default(),
                    mbox.display()
                );
                delivered += 1;
            }
        }
        // Every mail an address sent is receipted once: at once, or held for that player's
        // next mail (report modes) and delivered with it, the race's end at the latest.
        let address = mbox.file_name().unwrap().to_string_lossy().to_string();
        let mails = by.borrow().get(&address).copied().unwrap_or(0);
        assert_eq!(receipts, mails, "{address}: {receipts} receipts for {mails} mails");
    }
    assert!(delivered >= promised.len(), "{delivered} delivered for {} replies", promised.len());
}

/// Every mail `address` received, as text (its Maildir's `new/` and `cur/`).
fn mailbox_text(root: &std::path::Path, address: &str) -> String {
    let mut out = String::new();
    for sub in ["new", "cur"] {
        for e in std::fs::read_dir(root.join("mail").join(address).join(sub)).into_iter().flatten().flatten() {
            let raw = std::fs::read(e.path()).unwrap();
            if let Ok(m) = Incoming::parse(&raw) {
                out.push_str(&m.full_body);
                out.push_str("\n=====\n");
            }
        }
    }
    out
}

/// Issue 45, item 8: WATCH, UNWATCH and ABSENT CANCEL changed the daemon's state before the
/// commit point, so a mail read again after a crash was answered "you do not watch" or "no
/// absence to cancel", or its announcement was lost. Each command's mail is read by a daemon
/// that aborts after 1, 2, 4, 7... write steps, until one run gets through: the answer is the
/// first time's, the state is right, and the refusal is never mailed.
#[test]
fn a_crash_at_any_write_of_a_judge_command_answers_as_the_first_time() {
    let root = scratch("crash-judge");
    let config = write_config(&root);
    let inbox = root.join("mail").join(STEWARD);
    let mut n = 0;
    let mut say = |from: &str, body: &str| {
        n += 1;
        let raw = format!(
            "From: {from}\r\nTo: {STEWARD}\r\nSubject: o\r\nMessage-ID: <j{n}@crash.invalid>\r\n\r\n{body}\r\n"
        );
        deliver(&inbox, raw.as_bytes()).unwrap();
    };
    // Whether the run got through (no fault injected, or not reached).
    let serve = |crash_after: Option<u64>| serve_once(&config, crash_after).status.success();
    say(MOD, "TOKEN m\nCREATE g TRACK sprint LAPS 1 CARS 2");
    say("d1@crash.invalid", "JOIN g CAR 1");
    say("d2@crash.invalid", "JOIN g CAR 2");
    assert!(serve(None));
    let mut d1 = Player::new("d1@crash.invalid", 1, &root.join("mail").join("d1@crash.invalid"), false).unwrap();
    let mut d2 = Player::new("d2@crash.invalid", 2, &root.join("mail").join("d2@crash.invalid"), false).unwrap();
    say("d1@crash.invalid", &d1.confirmed_join("JOIN g CAR 1").unwrap());
    say("d2@crash.invalid", &d2.confirmed_join("JOIN g CAR 2").unwrap());
    assert!(serve(None));
    d1.read_token().unwrap();
    let t1 = d1.token.clone().unwrap();
    say(MOD, "GAME g\nTOKEN m\nSTART");
    say("d1@crash.invalid", &format!("GAME g\nCAR 1\nTOKEN {t1}\nABSENT 2099-01-01 2099-01-02"));
    assert!(serve(None));
    let judge = || std::fs::read_to_string(root.join("state/games/g/judge.toml")).unwrap_or_default();
    assert!(judge().contains("2099-01-01"), "the absence is kept: {}", judge());
    // WATCH needs the code mailed to the address (issue 45, item 6).
    say("fan@crash.invalid", "WATCH g");
    assert!(serve(None));
    let asked = mailbox_text(&root, "fan@crash.invalid");
    let at = asked.find("WATCH g CONFIRM ").expect("the code is mailed") + "WATCH g CONFIRM ".len();
    let code: String = asked[at..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
    // Who sends, the mail, the refusal a re-read must not give, the state after.
    type Case = (&'static str, String, &'static str, fn(&str) -> bool);
    let cases: [Case; 3] = [
        ("fan@crash.invalid", format!("WATCH g CONFIRM {code}"), "not the confirmation code", |j| {
            j.contains("fan@crash.invalid")
        }),
        ("fan@crash.invalid", "UNWATCH g".into(), "do not watch", |j| !j.contains("fan@crash.invalid")),
        ("d1@crash.invalid", format!("GAME g\nCAR 1\nTOKEN {t1}\nABSENT CANCEL"), "no absence to cancel", |j| {
            !j.contains("2099-01-01")
        }),
    ];
    let mut crashed = 0;
    for (who, body, refusal, state_ok) in cases {
        say(who, &body);
        // Each run gets further (a reply with its picture is thousands of 64-byte steps).
        let mut steps = 1;
        while !serve(Some(steps)) {
            crashed += 1;
            steps += 1 + steps / 2;
            assert!(steps < 1 << 26, "{body}: the daemon never got through");
        }
        assert!(serve(None));
        assert!(state_ok(&judge()), "{body}: {}", judge());
        let mails = mailbox_text(&root, who);
        assert!(!mails.contains(refusal), "{body}: answered `{refusal}` after a crash:\n{mails}");
    }
    assert!(crashed >= 6, "the daemon was stopped {crashed} times");
    let players = mailbox_text(&root, "d2@crash.invalid");
    assert!(players.contains("fan@crash.invalid now watches"), "the announcement survives the crashes");
    assert!(players.contains("the absence is cancelled"), "{players}");
}
