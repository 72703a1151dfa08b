//! Entering a race: `JOIN` (with the `SETUP`, `TYRES` and `BOXES` of the same message) and
//! `CREATE`. Split from the orders of a message (`super`).

use super::*;

impl Daemon {
    /// JOIN and CREATE.
    pub(super) fn enter(
        &mut self,
        job: &mut Job,
        msg: &Incoming,
        o: &Order,
        sheet: &JoinSheet,
    ) -> Result<Option<String>, Failure> {
        let lang = job.lang;
        match o {
            Order::Join { game, car, password, phrase, confirm } => {
                let mut h = self.open(game, job.lang)?;
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
                let seated = h.game().now.players.iter().any(|p| p.address.eq_ignore_ascii_case(&job.sender));
                if !Self::done_before(h.game(), &job.mid, Kind::Join, None) && !seated {
                    // Only the address itself takes a car (issue 45, item 4): the first JOIN
                    // gets a code mailed to its From address (never to a Reply-To), the JOIN
                    // sent again with `CONFIRM <code>` takes the car.
                    let want = self.join_code(game, &job.sender);
                    match confirm.as_deref() {
                        Some(c) if c == want => {}
                        Some(_) => {
                            return Err(tr(
                                lang,
                                &format!("This is not the confirmation code steward mailed to {}: send your JOIN without CONFIRM to get it again.", job.sender),
                                &format!("Ce n'est pas le code de confirmation envoyé par steward à {} : envoyez votre REJOINDRE sans CONFIRMER pour le recevoir à nouveau.", job.sender),
                            )
                            .into());
                        }
                        None => {
                            self.mail_code(job, msg, game, &want, (*car, password.is_some()), phrase.as_deref());
                            return Ok(Some(game.clone()));
                        }
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
                    let t = h.join(&req, meta).map_err(store_failure(game, job.lang))?;
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
                    subject: crate::say!(lang, "subject.welcome", game = game, car = number),
                    text,
                    in_reply_to: msg.message_id.clone(),
                    message_id: String::new(),
                    reply_to: None,
                    picture: None,
                });
                Ok(Some(game.clone()))
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
                round_pace,
                schedule,
                beacon,
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
                    round_deadlines: *round_pace,
                    schedule: schedule.clone(),
                    scheme: crate::dice::Scheme::V3,
                    beacon: beacon.clone(),
                };
                let seed = crate::store::driver::os_random().map_err(store_failure(game, job.lang))?;
                self.touch(job, game, 0)?;
                let meta = self.meta(job, None);
                self.store.create(&req, seed, meta).map_err(store_failure(game, job.lang))?;
                let settings =
                    crate::judge::standing::GameSettings { created_by: Some(job.sender.clone()), ..Default::default() };
                self.standing.set_game(game, &settings).map_err(io("writing the game's settings"))?;
                job.applied = true;
                self.marshal_news(job, game);
                Ok(Some(game.clone()))
            }
            _ => unreachable!("act routes only JOIN and CREATE here"),
        }
    }
}

impl Daemon {
    /// The confirmation code of `address`'s JOIN of `game`: derived from the daemon's secret, so
    /// it needs no state and only the address it was mailed to knows it.
    pub(super) fn join_code(&self, game: &str, address: &str) -> String {
        self.address_code(game, "join-confirm", address)
    }

    /// Mails the JOIN's confirmation code to the From address alone, with the line to send back,
    /// and notes in the receipt where it went.
    fn mail_code(
        &self,
        job: &mut Job,
        msg: &Incoming,
        game: &str,
        code: &str,
        (car, password): (Option<u8>, bool),
        phrase: Option<&str>,
    ) {
        let fr = job.lang == Lang::Fr;
        let line = format!(
            "{} {game} {} {code}{}{}",
            if fr { "REJOINDRE" } else { "JOIN" },
            if fr { "CONFIRMER" } else { "CONFIRM" },
            car.map(|c| format!(" {} {c}", if fr { "VOITURE" } else { "CAR" })).unwrap_or_default()
                + match (password, fr) {
                    (false, _) => "",
                    (true, false) => " PASSWORD <the game's password>",
                    (true, true) => " MOTDEPASSE <le mot de passe de la partie>",
                },
            // A PHRASE takes the rest of its line: the player keeps theirs after CONFIRM.
            if phrase.is_some() { " PHRASE ..." } else { "" },
        );
        let text = if fr {
            format!(
                "Quelqu'un a demandé une voiture dans la partie {game} au nom de cette adresse ({}).\n\nSi c'est vous, renvoyez votre message d'inscription (avec ses lignes CONFIG, PNEUS, BOXES, LANGUE...) avec CONFIRMER {code} après le nom de la partie sur la ligne REJOINDRE :\n\n    {line}\n\nSi vous n'avez rien demande, ignorez ce message : rien ne change.\n",
                job.sender
            )
        } else {
            format!(
                "Someone asked for a car in game {game} in the name of this address ({}).\n\nIf it was you, send your join mail again (with its SETUP, TYRES, BOXES, LANG... lines) with CONFIRM {code} after the game's name on the JOIN line:\n\n    {line}\n\nIf you did not ask, ignore this mail: nothing changes.\n",
                job.sender
            )
        };
        if msg.reply_address().eq_ignore_ascii_case(&job.sender) {
            // The receipt goes to the From address itself: it carries the code.
            job.notes.push(if fr {
                format!("Rien n'est encore inscrit : cette adresse doit confirmer. Renvoyez ce message avec CONFIRMER {code} après le nom de la partie sur la ligne REJOINDRE :\n    {line}\n  (Si vous n'avez rien demande, ignorez ce message : rien ne change.)")
            } else {
                format!("Nothing is joined yet: this address must confirm. Send this mail again with CONFIRM {code} after the game's name on the JOIN line:\n    {line}\n  (If you did not ask, ignore this mail: nothing changes.)")
            });
            return;
        }
        let subject =
            tr(job.lang, &format!("[{game}] confirm your join"), &format!("[{game}] confirmez votre inscription"));
        Self::mail_sender_only(job, subject, text, msg.message_id.clone());
        job.notes.push(tr(
            job.lang,
            &format!("Nothing is joined yet: a confirmation code was mailed to {} (the From address, never a Reply-To). Send the JOIN again with CONFIRM <code> to take the car.", job.sender),
            &format!("Rien n'est encore inscrit : un code de confirmation a été envoyé à {} (l'adresse From, jamais un Reply-To). Renvoyez le REJOINDRE avec CONFIRMER <code> pour prendre la voiture.", job.sender),
        ));
    }
}
