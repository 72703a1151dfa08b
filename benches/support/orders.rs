//! The order mails the daemon benchmarks (`daemon`, `daemon_cpu`) feed it, and the started games
//! they answer: one place, so both measure the same work.

use std::path::Path;

use steward::store::fsio::Durability;
use steward::store::{Join, Meta, NewGame, Store};

/// Cars in each game.
pub const CARS: u8 = 4;
/// The daemon's address.
pub const STEWARD: &str = "daemon@players.test";

/// `games` started games of `CARS` cars on sprint under `root/games`; tokens are `t<car>`.
pub fn games(root: &Path, games: usize) -> Vec<u32> {
    let mut store = Store::new(root.join("games"));
    store.durability = Durability::NoSync;
    let mut turns = Vec::new();
    for g in 0..games {
        let req = NewGame::plain(&format!("g{g}"), "sprint", 3);
        let mut h = store.create(&req, [g as u8; 32], Meta::now()).unwrap();
        for car in 1..=CARS {
            let j = Join::plain(&format!("p{car}@players.test"), &format!("t{car}"), car);
            h.join(&j, Meta::now()).unwrap();
        }
        h.start(Meta::now()).unwrap();
        turns.push(h.game().next_turn() - 1);
    }
    turns
}

/// Order mail `i`: a queued or played gear, a standing policy, or a board request, for one of
/// the games' cars (about 300 bytes, like a player's order).
pub fn order_mail(i: usize, turns: &[u32]) -> Vec<u8> {
    let g = i % turns.len();
    let car = 1 + (i / turns.len()) % CARS as usize;
    let order = match i % 3 {
        0 => format!("TURN {}\r\nGEAR {}", turns[g], 1 + i % 2),
        1 => "POLICY FARTHEST-FREE ELSE SAFEST".to_string(),
        _ => "BOARD".to_string(),
    };
    format!(
        "From: p{car}@players.test\r\nTo: {STEWARD}\r\nSubject: Re: g{g}\r\nMessage-ID: <bench-{i}@players.test>\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\nGAME g{g}\r\nCAR {car}\r\nTOKEN t{car}\r\n{order}\r\n"
    )
    .into_bytes()
}
