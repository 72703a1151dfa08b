//! Report modes (`REPORTS MINE|ROUND|ALL|NONE`, `COURRIER MIENS|TOUR|TOUS|AUCUN`): who gets
//! a mail after each job, what the condensed report tells, the order in both languages, and
//! the demo's mail count per player.

use steward::demo::{DemoSpec, run};
use steward::engine::MoveOption;
use steward::engine::bot::Bot;
use steward::orders::ReportMode;
use steward::orders::{self, Order};
use steward::store::Store;
use steward::words::Lang;

use super::daemon::{MOD, MOD_TOKEN};
use super::desk::Desk;
use super::scratch;

struct World {
    desk: Desk,
    bot: Bot,
}

on_a_desk!(World);

/// A mail a player received: whether it replies to one of theirs, and its text.
#[derive(Debug)]
struct Got {
    reply: bool,
    subject: String,
    body: String,
}

impl World {
    fn new(name: &str) -> World {
        World { desk: Desk::new(name, |_| {}), bot: Bot::new() }
    }

    fn send(&mut self, from: &str, body: &str) {
        self.desk.mail(from, "r", body);
    }

    fn read(&self, address: &str) -> Vec<Got> {
        self.desk
            .messages(address)
            .into_iter()
            .map(|msg| Got { reply: !msg.in_reply_to.is_empty(), subject: msg.subject, body: msg.full_body })
            .collect()
    }

    /// Game `g` on sprint, `cars` players joined (player c's JOIN mail adds `join_extra[c-1]`),
    /// started; returns the tokens.
    fn started(&mut self, g: &str, cars: u8, join_extra: &[&str]) -> Vec<String> {
        self.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE {g} TRACK sprint LAPS 1 CARS {cars}"));
        let mut tokens = Vec::new();
        for c in 1..=cars {
            let who = player(c);
            let extra = join_extra.get(c as usize - 1).copied().unwrap_or("");
            self.send(&who, &format!("JOIN {g} CAR {c}\n{extra}"));
            let token =
                self.read(&who).iter().find_map(|m| super::token_in(&m.body)).expect("the welcome carries the token");
            tokens.push(token);
        }
        self.send(MOD, &format!("GAME {g}\nTOKEN {MOD_TOKEN}\nSTART"));
        tokens
    }

    /// The awaited car's player sends the bot's answer; returns the car, or `None` when the
    /// race is over.
    fn play_one(&mut self, g: &str, tokens: &[String]) -> Option<u8> {
        let game = self.game(g);
        let (car, choice) = game.awaited()?;
        let race = game.now.race.as_ref()?;
        let order = if choice {
            let rolled = &race.pending.as_ref().unwrap().rolled;
            format!("CHOOSE {}", MoveOption::label(self.bot.option(&game.track, rolled)))
        } else {
            let id = game.player(car).unwrap().0;
            format!("GEAR {}", self.bot.gear(&game.track, &race.state, id))
        };
        let token = &tokens[car as usize - 1];
        self.send(&player(car), &format!("GAME {g}\nCAR {car}\nTOKEN {token}\n{order}"));
        Some(car)
    }
}

fn player(c: u8) -> String {
    format!("p{c}@test.invalid")
}

/// Whether a report asks car `car` for something (its subject says what, in either language).
fn asks(m: &Got, car: u8) -> bool {
    let s = &m.subject;
    (s.contains(&format!(" car {car}: ")) || s.contains(&format!(" voiture {car} : ")))
        && [
            "your gear",
            "your choice",
            "your round order",
            "annoncez votre vitesse",
            "choisissez votre coup",
            "votre ordre du tour",
        ]
        .iter()
        .any(|w| s.contains(w))
}

#[test]
fn the_order_reads_in_english_and_french_and_an_unknown_mode_says_what_to_write() {
    let cases = [
        ("REPORTS MINE", ReportMode::Mine),
        ("reports round", ReportMode::Round),
        ("REPORTS ALL", ReportMode::All),
        ("REPORTS NONE", ReportMode::None),
        ("COURRIER MIENS", ReportMode::Mine),
        ("Courrier tour", ReportMode::Round),
        ("COURRIER TOUS", ReportMode::All),
        ("COURRIER AUCUN", ReportMode::None),
        ("RAPPORTS aucun", ReportMode::None),
    ];
    for (text, mode) in cases {
        let p = orders::parse(text);
        assert_eq!(p.orders(), vec![&Order::Reports(mode)], "{text}");
    }
    let p = orders::parse("REPORTS everything");
    let err = p.lines[0].result.as_ref().unwrap_err();
    let en = err.message(Lang::En);
    assert!(en.contains("everything") && en.contains("MINE, ROUND, ALL or NONE"), "{en}");
    let fr = orders::parse("COURRIER tout-court").lines[0].result.clone().unwrap_err().message(Lang::Fr);
    assert!(fr.contains("MIENS, TOUR, TOUS ou AUCUN"), "{fr}");
    assert!(orders::parse("REPORTS").lines[0].result.is_err());
}

#[test]
fn a_mode_is_kept_only_from_a_mail_that_proves_its_sender() {
    let mut w = World::new("reports-signed");
    let tokens = w.started("sg", 2, &["REPORTS ALL", ""]);
    // With the JOIN: kept (the receipt of the JOIN said so).
    // Without the token: not kept, and the reply says how to keep it.
    w.send(&player(2), "GAME sg\nCAR 2\nREPORTS NONE");
    let r = w.read(&player(2));
    let reply = r.iter().find(|m| m.reply).expect("a reply");
    assert!(reply.body.contains("REPORTS was not kept"), "{}", reply.body);
    // With GAME, CAR and TOKEN, in French: kept, the receipt says what it does.
    w.send(&player(2), &format!("PARTIE sg\nVOITURE 2\nJETON {}\nLANGUE fr\nCOURRIER AUCUN", tokens[1]));
    let r = w.read(&player(2));
    let reply = r.iter().find(|m| m.reply).expect("a reply");
    assert!(reply.body.contains("COURRIER AUCUN gardé pour la voiture 2"), "{}", reply.body);
    // An unknown mode: refused with the words to write.
    w.send(&player(1), &format!("GAME sg\nCAR 1\nTOKEN {}\nREPORTS sometimes", tokens[0]));
    let reply = w.read(&player(1)).into_iter().find(|m| m.reply).expect("a reply");
    // (The receipt wraps at 78 columns.)
    let flat = reply.body.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat.contains("is not a report mode (MINE, ROUND, ALL or NONE): write REPORTS MINE"), "{flat}");
}

#[test]
fn mine_mails_a_player_when_it_is_their_turn_all_after_every_move_none_never() {
    // Car 1 plays in MINE (the default), car 2 asked for ALL with its JOIN, car 3 NONE in
    // French.
    let mut w = World::new("reports-modes");
    let tokens = w.started("md", 3, &["", "REPORTS ALL", "COURRIER AUCUN"]);
    for c in 1..=3 {
        w.read(&player(c));
    }
    let mut got: Vec<Vec<Got>> = vec![Vec::new(), Vec::new(), Vec::new()];
    // For each job, who sent it.
    let mut jobs: Vec<u8> = Vec::new();
    for _ in 0..45 {
        let Some(car) = w.play_one("md", &tokens) else { break };
        jobs.push(car);
        for c in 1..=3u8 {
            let new = w.read(&player(c));
            // An order mail is answered at most once: at once when the answer asks something
            // more of the player, else its receipt waits for their next mail.
            if c == car {
                assert!(new.iter().filter(|m| m.reply).count() <= 1, "car {c}'s mail is answered once");
            }
            got[c as usize - 1].extend(new);
        }
    }
    assert!(jobs.len() >= 30, "the race went on ({} jobs)", jobs.len());
    // No receipt is lost: each of car 1's mails is receipted once, at once or in car 1's next
    // mail (the last one may still wait); in all, a mail per decision and no more.
    let mine_jobs = jobs.iter().filter(|&&c| c == 1).count();
    let receipts: usize = got[0].iter().map(|m| m.body.matches("Receipt for your message").count()).sum();
    assert!(receipts <= mine_jobs && receipts + 1 >= mine_jobs, "{receipts} receipts for {mine_jobs} mails");
    assert!(got[0].len() <= mine_jobs + 5, "MINE: {} mails for {mine_jobs} decisions", got[0].len());
    assert!(got[0].iter().any(|m| !m.reply && m.body.contains("Receipt for your message")), "a receipt was held");
    let unasked = |c: u8| got[c as usize - 1].iter().filter(|m| !m.reply).collect::<Vec<_>>();
    // ALL: one report for every job of another player (today's stream).
    let others = jobs.iter().filter(|&&c| c != 2).count();
    assert_eq!(unasked(2).len(), others, "ALL: a report after each of the others' mails");
    // NONE: nothing unasked.
    assert!(unasked(3).is_empty(), "NONE: {:?}", unasked(3).iter().map(|m| &m.subject).collect::<Vec<_>>());
    // MINE: a mail when car 1 is asked for its gear (its choice comes in the reply to its
    // GEAR), plus the end; far fewer than ALL.
    let mine = unasked(1);
    let gears = jobs.iter().zip(jobs.iter().skip(1)).filter(|(prev, next)| **prev != 1 && **next == 1).count();
    assert!(mine.len() <= gears + 2, "MINE: {} mails for {gears} turns of car 1", mine.len());
    assert!(mine.iter().filter(|m| asks(m, 1)).count() + 2 >= mine.len(), "MINE's mails ask car 1");
    assert!(mine.len() * 2 < unasked(2).len(), "MINE {} vs ALL {}", mine.len(), unasked(2).len());
    // Each MINE mail condenses the others' moves since car 1's previous mail: one line per
    // move, with the roll and where the car went.
    let m = mine
        .iter()
        .find(|m| m.body.contains("car 2 (gear") && m.body.contains("car 3 (gear"))
        .expect("a MINE report tells the moves of cars 2 and 3 since car 1's previous mail");
    assert!(!m.body.contains("Car 3 announces gear"), "no full per-turn text in MINE:\n{}", m.body);
    // A car's line tells its roll; a move's line also where it went and the option taken (a car
    // that stalls at the start rolls and does not move, so not every line is a move's).
    // A long line is folded under itself (issue 47): its continuations read with it.
    let unfolded: Vec<String> = mine.iter().map(|m| m.body.replace("\n    ", " ")).collect();
    let car3: Vec<&str> = unfolded.iter().flat_map(|b| b.lines()).filter(|l| l.contains("car 3 (gear")).collect();
    assert!(car3.iter().all(|l| l.contains("rolls ")), "{car3:#?}");
    assert!(car3.iter().any(|l| l.contains("moves ") && l.contains(" takes ")), "{car3:#?}");
}

#[test]
fn round_sends_one_digest_a_round_plus_the_players_own_prompts() {
    let mut w = World::new("reports-round");
    let tokens = w.started("rd", 3, &["", "", ""]);
    w.send(&player(3), &format!("PARTIE rd\nVOITURE 3\nJETON {}\nCOURRIER TOUR", tokens[2]));
    let reply = w.read(&player(3)).into_iter().find(|m| m.reply).unwrap();
    assert!(reply.body.contains("REPORTS ROUND kept for car 3 in game rd"), "{}", reply.body);
    let first_round = w.game("rd").now.race.as_ref().unwrap().state.round;
    let mut got = Vec::new();
    let mut replies = 0;
    for _ in 0..40 {
        if w.play_one("rd", &tokens).is_none() {
            break;
        }
        let (own, unasked): (Vec<_>, Vec<_>) = w.read(&player(3)).into_iter().partition(|m| m.reply);
        replies += own.len();
        got.extend(unasked);
    }
    let g = w.game("rd");
    let rounds = g.now.race.as_ref().unwrap().state.round - first_round;
    assert!(rounds >= 3, "{rounds} rounds played");
    let digests = got.iter().filter(|m| !asks(m, 3)).count();
    assert!(digests <= rounds as usize + 1, "{digests} digests for {rounds} rounds");
    // Each round ends with car 3 told: a digest, its own prompt, or the reply to its own mail
    // when that mail's move ended the round.
    assert!(got.len() + replies >= rounds as usize, "{} mails and {replies} replies for {rounds} rounds", got.len());
}

#[test]
fn the_demo_with_default_modes_mails_each_player_far_less_than_all() {
    let spec = |name: &str, reports| DemoSpec {
        dir: scratch(name),
        game: name.into(),
        track: "sprint".into(),
        cars: 3,
        laps: 1,
        policy_cars: 1,
        grid: steward::store::qualifying::GridMethod::Join,
        backmarkers: false,
        reports,
        drive: false,
        answer_hours: None,
        seed: 1,
        langs: Default::default(),
    };
    let mine_spec = spec("demo-mine", None);
    let mine = run(&mine_spec).unwrap();
    let all = run(&spec("demo-all", Some(ReportMode::All))).unwrap();
    // The race is a new one each time (its seed is the OS's): what hit each car differs.
    let g = Store::new(mine_spec.dir.join("games")).load("demo-mine", None).unwrap();
    for p in &mine.players {
        // A prompt for each gear asked for (the choice is asked in the reply to the GEAR, the
        // choice's receipt waits for the next prompt), the welcome, the JOIN's reply, the
        // start and the end: at most the decisions plus 5 (issue 15); the reply to the POLICY
        // mail of a car that sent one; and a mail at most for each turn that did something to
        // the car its player did not do (`modes::hits`: a contact by another car, a spin ...).
        let hit = g.turns.iter().filter(|t| steward::judge::modes::hits(t, p.car)).count();
        let policy = usize::from(p.car <= mine_spec.policy_cars);
        assert!(p.decisions > 10, "{p:?}");
        // Unasked mails: a prompt a decision at most; each mail of the player's gets at most
        // one reply, which acknowledges a round order at once (issue 46).
        assert!(p.received - p.replies <= p.decisions + 5 + policy + hit, "MINE: {p:?}, {hit} turns hit the car");
        // (+1: the JOIN's first mail, answered with its confirmation code, issue 45.)
        assert!(p.replies <= p.decisions + 3 + policy, "one reply a mail: {p:?}");
    }
    // ALL mails every player after every move of every car (a car out early sends few, the
    // others keep being mailed theirs).
    let decisions = |r: &steward::demo::DemoResult| r.players.iter().map(|p| p.decisions).sum::<usize>();
    // A round order sent ahead moves nothing until the car's turn (issue 46); each job that
    // plays a move mails ALL: at least the moves the other players' mails made, one a round at
    // the least.
    let g_all = Store::new(all.game_dir.parent().unwrap()).load("demo-all", None).unwrap();
    let rounds = g_all.now.race.as_ref().unwrap().state.round as usize;
    for p in &all.players {
        assert!(p.received >= rounds, "ALL sends every move: {p:?}, {rounds} rounds");
    }
    // The players' mail per decision sent (the moderator, who created the game, gets every
    // report in both): the two races differ, and a race where cars go out early has fewer
    // moves to tell.
    // Unasked mails, which the modes decide (each mail of a player's gets its reply in both).
    let sum = |r: &steward::demo::DemoResult| r.players.iter().map(|p| p.received - p.replies).sum::<usize>();
    assert!(
        sum(&mine) * decisions(&all) * 3 < sum(&all) * decisions(&mine) * 2,
        "players' mails: MINE {} for {} decisions, ALL {} for {}",
        sum(&mine),
        decisions(&mine),
        sum(&all),
        decisions(&all)
    );
}
