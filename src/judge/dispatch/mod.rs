//! From a message's orders to the store's driver calls, and from the turns they make to the
//! replies. Authentication (a player's token, a moderator's address and token), stale orders
//! (`TURN`), gears sent ahead of time, standing policies, bot cars and the deadline default
//! moves all live here.

mod judge;
mod replies;
mod tagged;
pub(super) mod unasked;

use std::collections::BTreeSet;

use sha2::{Digest, Sha256};

use crate::engine::MoveOption;
use crate::engine::weather::Forecast;
use crate::store::files::{Kind, PitRecord, Source, TurnFile};
use crate::store::qualifying::GridMethod;
use crate::store::replay::sha256_hex;
use crate::store::{By, Game, Handle, Join, Meta, Moderation, NewGame, Stamp, StoreError};

use crate::judge::config::moderator_token_hash;
use crate::judge::daemon::{Daemon, DaemonError, Job, io};
use crate::judge::standing::QueuedGear;
use crate::mail::compose::Draft;
use crate::mail::limits::MAX_ORDERS;
use crate::mail::message::Incoming;
use crate::orders;
use crate::orders::ReportMode;
use crate::orders::policy::{Decision, decide_at};
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

/// What the sender's reply carries besides the receipt.
#[derive(Default)]
pub(super) struct SenderExtras {
    pub receipt: String,
    pub help: bool,
    /// Games whose report (from the given turn) the sender asked for (BOARD, HISTORY).
    pub reports: Vec<(String, u32)>,
    /// League tables the sender asked for (STANDINGS).
    pub league: Vec<String>,
}

fn tr(lang: Lang, en: &str, fr: &str) -> String {
    if lang == Lang::Fr { fr.to_string() } else { en.to_string() }
}

/// Why an order was not carried out (`Daemon::act`): the sender's doing, said in their
/// receipt (`Note`: a wrong token, an order out of turn...), or the system's (`System`: a file
/// of the game or of the daemon's state cannot be read or written, a damaged game). A system
/// failure is never shown to the sender as their order's fault: the job stops there, and the
/// daemon decides (a transient failure, such as a full disk, leaves the message to be read again
/// later; another is reported to the sender and the moderators as a mail not handled).
pub(super) enum Failure {
    /// A note for the sender's receipt.
    Note(String),
    /// The system failed.
    System(DaemonError),
}

impl From<String> for Failure {
    fn from(note: String) -> Self {
        Failure::Note(note)
    }
}

impl From<DaemonError> for Failure {
    fn from(e: DaemonError) -> Self {
        Failure::System(e)
    }
}

/// A store call's failure on `game`, as [`Failure`] sorts it ([`StoreError::is_system`]).
pub(super) fn store_failure(game: &str) -> impl FnOnce(StoreError) -> Failure + '_ {
    move |e| {
        if e.is_system() {
            Failure::System(DaemonError::Store { game: game.to_string(), source: e })
        } else {
            Failure::Note(e.to_string())
        }
    }
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

    fn open(&self, game: &str) -> Result<Handle, Failure> {
        self.store.open(game).map_err(|e| match e {
            StoreError::NoSuchGame { .. } => Failure::Note(format!("there is no game `{game}`")),
            e => store_failure(game)(e),
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
        // A preference is kept only for a sender who proved who they are: From can be forged,
        // and a LANG must not change another player's language (docs/orders.md).
        if let Some(l) = wanted {
            if self.signed_on(job, &Header::of(&all)) {
                self.standing.set_lang(&job.sender, l.code()).map_err(io("writing a language"))?;
            } else {
                job.notes.push(tr(
                    job.lang,
                    "LANG changed this reply only: to keep it, send it with your GAME, CAR and TOKEN lines (or with your JOIN).",
                    "LANGUE vaut pour cette reponse seulement : pour la garder, envoyez-la avec vos lignes PARTIE, VOITURE et JETON (ou avec votre REJOINDRE).",
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
                "COURRIER n'a pas ete garde : envoyez-le avec vos lignes PARTIE, VOITURE et JETON (ou avec votre REJOINDRE).",
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
            &format!("COURRIER {word} garde pour la voiture {car} dans la partie {game} : {what}."),
        ));
        job.applied = true;
        Ok(())
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
                && p.token_sha256 == crate::store::replay::token_hash(&g.setup.id, token)
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
            .filter(|o| !o.is_header() && !matches!(o, Order::Lang(_) | Order::Reports(_)))
            .collect();
        if let Err(note) = self.apply_tag(job, &mut head, &actions) {
            job.notes.push(note);
            return Ok(());
        }
        if actions.is_empty() {
            if !all.iter().any(|o| matches!(o, Order::Lang(_) | Order::Reports(_))) {
                job.extras.help = true;
            }
            return Ok(());
        }
        if actions.len() > MAX_ORDERS {
            job.notes.push(tr(
                job.lang,
                &format!("This mail has {} orders; one mail may give at most {MAX_ORDERS}. Nothing was applied.", actions.len()),
                &format!("Ce message contient {} ordres ; un message peut en donner au plus {MAX_ORDERS}. Rien n'a ete applique.", actions.len()),
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
                "Seul un moderateur peut donner CREER, DEMARRER, PAUSE, REPRENDRE, DELAI, REMPLACER, FORCER, REVELER, REVENIR, OBSERVATEURS ou une modification de LIGUE, depuis son adresse avec son JETON (l'arbitre d'une course de ligue : tout sauf CREER et LIGUE, avec sa VOITURE et son JETON). Rien n'a ete applique.",
            ));
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
        for o in &actions {
            match self.act(job, msg, &head, o, &sheet) {
                Ok(Some(game)) => {
                    touched.insert(game);
                }
                Ok(None) => {}
                Err(Failure::Note(note)) => {
                    job.notes.push(note);
                    break;
                }
                Err(Failure::System(e)) => return Err(e),
            }
        }
        for g in touched {
            self.cascade(job, &g)?;
        }
        Ok(())
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
            self.copy_to_owner(job, g, car);
            return Ok(car);
        }
        let (Some(car), Some(token)) = (head.car, head.token.as_deref()) else {
            return Err(tr(
                job.lang,
                "This order needs CAR <n> and TOKEN <your token> lines (the token came with your JOIN).",
                "Cet ordre demande les lignes VOITURE <n> et JETON <votre jeton> (recu a l'inscription).",
            ));
        };
        let Some((_, p)) = g.player(car) else {
            return Err(format!("There is no car {car} in game {}.", g.setup.id));
        };
        if p.token_sha256 != crate::store::replay::token_hash(&g.setup.id, token) {
            return Err(tr(
                job.lang,
                &format!("The token is not car {car}'s: nothing was applied."),
                &format!("Ce jeton n'est pas celui de la voiture {car} : rien n'a ete applique."),
            ));
        }
        self.copy_to_owner(job, g, car);
        Ok(car)
    }

    /// An order for `car` signed on from another address than its player's: applied, and the
    /// player gets a copy.
    fn copy_to_owner(&self, job: &mut Job, g: &Game, car: u8) {
        let Some((_, p)) = g.player(car) else { return };
        if !p.address.eq_ignore_ascii_case(&job.sender) {
            let ctx = serde_json::json!({ "game": g.setup.id, "car": car, "sender": job.sender });
            let lang = self.lang_of(&p.address);
            if let Ok(text) = self.templates.render(lang, "copy", ctx) {
                job.drafts.push(Draft {
                    to: vec![p.address.clone()],
                    subject: format!("[{}] order for car {car} from {}", g.setup.id, job.sender),
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
                    "CONFIG, PNEUS et BOXES vont dans le meme message que votre REJOINDRE.",
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
                let h = self.open(&game)?;
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
            Order::Join { game, car, password, phrase } => {
                let mut h = self.open(game)?;
                if let Some((l, n)) = crate::judge::league::league_of_game(&self.store.dir, game)
                    && let Some(team) = l.marshal_team(n)
                    && l.driver(&job.sender).is_some_and(|d| d.team.as_deref() == Some(team))
                {
                    // 002 "Series Length": "The Marshall's team will not run in the race".
                    return Err(tr(
                        lang,
                        &format!("Team {team} is the Track Marshal of this race and sits it out (002): no JOIN."),
                        &format!(
                            "L'equipe {team} est commissaire de cette course et ne la court pas (002) : pas d'inscription."
                        ),
                    ).into());
                }
                // Unreadable settings are the system's failure: a join is never let through
                // unchecked because the file that holds its password could not be read.
                let settings = self.standing.game(game).map_err(io("reading the game's settings"))?;
                if let Some(want) = &settings.join_password_sha256 {
                    let got = password.as_deref().map(|p| sha256_hex(p.trim().as_bytes()));
                    if got.as_deref() != Some(want.as_str()) {
                        return Err(tr(
                            lang,
                            "This game needs its join PASSWORD: ask the moderator.",
                            "Cette partie demande son MOTDEPASSE d'inscription : demandez-le au moderateur.",
                        )
                        .into());
                    }
                }
                let token = self.derive_token(game, &job.mid, "join");
                let next = h.game().next_turn();
                self.touch(job, game, next)?;
                let number = if Self::done_before(h.game(), &job.mid, Kind::Join, None) {
                    h.game()
                        .now
                        .players
                        .iter()
                        .find(|p| p.address.eq_ignore_ascii_case(&job.sender))
                        .map(|p| p.car)
                        .unwrap_or(0)
                } else {
                    // A league driver joining a race of the league brings the driver points it
                    // holds for that race (002, ruling 45).
                    let games = &self.store.dir;
                    let driver_points = crate::judge::league::league_of_game(games, game)
                        .filter(|(l, _)| l.driver(&job.sender).is_some())
                        .and_then(|(l, n)| crate::league::results::driver_points_for(games, &l, &job.sender, n).ok())
                        .map_or(0, |p| p.min(u32::from(u8::MAX)) as u8);
                    let req = Join {
                        address: job.sender.clone(),
                        token: token.clone(),
                        car: *car,
                        name: msg.from_name.clone(),
                        wear: sheet.wear.unwrap_or_else(crate::engine::Wear::standard),
                        tyres: sheet.tyres.map_or(crate::engine::Tyres::Hard, |t| t.0),
                        wet_tyres: sheet.tyres.and_then(|t| t.1),
                        entropy: phrase.clone(),
                        bot: false,
                        driver_points,
                        boxes: sheet.boxes.clone().unwrap_or_default(),
                    };
                    let meta = self.meta(job, None);
                    let t = h.join(&req, meta).map_err(store_failure(game))?;
                    t.player.as_ref().map(|p| p.car).unwrap_or(0)
                };
                job.applied = true;
                let g = h.game();
                let ctx = serde_json::json!({
                    "game": game, "car": number, "token": token, "track": g.track.title, "laps": g.setup.laps,
                    "proof": crate::judge::report::proof(g),
                });
                let text = self.templates.render(lang, "welcome", ctx).map_err(DaemonError::from)?;
                // The token goes to the address that joined, never to a Reply-To: whoever
                // wrote `From: victim` and `Reply-To: attacker` must not get the victim's car.
                job.secret_drafts.push(Draft {
                    to: vec![job.sender.clone()],
                    subject: format!("[{game}] you drive car {number}"),
                    text,
                    in_reply_to: msg.message_id.clone(),
                    message_id: String::new(),
                    reply_to: None,
                    picture: None,
                });
                Ok(Some(game.clone()))
            }
            Order::Gear(gear) => {
                let game = Self::need_game(job, head)?;
                let mut h = self.open(&game)?;
                let car = self.player_car(job, h.game(), head)?;
                if Self::done_before(h.game(), &job.mid, Kind::Move, Some(car)) {
                    // Applied before a crash: the message is being processed again.
                    job.applied = true;
                    return Ok(Some(game));
                }
                if let Some(late) = self.late_answer(job, h.game(), head, car, false) {
                    return Err(late.into());
                }
                self.stale_gear(job, h.game(), head, car)?;
                if h.game().awaited_cars().contains(&(car, false)) && !h.game().now.paused {
                    let next = h.game().next_turn();
                    self.touch(job, &game, next)?;
                    let meta = self.meta(job, None);
                    h.gear(car, *gear, By::Player, meta).map_err(store_failure(&game))?;
                    job.applied = true;
                    return Ok(Some(game));
                }
                if h.game().now.over {
                    return Err(StoreError::Over.to_string().into());
                }
                let mut orders = self.car_orders(&game, car)?;
                orders.gear = Some(QueuedGear { gear: *gear, message_id: job.mid.clone(), from: job.sender.clone() });
                self.set_car_orders(&game, car, &orders)?;
                job.notes.push(tr(
                    lang,
                    &format!("GEAR {gear} is kept for car {car}'s next move (a later GEAR replaces it)."),
                    &format!("VITESSE {gear} est gardee pour le prochain coup de la voiture {car} (une VITESSE plus recente la remplace)."),
                ));
                job.applied = true;
                Ok(Some(game))
            }
            Order::Choose(answer) => {
                let Some((game, mut h, car)) = self.awaiting_choice(job, head)? else {
                    return Ok(head.game.clone());
                };
                let next = h.game().next_turn();
                self.touch(job, &game, next)?;
                let meta = self.meta(job, None);
                h.choose(car, answer, By::Player, meta).map_err(store_failure(&game))?;
                job.applied = true;
                Ok(Some(game))
            }
            Order::Reroll => {
                // 002 "Expending Driver Points" (ruling 45): like CHOOSE, it answers the roll
                // awaiting the car's choice; the reply offers the second roll's options.
                let Some((game, mut h, car)) = self.awaiting_choice(job, head)? else {
                    return Ok(head.game.clone());
                };
                let next = h.game().next_turn();
                self.touch(job, &game, next)?;
                let meta = self.meta(job, None);
                h.reroll(car, By::Player, meta).map_err(|e| {
                    if e.is_system() { store_failure(&game)(e) } else { Failure::Note(reroll_refusal(lang, &e)) }
                })?;
                job.applied = true;
                Ok(Some(game))
            }
            Order::Pit { stop, tyres, repairs } => {
                // PIT answers a roll as CHOOSE does: it takes the option that ends at the car's
                // box (the cheapest, if several) with the decision there (19-2-6, 19-3, 19-4).
                let Some((game, mut h, car)) = self.awaiting_choice(job, head)? else {
                    return Ok(head.game.clone());
                };
                let g = h.game();
                let at_box = g.now.race.as_ref().and_then(|r| r.pending.as_ref()).and_then(|p| {
                    (0..p.rolled.options.len()).find(|&i| crate::engine::play::reaches_box(&g.track, &p.rolled, i))
                });
                let Some(i) = at_box else {
                    return Err(tr(
                        lang,
                        &format!(
                            "PIT: no option of car {car}'s roll ends at its box (19-2): send CHOOSE with an option."
                        ),
                        &format!(
                            "STAND : aucune option du jet de la voiture {car} n'arrive a son stand (19-2) : envoyez CHOIX avec une option."
                        ),
                    ).into());
                };
                let pit = PitRecord {
                    kind: Some(
                        match stop {
                            orders::Stop::Quick => "quick",
                            orders::Stop::Long => "long",
                        }
                        .to_string(),
                    ),
                    tyres: tyres.map(|x| x.name().to_string()),
                    repairs: repairs.iter().map(|&(part, n)| (part.name().to_string(), n)).collect(),
                };
                let next = g.next_turn();
                self.touch(job, &game, next)?;
                let meta = self.meta(job, None);
                h.choose_with_pit(car, &MoveOption::label(i), pit, By::Player, meta).map_err(store_failure(&game))?;
                job.applied = true;
                Ok(Some(game))
            }
            Order::Policy(p) => {
                let game = Self::need_game(job, head)?;
                let h = self.open(&game)?;
                let car = self.player_car(job, h.game(), head)?;
                let mut orders = self.car_orders(&game, car)?;
                let text: Vec<&str> = p.rules.iter().map(|r| r.en()).collect();
                orders.policy = (!text.is_empty()).then(|| text.join(" ELSE "));
                self.set_car_orders(&game, car, &orders)?;
                job.notes.push(match &orders.policy {
                    Some(p) => format!("Standing order for car {car}: {p}."),
                    None => format!("Car {car} has no standing order: you are asked after every roll."),
                });
                job.applied = true;
                Ok(Some(game))
            }
            Order::Lang(_) | Order::Reports(_) | Order::Game(_) | Order::Car(_) | Order::Token(_) | Order::Turn(_) => {
                Ok(None)
            }
            Order::Create {
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
            } => {
                if let Ok(h) = self.store.open(game) {
                    if Self::done_before(h.game(), &job.mid, Kind::Create, None) {
                        job.applied = true;
                        self.marshal_news(job, game);
                        return Ok(Some(game.clone()));
                    }
                    return Err(format!("A game `{game}` exists already.").into());
                }
                let track_file =
                    crate::judge::tracks::track_file(track, self.cfg.tracks.as_deref()).map_err(|e| e.to_string())?;
                let req = NewGame {
                    id: game.clone(),
                    track: track_file.to_string_lossy().into_owned(),
                    // `eurogames-advanced` alone plays all seven toggles; `...:a,b` those named.
                    profile: match profile.as_deref() {
                        None => "competition-2004".into(),
                        Some(p) if p.contains(':') => p.to_string(),
                        Some(p) => crate::engine::Rulebook::from_cli(p, None).map_err(|e| e.to_string())?.spec(),
                    },
                    laps: *laps,
                    max_cars: *cars,
                    move_hours: hours.unwrap_or(48),
                    join_by: None,
                    weather: weather.unwrap_or(Forecast::Track),
                    grid: grid.unwrap_or(GridMethod::Join),
                    lap_third_weather: *lap_thirds,
                    late_arrivals: *late,
                    finish_by_portion: false,
                    pit_choice: pits.unwrap_or_default(),
                    backmarkers: *backmarkers,
                    scheme: crate::dice::Scheme::V2,
                };
                let seed = crate::store::driver::os_random().map_err(store_failure(game))?;
                self.touch(job, game, 0)?;
                let meta = self.meta(job, None);
                self.store.create(&req, seed, meta).map_err(store_failure(game))?;
                let settings =
                    crate::judge::standing::GameSettings { created_by: Some(job.sender.clone()), ..Default::default() };
                self.standing.set_game(game, &settings).map_err(io("writing the game's settings"))?;
                job.applied = true;
                self.marshal_news(job, game);
                Ok(Some(game.clone()))
            }
            Order::Start | Order::Reveal | Order::Pause | Order::Resume | Order::Deadline(_) => {
                let game = Self::need_game(job, head)?;
                let mut h = self.open(&game)?;
                let (kind, action) = match o {
                    Order::Start => (Kind::Start, None),
                    Order::Reveal => (Kind::Reveal, None),
                    Order::Pause => (Kind::Moderate, Some(Moderation::Pause { reason: None })),
                    Order::Resume => (Kind::Moderate, Some(Moderation::Resume)),
                    Order::Deadline(hours) => (Kind::Moderate, Some(Moderation::Deadline { hours: *hours })),
                    _ => unreachable!("matched above"),
                };
                if !Self::done_before(h.game(), &job.mid, kind, None) {
                    let next = h.game().next_turn();
                    self.touch(job, &game, next)?;
                    let meta = self.meta(job, Some("moderator"));
                    let r = match (kind, action) {
                        (Kind::Start, _) => h.start(meta),
                        (Kind::Reveal, _) => h.reveal(meta),
                        (_, Some(m)) => h.moderate(m, meta),
                        _ => unreachable!("every kind has its call"),
                    };
                    r.map_err(store_failure(&game))?;
                }
                job.applied = true;
                Ok(Some(game))
            }
            Order::Replace { car, address } => {
                let game = Self::need_game(job, head)?;
                let mut h = self.open(&game)?;
                let token = self.derive_token(&game, &job.mid, &format!("replace-{car}"));
                if !Self::done_before(h.game(), &job.mid, Kind::Moderate, None) {
                    let next = h.game().next_turn();
                    self.touch(job, &game, next)?;
                    let meta = self.meta(job, Some("moderator"));
                    let m = Moderation::Replace {
                        car: *car,
                        address: address.to_lowercase(),
                        token_sha256: crate::store::replay::token_hash(&game, &token),
                    };
                    h.moderate(m, meta).map_err(store_failure(&game))?;
                }
                let g = h.game();
                let ctx = serde_json::json!({
                    "game": game, "car": car, "token": token, "track": g.track.title, "laps": g.setup.laps,
                });
                let l = self.lang_of(address);
                let text = self.templates.render(l, "welcome", ctx).map_err(DaemonError::from)?;
                job.secret_drafts.push(Draft {
                    to: vec![address.to_lowercase()],
                    subject: format!("[{game}] you now drive car {car}"),
                    text,
                    in_reply_to: None,
                    message_id: String::new(),
                    reply_to: None,
                    picture: None,
                });
                job.applied = true;
                Ok(Some(game))
            }
            Order::List(_)
            | Order::Watch(_)
            | Order::Unwatch(_)
            | Order::Absent(_)
            | Order::Retire(_)
            | Order::Rollback(_)
            | Order::Observers(_) => self.judge_order(job, head, o),
            Order::Force { car } => {
                let game = Self::need_game(job, head)?;
                let mut h = self.open(&game)?;
                if Self::done_before(h.game(), &job.mid, Kind::Move, Some(*car)) {
                    job.applied = true;
                    return Ok(Some(game));
                }
                if !h.game().awaited_cars().iter().any(|a| a.0 == *car) {
                    return Err(format!("Car {car} is not a car awaited in game {game}.").into());
                }
                let next = h.game().next_turn();
                self.touch(job, &game, next)?;
                let meta = self.meta(job, Some("moderator"));
                if h.game().now.qualifying.is_some() {
                    h.bot_lap(*car, &mut self.bot, meta).map_err(store_failure(&game))?;
                } else {
                    h.bot_move(&mut self.bot, meta).map_err(store_failure(&game))?;
                }
                job.applied = true;
                Ok(Some(game))
            }
        }
    }

    /// The game, its handle and the car for an answer to a roll (CHOOSE, PIT): authenticated,
    /// awaited, not stale. `None` when this message's answer is already in the game (processed
    /// again after a crash).
    fn awaiting_choice(&mut self, job: &mut Job, head: &Header) -> Result<Option<(String, Handle, u8)>, Failure> {
        let game = Self::need_game(job, head)?;
        let h = self.open(&game)?;
        let car = self.player_car(job, h.game(), head)?;
        if Self::done_before(h.game(), &job.mid, Kind::Move, Some(car)) {
            job.applied = true;
            return Ok(None);
        }
        let awaited = h.game().awaited_cars().contains(&(car, true));
        if let Some(late) = self.late_answer(job, h.game(), head, car, !awaited) {
            return Err(late.into());
        }
        if !awaited {
            return Err(tr(
                job.lang,
                &format!("No roll of car {car} awaits a choice: send GEAR first."),
                &format!("Aucun jet de la voiture {car} n'attend de choix : envoyez d'abord VITESSE."),
            )
            .into());
        }
        self.stale_choice(job, h.game(), head, car)?;
        Ok(Some((game, h, car)))
    }

    /// Why an answer for `car` is late, if it is (docs/daemon.md): its deadline passed before
    /// the mail arrived and the bot played a default move for the car after the turn the mail
    /// answers (`TURN n`; without one, when the answer is refused anyway, `not_awaited`, and the
    /// car's last move was the default one). Says when the deadline passed and what was played.
    fn late_answer(&self, job: &Job, g: &Game, head: &Header, car: u8, not_awaited: bool) -> Option<String> {
        let by_deadline = |t: &TurnFile| {
            t.source.as_ref().and_then(|s| s.by.as_deref()) == Some("deadline") && t.orders.iter().any(|o| o.car == car)
        };
        let first = match head.turn {
            Some(n) => g.turns.iter().find(|t| t.turn > n && by_deadline(t))?,
            None if not_awaited => {
                let last = g.turns.iter().rev().find(|t| t.orders.iter().any(|o| o.car == car))?;
                if !by_deadline(last) {
                    return None;
                }
                // The first of the default moves in a row (a move may take two turns).
                let mut first = last;
                while let Some(prev) = first.turn.checked_sub(1).and_then(|p| g.turns.get(p as usize)) {
                    if !by_deadline(prev) {
                        break;
                    }
                    first = prev;
                }
                first
            }
            None => return None,
        };
        let due_text = g.turns.get(first.turn.checked_sub(1)? as usize).and_then(|t| t.due.clone())?;
        let due = Stamp::parse(&due_text)?;
        if job.arrived.is_some_and(|a| a < due) {
            return None;
        }
        let mut played = Vec::new();
        for t in g.turns[first.turn as usize..].iter().take_while(|t| by_deadline(t)) {
            for o in t.orders.iter().filter(|o| o.car == car) {
                if let Some(gear) = o.gear {
                    played.push(format!("GEAR {gear}"));
                }
                if let Some(c) = &o.choose {
                    played.push(match &o.space {
                        Some(s) => format!("CHOOSE {c} ({s})"),
                        None => format!("CHOOSE {c}"),
                    });
                }
            }
        }
        let played = played.join(", ");
        let arrived = job.arrived.map(|a| a.to_string());
        Some(tr(
            job.lang,
            &format!(
                "Late: the deadline for car {car} passed at {due}{}; the bot played a default move for it at turn {}: {played}. Nothing of this mail was applied: send BOARD for the game as it stands.",
                arrived.as_ref().map(|a| format!(" and your mail arrived at {a}")).unwrap_or_default(),
                first.turn
            ),
            &format!(
                "En retard : le delai de la voiture {car} a expire le {due}{} ; le bot a joue un coup par defaut pour elle au tour {} : {played}. Rien de ce message n'a ete applique : envoyez PLATEAU pour la partie telle qu'elle est.",
                arrived.as_ref().map(|a| format!(" et votre message est arrive le {a}")).unwrap_or_default(),
                first.turn
            ),
        ))
    }

    /// The turn the orders answer: `TURN n`, or the current turn when the mail names none
    /// (docs/orders.md).
    fn need_turn(head: &Header, g: &Game) -> Result<u32, String> {
        let last = g.next_turn() - 1;
        let n = head.turn.unwrap_or(last);
        if n > last {
            return Err(format!("Turn {n} has not been played: game {} is at turn {last}.", g.setup.id));
        }
        Ok(n)
    }

    /// A gear answering turn `n` is stale if the car moved after turn `n`.
    fn stale_gear(&self, job: &Job, g: &Game, head: &Header, car: u8) -> Result<(), String> {
        let n = Self::need_turn(head, g)?;
        if let Some(t) =
            g.turns[n as usize + 1..].iter().find(|t| t.orders.iter().any(|o| o.car == car && o.gear.is_some()))
        {
            return Err(tr(
                job.lang,
                &format!(
                    "Stale order: it answers turn {n}, but car {car} has moved since (turn {}). Send BOARD for the game as it stands.",
                    t.turn
                ),
                &format!(
                    "Ordre perime : il repond au tour {n}, mais la voiture {car} a bouge depuis (tour {}). Envoyez PLATEAU.",
                    t.turn
                ),
            ));
        }
        Ok(())
    }

    /// A choice answering turn `n` is stale if the roll awaiting it came after turn `n`.
    fn stale_choice(&self, job: &Job, g: &Game, head: &Header, car: u8) -> Result<(), String> {
        let n = Self::need_turn(head, g)?;
        let offered = if g.now.qualifying.is_some() {
            // Laps run side by side: the roll is the last gear of this car (ruling 31).
            g.turns
                .iter()
                .rev()
                .find(|t| t.orders.iter().any(|o| o.car == car && o.gear.is_some()))
                .map_or(0, |t| t.turn)
        } else {
            let rolled_at =
                g.turns.iter().rev().find(|t| t.pending.is_some() && t.kind == Kind::Move).map_or(0, |t| t.turn);
            // The decision awaited is the last turn's; it was offered at the turn that rolled,
            // or at the driver point's re-roll that replaced that roll (ruling 45).
            let run = || g.turns.iter().rev().take_while(|t| t.pending.is_some());
            let rerolled = run().find(|t| t.orders.iter().any(|o| o.reroll)).map(|t| t.turn);
            rerolled.unwrap_or_else(|| run().last().map_or(rolled_at, |t: &TurnFile| t.turn))
        };
        if n < offered {
            return Err(tr(
                job.lang,
                &format!(
                    "Stale order: it answers turn {n}, but the roll awaiting a choice was made at turn {offered}. Send BOARD for the options."
                ),
                &format!(
                    "Ordre perime : il repond au tour {n}, mais le jet qui attend un choix date du tour {offered}. Envoyez PLATEAU."
                ),
            ));
        }
        Ok(())
    }
}

/// A refused re-roll (002, ruling 45), in the player's language.
fn reroll_refusal(lang: Lang, e: &StoreError) -> String {
    let fr = match e {
        StoreError::AlreadyRerolled { car, roll, labels } => format!(
            "La voiture {car} a deja relance ce coup : le second resultat, {roll}, est definitif et ne peut pas etre relance (002 Expending Driver Points) ; choisissez parmi {labels}."
        ),
        StoreError::NoDriverPoints { car, labels } => format!(
            "Le pilote de la voiture {car} n'a plus de points pilote a depenser (002 Expending Driver Points) ; choisissez parmi {labels}."
        ),
        StoreError::NotRerollable { car, labels } => format!(
            "Le deplacement de la voiture {car} vient du de noir de son depart (super depart, 9-2-1), pas du de de vitesse : seul le de de vitesse se relance (decision 45) ; choisissez parmi {labels}."
        ),
        _ => return e.to_string(),
    };
    tr(lang, &e.to_string(), &fr)
}
