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

use super::{code_in, mails_of, scratch};

pub(super) const STEWARD: &str = "steward@crash.invalid";
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
pub(super) fn write_config(root: &std::path::Path) -> std::path::PathBuf {
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
    serve_crashing(config, crash_after, None)
}

/// One `steward serve --once`, aborted at write step `crash_after`, or as the first write of
/// a file named `before` begins, if given.
fn serve_crashing(config: &std::path::Path, crash_after: Option<u64>, before: Option<&str>) -> std::process::Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_steward"));
    c.args(["serve", "--once", "--config"]).arg(config);
    if let Some(n) = crash_after {
        c.env(steward::store::fsio::CRASH_ENV, n.to_string());
    }
    if let Some(name) = before {
        c.env(steward::store::fsio::CRASH_BEFORE_ENV, name);
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
                    + m.full_body.matches("Accusé de réception de votre message").count();
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
    mails_of(root, address).iter().map(|m| format!("{}\n=====\n", m.full_body)).collect()
}

/// The UNWATCH with the code the bare UNWATCH before it mailed (read when it is sent).
const UNWATCH_CONFIRM: &str = "<UNWATCH g CONFIRM the code mailed>";

/// Issue 45, item 8: WATCH, UNWATCH and ABSENT CANCEL changed the daemon's state before the
/// commit point, so a mail read again after a crash was answered "you do not watch" or "no
/// absence to cancel", or its announcement was lost. Each command's mail (ABSENT, ABSENT
/// CANCEL, WATCH, UNWATCH, REPORTS, POLICY, ROLLBACK, RETIRE) is read by a daemon that aborts
/// after 1, 2, 4, 7... write steps, until one run gets through: the state is the first time's
/// (a rollback drops the gears sent ahead even when the crash came between the two), and the
/// refusal a second reading would give is never mailed.
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
    let addr = |c: u8| format!("d{c}@crash.invalid");
    say(MOD, "TOKEN m\nCREATE g TRACK sprint LAPS 1 CARS 3");
    for c in 1..=3 {
        say(&addr(c), &format!("JOIN g CAR {c}"));
    }
    assert!(serve(None));
    let mut tokens = Vec::new();
    for c in 1..=3 {
        let mut d = Player::new(&addr(c), c, &root.join("mail").join(addr(c)), false).unwrap();
        say(&addr(c), &d.confirmed_join(&format!("JOIN g CAR {c}")).unwrap());
        assert!(serve(None));
        d.read_token().unwrap();
        tokens.push(d.token.clone().unwrap());
    }
    let signed = |c: u8, orders: &str| format!("GAME g\nCAR {c}\nTOKEN {}\n{orders}", tokens[c as usize - 1]);
    say(MOD, "GAME g\nTOKEN m\nSTART");
    assert!(serve(None));
    let judge = || std::fs::read_to_string(root.join("state/games/g/judge.toml")).unwrap_or_default();
    let state = |file: &str| std::fs::read_to_string(root.join("state/games/g").join(file)).unwrap_or_default();
    let game = || Store::new(root.join("games")).load("g", None).unwrap();
    let start = game().turns.iter().find(|t| t.kind == steward::store::files::Kind::Start).unwrap().turn;
    // Car 3 sends its gear ahead, then car 1 (on pole) moves: car 3's gear waits for car 2.
    say(&addr(3), &signed(3, "GEAR 1"));
    assert!(serve(None));
    say(&addr(1), &signed(1, "GEAR 1"));
    assert!(serve(None));
    assert!(state("car-3.toml").contains("gear = 1"), "car 3's gear waits: {}", state("car-3.toml"));
    assert!(
        game().turns.last().unwrap().kind == steward::store::files::Kind::Move,
        "car 1 moved: {}",
        mailbox_text(&root, &addr(1))
    );
    // WATCH needs the code mailed to the address (issue 45, item 6).
    say("fan@crash.invalid", "WATCH g");
    assert!(serve(None));
    let code = code_in(&mailbox_text(&root, "fan@crash.invalid"), "WATCH g CONFIRM ");
    // Who sends, the mail, the refusal a re-read must not give, the state after.
    type Check = Box<dyn Fn() -> bool>;
    let file = |f: &'static str, has: &'static str, want: bool| -> Check {
        let dir = root.join("state/games/g");
        Box::new(move || std::fs::read_to_string(dir.join(f)).unwrap_or_default().contains(has) == want)
    };
    let games = root.join("games");
    // Rolled back, and car 3's gear sent ahead dropped, whichever write the rollback crashed at.
    let car3 = file("car-3.toml", "gear", false);
    let rolled_back: Check = Box::new(move || {
        let g = Store::new(games.clone()).load("g", None).unwrap();
        g.turns.last().is_some_and(|t| t.kind == steward::store::files::Kind::Rollback) && car3()
    });
    let cases: Vec<(String, String, &str, &str, Check)> = vec![
        (
            addr(1),
            signed(1, "ABSENT 2099-03-01 2099-03-02"),
            "refused",
            "judge.toml",
            file("judge.toml", "2099-03-01", true),
        ),
        (
            addr(1),
            signed(1, "ABSENT CANCEL"),
            "no absence to cancel",
            "judge.toml",
            file("judge.toml", "2099-03-01", false),
        ),
        ("fan@crash.invalid".into(), format!("WATCH g CONFIRM {code}"), "not the confirmation code", "judge.toml", {
            file("judge.toml", "fan@crash.invalid", true)
        }),
        // A bare UNWATCH mails the code and changes nothing (a forged one stops nobody).
        (
            "fan@crash.invalid".into(),
            "UNWATCH g".into(),
            "do not watch",
            "judge.toml",
            file("judge.toml", "fan@crash.invalid", true),
        ),
        (
            "fan@crash.invalid".into(),
            UNWATCH_CONFIRM.into(),
            "do not watch",
            "judge.toml",
            file("judge.toml", "fan@crash.invalid", false),
        ),
        (
            addr(2),
            signed(2, "REPORTS ALL"),
            "was not kept",
            "reports-2.toml",
            file("reports-2.toml", "mode = \"all\"", true),
        ),
        (
            addr(2),
            signed(2, "POLICY FARTHEST-FREE ELSE SAFEST"),
            "refused",
            "car-2.toml",
            file("car-2.toml", "FARTHEST-FREE", true),
        ),
        (MOD.into(), format!("GAME g\nTOKEN m\nROLLBACK {start}"), "is refused", "car-3.toml", rolled_back),
    ];
    let mut crashed = 0;
    // The mail in the inbox read by runs that crash at write step 1, 2, 4, 7..., each getting
    // further (a reply with its picture is thousands of 64-byte steps), until one gets through;
    // the number of crashes.
    let crash_through = |what: &str| {
        let (mut steps, mut crashes) = (1, 0);
        while !serve(Some(steps)) {
            crashes += 1;
            steps += 1 + steps / 2;
            assert!(steps < 1 << 26, "{what}: the daemon never got through");
        }
        crashes
    };
    for (who, body, refusal, before, state_ok) in cases {
        let body = if body == UNWATCH_CONFIRM {
            format!("UNWATCH g CONFIRM {}", code_in(&mailbox_text(&root, "fan@crash.invalid"), "UNWATCH g CONFIRM "))
        } else {
            body
        };
        say(&who, &body);
        // A crash between the job's two writes (the rollback's turn and the gear it drops; the
        // judge state or standing orders and the reply), then at counted steps.
        if !serve_crashing(&config, None, Some(before)).status.success() {
            crashed += 1;
        }
        crashed += crash_through(&body);
        assert!(serve(None));
        assert!(state_ok(), "{body}: {}\ncar 3: {}", judge(), state("car-3.toml"));
        let mails = mailbox_text(&root, &who);
        assert!(!mails.contains(refusal), "{body}: answered `{refusal}` after a crash:\n{mails}");
    }
    // RETIRE asks for its code, then RETIRE CONFIRM takes car 1 out, crashed at every write.
    say(&addr(1), &signed(1, "RETIRE"));
    assert!(serve(None));
    let code = code_in(&mailbox_text(&root, &addr(1)), "RETIRE CONFIRM ");
    say(&addr(1), &signed(1, &format!("RETIRE CONFIRM {code}")));
    crashed += crash_through("RETIRE CONFIRM");
    assert!(serve(None));
    let g = game();
    assert_eq!(g.turns.iter().filter(|t| t.kind == steward::store::files::Kind::Player).count(), 1, "retired once");
    assert!(
        g.now
            .race
            .as_ref()
            .unwrap()
            .state
            .cars
            .iter()
            .any(|c| c.number == 1 && matches!(c.status, steward::engine::state::Status::Eliminated { .. })),
        "car 1 is out"
    );
    let mails = mailbox_text(&root, &addr(1));
    assert!(!mails.contains("not the confirmation code"), "{mails}");
    assert!(crashed >= 20, "the daemon was stopped {crashed} times");
    let players = mailbox_text(&root, &addr(2));
    assert!(players.contains("fan@crash.invalid now watches"), "the announcement survives the crashes");
    assert!(players.contains("the absence is cancelled"), "{players}");
}
