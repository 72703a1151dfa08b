//! Signed reply addresses by mail (`mail::tag`, docs/daemon.md "Reply addresses"): a prompt's
//! `Reply-To: steward+<tag>@domain`, a reply with the bare answer applied (top-posted, quoted as
//! Gmail, Outlook and iPhone quote), a stale or forged tag refused, the tag's limits, the EN and
//! FR prompts, and the demo's players answering so.

use steward::demo::run;
use steward::mail::message::Incoming;
use steward::store::Store;

use super::daemon::{MOD, MOD_TOKEN, STEWARD};
use super::desk::Desk;
use super::scratch;

struct World {
    desk: Desk,
}

on_a_desk!(World);

/// A reply to a prompt: `From`, `To` (the tag), extra headers, body.
pub(super) fn letter(from: &str, to: &str, extra: &str, id: &str, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\n{extra}Subject: Re: [g] turn\r\nMessage-ID: <{id}@test.invalid>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
        body.replace('\n', "\r\n")
    )
    .into_bytes()
}

impl World {
    fn new(name: &str) -> World {
        World { desk: Desk::new(&format!("replytags-{name}"), |_| {}) }
    }

    fn deliver(&mut self, raw: &[u8]) {
        self.desk.deliver(raw);
        self.desk.pass();
    }

    /// A mail to the plain address.
    fn send(&mut self, from: &str, body: &str) {
        let raw = letter(from, STEWARD, "", &format!("m{}", self.desk.next_number()), body);
        self.deliver(&raw);
    }

    /// A mail to `to` (a reply address) with `extra` headers.
    fn reply(&mut self, from: &str, to: &str, extra: &str, body: &str) {
        let raw = letter(from, to, extra, &format!("r{}", self.desk.next_number()), body);
        self.deliver(&raw);
    }

    fn read(&self, address: &str) -> Vec<Incoming> {
        self.desk.messages(address)
    }

    /// Creates `g` with two players, starts it; returns the tokens.
    fn started(&mut self, g: &str) -> Vec<String> {
        self.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE {g} TRACK sprint LAPS 1 CARS 2 HOURS 24"));
        let mut tokens = Vec::new();
        for c in 1..=2 {
            let who = format!("p{c}@test.invalid");
            self.send(&who, &format!("JOIN {g} CAR {c}"));
            if let Some(confirmed) = self.desk.confirm_join(&who, &format!("JOIN {g} CAR {c}")) {
                self.send(&who, &confirmed);
            }
            let token = self
                .read(&who)
                .iter()
                .find_map(|m| super::token_in(&m.full_body))
                .expect("the welcome carries the token");
            tokens.push(token);
        }
        self.send(MOD, &format!("GAME {g}\nTOKEN {MOD_TOKEN}\nSTART"));
        tokens
    }
}

/// The awaited car's address, and the newest signed reply address and text it was sent.
fn prompt(w: &World, g: &str) -> (u8, String, String, String) {
    let (car, _) = w.game(g).awaited().unwrap();
    let who = format!("p{car}@test.invalid");
    let mails = w.read(&who);
    let newest = mails
        .iter()
        .filter_map(|m| {
            let r = m.reply_to.clone()?;
            let tag = steward::mail::tag::tag_in(STEWARD, &r)?;
            Some((steward::mail::tag::parse(&tag)?.turn, r, m.full_body.clone()))
        })
        .max_by_key(|(t, _, _)| *t)
        .expect("the awaited player's report has a signed Reply-To");
    (car, who, newest.1, newest.2)
}

/// Plays `GEAR 1` by bare replies until a car awaits a choice (a single option is played
/// without asking); that car's prompt.
fn to_choice(w: &mut World) -> (u8, String, String, String) {
    for _ in 0..50 {
        let (_, choice) = w.game("g").awaited().unwrap();
        let p = prompt(w, "g");
        if choice {
            return p;
        }
        w.reply(&p.1, &p.2, "", "GEAR 1");
    }
    panic!("no car was asked for a choice")
}

fn bodies(msgs: &[Incoming]) -> String {
    msgs.iter().map(|m| m.full_body.clone()).collect::<Vec<_>>().join("\n=====\n")
}

/// `text` quoted as Gmail quotes under a reply.
fn gmail(answer: &str, text: &str) -> String {
    let quoted: String = text.lines().map(|l| format!("> {l}\n")).collect();
    format!("{answer}\n\nOn Sun, Nov 22, 2026 at 12:00 PM steward <{STEWARD}> wrote:\n{quoted}")
}

#[test]
fn a_bare_reply_to_the_prompt_is_applied() {
    let mut w = World::new("bare");
    w.started("g");
    let (car, who, tag, text) = prompt(&w, "g");
    assert!(tag.starts_with("steward+g."), "{tag}");
    assert!(text.contains("Reply to this mail with just:") && text.contains(&tag), "{text}");
    // The from-scratch form is still shown.
    assert!(text.contains(&format!("CAR {car}")) && text.contains("TOKEN <your token>"), "{text}");
    let before = w.game("g").next_turn();
    w.reply(&who, &tag, "", &gmail("GEAR 1", &text));
    let g = w.game("g");
    let _ = text;
    assert!(g.next_turn() > before, "the bare GEAR was applied");
    let gear = g.turns[before as usize].orders.iter().find(|o| o.car == car).and_then(|o| o.gear);
    assert_eq!(gear, Some(1));
    // A choice: the reply to its prompt is the letter alone, top-posted above Outlook's
    // unmarked quote.
    let (car, who, tag2, text2) = to_choice(&mut w);
    assert_ne!(tag2, tag, "each prompt has its own address");
    assert!(text2.contains("Reply to this mail with just:") && text2.contains("\n    <A|"), "{text2}");
    let outlook = format!(
        "a.\n\n-----Original Message-----\nFrom: steward <{STEWARD}>\nSent: Sunday, November 22, 2026 12:00 PM\n\n{text2}"
    );
    let before = w.game("g").next_turn();
    w.reply(&who, &tag2, "", &outlook);
    let g = w.game("g");
    assert!(g.next_turn() > before, "the bare letter was applied");
    assert_eq!(
        g.turns[before as usize].orders.iter().find(|o| o.car == car).and_then(|o| o.choose.clone()).as_deref(),
        Some("A")
    );
}

#[test]
fn an_iphone_reply_with_the_letter_alone_and_a_delivered_to_header_is_applied() {
    let mut w = World::new("iphone");
    w.started("g");
    let (car, who, tag2, text2) = to_choice(&mut w);
    let g = w.game("g");
    // To the plain address, as a relay may rewrite it, with the tag in Delivered-To (Postfix
    // with `recipient_delimiter = +`, then Dovecot); the letter in lower case, the tag folded
    // to upper case by some server.
    let quoted: String = text2.lines().map(|l| format!("> {l}\n")).collect();
    let body =
        format!("a\n\nSent from my iPhone\n\n> On 22 Nov 2026, at 12:00, steward <{STEWARD}> wrote:\n>\n{quoted}");
    let before = g.next_turn();
    w.reply(&who, STEWARD, &format!("Delivered-To: {}\r\n", tag2.to_uppercase()), &body);
    let reply = bodies(&w.read(&who));
    let g = w.game("g");
    assert!(g.next_turn() > before, "the letter was applied: {reply}");
    assert_eq!(
        g.turns[before as usize].orders.iter().find(|o| o.car == car).and_then(|o| o.choose.clone()).as_deref(),
        Some("A")
    );
    // The receipt echoes the line: at once, or held for the player's next mail (a clean
    // answer that asks nothing more, report mode MINE).
    let held =
        std::fs::read_to_string(w.root.join(format!("mail-state/games/g/reports-{car}.toml"))).unwrap_or_default();
    assert!(
        reply.contains("Orders read:") || (reply.is_empty() && held.contains("Orders read:")),
        "the receipt echoes the line: {reply}\nheld: {held}"
    );
}

#[test]
fn a_stale_or_forged_tag_is_refused() {
    let mut w = World::new("stale");
    w.started("g");
    let (_, who, tag, _) = prompt(&w, "g");
    w.reply(&who, &tag, "", "GEAR 1");
    let (car, who2, fresh, _) = to_choice(&mut w);
    w.read(&who);
    let before = w.game("g").next_turn();
    // The same address again: its turn is past.
    w.reply(&who, &tag, "", "GEAR 3");
    let reply = bodies(&w.read(&who));
    assert!(reply.contains("Stale order"), "{reply}");
    assert_eq!(w.game("g").next_turn(), before, "nothing applied");
    // The code altered, or the turn changed under the same code: refused as not steward's.
    let (local, domain) = fresh.split_once('@').unwrap();
    let mut forged = local.to_string();
    let last = forged.pop().unwrap();
    forged.push(if last == 'a' { 'b' } else { 'a' });
    for bad in [format!("{forged}@{domain}"), fresh.replacen(&format!(".{car}."), ".9.", 1)] {
        w.reply(&who2, &bad, "", "A\n");
        let reply = bodies(&w.read(&who2));
        // The note is wrapped within 78 columns: read it as words.
        let words = reply.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(words.contains("which steward did not make"), "{bad}: {reply}");
        assert!(reply.contains("No order found"), "a bare answer is prose at a bad address: {reply}");
        assert_eq!(w.game("g").next_turn(), before, "nothing applied");
    }
}

#[test]
fn a_tag_stands_for_its_car_only_and_tells_the_owner() {
    let mut w = World::new("limits");
    let tokens = w.started("g");
    let (car, who, tag, _) = prompt(&w, "g");
    let other = 3 - car;
    let before = w.game("g").next_turn();
    // Lines that disagree with the tag: refused.
    w.reply(&who, &tag, "", &format!("CAR {other}\nGEAR 2"));
    assert!(bodies(&w.read(&who)).contains("say otherwise"));
    // No standing order by tag, no moderator power.
    w.reply(&who, &tag, "", "POLICY BOT");
    assert!(bodies(&w.read(&who)).contains("needs your TOKEN"));
    w.reply(&who, &tag, "", "PAUSE");
    assert!(bodies(&w.read(&who)).contains("needs your TOKEN"), "no moderator power by a reply address");
    assert_eq!(w.game("g").next_turn(), before, "nothing applied");
    // The same lines as the tag, and the token: applied.
    let t = &tokens[car as usize - 1];
    w.reply(&who, &tag, "", &format!("GAME g\nCAR {car}\nTOKEN {t}\nGEAR 1"));
    assert!(w.game("g").next_turn() > before, "{}", bodies(&w.read(&who)));
    // A leaked tag from another address: applied (that car, that turn), and the owner told.
    let (_, owner, fresh, _) = to_choice(&mut w);
    let before = w.game("g").next_turn();
    w.reply("leak@test.invalid", &fresh, "", "A");
    assert!(w.game("g").next_turn() > before);
    let copy = bodies(&w.read(&owner));
    assert!(copy.contains("leak@test.invalid"), "the owner gets a copy: {copy}");
}

#[test]
fn an_old_reply_address_answers_nothing_but_its_own_open_prompt() {
    // Issue 45, items 1, 2 and 11: a stranger holding any reply address a car was mailed.
    let mut w = World::new("leaked");
    w.started("g");
    let (car, owner, gear_tag, _) = prompt(&w, "g");
    // Whatever changes the car's standing needs the token, even at an open prompt's address.
    for order in ["RETIRE", "ABSENT 2026-01-01 2099-12-31", "POLICY BOT", "WATCH g", "UNWATCH g"] {
        let before = w.game("g").next_turn();
        w.reply("stranger@test.invalid", &gear_tag, "", order);
        let reply = bodies(&w.read("stranger@test.invalid"));
        assert!(reply.contains("needs your TOKEN"), "{order}: {reply}");
        assert_eq!(w.game("g").next_turn(), before, "{order}: nothing applied");
    }
    // The owner answers; the same address, now answered, sets nothing: not the next gear.
    w.reply(&owner, &gear_tag, "", "GEAR 1");
    let (car2, owner2, choice_tag, _) = to_choice(&mut w);
    w.reply(&owner2, &choice_tag, "", "A");
    let queued = |w: &World| {
        let car = |c: u8| std::fs::read_to_string(w.root.join(format!("mail-state/games/g/car-{c}.toml")));
        (car(1).unwrap_or_default(), car(2).unwrap_or_default())
    };
    let before = (w.game("g").next_turn(), queued(&w));
    for (tag, c) in [(&gear_tag, car), (&choice_tag, car2)] {
        w.reply("stranger@test.invalid", tag, "", "GEAR 2");
        let reply = bodies(&w.read("stranger@test.invalid"));
        assert!(reply.contains("Stale order"), "car {c}'s answered prompt: {reply}");
    }
    assert_eq!((w.game("g").next_turn(), queued(&w)), before, "no gear kept, nothing applied");
    // At an open gear prompt, a stranger's illegal answer is refused, and the owner's copy
    // says so instead of "it was applied".
    let (_, owner3, open_tag, _) = prompt(&w, "g");
    w.read(&owner3);
    let before = w.game("g").next_turn();
    w.reply("stranger@test.invalid", &open_tag, "", "GEAR 6");
    assert_eq!(w.game("g").next_turn(), before, "six gears up at once is refused");
    let copy = bodies(&w.read(&owner3));
    assert!(copy.contains("stranger@test.invalid") && copy.contains("It was refused"), "{copy}");
    assert!(!copy.contains("It was applied"), "{copy}");
    assert!(copy.lines().all(|l| l.chars().count() <= 78), "a copy over 78 columns:\n{copy}");
}

#[test]
fn the_french_prompt_shows_the_reply_address() {
    let mut w = World::new("fr");
    let tokens = w.started("g");
    let (car, who, _, _) = prompt(&w, "g");
    let t = &tokens[car as usize - 1];
    w.send(&who, &format!("GAME g\nCAR {car}\nTOKEN {t}\nLANG fr\nBOARD"));
    let mails = w.read(&who);
    let m = mails.iter().find(|m| m.full_body.contains("JETON <votre jeton>")).expect("a French prompt");
    let tag = m.reply_to.clone().expect("the French prompt has its reply address");
    assert!(m.full_body.contains("Répondez à ce message avec seulement :"), "{}", m.full_body);
    assert!(m.full_body.contains(&tag) && m.full_body.contains("JETON <votre jeton>"), "{}", m.full_body);
}

#[test]
fn the_demos_players_answer_by_replying_with_the_bare_answer() {
    let dir = scratch("replytags-demo");
    let spec = super::sprint_demo(&dir, "demo", 3, 1, steward::store::qualifying::GridMethod::Qualifying);
    run(&spec).unwrap();
    let g = Store::new(dir.join("games")).load("demo", None).unwrap();
    assert!(g.now.over);
    // Every mail a player wrote after joining answers a prompt at its signed address, with the
    // bare answer: no GAME, CAR, TOKEN or TURN.
    let mut tagged = std::collections::HashSet::new();
    for sub in ["cur", "new"] {
        for f in std::fs::read_dir(dir.join("mail").join("steward@demo.invalid").join(sub)).unwrap() {
            let m = Incoming::parse(&std::fs::read(f.unwrap().path()).unwrap()).unwrap();
            // The joins, and the standing POLICY (which needs the token, docs/orders.md).
            if !m.from.starts_with("driver") || m.body.starts_with("JOIN") || m.body.contains("POLICY") {
                continue;
            }
            assert!(m.recipients.iter().any(|r| r.starts_with("steward+demo.")), "{:?}", m.recipients);
            for word in ["TOKEN", "GAME", "CAR", "TURN"] {
                assert!(!m.body.contains(word), "{word} in a reply: {}", m.body);
            }
            assert!(m.body.lines().count() == 1, "the answer alone: {}", m.body);
            tagged.insert(m.message_id.unwrap());
        }
    }
    // And those replies played the players' moves.
    let by_reply = g
        .turns
        .iter()
        .filter(|t| t.source.as_ref().and_then(|s| s.message_id.as_ref()).is_some_and(|id| tagged.contains(id)))
        .count();
    let by_players = g
        .turns
        .iter()
        .filter(|t| {
            t.source.as_ref().is_some_and(|s| s.from.as_deref().is_some_and(|f| f.starts_with("driver")))
                && t.kind != steward::store::files::Kind::Join
        })
        .count();
    assert!(by_reply > 10, "{by_reply} turns by replies");
    assert_eq!(by_reply, by_players, "every move of a player came by a bare reply");
}
