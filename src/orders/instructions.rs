//! The instruction language of `POLICY` (kept until replaced) and `DRIVE` (the car's next move
//! only): instructions separated by `ELSE` / `SINON`, each a rule and its conditions
//! (`FARTHEST BRAKES<=1 NO-OVERSHOOT`, `PIT LONG TYRES hard`, `ASK`). The meaning is
//! `orders::policy`'s; docs/orders.md lists the words.

use super::args::number;
use super::{Arg, Kw, Order, OrderError, driving, squash};
use crate::orders::policy::{Instruction, Lane, Limits, PitPlan, Policy, Rule};

pub(super) fn policy(args: &[&str]) -> Result<Order, OrderError> {
    instructions(Kw::Policy, args).map(Order::Policy)
}

pub(super) fn drive(args: &[&str]) -> Result<Order, OrderError> {
    instructions(Kw::Drive, args).map(Order::Drive)
}

pub(super) fn lap(args: &[&str]) -> Result<Order, OrderError> {
    instructions(Kw::Lap, args).map(Order::Lap)
}

/// Reads `rule [conditions] [ELSE rule [conditions]]...`, or `NONE` alone.
fn instructions(k: Kw, args: &[&str]) -> Result<Policy, OrderError> {
    if args.is_empty() {
        return Err(OrderError::Missing { order: k, what: Arg::Rule });
    }
    // `BRAKES<=1`, `BRAKES <= 1` and `BRAKES<= 1` are the same words.
    let text = args.join(" ").replace(['≤'], " <= ").replace("=<", " <= ").replace("<=", " <= ");
    let words: Vec<&str> = text.split_whitespace().collect();
    let mut groups: Vec<Vec<&str>> = vec![Vec::new()];
    for w in words {
        if matches!(squash(w).as_str(), "else" | "sinon" | "then" | "puis") {
            groups.push(Vec::new());
        } else if let Some(g) = groups.last_mut() {
            g.push(w);
        }
    }
    let mut rules = Vec::new();
    let mut none = false;
    for g in &groups {
        if g.is_empty() {
            return Err(OrderError::Missing { order: k, what: Arg::Rule });
        }
        let folded = squash(&g.concat());
        if matches!(folded.as_str(), "none" | "aucune" | "aucun" | "off" | "rien") {
            none = true;
            continue;
        }
        rules.push(instruction(k, g)?);
    }
    if none && (!rules.is_empty() || groups.len() > 1) {
        return Err(OrderError::NoneWithRules);
    }
    Ok(Policy { rules })
}

/// One instruction: its rule (one to three words: `FARTHEST FREE`, `plus loin gratuit`), then
/// its conditions, or for `PIT` the stop.
fn instruction(k: Kw, words: &[&str]) -> Result<Instruction, OrderError> {
    let (rule, used) = (1..=words.len().min(3))
        .rev()
        .find_map(|n| Rule::parse(&squash(&words[..n].concat())).map(|r| (r, n)))
        .ok_or_else(|| OrderError::Invalid { order: k, what: Arg::Rule, got: words.join(" ") })?;
    let rest = &words[used..];
    let mut ins = Instruction::of(rule);
    if rest.is_empty() {
        return Ok(ins);
    }
    if matches!(rule, Rule::Ask | Rule::Bot) {
        return Err(OrderError::Unexpected { order: k, got: rest[0].to_string() });
    }
    if rule == Rule::Pit && matches!(squash(rest[0]).as_str(), "quick" | "short" | "rapide" | "court" | "long") {
        // The stop as the PIT order writes it, to the end of the instruction.
        let Order::Pit { stop, tyres, repairs } = driving::pit(rest)? else {
            unreachable!("driving::pit reads a PIT order")
        };
        ins.pit = Some(PitPlan { stop, tyres, repairs });
        return Ok(ins);
    }
    ins.limits = limits(k, rest)?;
    Ok(ins)
}

fn limits(k: Kw, words: &[&str]) -> Result<Limits, OrderError> {
    let mut l = Limits::default();
    let mut i = 0;
    let bad = |w: &str| OrderError::Invalid { order: k, what: Arg::Condition, got: w.to_string() };
    while i < words.len() {
        let w = squash(words[i]);
        // A budget: `BRAKES <= n` (the `<=` may be left out: `BRAKES 1`).
        let budget = |i: &mut usize| -> Result<u8, OrderError> {
            let at = if words.get(*i + 1) == Some(&"<=") { *i + 2 } else { *i + 1 };
            let n = number(k, Arg::Points, words.get(at), 0, 22)?;
            *i = at + 1;
            Ok(n as u8)
        };
        match w.as_str() {
            "brakes" | "brake" | "freins" | "frein" => l.brakes = Some(budget(&mut i)?),
            "tyres" | "tires" | "tyre" | "tire" | "pneus" | "pneu" => l.tyres = Some(budget(&mut i)?),
            "wear" | "usure" => l.wear = Some(budget(&mut i)?),
            "noovershoot" | "stops" | "makestops" | "sanssortie" | "arrets" => {
                l.no_overshoot = true;
                i += 1;
            }
            "nodanger" | "sansdanger" => {
                l.no_danger = true;
                i += 1;
            }
            "noslipstream" | "sansaspiration" => {
                l.slipstream = Some(false);
                i += 1;
            }
            "slipstream" | "slip" | "aspiration" => {
                let yes = words.get(i + 1).map(|w| squash(w));
                l.slipstream = Some(match yes.as_deref() {
                    Some("yes" | "oui" | "y" | "o") => true,
                    Some("no" | "non" | "n") => false,
                    Some(_) => {
                        return Err(OrderError::Invalid { order: k, what: Arg::YesNo, got: words[i + 1].into() });
                    }
                    None => return Err(OrderError::Missing { order: k, what: Arg::YesNo }),
                });
                i += 2;
            }
            "lane" | "couloir" => {
                let Some(word) = words.get(i + 1) else {
                    return Err(OrderError::Missing { order: k, what: Arg::Lane });
                };
                l.lane = Some(Lane::parse(&squash(word)).ok_or_else(|| OrderError::Invalid {
                    order: k,
                    what: Arg::Lane,
                    got: word.to_string(),
                })?);
                i += 2;
            }
            _ => return Err(bad(words[i])),
        }
    }
    Ok(l)
}
