//! The commands a league lives with between races, as the Diplomacy judges have them
//! (docs/orders.md, "Between races"): `LIST` the games, `WATCH` / `UNWATCH` a game as an
//! observer, `ABSENT` for a holiday, `RETIRE` a car, and the moderators' `ROLLBACK` and
//! `OBSERVERS`. Split from the orders of a message (`super`); the game's history changes only
//! through the store's driver (a `rollback` turn, a `player` turn), the rest is the daemon's own
//! state (`games/<game>/judge.toml` under the state directory).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::*;
use crate::engine::order::leader;

/// What the daemon keeps per game for these commands (and, under a league's name, the
/// absences each driver took this season).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::judge) struct JudgeState {
    /// The moderator closed the game to observers (`OBSERVERS NO`).
    #[serde(default, skip_serializing_if = "is_false")]
    pub closed: bool,
    /// The observers' addresses, in the order they came.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub watchers: Vec<String>,
    /// The absences declared, one per car.
    #[serde(default, rename = "absence", skip_serializing_if = "Vec::is_empty")]
    pub absences: Vec<Absence>,
    /// Under a league's name: the absences each driver (address) declared this season.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub season_absences: BTreeMap<String, u32>,
    /// The Message-IDs of the last mails that changed this state, newest last (at most
    /// [`DONE_KEPT`]): a mail read again after a crash between this file's write and the
    /// ledger's commit is answered as the first time, not with "you do not watch" or "no
    /// absence to cancel" (issue 45, item 8), as a turn's `Message-ID` does for orders.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub done: Vec<String>,
}

/// Message-IDs a judge state keeps ([`JudgeState::done`]).
const DONE_KEPT: usize = 64;

impl JudgeState {
    /// Whether the mail `mid` changed this state already.
    fn did(&self, mid: &str) -> bool {
        self.done.iter().any(|m| m == mid)
    }

    /// Records that the mail `mid` changed this state.
    fn record(&mut self, mid: &str) {
        if !self.did(mid) {
            self.done.push(mid.to_string());
        }
        let over = self.done.len().saturating_sub(DONE_KEPT);
        self.done.drain(..over);
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

/// A car's absence: from one UTC day to another, both included.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(in crate::judge) struct Absence {
    /// The car.
    pub car: u8,
    /// First day, `YYYY-MM-DD`.
    pub from: String,
    /// Last day, `YYYY-MM-DD`.
    pub to: String,
}

/// The UTC day of `at`, `YYYY-MM-DD`.
fn day(at: Stamp) -> String {
    at.to_string()[..10].to_string()
}

impl Daemon {
    /// The game's judge state for reading only (who watches, who is absent): a damaged file
    /// reads as none, so reports and default moves go on as without it.
    fn judge_state(&self, game: &str) -> JudgeState {
        self.standing.judge(game).unwrap_or_default()
    }

    /// The game's judge state to change and write back: a file that cannot be read is the
    /// system's failure, never read as empty and overwritten (the observers and absences it
    /// holds would be lost).
    fn judge_state_to_change(&self, game: &str) -> Result<JudgeState, DaemonError> {
        self.standing.judge(game).map_err(io("reading the game's judge state"))
    }

    fn set_judge_state(&self, game: &str, s: &JudgeState) -> Result<(), DaemonError> {
        self.standing.set_judge(game, s).map_err(io("writing the game's judge state"))
    }

    /// A car's standing orders (its GEAR sent ahead, its POLICY) to act on or change: a file
    /// that cannot be read is the system's failure, never read as none and overwritten.
    pub(super) fn car_orders(&self, game: &str, car: u8) -> Result<crate::judge::standing::CarOrders, DaemonError> {
        self.standing.car(game, car).map_err(io("reading standing orders"))
    }

    pub(super) fn set_car_orders(
        &self,
        game: &str,
        car: u8,
        o: &crate::judge::standing::CarOrders,
    ) -> Result<(), DaemonError> {
        self.standing.set_car(game, car, o).map_err(io("writing standing orders"))
    }

    /// The observers of `game`, who get its reports (the report every player gets today; when
    /// per-player report modes exist, an observer's mode applies here).
    pub(super) fn watchers(&self, game: &str) -> Vec<String> {
        let s = self.judge_state(game);
        if s.closed { Vec::new() } else { s.watchers }
    }

    /// Whether car `car`'s player declared an absence that covers `at` (its UTC day).
    pub(super) fn absent_on(&self, game: &str, car: u8, at: Stamp) -> bool {
        let today = day(at);
        self.judge_state(game).absences.iter().any(|a| a.car == car && a.from <= today && today <= a.to)
    }

    /// Whether absent car `car` is played by the bot now: its player is absent at `at` and
    /// left nothing of their own to play (a GEAR sent ahead, a POLICY for a choice).
    pub(super) fn absent_plays(&self, game: &str, car: u8, choice: bool, at: Stamp) -> bool {
        if !self.absent_on(game, car, at) {
            return false;
        }
        let orders = self.standing.car(game, car).unwrap_or_default();
        if choice { orders.policy.is_none() } else { orders.gear.is_none() }
    }

    /// LIST, WATCH, UNWATCH, ABSENT, RETIRE, ROLLBACK, OBSERVERS; returns the game touched.
    pub(super) fn judge_order(&mut self, job: &mut Job, head: &Header, o: &Order) -> Result<Option<String>, Failure> {
        match o {
            Order::List(game) => self.list(job, game.as_deref()),
            Order::Watch(game, code) => self.watch(job, game, code.as_deref()),
            Order::Unwatch(game, code) => {
                let game = match game {
                    Some(g) => g.clone(),
                    None => Self::need_game(job, head)?,
                };
                self.unwatch(job, &game, code.as_deref())
            }
            Order::Observers(open) => {
                let game = Self::need_game(job, head)?;
                self.open(&game, job.lang)?;
                let mut s = self.judge_state_to_change(&game)?;
                s.closed = !open;
                self.set_judge_state(&game, &s)?;
                job.applied = true;
                let (en, fr) = if *open {
                    ("The game is open to observers (WATCH).", "La partie est ouverte aux observateurs (SUIVRE).")
                } else {
                    (
                        "The game is closed to observers: they get no more reports.",
                        "La partie est fermée aux observateurs : ils ne reçoivent plus les rapports.",
                    )
                };
                job.announce.push((game.clone(), en.to_string()));
                job.notes.push(tr(job.lang, en, fr));
                self.touch(job, &game, self.store.load(&game, None).map(|g| g.next_turn()).unwrap_or(0))?;
                Ok(Some(game))
            }
            Order::Absent(dates) => self.absent(job, head, dates.as_ref()),
            Order::Retire(code) => self.retire(job, head, code.as_deref()),
            Order::Rollback(to) => self.rollback(job, head, *to),
            _ => Ok(None),
        }
    }

    /// `LIST`: the games open for joining and the running ones; `LIST <game>`: one game. Only
    /// what every player may see (no address, no token).
    fn list(&mut self, job: &mut Job, one: Option<&str>) -> Result<Option<String>, Failure> {
        let lang = job.lang;
        let now = self.now();
        let ids = match one {
            Some(g) => {
                self.open(g, job.lang)?;
                vec![g.to_string()]
            }
            None => self.store.list().map_err(store_failure("-", job.lang))?,
        };
        let (mut open, mut running) = (Vec::new(), Vec::new());
        for id in ids {
            let Ok(g) = self.store.load(&id, None) else { continue };
            let title =
                format!("{id}: {} ({}), {} lap(s), {}", g.track.title, g.setup.track, g.setup.laps, g.setup.profile);
            let closed_by = g.setup.join_by.as_deref().and_then(Stamp::parse).is_some_and(|j| now > j);
            let seats = (g.setup.max_cars as usize).saturating_sub(g.now.players.len());
            if !g.started() && !g.now.over && !closed_by && seats > 0 {
                let by = g.setup.join_by.clone().unwrap_or_else(|| tr(lang, "until the start", "jusqu'au depart"));
                open.push(tr(
                    lang,
                    &format!("  {title}; {seats} seat(s) left; joins close {by}"),
                    &format!("  {title} ; {seats} place(s) libre(s) ; inscriptions jusqu'a {by}"),
                ));
            } else if g.started() && !g.now.over {
                let (round, lead) = match &g.now.race {
                    Some(r) => (
                        r.state.round,
                        leader(&r.state, &g.track).map_or("-".to_string(), |c| r.state.car(c).number.to_string()),
                    ),
                    None => (0, "-".to_string()),
                };
                let due = g.turns.last().and_then(|t| t.due.clone()).unwrap_or_else(|| "-".into());
                running.push(tr(
                    lang,
                    &format!("  {title}; round {round}, leader car {lead}; next deadline {due}"),
                    &format!("  {title} ; tour de jeu {round}, en tete voiture {lead} ; prochaine echeance {due}"),
                ));
            } else if one.is_some() {
                running.push(tr(lang, &format!("  {title}; over"), &format!("  {title} ; terminee")));
            }
            if one.is_some() {
                let cars: Vec<String> = g
                    .now
                    .players
                    .iter()
                    .map(|p| match &p.name {
                        Some(n) => format!("{} {}", p.car, n),
                        None => p.car.to_string(),
                    })
                    .collect();
                let s = self.judge_state(&id);
                let watchers = if s.closed { 0 } else { s.watchers.len() };
                running.push(tr(
                    lang,
                    &format!(
                        "    cars: {}; observers: {watchers}{}",
                        if cars.is_empty() { "none".into() } else { cars.join(", ") },
                        if s.closed { " (closed to observers)" } else { "" }
                    ),
                    &format!(
                        "    voitures : {} ; observateurs : {watchers}{}",
                        if cars.is_empty() { "aucune".into() } else { cars.join(", ") },
                        if s.closed { " (fermee aux observateurs)" } else { "" }
                    ),
                ));
                let (en, fr) = self.moderation_of(&g);
                let mut said = String::new();
                crate::orders::wrap(
                    &mut said,
                    &tr(lang, &format!("moderated by {en}"), &format!("moderee par {fr}")),
                    4,
                );
                running.push(said.trim_end().to_string());
            }
        }
        let mut text = String::new();
        if one.is_none() {
            text.push_str(&tr(lang, "Games open for joining:\n", "Parties ouvertes aux inscriptions :\n"));
            if open.is_empty() {
                text.push_str(&tr(lang, "  none\n", "  aucune\n"));
            }
            for l in &open {
                text.push_str(l);
                text.push('\n');
            }
            text.push_str(&tr(lang, "Games running:\n", "Parties en cours :\n"));
            if running.is_empty() {
                text.push_str(&tr(lang, "  none\n", "  aucune\n"));
            }
        } else {
            text.push_str(&tr(lang, "Game:\n", "Partie :\n"));
            for l in &open {
                text.push_str(l);
                text.push('\n');
            }
        }
        for l in &running {
            text.push_str(l);
            text.push('\n');
        }
        job.extras.league.push(text);
        Ok(None)
    }

    /// The confirmation code of `address`'s WATCH of `game`: derived from the daemon's secret, so
    /// it needs no state and only the address it was mailed to knows it (issue 45: nobody is made
    /// an observer by a mail forged in their name).
    fn watch_code(&self, game: &str, address: &str) -> String {
        self.address_code(game, "watch", address)
    }

    /// Whether the mail carries `want`, the code only the sender's own address is mailed (an
    /// order no header can prove: WATCH, UNWATCH). Without a code, it is mailed with `ask`'s
    /// text to the From address alone, in a mail of its own (a Reply-To, which anyone may write,
    /// gets the receipt without it), the receipt says so, and nothing changes; a wrong code is
    /// refused.
    fn address_confirms(job: &mut Job, code: Option<&str>, want: &str, ask: AddressCheck) -> Result<bool, Failure> {
        match code {
            None => {
                Self::mail_sender_only(job, ask.subject, ask.text, None);
                job.notes.push(ask.note);
                Ok(false)
            }
            Some(c) if c != want => Err(tr(
                job.lang,
                &format!("This is not the confirmation code steward sent: send {} alone to get it again.", ask.again),
                &format!("Ce n'est pas le code de confirmation envoyé par steward : envoyez {} seul pour le recevoir à nouveau.", ask.again),
            )
            .into()),
            Some(_) => Ok(true),
        }
    }

    fn watch(&mut self, job: &mut Job, game: &str, code: Option<&str>) -> Result<Option<String>, Failure> {
        let lang = job.lang;
        let g = self.store.load(game, None).map_err(|_| format!("there is no game `{game}`"))?;
        if g.now.players.iter().any(|p| p.address.eq_ignore_ascii_case(&job.sender)) {
            return Err(tr(
                lang,
                &format!("You drive in game {game}: you get its reports already."),
                &format!("Vous courez dans la partie {game} : vous en recevez déjà les rapports."),
            )
            .into());
        }
        let mut s = self.judge_state_to_change(game)?;
        if s.closed {
            return Err(tr(
                lang,
                &format!("Game {game} is closed to observers (its moderator decided so)."),
                &format!("La partie {game} est fermée aux observateurs (décision de son modérateur)."),
            )
            .into());
        }
        let watching = s.watchers.iter().any(|w| w.eq_ignore_ascii_case(&job.sender));
        if !watching && !s.did(&job.mid) {
            // Only the address itself may make itself an observer: the code goes to it.
            let want = self.watch_code(game, &job.sender);
            let ask = AddressCheck {
                subject: tr(lang, &format!("[{game}] confirm your WATCH"), &format!("[{game}] confirmez votre SUIVRE")),
                text: tr(
                    lang,
                    &format!(
                        "To watch game {game} (its reports mailed to this address until UNWATCH {game}), send:\n\n    WATCH {game} CONFIRM {want}\n\nIf you did not ask, ignore this mail: nothing changes.\n"
                    ),
                    &format!(
                        "Pour suivre la partie {game} (ses rapports envoyés à cette adresse jusqu'à NE-PLUS-SUIVRE {game}), envoyez :\n\n    SUIVRE {game} CONFIRMER {want}\n\nSi vous n'avez rien demandé, ignorez ce message : rien ne change.\n"
                    ),
                ),
                note: tr(
                    lang,
                    &format!(
                        "Not watching yet: a confirmation code was mailed to {} (the From address, never a Reply-To).",
                        job.sender
                    ),
                    &format!(
                        "Pas encore suivi : un code de confirmation a été envoyé à {} (l'adresse From, jamais un Reply-To).",
                        job.sender
                    ),
                ),
                again: tr(lang, &format!("WATCH {game}"), &format!("SUIVRE {game}")),
            };
            if !Self::address_confirms(job, code, &want, ask)? {
                return Ok(None);
            }
        }
        if !watching || s.did(&job.mid) {
            if !watching {
                s.watchers.push(job.sender.to_lowercase());
                s.record(&job.mid);
                self.set_judge_state(game, &s)?;
            }
            job.announce.push((game.to_string(), format!("{} now watches this game (an observer).", job.sender)));
        }
        job.applied = true;
        job.notes.push(tr(
            lang,
            &format!("You watch game {game}: you will get its reports (UNWATCH {game} to stop)."),
            &format!("Vous suivez la partie {game} : vous recevrez ses rapports (NE-PLUS-SUIVRE {game} pour arreter)."),
        ));
        self.touch(job, game, g.next_turn())?;
        Ok(Some(game.to_string()))
    }

    /// The code that stops `address` watching `game`: mailed to the observer alone (in every
    /// report they get, and in answer to a bare UNWATCH), so that a mail forged in their name
    /// does not stop their reports (issue 45).
    pub(super) fn unwatch_code(&self, game: &str, address: &str) -> String {
        self.address_code(game, "unwatch", address)
    }

    fn unwatch(&mut self, job: &mut Job, game: &str, code: Option<&str>) -> Result<Option<String>, Failure> {
        let lang = job.lang;
        let mut s = self.judge_state_to_change(game)?;
        let before = s.watchers.len();
        if !s.did(&job.mid) && s.watchers.iter().any(|w| w.eq_ignore_ascii_case(&job.sender)) {
            let want = self.unwatch_code(game, &job.sender);
            let ask = AddressCheck {
                subject: tr(
                    lang,
                    &format!("[{game}] confirm your UNWATCH"),
                    &format!("[{game}] confirmez votre NE-PLUS-SUIVRE"),
                ),
                text: tr(
                    lang,
                    &format!(
                        "To stop watching game {game}, send:\n\n    UNWATCH {game} CONFIRM {want}\n\n(Every report of the game you get ends with this line.) If you did not ask, ignore this mail: nothing changes.\n"
                    ),
                    &format!(
                        "Pour ne plus suivre la partie {game}, envoyez :\n\n    NE-PLUS-SUIVRE {game} CONFIRMER {want}\n\n(Chaque rapport de la partie que vous recevez finit par cette ligne.) Si vous n'avez rien demandé, ignorez ce message : rien ne change.\n"
                    ),
                ),
                note: tr(
                    lang,
                    &format!(
                        "Still watching: a confirmation code was mailed to {} (the From address, never a Reply-To).",
                        job.sender
                    ),
                    &format!(
                        "Toujours suivi : un code de confirmation a été envoyé à {} (l'adresse From, jamais un Reply-To).",
                        job.sender
                    ),
                ),
                again: tr(lang, &format!("UNWATCH {game}"), &format!("NE-PLUS-SUIVRE {game}")),
            };
            if !Self::address_confirms(job, code, &want, ask)? {
                return Ok(None);
            }
        }
        s.watchers.retain(|w| !w.eq_ignore_ascii_case(&job.sender));
        if s.watchers.len() == before && !s.did(&job.mid) {
            return Err(tr(
                job.lang,
                &format!("You do not watch game {game}."),
                &format!("Vous ne suivez pas la partie {game}."),
            )
            .into());
        }
        s.record(&job.mid);
        self.set_judge_state(game, &s)?;
        job.applied = true;
        job.notes.push(tr(
            job.lang,
            &format!("You no longer watch game {game}."),
            &format!("Vous ne suivez plus la partie {game}."),
        ));
        Ok(None)
    }

    /// `ABSENT <from> <to>` / `ABSENT CANCEL`, signed: while absent, the car is played at once
    /// when awaited, by its standing POLICY (for a choice) or the bot, and no reminder is sent.
    fn absent(
        &mut self,
        job: &mut Job,
        head: &Header,
        dates: Option<&(String, String)>,
    ) -> Result<Option<String>, Failure> {
        let lang = job.lang;
        let game = Self::need_game(job, head)?;
        let h = self.open(&game, job.lang)?;
        let car = self.player_car(job, h.game(), head)?;
        if h.game().now.over {
            return Err(StoreError::Over.to_string().into());
        }
        let mut s = self.judge_state_to_change(&game)?;
        let Some((from, to)) = dates else {
            let before = s.absences.len();
            s.absences.retain(|a| a.car != car);
            if before == s.absences.len() && !s.did(&job.mid) {
                return Err(tr(
                    lang,
                    &format!("Car {car} has no absence to cancel."),
                    &format!("La voiture {car} n'a pas d'absence a annuler."),
                )
                .into());
            }
            s.record(&job.mid);
            self.set_judge_state(&game, &s)?;
            job.applied = true;
            job.announce.push((game.clone(), format!("Car {car}'s player is back: the absence is cancelled.")));
            self.touch(job, &game, h.game().next_turn())?;
            return Ok(Some(game));
        };
        let today = day(self.now());
        if *from < today {
            return Err(tr(
                lang,
                &format!("ABSENT {from} {to}: {from} is in the past (today is {today}, UTC)."),
                &format!("ABSENT {from} {to} : {from} est passe (nous sommes le {today}, UTC)."),
            )
            .into());
        }
        // A league may cap the absences a driver declares in a season (docs/leagues.md).
        let league = super::super::league::league_of_game(&self.store.dir, &game).map(|(l, _)| l);
        let mut counted = None;
        if !s.absences.iter().any(|a| a.car == car)
            && let Some(l) = league.as_ref()
            && let Some(cap) = l.max_absences
        {
            let mut ls = self.judge_state_to_change(&l.name)?;
            let taken = ls.season_absences.get(&job.sender.to_lowercase()).copied().unwrap_or(0);
            if taken >= cap {
                let word = if cap == 1 { "absence" } else { "absences" };
                return Err(tr(
                    lang,
                    &format!(
                        "League {} allows {cap} {word} a season, and you have declared {taken} (a cancelled one \
                         counts; while one is declared, ABSENT again for the same car changes its dates).",
                        l.name
                    ),
                    &format!(
                        "La ligue {} permet {cap} {word} par saison, et vous en avez declare {taken} (une absence \
                         annulee compte ; tant qu'une absence est declaree, ABSENT a nouveau pour la meme voiture \
                         en change les dates).",
                        l.name
                    ),
                )
                .into());
            }
            ls.season_absences.insert(job.sender.to_lowercase(), taken + 1);
            counted = Some((l.name.clone(), ls));
        }
        s.absences.retain(|a| a.car != car);
        s.absences.push(Absence { car, from: from.clone(), to: to.clone() });
        self.set_judge_state(&game, &s)?;
        if let Some((name, ls)) = counted {
            self.set_judge_state(&name, &ls)?;
        }
        job.applied = true;
        job.announce.push((
            game.clone(),
            format!("Car {car}'s player is absent from {from} to {to} (UTC): its standing POLICY, else the bot, plays it meanwhile."),
        ));
        job.notes.push(tr(
            lang,
            &format!("Car {car} is absent from {from} to {to}: played by its POLICY, else the bot, without reminders (ABSENT CANCEL when back)."),
            &format!("La voiture {car} est absente du {from} au {to} : jouee par sa CONSIGNE, sinon le bot, sans rappel (ABSENT ANNULER au retour)."),
        ));
        self.touch(job, &game, h.game().next_turn())?;
        Ok(Some(game))
    }

    /// The confirmation code of car `car`'s retirement from `game`: derived from the daemon's
    /// secret, so it needs no state and only the player it was mailed to knows it.
    fn retire_code(&self, game: &str, car: u8) -> String {
        self.derive_token(game, "retire", &format!("car-{car}"))[..8].to_string()
    }

    /// `RETIRE`, signed: the first mail gets the confirmation code, `RETIRE CONFIRM <code>`
    /// retires the car (a `player` turn: out where it stands, a DNF, ruling 51).
    fn retire(&mut self, job: &mut Job, head: &Header, code: Option<&str>) -> Result<Option<String>, Failure> {
        let lang = job.lang;
        let game = Self::need_game(job, head)?;
        let mut h = self.open(&game, job.lang)?;
        let car = self.player_car(job, h.game(), head)?;
        let done = h.game().turns.iter().any(|t| {
            t.kind == Kind::Player && t.source.as_ref().and_then(|s| s.message_id.as_deref()) == Some(job.mid.as_str())
        });
        if done {
            job.applied = true;
            return Ok(Some(game));
        }
        let g = h.game();
        if g.now.over {
            return Err(StoreError::Over.to_string().into());
        }
        if !g.started() || g.now.race.is_none() {
            return Err(tr(
                lang,
                "The race has not started: a car retires from a race under way (before the start, ask the moderator).",
                "La course n'a pas commence : une voiture abandonne en course (avant le depart, demandez au moderateur).",
            ).into());
        }
        let want = self.retire_code(&game, car);
        let Some(code) = code else {
            job.notes.push(tr(
                lang,
                &format!("To retire car {car} from game {game} (out of the race for good, classified as did not finish), send RETIRE CONFIRM {want} with your GAME, CAR and TOKEN lines."),
                &format!("Pour faire abandonner la voiture {car} dans la partie {game} (hors course pour de bon, classee non partante a l'arrivée), envoyez ABANDON CONFIRMER {want} avec vos lignes PARTIE, VOITURE et JETON."),
            ));
            return Ok(None);
        };
        if code != want {
            return Err(tr(
                lang,
                "This is not the confirmation code steward sent: send RETIRE alone to get it again.",
                "Ce n'est pas le code de confirmation envoye par steward : envoyez ABANDON seul pour le recevoir a nouveau.",
            ).into());
        }
        let next = g.next_turn();
        self.touch(job, &game, next)?;
        let meta = self.meta(job, None);
        h.retire(car, meta).map_err(store_failure(&game, job.lang))?;
        job.applied = true;
        Ok(Some(game))
    }

    /// `ROLLBACK <turn>`, moderators: a `rollback` turn (docs/store.md). Gears sent ahead are
    /// dropped: they answered a race that is no more.
    fn rollback(&mut self, job: &mut Job, head: &Header, to: u32) -> Result<Option<String>, Failure> {
        let game = Self::need_game(job, head)?;
        let mut h = self.open(&game, job.lang)?;
        // Read again after a crash that came after the rollback turn was written: the gears it
        // drops may still be there (the job is the first read since, so they predate it).
        let again = Self::done_before(h.game(), &job.mid, Kind::Rollback, None);
        if !again && let Some(why) = h.game().rollback_refusal(to) {
            return Err(tr(
                job.lang,
                &format!("ROLLBACK {to} is refused: {why}."),
                &format!("REVENIR {to} est refuse : {why}."),
            )
            .into());
        }
        if !again {
            let next = h.game().next_turn();
            self.touch(job, &game, next)?;
            let meta = self.meta(job, Some("moderator"));
            h.rollback(to, meta).map_err(store_failure(&game, job.lang))?;
        }
        let cars: Vec<u8> = h.game().now.players.iter().map(|p| p.car).collect();
        for car in cars {
            let mut orders = self.car_orders(&game, car)?;
            let gear = orders.gear.take().is_some();
            let drive = orders.drive.take().is_some();
            if gear || drive {
                self.set_car_orders(&game, car, &orders)?;
                if gear {
                    job.announce
                        .push((game.clone(), format!("Car {car}'s GEAR sent ahead is dropped by the rollback.")));
                }
                if drive {
                    job.announce
                        .push((game.clone(), format!("Car {car}'s DRIVE sent ahead is dropped by the rollback.")));
                }
            }
        }
        job.applied = true;
        Ok(Some(game))
    }
}

/// What an order only its own address may give says, in the mail's language
/// ([`Daemon::address_confirms`]): the mail with the code (subject, text), the receipt's note,
/// and the order to send alone to get the code again.
struct AddressCheck {
    subject: String,
    text: String,
    note: String,
    again: String,
}
