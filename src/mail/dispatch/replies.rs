//! The mails a job sends: the sender's reply (receipt, help, the reports asked for), every other
//! player's report of each game the job touched, the league news, and the job's own drafts.
//! Split from the orders of a message (`super`).

use super::*;
use crate::mail::compose::Picture;
use crate::mail::limits::{ECHO_BYTES, ECHO_LINES, STRANGER_ECHO_LINES, STRANGER_TEXT, cap_receipt, cap_text};
use crate::mail::secrets::visible;

impl Daemon {
    /// The replies of a job: the sender's (receipt, help, the reports they asked for or that
    /// concern them), every other player's report of each game touched, and the job's own
    /// drafts (welcome, copies, reminders).
    pub(in crate::mail) fn finish_job(
        &mut self,
        job: &mut Job,
        msg: Option<&Incoming>,
    ) -> Result<Vec<Draft>, DaemonError> {
        let mut out = Vec::new();
        let mut sender_text = String::new();
        if msg.is_some() {
            let lines = if job.stranger { STRANGER_ECHO_LINES } else { ECHO_LINES };
            let ctx = serde_json::json!({
                "receipt": cap_receipt(&job.extras.receipt, lines, ECHO_BYTES),
                "applied": job.applied,
                "notes": job.notes,
                "subject": msg.map(|m| m.subject.as_str()).unwrap_or(""),
            });
            sender_text.push_str(&self.templates.render(job.lang, "receipt", ctx)?);
            if job.extras.help {
                sender_text.push('\n');
                sender_text.push_str(&self.templates.render(job.lang, "help", serde_json::json!({}))?);
            }
        }
        let mut sender_got: BTreeSet<String> = BTreeSet::new();
        // The sender's reply answers a prompt when it carries one (`mail::tag`).
        let mut sender_reply_to: Option<String> = None;
        // The subject of the sender's reply when it carries a game's report: the report's own.
        let mut sender_subject: Option<String> = None;
        // The sender's reply shows the picture of the first board it reports.
        let mut sender_picture: Option<Picture> = None;
        let games: Vec<(String, u32)> = job.first.iter().map(|(g, f)| (g.clone(), *f)).collect();
        for (game, first) in games {
            let h = match self.store.open(&game) {
                Ok(h) => h,
                Err(StoreError::NoSuchGame { .. }) => continue,
                Err(source) => return Err(DaemonError::Store { game, source }),
            };
            let g = h.game();
            out.extend(self.league_news(g, first)?);
            crate::site::refresh_if_ended(self.cfg.site.as_deref(), &self.store.dir, g, first);
            let extra: Vec<&str> = job.announce.iter().filter(|(a, _)| *a == game).map(|(_, t)| t.as_str()).collect();
            if g.next_turn() <= first && extra.is_empty() {
                continue;
            }
            let mut recipients: Vec<(String, Option<u8>)> =
                g.now.players.iter().filter(|p| !p.bot).map(|p| (p.address.clone(), Some(p.car))).collect();
            if let Some(creator) = self.standing.game(&game).ok().and_then(|s| s.created_by)
                && !recipients.iter().any(|(a, _)| a.eq_ignore_ascii_case(&creator))
            {
                recipients.push((creator, None));
            }
            // Observers (WATCH): the report without a car, so never a prompt or a token.
            for w in self.watchers(&game) {
                if !recipients.iter().any(|(a, _)| a.eq_ignore_ascii_case(&w)) {
                    recipients.push((w, None));
                }
            }
            for (address, car) in recipients {
                let lang = self.lang_of(&address);
                let text = self.report_text(g, first, car, lang, &extra)?;
                let reply_to = car.and_then(|c| self.prompt_address(g, c));
                if msg.is_some() && address.eq_ignore_ascii_case(&job.sender) {
                    sender_reply_to = sender_reply_to.or(reply_to);
                    sender_picture = sender_picture.or_else(|| board_picture(g, car, lang));
                    sender_text.push('\n');
                    sender_text.push_str(&text);
                    sender_got.insert(game.clone());
                    sender_subject.get_or_insert_with(|| subject(g, car, lang));
                    continue;
                }
                out.push(Draft {
                    to: vec![address],
                    subject: subject(g, car, lang),
                    text,
                    in_reply_to: None,
                    message_id: String::new(),
                    reply_to,
                    picture: board_picture(g, car, lang),
                });
            }
        }
        for t in std::mem::take(&mut job.extras.league) {
            sender_text.push('\n');
            sender_text.push_str(&t);
        }
        for (game, first) in std::mem::take(&mut job.extras.reports) {
            if sender_got.contains(&game) {
                continue;
            }
            let h = self.store.open(&game).map_err(|source| DaemonError::Store { game: game.clone(), source })?;
            let car = h.game().now.players.iter().find(|p| p.address.eq_ignore_ascii_case(&job.sender)).map(|p| p.car);
            sender_reply_to = sender_reply_to.or_else(|| car.and_then(|c| self.prompt_address(h.game(), c)));
            sender_picture = sender_picture.or_else(|| board_picture(h.game(), car, job.lang));
            sender_text.push('\n');
            sender_text.push_str(&self.report_text(h.game(), first, car, job.lang, &[])?);
        }
        if job.stranger {
            sender_text = cap_text(&sender_text, STRANGER_TEXT);
        }
        if let Some(m) = msg {
            let subject = if let Some(s) = sender_subject {
                s
            } else if m.subject.is_empty() {
                "steward".to_string()
            } else if m.subject.to_lowercase().starts_with("re:") {
                m.subject.clone()
            } else {
                format!("Re: {}", m.subject)
            };
            out.insert(
                0,
                Draft {
                    to: vec![m.reply_address().to_string()],
                    subject,
                    text: sender_text,
                    in_reply_to: m.message_id.clone(),
                    message_id: String::new(),
                    reply_to: sender_reply_to,
                    picture: sender_picture.filter(|_| !job.stranger),
                },
            );
        }
        out.append(&mut job.drafts);
        // Nothing a sender wrote leaves with a secret in it; a welcome goes to the address
        // that joined (docs/orders.md).
        for d in &mut out {
            d.subject = visible(&job.secrets.mask(&d.subject));
            d.text = visible(&job.secrets.mask(&d.text));
        }
        out.append(&mut job.secret_drafts);
        Ok(out)
    }

    pub(super) fn report_text(
        &self,
        g: &Game,
        first: u32,
        car: Option<u8>,
        lang: Lang,
        extra: &[&str],
    ) -> Result<String, DaemonError> {
        let mut r = report(g, first, car, lang);
        if let Some(you) = r.you {
            r.reply = self.prompt_address(g, you);
            r.bare = r
                .options
                .strip_prefix("CHOOSE ")
                .or_else(|| r.options.strip_prefix("CHOIX "))
                .unwrap_or(&r.options)
                .to_string();
        }
        for e in extra {
            r.summary = format!("{e}\n{}", r.summary);
        }
        Ok(self.templates.render(lang, "report", &r)?)
    }
}

/// The picture of the board a report to the player of `car` shows ([`crate::mail::report::board_picture`]),
/// with its alternative text in `lang`.
fn board_picture(g: &Game, car: Option<u8>, lang: Lang) -> Option<Picture> {
    let png = crate::mail::report::board_picture(g, car)?;
    let alt = match lang {
        Lang::En => "The board around the car to play, its options lettered as in the text below",
        Lang::Fr => "Le plateau autour de la voiture qui joue, ses options lettrées comme dans le texte ci-dessous",
    };
    Some(Picture { png, alt: alt.into() })
}

/// The subject of a game's report to the player of `car` (none: the game's creator), in
/// `lang`: the game, the car and what is asked of it, and the turn:
/// `[gp1] car 3: your gear (turn 241)`, `[gp1] voiture 3 : annoncez votre vitesse (tour 241)`.
pub(in crate::mail) fn subject(g: &Game, car: Option<u8>, lang: Lang) -> String {
    let fr = lang == Lang::Fr;
    let last = g.turns.last().expect("a game has turn 0");
    let awaited = g.awaited_cars();
    let mine = car.and_then(|c| awaited.iter().find(|(a, _)| *a == c)).map(|(_, choice)| *choice);
    let others: Vec<&(u8, bool)> = awaited.iter().filter(|(a, _)| Some(*a) != car).collect();
    let what = if g.now.over {
        (if fr { "la course est terminée" } else { "the race is over" }).to_string()
    } else if g.now.paused {
        (if fr { "la partie est en pause" } else { "the game is paused" }).to_string()
    } else {
        match mine {
            Some(false) if fr => "annoncez votre vitesse".to_string(),
            Some(false) => "your gear".to_string(),
            Some(true) if fr => "choisissez votre coup".to_string(),
            Some(true) => "your choice of move".to_string(),
            None => {
                let nothing = match (car, fr) {
                    (None, _) => "",
                    (Some(_), true) => "rien à jouer ; ",
                    (Some(_), false) => "nothing to do; ",
                };
                match others.as_slice() {
                    [] if fr => "rien à jouer".to_string(),
                    [] => "nothing to do".to_string(),
                    [(c, true)] if fr => format!("{nothing}la voiture {c} choisit son coup"),
                    [(c, true)] => format!("{nothing}car {c} to choose"),
                    [(c, false)] if fr => format!("{nothing}la voiture {c} annonce sa vitesse"),
                    [(c, false)] => format!("{nothing}car {c} to play"),
                    many => {
                        let cars: Vec<String> = many.iter().map(|(c, _)| c.to_string()).collect();
                        if fr {
                            format!("{nothing}les voitures {} jouent", cars.join(", "))
                        } else {
                            format!("{nothing}cars {} to play", cars.join(", "))
                        }
                    }
                }
            }
        }
    };
    let turn = if fr { "tour" } else { "turn" };
    match car {
        Some(c) if fr => format!("[{}] voiture {c} : {what} ({turn} {})", g.setup.id, last.turn),
        Some(c) => format!("[{}] car {c}: {what} ({turn} {})", g.setup.id, last.turn),
        None => format!("[{}] {what} ({turn} {})", g.setup.id, last.turn),
    }
}
