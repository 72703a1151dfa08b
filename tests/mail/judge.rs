//! The commands between races, by mail, in English and French (docs/orders.md, "Between
//! races"): LIST, WATCH / UNWATCH and OBSERVERS, ABSENT, RETIRE, ROLLBACK with its honest dice
//! (a new label namespace, both verifiers), and their refusals.

use std::process::Command;

use steward::engine::{Elimination, Status};

use super::code_in;
use super::daemon::{MOD, MOD_TOKEN};
use super::desk::Desk;

struct World {
    desk: Desk,
}

on_a_desk!(World);

impl World {
    fn new(name: &str) -> World {
        World { desk: Desk::new(&format!("judge-{name}"), |_| {}) }
    }

    fn send(&mut self, from: &str, body: &str) {
        self.desk.mail(from, "j", body);
    }

    /// The new mail of `address`, joined, marked read.
    fn read(&self, address: &str) -> String {
        self.desk.messages(address).into_iter().map(|m| m.full_body).collect::<Vec<_>>().join("\n=====\n")
    }

    /// Creates `g` on sprint with `cars` players; their tokens.
    fn game_with_players(&mut self, g: &str, cars: u8) -> Vec<String> {
        self.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE {g} TRACK sprint LAPS 1 CARS {cars} HOURS 24"));
        (1..=cars)
            .map(|c| {
                let who = p(c);
                self.send(&who, &format!("JOIN {g} CAR {c}"));
                let welcome = self.read(&who);
                super::token_in(&welcome).expect("the welcome carries the token")
            })
            .collect()
    }

    fn signed(&mut self, g: &str, car: u8, tokens: &[String], lines: &str) {
        let body = format!("GAME {g}\nCAR {car}\nTOKEN {}\n{lines}", tokens[car as usize - 1]);
        self.send(&p(car), &body);
    }

    /// Plays the awaited answer: GEAR 1, or the first option.
    fn play_one(&mut self, g: &str, tokens: &[String]) {
        let (car, choice) = self.game(g).awaited().expect("a car is awaited");
        self.signed(g, car, tokens, if choice { "CHOOSE A" } else { "GEAR 1" });
    }
}

fn p(c: u8) -> String {
    format!("p{c}@test.invalid")
}

fn python(args: &[&str]) -> (bool, String) {
    let out =
        Command::new("python3").args(args).current_dir(env!("CARGO_MANIFEST_DIR")).output().expect("python3 runs");
    (out.status.success(), format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr)))
}

#[test]
fn a_rollback_never_rerolls_a_seen_roll_and_both_verifiers_list_it() {
    let mut w = World::new("rollback");
    let t = w.game_with_players("rb", 2);
    w.send(MOD, &format!("GAME rb\nTOKEN {MOD_TOKEN}\nSTART"));
    let start = w.game("rb").next_turn() - 1;
    // Refused before anything: a player is no moderator; a turn before the start.
    w.signed("rb", 1, &t, &format!("ROLLBACK {start}"));
    assert!(w.read(&p(1)).contains("Only a moderator"), "a player cannot roll back");
    w.send(MOD, &format!("GAME rb\nTOKEN {MOD_TOKEN}\nROLLBACK {}", start - 1));
    let r = w.read(MOD);
    assert!(r.contains("before the start"), "{r}");
    // Both cars move once, then the car awaited shows its 2nd-gear roll. A car that stalled at
    // the start (a 1 on the black die, 9-1-1: one game in twenty, the seed being the OS's)
    // stands in no gear and must start in 1st: it is played on until it is moving.
    let standing = |g: &steward::store::Game| {
        let (car, _) = g.awaited().unwrap();
        g.now.race.as_ref().unwrap().state.cars.iter().any(|c| c.number == car && c.gear == 0)
    };
    while w.game("rb").now.race.as_ref().unwrap().moves < 2
        || w.game("rb").awaited().unwrap().1
        || standing(&w.game("rb"))
    {
        w.play_one("rb", &t);
    }
    let target = w.game("rb").next_turn() - 1;
    let (car, _) = w.game("rb").awaited().unwrap();
    w.signed("rb", car, &t, "GEAR 2");
    let seen = w.game("rb").turns[target as usize + 1].rolls[0].clone();
    // The move's roll of the round the car plays in (round 3, or later after a stall).
    let round: u32 = seen.label.split('/').next().unwrap().parse().unwrap();
    assert!(round >= 3 && seen.label.contains("/move/0@") && seen.die == "gear2-d6", "{seen:?}");
    let mail_before = w.read(&p(car));
    assert!(mail_before.contains(&seen.label), "the player saw the roll: {mail_before}");
    // FR refusal first (a rolled-back line cannot be the target later; here: past the end).
    w.send(MOD, &format!("LANGUE fr\nPARTIE rb\nJETON {MOD_TOKEN}\nREVENIR {}", target + 5));
    assert!(w.read(MOD).contains("REVENIR"), "refused in French");
    // The moderator rolls back to the end of the turn before the gear.
    w.send(MOD, &format!("GAME rb\nTOKEN {MOD_TOKEN}\nROLLBACK {target}"));
    let g = w.game("rb");
    let rb = g.turns.last().unwrap();
    assert_eq!(rb.kind, steward::store::files::Kind::Rollback);
    assert_eq!(rb.rollback.as_ref().map(|r| (r.to, r.epoch)), Some((target, 1)));
    assert!(rb.events[0].text.contains("the same decisions give the same dice"), "{:?}", rb.events);
    assert!(g.rolled_back_turns().contains(&(target + 1)), "the turn with the seen roll is rolled back");
    assert_eq!(g.awaited(), Some((car, false)), "the car is asked for its gear again");
    let news = w.read(&p(3 - car));
    assert!(news.contains("rolls the game back to the end of turn"), "every player is told: {news}");
    // The same gear again: the same roll, under the same label (a rollback never re-rolls).
    w.signed("rb", car, &t, "GEAR 2");
    let again = w.game("rb").turns.last().unwrap().rolls[0].clone();
    assert_eq!(again, seen, "the same decisions give the same dice");
    // Rolled back once more to the same turn, another gear: its own label, which nobody saw.
    w.send(MOD, &format!("GAME rb\nTOKEN {MOD_TOKEN}\nROLLBACK {target}"));
    w.read(&p(car));
    w.signed("rb", car, &t, "GEAR 1");
    let g = w.game("rb");
    let other = &g.turns.last().unwrap().rolls[0];
    assert!(other.label.starts_with(&format!("{round}/")) && other.label != seen.label, "{other:?} {seen:?}");
    assert_eq!(&*other.die, "gear1-d4");
    // On the current line a label is used once.
    let live = g.live_turns();
    let mut labels: Vec<&str> =
        live.iter().flat_map(|&n| g.turns[n as usize].rolls.iter().map(|r| r.label.as_str())).collect();
    let n = labels.len();
    labels.sort();
    labels.dedup();
    assert_eq!(labels.len(), n, "no label is used twice on the current line");
    // Both verifiers, before the reveal (the operator's seed) and after it.
    let dir = w.root.join("games").join("rb");
    steward::store::verify::verify(&dir, None).unwrap();
    let secret = std::fs::read_to_string(dir.join("secret.toml")).unwrap();
    let seed = secret.split('"').nth(1).unwrap().to_string();
    let d = dir.to_str().unwrap();
    let (ok, out) = python(&["tools/verify_game.py", d, "--seed", &seed]);
    assert!(ok && out.contains("rolled back"), "{out}");
    w.send(MOD, &format!("GAME rb\nTOKEN {MOD_TOKEN}\nREVEAL"));
    let (ok, out) = python(&["tools/verify_game.py", d]);
    assert!(ok && out.contains("2 rollback(s)") && out.contains("roll(s)"), "{out}");
    // A player's own mails with the game directory: both mail verifiers list the rollbacks too.
    let mails = w.root.join("mail").join(p(car)).display().to_string();
    let games = w.root.join("games").display().to_string();
    let cli = Command::new(env!("CARGO_BIN_EXE_steward"))
        .args(["verify", "--mail", &mails, "--games", &games])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&cli.stdout);
    assert!(text.matches("rollback in turn").count() == 2 && text.contains("roll(s) discarded"), "{text}");
    let (_, out) = python(&["tools/verify_game.py", "--mail", &mails, "--games", &games]);
    assert!(out.matches("rollback in turn").count() == 2, "{out}");
    let cli = Command::new(env!("CARGO_BIN_EXE_steward"))
        .args(["verify", "rb"])
        .env("STEWARD_GAMES", w.root.join("games"))
        .output()
        .unwrap();
    assert!(cli.status.success(), "{}", String::from_utf8_lossy(&cli.stdout));
    // The race's dice page lists every moderator act (issue 45).
    let g = steward::store::Store::new(w.root.join("games")).load("rb", None).unwrap();
    let acts = steward::store::verify::moderator_acts(&g);
    let said: Vec<&str> = acts.iter().map(|a| a.2.as_str()).collect();
    assert!(said.first().is_some_and(|a| a.starts_with("start")), "{said:?}");
    assert_eq!(said.iter().filter(|a| a.starts_with("rollback to the end of turn")).count(), 2, "{said:?}");
    assert!(said.last().is_some_and(|a| a.starts_with("reveal")), "{said:?}");
    let site = w.root.join("site");
    steward::site::build(&w.root.join("games"), &site).unwrap();
    let page = std::fs::read_to_string(site.join("dice-rb.html")).unwrap();
    assert!(page.contains("What the moderators did"), "{page}");
    assert_eq!(page.matches("rollback to the end of turn").count(), 2);
    // A finished race is never rolled back.
    w.read(MOD);
    w.send(MOD, &format!("GAME rb\nTOKEN {MOD_TOKEN}\nROLLBACK {target}"));
    assert!(w.read(MOD).contains("finished race"), "refused after the end");
    // A rolled-back branch edited afterwards is caught by both verifiers (it stays checked).
    let f = dir.join("turns").join(format!("{:04}.toml", target + 1));
    let text = std::fs::read_to_string(&f).unwrap();
    let forged = text.replacen(&format!("face = {}", seen.face), &format!("face = {}", (seen.face + 1) % 6), 1);
    std::fs::write(&f, forged).unwrap();
    assert!(steward::store::verify::verify(&dir, None).is_err());
    assert!(!python(&["tools/verify_game.py", d]).0);
}

#[test]
fn retire_asks_for_confirmation_then_the_car_is_out_as_a_dnf() {
    let mut w = World::new("retire");
    let t = w.game_with_players("rt", 3);
    // Before the start: refused.
    w.signed("rt", 3, &t, "RETIRE");
    assert!(w.read(&p(3)).contains("has not started"));
    w.send(MOD, &format!("GAME rt\nTOKEN {MOD_TOKEN}\nSTART"));
    // Unsigned, and the wrong game: refused.
    w.send(&p(3), "GAME rt\nRETIRE");
    assert!(w.read(&p(3)).contains("CAR <n> and TOKEN"));
    w.send(&p(3), &format!("GAME nosuch\nCAR 3\nTOKEN {}\nRETIRE", t[2]));
    assert!(w.read(&p(3)).contains("no game `nosuch`"));
    // The first mail gets the code; a wrong code is refused; the right one retires the car.
    let before = w.game("rt").next_turn();
    w.signed("rt", 3, &t, "RETIRE");
    let reply = w.read(&p(3));
    let code = reply
        .split("RETIRE CONFIRM ")
        .nth(1)
        .and_then(|s| s.split_whitespace().next())
        .expect("the code is mailed")
        .to_string();
    assert_eq!(w.game("rt").next_turn(), before, "nothing is done before the confirmation");
    w.signed("rt", 3, &t, "RETIRE CONFIRM 00000000");
    assert!(w.read(&p(3)).contains("not the confirmation code"));
    w.signed("rt", 3, &t, &format!("RETIRE CONFIRM {code}"));
    let g = w.game("rt");
    let race = g.now.race.as_ref().unwrap();
    let c3 = race.state.cars.iter().find(|c| c.number == 3).unwrap();
    assert_eq!(c3.status, Status::Eliminated { reason: Elimination::Retired, removed: true });
    assert!(w.read(&p(1)).contains("car 3 retires"), "announced to the others");
    // In French, car 1 (the one to play): the order of play goes on with car 2.
    let (car, _) = g.awaited().unwrap();
    w.signed("rt", car, &t, "LANGUE fr\nABANDON");
    let reply = w.read(&p(car));
    let code = reply.split("ABANDON CONFIRMER ").nth(1).and_then(|s| s.split_whitespace().next()).unwrap().to_string();
    w.signed("rt", car, &t, &format!("ABANDON CONFIRMER {code}"));
    let g = w.game("rt");
    let other = if car == 1 { 2 } else { 1 };
    assert_eq!(g.awaited().map(|a| a.0), Some(other), "the next car is called");
    steward::store::verify::verify(&w.root.join("games").join("rt"), None).unwrap();
    // The last car retires: the race is over, the seed revealed.
    w.signed("rt", other, &t, "RETIRE");
    let reply = w.read(&p(other));
    let code = reply.split("RETIRE CONFIRM ").nth(1).and_then(|s| s.split_whitespace().next()).unwrap().to_string();
    w.signed("rt", other, &t, &format!("RETIRE CONFIRM {code}"));
    let g = w.game("rt");
    assert!(g.now.over && g.now.revealed.is_some());
    let d = w.root.join("games").join("rt");
    let (ok, out) = python(&["tools/verify_game.py", d.to_str().unwrap()]);
    assert!(ok, "{out}");
}

#[test]
fn absent_players_are_played_without_reminders_and_refusals_are_worded() {
    let mut w = World::new("absent");
    let t = w.game_with_players("ab", 2);
    w.send(MOD, &format!("GAME ab\nTOKEN {MOD_TOKEN}\nSTART"));
    let (car, _) = w.game("ab").awaited().unwrap();
    // Refusals: unsigned, dates in the past, a bad date, nothing to cancel.
    w.send(&p(car), "GAME ab\nABSENT 2026-12-01 2026-12-05");
    assert!(w.read(&p(car)).contains("CAR <n> and TOKEN"));
    w.signed("ab", car, &t, "ABSENT 2026-11-01 2026-11-05");
    assert!(w.read(&p(car)).contains("is in the past"));
    w.signed("ab", car, &t, "ABSENT 2026-13-01 2026-12-05");
    assert!(w.read(&p(car)).contains("a date like 2026-12-20"));
    w.signed("ab", car, &t, "ABSENT CANCEL");
    assert!(w.read(&p(car)).contains("no absence to cancel"));
    // From today: the car awaited is played at once, by the bot, and everyone is told.
    let before = w.game("ab").next_turn();
    w.signed("ab", car, &t, "ABSENT 2026-11-22 2026-11-30");
    let g = w.game("ab");
    assert!(g.next_turn() > before, "the absent car is played");
    let by: Vec<_> = g.turns[before as usize..].iter().filter_map(|t| t.source.as_ref()?.by.clone()).collect();
    assert!(by.iter().any(|b| b == "absent"), "{by:?}");
    let other = 3 - car;
    assert!(w.read(&p(other)).contains("is absent from 2026-11-22 to 2026-11-30"));
    // French: back again.
    w.signed("ab", car, &t, "LANGUE fr\nABSENT ANNULER");
    assert!(w.read(&p(other)).contains("the absence is cancelled"));
    w.signed("ab", car, &t, "ABSENT 2026-10-01 2026-10-02");
    assert!(w.read(&p(car)).contains("est passe"));
}

#[test]
fn an_absence_that_begins_while_the_car_is_awaited_plays_it_that_day() {
    // Issue 45, item 13: the car waited for its deadline although the docs say it is played
    // "as soon as it is awaited".
    let mut w = World::new("absent-begins");
    let t = w.game_with_players("ad", 2);
    w.send(MOD, &format!("GAME ad\nTOKEN {MOD_TOKEN}\nSTART"));
    let (car, _) = w.game("ad").awaited().unwrap();
    // Tomorrow: nothing happens today.
    w.signed("ad", car, &t, "ABSENT 2026-11-23 2026-11-30");
    assert!(w.read(&p(car)).contains("2026-11-23"), "the absence is kept");
    let before = w.game("ad").next_turn();
    w.advance_hours(6);
    w.pass();
    assert_eq!(w.game("ad").next_turn(), before, "not absent yet (18:00 on the 22nd)");
    // The next morning, hours before the deadline (noon on the 23rd), the car is played.
    w.advance_hours(8);
    w.pass();
    let g = w.game("ad");
    assert!(g.next_turn() > before, "played on the first day of the absence");
    let by: Vec<_> = g.turns[before as usize..].iter().filter_map(|t| t.source.as_ref()?.by.clone()).collect();
    assert!(by.iter().any(|b| b == "absent"), "{by:?}");
    let turns = w.game("ad").next_turn();
    w.pass();
    assert_eq!(w.game("ad").next_turn(), turns, "a second pass plays nothing more");
}

/// A league may cap the absences a driver declares in a season (`max_absences` in league.toml,
/// docs/leagues.md): the first ABSENT of a league race counts, a cancelled one stays counted,
/// and the next past the cap is refused in the player's language.
#[test]
fn a_league_caps_the_absences_a_driver_declares_in_a_season() {
    use crate::support::steward;
    let mut w = World::new("absent-cap");
    let t = w.game_with_players("ac", 2);
    let games = w.root.join("games").display().to_string();
    assert!(steward(&["league", "create", "cup", "--moderator", MOD, "--games", &games]).status.success());
    assert!(steward(&["league", "add-race", "cup", "ac", "--track", "sprint", "--games", &games]).status.success());
    let toml = w.root.join("games/cup/league.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    std::fs::write(&toml, format!("max_absences = 1\n{text}")).unwrap();
    w.send(MOD, &format!("GAME ac\nTOKEN {MOD_TOKEN}\nSTART"));
    let (car, _) = w.game("ac").awaited().unwrap();
    w.signed("ac", car, &t, "ABSENT 2026-11-25 2026-11-30");
    assert!(w.read(&p(car)).contains(&format!("Car {car} is absent from 2026-11-25")), "the first absence is kept");
    w.signed("ac", car, &t, "ABSENT CANCEL");
    w.read(&p(car));
    w.signed("ac", car, &t, "ABSENT 2026-11-26 2026-11-30");
    let r = w.read(&p(car));
    assert!(r.contains("League cup allows 1 absence a season, and you have declared 1"), "{r}");
    w.signed("ac", car, &t, "LANGUE fr\nABSENT 2026-11-27 2026-11-30");
    let r = w.read(&p(car));
    assert!(r.contains("La ligue cup permet 1 absence par saison"), "{r}");
}

#[test]
fn list_and_watch_show_nothing_secret_and_observers_can_be_shut_out() {
    let mut w = World::new("watch");
    let t = w.game_with_players("wa", 2);
    w.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE wb TRACK sprint LAPS 2 CARS 4 HOURS 24"));
    w.send(MOD, &format!("GAME wa\nTOKEN {MOD_TOKEN}\nSTART"));
    let fan = "fan@test.invalid";
    w.send(fan, "LIST");
    let list = w.read(fan);
    assert!(
        list.contains("Games open for joining") && list.contains("wb: ") && list.contains("4 seat(s) left"),
        "{list}"
    );
    assert!(list.contains("Games running") && list.contains("wa: ") && list.contains("round "), "{list}");
    assert!(!list.contains("p1@"), "no address: {list}");
    assert!(!list.contains(&t[0]), "no token");
    w.send(fan, "LIST wa");
    let one = w.read(fan);
    assert!(one.contains("moderated by the server's moderators") && !one.contains("drives car"), "{one}");
    w.send(fan, "LANGUE fr\nLISTE wa");
    let one = w.read(fan);
    assert!(one.contains("Partie :") && one.contains("voitures : 1") && !one.contains("p1@"), "{one}");
    w.send(fan, "LIST nosuch");
    assert!(w.read(fan).contains("no game `nosuch`"));
    // WATCH: only the address itself makes itself an observer (issue 45, item 6): a code is mailed
    // to it, and nothing changes until it comes back.
    w.send(fan, "WATCH wa");
    let asked = w.read(fan);
    let code = code_in(&asked, "WATCH wa CONFIRM ");
    assert!(
        !w.desk.messages(&p(1)).iter().any(|m| format!("{m:?}").contains("now watches")),
        "nobody is told of an unconfirmed WATCH"
    );
    w.send(fan, "WATCH wa CONFIRM 00000000");
    assert!(w.read(fan).contains("not the confirmation code"));
    // A WATCH forged in the fan's name with the forger's Reply-To: the code goes to From alone.
    let forger = "forger@test.invalid";
    let raw = format!(
        "From: {fan}\r\nReply-To: {forger}\r\nTo: steward@test.invalid\r\nSubject: w\r\nMessage-ID: <forged-watch@test.invalid>\r\n\r\nWATCH wa\r\n"
    );
    w.desk.deliver(raw.as_bytes());
    w.desk.pass();
    let to_forger = w.read(forger);
    assert!(to_forger.contains("confirmation code was mailed to fan@test.invalid"), "{to_forger}");
    assert!(!to_forger.contains(&code), "the code went to the Reply-To: {to_forger}");
    assert_eq!(code_in(&w.read(fan), "WATCH wa CONFIRM "), code, "the code, to From");
    // The players see who watches; the observer gets the reports, never a prompt or token.
    w.send(fan, &format!("WATCH wa CONFIRM {code}"));
    assert!(w.read(fan).contains("You watch game wa"));
    assert!(w.read(&p(1)).contains("fan@test.invalid now watches"));
    // Issue 45, item 6: each new observer is announced to the players, not to every observer
    // (30 WATCHes made 585 mails, 300 made 46,350): N observers, N mails to each player.
    for k in 0..20 {
        let who = format!("fan{k}@test.invalid");
        w.send(&who, "WATCH wa");
        let code = code_in(&w.read(&who), "WATCH wa CONFIRM ");
        w.send(&who, &format!("WATCH wa CONFIRM {code}"));
    }
    assert_eq!(w.desk.messages(fan).len(), 0, "the first observer is not told of the others");
    for k in 0..20 {
        assert_eq!(w.desk.messages(&format!("fan{k}@test.invalid")).len(), 1, "fan{k}: its own reply only");
    }
    assert_eq!(w.desk.messages(&p(1)).len(), 20, "a mail to a player per new observer");
    w.play_one("wa", &t);
    let report = w.read(fan);
    assert!(report.contains("Game: wa"), "{report}");
    assert!(!t.iter().any(|k| report.contains(k.as_str())), "no token: {report}");
    // Each report says how to stop it, with the code only the observer is mailed.
    let stop = code_in(&report, "UNWATCH wa CONFIRM ");
    // A player cannot close the game; the moderator can; then WATCH is refused.
    w.signed("wa", 1, &t, "OBSERVERS NO");
    assert!(w.read(&p(1)).contains("Only a moderator"));
    w.send(MOD, &format!("PARTIE wa\nJETON {MOD_TOKEN}\nOBSERVATEURS NON"));
    w.play_one("wa", &t);
    assert!(!w.read(fan).contains("Game: wa"), "a closed game sends no report to observers");
    w.send("other@test.invalid", "SUIVRE wa");
    assert!(w.read("other@test.invalid").contains("closed to observers"));
    w.send(MOD, &format!("GAME wa\nTOKEN {MOD_TOKEN}\nOBSERVERS YES"));
    // An UNWATCH forged in the fan's name stops nothing (issue 45): a bare one mails the code
    // to From alone; the code from a report stops the reports.
    let raw = format!(
        "From: {fan}\r\nReply-To: {forger}\r\nTo: steward@test.invalid\r\nSubject: w\r\nMessage-ID: <forged-unwatch@test.invalid>\r\n\r\nUNWATCH wa\r\n"
    );
    w.desk.deliver(raw.as_bytes());
    w.desk.pass();
    let to_forger = w.read(forger);
    assert!(to_forger.contains("Still watching") && !to_forger.contains(&stop), "{to_forger}");
    assert_eq!(code_in(&w.read(fan), "UNWATCH wa CONFIRM "), stop, "the code, to From");
    w.send(fan, "NE-PLUS-SUIVRE wa CONFIRMER 00000000");
    assert!(w.read(fan).contains("not the confirmation code"));
    w.send(fan, &format!("NE-PLUS-SUIVRE wa CONFIRMER {stop}"));
    assert!(w.read(fan).contains("no longer watch"));
    w.send(fan, "UNWATCH wa");
    assert!(w.read(fan).contains("do not watch"));
}

/// A race in French with a moderator's every action and a retirement (issue 48): the players'
/// mails hold no English sentence of the catalogue, the announcements included.
#[test]
fn a_french_game_s_announcements_are_in_french() {
    let mut w = World::new("french");
    let g = "fg";
    w.send(MOD, &format!("LANGUE fr\nJETON {MOD_TOKEN}\nCREER {g} CIRCUIT sprint TOURS 1 VOITURES 3 HEURES 24"));
    let t: Vec<String> = (1..=3)
        .map(|c| {
            w.send(&p(c), &format!("LANGUE fr\nREJOINDRE {g} VOITURE {c}"));
            super::token_in(&w.read(&p(c)).replace("JETON ", "TOKEN ")).expect("the welcome carries the token")
        })
        .collect();
    let moderate =
        |w: &mut World, order: &str| w.send(MOD, &format!("LANGUE fr\nPARTIE {g}\nJETON {MOD_TOKEN}\n{order}"));
    moderate(&mut w, "DEMARRER");
    // A refusal in French: a choice with no roll to choose from; a join once the race started.
    let (car, _) = w.game(g).awaited().unwrap();
    w.read(&p(car));
    w.signed(g, car, &t, "CHOIX Z");
    let refusal = w.read(&p(car));
    assert!(refusal.contains("Aucun jet de la voiture"), "{refusal}");
    w.send(&p(4), &format!("LANGUE fr\nREJOINDRE {g} VOITURE 4"));
    let refusal = w.read(&p(4));
    assert!(refusal.contains("la course a commencé : les inscriptions sont closes"), "{refusal}");
    for _ in 0..6 {
        w.play_one(g, &t);
    }
    let back = w.game(g).next_turn() - 3;
    moderate(&mut w, "PAUSE");
    moderate(&mut w, "REPRENDRE");
    moderate(&mut w, "DELAI 48");
    moderate(&mut w, &format!("REVENIR {back}"));
    moderate(&mut w, "OBSERVATEURS NON");
    // Car 3 retires.
    w.signed(g, 3, &t, "ABANDON");
    let code =
        w.read(&p(3)).split("ABANDON CONFIRMER ").nth(1).and_then(|s| s.split_whitespace().next()).unwrap().to_string();
    w.signed(g, 3, &t, &format!("ABANDON CONFIRMER {code}"));
    for _ in 0..4 {
        if w.game(g).awaited().is_none() {
            break;
        }
        w.play_one(g, &t);
    }
    let mut found = Vec::new();
    let mut read = 0;
    for c in 1..=3 {
        for m in super::mails_of(&w.root, &p(c)) {
            read += 1;
            for (s, k) in super::words::english_sentences(&m.subject, &m.full_body) {
                found.push(format!("car {c} «{}»: `{s}` ({k})", m.subject));
            }
        }
    }
    assert!(read > 10, "{read} mails read");
    found.dedup();
    assert!(found.is_empty(), "{} English sentences:\n{}", found.len(), found[..found.len().min(12)].join("\n"));
    let all: String = super::mails_of(&w.root, &p(1)).into_iter().map(|m| m.full_body).collect();
    for fr in ["abandonne", "ramène la partie"] {
        assert!(all.contains(fr), "car 1 reads `{fr}`");
    }
}

/// Issue 50: with `site` set, the pages follow a race while it runs: after each move by mail
/// the race page holds the new turn's board, and still no address.
#[test]
fn a_running_race_s_page_follows_each_move_by_mail() {
    let site = super::scratch("judge-live-site");
    let mut w = World { desk: Desk::new("judge-live", |c| c.site = Some(site.clone())) };
    let t = w.game_with_players("lv", 2);
    w.send(MOD, &format!("GAME lv\nTOKEN {MOD_TOKEN}\nSTART"));
    let page = || std::fs::read_to_string(site.join("race-lv.html")).expect("the race page is written");
    let before = page();
    assert!(before.contains("race under way"), "the page of the race as it starts");
    for _ in 0..3 {
        w.play_one("lv", &t);
        let g = w.game("lv");
        let now = page();
        let last = g.turns.last().unwrap().turn;
        assert!(now.contains(&format!("id=\"t{last}\"")), "the page shows turn {last}, the new board");
        assert!(!steward::words::names::holds_address(&now));
    }
    assert_ne!(page(), before);
}
