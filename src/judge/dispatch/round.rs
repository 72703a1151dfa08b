//! Round orders by mail (issue 46): what a round prompt shows (the instructions it suggests and
//! their preview for every gear), and the acknowledgement of a GEAR or DRIVE sent ahead of the
//! car's move (`received: GEAR 4, DRIVE FARTHEST BRAKES<=1, for round 12: you move 3rd`) with the
//! preview of that gear face by face. Split from the orders of a message (`super`).

use super::*;
use crate::judge::round;
use crate::orders::policy::Policy;
use crate::orders::preview::{self, Outcome};

/// The instructions a round prompt suggests to a player who has none.
pub(in crate::judge) const SUGGESTED: &str = "FARTHEST-FREE ELSE SAFEST ELSE ASK";

/// Where the instructions of a preview come from.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Origin {
    /// The car's DRIVE for this move.
    Drive,
    /// Its standing POLICY.
    Policy,
    /// Steward's suggestion.
    Suggested,
}

/// Instructions kept as written after `keyword` (`DRIVE`, `POLICY`, `LAP`), read back.
pub(super) fn parsed(keyword: &str, text: &str) -> Option<Policy> {
    match orders::parse(&format!("{keyword} {text}")).orders().first().copied() {
        Some(Order::Drive(p) | Order::Policy(p) | Order::Lap(p)) => Some(p.clone()),
        _ => None,
    }
}

impl Daemon {
    /// The instructions car `car`'s next roll would be decided by, and where they come from.
    fn instructions_of(&self, g: &Game, car: u8) -> (Policy, Origin, Option<u8>) {
        let orders = self.standing.car(&g.setup.id, car).unwrap_or_default();
        let gear = orders.gear.as_ref().map(|q| q.gear);
        let rolled = g.pending_roll(car).is_some();
        if let Some(p) =
            orders.drive.as_ref().filter(|d| d.serves(g, car, rolled)).and_then(|d| parsed("DRIVE", &d.text))
        {
            return (p, Origin::Drive, gear);
        }
        if let Some(p) = orders.policy.as_deref().and_then(|t| parsed("POLICY", t)) {
            return (p, Origin::Policy, gear);
        }
        (parsed("DRIVE", SUGGESTED).unwrap_or_default(), Origin::Suggested, gear)
    }

    /// A round prompt's example DRIVE line and its preview block, for car `car` of `g`.
    pub(super) fn round_prompt(&self, g: &Game, car: u8, lang: Lang) -> (String, String) {
        let fr = lang == Lang::Fr;
        let (policy, origin, gear) = self.instructions_of(g, car);
        let text = if fr { policy.fr() } else { policy.en() };
        let example = format!("{} {text}", if fr { "PILOTER" } else { "DRIVE" });
        let Some(((id, _), race)) = g.player(car).zip(g.now.race.as_ref()) else { return (example, String::new()) };
        let mut out = String::new();
        let from = match (origin, fr) {
            (Origin::Drive, false) => "your DRIVE for this move",
            (Origin::Drive, true) => "vos consignes PILOTER pour ce coup",
            (Origin::Policy, false) => "your standing POLICY",
            (Origin::Policy, true) => "votre CONSIGNE permanente",
            (Origin::Suggested, false) => "these instructions",
            (Origin::Suggested, true) => "ces consignes",
        };
        if let Some(gear) = gear {
            out.push_str(&if fr {
                format!("Vous avez envoyé VITESSE {gear} pour ce coup (un nouvel ordre du tour la remplace).\n")
            } else {
                format!("You sent GEAR {gear} for this move (a new round order replaces it).\n")
            });
        }
        let explain = if fr {
            format!(
                "PILOTER dit à steward quoi choisir après votre jet : des consignes séparées par SINON, la première qui trouve une option décide ; DEMANDER (ou rien ne convient) : on vous demande après le jet. Avec {from} ({text}), si les voitures avant vous ne bougeaient pas :"
            )
        } else {
            format!(
                "DRIVE tells steward what to choose after your roll: instructions separated by ELSE, the first that finds an option decides; ASK (or nothing fits): you are asked after the roll. With {from} ({text}), if the cars before you did not move:"
            )
        };
        crate::orders::wrap(&mut out, &explain, 0);
        for change in crate::engine::play::gear_changes(&g.track, &race.state, id, &g.rules) {
            let rows = preview::preview(&g.track, &race.state, id, change.to, &g.rules, &policy, lang);
            out.push_str(&summary_line(change.to, &rows, lang));
        }
        (example, crate::judge::report::plurals(&out))
    }

    /// The acknowledgement of every round order the mail queued (`job.queued`), with the
    /// preview of its gear face by face: a note of the receipt, which then goes at once.
    pub(super) fn acknowledge(&mut self, job: &mut Job) -> Result<(), DaemonError> {
        let lang = job.lang;
        let fr = lang == Lang::Fr;
        for (game, car) in std::mem::take(&mut job.queued) {
            let Ok(g) = self.store.load(&game, None) else { continue };
            let orders = self.car_orders(&game, car)?;
            if orders.gear.is_none() && orders.drive.is_none() {
                // Used already: the car moved, and the report says how.
                continue;
            }
            let (policy, origin, gear) = self.instructions_of(&g, car);
            let mut sent = Vec::new();
            if let Some(gear) = gear {
                sent.push(format!("{} {gear}", if fr { "VITESSE" } else { "GEAR" }));
            }
            if origin == Origin::Drive {
                sent.push(format!(
                    "{} {}",
                    if fr { "PILOTER" } else { "DRIVE" },
                    if fr { policy.fr() } else { policy.en() }
                ));
            }
            let r = crate::judge::modes::round(&g);
            let (when, round_no) = match round::place_text(&g, car, lang) {
                Some(p) => (p, r),
                None if fr => ("après le tour en cours".to_string(), r + 1),
                None => ("after the round under way".to_string(), r + 1),
            };
            // Lines within the receipt's 78 columns: the head, each order, the preview.
            let mut text = if fr {
                format!("Reçu pour la voiture {car}, pour le tour de jeu {round_no} :\n  {when}.")
            } else {
                format!("Received for car {car}, for round {round_no}:\n  {when}.")
            };
            for order in &sent {
                let mut lines = String::new();
                crate::orders::wrap(&mut lines, order, 4);
                text.push('\n');
                text.push_str(lines.trim_end());
            }
            match gear {
                None => text.push_str(if fr {
                    "\nEnvoyez aussi VITESSE n : sans elle, on vous demande votre vitesse quand\nvotre tour vient."
                } else {
                    "\nSend GEAR n too: without it you are asked for your gear when your turn comes."
                }),
                Some(gear) => {
                    if let Some(((id, _), race)) = g.player(car).zip(g.now.race.as_ref()) {
                        let rows = preview::preview(&g.track, &race.state, id, gear, &g.rules, &policy, lang);
                        let head = match (origin, fr) {
                            (Origin::Suggested, false) => {
                                "You sent no DRIVE: you will be asked after the roll. With DRIVE FARTHEST-FREE ELSE SAFEST ELSE ASK, if the cars before you did not move, each face of the die would give:"
                            }
                            (Origin::Suggested, true) => {
                                "Vous n'avez pas envoyé PILOTER : on vous demandera après le jet. Avec PILOTER LOIN-GRATUIT SINON SUR SINON DEMANDER, si les voitures avant vous ne bougeaient pas, chaque face du dé donnerait :"
                            }
                            (_, false) => "If the cars before you did not move, each face of the die would give:",
                            (_, true) => "Si les voitures avant vous ne bougeaient pas, chaque face du dé donnerait :",
                        };
                        text.push('\n');
                        crate::orders::wrap(&mut text, head, 0);
                        text.push_str(preview::lines(&rows, lang).trim_end());
                    }
                }
            }
            job.notes.push(crate::judge::report::plurals(&text));
        }
        Ok(())
    }
}

/// One gear of a round prompt's preview: `  GEAR 4 (faces 4-8): to 12.l.3 .. 14.r.1; no wear on
/// 4 face(s), asked on 1`.
fn summary_line(gear: u8, rows: &[(u8, Outcome)], lang: Lang) -> String {
    let fr = lang == Lang::Fr;
    let (Some(lo), Some(hi)) = (rows.first().map(|r| r.0), rows.last().map(|r| r.0)) else { return String::new() };
    let mut free = 0;
    let mut costly = 0;
    let mut asked = 0;
    let mut ends = Vec::new();
    for (_, o) in rows {
        match o {
            Outcome::Takes { text, free: no_cost, .. } => {
                ends.push(text.split(' ').next().unwrap_or_default().to_string());
                if *no_cost {
                    free += 1;
                } else {
                    costly += 1;
                }
            }
            Outcome::Bot => costly += 1,
            Outcome::Asked | Outcome::NoChoice => asked += 1,
        }
    }
    let span = match (ends.first(), ends.last()) {
        (Some(a), Some(b)) if a == b => a.clone(),
        (Some(a), Some(b)) => format!("{a} .. {b}"),
        _ => "-".into(),
    };
    if fr {
        format!("  VITESSE {gear} ({lo}-{hi}) : {span} ; {free} sans usure, {costly} avec, {asked} demandée(s)\n")
    } else {
        format!("  GEAR {gear} ({lo}-{hi}): {span}; {free} free, {costly} with wear, {asked} asked\n")
    }
}
