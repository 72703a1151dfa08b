//! From a message's orders to the store's driver calls, and from the turns they make to the
//! replies. Authentication (a player's token, a moderator's address and token), stale orders
//! (`TURN`), gears sent ahead of time, standing policies, bot cars and the deadline default
//! moves all live here.

mod driving;
mod entry;
mod judge;
mod moderator;
mod replies;
mod round;
mod tagged;
mod unasked;

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use crate::engine::MoveOption;
use crate::engine::weather::Forecast;
use crate::store::files::{Kind, PitRecord, Source, TurnFile};
use crate::store::hash::sha256_hex;
use crate::store::qualifying::GridMethod;
use crate::store::{By, Game, Handle, Join, Meta, Moderation, NewGame, Stamp, StoreError};

use crate::judge::config::moderator_token_hash;
use crate::judge::service::{Daemon, DaemonError, Failure, Job, OwnerCopy, io, store_failure};
use crate::judge::standing::{QueuedDrive, QueuedGear};
use crate::mail::compose::Draft;
use crate::mail::limits::MAX_ORDERS;
use crate::mail::message::Incoming;
use crate::orders;
use crate::orders::ReportMode;
use crate::orders::policy::{Decision, decide_with};
use crate::orders::{Order, Parsed, receipt};
use crate::words::Lang;

/// Most moves the daemon plays in a row for bots and standing orders before it lets the next
/// message in (a race of bots plays on at the next pass).
const MAX_CASCADE: usize = 5000;

/// The header lines of a message: who and what it is about.
#[derive(Default)]
struct Header {
    game: Option<String>,
    car: Option<u8>,
    token: Option<String>,
    turn: Option<u32>,
    /// GAME, CAR and TURN come from the signed reply address the mail was sent to (`tagged`).
    tag: bool,
}

/// What a JOIN message says about the car besides the JOIN line: `SETUP`, `TYRES`, `BOXES`.
struct JoinSheet {
    wear: Option<crate::engine::Wear>,
    tyres: Option<(crate::engine::Tyres, Option<crate::engine::Tyres>)>,
    boxes: Option<Vec<u8>>,
}

impl Header {
    fn of(orders: &[&Order]) -> Header {
        let mut h = Header::default();
        for o in orders {
            match o {
                Order::Game(g) => h.game = Some(g.clone()),
                Order::Car(c) => h.car = Some(*c),
                Order::Token(t) => h.token = Some(t.clone()),
                Order::Turn(n) => h.turn = Some(*n),
                Order::Join { game, .. } if h.game.is_none() => h.game = Some(game.clone()),
                Order::Create { game, .. } if h.game.is_none() => h.game = Some(game.clone()),
                _ => {}
            }
        }
        h
    }
}

fn tr(lang: Lang, en: &str, fr: &str) -> String {
    if lang == Lang::Fr { fr.to_string() } else { en.to_string() }
}

impl Daemon {
    fn meta(&mut self, job: &Job, by: Option<&str>) -> Meta {
        let imap_uid = job.key.split_once(':').and_then(|(_, u)| u.parse().ok()).filter(|_| !job.key.contains('/'));
        Meta {
            at: self.now(),
            source: Some(Source {
                from: (!job.sender.is_empty()).then(|| job.sender.clone()),
                message_id: Some(job.mid.clone()),
                imap_uid: if job.sender.is_empty() { None } else { imap_uid },
                by: by.map(str::to_string),
            }),
        }
    }

    /// A token derived from the daemon's secret, the game, the message and the purpose: the
    /// same message gives the same token, so a reply rewritten after a crash still works.
    pub(super) fn derive_token(&self, game: &str, mid: &str, purpose: &str) -> String {
        let mut h = Sha256::new();
        h.update(b"steward-player-token-v1");
        for part in [&self.secret[..], game.as_bytes(), mid.as_bytes(), purpose.as_bytes()] {
            h.update((part.len() as u32).to_be_bytes());
            h.update(part);
        }
        hex::encode(&h.finalize()[..12])
    }

    /// A code that only `address` learns, for `purpose` in `game` (a JOIN's or a WATCH's
    /// confirmation): derived from the daemon's secret, so it needs no state (issue 45).
    pub(super) fn address_code(&self, game: &str, purpose: &str, address: &str) -> String {
        self.derive_token(game, purpose, &address.to_lowercase())[..8].to_string()
    }

    /// A mail to the sender's From address alone, never to a Reply-To (anyone may write one):
    /// for a confirmation code only the address itself may read (issue 45).
    pub(super) fn mail_sender_only(job: &mut Job, subject: String, text: String, in_reply_to: Option<String>) {
        job.secret_drafts.push(Draft {
            to: vec![job.sender.clone()],
            subject,
            text,
            in_reply_to,
            message_id: String::new(),
            reply_to: None,
            picture: None,
        });
    }

    fn open(&self, game: &str, lang: Lang) -> Result<Handle, Failure> {
        self.store.open(game).map_err(|e| match e {
            StoreError::NoSuchGame { .. } => Failure::Note(crate::say!(lang, "refusal.no_game", game = game)),
            e => store_failure(game, lang)(e),
        })
    }

    /// Reads the message's orders and applies them (`job.extras` gets the receipt).
    pub(super) fn handle(&mut self, job: &mut Job, msg: &Incoming, parsed: &Parsed) -> Result<(), DaemonError> {
        let all = parsed.orders();
        let wanted = all.iter().rev().find_map(|o| if let Order::Lang(l) = o { Some(*l) } else { None });
        if let Some(l) = wanted {
            job.lang = l;
        }
        self.handle_orders(job, msg, parsed)?;
        if let Some(mode) = all.iter().rev().find_map(|o| if let Order::Reports(m) = o { Some(*m) } else { None }) {
            self.set_report_mode(job, &Header::of(&all), mode)?;
        }
        if let Some(zone) =
            all.iter().rev().find_map(|o| if let Order::TimeZone(z) = o { Some(z.clone()) } else { None })
        {
            // Kept as LANG is, for a sender who proved who they are (issue 46: deadlines in the
            // player's own time zone).
            let head = Header::of(&all);
            let by_join_only = !self.is_moderator(&job.sender, head.token.as_deref()) && head.token.is_none();
            let known = by_join_only
                && (self.standing.zone(&job.sender).map_err(io("reading a time zone"))?.is_some_and(|z| z != zone)
                    || self.plays_elsewhere(&job.sender, head.game.as_deref()));
            if !known && self.signed_on(job, &head) {
                self.standing.set_zone(&job.sender, &zone).map_err(io("writing a time zone"))?;
                job.notes.push(tr(
                    job.lang,
                    &format!("TIMEZONE {zone} kept: your deadlines are written in that time zone, with UTC beside it."),
                    &format!("FUSEAU {zone} gardé : vos délais sont écrits dans ce fuseau, avec l'heure UTC à côté."),
                ));
            } else {
                job.notes.push(tr(
                    job.lang,
                    "TIMEZONE was not kept: send it with your GAME, CAR and TOKEN lines (or with your JOIN, from an address new to steward).",
                    "FUSEAU n'a pas été gardé : envoyez-le avec vos lignes PARTIE, VOITURE et JETON (ou avec votre REJOINDRE, d'une adresse nouvelle pour steward).",
                ));
            }
        }
        // A preference is kept only for a sender who proved who they are: From can be forged,
        // and a LANG must not change another player's language (docs/orders.md).
        if let Some(l) = wanted {
            // A JOIN proves nothing about who sent it (From can be forged): with only a JOIN,
            // a LANG sets the language of an address new to steward (no language kept, no car
            // in another game), never another player's (issue 45, item 4: a forged `JOIN` with
            // `LANG fr` changed a player's language in every game).
            let head = Header::of(&all);
            let by_join_only = !self.is_moderator(&job.sender, head.token.as_deref()) && head.token.is_none();
            let known = by_join_only
                && (self.standing.lang(&job.sender).map_err(io("reading a language"))?.is_some_and(|h| h != l.code())
                    || self.plays_elsewhere(&job.sender, head.game.as_deref()));
            if known {
                job.notes.push(tr(
                    job.lang,
                    "LANG changed this reply only: this address already plays with steward, and a JOIN alone does not change its language. Send LANG with your GAME, CAR and TOKEN lines.",
                    "LANGUE vaut pour cette réponse seulement : cette adresse joue déjà avec steward, et un REJOINDRE seul ne change pas sa langue. Envoyez LANGUE avec vos lignes PARTIE, VOITURE et JETON.",
                ));
            } else if self.signed_on(job, &head) {
                self.standing.set_lang(&job.sender, l.code()).map_err(io("writing a language"))?;
            } else {
                job.notes.push(tr(
                    job.lang,
                    "LANG changed this reply only: to keep it, send it with your GAME, CAR and TOKEN lines (or with your JOIN).",
                    "LANGUE vaut pour cette réponse seulement : pour la garder, envoyez-la avec vos lignes PARTIE, VOITURE et JETON (ou avec votre REJOINDRE).",
                ));
            }
        }
        Ok(())
    }

    /// `REPORTS <mode>`: kept for the sender's car when the mail proves who sent it, as `LANG`
    /// is (GAME, CAR and TOKEN, or the JOIN of the same mail); a note says what it does.
    fn set_report_mode(&mut self, job: &mut Job, head: &Header, mode: ReportMode) -> Result<(), DaemonError> {
        let signed = self.signed_on(job, head);
        let found = head.game.as_ref().filter(|_| signed).and_then(|game| {
            let g = self.store.load(game, None).ok()?;
            let mine = |c: &u8| g.player(*c).is_some_and(|(_, p)| p.address.eq_ignore_ascii_case(&job.sender));
            let car = head.car.filter(mine).or_else(|| {
                g.now.players.iter().find(|p| p.address.eq_ignore_ascii_case(&job.sender)).map(|p| p.car)
            })?;
            Some((game.clone(), car))
        });
        let Some((game, car)) = found else {
            job.notes.push(tr(
                job.lang,
                "REPORTS was not kept: send it with your GAME, CAR and TOKEN lines (or with your JOIN).",
                "COURRIER n'a pas été gardé : envoyez-le avec vos lignes PARTIE, VOITURE et JETON (ou avec votre REJOINDRE).",
            ));
            return Ok(());
        };
        let mut prefs = self.standing.reports(&game, car).map_err(io("reading report modes"))?;
        prefs.mode = Some(mode.code().to_string());
        self.standing.set_reports(&game, car, &prefs).map_err(io("writing a report mode"))?;
        let word = mode.word(job.lang);
        let what = mode.explain(job.lang);
        job.notes.push(tr(
            job.lang,
            &format!("REPORTS {word} kept for car {car} in game {game}: {what}."),
            &format!("COURRIER {word} gardé pour la voiture {car} dans la partie {game} : {what}."),
        ));
        job.applied = true;
        Ok(())
    }

    /// Whether `address` drives a car in a game other than `joined`.
    fn plays_elsewhere(&self, address: &str, joined: Option<&str>) -> bool {
        self.store.list().unwrap_or_default().iter().filter(|id| Some(id.as_str()) != joined).any(|id| {
            self.store
                .load(id, None)
                .is_ok_and(|g| g.now.players.iter().any(|p| p.address.eq_ignore_ascii_case(address)))
        })
    }

    /// Whether the mail proves its sender: a moderator's token from the moderator's address,
    /// the token of a car registered at the sender's address, or a JOIN this mail applied.
    fn signed_on(&self, job: &Job, head: &Header) -> bool {
        if self.is_moderator(&job.sender, head.token.as_deref()) {
            return true;
        }
        let Some(game) = &head.game else { return false };
        let Ok(g) = self.store.load(game, None) else { return false };
        if Self::done_before(&g, &job.mid, Kind::Join, None) {
            return true;
        }
        let (Some(car), Some(token)) = (head.car, head.token.as_deref()) else { return false };
        g.player(car).is_some_and(|(_, p)| {
            p.address.eq_ignore_ascii_case(&job.sender)
                && p.token_sha256 == crate::store::hash::token_hash(&g.setup.id, token)
        })
    }

    /// The orders of `handle`, the language of the reply chosen.
    fn handle_orders(&mut self, job: &mut Job, msg: &Incoming, parsed: &Parsed) -> Result<(), DaemonError> {
        job.extras.receipt = receipt(parsed, job.lang);
        if !parsed.is_ok() {
            return Ok(());
        }
        let all = parsed.orders();
        let mut head = Header::of(&all);
        let actions: Vec<&Order> = all
            .iter()
            .copied()
            .filter(|o| !o.is_header() && !matches!(o, Order::Lang(_) | Order::Reports(_) | Order::TimeZone(_)))
            .collect();
        if let Err(note) = self.apply_tag(job, &mut head, &actions) {
            job.notes.push(note);
            return Ok(());
        }
        if actions.is_empty() {
            if !all.iter().any(|o| matches!(o, Order::Lang(_) | Order::Reports(_) | Order::TimeZone(_))) {
                job.extras.help = true;
            }
            return Ok(());
        }
        if actions.len() > MAX_ORDERS {
            job.notes.push(tr(
                job.lang,
                &format!("This mail has {} orders; one mail may give at most {MAX_ORDERS}. Nothing was applied.", actions.len()),
                &format!("Ce message contient {} ordres ; un message peut en donner au plus {MAX_ORDERS}. Rien n'a été appliqué.", actions.len()),
            ));
            return Ok(());
        }
        if actions.iter().any(|o| o.is_moderator())
            && !self.is_moderator(&job.sender, head.token.as_deref())
            && !(actions.iter().all(|o| !matches!(o, Order::Create { .. } | Order::League { .. }))
                && self.is_referee(&job.sender, head.token.as_deref(), head.game.as_deref()))
        {
            job.notes.push(tr(
                job.lang,
                "Only a moderator may give CREATE, START, PAUSE, RESUME, DEADLINE, REPLACE, FORCE, REVEAL, ROLLBACK, OBSERVERS or a LEAGUE edit, from the moderator's address with the moderator's TOKEN (a league race's referee: all but CREATE and LEAGUE, with their own CAR and TOKEN). Nothing was applied.",
                "Seul un modérateur peut donner CREER, DEMARRER, PAUSE, REPRENDRE, DELAI, REMPLACER, FORCER, REVELER, REVENIR, OBSERVATEURS ou une modification de LIGUE, depuis son adresse avec son JETON (l'arbitre d'une course de ligue : tout sauf CREER et LIGUE, avec sa VOITURE et son JETON). Rien n'a été appliqué.",
            ));
            return Ok(());
        }
        if let Some(why) = self.drives_and_moderates(job, &head, &actions) {
            job.notes.push(why);
            return Ok(());
        }
        let sheet = JoinSheet {
            wear: actions.iter().find_map(|o| if let Order::Setup(w) = o { Some(*w) } else { None }),
            tyres: actions
                .iter()
                .find_map(|o| if let Order::Tyres { dry, wet } = o { Some((*dry, *wet)) } else { None }),
            boxes: actions.iter().find_map(|o| if let Order::Boxes(b) = o { Some(b.clone()) } else { None }),
        };
        let mut touched = BTreeSet::new();
        let mut refusal = None;
        for o in &actions {
            match self.act(job, msg, &head, o, &sheet) {
                Ok(Some(game)) => {
                    touched.insert(game);
                }
                Ok(None) => {}
                Err(Failure::Note(note)) => {
                    refusal = Some(note.clone());
                    job.notes.push(note);
                    break;
                }
                Err(Failure::System(e)) => return Err(e),
            }
        }
        self.mail_copies(job, refusal.as_deref());
        for g in touched {
            self.cascade(job, &g)?;
        }
        self.acknowledge(job)?;
        Ok(())
    }

    /// Ruling 52: nobody moderates a race they drive in. A moderator or a league race's referee
    /// whose address drives a car of the game may keep its clock (START, PAUSE, RESUME,
    /// DEADLINE, OBSERVERS) but not change its cars or its end: REPLACE, FORCE, ROLLBACK and
    /// REVEAL go to a moderator who does not drive (the league's, or a track marshal). The
    /// refusal, when there is one.
    fn drives_and_moderates(&self, job: &Job, head: &Header, actions: &[&Order]) -> Option<String> {
        let touching = actions
            .iter()
            .find(|o| matches!(o, Order::Replace { .. } | Order::Force { .. } | Order::Rollback(_) | Order::Reveal))?;
        let game = head.game.as_deref()?;
        let h = self.store.open(game).ok()?;
        let car = h.game().now.players.iter().find(|p| p.address.eq_ignore_ascii_case(&job.sender))?.car;
        let (what, quoi) = match touching {
            Order::Replace { .. } => ("REPLACE", "REMPLACER"),
            Order::Force { .. } => ("FORCE", "FORCER"),
            Order::Rollback(_) => ("ROLLBACK", "REVENIR"),
            _ => ("REVEAL", "RÉVÉLER"),
        };
        Some(tr(
            job.lang,
            &format!(
                "You drive car {car} in {game}: a moderator who drives may start, pause, resume the race and set its deadlines, but {what} changes the cars or the end of the race and must come from a moderator who does not drive (the league's moderator, or the race's track marshal; ruling 52). Nothing was applied."
            ),
            &format!(
                "Vous pilotez la voiture {car} dans {game} : un modérateur qui pilote peut démarrer, suspendre, reprendre la course et fixer ses délais, mais {quoi} change les voitures ou la fin de la course et doit venir d'un modérateur qui ne pilote pas (celui de la ligue, ou le commissaire de la course ; décision 52). Rien n'a été appliqué."
            ),
        ))
    }

    fn is_moderator(&self, address: &str, token: Option<&str>) -> bool {
        let Some(token) = token else { return false };
        let h = moderator_token_hash(token);
        self.cfg.moderators.iter().any(|m| m.address.eq_ignore_ascii_case(address) && m.token_sha256 == h)
    }

    /// The car the header names, if its token is right (or, with no token, the mail was sent
    /// to the car's signed reply address, and the car has not changed hands since); a note for
    /// the receipt otherwise.
    fn player_car(&self, job: &mut Job, g: &Game, head: &Header) -> Result<u8, String> {
        if head.tag
            && head.token.is_none()
            && let (Some(car), Some(turn)) = (head.car, head.turn)
        {
            if g.player(car).is_none() {
                return Err(format!("There is no car {car} in game {}.", g.setup.id));
            }
            Self::replaced_since(job, g, car, turn)?;
            Self::answered_since(job, g, car, turn)?;
            Self::copy_to_owner(job, g, car, true);
            return Ok(car);
        }
        let (Some(car), Some(token)) = (head.car, head.token.as_deref()) else {
            return Err(tr(
                job.lang,
                "This order needs CAR <n> and TOKEN <your token> lines (the token came with your JOIN).",
                "Cet ordre demande les lignes VOITURE <n> et JETON <votre jeton> (reçu à l'inscription).",
            ));
        };
        let Some((_, p)) = g.player(car) else {
            return Err(format!("There is no car {car} in game {}.", g.setup.id));
        };
        if p.token_sha256 != crate::store::hash::token_hash(&g.setup.id, token) {
            return Err(tr(
                job.lang,
                &format!("The token is not car {car}'s: nothing was applied."),
                &format!("Ce jeton n'est pas celui de la voiture {car} : rien n'a été appliqué."),
            ));
        }
        Self::copy_to_owner(job, g, car, false);
        Ok(car)
    }

    /// An order for `car` signed on from another address than its player's: the player gets a
    /// copy, written once the mail's orders are done ([`Daemon::mail_copies`]).
    fn copy_to_owner(job: &mut Job, g: &Game, car: u8, via_tag: bool) {
        let Some((_, p)) = g.player(car) else { return };
        let copy = OwnerCopy { game: g.setup.id.clone(), car, owner: p.address.clone(), via_tag };
        if !p.address.eq_ignore_ascii_case(&job.sender) && !job.copies.contains(&copy) {
            job.copies.push(copy);
        }
    }

    /// The copies of [`Daemon::copy_to_owner`]: each says whether the mail's orders were applied
    /// (`refusal`: the note that stopped them), never more than the sender's receipt says.
    fn mail_copies(&self, job: &mut Job, refusal: Option<&str>) {
        let wrapped = |text: &str| {
            let mut out = String::new();
            orders::wrap(&mut out, text, 0);
            out
        };
        for c in std::mem::take(&mut job.copies) {
            let ctx = serde_json::json!({
                "game": c.game, "car": c.car, "sender": job.sender, "via_tag": c.via_tag,
                "applied": refusal.is_none(), "refusal": wrapped(refusal.unwrap_or("")).trim_end(),
            });
            let lang = self.lang_of(&c.owner);
            if let Ok(text) = self.templates.render(lang, "copy", ctx) {
                job.drafts.push(Draft {
                    to: vec![c.owner.clone()],
                    subject: format!("[{}] order for car {} from {}", c.game, c.car, job.sender),
                    text,
                    in_reply_to: None,
                    message_id: String::new(),
                    reply_to: None,
                    picture: None,
                });
            }
        }
    }

    /// Whether this message already made a turn of `kind` (for `car`) in `g`: a message
    /// processed again after a crash must not apply twice.
    fn done_before(g: &Game, mid: &str, kind: Kind, car: Option<u8>) -> bool {
        g.turns.iter().any(|t| {
            t.kind == kind
                && t.source.as_ref().and_then(|s| s.message_id.as_deref()) == Some(mid)
                && car.is_none_or(|c| {
                    t.orders.iter().any(|o| o.car == c) || t.player.as_ref().is_some_and(|p| p.car == c)
                })
        })
    }

    fn need_game(job: &Job, head: &Header) -> Result<String, String> {
        head.game.clone().ok_or_else(|| {
            tr(
                job.lang,
                "Say which game: add a line GAME <game>.",
                "Precisez la partie : ajoutez une ligne PARTIE <partie>.",
            )
        })
    }

    /// Applies one order; returns the game it touched.
    fn act(
        &mut self,
        job: &mut Job,
        msg: &Incoming,
        head: &Header,
        o: &Order,
        sheet: &JoinSheet,
    ) -> Result<Option<String>, Failure> {
        let lang = job.lang;
        match o {
            Order::Help => {
                job.extras.help = true;
                Ok(None)
            }
            Order::Setup(_) | Order::Tyres { .. } | Order::Boxes(_) => {
                if head.game.is_some() {
                    // Read with the JOIN of the same message.
                    return Ok(None);
                }
                Err(tr(
                    lang,
                    "SETUP, TYRES and BOXES go in the same message as your JOIN.",
                    "CONFIG, PNEUS et BOXES vont dans le même message que votre REJOINDRE.",
                )
                .into())
            }
            Order::Board | Order::History(_) | Order::Standings => {
                let game = Self::need_game(job, head)?;
                if matches!(o, Order::Standings)
                    && let Some(t) = self.league_tables(&game)
                {
                    // A league's table, or the table of the league this game is a race of.
                    job.extras.league.push(t);
                    if !self.store.game_dir(&game).join("turns").is_dir() {
                        return Ok(None);
                    }
                }
                let h = self.open(&game, job.lang)?;
                let g = h.game();
                let known = g.now.players.iter().any(|p| p.address.eq_ignore_ascii_case(&job.sender))
                    || self.cfg.moderators.iter().any(|m| m.address.eq_ignore_ascii_case(&job.sender));
                if !known {
                    return Err(format!("{} is not a player of game {game}.", job.sender).into());
                }
                let last = g.next_turn().saturating_sub(1);
                let first = match o {
                    Order::History(n) => last.saturating_sub(n.saturating_sub(1)),
                    _ => last,
                };
                job.extras.reports.push((game, first));
                Ok(None)
            }
            Order::League { league, action } => self.league_order(job, league, action),
            Order::Join { .. } | Order::Create { .. } => self.enter(job, msg, o, sheet),
            Order::Gear(_)
            | Order::Choose(_)
            | Order::Reroll
            | Order::Pit { .. }
            | Order::Policy(_)
            | Order::Drive(_)
            | Order::Lap(_) => self.drive(job, head, o),
            Order::Lang(_)
            | Order::Reports(_)
            | Order::TimeZone(_)
            | Order::Game(_)
            | Order::Car(_)
            | Order::Token(_)
            | Order::Turn(_) => Ok(None),
            Order::Start(_)
            | Order::Reveal
            | Order::Pause
            | Order::Resume
            | Order::Deadline(_)
            | Order::Replace { .. }
            | Order::Force { .. } => self.moderate(job, head, o),
            Order::List(_)
            | Order::Watch(..)
            | Order::Unwatch(..)
            | Order::Absent(_)
            | Order::Retire(_)
            | Order::Rollback(_)
            | Order::Observers(_) => self.judge_order(job, head, o),
        }
    }
}
