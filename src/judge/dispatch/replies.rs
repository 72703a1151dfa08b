//! The mails a job sends: the sender's reply (receipt, help, the reports asked for), every other
//! player's report of each game the job touched, the league news, and the job's own drafts.
//! Split from the orders of a message (`super`).

use super::*;
use crate::judge::modes::{self, Mark};
use crate::judge::report::{Boards, report_in};
use crate::judge::standing::{Inflight, ReportPrefs};
use crate::mail::compose::Picture;
use crate::mail::limits::{ECHO_BYTES, ECHO_LINES, STRANGER_ECHO_LINES, STRANGER_TEXT, cap_receipt, cap_text};
use crate::mail::secrets::visible;
use crate::orders::ReportMode;

impl Daemon {
    /// The replies of a job: the sender's (receipt, help, the reports they asked for or that
    /// concern them), every other player's report of each game touched, and the job's own
    /// drafts (welcome, copies, reminders).
    pub(in crate::judge) fn finish_job(
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
                "notes": job.notes.iter().map(|n| crate::orders::wrap_note(n)).collect::<Vec<_>>(),
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
        let mut marks = Vec::new();
        let games: Vec<(String, u32)> = job.first.iter().map(|(g, f)| (g.clone(), *f)).collect();
        // A clean answer's receipt waits for the sender's next mail (`modes::holds`): the
        // games it touched and the sender's car in each, when every one of them holds it.
        let held = match msg {
            Some(_) => self.held_receipt(job, &games)?,
            None => None,
        };
        for (game, first) in games {
            let h = match self.store.open(&game) {
                Ok(h) => h,
                Err(StoreError::NoSuchGame { .. }) => continue,
                Err(source) => return Err(DaemonError::Store { game, source }),
            };
            let g = h.game();
            out.extend(self.league_news(g, first)?);
            crate::site::refresh_after_job(self.cfg.site.as_deref(), &self.store.dir, g, first);
            let mut extra: Vec<&str> =
                job.announce.iter().filter(|(a, _)| *a == game).map(|(_, t)| t.as_str()).collect();
            // Only what every player must hear makes a mail of its own; a quiet line (a default
            // move at a deadline) rides in the mails that go anyway (issue 46).
            let loud = !extra.is_empty();
            extra.extend(job.quiet.iter().filter(|(a, _)| *a == game).map(|(_, t)| t.as_str()));
            if g.next_turn() <= first && extra.is_empty() {
                continue;
            }
            let mut recipients: Vec<(String, Option<u8>)> =
                g.now.players.iter().filter(|p| !p.bot).map(|p| (p.address.clone(), Some(p.car))).collect();
            let mut creator = None;
            if let Some(c) = self.standing.game(&game).ok().and_then(|s| s.created_by)
                && !recipients.iter().any(|(a, _)| a.eq_ignore_ascii_case(&c))
            {
                creator = Some(c.clone());
                recipients.push((c, None));
            }
            // Observers (WATCH): the report without a car, so never a prompt or a token; only
            // when the game moved: an announcement alone (a new observer...) goes to the
            // players, so that N observers joining make N mails to each player, not N² in all
            // (issue 45, item 6: 300 WATCHes made 46,350 mails).
            let moved = g.next_turn() > first;
            for w in self.watchers(&game).into_iter().filter(|_| moved) {
                if !recipients.iter().any(|(a, _)| a.eq_ignore_ascii_case(&w)) {
                    recipients.push((w, None));
                }
            }
            for (address, car) in recipients {
                let lang = self.lang_of(&address);
                let own = msg.is_some() && address.eq_ignore_ascii_case(&job.sender);
                if own && let (Some(cars), Some(car)) = (&held, car) {
                    let key = format!("{game}/{car}");
                    if cars.contains(&key) {
                        let (mut prefs, before) = self.report_mark(&job.marks, g, first, car)?;
                        job.marks.entry(key).or_insert(before.clone());
                        let receipt = visible(&job.secrets.mask(&sender_text));
                        prefs.mark = Some(before.holding(&receipt));
                        marks.push((game.clone(), car, prefs));
                        continue;
                    }
                }
                let text = match car {
                    // Each player's report mode (docs/daemon.md, "When reports go").
                    Some(car) => {
                        match self.mode_report(&mut job.marks, g, first, car, lang, (&extra, loud), own, &mut marks)? {
                            Some(text) => text,
                            None => continue,
                        }
                    }
                    // The game's creator: a digest a round, and a mail when something needs them
                    // (issue 46); the reply to their own mail always tells.
                    None if creator.as_deref().is_some_and(|c| c.eq_ignore_ascii_case(&address)) => {
                        match self.creator_report(&mut job.marks, g, first, lang, (&extra, loud), own, &mut marks)? {
                            Some(text) => text,
                            None => continue,
                        }
                    }
                    // An observer: the report, and the line that stops it, with the code only
                    // the observer's own address is mailed (issue 45).
                    None => {
                        let mut text = self.report_with(g, first, car, lang, &extra, None)?;
                        let code = self.unwatch_code(&game, &address);
                        text.push_str(&tr(
                            lang,
                            &format!("\nTo stop watching this game, send: UNWATCH {game} CONFIRM {code}\n"),
                            &format!(
                                "\nPour ne plus suivre cette partie, envoyez : NE-PLUS-SUIVRE {game} CONFIRMER {code}\n"
                            ),
                        ));
                        text
                    }
                };
                let reply_to = car.and_then(|c| self.prompt_address(g, c));
                if own {
                    sender_reply_to = sender_reply_to.or(reply_to);
                    sender_picture = sender_picture.or_else(|| board_picture(&self.boards, g, car, lang));
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
                    picture: board_picture(&self.boards, g, car, lang),
                });
            }
        }
        self.write_marks(job, marks)?;
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
            sender_picture = sender_picture.or_else(|| board_picture(&self.boards, h.game(), car, job.lang));
            sender_text.push('\n');
            sender_text.push_str(&self.report_with(h.game(), first, car, job.lang, &[], None)?);
        }
        if job.stranger {
            sender_text = cap_text(&sender_text, STRANGER_TEXT);
        }
        if let Some(m) = msg.filter(|_| held.is_none()) {
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

    /// Car `car`'s player's report of `g` in their mode, if this job sends them one: `ALL`,
    /// today's full report from `first`; the other modes, a condensed report of everything
    /// since the player's previous mail. The new mark goes to `marks` (written by
    /// [`Daemon::write_marks`]); the mark it replaces is kept in `before_job` (the job's marks).
    #[allow(clippy::too_many_arguments)]
    fn mode_report(
        &self,
        before_job: &mut std::collections::BTreeMap<String, Mark>,
        g: &Game,
        first: u32,
        car: u8,
        lang: Lang,
        (extra, loud): (&[&str], bool),
        own: bool,
        marks: &mut Vec<(String, u8, ReportPrefs)>,
    ) -> Result<Option<String>, DaemonError> {
        let game = &g.setup.id;
        let (mut prefs, before) = self.report_mark(before_job, g, first, car)?;
        let mode = modes::mode_in(prefs.mode.as_deref(), g);
        let key = format!("{game}/{car}");
        if !modes::due(mode, g, car, &before, own, loud) {
            return Ok(None);
        }
        let mut text = if mode == ReportMode::All {
            self.report_with(g, first, Some(car), lang, extra, None)?
        } else {
            let condensed = modes::condensed(g, before.turn + 1);
            self.report_with(g, before.turn + 1, Some(car), lang, extra, Some(condensed))?
        };
        // The receipts held since the player's previous mail come first.
        if !before.held.is_empty() {
            text = format!("{}\n{text}", before.held);
        }
        before_job.entry(key).or_insert(before);
        prefs.mark = Some(modes::mark_now(g, car));
        marks.push((game.clone(), car, prefs));
        Ok(Some(text))
    }

    /// The game's creator's report of `g`, if this job sends one: in the `ROUND` mode, a
    /// condensed digest of everything since their previous mail when a round ends, the race
    /// starts or ends, or the job announces something (a default move at a deadline, a
    /// moderator's act). Their mark is kept as car 0's (no car has that number).
    #[allow(clippy::too_many_arguments)]
    fn creator_report(
        &self,
        before_job: &mut std::collections::BTreeMap<String, Mark>,
        g: &Game,
        first: u32,
        lang: Lang,
        (extra, loud): (&[&str], bool),
        own: bool,
        marks: &mut Vec<(String, u8, ReportPrefs)>,
    ) -> Result<Option<String>, DaemonError> {
        let game = &g.setup.id;
        let (mut prefs, before) = self.report_mark(before_job, g, first, 0)?;
        if !modes::due(ReportMode::Round, g, 0, &before, own, loud) {
            return Ok(None);
        }
        let condensed = modes::condensed(g, before.turn + 1);
        let text = self.report_with(g, before.turn + 1, None, lang, extra, Some(condensed))?;
        before_job.entry(format!("{game}/0")).or_insert(before);
        prefs.mark = Some(modes::mark_now(g, 0));
        marks.push((game.clone(), 0, prefs));
        Ok(Some(text))
    }

    /// Car `car`'s player's report preferences and the mark their previous mail left: the
    /// mark as it was before this job (`before_job`, kept across a crash), else the one kept,
    /// else the job's first turn.
    fn report_mark(
        &self,
        before_job: &std::collections::BTreeMap<String, Mark>,
        g: &Game,
        first: u32,
        car: u8,
    ) -> Result<(ReportPrefs, Mark), DaemonError> {
        let game = &g.setup.id;
        let prefs = self.standing.reports(game, car).map_err(io("reading report modes"))?;
        let before = match before_job.get(&format!("{game}/{car}")) {
            Some(m) => m.clone(),
            None => prefs.mark.clone().unwrap_or_else(|| Mark {
                turn: first.saturating_sub(1),
                round: modes::round(g),
                asked: None,
                held: String::new(),
            }),
        };
        Ok((prefs, before))
    }

    /// When the sender's mail was clean (accepted, no note, nothing else asked) and every
    /// game it touched holds its receipt for the sender's next mail (`modes::holds`): those
    /// games' `<game>/<car>` keys. `None`: the reply goes now.
    fn held_receipt(&self, job: &Job, games: &[(String, u32)]) -> Result<Option<BTreeSet<String>>, DaemonError> {
        let clean = !job.stranger
            && job.applied
            && job.notes.is_empty()
            && !job.extras.help
            && job.extras.league.is_empty()
            && job.extras.reports.is_empty()
            && job.drafts.is_empty()
            && job.secret_drafts.is_empty();
        if !clean || games.is_empty() {
            return Ok(None);
        }
        let mut keys = BTreeSet::new();
        for (game, first) in games {
            let h = match self.store.open(game) {
                Ok(h) => h,
                Err(StoreError::NoSuchGame { .. }) => return Ok(None),
                Err(source) => return Err(DaemonError::Store { game: game.clone(), source }),
            };
            let g = h.game();
            let Some(p) = g.now.players.iter().find(|p| !p.bot && p.address.eq_ignore_ascii_case(&job.sender)) else {
                return Ok(None);
            };
            let announced = job.announce.iter().any(|(a, _)| a == game);
            let (prefs, before) = self.report_mark(&job.marks, g, *first, p.car)?;
            let mode = modes::mode_in(prefs.mode.as_deref(), g);
            if g.next_turn() <= *first || !modes::holds(mode, g, p.car, &before, announced) {
                return Ok(None);
            }
            keys.insert(format!("{game}/{}", p.car));
        }
        Ok(Some(keys))
    }

    /// Writes the players' new report marks, once the marks they replace are in
    /// `inflight.toml`: a job processed again after a crash decides on the old ones.
    fn write_marks(&mut self, job: &Job, marks: Vec<(String, u8, ReportPrefs)>) -> Result<(), DaemonError> {
        if marks.is_empty() {
            return Ok(());
        }
        let inflight = Inflight { key: job.key.clone(), first: job.first.clone(), marks: job.marks.clone() };
        self.standing.set_inflight(&inflight).map_err(io("writing inflight.toml"))?;
        for (game, car, prefs) in marks {
            self.standing.set_reports(&game, car, &prefs).map_err(io("writing a report mark"))?;
        }
        Ok(())
    }

    /// The report of `g` from turn `first` for the player of `car` in `lang`, the job's
    /// announcements `extra` above it; its summary replaced by `summary` when given (a report
    /// mode's condensed summary, `mail::modes`).
    fn report_with(
        &self,
        g: &Game,
        first: u32,
        car: Option<u8>,
        lang: Lang,
        extra: &[&str],
        summary: Option<String>,
    ) -> Result<String, DaemonError> {
        let mut r = report_in(g, first, car, lang, Some(&self.boards));
        if let Some(s) = summary {
            let s = if lang == Lang::Fr { crate::words::french::summary(&s) } else { s };
            r.summary = crate::judge::report::plurals(&s);
        }
        if let Some(iso) = g.turns.last().and_then(|t| t.due.clone()) {
            // The status line under the board reads its deadline as the prompt does: the
            // weekday, the reader's time, UTC beside it (issue 46).
            let address = car.and_then(|c| g.player(c)).map(|(_, p)| p.address.clone());
            let human = self.due_for(address.as_deref(), g, &iso, lang);
            r.awaited = r.awaited.replace(&iso, &human);
        }
        if let Some(you) = r.you {
            let address = g.player(you).map(|(_, p)| p.address.clone());
            r.due = r.due.as_deref().map(|d| self.due_for(address.as_deref(), g, d, lang));
            if !r.round.is_empty() {
                (r.drive_example, r.drive) = self.round_prompt(g, you, lang);
            }
            r.reply = self.prompt_address(g, you);
            r.bare = r
                .options
                .strip_prefix("CHOOSE ")
                .or_else(|| r.options.strip_prefix("CHOIX "))
                .unwrap_or(&r.options)
                .to_string();
        }
        for e in extra {
            // The daemon's announcements, in the recipient's language (`templates/fr/events.toml`).
            let e = if lang == Lang::Fr { crate::words::french::summary(e) } else { e.to_string() };
            r.summary = format!("{e}\n{}", r.summary);
        }
        Ok(self.templates.render(lang, "report", &r)?)
    }
}

/// The picture of the board a report to the player of `car` shows ([`crate::judge::report::board_picture`]),
/// with its alternative text in `lang`, drawn once for the players of one position.
fn board_picture(boards: &Boards, g: &Game, car: Option<u8>, lang: Lang) -> Option<Picture> {
    let png = boards.picture(g, car)?;
    let alt = match lang {
        Lang::En => "The board around the car to play, its options lettered as in the text below",
        Lang::Fr => "Le plateau autour de la voiture qui joue, ses options lettrées comme dans le texte ci-dessous",
    };
    Some(Picture { png, alt: alt.into() })
}

/// The subject of a game's report to the player of `car` (none: the game's creator), in
/// `lang`: the game, the car and what is asked of it, and the turn:
/// `[gp1] car 3: your gear (turn 241)`, `[gp1] voiture 3 : annoncez votre vitesse (tour 241)`.
pub(in crate::judge) fn subject(g: &Game, car: Option<u8>, lang: Lang) -> String {
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
        let round = car.is_some_and(|c| crate::judge::round::asked(g, c));
        match mine {
            _ if round && fr => "votre ordre du tour".to_string(),
            _ if round => "your round order".to_string(),
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
