//! The player's own orders besides driving: `JOIN`, the
//! preferences (`LANG`, `REPORTS`), `ABSENT` and `RETIRE`, watching, and the requests for the
//! history and the games.

use super::args::{game_id, name, no_more, number};
use super::{Arg, Kw, Order, OrderError, squash};
use crate::words::Lang;

pub(super) fn join(args: &[&str], line: &str) -> Result<Order, OrderError> {
    let k = Kw::Join;
    let game = game_id(k, args.first())?;
    let (mut car, mut password, mut phrase, mut confirm) = (None, None, None, None);
    let mut i = 1;
    while i < args.len() {
        let w = squash(args[i]);
        match w.as_str() {
            "car" | "voiture" => {
                car = Some(number(k, Arg::CarNumber, args.get(i + 1), 1, 99)? as u8);
                i += 2;
            }
            "password" | "motdepasse" | "token" | "jeton" => {
                password = Some(name(k, Arg::Secret, args.get(i + 1))?);
                i += 2;
            }
            "confirm" | "confirmer" => {
                confirm = Some(name(k, Arg::Code, args.get(i + 1))?.to_ascii_lowercase());
                i += 2;
            }
            "phrase" => {
                // The rest of the line, as written: entropy for the dice key.
                let rest = after_word(line, args[i]).trim();
                if rest.is_empty() {
                    return Err(OrderError::Missing { order: k, what: Arg::Phrase });
                }
                phrase = Some(rest.to_string());
                break;
            }
            _ => return Err(OrderError::Unexpected { order: k, got: args[i].to_string() }),
        }
    }
    Ok(Order::Join { game, car, password, phrase, confirm })
}

/// The text of `line` after the first occurrence of the word `w` that follows the keyword.
fn after_word<'a>(line: &'a str, w: &str) -> &'a str {
    // The keyword is the first word; `w` is found after it.
    let start = line.find(char::is_whitespace).unwrap_or(line.len());
    let body = &line[start..];
    let mut from = 0;
    while let Some(p) = body[from..].find(w) {
        let at = from + p;
        let before = body[..at].chars().next_back();
        let after = body[at + w.len()..].chars().next();
        let starts = before.is_none_or(|c| c.is_whitespace() || c == ',' || c == ';');
        let ends = after.is_none_or(|c| c.is_whitespace() || c == ',' || c == ';');
        if starts && ends {
            return &body[at + w.len()..];
        }
        from = at + w.len();
    }
    ""
}

pub(super) fn history(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::History;
    let n = if args.is_empty() { 1 } else { number(k, Arg::Count, args.first(), 1, 100)? };
    no_more(k, args.get(1..).unwrap_or_default())?;
    Ok(Order::History(n))
}

pub(super) fn timezone(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::TimeZone;
    let Some(w) = args.first() else { return Err(OrderError::Missing { order: k, what: Arg::TimeZone }) };
    let zone = crate::words::when::zone_name(w).ok_or_else(|| OrderError::Invalid {
        order: k,
        what: Arg::TimeZone,
        got: w.to_string(),
    })?;
    no_more(k, &args[1..])?;
    Ok(Order::TimeZone(zone))
}

pub(super) fn lang(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Lang;
    let Some(w) = args.first() else { return Err(OrderError::Missing { order: k, what: Arg::Language }) };
    let l = Lang::parse(&squash(w)).ok_or_else(|| OrderError::Invalid {
        order: k,
        what: Arg::Language,
        got: w.to_string(),
    })?;
    no_more(k, &args[1..])?;
    Ok(Order::Lang(l))
}

pub(super) fn reports(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Reports;
    let Some(w) = args.first() else { return Err(OrderError::Missing { order: k, what: Arg::ReportMode }) };
    let m = crate::orders::ReportMode::parse(&squash(w)).ok_or_else(|| OrderError::Invalid {
        order: k,
        what: Arg::ReportMode,
        got: w.to_string(),
    })?;
    no_more(k, &args[1..])?;
    Ok(Order::Reports(m))
}

pub(super) fn list(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::List;
    let game = if args.is_empty() { None } else { Some(game_id(k, args.first())?) };
    no_more(k, args.get(1..).unwrap_or_default())?;
    Ok(Order::List(game))
}

pub(super) fn watch(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Watch;
    let game = game_id(k, args.first())?;
    let code = match args.get(1).map(|w| squash(w)) {
        None => None,
        Some(w) if w == "confirm" || w == "confirmer" => {
            let code = name(k, Arg::Code, args.get(2))?;
            no_more(k, &args[3..])?;
            Some(code.to_ascii_lowercase())
        }
        Some(_) => return Err(OrderError::Unexpected { order: k, got: args[1].to_string() }),
    };
    Ok(Order::Watch(game, code))
}

/// `UNWATCH [game] [CONFIRM code]`: the code steward mailed the observer (issue 45: a mail
/// forged in an observer's name does not stop their reports).
pub(super) fn unwatch(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Unwatch;
    let is_confirm = |w: &str| matches!(squash(w).as_str(), "confirm" | "confirmer");
    let (game, rest) = match args.first() {
        None => (None, args),
        Some(w) if is_confirm(w) => (None, args),
        Some(_) => (Some(game_id(k, args.first())?), &args[1..]),
    };
    let code = match rest.first() {
        None => None,
        Some(w) if is_confirm(w) => {
            let code = name(k, Arg::Code, rest.get(1))?;
            no_more(k, &rest[2..])?;
            Some(code.to_ascii_lowercase())
        }
        Some(w) => return Err(OrderError::Unexpected { order: k, got: w.to_string() }),
    };
    Ok(Order::Unwatch(game, code))
}

/// `ABSENT <from> <to>` (ISO dates) or `ABSENT CANCEL`.
pub(super) fn absent(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Absent;
    let Some(first) = args.first() else { return Err(OrderError::Missing { order: k, what: Arg::Date }) };
    if matches!(squash(first).as_str(), "cancel" | "annuler" | "none" | "aucune") {
        no_more(k, &args[1..])?;
        return Ok(Order::Absent(None));
    }
    let date = |w: Option<&&str>| -> Result<String, OrderError> {
        let Some(w) = w else { return Err(OrderError::Missing { order: k, what: Arg::Date }) };
        if crate::store::Stamp::parse(&format!("{w}T00:00:00Z")).is_some() && w.len() == 10 {
            Ok(w.to_string())
        } else {
            Err(OrderError::Invalid { order: k, what: Arg::Date, got: w.to_string() })
        }
    };
    let (from, to) = (date(args.first())?, date(args.get(1))?);
    no_more(k, &args[2..])?;
    if to < from {
        return Err(OrderError::Invalid { order: k, what: Arg::Date, got: format!("{from} {to}") });
    }
    Ok(Order::Absent(Some((from, to))))
}

/// `RETIRE` or `RETIRE CONFIRM <code>` (ruling 51).
pub(super) fn retire(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Retire;
    let code = match args.first().map(|w| squash(w)) {
        None => None,
        Some(w) if w == "confirm" || w == "confirmer" => {
            let code = name(k, Arg::Code, args.get(1))?;
            no_more(k, &args[2..])?;
            Some(code.to_ascii_lowercase())
        }
        Some(_) => return Err(OrderError::Unexpected { order: k, got: args[0].to_string() }),
    };
    Ok(Order::Retire(code))
}
