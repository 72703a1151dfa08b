//! Round orders (issue 46) by mail: each player sends the gear and the instructions of their
//! move once a round (`GEAR` and `DRIVE`, `VITESSE` and `PILOTER`), a car moves as soon as the
//! cars before it have moved, `ASK` asks after the roll, instructions that fit nothing fall back
//! as written, the preview is what the engine then does, and the deadlines run per round.

use steward::engine::bot::Bot;
use steward::engine::{Fate, MoveOption};
use steward::judge::round;
use steward::orders::policy::{Decision, Policy, decide};
use steward::orders::preview::{Outcome, preview};
use steward::orders::{Order, parse};
use steward::store::Game;
use steward::words::Lang;

use super::daemon::{MOD, MOD_TOKEN};
use super::desk::Desk;

struct World {
    desk: Desk,
    bot: Bot,
}

on_a_desk!(World);

fn player(c: u8) -> String {
    format!("p{c}@test.invalid")
}

impl World {
    fn new(name: &str) -> World {
        World { desk: Desk::new(name, |_| {}), bot: Bot::new() }
    }

    fn send(&mut self, from: &str, body: &str) {
        self.desk.mail(from, "r", body);
    }

    /// (subject, body, is a reply) of each new mail of `address`.
    fn read(&self, address: &str) -> Vec<(String, String, bool)> {
        self.desk
            .messages(address)
            .into_iter()
            .map(|m| (m.subject.clone(), m.full_body.clone(), !m.in_reply_to.is_empty()))
            .collect()
    }

    /// Game `g` on sprint with `cars` players (`create` added to the CREATE line, `join` to
    /// each JOIN), started: the tokens.
    fn started(&mut self, g: &str, cars: u8, create: &str, join: &str) -> Vec<String> {
        self.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE {g} TRACK sprint LAPS 1 CARS {cars}{create}"));
        let mut tokens = Vec::new();
        for c in 1..=cars {
            self.send(&player(c), &format!("JOIN {g} CAR {c}\n{join}"));
            let token = self
                .read(&player(c))
                .iter()
                .find_map(|(_, body, _)| {
                    body.lines().find_map(|l| {
                        let l = l.trim();
                        l.strip_prefix("TOKEN ").or_else(|| l.strip_prefix("JETON ")).map(str::to_string)
                    })
                })
                .expect("the welcome carries the token");
            tokens.push(token);
        }
        self.send(MOD, &format!("GAME {g}\nTOKEN {MOD_TOKEN}\nSTART"));
        tokens
    }

    /// The gear the bot would announce for car `car` of `game`.
    fn bot_gear(&mut self, game: &Game, car: u8) -> u8 {
        let id = game.player(car).unwrap().0;
        self.bot.gear(&game.track, &game.now.race.as_ref().unwrap().state, id)
    }

    /// Car `car`'s round order: the bot's gear, and `drive`.
    fn order(&mut self, g: &str, tokens: &[String], car: u8, drive: &str) {
        let game = self.game(g);
        let gear = self.bot_gear(&game, car);
        let token = &tokens[car as usize - 1];
        self.send(&player(car), &format!("GAME {g}\nCAR {car}\nTOKEN {token}\nGEAR {gear}\n{drive}"));
    }
}

impl World {
    /// The time zone kept for `address`, as the daemon's state holds it.
    fn store_zone(&self, address: &str) -> Option<String> {
        let state = steward::judge::standing::Standing::open(
            &self.root.join("mail-state"),
            steward::store::fsio::Durability::NoSync,
        )
        .unwrap();
        state.zone(address).unwrap()
    }
}

/// Each car's gears played (a car stalled at the start plays its gear and stays, 9-1).
fn moves(g: &Game) -> Vec<u32> {
    (1..=g.now.players.len() as u8)
        .map(|c| g.turns.iter().flat_map(|t| &t.orders).filter(|o| o.car == c && o.gear.is_some()).count() as u32)
        .collect()
}

impl World {
    /// Plays the first round (the start, 9) from round orders the bot decides.
    fn past_the_start(&mut self, g: &str, tokens: &[String]) {
        for car in round::still_to_move(&self.game(g)).into_iter().rev() {
            self.order(g, tokens, car, "DRIVE BOT");
        }
        assert!(self.game(g).now.race.as_ref().unwrap().state.round >= 2, "the first round is played");
    }
}

#[test]
fn a_whole_round_plays_from_round_orders_with_no_further_mail() {
    let mut w = World::new("rounds-whole");
    let tokens = w.started("wr", 3, "", "");
    for c in 1..=3 {
        let mails = w.read(&player(c));
        assert!(mails.iter().any(|(s, _, _)| s.contains("your round order")), "a round prompt at the start");
    }
    w.past_the_start("wr", &tokens);
    let g = w.game("wr");
    let round_no = g.now.race.as_ref().unwrap().state.round;
    let order = round::still_to_move(&g);
    assert_eq!(order.len(), 3, "every car moves in the round: {order:?}");
    // Every player was asked for a round order when the round began, with a reply address
    // (when their car's move ended the round, in the reply to their mail).
    for c in 1..=3 {
        let mails = w.read(&player(c));
        let asked = mails
            .iter()
            .rev()
            .find(|(s, b, _)| s.contains("your round order") && b.contains(&format!("Round {round_no}, car {c}")))
            .expect("a round prompt");
        assert!(asked.1.contains("DRIVE FARTHEST-FREE ELSE SAFEST ELSE ASK"), "{}", asked.1);
        assert!(asked.1.contains("  GEAR "), "the preview of each gear:\n{}", asked.1);
    }
    let before = moves(&g);
    let turns = g.turns.len();
    // The players behind send first: nothing moves, each gets its acknowledgement at once.
    for (i, &car) in order.iter().enumerate().rev().take(2) {
        w.order("wr", &tokens, car, "DRIVE FARTHEST-FREE ELSE SAFEST ELSE BOT");
        assert_eq!(w.game("wr").turns.len(), turns, "car {car}'s order waits for the cars before it");
        let ack = w.read(&player(car));
        let (_, body, reply) = ack.iter().find(|(_, b, _)| b.contains("Received for car")).expect("an acknowledgement");
        assert!(*reply, "the acknowledgement answers the mail");
        let place = format!("you move {}", round::ordinal(i + 1, Lang::En));
        assert!(body.contains(&place) && body.contains("face "), "{place}: {body}");
    }
    // The leader's order plays the whole round.
    w.order("wr", &tokens, order[0], "DRIVE FARTHEST-FREE ELSE SAFEST ELSE BOT");
    let after = w.game("wr");
    let moved: Vec<u32> = moves(&after).iter().zip(&before).map(|(a, b)| a - b).collect();
    assert_eq!(moved, [1, 1, 1], "each car moved once, with no further mail");
    let by_drive = after.turns.iter().filter(|t| t.source.as_ref().and_then(|s| s.by.as_deref()) == Some("drive"));
    assert!(by_drive.count() >= 1, "the choices were the instructions'");
    for c in 1..=3 {
        let asked_choice = w.read(&player(c)).iter().any(|(s, _, _)| s.contains("your choice of move"));
        assert!(!asked_choice, "car {c} was not asked after its roll");
    }
    // The next round's prompts went out.
    assert!(round::still_to_move(&after).len() == 3 || after.now.over);
    steward::store::verify::verify(&w.store().game_dir("wr"), None).unwrap();
}

#[test]
fn the_car_ahead_moves_without_waiting_for_the_players_behind() {
    let mut w = World::new("rounds-ahead");
    let tokens = w.started("ah", 3, "", "");
    let g = w.game("ah");
    let order = round::still_to_move(&g);
    let before = moves(&g);
    w.order("ah", &tokens, order[0], "DRIVE FARTHEST-FREE ELSE SAFEST ELSE BOT");
    let after = w.game("ah");
    let lead = order[0] as usize - 1;
    assert_eq!(moves(&after)[lead], before[lead] + 1, "the leader moved at once");
    assert_eq!(round::still_to_move(&after), order[1..].to_vec(), "the others still to move, in order");
}

/// A round order that answers its prompt's turn (`TURN`, as a reply address carries it) while
/// the car is awaited: its GEAR rolls at once, and its DRIVE on the next line decides that roll
/// (it is not refused as stale because of the roll its own GEAR made).
#[test]
fn a_round_order_for_an_awaited_car_rolls_and_decides_in_one_mail() {
    let mut w = World::new("rounds-awaited");
    let tokens = w.started("aw", 2, "", "");
    w.past_the_start("aw", &tokens);
    let g = w.game("aw");
    let lead = round::still_to_move(&g)[0];
    let before = moves(&g);
    let turn = g.next_turn() - 1;
    let gear = w.bot_gear(&g, lead);
    w.read(&player(lead));
    let token = &tokens[lead as usize - 1];
    w.send(
        &player(lead),
        &format!(
            "GAME aw\nCAR {lead}\nTOKEN {token}\nTURN {turn}\nGEAR {gear}\nDRIVE FARTHEST-FREE ELSE SAFEST ELSE BOT"
        ),
    );
    let after = w.game("aw");
    assert!(after.pending_roll(lead).is_none(), "the DRIVE decided the roll");
    assert_eq!(moves(&after)[lead as usize - 1], before[lead as usize - 1] + 1, "car {lead} moved once");
    let mails = w.read(&player(lead));
    for (subject, body, _) in &mails {
        assert!(!body.contains("Stale order"), "{subject}\n{body}");
        assert!(!subject.contains("your choice of move"), "{subject}\n{body}");
    }
}

#[test]
fn ask_prompts_after_the_roll() {
    let mut w = World::new("rounds-ask");
    let tokens = w.started("ak", 2, "", "");
    // From the grid a car may stall before any choice (9-1): from the second round on.
    w.past_the_start("ak", &tokens);
    let lead = round::still_to_move(&w.game("ak"))[0];
    w.read(&player(lead));
    w.order("ak", &tokens, lead, "DRIVE ASK");
    let g = w.game("ak");
    assert!(g.pending_roll(lead).is_some(), "the roll waits for the player's choice");
    let mails = w.read(&player(lead));
    let (subject, body, _) = mails.last().unwrap();
    assert!(subject.contains("your choice of move") && body.contains("CHOOSE"), "{subject}\n{body}");
}

/// An option priced as the engine prices it (`orders::option`), leaving a corner short of its
/// stops when `overshoot` (10-1).
fn option(spaces: u8, brakes: u8, tyres: u8, overshoot: bool) -> MoveOption {
    MoveOption {
        missed: overshoot.then_some(steward::track::CornerIdx(0)),
        ..super::orders::option(spaces, brakes, tyres, 0, Fate::Continues)
    }
}

fn drive(text: &str) -> Policy {
    match parse(text).orders().first().copied() {
        Some(Order::Drive(p)) => p.clone(),
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn instructions_that_fit_nothing_fall_back_as_written() {
    // Farthest first, as the engine lists them.
    let opts = [option(9, 0, 2, true), option(8, 2, 0, false), option(7, 1, 0, false), option(6, 0, 1, false)];
    let label = |d: Option<Decision>| match d {
        Some(Decision::Take { label, .. }) => label,
        Some(Decision::Ask) => "ask".into(),
        other => format!("{other:?}"),
    };
    assert_eq!(label(decide(&drive("DRIVE FARTHEST BRAKES<=1 NO-OVERSHOOT"), &opts)), "C");
    assert_eq!(label(decide(&drive("DRIVE FARTHEST TYRES <= 0"), &opts)), "B");
    assert_eq!(label(decide(&drive("DRIVE FARTHEST WEAR<=0 ELSE SAFEST"), &opts)), "C", "nothing free: the safest");
    assert_eq!(label(decide(&drive("DRIVE FARTHEST WEAR<=0 ELSE ASK"), &opts)), "ask");
    assert_eq!(decide(&drive("DRIVE FARTHEST-FREE"), &opts), None, "nothing fits, nothing after: asked");
    // French reads the same.
    assert_eq!(
        drive("PILOTER LOIN FREINS<=1 SANS-SORTIE SINON SUR SINON DEMANDER"),
        drive("DRIVE FARTHEST BRAKES<=1 NO-OVERSHOOT ELSE SAFEST ELSE ASK")
    );
    // Written back as read.
    let p = drive("drive farthest brakes 1 no-overshoot lane left slipstream no else pit long tyres soft else ask");
    assert_eq!(p.en(), "FARTHEST BRAKES<=1 NO-OVERSHOOT SLIPSTREAM NO LANE LEFT ELSE PIT LONG TYRES soft ELSE ASK");
    assert_eq!(drive(&format!("DRIVE {}", p.en())), p);
    // What cannot be read says what to write.
    let e = parse("DRIVE FARTHEST BRAKES<=x").lines[0].result.clone().unwrap_err().message(Lang::En);
    assert!(e.contains("DRIVE FARTHEST BRAKES<=1 NO-OVERSHOOT ELSE SAFEST ELSE ASK"), "{e}");
    let e = parse("DRIVE FARTHEST QUICKLY").lines[0].result.clone().unwrap_err().message(Lang::En);
    assert!(e.contains("'QUICKLY' is not a condition") && e.contains("NO-OVERSHOOT"), "{e}");
}

#[test]
fn the_preview_is_what_the_engine_then_does() {
    let mut w = World::new("rounds-preview");
    let tokens = w.started("pv", 2, "", "");
    // From the grid the start's own die comes first (9-0-1): the preview is of gear dice.
    w.past_the_start("pv", &tokens);
    let g = w.game("pv");
    let lead = round::still_to_move(&g)[0];
    let race = g.now.race.as_ref().unwrap();
    let id = g.player(lead).unwrap().0;
    let gear = w.bot.gear(&g.track, &race.state, id);
    let text = "DRIVE FARTHEST WEAR<=1 ELSE SAFEST ELSE ASK";
    let rows = preview(&g.track, &race.state, id, gear, &g.rules, &drive(text), Lang::En);
    assert!(!rows.is_empty());
    let token = &tokens[lead as usize - 1];
    w.send(&player(lead), &format!("GAME pv\nCAR {lead}\nTOKEN {token}\nGEAR {gear}\n{text}"));
    // Nobody moves before the leader: the board it rolls on is the preview's.
    let after = w.game("pv");
    let new = &after.turns[g.turns.len()..];
    let rolled = new.iter().flat_map(|t| &t.rolls).find(|r| r.die.starts_with("gear")).expect("the gear roll");
    let (_, outcome) = rows.iter().find(|(face, _)| *face == rolled.value).expect("the face rolled is previewed");
    let taken = new.iter().flat_map(|t| &t.orders).filter(|o| o.car == lead).find_map(|o| o.choose.clone());
    match outcome {
        Outcome::Takes { label, .. } => assert_eq!(taken.as_deref(), Some(label.as_str()), "{rows:?}"),
        Outcome::Asked => assert!(after.pending_roll(lead).is_some(), "asked, as previewed"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_missed_round_order_is_played_by_the_bot_at_the_round_deadline() {
    let mut w = World::new("rounds-deadline");
    let tokens = w.started("dl", 3, " HOURS 24 PACE ROUND", "");
    let g = w.game("dl");
    assert_eq!(g.setup.deadlines.as_deref(), Some("round"));
    let order = round::still_to_move(&g);
    let due = g.turns.last().unwrap().due.clone().unwrap();
    // The leader answers after 20 hours: the round's clock runs from its start, so the next car
    // is due at the same time as the leader was.
    w.advance_hours(20);
    w.order("dl", &tokens, order[0], "DRIVE FARTHEST-FREE ELSE SAFEST ELSE BOT");
    let g = w.game("dl");
    assert_eq!(g.turns.last().unwrap().due.as_deref(), Some(due.as_str()), "one deadline for the round");
    // Nobody else answers: past the deadline, the bot plays the rest of the round, a car a
    // pass.
    w.advance_hours(5);
    for _ in 0..3 {
        w.pass();
    }
    let g = w.game("dl");
    let defaults =
        g.turns.iter().filter(|t| t.source.as_ref().and_then(|s| s.by.as_deref()) == Some("deadline")).count();
    assert!(defaults >= 1, "the missed orders were played by the bot");
    let new_round = g.now.race.as_ref().unwrap().state.round;
    assert!(new_round > 1 || g.now.over, "the round ended at its deadline");
}

#[test]
fn a_french_player_gets_the_round_prompt_and_the_acknowledgement_in_french() {
    let mut w = World::new("rounds-fr");
    let tokens = w.started("fr", 2, "", "LANGUE fr");
    let g = w.game("fr");
    let order = round::still_to_move(&g);
    let last = *order.last().unwrap();
    let mails = w.read(&player(last));
    let (_, body, _) = mails.iter().find(|(s, _, _)| s.contains("votre ordre du tour")).expect("a French round prompt");
    assert!(body.contains("PILOTER LOIN-GRATUIT SINON SUR SINON DEMANDER") && body.contains("VITESSE "), "{body}");
    assert!(!body.contains("Send your round order"), "{body}");
    let token = &tokens[last as usize - 1];
    w.send(
        &player(last),
        &format!("PARTIE fr\nVOITURE {last}\nJETON {token}\nVITESSE 2\nPILOTER LOIN USURE<=1 SINON SUR"),
    );
    let ack = w.read(&player(last));
    let (_, body, _) =
        ack.iter().find(|(_, b, _)| b.contains("Reçu pour la voiture")).expect("a French acknowledgement");
    assert!(body.contains("PILOTER LOIN USURE<=1 SINON SUR") && body.contains("vous jouez en 2e position"), "{body}");
}

#[test]
fn deadlines_read_in_the_players_own_time_zone_with_utc_beside() {
    let mut w = World::new("rounds-zone");
    let tokens = w.started("tz", 2, " HOURS 24 PACE ROUND", "");
    let g = w.game("tz");
    let last = *round::still_to_move(&g).last().unwrap();
    let token = &tokens[last as usize - 1];
    w.send(&player(last), &format!("GAME tz\nCAR {last}\nTOKEN {token}\nTIMEZONE europe/paris\nBOARD"));
    let mails = w.read(&player(last));
    let (_, body, _) = mails.last().unwrap();
    assert!(body.contains("TIMEZONE Europe/Paris kept"), "{body}");
    assert_eq!(w.store_zone(&player(last)).as_deref(), Some("Europe/Paris"));
    // The round's deadline, 24 hours after the start (the desk's clock: Sunday 22 November
    // 2026, 12:00 UTC), in Paris time with UTC beside it.
    assert!(body.contains("(answer by Monday 23 November 2026, 13:00 Europe/Paris (12:00 UTC))"), "{body}");
    // A zone nobody knows says what to write.
    let e = parse("TIMEZONE Mars/Olympus").lines[0].result.clone().unwrap_err().message(Lang::En);
    assert!(e.contains("TIMEZONE Europe/Paris"), "{e}");
    // A forged From without the token keeps nothing.
    w.send(&player(1), "GAME tz\nTIMEZONE Asia/Tokyo");
    assert!(w.store_zone(&player(1)).is_none());
}

#[test]
fn a_qualifying_session_played_from_one_mail_per_player() {
    let mut w = World::new("rounds-lap");
    let tokens = w.started("ql", 2, " GRID QUALIFYING", "");
    assert!(w.game("ql").now.qualifying.is_some(), "the session runs");
    // One mail each, English and French; nothing else is sent.
    w.send(&player(1), &format!("GAME ql\nCAR 1\nTOKEN {}\nLAP FARTHEST-FREE ELSE SAFEST ELSE BOT", tokens[0]));
    let (_, body, _) = w.read(&player(1)).into_iter().find(|(_, b, _)| b.contains("LAP ")).unwrap();
    assert!(body.contains("LAP FARTHEST-FREE ELSE SAFEST ELSE BOT kept"), "{body}");
    w.send(&player(2), &format!("PARTIE ql\nVOITURE 2\nJETON {}\nCHRONO LOIN-GRATUIT SINON SUR SINON BOT", tokens[1]));
    let g = w.game("ql");
    assert!(g.now.qualifying.is_none() && g.now.race.is_some(), "both laps driven, the race gridded");
    let laps = g.turns.iter().filter(|t| t.source.as_ref().and_then(|s| s.by.as_deref()) == Some("lap")).count();
    assert!(laps >= 4, "steward drove the laps' gears: {laps} turns");
    // After the session, LAP is refused with what it is for.
    w.send(&player(1), &format!("GAME ql\nCAR 1\nTOKEN {}\nLAP SAFEST", tokens[0]));
    let (_, body, _) = w.read(&player(1)).into_iter().last().unwrap();
    assert!(body.contains("LAP gives the instructions for car 1's timed lap"), "{body}");
}

/// A reply from a stranger's mail program to `to` (a reply address): the answer above the
/// quoted prompt, as an iPhone writes it (`On ... wrote:`, then `>` lines).
fn iphone_reply(from: &str, to: &str, answer: &str, quoted: &str, n: u32) -> Vec<u8> {
    let quote: String = quoted.lines().take(40).map(|l| format!("> {l}\r\n")).collect();
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: round\r\nMessage-ID: <iphone{n}@test.invalid>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n\r\nSent from my iPhone\r\n\r\nOn 3 Dec 2026, at 12:00, steward <steward@test.invalid> wrote:\r\n\r\n{quote}",
        answer.replace('\n', "\r\n")
    )
    .into_bytes()
}

#[test]
fn a_round_prompts_address_takes_the_round_order_while_open_and_nothing_once_answered() {
    let mut w = World::new("rounds-tag");
    let tokens = w.started("tg", 2, "", "");
    w.past_the_start("tg", &tokens);
    let g = w.game("tg");
    let order = round::still_to_move(&g);
    let last = *order.last().unwrap();
    let prompt = w
        .desk
        .messages(&player(last))
        .into_iter()
        .rfind(|m| m.subject.contains("your round order") && m.reply_to.as_deref().is_some_and(|r| r.contains('+')))
        .expect("a round prompt with its reply address");
    let tag = prompt.reply_to.clone().unwrap();
    // The player answers from their phone: GEAR and DRIVE above the quoted prompt, no token.
    let raw = iphone_reply(&player(last), &tag, "GEAR 2\nDRIVE SAFEST", &prompt.full_body, 1);
    w.desk.deliver(&raw);
    w.desk.pass();
    let acks = w.read(&player(last));
    assert!(acks.iter().any(|(_, b, _)| b.contains("Received for car") && b.contains("DRIVE SAFEST")), "{acks:?}");
    // The round is played; the old address is then held by a stranger.
    for &car in order.iter().rev().skip(1) {
        w.order("tg", &tokens, car, "DRIVE BOT");
    }
    let moved = w.game("tg");
    assert!(moved.turns.iter().any(|t| t.orders.iter().any(|o| o.car == last && o.gear == Some(2))), "GEAR 2 played");
    let before = moved.turns.len();
    let raw = iphone_reply("stranger@evil.invalid", &tag, "GEAR 6\nDRIVE FARTHEST", &prompt.full_body, 2);
    w.desk.deliver(&raw);
    w.desk.pass();
    let after = w.game("tg");
    assert_eq!(after.turns.len(), before, "nothing applied");
    let refusal = w.read("stranger@evil.invalid");
    assert!(refusal.iter().any(|(_, b, _)| b.contains("Stale order")), "{refusal:?}");
}

/// A game on a schedule (`AT 20:00 ZONE Europe/Paris WEEKENDS NO GRACE 30`): a round that
/// begins on Friday 26 March 2027 is due on Monday 29 March at 20:00 in Paris, which is summer
/// time since the Sunday (18:00 UTC, where Friday's 20:00 was 19:00 UTC); an order within the
/// grace is taken, and past it the bot plays the default move.
#[test]
fn deadlines_on_a_weekday_schedule_across_a_daylight_saving_change() {
    let mut w = World::new("rounds-schedule");
    // The desk's clock starts on Sunday 22 November 2026 at 12:00 UTC: on to Friday 26 March
    // 2027, 09:00 UTC.
    w.advance_hours(2973);
    assert_eq!(w.now().to_string(), "2027-03-26T09:00:00Z");
    let tokens = w.started("sc", 2, " AT 20:00 ZONE Europe/Paris WEEKENDS NO GRACE 30", "");
    let g = w.game("sc");
    let s = g.setup.schedule.clone().expect("the game's schedule");
    assert_eq!((s.at.as_str(), s.zone.as_str(), s.skip_weekends, s.grace_minutes), ("20:00", "Europe/Paris", true, 30));
    assert_eq!(g.setup.deadlines.as_deref(), Some("round"), "a schedule paces the game by rounds");
    let last = g.turns.last().unwrap();
    assert_eq!(last.due.as_deref(), Some("2027-03-29T18:00:00Z"), "Monday 20:00 summer time, the weekend skipped");
    assert_eq!(last.grace_minutes, Some(30));
    // Every player reads it in the game's zone (none set their own), with its weekday.
    let order = round::still_to_move(&g);
    let mails = w.read(&player(order[1]));
    let (_, body, _) = mails.iter().rev().find(|(s, _, _)| s.contains("your round order")).expect("a round prompt");
    assert!(body.contains("Monday 29 March 2027, 20:00 Europe/Paris (18:00 UTC)"), "{body}");
    // Ten minutes past the deadline, within the grace: the leader's order is taken.
    w.advance_hours(3 * 24 + 9);
    *w.desk.clock.lock().unwrap() += 10 * 60;
    w.pass();
    let before = w.game("sc").turns.len();
    assert!(
        !w.game("sc").turns.iter().any(|t| t.source.as_ref().and_then(|s| s.by.as_deref()) == Some("deadline")),
        "no default move within the grace"
    );
    w.order("sc", &tokens, order[0], "DRIVE FARTHEST-FREE ELSE SAFEST ELSE BOT");
    let g = w.game("sc");
    assert!(g.turns.len() > before, "the order in the grace was played");
    assert!(
        g.turns[before..].iter().all(|t| t.source.as_ref().and_then(|s| s.by.as_deref()) != Some("deadline")),
        "by the player, not the deadline"
    );
    // Past the grace the bot plays the car that did not answer.
    *w.desk.clock.lock().unwrap() += 25 * 60;
    w.pass();
    w.pass();
    let g = w.game("sc");
    assert!(
        g.turns.iter().any(|t| t.source.as_ref().and_then(|s| s.by.as_deref()) == Some("deadline")
            && t.orders.iter().any(|o| o.car == order[1])),
        "the bot played car {} after the grace",
        order[1]
    );
    // The next round begins on Monday evening: twelve hours' notice, so Tuesday 20:00 in Paris.
    if !g.now.over && g.now.race.as_ref().unwrap().state.round == 2 {
        assert_eq!(g.turns.last().unwrap().due.as_deref(), Some("2027-03-30T18:00:00Z"));
    }
}

/// A race paced by rounds mails a player once a round: no reminder unless the operator asks
/// for one (`round_reminder_hours`), and the default report mode is `ROUND`, so an incident
/// that hits a car waits for its player's next round prompt.
#[test]
fn a_round_paced_game_sends_no_reminder_unless_the_operator_asks() {
    for hours in [0, 6] {
        let mut w = World {
            desk: Desk::new(&format!("rounds-remind-{hours}"), |c| c.round_reminder_hours = hours),
            bot: Bot::new(),
        };
        let _tokens = w.started("rm", 2, " HOURS 24 PACE ROUND", "");
        let order = round::still_to_move(&w.game("rm"));
        // The car called to play (the leader, which nobody has answered for).
        let leader = order[0];
        w.read(&player(leader));
        // 13 hours before the deadline, then 5: a move's reminder (12 hours) would be due.
        w.advance_hours(11);
        w.pass();
        let early = w.read(&player(leader));
        assert!(!early.iter().any(|(s, _, _)| s.contains("reminder")), "{early:?}");
        w.advance_hours(8);
        w.pass();
        let late = w.read(&player(leader));
        let reminded = late.iter().any(|(s, _, _)| s.contains("reminder"));
        assert_eq!(reminded, hours > 0, "round_reminder_hours = {hours}: {late:?}");
    }
}

/// The demo's simulated calendar (`steward demo --answer-hours 8`), on a short race: with round
/// orders every player gets at most one mail from the race a round (plus the welcome, the start
/// and the end), sends at most one, the moderator gets the round digest, and a round takes less
/// than the 1.3 days of issue 46, where answering every roll by mail takes much longer.
#[test]
fn the_paced_demo_mails_each_player_once_a_round() {
    let dir = super::scratch("rounds-paced-demo");
    let mut spec = super::sprint_demo(&dir, "paced", 4, 0, steward::store::qualifying::GridMethod::Join);
    spec.answer_hours = Some(8.0);
    spec.drive = true;
    let r = steward::demo::run(&spec).unwrap();
    assert!(r.rounds >= 5, "a race of some rounds: {}", r.rounds);
    let budget = r.rounds as usize + 5;
    for p in &r.players {
        let race = p.received - p.replies;
        assert!(race <= budget, "{}: {race} mails from the race for {} rounds", p.address, r.rounds);
        assert!(p.decisions <= budget, "{}: {} sent", p.address, p.decisions);
        assert_eq!(p.reminders, 0, "{}: no reminder in a race paced by rounds", p.address);
    }
    assert!(r.moderator_mails <= budget, "moderator: {} for {} rounds", r.moderator_mails, r.rounds);
    let per_round = |r: &steward::demo::DemoResult| r.calendar_seconds.unwrap() as f64 / 86_400.0 / f64::from(r.rounds);
    assert!(per_round(&r) <= 1.3, "{:.2} days a round", per_round(&r));
    let every_roll =
        steward::demo::run(&steward::demo::DemoSpec { dir: dir.join("every-roll"), drive: false, ..spec }).unwrap();
    assert!(per_round(&every_roll) > per_round(&r), "{:.2} against {:.2}", per_round(&every_roll), per_round(&r));
}
