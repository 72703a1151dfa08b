//! The words every order reads: numbers in a range, names and game ids, and nothing after the
//! last argument.

use super::{Arg, Kw, OrderError};

pub(super) fn number(order: Kw, what: Arg, word: Option<&&str>, min: u32, max: u32) -> Result<u32, OrderError> {
    let Some(w) = word else { return Err(OrderError::Missing { order, what }) };
    match w.parse::<u32>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(OrderError::Range { order, what, got: w.to_string(), min, max }),
    }
}

pub(super) fn no_more(order: Kw, rest: &[&str]) -> Result<(), OrderError> {
    match rest.first() {
        Some(w) => Err(OrderError::Unexpected { order, got: w.to_string() }),
        None => Ok(()),
    }
}

/// A name: a game id, a token, a track. Letters, digits, `-`, `_`, `.`, at most 64.
pub(super) fn name(order: Kw, what: Arg, word: Option<&&str>) -> Result<String, OrderError> {
    let Some(w) = word else { return Err(OrderError::Missing { order, what }) };
    let ok = w.len() <= 64 && w.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok { Ok(w.to_string()) } else { Err(OrderError::Invalid { order, what, got: w.to_string() }) }
}

/// A game's id, lower-cased as the store keeps it (`store::game::valid_id`).
pub(super) fn game_id(order: Kw, word: Option<&&str>) -> Result<String, OrderError> {
    let id = name(order, Arg::GameId, word)?.to_ascii_lowercase();
    if !id.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(OrderError::Invalid { order, what: Arg::GameId, got: id });
    }
    Ok(id)
}
