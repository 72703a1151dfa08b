//! Signed reply addresses in the dispatch (`mail::tag`, docs/daemon.md "Reply addresses"): the
//! address a prompt is answered at, the tag a mail was sent to, and what a verified tag stands
//! for in a mail's header (its GAME, CAR and TURN; the car's own answers only).

use super::*;
use crate::mail::tag::{ReplyTag, TagError, tag_in};

impl Daemon {
    /// The signed reply address of a prompt to car `car` of `g` at its last turn: `None` unless
    /// the car is awaited (its gear or its choice) in a game neither paused nor over, or when
    /// the daemon's address leaves no room for a tag.
    pub(in crate::judge) fn prompt_address(&self, g: &Game, car: u8) -> Option<String> {
        // A prompt: an answer awaited, or a round order asked (issue 46).
        if g.now.over || g.now.paused || crate::judge::modes::prompt(g, car).is_none() {
            return None;
        }
        let turn = g.next_turn().checked_sub(1)?;
        self.tag_key.address(&self.cfg.address, &g.setup.id, car, turn)
    }

    /// The tag of the first of the mail's recipients that is a tagged daemon address: verified,
    /// or why it is refused (a valid one wins over a refused one).
    pub(in crate::judge) fn reply_tag(&self, msg: &Incoming) -> Option<Result<ReplyTag, TagError>> {
        let mut refused = None;
        for a in &msg.recipients {
            let Some(tag) = tag_in(&self.cfg.address, a) else { continue };
            let games = if tag.starts_with('_') { self.store.list().unwrap_or_default() } else { Vec::new() };
            match self.tag_key.verify(&tag, &games) {
                Ok(t) => return Some(Ok(t)),
                Err(e) => refused = refused.or(Some(e)),
            }
        }
        refused.map(Err)
    }

    /// What the job's tag says in the mail's header: a verified tag gives GAME, CAR and TURN
    /// (lines of the mail that say otherwise refuse the mail), a refused one a note and
    /// nothing else (the mail reads as sent to the plain address). `Err` when nothing may be
    /// applied.
    pub(super) fn apply_tag(&self, job: &mut Job, head: &mut Header, actions: &[&Order]) -> Result<(), String> {
        let lang = job.lang;
        match &job.tag {
            None => Ok(()),
            Some(Err(e)) => {
                let what = match e {
                    TagError::Malformed(a) | TagError::BadMac(a) => a.clone(),
                };
                job.notes.push(tr(
                    lang,
                    &format!(
                        "This mail was sent to the reply address `{what}`, which steward did not make (altered, or from another steward): it does not stand for a car. Reply to your latest report, or write GAME, CAR, TOKEN and TURN lines."
                    ),
                    &format!(
                        "Ce message a été envoyé à l'adresse de réponse `{what}`, qui n'est pas de steward (modifiée, ou d'un autre steward) : elle ne vaut pour aucune voiture. Répondez à votre dernier rapport, ou écrivez les lignes PARTIE, VOITURE, JETON et TOUR."
                    ),
                ));
                Ok(())
            }
            Some(Ok(t)) => {
                let t = t.clone();
                let disagree = head.game.as_ref().is_some_and(|g| *g != t.game)
                    || head.car.is_some_and(|c| c != t.car)
                    || head.turn.is_some_and(|n| n != t.turn);
                if disagree {
                    return Err(tr(
                        lang,
                        &format!(
                            "This mail answers car {}'s prompt of turn {} in game {} (the address it was sent to), but its GAME, CAR or TURN lines say otherwise. Nothing was applied: reply with the answer alone, or write to the plain address.",
                            t.car, t.turn, t.game
                        ),
                        &format!(
                            "Ce message répond à la demande du tour {} à la voiture {} de la partie {} (l'adresse à laquelle il a été envoyé), mais ses lignes PARTIE, VOITURE ou TOUR disent autre chose. Rien n'a été appliqué : répondez avec la réponse seule, ou écrivez à l'adresse simple.",
                            t.turn, t.car, t.game
                        ),
                    ));
                }
                // A reply address answers its own prompt and nothing else (issue 45, items 1
                // and 2): anything that changes the car's standing (RETIRE, ABSENT, POLICY,
                // WATCH...) needs the car's token.
                let answers = |o: &&Order| {
                    matches!(
                        o,
                        Order::Gear(_)
                            | Order::Drive(_)
                            | Order::Lap(_)
                            | Order::Choose(_)
                            | Order::Pit { .. }
                            | Order::Reroll
                            | Order::Help
                            | Order::Board
                            | Order::History(_)
                            | Order::Standings
                    )
                };
                if head.token.is_none() && actions.iter().any(|o| !answers(o)) {
                    return Err(tr(
                        lang,
                        "A reply address answers its prompt only (GEAR, CHOOSE, PIT, REROLL): every other order (POLICY, RETIRE, ABSENT, WATCH, JOIN, LANG...) needs your TOKEN line. Nothing was applied.",
                        "Une adresse de réponse sert à répondre à sa demande seulement (VITESSE, CHOIX, STAND, RELANCER) : tout autre ordre (CONSIGNE, ABANDON, ABSENT, SUIVRE, REJOINDRE, LANGUE...) demande votre ligne JETON. Rien n'a été appliqué.",
                    ));
                }
                head.game = Some(t.game);
                head.car = Some(t.car);
                head.turn = Some(t.turn);
                head.tag = true;
                Ok(())
            }
        }
    }

    /// Why a tag for car `car` answering turn `turn` stands for nothing any more: its prompt was
    /// answered (an order of the car, or its move played by a bot or a moderator, at a later
    /// turn made by another mail). A reply address answers its own prompt while it is open,
    /// nothing else (issue 45, item 2): an answered choice prompt's address must not set the
    /// car's next gear.
    pub(super) fn answered_since(job: &Job, g: &Game, car: u8, turn: u32) -> Result<(), String> {
        let answered = g.turns.iter().skip(turn as usize + 1).find(|t| {
            t.source.as_ref().and_then(|s| s.message_id.as_deref()) != Some(job.mid.as_str())
                && (t.orders.iter().any(|o| o.car == car) || t.player.as_ref().is_some_and(|p| p.car == car))
        });
        match answered {
            None => Ok(()),
            Some(t) => Err(tr(
                job.lang,
                &format!(
                    "Stale order: this reply address answers car {car}'s prompt of turn {turn}, which was answered at turn {}. Nothing was applied: reply to your latest report, or write CAR and TOKEN lines.",
                    t.turn
                ),
                &format!(
                    "Ordre périmé : cette adresse de réponse répond à la demande du tour {turn} à la voiture {car}, déjà répondue au tour {}. Rien n'a été appliqué : répondez à votre dernier rapport, ou écrivez les lignes VOITURE et JETON.",
                    t.turn
                ),
            )),
        }
    }

    /// Why a tag for car `car` answering turn `turn` no longer stands for the car's player: the
    /// car was given to another player (`REPLACE`) after that turn.
    pub(super) fn replaced_since(job: &Job, g: &Game, car: u8, turn: u32) -> Result<(), String> {
        let replaced = g.turns.iter().skip(turn as usize + 1).find(
            |t| matches!(&t.moderation, Some(crate::store::files::Moderation::Replace { car: c, .. }) if *c == car),
        );
        match replaced {
            None => Ok(()),
            Some(t) => Err(tr(
                job.lang,
                &format!(
                    "Stale order: this reply address answers turn {turn}, but car {car} was given to another player at turn {}. Nothing was applied.",
                    t.turn
                ),
                &format!(
                    "Ordre périmé : cette adresse de réponse répond au tour {turn}, mais la voiture {car} a été confiée à un autre joueur au tour {}. Rien n'a été appliqué.",
                    t.turn
                ),
            )),
        }
    }
}
