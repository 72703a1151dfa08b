//! The moderators' orders: `CREATE`, `LEAGUE` (whose `STANDINGS` anyone may ask), the clock
//! (`DEADLINE`), `REPLACE`, `FORCE`, `ROLLBACK` and `OBSERVERS`.

use super::args::{game_id, name, no_more, number};
use super::{Arg, Kw, LeagueAction, Order, OrderError, squash};
use crate::engine::pits::PitChoice;
use crate::engine::weather::Forecast;
use crate::store::qualifying::GridMethod;

pub(super) fn create(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Create;
    let game = game_id(k, args.first())?;
    let (mut track, mut laps, mut cars, mut hours, mut profile) = (None, None, None, None, None);
    let (mut weather, mut grid, mut lap_thirds, mut late, mut pits) = (None, None, false, false, None);
    let mut backmarkers = false;
    let mut round_pace = false;
    let mut beacon = None;
    let (mut at, mut zone, mut weekends, mut notice, mut grace) = (None, None, true, None, None);
    let mut i = 1;
    while i < args.len() {
        let next = args.get(i + 1);
        match squash(args[i]).as_str() {
            "track" | "circuit" => track = Some(name(k, Arg::Track, next)?),
            "laps" | "tours" => laps = Some(number(k, Arg::Laps, next, 1, 99)? as u16),
            "cars" | "voitures" => cars = Some(number(k, Arg::CarNumber, next, 1, 99)? as u8),
            "hours" | "heures" => hours = Some(number(k, Arg::Hours, next, 1, 24 * 60)?),
            "profile" | "profil" => {
                // A profile, optionally with its toggles joined by `+` (commas split words):
                // `eurogames-advanced:tyres+weather`, kept as the store's spec `...:tyres,weather`.
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::Profile })?;
                let ok = w.len() <= 200
                    && w.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '+'));
                if !ok {
                    return Err(OrderError::Invalid { order: k, what: Arg::Profile, got: w.to_string() });
                }
                profile = Some(w.to_ascii_lowercase().replace('+', ","));
            }
            "weather" | "meteo" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::Weather })?;
                weather = Some(forecast(&squash(w)).ok_or_else(|| OrderError::Invalid {
                    order: k,
                    what: Arg::Weather,
                    got: w.to_string(),
                })?);
            }
            "late" | "retard" | "retards" => late = yes_no(k, next)?,
            "backmarkers" | "retardataires" => backmarkers = yes_no(k, next)?,
            "pace" | "rythme" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::Pace })?;
                round_pace = match squash(w).as_str() {
                    "round" | "rounds" | "tour" | "tours" => true,
                    "move" | "moves" | "coup" | "coups" => false,
                    _ => return Err(OrderError::Invalid { order: k, what: Arg::Pace, got: w.to_string() }),
                };
            }
            "at" | "a" | "heure" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::TimeOfDay })?;
                at = Some(crate::store::schedule::canonical_time(w).ok_or_else(|| OrderError::Invalid {
                    order: k,
                    what: Arg::TimeOfDay,
                    got: w.to_string(),
                })?);
            }
            "zone" | "fuseau" | "timezone" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::TimeZone })?;
                zone = Some(crate::words::when::zone_name(w).ok_or_else(|| OrderError::Invalid {
                    order: k,
                    what: Arg::TimeZone,
                    got: w.to_string(),
                })?);
            }
            "weekends" | "weekend" | "weekend-ends" => weekends = yes_no(k, next)?,
            "notice" | "preavis" => notice = Some(number(k, Arg::Hours, next, 0, 24 * 14)?),
            "grace" => grace = Some(number(k, Arg::Minutes, next, 0, 24 * 60)?),
            "pits" | "stands" | "boxes" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::PitChoice })?;
                pits = Some(match squash(w).replace('-', "").as_str() {
                    "grid" | "grille" => PitChoice::GridOrder,
                    "reversegrid" | "reverse" | "grilleinverse" | "inverse" => PitChoice::ReverseGrid,
                    _ => return Err(OrderError::Invalid { order: k, what: Arg::PitChoice, got: w.to_string() }),
                });
            }
            "checks" | "controles" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::Checks })?;
                lap_thirds = match squash(w).replace('-', "").as_str() {
                    "lapthirds" | "thirds" | "tiers" | "tiersdetour" => true,
                    "rolls" | "jets" => false,
                    _ => return Err(OrderError::Invalid { order: k, what: Arg::Checks, got: w.to_string() }),
                };
            }
            "beacon" | "balise" => {
                let (Some(kind), Some(arg)) = (next, args.get(i + 2)) else {
                    return Err(OrderError::Missing { order: k, what: Arg::Beacon });
                };
                beacon = Some(crate::store::Beacon::parse(kind, arg).map_err(|_| OrderError::Invalid {
                    order: k,
                    what: Arg::Beacon,
                    got: format!("{kind} {arg}"),
                })?);
                i += 1;
            }
            "grid" | "grille" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::Grid })?;
                grid = Some(grid_method(&squash(w)).ok_or_else(|| OrderError::Invalid {
                    order: k,
                    what: Arg::Grid,
                    got: w.to_string(),
                })?);
            }
            _ => return Err(OrderError::Unexpected { order: k, got: args[i].to_string() }),
        }
        i += 2;
    }
    let track = track.ok_or(OrderError::Missing { order: k, what: Arg::Track })?;
    let laps = laps.ok_or(OrderError::Missing { order: k, what: Arg::Laps })?;
    if at.is_none() && (zone.is_some() || !weekends || notice.is_some() || grace.is_some()) {
        // ZONE, WEEKENDS, NOTICE and GRACE shape a schedule, which AT sets.
        return Err(OrderError::Missing { order: k, what: Arg::TimeOfDay });
    }
    let schedule = at.map(|at| crate::store::Schedule {
        at,
        zone: zone.unwrap_or_else(|| "UTC".into()),
        skip_weekends: !weekends,
        notice_hours: notice.unwrap_or(crate::store::schedule::DEFAULT_NOTICE_HOURS),
        grace_minutes: grace.unwrap_or(0),
    });
    Ok(Order::Create {
        game,
        track,
        laps,
        cars,
        hours,
        profile,
        weather,
        grid,
        lap_thirds,
        late,
        pits,
        backmarkers,
        round_pace: round_pace || schedule.is_some(),
        schedule,
        beacon,
    })
}

/// `START`, or `START BEACON <value>` for a game that names a beacon (docs/dice.md, section 6).
pub(super) fn start(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Start;
    match args {
        [] => Ok(Order::Start(None)),
        [w, v] if matches!(squash(w).as_str(), "beacon" | "balise") => crate::store::beacon_value(v)
            .map(|v| Order::Start(Some(v)))
            .ok_or_else(|| OrderError::Invalid { order: k, what: Arg::Beacon, got: v.to_string() }),
        [w] if matches!(squash(w).as_str(), "beacon" | "balise") => {
            Err(OrderError::Missing { order: k, what: Arg::Beacon })
        }
        [w, ..] => Err(OrderError::Unexpected { order: k, got: w.to_string() }),
    }
}

/// A CREATE setting's `YES` or `NO`, English or French.
fn yes_no(k: Kw, word: Option<&&str>) -> Result<bool, OrderError> {
    let w = word.ok_or(OrderError::Missing { order: k, what: Arg::YesNo })?;
    match squash(w).as_str() {
        "yes" | "oui" | "on" => Ok(true),
        "no" | "non" | "off" => Ok(false),
        _ => Err(OrderError::Invalid { order: k, what: Arg::YesNo, got: w.to_string() }),
    }
}

/// A CREATE's GRID word, English or French (`essais`: qualifying).
fn grid_method(w: &str) -> Option<GridMethod> {
    match w {
        "inscription" | "ordre" => Some(GridMethod::Join),
        "essais" => Some(GridMethod::Qualifying),
        "essais-de-noir" | "essais-noir" => Some(GridMethod::QualifyingBlackDie),
        _ => GridMethod::parse(w),
    }
}

/// A CREATE's WEATHER word, English or French (`piste`: the track's table).
fn forecast(w: &str) -> Option<Forecast> {
    match w {
        "soleil" | "sec" => Some(Forecast::Sun),
        "pluie" | "mouille" => Some(Forecast::Rain),
        "variable" => Some(Forecast::Changeable),
        "piste" | "circuit" | "table" => Some(Forecast::Track),
        _ => Forecast::parse(w),
    }
}

/// `LEAGUE <league> ENTER a | WITHDRAW a | TEAM name a [b] | RACE game TRACK t LAPS n [GRID m] |
/// STANDINGS`, in English or French.
pub(super) fn league(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::League;
    let league = game_id(k, args.first())?;
    let Some(verb) = args.get(1) else { return Err(OrderError::Missing { order: k, what: Arg::LeagueAction }) };
    let rest = &args[2..];
    let action = match squash(verb).as_str() {
        "enter" | "inscrire" => {
            let a = address(k, rest.first())?;
            no_more(k, &rest[1..])?;
            LeagueAction::Enter(a)
        }
        "withdraw" | "retirer" => {
            let a = address(k, rest.first())?;
            no_more(k, &rest[1..])?;
            LeagueAction::Withdraw(a)
        }
        "team" | "equipe" => {
            let name = name(k, Arg::GameId, rest.first())?;
            let drivers = rest[1..].iter().map(|w| address(k, Some(w))).collect::<Result<Vec<_>, _>>()?;
            if drivers.is_empty() {
                return Err(OrderError::Missing { order: k, what: Arg::Address });
            }
            if drivers.len() > 2 {
                return Err(OrderError::Unexpected { order: k, got: rest[3].to_string() });
            }
            LeagueAction::Team { name, drivers }
        }
        "race" | "course" => {
            let game = game_id(k, rest.first())?;
            let (mut track, mut laps, mut grid) = (None, None, "qualifying".to_string());
            let mut i = 1;
            while i < rest.len() {
                let next = rest.get(i + 1);
                match squash(rest[i]).as_str() {
                    "track" | "circuit" => track = Some(name(k, Arg::Track, next)?),
                    "laps" | "tours" => laps = Some(number(k, Arg::Laps, next, 1, 99)? as u16),
                    "grid" | "grille" => {
                        let g = name(k, Arg::LeagueGrid, next)?.to_ascii_lowercase();
                        if !["qualifying", "d20", "rotating", "bids"].contains(&g.as_str()) {
                            return Err(OrderError::Invalid { order: k, what: Arg::LeagueGrid, got: g });
                        }
                        grid = g;
                    }
                    _ => return Err(OrderError::Unexpected { order: k, got: rest[i].to_string() }),
                }
                i += 2;
            }
            let track = track.ok_or(OrderError::Missing { order: k, what: Arg::Track })?;
            let laps = laps.ok_or(OrderError::Missing { order: k, what: Arg::Laps })?;
            LeagueAction::Race { game, track, laps, grid }
        }
        "standings" | "classement" => {
            no_more(k, rest)?;
            LeagueAction::Standings
        }
        _ => return Err(OrderError::Invalid { order: k, what: Arg::LeagueAction, got: verb.to_string() }),
    };
    Ok(Order::League { league, action })
}

fn address(k: Kw, w: Option<&&str>) -> Result<String, OrderError> {
    let Some(a) = w else { return Err(OrderError::Missing { order: k, what: Arg::Address }) };
    let a = a.trim_start_matches('<').trim_end_matches('>');
    let ok =
        a.len() <= 254 && a.split_once('@').is_some_and(|(l, d)| !l.is_empty() && d.contains('.') && !d.contains('@'));
    if !ok {
        return Err(OrderError::Invalid { order: k, what: Arg::Address, got: a.to_string() });
    }
    Ok(a.to_ascii_lowercase())
}

pub(super) fn deadline(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Deadline;
    let n = number(k, Arg::Hours, args.first(), 1, 24 * 60)?;
    no_more(k, &args[1..])?;
    Ok(Order::Deadline(n))
}

pub(super) fn replace(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Replace;
    let car = car_word(k, args)?;
    let Some(a) = args.get(2) else { return Err(OrderError::Missing { order: k, what: Arg::Address }) };
    let a = a.trim_start_matches('<').trim_end_matches('>');
    let ok =
        a.len() <= 254 && a.split_once('@').is_some_and(|(l, d)| !l.is_empty() && d.contains('.') && !d.contains('@'));
    if !ok {
        return Err(OrderError::Invalid { order: k, what: Arg::Address, got: a.to_string() });
    }
    no_more(k, &args[3..])?;
    Ok(Order::Replace { car, address: a.to_ascii_lowercase() })
}

pub(super) fn force(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Force;
    let car = car_word(k, args)?;
    no_more(k, &args[2..])?;
    Ok(Order::Force { car })
}

/// `CAR <n>` after `REPLACE` or `FORCE`.
fn car_word(k: Kw, args: &[&str]) -> Result<u8, OrderError> {
    match args.first() {
        Some(w) if Kw::lookup(&squash(w)) == Some(Kw::Car) => {}
        Some(w) => return Err(OrderError::Unexpected { order: k, got: w.to_string() }),
        None => return Err(OrderError::Missing { order: k, what: Arg::CarNumber }),
    }
    Ok(number(k, Arg::CarNumber, args.get(1), 1, 99)? as u8)
}

pub(super) fn rollback(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Rollback;
    let n = number(k, Arg::TurnNumber, args.first(), 0, 999_999)?;
    no_more(k, &args[1..])?;
    Ok(Order::Rollback(n))
}

pub(super) fn observers(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Observers;
    let yes = match args.first().map(|w| squash(w)).as_deref() {
        Some("yes" | "oui" | "open" | "ouvert") => true,
        Some("no" | "non" | "closed" | "ferme") => false,
        Some(_) => return Err(OrderError::Invalid { order: k, what: Arg::YesNo, got: args[0].to_string() }),
        None => return Err(OrderError::Missing { order: k, what: Arg::YesNo }),
    };
    no_more(k, &args[1..])?;
    Ok(Order::Observers(yes))
}
