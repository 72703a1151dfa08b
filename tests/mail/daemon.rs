//! The daemon end to end on Maildirs: a race played by mail, receipts, authentication, stale
//! orders, loops, moderators, deadlines.

use steward::demo::{DemoSpec, run};
use steward::mail::message::Incoming;
use steward::mail::transport::deliver;
use steward::store::Store;

use super::desk::Desk;
use super::scratch;

pub(super) const STEWARD: &str = "steward@test.invalid";
pub(super) const MOD: &str = "mod@test.invalid";
pub(super) const MOD_TOKEN: &str = "moderator-secret";

/// A plain-text mail.
pub(super) fn mail(from: &str, id: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {STEWARD}\r\nSubject: orders\r\nMessage-ID: <{id}@test.invalid>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
    .into_bytes()
}

struct World {
    desk: Desk,
}

on_a_desk!(World);

impl World {
    fn new(name: &str) -> World {
        World { desk: Desk::new(name, |cfg| cfg.reminder_hours = 12) }
    }

    /// Sends `body` from `from` and runs one daemon pass.
    fn send(&mut self, from: &str, body: &str) {
        self.desk.mail(from, "m", body);
    }

    /// The new mail of `address`, as parsed messages, marked read.
    fn read(&self, address: &str) -> Vec<Incoming> {
        self.desk.messages(address)
    }

    /// Creates game `g` on sprint and joins `cars` players; returns their tokens.
    fn game_with_players(&mut self, g: &str, cars: u8) -> Vec<String> {
        self.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE {g} TRACK sprint LAPS 1 CARS {cars} HOURS 24"));
        let mut tokens = Vec::new();
        for c in 1..=cars {
            let who = format!("p{c}@test.invalid");
            self.send(&who, &format!("JOIN {g} CAR {c}"));
            let welcome = self.read(&who);
            let token =
                welcome.iter().find_map(|m| super::token_in(&m.full_body)).expect("the welcome carries the token");
            tokens.push(token);
        }
        tokens
    }
}

fn body_of(msgs: &[Incoming]) -> String {
    msgs.iter().map(|m| m.full_body.clone()).collect::<Vec<_>>().join("\n=====\n")
}

#[test]
fn demo_race_by_mail_ends_and_verifies() {
    let dir = scratch("demo");
    let spec = super::sprint_demo(&dir, "demo", 3, 1, steward::store::qualifying::GridMethod::Join);
    let r = run(&spec).unwrap();
    let store = Store::new(dir.join("games"));
    let g = store.load("demo", None).unwrap();
    assert!(g.now.over, "the race ends");
    assert!(g.now.revealed.is_some(), "the seed is revealed at the end");
    steward::store::verify::verify(&r.game_dir, None).unwrap();
    assert!(r.mails_in > 10 && r.mails_out > r.mails_in, "{} in, {} out", r.mails_in, r.mails_out);
    // Every reply delivered exactly once: no Message-ID twice in any mailbox.
    for e in std::fs::read_dir(dir.join("mail")).unwrap() {
        let mbox = e.unwrap().path();
        let mut ids = std::collections::HashSet::new();
        for sub in ["new", "cur"] {
            for f in std::fs::read_dir(mbox.join(sub)).unwrap() {
                let raw = std::fs::read(f.unwrap().path()).unwrap();
                let m = Incoming::parse(&raw).unwrap();
                assert!(ids.insert(m.message_id.clone()), "{} got {:?} twice", mbox.display(), m.message_id);
            }
        }
    }
}

#[test]
fn a_message_with_an_error_applies_nothing_and_marks_the_line() {
    let mut w = World::new("errors");
    let t = w.game_with_players("g1", 2);
    w.send(MOD, &format!("GAME g1\nTOKEN {MOD_TOKEN}\nSTART"));
    w.read("p1@test.invalid");
    let before = w.store().load("g1", None).unwrap().next_turn();
    // GEAR 9 is an error: the good POLICY line must not be applied either.
    w.send("p1@test.invalid", &format!("GAME g1\nCAR 1\nTOKEN {}\nTURN {}\nPOLICY SAFEST\nGEAR 9", t[0], before - 1));
    let reply = body_of(&w.read("p1@test.invalid"));
    assert!(reply.contains("GEAR 9"), "the line is echoed: {reply}");
    assert!(reply.contains("ERROR"), "the error is marked: {reply}");
    assert!(reply.contains("nothing was applied"), "{reply}");
    assert_eq!(w.store().load("g1", None).unwrap().next_turn(), before, "no turn was written");
}

#[test]
fn wrong_token_is_refused_and_a_stranger_with_the_right_token_is_applied_with_a_copy() {
    let mut w = World::new("auth");
    let t = w.game_with_players("g2", 2);
    w.send(MOD, &format!("GAME g2\nTOKEN {MOD_TOKEN}\nSTART"));
    let g = w.store().load("g2", None).unwrap();
    let (car, choice) = g.awaited().unwrap();
    assert!(!choice);
    let turn = g.next_turn() - 1;
    let owner = format!("p{car}@test.invalid");
    w.read(&owner);
    w.send(&owner, &format!("GAME g2\nCAR {car}\nTOKEN wrong\nTURN {turn}\nGEAR 1"));
    assert!(body_of(&w.read(&owner)).contains("token is not car"), "a wrong token is refused");
    assert_eq!(w.store().load("g2", None).unwrap().next_turn(), turn + 1);
    // From another address, signed with the right token: applied, and the owner is told.
    w.send("friend@test.invalid", &format!("GAME g2\nCAR {car}\nTOKEN {}\nTURN {turn}\nGEAR 1", t[car as usize - 1]));
    let g = w.store().load("g2", None).unwrap();
    assert!(g.next_turn() > turn + 1, "the gear was applied");
    let owner_mail = body_of(&w.read(&owner));
    assert!(
        owner_mail.contains("friend@test.invalid") && owner_mail.contains("signed with your token"),
        "{owner_mail}"
    );
}

#[test]
fn a_stale_order_is_refused() {
    let mut w = World::new("stale");
    let t = w.game_with_players("g3", 2);
    w.send(MOD, &format!("GAME g3\nTOKEN {MOD_TOKEN}\nSTART"));
    let g = w.store().load("g3", None).unwrap();
    let (car, _) = g.awaited().unwrap();
    let turn = g.next_turn() - 1;
    let token = &t[car as usize - 1];
    let who = format!("p{car}@test.invalid");
    w.send(&who, &format!("GAME g3\nCAR {car}\nTOKEN {token}\nTURN {turn}\nGEAR 1"));
    let g = w.store().load("g3", None).unwrap();
    // Whatever comes next, an order answering the old turn for this car's old gear is stale.
    w.read(&who);
    if g.awaited() == Some((car, true)) {
        w.send(&who, &format!("GAME g3\nCAR {car}\nTOKEN {token}\nTURN {}\nCHOOSE A", turn - 1));
    } else {
        w.send(&who, &format!("GAME g3\nCAR {car}\nTOKEN {token}\nTURN {turn}\nGEAR 2"));
    }
    let reply = body_of(&w.read(&who));
    assert!(reply.to_lowercase().contains("stale"), "{reply}");
}

#[test]
fn auto_replies_bounces_and_lists_are_not_answered() {
    let mut w = World::new("loops");
    let cases = [
        "From: robot@test.invalid\r\nAuto-Submitted: auto-replied\r\nMessage-ID: <a1@x>\r\n\r\nI am away\r\n",
        "From: MAILER-DAEMON@test.invalid\r\nMessage-ID: <a2@x>\r\n\r\nDelivery failed\r\n",
        "From: list@test.invalid\r\nList-Id: <x.test.invalid>\r\nMessage-ID: <a3@x>\r\n\r\nHELP\r\n",
        "From: bulk@test.invalid\r\nPrecedence: bulk\r\nMessage-ID: <a4@x>\r\n\r\nHELP\r\n",
    ];
    for c in cases {
        deliver(&w.root.join("mail").join(STEWARD), c.as_bytes()).unwrap();
    }
    let p = w.pass();
    assert_eq!(p.processed, 4);
    assert_eq!(p.flushed.sent, 0, "no answer to any of them");
    let entries = w.daemon.ledger().entries().unwrap();
    assert_eq!(entries.len(), 4);
    assert!(entries.iter().all(|e| e.outcome.starts_with("ignored")), "{entries:?}");
    // A second pass reads nothing again.
    assert_eq!(w.pass().processed, 0);
}

#[test]
fn only_moderators_moderate_and_a_paused_game_takes_no_move() {
    let mut w = World::new("moderate");
    w.send("someone@test.invalid", "TOKEN guess\nCREATE x TRACK sprint LAPS 1");
    assert!(body_of(&w.read("someone@test.invalid")).contains("Only a moderator"));
    assert!(w.store().list().unwrap().is_empty());
    let t = w.game_with_players("g4", 2);
    w.send(MOD, &format!("GAME g4\nTOKEN {MOD_TOKEN}\nSTART"));
    w.send(MOD, &format!("GAME g4\nTOKEN {MOD_TOKEN}\nPAUSE"));
    let g = w.store().load("g4", None).unwrap();
    assert!(g.now.paused);
    let (car, _) = g.awaited().unwrap();
    let who = format!("p{car}@test.invalid");
    w.read(&who);
    w.send(&who, &format!("GAME g4\nCAR {car}\nTOKEN {}\nTURN {}\nGEAR 1", t[car as usize - 1], g.next_turn() - 1));
    assert_eq!(w.store().load("g4", None).unwrap().next_turn(), g.next_turn(), "no move while paused");
    w.send(MOD, &format!("GAME g4\nTOKEN {MOD_TOKEN}\nRESUME"));
    let g2 = w.store().load("g4", None).unwrap();
    assert!(!g2.now.paused);
    assert!(g2.next_turn() > g.next_turn() + 1, "the gear kept while paused is played on resume");
    steward::store::verify::verify(&w.store().game_dir("g4"), None).unwrap();
}

#[test]
fn a_deadline_brings_a_reminder_then_a_default_move() {
    let mut w = World::new("deadline");
    w.game_with_players("g5", 2);
    w.send(MOD, &format!("GAME g5\nTOKEN {MOD_TOKEN}\nSTART"));
    let g = w.store().load("g5", None).unwrap();
    let (car, _) = g.awaited().unwrap();
    let who = format!("p{car}@test.invalid");
    w.read(&who);
    w.advance_hours(13); // 11 hours left of 24: within the 12-hour reminder
    w.pass();
    assert!(body_of(&w.read(&who)).contains("Reminder"));
    w.pass();
    assert!(w.read(&who).is_empty(), "one reminder per turn");
    w.advance_hours(12);
    w.pass();
    let after = w.store().load("g5", None).unwrap();
    assert!(after.next_turn() > g.next_turn(), "the bot played");
    assert!(body_of(&w.read(&who)).contains("did not answer"), "the default move is announced");
}

/// Issue 45, item 12: after downtime, the answer waiting in the inbox was read after a reminder
/// for the very prompt it answers had gone out, in the same pass.
#[test]
fn no_reminder_goes_out_for_a_prompt_answered_during_downtime() {
    let mut w = World::new("downtime-reminder");
    let t = w.game_with_players("g6", 2);
    w.send(MOD, &format!("GAME g6\nTOKEN {MOD_TOKEN}\nSTART"));
    let g = w.store().load("g6", None).unwrap();
    let (car, _) = g.awaited().unwrap();
    let who = format!("p{car}@test.invalid");
    w.read(&who);
    // The daemon is down; the answer arrives 14 hours in (10 left of 24: within the 12-hour
    // reminder's window), and the daemon comes back an hour later.
    w.advance_hours(14);
    let arrival = std::time::UNIX_EPOCH + std::time::Duration::from_secs(w.now().0 as u64);
    let key =
        w.deliver(&mail(&who, "late-answer", &format!("GAME g6\nCAR {car}\nTOKEN {}\nGEAR 1", t[car as usize - 1])));
    let file = ["new", "cur"]
        .iter()
        .map(|d| w.root.join("mail").join(STEWARD).join(d))
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten())
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(&key))
        .expect("the mail is in the inbox");
    std::fs::File::options().write(true).open(&file).unwrap().set_modified(arrival).unwrap();
    w.advance_hours(1);
    w.pass();
    let mails = w.read(&who);
    assert!(w.store().load("g6", None).unwrap().next_turn() > g.next_turn(), "the answer is applied");
    assert!(!body_of(&mails).contains("Reminder"), "no reminder for the prompt answered: {}", body_of(&mails));
}

#[test]
fn help_and_board_are_answered() {
    let mut w = World::new("help");
    w.send("new@test.invalid", "hello, how does this work?\n\nHELP");
    let r = body_of(&w.read("new@test.invalid"));
    assert!(r.contains("GEAR") && r.contains("JOIN"), "{r}");
    w.send("new@test.invalid", "LANG fr\nHELP");
    let r = body_of(&w.read("new@test.invalid"));
    assert!(r.contains("VITESSE"), "{r}");
}

#[test]
fn pit_answers_a_roll_only_when_an_option_ends_at_the_box() {
    let mut w = World::new("pit");
    let t = w.game_with_players("g9", 2);
    w.send(MOD, &format!("GAME g9\nTOKEN {MOD_TOKEN}\nSTART"));
    let g = w.store().load("g9", None).unwrap();
    let (car, _) = g.awaited().unwrap();
    let turn = g.next_turn() - 1;
    let token = &t[car as usize - 1];
    let who = format!("p{car}@test.invalid");
    w.send(&who, &format!("GAME g9\nCAR {car}\nTOKEN {token}\nTURN {turn}\nGEAR 1"));
    let g = w.store().load("g9", None).unwrap();
    w.read(&who);
    let turn = g.next_turn() - 1;
    if g.awaited() == Some((car, true)) {
        // From the grid no option reaches a box (19-1-7: the lane opens after the first lap).
        w.send(&who, &format!("GAME g9\nCAR {car}\nTOKEN {token}\nTURN {turn}\nPIT QUICK"));
        let reply = body_of(&w.read(&who));
        assert!(reply.contains("ends at its box"), "{reply}");
        assert_eq!(w.store().load("g9", None).unwrap().next_turn(), turn + 1, "nothing was applied");
    } else {
        // Nothing awaits a choice (a stalled start): PIT is refused like CHOOSE.
        w.send(&who, &format!("GAME g9\nCAR {car}\nTOKEN {token}\nTURN {turn}\nPIT QUICK"));
        let reply = body_of(&w.read(&who));
        assert!(reply.contains("awaits a choice") || reply.contains("Stale"), "{reply}");
    }
}

/// CREATE's WEATHER and the JOIN's `TYRES x WET y` (ruling 30): a rainy race fits the wet-track
/// tyres of the player who named them, the others keep theirs; every player reads the weather.
#[test]
fn the_weather_of_a_game_by_mail_and_wet_track_tyres() {
    let mut w = World::new("weather");
    w.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE wx TRACK sprint LAPS 1 CARS 2 WEATHER rain"));
    w.send("p1@test.invalid", "JOIN wx CAR 1\nTYRES soft WET rain");
    w.send("p2@test.invalid", "PNEUS tendres\nREJOINDRE wx VOITURE 2");
    let g = w.store().load("wx", None).unwrap();
    assert_eq!(g.setup.weather.as_deref(), Some("rain"));
    assert_eq!(g.now.players[0].wet_tyres.as_deref(), Some("rain"));
    assert_eq!(g.now.players[1].wet_tyres, None);
    w.read("p1@test.invalid");
    w.send(MOD, &format!("GAME wx\nTOKEN {MOD_TOKEN}\nSTART"));
    let g = w.store().load("wx", None).unwrap();
    let state = &g.now.race.as_ref().unwrap().state;
    assert!(state.wet, "it rains: the track is wet (3-2-3)");
    use steward::engine::Tyres;
    assert_eq!(state.cars.iter().map(|c| c.tyres).collect::<Vec<_>>(), [Tyres::Rain, Tyres::Soft]);
    let report = body_of(&w.read("p1@test.invalid"));
    assert!(report.contains("the race weather is rain: the track is wet at the start"), "{report}");
}

/// Qualifying by mail (1, ruling 31): after START every player is asked for the gear of their
/// own timed lap at once; a player's GEAR and CHOOSE drive that lap; at the session's deadline
/// the bot drives the rest of every late lap, and the race starts on the grid the laps made.
#[test]
fn qualifying_laps_by_mail_then_the_race() {
    let mut w = World::new("qualifying");
    w.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE qx TRACK sprint LAPS 1 CARS 2 HOURS 24 GRID qualifying"));
    let mut tokens = Vec::new();
    for c in 1..=2 {
        let who = format!("p{c}@test.invalid");
        w.send(&who, &format!("JOIN qx CAR {c}"));
        let welcome = body_of(&w.read(&who));
        tokens.push(super::token_in(&welcome).unwrap());
    }
    w.send(MOD, &format!("GAME qx\nTOKEN {MOD_TOKEN}\nSTART"));
    for c in 1..=2 {
        let r = body_of(&w.read(&format!("p{c}@test.invalid")));
        assert!(r.contains("Qualifying (1)") && r.contains(&format!("Car {c}: send a gear")), "{r}");
        assert!(r.contains("GEAR 1  (no cost)"), "each player is asked at once, for 1st only (ruling 21): {r}");
    }
    // Car 2 drives first although car 1 was first to join: the laps run side by side.
    w.send("p2@test.invalid", &format!("GAME qx\nCAR 2\nTOKEN {}\nGEAR 1", tokens[1]));
    let r = body_of(&w.read("p2@test.invalid"));
    assert!(r.contains("timed lap: gear 1"), "{r}");
    let g = w.store().load("qx", None).unwrap();
    let q = g.now.qualifying.as_ref().unwrap();
    assert_eq!(q.entry(2).unwrap().lap.result.rolls + u32::from(q.entry(2).unwrap().pending.is_some()), 1);
    if q.entry(2).unwrap().pending.is_some() {
        // Its choice, by label, answering the turn that rolled.
        w.send(
            "p2@test.invalid",
            &format!("GAME qx\nCAR 2\nTOKEN {}\nTURN {}\nCHOOSE A", tokens[1], g.next_turn() - 1),
        );
        let r = body_of(&w.read("p2@test.invalid"));
        // (In full, or in the default report mode's condensed line.)
        assert!(r.contains("car 2 moves") || r.contains("car 2: takes A; moves"), "{r}");
    }
    // Nobody else answers: at the deadline the bot drives the rest of both laps.
    w.advance_hours(25);
    w.pass();
    let g = w.store().load("qx", None).unwrap();
    assert!(g.now.qualifying.is_none() && g.now.race.is_some(), "the race has started");
    let r = body_of(&w.read("p1@test.invalid"));
    assert!(r.contains("did not finish the timed lap") && r.contains("qualifying is over; the grid"), "{r}");
    steward::store::verify::verify(&w.store().game_dir("qx"), None).unwrap();
}

#[test]
fn demo_race_with_qualifying_by_mail_verifies() {
    let dir = scratch("demo-qualifying");
    let spec = super::sprint_demo(&dir, "dq", 3, 1, steward::store::qualifying::GridMethod::Qualifying);
    let r = run(&spec).unwrap();
    let g = Store::new(dir.join("games")).load("dq", None).unwrap();
    assert!(g.now.over && g.now.qualified.as_ref().is_some_and(|q| q.entries.len() == 3));
    steward::store::verify::verify(&r.game_dir, None).unwrap();
}

#[test]
fn demo_race_with_backmarkers_by_mail_verifies() {
    // 002 "Backmarkers" (ruling 49) by mail: `CREATE ... BACKMARKERS YES`; the daemon plays them
    // in the turns of the players' moves, the reports show them, and the race verifies.
    let dir = scratch("demo-backmarkers");
    let spec = DemoSpec {
        laps: 2,
        backmarkers: true,
        ..super::sprint_demo(&dir, "db", 4, 2, steward::store::qualifying::GridMethod::Join)
    };
    let r = run(&spec).unwrap();
    let g = Store::new(dir.join("games")).load("db", None).unwrap();
    assert!(g.now.over && g.setup.backmarkers);
    let moved =
        g.turns.iter().flat_map(|t| &t.orders).filter(|o| o.by == steward::store::files::By::Backmarker).count();
    assert!(moved > 0, "the backmarkers moved");
    steward::store::verify::verify(&r.game_dir, None).unwrap();
    // A player's report names them on the sheets while they are on the track.
    let mbox = dir.join("mail").join("driver1@demo.invalid");
    let seen = ["new", "cur"].iter().filter_map(|s| std::fs::read_dir(mbox.join(s)).ok()).flatten().any(|f| {
        let raw = std::fs::read(f.unwrap().path()).unwrap();
        String::from_utf8_lossy(&raw).contains(" backmarker ")
    });
    assert!(seen, "no report showed a backmarker");
}

/// Plays car 1 of game `game` (sprint, 3 laps) by mail: steering into the pit lane whenever an
/// option enters it, answering the roll that reaches the box with `PIT LONG TYRES soft` (unless a
/// standing order decides first), and the bot's choices otherwise.
fn drive_to_the_pits(w: &mut World, game: &str, token: &str) {
    use steward::engine::bot::Bot;
    use steward::engine::play::reaches_box;
    let mut bot = Bot::new();
    for _ in 0..600 {
        let g = w.store().load(game, None).unwrap();
        let Some((_, choice)) = g.awaited() else { break };
        let race = g.now.race.as_ref().unwrap();
        let t = &g.track;
        let bodies: Vec<String> = if !choice {
            let id = race.state.to_play.unwrap();
            let first = bot.gear(t, &race.state, id);
            std::iter::once(first).chain(1..=6).map(|gear| format!("GEAR {gear}")).collect()
        } else {
            let r = &race.pending.as_ref().unwrap().rolled;
            let in_lane = t.space(r.state.car(r.car).space).in_pit_lane();
            let label = steward::engine::MoveOption::label;
            if (0..r.options.len()).any(|i| reaches_box(t, r, i)) {
                vec!["PIT LONG TYRES soft".to_string()]
            } else if let Some(i) =
                (!in_lane).then(|| r.options.iter().position(|o| t.space(o.end).in_pit_lane())).flatten()
            {
                vec![format!("CHOOSE {}", label(i))]
            } else {
                vec![format!("CHOOSE {}", label(bot.option(t, r)))]
            }
        };
        let before = g.next_turn();
        let mut replies = String::new();
        for body in bodies {
            // Two minutes a mail: within the daemon's 60 mails an hour from one sender.
            *w.clock.lock().unwrap() += 120;
            w.send("p1@test.invalid", &format!("GAME {game}\nCAR 1\nTOKEN {token}\n{body}"));
            replies.push_str(&body_of(&w.read("p1@test.invalid")));
            if w.store().load(game, None).unwrap().next_turn() > before {
                break;
            }
        }
        assert!(w.store().load(game, None).unwrap().next_turn() > before, "{game}: no order was accepted: {replies}");
    }
}

/// Creates a 3-lap, 1-car game on sprint in the sun and joins car 1; returns its token.
fn one_car_game(w: &mut World, game: &str) -> String {
    w.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE {game} TRACK sprint LAPS 3 CARS 1 HOURS 24 WEATHER sun"));
    w.send("p1@test.invalid", &format!("JOIN {game} CAR 1"));
    let welcome = body_of(&w.read("p1@test.invalid"));
    super::token_in(&welcome).unwrap()
}

/// The first pit stop of a game: its turn, and the stop recorded.
fn first_stop(w: &World, game: &str) -> (steward::store::files::TurnFile, steward::store::files::PitRecord) {
    let g = w.store().load(game, None).unwrap();
    let stop = g.turns.iter().find(|t| t.orders.iter().any(|o| o.pit.is_some())).expect("a pit stop").clone();
    let pit = stop.orders.iter().find_map(|o| o.pit.clone()).unwrap();
    (stop, pit)
}

/// A real pit stop by mail (19): the player steers into the pit lane with CHOOSE, then answers
/// the roll that reaches the box with `PIT LONG TYRES soft`; the turn records the stop and the car
/// leaves on soft tyres. With a standing `POLICY PIT` the stop is made without a round trip, as
/// the bot decides it (19-2-6).
#[test]
fn a_pit_stop_by_mail() {
    let mut w = World::new("pitstop");
    let token = one_car_game(&mut w, "ps");
    w.send(MOD, &format!("GAME ps\nTOKEN {MOD_TOKEN}\nSTART"));
    drive_to_the_pits(&mut w, "ps", &token);
    let (stop, pit) = first_stop(&w, "ps");
    assert_eq!((pit.kind.as_deref(), pit.tyres.as_deref()), (Some("long"), Some("soft")), "{stop:?}");
    assert!(stop.events.iter().any(|e| e.article.starts_with("19-2")), "{:?}", stop.events);
    assert_eq!(stop.source.as_ref().and_then(|s| s.by.as_deref()), None, "the player's own order");
    let after = steward::store::driver::load_dir(&w.store().game_dir("ps"), Some(stop.turn)).unwrap();
    let car = &after.now.race.as_ref().unwrap().state.cars[0];
    assert_eq!(car.tyres, steward::engine::Tyres::Soft, "the car leaves on the tyres announced (19-2-6)");
    steward::store::verify::verify(&w.store().game_dir("ps"), None).unwrap();

    let token = one_car_game(&mut w, "pp");
    w.send("p1@test.invalid", &format!("GAME pp\nCAR 1\nTOKEN {token}\nPOLICY PIT"));
    w.send(MOD, &format!("GAME pp\nTOKEN {MOD_TOKEN}\nSTART"));
    drive_to_the_pits(&mut w, "pp", &token);
    let (stop, pit) = first_stop(&w, "pp");
    assert_eq!(stop.source.as_ref().and_then(|s| s.by.as_deref()), Some("policy"), "{stop:?}");
    assert!(pit.kind.is_some(), "the bot's stop: {pit:?}");
    steward::store::verify::verify(&w.store().game_dir("pp"), None).unwrap();
}

#[test]
fn league_commands_by_mail_and_the_league_standings() {
    let mut w = World::new("league-by-mail");
    let games = w.root.join("games");
    let mut l = steward::league::League::new("autumn", MOD).unwrap();
    l.season = "2026".into();
    l.save(&games).unwrap();
    // A player may not edit the league.
    w.send("p1@test.invalid", "LEAGUE autumn ENTER p1@test.invalid");
    assert!(body_of(&w.read("p1@test.invalid")).contains("Only a moderator"));
    w.send(
        MOD,
        &format!(
            "TOKEN {MOD_TOKEN}\nLEAGUE autumn ENTER p1@test.invalid\nLIGUE autumn INSCRIRE p2@test.invalid\nLEAGUE autumn TEAM red p1@test.invalid p2@test.invalid\nLEAGUE autumn RACE autumn-01 TRACK sprint LAPS 1 GRID rotating"
        ),
    );
    let reply = body_of(&w.read(MOD));
    assert!(reply.contains("Race 1 of autumn: autumn-01 on sprint, 1 laps, grid by rotating."), "{reply}");
    let l = steward::league::League::load(&games, "autumn").unwrap();
    assert_eq!(l.drivers.len(), 2);
    assert_eq!(l.drivers[1].team.as_deref(), Some("red"));
    // The same edits again (a message read twice) change nothing.
    w.send(MOD, &format!("TOKEN {MOD_TOKEN}\nLEAGUE autumn ENTER p1@test.invalid"));
    assert!(body_of(&w.read(MOD)).contains("already done"));
    // A refused edit says why and changes nothing.
    w.send(MOD, &format!("TOKEN {MOD_TOKEN}\nLEAGUE autumn TEAM blue p1@test.invalid"));
    assert!(body_of(&w.read(MOD)).contains("cannot change team"));
    assert_eq!(steward::league::League::load(&games, "autumn").unwrap(), l);
    // STANDINGS for the league, by anyone.
    w.send("p2@test.invalid", "GAME autumn\nSTANDINGS");
    let t = body_of(&w.read("p2@test.invalid"));
    assert!(t.contains("autumn 2026: standings after 0 of 1 races") && t.contains("CONSTRUCTORS"), "{t}");
}

#[test]
fn a_league_race_referee_has_the_moderator_orders_on_that_game_only() {
    let mut w = World::new("league-referee");
    let games = w.root.join("games");
    let mut l = steward::league::League::new("cup", MOD).unwrap();
    for g in ["cup-1", "cup-2"] {
        l.add_race(steward::league::RaceRecord {
            game: g.into(),
            track: "sprint".into(),
            laps: 1,
            grid: Default::default(),
            referee: Some("p1@test.invalid".into()),
            bids: Vec::new(),
        })
        .unwrap();
    }
    l.save(&games).unwrap();
    let tokens = w.game_with_players("cup-2", 2);
    // p2 is not the referee: refused.
    w.send("p2@test.invalid", &format!("GAME cup-2\nCAR 2\nTOKEN {}\nSTART", tokens[1]));
    assert!(body_of(&w.read("p2@test.invalid")).contains("Only a moderator"));
    assert!(!w.store().load("cup-2", None).unwrap().started());
    // The referee with a wrong token: refused.
    w.send("p1@test.invalid", &format!("GAME cup-2\nCAR 1\nTOKEN {}\nSTART", tokens[1]));
    assert!(!w.store().load("cup-2", None).unwrap().started());
    // The referee signs with their own token: started.
    w.send("p1@test.invalid", &format!("GAME cup-2\nCAR 1\nTOKEN {}\nSTART", tokens[0]));
    assert!(w.store().load("cup-2", None).unwrap().started());
    w.read("p1@test.invalid");
    // The referee drives car 1 (ruling 52): the clock is theirs, the cars and the end are not.
    let before = w.store().load("cup-2", None).unwrap().next_turn();
    for order in ["REPLACE CAR 2 friend@test.invalid", "FORCE CAR 2", "ROLLBACK 3", "REVEAL"] {
        w.send("p1@test.invalid", &format!("GAME cup-2\nCAR 1\nTOKEN {}\n{order}", tokens[0]));
        let reply = body_of(&w.read("p1@test.invalid"));
        assert!(reply.contains("You drive car 1 in cup-2") && reply.contains("ruling 52"), "{order}: {reply}");
    }
    assert_eq!(w.store().load("cup-2", None).unwrap().next_turn(), before, "nothing was applied");
    w.send("p1@test.invalid", &format!("GAME cup-2\nCAR 1\nTOKEN {}\nPAUSE", tokens[0]));
    assert!(w.store().load("cup-2", None).unwrap().now.paused, "the clock is the referee's");
    // The game says who moderates it, and what the one who drives may not do.
    w.send("fan@test.invalid", "LIST cup-2");
    let list = body_of(&w.read("fan@test.invalid")).split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(list.contains("moderated by the server's moderators and the race's referee, who drives car 1"), "{list}");
    assert!(list.contains("keeps the clock only"), "{list}");
}

/// 002 "Series Length" by mail (ruling 42): in a league with Track Marshals the marshal of the
/// race gets a token with the game's creation, has no car in the game, and starts it with that
/// token; the token is theirs alone.
#[test]
fn a_track_marshal_gets_a_token_and_starts_the_race() {
    let mut w = World::new("league-marshal");
    let games = w.root.join("games");
    let mut l = steward::league::League::new("series", MOD).unwrap();
    l.marshals = true;
    for k in 1..=4 {
        l.enter(&format!("p{k}@test.invalid"), None, 1).unwrap();
    }
    l.form_team("red", &["p1@test.invalid", "p2@test.invalid"], 1).unwrap();
    l.form_team("blue", &["p3@test.invalid", "p4@test.invalid"], 1).unwrap();
    l.add_race(steward::league::RaceRecord {
        game: "series-1".into(),
        track: "sprint".into(),
        laps: 1,
        grid: Default::default(),
        referee: None,
        bids: Vec::new(),
    })
    .unwrap();
    l.save(&games).unwrap();
    // Race 1: team red marshals; its first driver, p1, is mailed the token.
    w.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE series-1 TRACK sprint LAPS 1 CARS 4 HOURS 24"));
    let mail = body_of(&w.read("p1@test.invalid"));
    assert!(mail.contains("Track Marshal") && mail.contains("team red sits it out"), "{mail}");
    let token = super::token_in(&mail).unwrap();
    for who in ["p3@test.invalid", "p4@test.invalid"] {
        w.send(who, "JOIN series-1");
        w.read(who);
    }
    // The marshal's team does not race.
    w.send("p2@test.invalid", "JOIN series-1");
    assert!(body_of(&w.read("p2@test.invalid")).contains("sits it out"));
    assert_eq!(w.store().load("series-1", None).unwrap().now.players.len(), 2);
    // Another driver with the marshal's token: refused.
    w.send("p2@test.invalid", &format!("GAME series-1\nTOKEN {token}\nSTART"));
    assert!(body_of(&w.read("p2@test.invalid")).contains("Only a moderator"));
    assert!(!w.store().load("series-1", None).unwrap().started());
    // The marshal with a wrong token: refused; with theirs: started.
    w.send("p1@test.invalid", "GAME series-1\nTOKEN 000000000000000000000000\nSTART");
    assert!(!w.store().load("series-1", None).unwrap().started());
    w.send("p1@test.invalid", &format!("GAME series-1\nTOKEN {token}\nSTART"));
    assert!(w.store().load("series-1", None).unwrap().started());
}

/// 004 "Late Arrivals" by mail (ruling 47): in a game created with LATE YES, a JOIN after START
/// is welcomed while the field is on the grid, and the car waits in the pit lane.
#[test]
fn a_late_arrival_by_mail() {
    let mut w = World::new("late");
    w.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE lt TRACK sprint LAPS 1 CARS 3 HOURS 24 WEATHER sun LATE yes"));
    w.send("p1@test.invalid", "JOIN lt CAR 1");
    w.send(MOD, &format!("GAME lt\nTOKEN {MOD_TOKEN}\nSTART"));
    w.send("p2@test.invalid", "JOIN lt CAR 2");
    let welcome = body_of(&w.read("p2@test.invalid"));
    assert!(welcome.contains("TOKEN "), "the late driver is welcomed: {welcome}");
    let g = w.store().load("lt", None).unwrap();
    let state = &g.now.race.as_ref().unwrap().state;
    assert_eq!(state.cars.len(), 2);
    assert_eq!(state.cars[1].status, steward::engine::state::Status::Waiting);
    assert_eq!(state.cars[1].space, *g.track.pit_lane.last().unwrap(), "at the pit-lane exit");
    assert!(g.setup.late_arrivals);
    steward::store::verify::verify(&w.store().game_dir("lt"), None).unwrap();
}

/// 002 "Expending Driver Points" by mail (ruling 45): a league driver joins its race with the
/// points the team bought; the reply to a roll offers REROLL; REROLL re-rolls the gear die and
/// the reply shows the new options; a second RELANCER of the same move is refused.
#[test]
fn a_league_driver_rerolls_a_gear_roll_by_mail() {
    use steward::league::series::Category;
    let mut w = World::new("reroll-by-mail");
    let games = w.root.join("games");
    let mut l = steward::league::League::new("dp", MOD).unwrap();
    l.add_race(steward::league::RaceRecord {
        game: "dp-1".into(),
        track: "sprint".into(),
        laps: 2,
        grid: Default::default(),
        referee: None,
        bids: Vec::new(),
    })
    .unwrap();
    l.enter("p1@test.invalid", None, 1).unwrap();
    l.enter("p2@test.invalid", None, 1).unwrap();
    l.form_team("red", &["p1@test.invalid"], 1).unwrap();
    // A two-lap series: 20 construction points, 2 of them on the driver (002).
    let design = [
        (Category::Tires, 4),
        (Category::Brakes, 3),
        (Category::Transmission, 3),
        (Category::Engine, 3),
        (Category::Bodywork, 2),
        (Category::Suspension, 2),
        (Category::Qualifying, 1),
        (Category::Driver, 2),
    ];
    l.teams[0].design = design.into_iter().collect();
    l.save(&games).unwrap();
    assert!(steward::league::League::load(&games, "dp").is_ok());
    let tokens = w.game_with_players("dp-1", 2);
    let g = w.store().load("dp-1", None).unwrap();
    assert_eq!(g.now.players.iter().map(|p| p.driver_points).collect::<Vec<_>>(), [2, 0]);
    w.send(MOD, &format!("GAME dp-1\nTOKEN {MOD_TOKEN}\nSTART"));
    let mut offered = false;
    for _ in 0..100 {
        let g = w.store().load("dp-1", None).unwrap();
        let Some((car, choice)) = g.awaited() else { panic!("the race ended before car 1 had a choice") };
        let who = format!("p{car}@test.invalid");
        let reply = body_of(&w.read(&who));
        if car == 1 && choice && steward::engine::play::rerollable(g.pending_roll(1).unwrap()) {
            assert!(reply.contains("REROLL (2 driver points)"), "{reply}");
            offered = true;
            break;
        }
        let (id, _) = g.player(car).unwrap();
        let order = if choice {
            "CHOOSE A".to_string()
        } else {
            format!("GEAR {}", (g.now.race.as_ref().unwrap().state.car(id).gear + 1).clamp(1, 3))
        };
        w.send(&who, &format!("GAME dp-1\nCAR {car}\nTOKEN {}\n{order}", tokens[car as usize - 1]));
    }
    assert!(offered, "car 1 never held a choice");
    let before = w.store().load("dp-1", None).unwrap().next_turn();
    w.send("p1@test.invalid", &format!("GAME dp-1\nCAR 1\nTOKEN {}\nREROLL", tokens[0]));
    let g = w.store().load("dp-1", None).unwrap();
    let t = &g.turns[before as usize];
    assert!(t.orders[0].reroll, "{t:?}");
    assert_eq!(g.driver_points_left(1), 1);
    let reply = body_of(&w.read("p1@test.invalid"));
    assert!(reply.contains("expends a driver point"), "{reply}");
    // The new options (this seed's re-roll offers a choice), and no second re-roll on offer.
    assert_eq!(g.awaited(), Some((1, true)));
    assert!(reply.contains("CHOOSE <") && !reply.contains("or REROLL"), "{reply}");
    w.send("p1@test.invalid", &format!("PARTIE dp-1\nVOITURE 1\nJETON {}\nRELANCER", tokens[0]));
    let reply = body_of(&w.read("p1@test.invalid"));
    assert!(reply.contains("definitif") || reply.contains("re-rolled again"), "{reply}");
    assert_eq!(w.store().load("dp-1", None).unwrap().next_turn(), before + 1, "nothing was applied");
}

/// `steward demo` twice into one folder starts a fresh race the second time (issue 15: it used
/// to fail with stray mails), and a folder the demo did not make is refused in one sentence.
/// The follow-up command it prints runs as written.
#[test]
fn the_demo_into_an_earlier_demo_starts_afresh_and_a_foreign_folder_is_refused() {
    use crate::support::{stdout, steward};
    let dir = scratch("demo-twice");
    let d = dir.join("run");
    let d = d.to_str().unwrap();
    let args = ["demo", "--dir", d, "--track", "sprint", "--cars", "2", "--laps", "1", "--grid", "join"];
    let first = steward(&args);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert!(!stdout(&first).contains("afresh"));
    let second = steward(&args);
    assert!(second.status.success(), "{}", String::from_utf8_lossy(&second.stderr));
    let out = stdout(&second);
    assert!(out.contains("held an earlier demo") && out.contains("starts afresh"), "{out}");
    let games: Vec<_> =
        std::fs::read_dir(dir.join("run/games")).unwrap().flatten().filter(|e| e.path().is_dir()).collect();
    assert_eq!(games.len(), 1, "only the second race's game is left");

    // The printed check runs as written (from the crate root, where the tests run steward).
    let check = out.lines().find_map(|l| l.strip_prefix("Check every roll: ")).expect("a check command");
    let words: Vec<&str> = check.split_whitespace().collect();
    let run = std::process::Command::new(words[0])
        .args(&words[1..])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("the printed command runs");
    assert!(run.status.success(), "{check}: {}", String::from_utf8_lossy(&run.stderr));

    let foreign = dir.join("papers");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("notes.txt"), "mine").unwrap();
    let refused = steward(&["demo", "--dir", foreign.to_str().unwrap(), "--track", "sprint", "--cars", "2"]);
    assert_eq!(refused.status.code(), Some(2));
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("is not empty and no earlier demo made it"), "{err}");
    assert_eq!(std::fs::read_to_string(foreign.join("notes.txt")).unwrap(), "mine", "nothing of it touched");
}

/// A game whose moderator set a join password (`join_password_sha256` in its settings.toml,
/// docs/orders.md): a JOIN without it, or with another, is refused with a reply that says so and
/// carries no token; with it (trimmed), the player joins.
#[test]
fn a_join_password_is_asked_for_and_checked() {
    use steward::judge::standing::Standing;
    use steward::store::fsio::Durability;
    let mut w = World::new("joinpassword");
    w.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE pw TRACK sprint LAPS 1 CARS 2 HOURS 24"));
    let standing = Standing::open(&w.root.join("mail-state"), Durability::NoSync).unwrap();
    let mut settings = standing.game("pw").unwrap();
    assert_eq!(settings.created_by.as_deref(), Some(MOD), "the game's settings are these");
    // SHA-256 of "bleu", worked out outside steward (Python's hashlib).
    settings.join_password_sha256 = Some("50ab0299c6f88a48cb8e5a3f9122f7cc8ce015641a4f18cdeece9a75361a6ff1".into());
    standing.set_game("pw", &settings).unwrap();
    for order in ["JOIN pw CAR 1", "JOIN pw CAR 1 PASSWORD rouge"] {
        w.send("p1@test.invalid", order);
        let reply = body_of(&w.read("p1@test.invalid"));
        assert!(reply.contains("join PASSWORD"), "{order}: {reply}");
        assert!(super::token_in(&reply).is_none(), "{order}: no token for a refused join: {reply}");
    }
    // Settings that cannot be read let no join through unchecked: the mail is not handled,
    // and the moderators are told.
    let file = w.root.join("mail-state").join("games").join("pw").join("settings.toml");
    let good = std::fs::read(&file).unwrap();
    std::fs::write(&file, "join_password_sha256 = [").unwrap();
    w.send("p1@test.invalid", "JOIN pw CAR 1");
    let reply = body_of(&w.read("p1@test.invalid"));
    assert!(reply.contains("could not be handled") && super::token_in(&reply).is_none(), "{reply}");
    assert!(body_of(&w.read(MOD)).contains("settings.toml"), "the moderators are told what failed");
    std::fs::write(&file, good).unwrap();
    w.send("p1@test.invalid", "JOIN pw CAR 1 PASSWORD bleu");
    let welcome = body_of(&w.read("p1@test.invalid"));
    assert!(super::token_in(&welcome).is_some(), "the right password joins: {welcome}");
}
