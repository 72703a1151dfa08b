//! Arrival time decides lateness (issue 13, item 7): a mail is judged at the time it reached
//! the mailbox, not the time the daemon read it; the deadlines that passed before it are played
//! first, and a late answer is told so, with when the deadline passed and what was played.

use steward::store::{Stamp, Store};

use super::secrets::Rig;

/// The car awaited in game `g` and the current turn.
fn awaited(r: &Rig) -> (u8, u32) {
    let g = Store::new(r.root.join("games")).load("g", None).unwrap();
    (g.awaited().expect("a car is awaited").0, g.next_turn() - 1)
}

#[test]
fn an_order_is_late_by_its_arrival_not_by_when_it_is_read() {
    let mut r = Rig::new("late");
    let tokens = r.game(2);
    let t0 = *r.clock.lock().unwrap();
    r.send("mod@sec.invalid", "GAME g\nTOKEN moderator-secret\nSTART");
    let h = 3600;

    // Arrived 10 hours in (the deadline is at 24), read at 40: in time, applied.
    let (car, turn) = awaited(&r);
    let token = &tokens[car as usize - 1];
    let key = r.drop_mail(
        &format!("From: p{car}@sec.invalid\r\nSubject: on time"),
        &format!("GAME g\nCAR {car}\nTOKEN {token}\nTURN {turn}\nGEAR 1"),
    );
    r.set_arrival(&key, t0 + 10 * h);
    *r.clock.lock().unwrap() = t0 + 40 * h;
    r.pass();
    let g = Store::new(r.root.join("games")).load("g", None).unwrap();
    let played = g.turns.iter().find(|t| t.turn > turn && t.orders.iter().any(|o| o.car == car)).unwrap();
    assert_eq!(played.source.as_ref().and_then(|s| s.by.clone()), None, "the player's own gear: {played:?}");
    assert_eq!(played.orders[0].gear, Some(1));

    // Arrived after the deadline, read later still: the default move came first, the order is late.
    let (car, turn) = awaited(&r);
    let token = &tokens[car as usize - 1];
    let due = t0 + 40 * h + 24 * h;
    let key = r.drop_mail(
        &format!("From: p{car}@sec.invalid\r\nSubject: too late"),
        &format!("GAME g\nCAR {car}\nTOKEN {token}\nTURN {turn}\nGEAR 1"),
    );
    r.set_arrival(&key, due + 5 * h);
    *r.clock.lock().unwrap() = due + 20 * h;
    r.pass();
    let g = Store::new(r.root.join("games")).load("g", None).unwrap();
    let next = g.turns.iter().find(|t| t.turn > turn && t.orders.iter().any(|o| o.car == car)).unwrap();
    assert_eq!(next.source.as_ref().and_then(|s| s.by.as_deref()), Some("deadline"), "{next:?}");
    let reply = r
        .mails()
        .into_iter()
        .find(|m| m.mailbox == format!("p{car}@sec.invalid") && m.subject.contains("too late"))
        .expect("the late order is answered");
    let text = reply.text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(text.contains(&format!("Late: the deadline for car {car} passed at {}", Stamp(due))), "{text}");
    assert!(text.contains(&format!("your mail arrived at {}", Stamp(due + 5 * h))), "{text}");
    assert!(text.contains("the bot played a default move for it") && text.contains("GEAR "), "{text}");
}
