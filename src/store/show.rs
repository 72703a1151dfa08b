//! `steward show`: a game as a player sees it after a turn: what the turn did (orders, rolls,
//! events), the board, the car sheets, and the decision awaited with its options.

use std::fmt::Write as _;

use crate::engine::RaceState;
use crate::render::board::{BoardMarks, PlacedCar, draw};

use super::canon::status;
use super::files::{By, TurnFile};
use super::game::Game;
use crate::say;
use crate::words::Lang;

/// What a turn did and the decision awaited, without the board (the reply to an order).
pub fn brief(game: &Game) -> String {
    let mut out = String::new();
    let last = game.turns.last().expect("a game has turn 0");
    let _ = writeln!(
        out,
        "Game {}: turn {} ({}) at {}; receipt {}",
        game.setup.id,
        last.turn,
        last.kind.name(),
        last.at,
        game.hashes.last().map_or("-", String::as_str)
    );
    turn_summary(last, &mut out);
    awaited(game, last, None, Lang::En, &mut out);
    out
}

/// The text shown after turn `game.turns.last()`.
pub fn show(game: &Game) -> String {
    let mut out = String::new();
    let s = &game.setup;
    let last = game.turns.last().expect("a game has turn 0");
    let _ = writeln!(
        out,
        "Game {} on {} ({}, {} lap(s), {} rules)",
        s.id,
        game.track.title,
        s.track,
        s.laps,
        game.rules.spec()
    );
    let _ = writeln!(out, "Dice commitment: {}", s.commitment);
    if let Some(seed) = game.now.revealed {
        let _ = writeln!(out, "Seed revealed:   {}", hex::encode(seed));
    }
    let _ = writeln!(
        out,
        "Turn {} ({}) at {}; receipt {}",
        last.turn,
        last.kind.name(),
        last.at,
        game.hashes.last().map_or("-", String::as_str)
    );
    out.push('\n');
    turn_summary(last, &mut out);
    match &game.now.race {
        None => {
            let _ = writeln!(out, "Players ({} of {}):", game.now.players.len(), s.max_cars);
            for p in game.now.players.iter() {
                let _ = writeln!(
                    out,
                    "  car {:>2}  {}{}  {} tyres, {}",
                    p.car,
                    shown_name(p, "-"),
                    if p.bot { " (bot)" } else { "" },
                    p.tyres,
                    wear_line(&p.wear)
                );
            }
            if game.now.qualifying.is_some() {
                let _ = writeln!(out, "\nThe race starts when every timed lap is over.");
                if let Some(last) = game.turns.last() {
                    awaited(game, last, None, Lang::En, &mut out);
                }
            } else if !game.now.over {
                let _ = writeln!(out, "\nWaiting for players to join; the moderator starts the race.");
            }
        }
        Some(race) => {
            let st = &race.state;
            // After the race, every car where it stopped, finishers included (as the last
            // report's board).
            let marks = if game.now.over { final_marks(st) } else { board_marks(st) };
            out.push_str(&draw(&game.track, &marks, None));
            out.push('\n');
            sheets(game, st, Lang::En, &mut out);
            out.push('\n');
            awaited(game, last, None, Lang::En, &mut out);
        }
    }
    out
}

/// The cars on the board and the dangerous spaces of a race state, for the board.
pub(crate) fn board_marks(st: &RaceState) -> BoardMarks {
    BoardMarks {
        cars: st
            .cars
            .iter()
            .filter(|c| c.status.on_board())
            .map(|c| PlacedCar { number: c.number, space: c.space })
            .collect(),
        dangerous: st.dangerous.clone(),
        options: Vec::new(),
    }
}

/// What the game awaits: the cars to play and, for a choice, its options, for the player of
/// `recipient` (a mail) or for anyone (`None`: the command line, which shows every car's). In a
/// mail, a qualifying lap's options are shown to its own driver only (issue 47).
pub(crate) fn awaited(game: &Game, last: &TurnFile, recipient: Option<u8>, lang: Lang, out: &mut String) {
    let by = last.due.as_deref().map(|d| say!(lang, "awaited.by", due = d)).unwrap_or_default();
    if let Some(q) = &game.now.qualifying
        && !game.now.over
    {
        let _ = writeln!(out, "{}", say!(lang, "awaited.qualifying"));
        out.push_str(&q.table(&game.track, lang));
        for (car, choice) in q.awaited() {
            match q.pending_record(&game.track, car) {
                Some(p) if choice && recipient.is_some_and(|r| r != car) => {
                    let _ = writeln!(
                        out,
                        "{}",
                        say!(
                            lang,
                            "awaited.qualifying_other_chooses",
                            car = car,
                            roll = p.roll,
                            gear = p.gear,
                            by = by
                        )
                    );
                }
                Some(p) if choice => {
                    let _ = writeln!(
                        out,
                        "{}",
                        say!(lang, "awaited.qualifying_choose", car = car, roll = p.roll, gear = p.gear, by = by)
                    );
                    for o in &p.options {
                        let _ = writeln!(out, "  {:>2}  {}", o.label, option_text(lang, &o.text));
                    }
                }
                _ => {
                    let _ = writeln!(out, "{}", say!(lang, "awaited.send_gear", car = car, by = by));
                }
            }
        }
        return;
    }
    match &game.now.race {
        None => {}
        Some(race) => {
            let st = &race.state;
            if game.now.over {
                let order: Vec<String> = st.finish_order.iter().map(|&c| st.car(c).number.to_string()).collect();
                let order = if order.is_empty() { say!(lang, "awaited.nobody_finished") } else { order.join(", ") };
                let _ = writeln!(out, "{}", say!(lang, "awaited.over", order = order));
            } else if let (Some(p), Some(pending)) = (&race.pending, &last.pending) {
                let _ = writeln!(
                    out,
                    "{}",
                    say!(
                        lang,
                        "awaited.choose",
                        car = pending.car,
                        round = st.round,
                        roll = p.rolled.roll,
                        gear = p.rolled.gear,
                        by = by
                    )
                );
                for o in &pending.options {
                    let _ = writeln!(out, "  {:>2}  {}", o.label, option_text(lang, &o.text));
                }
            } else if let Some(car) = last.to_play {
                let _ = writeln!(out, "{}", say!(lang, "awaited.to_play", round = st.round, car = car, by = by));
            }
        }
    }
}

fn wear_line(w: &super::files::WearRecord) -> String {
    format!(
        "tyres {} brakes {} gas {} body {} engine {} handling {}",
        w.tyres, w.brakes, w.gas, w.body, w.engine, w.handling
    )
}

pub(crate) fn turn_summary(t: &TurnFile, out: &mut String) {
    for o in &t.orders {
        let by = match o.by {
            By::Player => "",
            By::Bot => " (bot)",
            By::Moderator => " (moderator)",
            By::Forced => " (the only option)",
            By::Backmarker => " (a backmarker, by its rules)",
        };
        match (&o.gear, &o.choose) {
            (Some(g), _) => {
                let _ = writeln!(out, "Car {} announces gear {g}{by}", o.car);
            }
            (None, Some(c)) => match o.space.clone().or_else(|| lap_move_to(t, o.car)) {
                Some(to) => {
                    let _ = writeln!(out, "Car {} takes option {c} to {to}{by}", o.car);
                }
                None => {
                    let _ = writeln!(out, "Car {} takes option {c}{by}", o.car);
                }
            },
            (None, None) if o.reroll => {
                let _ = writeln!(out, "Car {} expends a driver point to re-roll (002){by}", o.car);
            }
            _ => {}
        }
    }
    if let Some(p) = &t.player {
        let _ = writeln!(out, "{} joins with car {}", shown_name(p, "A player"), p.car);
    }
    for c in &t.contributions {
        // A verifier's line: the catalogue's `[fixed]`, the same in every language.
        let phrase = format!("{:?}", c.entropy);
        let _ = writeln!(out, "{}", say!(Lang::En, "fixed.contribution", car = c.car, phrase = phrase));
    }
    for r in &t.rolls {
        let _ = writeln!(out, "  roll {:<22} {:<10} face {:>2} = {}", r.label, r.die, r.face, r.value);
    }
    for e in &t.events {
        let _ = writeln!(out, "  {} ({})", shown(&e.text), e.article);
    }
    if let Some(seed) = &t.seed {
        let _ = writeln!(out, "  the seed is revealed: {seed}");
    }
    if !t.orders.is_empty() || !t.events.is_empty() || t.player.is_some() {
        out.push('\n');
    }
}

/// Every car's sheet, one row a car in race order (the leader first, then the cars out of the
/// race, then the backmarkers): its place, number, space, gear, the wear points left on each part
/// (5-0-1), tyres, laps, status and driver (the player's display name, else the whole address).
/// The mails explain the columns under the table (`templates/*/report.txt`).
/// Where car `car`'s timed lap moved in turn `t`: a qualifying turn records a choice without its
/// space (ruling 31), and its move event (1-1-9) names the space.
fn lap_move_to(t: &TurnFile, car: u8) -> Option<String> {
    let prefix = format!("car {car} moves ");
    let e = t.events.iter().find(|e| e.article == "1-1-9" && e.text.starts_with(&prefix))?;
    e.text.rsplit_once(" to ").map(|(_, to)| to.to_string())
}

/// The board's marks after the race: every car where it stopped, finishers included (a car
/// that crossed the line is off the board while the others race, [`board_marks`]).
pub(crate) fn final_marks(st: &RaceState) -> BoardMarks {
    BoardMarks {
        cars: st
            .cars
            .iter()
            .filter(|c| matches!(c.status, crate::engine::Status::Finished { .. }) || c.status.on_board())
            .map(|c| PlacedCar { number: c.number, space: c.space })
            .collect(),
        dangerous: st.dangerous.clone(),
        options: Vec::new(),
    }
}

pub(crate) fn sheets(game: &Game, st: &RaceState, lang: Lang, out: &mut String) {
    let pos = positions(game, st);
    let mut rows: Vec<usize> = (0..st.cars.len())
        .filter(|&i| !st.cars[i].backmarker || st.cars[i].status.on_board()) // taken off the track
        .collect();
    rows.sort_by_key(|&i| (st.cars[i].backmarker, pos[i].is_none(), pos[i], st.cars[i].number));
    let statuses: Vec<String> = st.cars.iter().map(|c| status_in(lang, c.status)).collect();
    let width = |s: &str| s.chars().count();
    let status_word = say!(lang, "sheet.status");
    let status_w = rows.iter().map(|&i| width(&statuses[i])).max().unwrap_or(0).max(width(&status_word));
    let pad = |s: &str| format!("{s}{}", " ".repeat(status_w - width(s)));
    let header = say!(lang, "sheet.header", status = pad(&status_word));
    let _ = writeln!(out, "{}", header.trim_end());
    for i in rows {
        let c = &st.cars[i];
        // Backmarkers come after the players (002, ruling 49): nobody drives them.
        let who: String = match game.now.players.get(i) {
            Some(p) => shown_name(p, "-"),
            None if c.backmarker => say!(lang, "sheet.backmarker"),
            None => "-".into(),
        };
        let lap = if c.crossings == 0 || c.backmarker {
            "-".to_string()
        } else {
            format!("{}/{}", c.crossings.min(st.laps), st.laps)
        };
        let w = &c.wear;
        let line = format!(
            "{:>3} {:>3}  {:<9} {:>4}  {:>3} {:>3} {:>3} {:>3} {:>3} {:>3}  {:<5} {:>4}  {}  {}",
            pos[i].map_or("-".to_string(), |p| p.to_string()),
            c.number,
            game.track.space(c.space).id,
            c.gear,
            w.tyres,
            w.brakes,
            w.gas,
            w.body,
            w.engine,
            w.handling,
            crate::words::catalogue::word(lang, "tyres", c.tyres.name()),
            lap,
            pad(&statuses[i]),
            who
        );
        let _ = writeln!(out, "{}", line.trim_end());
    }
    // The boxes, once players chose them (4-0-1, ruling 48); games without a choice keep their
    // sheets as they were.
    if st.cars.iter().any(|c| c.pit.own_box.is_some()) {
        let boxes: Vec<String> = st
            .ids()
            .filter_map(|id| {
                let b = crate::engine::pits::own_box(&game.track, st, id)?;
                let sp = game.track.space(b);
                let n = match sp.kind {
                    crate::track::SpaceKind::PitBox(n) => n.to_string(),
                    _ => "?".into(),
                };
                Some(say!(lang, "sheet.box", car = st.car(id).number, number = n, space = sp.id))
            })
            .collect();
        let _ = writeln!(out, "{}", say!(lang, "sheet.boxes", boxes = boxes.join(", ")));
    }
}

/// Each car's place in the race: finishers by finishing order, then the cars still racing by
/// distance covered (laps and progress); eliminated cars have none.
fn positions(game: &Game, st: &RaceState) -> Vec<Option<usize>> {
    use crate::engine::Status;
    let mut order: Vec<(u8, std::cmp::Reverse<u64>, usize)> = st
        .cars
        .iter()
        .enumerate()
        .filter_map(|(i, c)| match c.status {
            _ if c.backmarker => None, // "many laps behind" (002): no place
            Status::Finished { place } => Some((0, std::cmp::Reverse(place as u64), i)),
            Status::Eliminated { .. } => None,
            _ => {
                Some((1, std::cmp::Reverse(crate::engine::order::race_distance(st, &game.track, st.ids().nth(i)?)), i))
            }
        })
        .collect();
    // Finishers: lowest place first (reverse the Reverse); the others: farthest first.
    order.sort_by(|a, b| match (a.0, b.0) {
        (0, 0) => b.1.cmp(&a.1),
        (x, y) if x != y => x.cmp(&y),
        _ => a.1.cmp(&b.1),
    });
    let mut pos = vec![None; st.cars.len()];
    for (rank, (_, _, i)) in order.into_iter().enumerate() {
        pos[i] = Some(rank + 1);
    }
    pos
}

/// A player as shown to the others: the display name cleaned and shortened (`crate::words::names`;
/// names stored before cleaning existed are cleaned here too), else `fallback`, never the
/// address (issue 45, item 9).
fn shown_name(p: &super::files::PlayerRecord, fallback: &str) -> String {
    crate::words::names::public_name(p.name.as_deref(), || fallback.to_string())
}

/// A car's status on its sheet in `lang`: the canonical word in English, its French from the
/// catalogue (`finished-2` reads `arrivée-2`; an elimination's cause stays as recorded).
fn status_in(lang: Lang, s: crate::engine::Status) -> String {
    use crate::engine::Status;
    let word = status(s);
    if lang == Lang::En {
        return word;
    }
    match s {
        Status::Finished { place } => say!(lang, "status.finished", place = place),
        Status::Eliminated { .. } => say!(lang, "status.eliminated"),
        _ => crate::words::catalogue::word(lang, "status", &word),
    }
}

/// An option's line as the record writes it (English, `3 spaces to s1.l.2; overshoots ...`),
/// in `lang` (French from the event table).
pub(crate) fn option_text(lang: Lang, text: &str) -> String {
    match lang {
        Lang::En => crate::words::plurals::plurals(text),
        Lang::Fr => crate::words::french::option(text),
    }
}

/// An event's text as a report shows it: the record's words (a replay compares them byte for
/// byte), but a gear kept, which the record writes as a shift to the same gear, reads `car 3
/// stays in gear 4` (issue 48).
pub(crate) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    let kept = text.strip_prefix("car ").and_then(|r| r.split_once(" shifts from gear ")).and_then(|(car, r)| {
        let (from, to) = r.split_once(" to ")?;
        (from == to && car.bytes().all(|b| b.is_ascii_digit())).then(|| format!("car {car} stays in gear {to}"))
    });
    match kept {
        Some(k) => k.into(),
        None => text.into(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_gear_kept_reads_as_kept() {
        assert_eq!(super::shown("car 3 shifts from gear 4 to 4"), "car 3 stays in gear 4");
        assert_eq!(super::shown("car 3 shifts from gear 4 to 5"), "car 3 shifts from gear 4 to 5");
        assert_eq!(super::shown("car 12 shifts from gear 2 to 2"), "car 12 stays in gear 2");
    }
}
