//! Round orders (issue 46): which cars still move in the race's current round and in what
//! order, so that every player whose car moves in a round is asked for its gear and
//! instructions when the round starts, not when the cars ahead have moved. Pure: it reads the
//! game; the daemon keeps what each player sent (`standing::CarOrders`).

use crate::engine::order::{key, play_distance};
use crate::store::Game;
use crate::words::Lang;

/// The cars that still move in the current round, in the order of play as it stands: the car
/// called first, then the others farthest first (6-2-2; cars side by side by gear and arrival,
/// 6-2-3). The order can change as cars move (a car passed keeps its turn, 6-2-5): it tells a
/// player where they stand, the engine decides who plays.
pub fn still_to_move(g: &Game) -> Vec<u8> {
    let Some(race) = g.now.race.as_ref().filter(|_| !g.now.over && g.now.qualifying.is_none()) else {
        return Vec::new();
    };
    let s = &race.state;
    let mut cars: Vec<_> = s
        .ids()
        .filter(|&c| {
            let car = s.car(c);
            car.status.plays() && !car.backmarker && !s.played.contains(&c) && Some(c) != s.to_play
        })
        .collect();
    cars.sort_by_key(|&c| std::cmp::Reverse((play_distance(s, &g.track, c), key(s, &g.track, c))));
    let mut out: Vec<u8> = s.to_play.map(|c| g.number(c)).into_iter().collect();
    out.extend(cars.into_iter().map(|c| g.number(c)));
    out
}

/// Car `car`'s place among the cars still to move in the round (1: it moves next), and how
/// many they are; `None` when it does not move again in this round.
pub fn place(g: &Game, car: u8) -> Option<(usize, usize)> {
    let cars = still_to_move(g);
    cars.iter().position(|&c| c == car).map(|i| (i + 1, cars.len()))
}

/// Whether car `car` is asked for its round order now: it moves in the current round and has not
/// rolled yet (its choice after a roll is a prompt of its own). A car with a player only: a
/// backmarker is steward's.
pub fn asked(g: &Game, car: u8) -> bool {
    if g.now.paused || g.now.over || g.now.qualifying.is_some() {
        return false;
    }
    let pending = g.now.race.as_ref().and_then(|r| r.pending.as_ref()).map(|p| g.number(p.rolled.car));
    pending != Some(car) && place(g, car).is_some() && g.player(car).is_some()
}

/// The name of car `car`'s round prompt, the same in every job of its move: `round@<round>.<moves
/// done>` (a lapped car moving twice in a round is asked twice, 6-2-5).
pub fn prompt_name(g: &Game, car: u8) -> Option<String> {
    let race = g.now.race.as_ref()?;
    let (id, _) = g.player(car)?;
    asked(g, car).then(|| format!("round@{}.{}", race.state.round, race.state.car(id).moves))
}

/// `1st`, `2nd`, `3rd`, `4th` ... (`1re`, `2e` ... in French).
pub fn ordinal(n: usize, lang: Lang) -> String {
    match lang {
        Lang::Fr if n == 1 => "1re".into(),
        Lang::Fr => format!("{n}e"),
        Lang::En => {
            let suffix = match (n % 10, n % 100) {
                (1, x) if x != 11 => "st",
                (2, x) if x != 12 => "nd",
                (3, x) if x != 13 => "rd",
                _ => "th",
            };
            format!("{n}{suffix}")
        }
    }
}

/// Where car `car` moves in the round, in words: `you move next`, `you move 3rd (2 cars before
/// you)`; `None` when it does not move again in this round.
pub fn place_text(g: &Game, car: u8, lang: Lang) -> Option<String> {
    let (at, _) = place(g, car)?;
    Some(match (at, lang) {
        (1, Lang::En) => "you move next".into(),
        (1, Lang::Fr) => "vous jouez maintenant".into(),
        (2, Lang::En) => "you move 2nd (1 car before you)".into(),
        (2, Lang::Fr) => "vous jouez en 2e position (1 voiture avant vous)".into(),
        (n, Lang::En) => format!("you move {} ({} cars before you)", ordinal(n, lang), n - 1),
        (n, Lang::Fr) => format!("vous jouez en {} position ({} voitures avant vous)", ordinal(n, lang), n - 1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinals_read_as_written() {
        let en: Vec<String> = [1, 2, 3, 4, 11, 12, 13, 21, 22, 101].iter().map(|&n| ordinal(n, Lang::En)).collect();
        assert_eq!(en, ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st"]);
        assert_eq!(ordinal(1, Lang::Fr), "1re");
        assert_eq!(ordinal(3, Lang::Fr), "3e");
    }
}
