//! The texts of a turn report: what the turns since the last report did (orders, rolls with
//! their labels, events with their articles), the board around the cars that acted, every car's
//! sheet, and what is awaited from whom. The template (`templates/<lang>/report.txt`) arranges
//! them; this module only reads the game.

use std::cell::RefCell;
use std::fmt::Write as _;

use serde::Serialize;

use crate::engine::gearbox::GearChange;
use crate::engine::order::race_distance;
use crate::mail::compose::Png;
use crate::render::board::{BoardMarks, PlacedCar, draw_all_cars_in, draw_in};
use crate::render::picture::{CarMark, Marks, mail_png};
use crate::store::Game;
use crate::store::show::{awaited, board_marks, final_marks, sheets, turn_summary};
use crate::track::SpaceIdx;
use crate::words::Lang;
pub use crate::words::plurals::plurals;

/// Most turns summarised in one report; older ones are left to `HISTORY`.
pub const MAX_TURNS: usize = 40;

/// The receipt block that heads every report and welcome (docs/dice.md, "What a player keeps"):
/// the game, the turn, that turn's hash, the dice scheme and commitment, and the seed once
/// revealed, one `Name: value` a line in every language, so that `steward verify --mail` and
/// `tools/verify_game.py --mail` read them from the player's own mails.
pub fn proof(game: &Game) -> String {
    use crate::say;
    // The lines are the catalogue's `[fixed]` ones: the same in every language.
    let l = Lang::En;
    let last = game.turns.last().expect("a game has turn 0");
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{}",
        say!(l, "fixed.receipt_head", game = game.setup.id, turn = last.turn, dice = game.setup.dice)
    );
    let _ =
        writeln!(o, "{}", say!(l, "fixed.receipt", hash = game.hashes.last().map(String::as_str).unwrap_or_default()));
    let _ = writeln!(o, "{}", say!(l, "fixed.commitment", commitment = game.setup.commitment));
    let start = game.start_turn().map(|n| &game.turns[n as usize]);
    if let Some(source) = &game.setup.beacon {
        let at = game.setup.beacon_at.as_deref().unwrap_or("-");
        let _ = writeln!(o, "{}", say!(l, "fixed.beacon", source = source, at = at));
    }
    if let Some(v) = start.and_then(|t| t.beacon.as_deref()) {
        let _ = writeln!(o, "{}", say!(l, "fixed.beacon_value", value = v));
    }
    if let Some(seed) = game.now.revealed {
        let _ = writeln!(o, "{}", say!(l, "fixed.seed", seed = hex::encode(seed)));
        // With the seed, the key's other inputs: whoever holds this one mail can re-derive every
        // roll they were mailed, whatever the reports they chose (docs/dice.md, section 5).
        for c in start.map(|t| t.contributions.as_slice()).unwrap_or_default() {
            let _ = writeln!(o, "{}", say!(l, "fixed.contribution", car = c.car, phrase = format!("{:?}", c.entropy)));
        }
    }
    o
}

/// The variables of `report.txt`.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Report {
    /// The receipt block ([`proof`]).
    pub proof: String,
    /// The game.
    pub game: String,
    /// Its last turn.
    pub turn: u32,
    /// The last turn's hash: the player's receipt (docs/store.md).
    pub hash: String,
    /// What the turns did.
    pub summary: String,
    /// The board around the cars that acted.
    pub board: String,
    /// Every car's sheet.
    pub sheets: String,
    /// What is awaited from whom.
    pub awaited: String,
    /// For the awaited player only: the order to write, in the recipient's language, with what
    /// it may be: every gear the engine allows with its cost (`GEAR <3|4|5>  (4, 5: no cost; 3:
    /// 1 gas point; 13-1)`), or the option letters (`CHOOSE <A|B|C>`).
    pub options: String,
    /// The recipient's car, when it is awaited.
    pub you: Option<u8>,
    /// A round order asked of the recipient (issue 46): the round, empty when the report asks
    /// for something else.
    pub round: String,
    /// Where the recipient's car moves in the round (`you move 3rd (2 car(s) before you)`).
    pub place: String,
    /// The instructions the round order's example and preview use (`DRIVE FARTHEST-FREE ELSE
    /// SAFEST ELSE ASK`): set by the daemon, which holds the player's standing orders.
    pub drive_example: String,
    /// What those instructions would do with each gear, the cars ahead not moved (the preview).
    pub drive: String,
    /// The signed address a reply to this report goes to, when it asks the recipient's car
    /// (`mail::tag`): set by the daemon, which holds the key.
    pub reply: Option<String>,
    /// What a reply to that address may say alone: `options` without the `CHOOSE` keyword.
    pub bare: String,
    /// When the answer is due.
    pub due: Option<String>,
    /// The race is over.
    pub over: bool,
    /// The revealed seed.
    pub seed: Option<String>,
    /// How to check every roll.
    pub verify: String,
    /// The first turn reported: the prompt's second line says what happened since the
    /// recipient's last mail, turns `from_turn` to `turn` and their moves (issue 47).
    pub from_turn: u32,
    /// The number of moves in the turns reported.
    pub moves: usize,
}

/// The picture of the board (PNG) for the mail's HTML part, where [`report`] shows a board for
/// `recipient`: the same cars, stickers and focus (the car awaited, else the leader; a
/// qualifying lap's own car), the awaited car's options lettered as in the text. `None` where
/// the report shows no board.
pub fn board_picture(game: &Game, recipient: Option<u8>) -> Option<Vec<u8>> {
    if let Some(e) = game.now.qualifying.as_ref().zip(recipient).and_then(|(q, c)| q.entry(c)) {
        return Some(picture(game, &board_marks(&e.lap.state), e.lap.car().space, recipient));
    }
    let st = &game.now.race.as_ref()?.state;
    let awaited = game.awaited().map(|(n, _)| n);
    Some(picture(game, &board_marks(st), focus(game, st)?, awaited))
}

/// The boards of the last positions drawn (issue 17): a job's reports to the players of one
/// game show the same board (a race's board, as text and as a picture, depends on the position
/// only), so each is drawn once. A position is named by its game, its number of turns and its
/// last turn's hash.
#[derive(Debug, Default)]
pub struct Boards {
    pictures: RefCell<Vec<(PictureKey, Option<Png>)>>,
    /// A race's text board ([`report`]'s `board`).
    texts: RefCell<Vec<((PictureKey, Lang), String)>>,
}

type PictureKey = (String, usize, String, Option<u8>);

/// Positions kept (about 100 KiB each: the PNG, its base64 and the text board): as many as the games the store
/// keeps, so each game's current position stays drawn until it changes (its players' reports,
/// their `BOARD` requests).
const PICTURES_KEPT: usize = crate::store::replayed::KEPT_GAMES;

/// `game`'s position for the player of `recipient` (`Some` only where the board depends on who
/// it is for: a qualifying lap's).
fn position(game: &Game, recipient: Option<u8>) -> PictureKey {
    (game.setup.id.clone(), game.turns.len(), game.hashes.last().cloned().unwrap_or_default(), recipient)
}

/// The value kept for `key` in `kept`, else `make()`'s, kept (the oldest goes past
/// [`PICTURES_KEPT`]).
fn kept_or<K: PartialEq, T: Clone>(kept: &RefCell<Vec<(K, T)>>, key: K, make: impl FnOnce() -> T) -> T {
    if let Some((_, v)) = kept.borrow().iter().find(|(k, _)| *k == key) {
        return v.clone();
    }
    let v = make();
    let mut kept = kept.borrow_mut();
    if kept.len() >= PICTURES_KEPT {
        kept.remove(0);
    }
    kept.push((key, v.clone()));
    v
}

impl Boards {
    /// [`board_picture`] of `game` for `recipient`, drawn or remembered.
    pub fn picture(&self, game: &Game, recipient: Option<u8>) -> Option<Png> {
        // Only a qualifying lap's picture depends on who it is for.
        let qualifying = game.now.qualifying.as_ref().zip(recipient).and_then(|(q, c)| q.entry(c)).map(|_| recipient);
        let key = position(game, qualifying.flatten());
        kept_or(&self.pictures, key, || board_picture(game, recipient).map(Png::new))
    }

    /// `draw()`'s text board of a race position in `lang`, drawn or remembered.
    fn text(&self, game: &Game, lang: Lang, draw: impl FnOnce() -> String) -> String {
        kept_or(&self.texts, (position(game, None), lang), draw)
    }
}

/// The space the board is drawn around: the car awaited, else the leader (as in [`report`]).
fn focus(game: &Game, st: &crate::engine::RaceState) -> Option<SpaceIdx> {
    game.awaited()
        .and_then(|(n, _)| game.player(n))
        .map(|(id, _)| st.car(id).space)
        .or_else(|| st.ids().max_by_key(|&c| race_distance(st, &game.track, c)).map(|c| st.car(c).space))
}

/// The destinations of a roll, each with the letter the prompt gives it (`A`, `B`, ...).
fn lettered(roll: &crate::engine::Rolled) -> Vec<(String, SpaceIdx)> {
    roll.options.iter().enumerate().map(|(i, o)| (crate::engine::MoveOption::label(i), o.end)).collect()
}

/// `marks` (cars and stickers as on the text board), the destinations of `car`'s pending roll
/// lettered as in the text, around `focus`, as a PNG.
fn picture(game: &Game, marks: &BoardMarks, focus: SpaceIdx, car: Option<u8>) -> Vec<u8> {
    let options = car.and_then(|c| game.pending_roll(c)).map(lettered).unwrap_or_default();
    let marks = Marks {
        cars: marks.cars.iter().map(|c| CarMark { number: c.number, space: c.space, running: true }).collect(),
        dangerous: marks.dangerous.clone(),
        options,
    };
    mail_png(&game.track, &marks, focus)
}

/// The report of turns `first..` of `game`, for the player of car `recipient` (if any), whose
/// order to write is worded in `lang`.
pub fn report(game: &Game, first: u32, recipient: Option<u8>, lang: Lang) -> Report {
    report_in(game, first, recipient, lang, None)
}

/// [`report`], the race's text board taken from `boards` when it was drawn for another player.
pub fn report_in(game: &Game, first: u32, recipient: Option<u8>, lang: Lang, boards: Option<&Boards>) -> Report {
    let last = game.turns.last().expect("a game has turn 0");
    let mut summary = String::new();
    let first = first.min(last.turn) as usize;
    let shown = &game.turns[first.max(game.turns.len().saturating_sub(MAX_TURNS))..];
    if shown.len() < game.turns.len() - first {
        let _ = writeln!(
            summary,
            "({} earlier turn(s) not shown: send HISTORY <n>)",
            game.turns.len() - first - shown.len()
        );
    }
    for t in shown {
        let _ = writeln!(summary, "Turn {} ({}) at {}", t.turn, t.kind.name(), t.at);
        if let Some(m) = &t.moderation {
            let _ = writeln!(summary, "  moderator: {}", m.name());
        }
        turn_summary(t, &mut summary);
    }
    let mut r = Report {
        proof: proof(game),
        game: game.setup.id.clone(),
        turn: last.turn,
        hash: game.hashes.last().cloned().unwrap_or_default(),
        summary,
        over: game.now.over,
        seed: game.now.revealed.map(hex::encode),
        // What a player holds: their own mails (the seed is in this one), not the server's
        // files (issue 48); docs/dice.md, section 5.
        verify: "steward verify --mail <your mailbox folder or mbox file>".into(),
        moves: shown.iter().filter(|t| t.kind == crate::store::files::Kind::Move).count(),
        ..Report::default()
    };
    r.from_turn = shown.first().map_or(last.turn, |t| t.turn);
    if let Some(race) = &game.now.race {
        let st = &race.state;
        // Around the car awaited, else the leader.
        let focus = game
            .awaited()
            .and_then(|(n, _)| game.player(n))
            .map(|(id, _)| st.car(id).space)
            .or_else(|| st.ids().max_by_key(|&c| race_distance(st, &game.track, c)).map(|c| st.car(c).space));
        let board = || match focus {
            // The last board: every car where it stopped, finishers included.
            Some(f) if game.now.over => draw_all_cars_in(lang, &game.track, &final_marks(st), f),
            _ => draw_in(lang, &game.track, &board_marks(st), focus),
        };
        // The player whose roll awaits a choice reads its letters on the board (issue 47); the
        // others share the position's board.
        let mine = recipient.and_then(|c| game.pending_roll(c));
        r.board = match (mine, boards) {
            (Some(roll), _) => {
                let marks = BoardMarks { options: lettered(roll), ..board_marks(st) };
                draw_in(lang, &game.track, &marks, focus)
            }
            (None, Some(b)) => b.text(game, lang, board),
            (None, None) => board(),
        };
        sheets(game, st, lang, &mut r.sheets);
    }
    if let Some(q) = &game.now.qualifying {
        // Every timed lap on one board (each car drives alone, 1-1-3; the laps are side by
        // side), around the recipient's car, else the first.
        // The recipient's own roll's options lettered on the board (issue 47).
        let options = recipient.and_then(|c| q.pending_record(&game.track, c)).map_or_else(Vec::new, |p| {
            p.options.iter().filter_map(|o| Some((o.label.clone(), game.track.find(&o.to)?))).collect()
        });
        let marks = BoardMarks {
            cars: q.entries.iter().map(|e| PlacedCar { number: e.car, space: e.lap.car().space }).collect(),
            dangerous: Vec::new(),
            options,
        };
        let focus = recipient.and_then(|c| q.entry(c)).or(q.entries.first()).map(|e| e.lap.car().space);
        if let Some(f) = focus {
            r.board = draw_all_cars_in(lang, &game.track, &marks, f);
        }
    }
    awaited(game, last, recipient, lang, &mut r.awaited);
    if lang == Lang::Fr {
        r.summary = crate::words::french::summary(&r.summary);
    }
    r.summary = plurals(&r.summary);
    r.awaited = plurals(&r.awaited);
    if let Some((car, choice)) = game.awaited_cars().into_iter().find(|(c, _)| Some(*c) == recipient)
        && !game.now.paused
    {
        r.you = Some(car);
        r.due = last.due.clone();
        r.options = if choice { choose_prompt(game, car, lang) } else { gear_prompt(lang, &gears(game, car)) };
    }
    if let Some(car) = recipient.filter(|&c| crate::judge::round::asked(game, c)) {
        // A round order: the gear and the instructions for this move, asked when the round
        // starts (issue 46).
        r.you = Some(car);
        r.round = game.now.race.as_ref().map_or(0, |race| race.state.round).to_string();
        r.place = crate::judge::round::place_text(game, car, lang).unwrap_or_default();
        if r.options.is_empty() {
            r.options = gear_prompt(lang, &gears(game, car));
        }
        if game.setup.deadlines.as_deref() == Some("round") {
            // One deadline for the round's gears (issue 46): the awaited car's is everyone's.
            r.due = last.due.clone();
        }
    }
    r
}

/// The gears car `car` may announce now, each with its cost, as the engine checks them: in the
/// race, the gearbox, inertia and pit lane rules ([`crate::engine::play::gear_changes`]); on a
/// timed lap, the gearbox at no cost (1-0-1, ruling 23).
fn gears(game: &Game, car: u8) -> Vec<GearChange> {
    if let Some(q) = &game.now.qualifying {
        let Some(e) = q.entry(car) else { return Vec::new() };
        let from = e.lap.car().gear;
        return e
            .lap
            .legal_gears()
            .into_iter()
            .map(|to| GearChange { from, to, skipped: 0, gas: 0, brakes: 0, engine: 0 })
            .collect();
    }
    match (&game.now.race, game.player(car)) {
        (Some(race), Some((id, _))) => crate::engine::play::gear_changes(&game.track, &race.state, id, &game.rules),
        _ => Vec::new(),
    }
}

/// `n` and its noun, singular for one: `1 gas point`, `2 gas points` (French alike).
fn count(n: u32, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The gear order with the gears `changes` allows and their costs (13-1), in `lang`:
/// `GEAR <2|3|4|5|6>  (4, 5, 6: no cost; 3: 1 gas point; 2: 1 gas and 1 brake point; 13-1)`.
pub fn gear_prompt(lang: Lang, changes: &[GearChange]) -> String {
    let fr = lang == Lang::Fr;
    let word = if fr { "VITESSE" } else { "GEAR" };
    let gears: Vec<String> = changes.iter().map(|c| c.to.to_string()).collect();
    if gears.is_empty() {
        return format!("{word} <1-6>");
    }
    // One gear to send: the line to copy as it is (issue 47: `GEAR <1>` was copied literally).
    let list = if gears.len() == 1 { gears[0].clone() } else { format!("<{}>", gears.join("|")) };
    // `1 gas point`, `1 gas and 1 brake point`, `1 point de consommation et 1 point de frein`.
    let cost = |c: &GearChange| -> Option<String> {
        let parts: Vec<(u32, &str)> = if fr {
            vec![(c.gas as u32, "consommation"), (c.brakes as u32, "frein"), (c.engine as u32, "moteur")]
        } else {
            vec![(c.gas as u32, "gas"), (c.brakes as u32, "brake"), (c.engine as u32, "engine")]
        };
        let parts: Vec<(u32, &str)> = parts.into_iter().filter(|p| p.0 > 0).collect();
        let last = parts.last()?.0;
        let words: Vec<String> = if fr {
            parts.iter().map(|(n, part)| format!("{} de {part}", count(*n, "point", "points"))).collect()
        } else {
            parts.iter().map(|(n, part)| format!("{n} {part}")).collect()
        };
        let (and, noun) = if fr { (" et ", String::new()) } else { (" and ", format!(" {}", plural(last, "point"))) };
        Some(match words.split_last() {
            Some((end, [])) => format!("{end}{noun}"),
            Some((end, rest)) => format!("{}{and}{end}{noun}", rest.join(", ")),
            None => String::new(),
        })
    };
    let free: Vec<String> = changes.iter().filter(|c| cost(c).is_none()).map(|c| c.to.to_string()).collect();
    let (colon, semi) = if fr { (" :", " ;") } else { (":", ";") };
    let none = if fr { "sans coût" } else { "no cost" };
    if free.len() == changes.len() {
        return format!("{word} {list}  ({none})");
    }
    let mut parts = Vec::new();
    if !free.is_empty() {
        parts.push(format!("{}{colon} {none}", free.join(", ")));
    }
    for c in changes.iter().rev() {
        if let Some(text) = cost(c) {
            parts.push(format!("{}{colon} {text}", c.to));
        }
    }
    parts.push("13-1".into());
    format!("{word} {list}  ({})", parts.join(&format!("{semi} ")))
}

/// `point` or `points` after a count.
fn plural(n: u32, one: &str) -> String {
    if n == 1 { one.to_string() } else { format!("{one}s") }
}

/// The choice order with the option letters of car `car`'s roll, and the re-roll a driver point
/// allows (002 "Expending Driver Points", ruling 45), in `lang`.
fn choose_prompt(game: &Game, car: u8, lang: Lang) -> String {
    let fr = lang == Lang::Fr;
    let labels: Vec<String> = game
        .pending_roll(car)
        .map(|p| (0..p.options.len()).map(crate::engine::MoveOption::label).collect())
        .unwrap_or_default();
    let mut o = format!("{} <{}>", if fr { "CHOIX" } else { "CHOOSE" }, labels.join("|"));
    // A gear roll of the race not yet re-rolled, and points left.
    let left = game.driver_points_left(car);
    let pending = game.now.race.as_ref().and_then(|r| r.pending.as_ref()).filter(|_| game.now.qualifying.is_none());
    if left > 0 && pending.is_some_and(|p| !p.rerolled && crate::engine::play::rerollable(&p.rolled)) {
        let points = if fr {
            count(left as u32, "point pilote", "points pilote")
        } else {
            count(left as u32, "driver point", "driver points")
        };
        o.push_str(&if fr { format!(" ou RELANCER ({points})") } else { format!(" or REROLL ({points})") });
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_s_picture_is_drawn_once_and_a_new_position_is_drawn_anew() {
        use crate::engine::bot::Bot;
        use crate::store::Meta;
        let (dir, _store, mut h) = crate::store::test_game("pictures", 3);
        h.start(Meta::now()).unwrap();
        let boards = Boards::default();
        let first = boards.picture(h.game(), Some(1));
        assert!(first.is_some());
        assert_eq!(first.as_ref().map(Png::bytes), board_picture(h.game(), Some(1)).as_deref());
        // The race's picture is the position's: the other players get the same, not drawn again.
        assert_eq!(boards.picture(h.game(), Some(2)), first);
        assert_eq!(boards.picture(h.game(), None), first);
        assert_eq!(boards.pictures.borrow().len(), 1);
        // The text board likewise: the same as drawn for one player, drawn once for all.
        let text = report(h.game(), 0, Some(1), Lang::En).board;
        assert!(!text.is_empty());
        for car in [Some(1), Some(2), None] {
            assert_eq!(report_in(h.game(), 0, car, Lang::En, Some(&boards)).board, text);
        }
        assert_eq!(boards.texts.borrow().len(), 1);
        // Moves later (the mover and its options elsewhere), the picture is the new position's.
        let mut bot = Bot::new();
        for _ in 0..4 {
            h.bot_move(&mut bot, Meta::now()).unwrap();
        }
        let later = boards.picture(h.game(), Some(1));
        assert_eq!(later.as_ref().map(Png::bytes), board_picture(h.game(), Some(1)).as_deref());
        assert_ne!(later, first);
        assert_eq!(boards.pictures.borrow().len(), 2);
        let later_text = report_in(h.game(), 0, Some(1), Lang::En, Some(&boards)).board;
        assert_eq!(later_text, report(h.game(), 0, Some(1), Lang::En).board);
        assert_ne!(later_text, text);
        assert_eq!(boards.texts.borrow().len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }

    fn change(to: u8, gas: u8, brakes: u8, engine: u8) -> GearChange {
        GearChange { from: 6, to, skipped: 0, gas, brakes, engine }
    }

    #[test]
    fn the_gear_prompt_lists_each_gear_with_its_cost() {
        let c = [change(2, 1, 1, 0), change(3, 1, 0, 0), change(4, 0, 0, 0), change(5, 0, 0, 0), change(6, 0, 0, 0)];
        assert_eq!(
            gear_prompt(Lang::En, &c),
            "GEAR <2|3|4|5|6>  (4, 5, 6: no cost; 3: 1 gas point; 2: 1 gas and 1 brake point; 13-1)"
        );
        assert_eq!(
            gear_prompt(Lang::Fr, &c),
            "VITESSE <2|3|4|5|6>  (4, 5, 6 : sans coût ; 3 : 1 point de consommation ; \
             2 : 1 point de consommation et 1 point de frein ; 13-1)"
        );
        assert_eq!(gear_prompt(Lang::En, &[change(1, 0, 0, 0), change(2, 0, 0, 0)]), "GEAR <1|2>  (no cost)");
        assert_eq!(
            gear_prompt(Lang::En, &[change(1, 1, 1, 1), change(4, 0, 2, 0)]),
            "GEAR <1|4>  (4: 2 brake points; 1: 1 gas, 1 brake and 1 engine point; 13-1)"
        );
        assert_eq!(gear_prompt(Lang::Fr, &[change(4, 0, 2, 0)]), "VITESSE 4  (4 : 2 points de frein ; 13-1)");
    }
}
