//! The orders that set up and drive the car: `SETUP` (5), `TYRES` (8), `BOXES` (4-0-1), `GEAR`
//! (6-1), `CHOOSE` and `PIT` (19), and the car's parts and tyre types they name.

use super::args::{name, no_more, number};
use super::{Arg, Kw, Order, OrderError, Stop, fold, squash};
use crate::engine::{Part, Setup, Tyres, Wear};

pub(super) fn setup(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Setup;
    if args.is_empty() {
        return Err(OrderError::MissingParts { parts: Part::ALL.iter().map(|p| p.name()).collect() });
    }
    let mut wear = Wear::default();
    for (p, n) in pairs(k, args)? {
        if wear.get(p) != 0 {
            return Err(OrderError::PartTwice { part: p.name() });
        }
        *wear.get_mut(p) = n;
    }
    let missing: Vec<&'static str> = Part::ALL.iter().filter(|&&p| wear.get(p) == 0).map(|p| p.name()).collect();
    if !missing.is_empty() {
        return Err(OrderError::MissingParts { parts: missing });
    }
    // Chapter 5 is the engine's: the tyre type plays no part in the points check.
    Setup { wear, tyres: Tyres::Hard }.validate().map_err(OrderError::Setup)?;
    Ok(Order::Setup(wear))
}

/// `TYRES <dry> [WET <rain>]`: the starting tyres (8, 3-0-1).
pub(super) fn starting_tyres(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Tyres;
    let dry = tyres(k, args.first())?;
    let wet = match args.get(1) {
        Some(w) if matches!(squash(w).as_str(), "wet" | "mouille" | "mouillee") => {
            let t = tyres(k, args.get(2))?;
            no_more(k, &args[3..])?;
            Some(t)
        }
        _ => {
            no_more(k, &args[1..])?;
            None
        }
    };
    Ok(Order::Tyres { dry, wet })
}

pub(super) fn boxes(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Boxes;
    if args.is_empty() {
        return Err(OrderError::Missing { order: k, what: Arg::PitBox });
    }
    // Any box number a track might have: the game checks it against its pit lane.
    let boxes = args.iter().map(|w| number(k, Arg::PitBox, Some(w), 1, 99).map(|n| n as u8));
    Ok(Order::Boxes(boxes.collect::<Result<_, _>>()?))
}

pub(super) fn gear(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Gear;
    // A prompt's line copied whole (issue 47): `GEAR <4>  (no cost)` is `GEAR 4`; the gears
    // offered, `<2|3|4>`, still ask for one.
    let first = args.first().map(|w| w.strip_prefix('<').and_then(|w| w.strip_suffix('>')).unwrap_or(w));
    // 6-1: six gears.
    let n = number(k, Arg::Gear, first.as_ref(), 1, 6)?;
    let rest = &args[1..];
    let remark = rest.first().is_some_and(|w| w.starts_with('(')) && rest.last().is_some_and(|w| w.ends_with(')'));
    if !remark {
        no_more(k, rest)?;
    }
    Ok(Order::Gear(n as u8))
}

pub(super) fn choose(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Choose;
    let c = name(k, Arg::Choice, args.first())?;
    no_more(k, &args[1..])?;
    Ok(Order::Choose(c))
}

pub(super) fn pit(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Pit;
    let Some(w) = args.first() else { return Err(OrderError::Missing { order: k, what: Arg::StopType }) };
    let stop = match squash(w).as_str() {
        "quick" | "short" | "rapide" | "court" => Stop::Quick,
        "long" => Stop::Long,
        _ => return Err(OrderError::Invalid { order: k, what: Arg::StopType, got: w.to_string() }),
    };
    let (mut tyre, mut repairs) = (None, Vec::new());
    let mut i = 1;
    while i < args.len() {
        match squash(args[i]).as_str() {
            "tyres" | "tires" | "pneus" => {
                tyre = Some(tyres(k, args.get(i + 1))?);
                i += 2;
            }
            "repair" | "repairs" | "reparer" | "reparation" | "reparations" => {
                if stop == Stop::Quick {
                    return Err(OrderError::QuickRepair);
                }
                // Repairs run to the end of the line or to a TYRES word.
                let end = (i + 1..args.len())
                    .find(|&j| {
                        matches!(squash(args[j]).as_str(), "tyres" | "tires" | "pneus")
                            && args.get(j + 1).is_some_and(|t| Tyres::parse(&fold(t)).is_some())
                    })
                    .unwrap_or(args.len());
                if end == i + 1 {
                    return Err(OrderError::Missing { order: k, what: Arg::Part });
                }
                repairs.extend(pairs(k, &args[i + 1..end])?);
                i = end;
            }
            _ => return Err(OrderError::Unexpected { order: k, got: args[i].to_string() }),
        }
    }
    Ok(Order::Pit { stop, tyres: tyre, repairs })
}

fn tyres(order: Kw, word: Option<&&str>) -> Result<Tyres, OrderError> {
    let Some(w) = word else { return Err(OrderError::Missing { order, what: Arg::TyreType }) };
    Tyres::parse(&fold(w)).ok_or_else(|| OrderError::Invalid { order, what: Arg::TyreType, got: w.to_string() })
}

/// A part of the car in either language (5-0-1).
fn part(folded: &str) -> Option<Part> {
    match squash(folded).as_str() {
        "tyres" | "tires" | "tyre" | "tire" | "pneus" | "pneu" => Some(Part::Tyres),
        "brakes" | "brake" | "freins" | "frein" => Some(Part::Brakes),
        "gas" | "fuel" | "gearbox" | "consommation" | "conso" | "essence" | "boite" => Some(Part::Gas),
        "body" | "carrosserie" | "carro" => Some(Part::Body),
        "engine" | "moteur" => Some(Part::Engine),
        "handling" | "suspension" | "tenue" | "tenuederoute" => Some(Part::Handling),
        _ => None,
    }
}

/// `part=n`, `part:n` or `part n` pairs, as in `SETUP` and `REPAIR`.
pub(super) fn pairs(order: Kw, words: &[&str]) -> Result<Vec<(Part, u8)>, OrderError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (p, n) = match words[i].split_once(['=', ':']) {
            Some((p, n)) if !n.is_empty() => (p, Some(n)),
            Some((p, _)) => (p, words.get(i + 1).copied()),
            None => (words[i], words.get(i + 1).copied()),
        };
        let step = if words[i].split_once(['=', ':']).is_some_and(|(_, n)| !n.is_empty()) { 1 } else { 2 };
        let part = part(p).ok_or_else(|| OrderError::Invalid { order, what: Arg::Part, got: p.to_string() })?;
        let n = number(order, Arg::Points, n.as_ref(), 1, 22)?;
        out.push((part, n as u8));
        i += step;
    }
    Ok(out)
}
