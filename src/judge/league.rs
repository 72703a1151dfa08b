//! Leagues by mail: the league table in answer to `STANDINGS`, the standings mailed to every
//! driver of the league when one of its races ends, and the referee of a race (FORS: the
//! previous race's top scorer) holding the moderator's rights on that race's game. The league
//! itself is `games/<league>/league.toml` (docs/leagues.md); this module only reads it.

use std::path::Path;

use crate::league::config::{GridMethod, League, RaceRecord};
use crate::league::results::{league_standings, next_race, referee};
use crate::league::table;
use crate::store::Game;
use crate::store::hash::token_hash;

use crate::judge::service::{Daemon, DaemonError, Failure, Job};
use crate::mail::compose::Draft;
use crate::orders::LeagueAction;

/// Every league in the games directory (the directories holding a `league.toml`), by name.
pub fn leagues(games: &Path) -> Vec<League> {
    let Ok(entries) = std::fs::read_dir(games) else { return Vec::new() };
    let mut v: Vec<League> = entries
        .flatten()
        .filter(|e| e.path().join("league.toml").is_file())
        .filter_map(|e| League::load(games, e.file_name().to_str()?).ok())
        .collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

/// The league whose season has race game `game`, with the race's 1-based number.
pub fn league_of_game(games: &Path, game: &str) -> Option<(League, usize)> {
    leagues(games).into_iter().find_map(|l| {
        let n = l.race_of_game(game)?;
        Some((l, n))
    })
}

/// The league table as text, or why it cannot be made.
pub fn table_text(games: &Path, league: &League) -> String {
    match league_standings(games, league) {
        Ok(s) => table::text(league, &s),
        Err(e) => format!("The standings of {} cannot be computed: {e}", league.name),
    }
}

impl Daemon {
    /// The tables `STANDINGS` answers for `name`: a league's, or the league table of the
    /// league game `name` is a race of.
    pub(super) fn league_tables(&self, name: &str) -> Option<String> {
        let games = &self.store.dir;
        if games.join(name).join("league.toml").is_file() {
            return Some(match League::load(games, name) {
                Ok(l) => table_text(games, &l),
                Err(e) => e.to_string(),
            });
        }
        league_of_game(games, name).map(|(l, _)| table_text(games, &l))
    }

    /// The standings for every driver of the league when this job's turns (from `first`) ended
    /// league race `game`: one mail to the whole league (004: each race day is scored).
    pub(super) fn league_news(&self, g: &Game, first: u32) -> Result<Vec<Draft>, DaemonError> {
        let ended = g.turns.iter().position(|t| t.over).is_some_and(|i| i as u32 >= first);
        if !ended {
            return Ok(Vec::new());
        }
        let games = &self.store.dir;
        let Some((league, n)) = league_of_game(games, &g.setup.id) else { return Ok(Vec::new()) };
        let mut to: Vec<String> = league.drivers.iter().map(|d| d.address.clone()).collect();
        if !to.iter().any(|a| a.eq_ignore_ascii_case(&league.moderator)) {
            to.push(league.moderator.clone());
        }
        let mut text = format!("Race {n} of {} ({}) is over.\n\n", league.name, g.setup.id);
        text.push_str(&table_text(games, &league));
        if let Some(next) = league.races.get(n)
            && let Ok(r) = referee(games, &league, n + 1)
        {
            text.push_str(&match league.marshal_team(n + 1) {
                Some(team) => format!(
                    "\nTrack Marshal of race {} ({}): {r}; team {team} sits it out (002 \"Series Length\").\n",
                    n + 1,
                    next.game
                ),
                None => {
                    format!("\nReferee of race {} ({}): {r} (004: the previous race's top scorer).\n", n + 1, next.game)
                }
            });
        }
        Ok(vec![Draft {
            to,
            subject: format!("[{}] standings after race {n}", league.name),
            text,
            in_reply_to: None,
            message_id: String::new(),
            reply_to: None,
            picture: None,
        }])
    }

    /// The token of the Track Marshal `address` on race game `game` (002 "Series Length", ruling
    /// 42): derived, never stored, so that it is the same every time it is asked for.
    fn marshal_token(&self, game: &str, address: &str) -> String {
        self.derive_token(game, &address.to_ascii_lowercase(), "marshal")
    }

    /// When `game` is a race of a league with Track Marshals: the marshal's token, mailed to them
    /// alone with the game's creation (their team sits the race out, so they have no car, and no
    /// player token, in it).
    pub(super) fn marshal_news(&self, job: &mut Job, game: &str) {
        let games = &self.store.dir;
        let Some((league, n)) = league_of_game(games, game) else { return };
        let Some(team) = league.marshal_team(n) else { return };
        let Ok(r) = referee(games, &league, n) else { return };
        if r.eq_ignore_ascii_case(&league.moderator) {
            return;
        }
        let token = self.marshal_token(game, &r);
        job.secret_drafts.push(Draft {
            to: vec![r.to_ascii_lowercase()],
            subject: format!("[{game}] you are the Track Marshal of race {n} of {}", league.name),
            text: format!(
                "You are the Track Marshal (the race umpire) of race {n} of {} (game {game}): team {team} sits it \
                 out (002 \"Series Length\").\n\nYou hold the moderator's orders on this game (START, PAUSE, \
                 RESUME, DEADLINE, REPLACE, FORCE, REVEAL). Send them with:\n    GAME {game}\n    TOKEN {token}\n",
                league.name
            ),
            in_reply_to: None,
            message_id: String::new(),
            reply_to: None,
            picture: None,
        });
    }

    /// Who moderates `g`, as `LIST <game>` says it (issue 45, ruling 52): the server's
    /// moderators, and in a league race its referee or track marshal; a moderator who drives a
    /// car of the game is named by the car, with what they may not do. English, French.
    pub(super) fn moderation_of(&self, g: &Game) -> (String, String) {
        let drives = |a: &str| g.now.players.iter().find(|p| p.address.eq_ignore_ascii_case(a)).map(|p| p.car);
        let mut en = "the server's moderators".to_string();
        let mut fr = "les moderateurs du serveur".to_string();
        let mut one_drives = false;
        let games = &self.store.dir;
        if let Some((league, n)) = league_of_game(games, &g.setup.id)
            && let Ok(r) = referee(games, &league, n)
            && !r.eq_ignore_ascii_case(&league.moderator)
        {
            match drives(&r) {
                Some(car) => {
                    one_drives = true;
                    en.push_str(&format!(" and the race's referee, who drives car {car}"));
                    fr.push_str(&format!(" et l'arbitre de la course, qui pilote la voiture {car}"));
                }
                None => {
                    en.push_str(" and the race's track marshal, who drives no car");
                    fr.push_str(" et le commissaire de la course, qui ne pilote pas");
                }
            }
        }
        let mut driving: Vec<u8> = self.cfg.moderators.iter().filter_map(|m| drives(&m.address)).collect();
        driving.sort_unstable();
        if let Some(car) = driving.first() {
            one_drives = true;
            en.push_str(&format!(" (one of them drives car {car})"));
            fr.push_str(&format!(" (l'un d'eux pilote la voiture {car})"));
        }
        if one_drives {
            en.push_str(": a moderator who drives keeps the clock only, REPLACE, FORCE, ROLLBACK and REVEAL come from one who does not (ruling 52)");
            fr.push_str(" : un moderateur qui pilote ne tient que l'horloge, REMPLACER, FORCER, REVENIR et REVELER viennent d'un moderateur qui ne pilote pas (decision 52)");
        }
        (en, fr)
    }

    /// Whether `address` with `token` (their player token in the game) is the referee of
    /// league race `game`: the moderator's rights on that game (004 "The Race Day"). A Track
    /// Marshal, who has no car in the game, signs with the token mailed at its creation (002).
    pub(super) fn is_referee(&self, address: &str, token: Option<&str>, game: Option<&str>) -> bool {
        let (Some(token), Some(game)) = (token, game) else { return false };
        let games = &self.store.dir;
        let Some((league, n)) = league_of_game(games, game) else { return false };
        let Ok(r) = referee(games, &league, n) else { return false };
        if !r.eq_ignore_ascii_case(address) || r.eq_ignore_ascii_case(&league.moderator) {
            return false;
        }
        let Ok(h) = self.store.open(game) else { return false };
        let players = &h.game().now.players;
        match players.iter().find(|p| p.address.eq_ignore_ascii_case(address)) {
            Some(p) => p.token_sha256 == token_hash(game, token),
            None => league.marshal_team(n).is_some() && token == self.marshal_token(game, address),
        }
    }

    /// A `LEAGUE` line: the standings for anyone; an edit of `league.toml` for a moderator
    /// (checked before). A refused edit changes nothing and says why.
    pub(super) fn league_order(
        &mut self,
        job: &mut Job,
        name: &str,
        action: &LeagueAction,
    ) -> Result<Option<String>, Failure> {
        let games = self.store.dir.clone();
        let mut league = League::load(&games, name).map_err(league_failure)?;
        if *action == LeagueAction::Standings {
            job.extras.league.push(table_text(&games, &league));
            return Ok(None);
        }
        // A message read again after a crash finds its edit made: it says so and changes nothing.
        let made = match action {
            LeagueAction::Enter(a) => league.driver(a).is_some_and(|d| d.withdrawn.is_none()),
            LeagueAction::Withdraw(a) => league.driver(a).is_some_and(|d| d.withdrawn.is_some()),
            LeagueAction::Team { name: team, drivers } => {
                drivers.iter().all(|a| league.driver(a).is_some_and(|d| d.team.as_deref() == Some(team.as_str())))
            }
            LeagueAction::Race { game, track, laps, grid } => league
                .races
                .iter()
                .any(|r| &r.game == game && &r.track == track && r.laps == *laps && r.grid.name() == grid.as_str()),
            LeagueAction::Standings => false,
        };
        if made {
            job.notes.push(format!("{name}: already done, nothing changed."));
            return Ok(None);
        }
        let from = next_race(&games, &league).map_err(|e| e.to_string())?;
        let done = match action {
            LeagueAction::Enter(a) => {
                league.enter(a, None, from).map(|()| format!("{a} is entered in {name} from race {from}."))
            }
            LeagueAction::Withdraw(a) => {
                league.withdraw(a, from).map(|()| format!("{a} is withdrawn from {name} from race {from}."))
            }
            LeagueAction::Team { name: team, drivers } => {
                let refs: Vec<&str> = drivers.iter().map(String::as_str).collect();
                league.form_team(team, &refs, from).map(|()| format!("Team {team} of {name}: {}.", drivers.join(", ")))
            }
            LeagueAction::Race { game, track, laps, grid } => {
                let grid = GridMethod::parse(grid).unwrap_or_default();
                let race = RaceRecord {
                    game: game.clone(),
                    track: track.clone(),
                    laps: *laps,
                    grid,
                    referee: None,
                    bids: Vec::new(),
                };
                league.add_race(race).map(|()| {
                    format!(
                        "Race {} of {name}: {game} on {track}, {laps} laps, grid by {}.",
                        league.races.len(),
                        grid.name()
                    )
                })
            }
            LeagueAction::Standings => unreachable!("answered above"),
        }
        .map_err(|e| e.to_string())?;
        league.save(&games).map_err(league_failure)?;
        job.notes.push(done);
        job.applied = true;
        Ok(None)
    }
}

/// A league file's failure, as [`Failure`] sorts them: one that cannot be read or written is
/// the system's; a league that does not exist or does not parse is said to the sender.
fn league_failure(e: crate::league::LeagueError) -> Failure {
    match e {
        crate::league::LeagueError::Io { path, source } => {
            Failure::System(DaemonError::Io { what: path.display().to_string(), source })
        }
        e => Failure::Note(e.to_string()),
    }
}
