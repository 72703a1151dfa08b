//! A game's moderator commands: `START`, `REVEAL`, `PAUSE`, `RESUME`, `DEADLINE`, `REPLACE`
//! and `FORCE` (the moderators' commands between races are in `judge`). Split from the orders
//! of a message (`super`).

use super::*;

impl Daemon {
    /// START, REVEAL, PAUSE, RESUME, DEADLINE, REPLACE and FORCE.
    pub(super) fn moderate(&mut self, job: &mut Job, head: &Header, o: &Order) -> Result<Option<String>, Failure> {
        match o {
            Order::Start(_) | Order::Reveal | Order::Pause | Order::Resume | Order::Deadline(_) => {
                let game = Self::need_game(job, head)?;
                let mut h = self.open(&game, job.lang)?;
                let (kind, action) = match o {
                    Order::Start(_) => (Kind::Start, None),
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
                        (Kind::Start, _) => {
                            h.start_with(if let Order::Start(b) = o { b.as_deref() } else { None }, meta)
                        }
                        (Kind::Reveal, _) => h.reveal(meta),
                        (_, Some(m)) => h.moderate(m, meta),
                        _ => unreachable!("every kind has its call"),
                    };
                    r.map_err(store_failure(&game, job.lang))?;
                }
                job.applied = true;
                Ok(Some(game))
            }
            Order::Replace { car, address } => {
                let game = Self::need_game(job, head)?;
                let mut h = self.open(&game, job.lang)?;
                let token = self.derive_token(&game, &job.mid, &format!("replace-{car}"));
                if !Self::done_before(h.game(), &job.mid, Kind::Moderate, None) {
                    let next = h.game().next_turn();
                    self.touch(job, &game, next)?;
                    let meta = self.meta(job, Some("moderator"));
                    let m = Moderation::Replace {
                        car: *car,
                        address: address.to_lowercase(),
                        token_sha256: crate::store::hash::token_hash(&game, &token),
                    };
                    h.moderate(m, meta).map_err(store_failure(&game, job.lang))?;
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
            Order::Force { car } => {
                let game = Self::need_game(job, head)?;
                let mut h = self.open(&game, job.lang)?;
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
                    h.bot_lap(*car, &mut self.bot, meta).map_err(store_failure(&game, job.lang))?;
                } else {
                    h.bot_move(&mut self.bot, meta).map_err(store_failure(&game, job.lang))?;
                }
                job.applied = true;
                Ok(Some(game))
            }
            _ => unreachable!("act routes only a game's moderator commands here"),
        }
    }
}
