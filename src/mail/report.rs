//! The texts of a turn report: what the turns since the last report did (orders, rolls with
//! their labels, events with their articles), the board around the cars that acted, every car's
//! sheet, and what is awaited from whom. The template (`templates/<lang>/report.txt`) arranges
//! them; this module only reads the game.

use std::fmt::Write as _;

use serde::Serialize;

use crate::engine::order::race_distance;
use crate::render::board::{BoardMarks, draw};
use crate::render::picture::{CarMark, Marks, mail_png};
use crate::store::Game;
use crate::store::show::{awaited, board_marks, sheets, turn_summary};
use crate::track::SpaceIdx;

/// Most turns summarised in one report; older ones are left to `HISTORY`.
pub const MAX_TURNS: usize = 40;

/// The receipt block that heads every report and welcome (docs/dice.md, "What a player keeps"):
/// the game, the turn, that turn's hash, the dice scheme and commitment, and the seed once
/// revealed, one `Name: value` a line in every language, so that `steward verify --mail` and
/// `tools/verify_game.py --mail` read them from the player's own mails.
pub fn proof(game: &Game) -> String {
    let last = game.turns.last().expect("a game has turn 0");
    let mut o = format!(
        "Game: {}  Turn: {}  Dice: {}\nReceipt: {}\nCommitment: {}\n",
        game.setup.id,
        last.turn,
        game.setup.dice,
        game.hashes.last().map(String::as_str).unwrap_or_default(),
        game.setup.commitment
    );
    if let Some(seed) = game.now.revealed {
        let _ = writeln!(o, "Seed: {}", hex::encode(seed));
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
    /// For the awaited player only: the order to write (`GEAR <1-6>`, `CHOOSE <letter>`).
    pub options: String,
    /// The recipient's car, when it is awaited.
    pub you: Option<u8>,
    /// When the answer is due.
    pub due: Option<String>,
    /// The race is over.
    pub over: bool,
    /// The revealed seed.
    pub seed: Option<String>,
    /// How to check every roll.
    pub verify: String,
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

/// The space the board is drawn around: the car awaited, else the leader (as in [`report`]).
fn focus(game: &Game, st: &crate::engine::RaceState) -> Option<SpaceIdx> {
    game.awaited()
        .and_then(|(n, _)| game.player(n))
        .map(|(id, _)| st.car(id).space)
        .or_else(|| st.ids().max_by_key(|&c| race_distance(st, &game.track, c)).map(|c| st.car(c).space))
}

/// `marks` (cars and stickers as on the text board), the destinations of `car`'s pending roll
/// lettered as in the text, around `focus`, as a PNG.
fn picture(game: &Game, marks: &BoardMarks, focus: SpaceIdx, car: Option<u8>) -> Vec<u8> {
    let options = car
        .and_then(|c| game.pending_roll(c))
        .map(|r| r.options.iter().enumerate().map(|(i, o)| (crate::engine::MoveOption::label(i), o.end)).collect())
        .unwrap_or_default();
    let marks = Marks {
        cars: marks.cars.iter().map(|c| CarMark { number: c.number, space: c.space, running: true }).collect(),
        dangerous: marks.dangerous.clone(),
        options,
    };
    mail_png(&game.track, &marks, focus)
}

/// The report of turns `first..` of `game`, for the player of car `recipient` (if any).
pub fn report(game: &Game, first: u32, recipient: Option<u8>) -> Report {
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
        verify: format!("steward verify {} (or python3 tools/verify_game.py games/{})", game.setup.id, game.setup.id),
        ..Report::default()
    };
    if let Some(race) = &game.now.race {
        let st = &race.state;
        let marks = board_marks(st);
        // Around the car awaited, else the leader.
        let focus = game
            .awaited()
            .and_then(|(n, _)| game.player(n))
            .map(|(id, _)| st.car(id).space)
            .or_else(|| st.ids().max_by_key(|&c| race_distance(st, &game.track, c)).map(|c| st.car(c).space));
        r.board = draw(&game.track, &marks, focus);
        sheets(game, st, &mut r.sheets);
    }
    if let Some(q) = &game.now.qualifying {
        // The recipient's own lap on the board (1-1-3: alone on the track).
        if let Some(e) = recipient.and_then(|c| q.entry(c)) {
            r.board = draw(&game.track, &board_marks(&e.lap.state), Some(e.lap.car().space));
        }
    }
    awaited(game, last, &mut r.awaited);
    if let Some((car, choice)) = game.awaited_cars().into_iter().find(|(c, _)| Some(*c) == recipient)
        && !game.now.paused
    {
        r.you = Some(car);
        r.due = last.due.clone();
        r.options = if choice {
            let labels: Vec<String> = game
                .pending_roll(car)
                .map(|p| (0..p.options.len()).map(crate::engine::MoveOption::label).collect())
                .unwrap_or_default();
            let mut o = format!("CHOOSE <{}>", labels.join("|"));
            // 002 "Expending Driver Points" (ruling 45): a gear roll not yet re-rolled, and points.
            let left = game.driver_points_left(car);
            let pending =
                game.now.race.as_ref().and_then(|r| r.pending.as_ref()).filter(|_| game.now.qualifying.is_none());
            if left > 0 && pending.is_some_and(|p| !p.rerolled && crate::engine::play::rerollable(&p.rolled)) {
                o.push_str(&format!(" or REROLL ({left} driver point(s))"));
            }
            o
        } else {
            "GEAR <1-6>".into()
        };
    }
    r
}
