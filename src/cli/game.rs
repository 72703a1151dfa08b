//! The game commands of the command line (`new`, `join`, `start`, `play`, `show`, `verify`,
//! `reveal`, `audit`): clap arguments turned into game-driver calls. No rule logic lives here;
//! like `cli.rs`, this is where `anyhow` may be used.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};

use crate::engine::bot::Bot;
use crate::engine::pits::PitChoice;
use crate::engine::weather::Forecast;
use crate::engine::{Tyres, Wear};
use crate::store::driver::{self, Join, Meta, NewGame, Store, load_dir, new_token, os_random};
use crate::store::files::{By, Source};
use crate::store::hash::parse_hex32;
use crate::store::qualifying::GridMethod;
use crate::store::verify::SeedFrom;
use crate::store::{Stamp, audit, show, verify};

/// Where the games live.
#[derive(Debug, Args)]
pub struct GamesArg {
    /// The games directory (default `$STEWARD_GAMES`, else `./games`).
    #[arg(long, value_name = "DIR")]
    games: Option<PathBuf>,
}

/// The message an order came from (filled in by the mail daemon).
#[derive(Debug, Args)]
pub struct SourceArgs {
    /// The sender's address.
    #[arg(long)]
    from: Option<String>,
    /// The message's Message-ID.
    #[arg(long)]
    message_id: Option<String>,
    /// The message's IMAP UID.
    #[arg(long)]
    imap_uid: Option<u32>,
}

impl SourceArgs {
    fn meta(&self, by: &str) -> Meta {
        let source = if self.from.is_none() && self.message_id.is_none() && self.imap_uid.is_none() {
            Source { by: Some(by.into()), ..Source::default() }
        } else {
            Source { from: self.from.clone(), message_id: self.message_id.clone(), imap_uid: self.imap_uid, by: None }
        };
        Meta { at: Stamp::now(), source: Some(source) }
    }
}

/// The game commands.
#[derive(Debug, Subcommand)]
pub enum GameCommand {
    /// Create a game: a secret seed from the OS, its SHA-256 commitment published in turn 0.
    New {
        /// The game's name (lowercase letters, digits, `-`, `_`, `.`).
        game: String,
        /// A shipped track's name or a track file.
        #[arg(long)]
        track: String,
        /// Laps.
        #[arg(long, default_value_t = 3)]
        laps: u16,
        /// Rule profile: competition-2004, competition-2002 or eurogames-advanced.
        #[arg(long, default_value = "competition-2004")]
        profile: String,
        /// Eurogames advanced rules switched on, comma-separated (slipstream, time-trials, tyres,
        /// weather, construction, road-holding, pits, or `all`; docs/profiles.md).
        #[arg(long, value_delimiter = ',')]
        toggles: Option<Vec<String>>,
        /// Most cars (default: the track's grid).
        #[arg(long)]
        max_cars: Option<u8>,
        /// Hours a player has to answer before the bot plays for them.
        #[arg(long, default_value_t = 48)]
        move_hours: u32,
        /// Joins close at this UTC time (`2026-05-01T12:00:00Z`).
        #[arg(long)]
        join_by: Option<String>,
        /// Race weather: track (drawn on the track's table at the start, 3-2-1), sun, rain or
        /// changeable.
        #[arg(long, default_value = "track")]
        weather: String,
        /// The grid: join (join order), qualifying (timed laps by mail, ties by completion order)
        /// or qualifying-black-die (ties by a black die).
        #[arg(long, default_value = "join")]
        grid: String,
        /// When a changeable sky is tested: rolls (after a 20 in 5th or 30 in 6th, 3-2-4) or
        /// lap-thirds (002: three times a lap as the leader passes; ruling 46).
        #[arg(long, default_value = "rolls")]
        weather_checks: String,
        /// Players may join after the start, from the pit-lane exit, while the field is still on
        /// the grid (004 "Late Arrivals").
        #[arg(long)]
        late_arrivals: bool,
        /// How cars finishing in the same round are placed: crossing (the order they cross the
        /// line, 21-1-4) or portion (004: the smallest portion of the move used to touch the line
        /// first; a league race on 004's layer; ruling 50).
        #[arg(long, default_value = "crossing")]
        finish_ties: String,
        /// In which order the players choose their pit boxes: grid (the pole first, 4-0-1) or
        /// reverse-grid (the back of the grid first, 002 after a d20 grid; ruling 48).
        #[arg(long, default_value = "grid")]
        pit_choice: String,
        /// Backmarkers join the race when the leader finishes the first lap: half the field,
        /// slow cars no player drives (002 "Backmarkers"; ruling 49).
        #[arg(long)]
        backmarkers: bool,
        /// Deadlines per round: every decision of a round is due --move-hours after the round
        /// began, a choice asked after a roll at least a quarter of that after it is asked, so
        /// that the players send their round orders side by side (docs/daemon.md).
        #[arg(long)]
        round_deadlines: bool,
        /// Every round due at this time of day (`20:00`) in --zone, the first one at least
        /// --notice hours after the round began (implies --round-deadlines; docs/daemon.md).
        #[arg(long)]
        round_at: Option<String>,
        /// The game's time zone, for --round-at (`Europe/Paris`).
        #[arg(long, default_value = "UTC")]
        zone: String,
        /// With --round-at: no deadline on Saturdays and Sundays.
        #[arg(long)]
        skip_weekends: bool,
        /// With --round-at: the least notice, in hours, a round gets.
        #[arg(long, default_value_t = crate::store::schedule::DEFAULT_NOTICE_HOURS)]
        notice: u32,
        /// With --round-at: minutes after the deadline in which an order is still taken.
        #[arg(long, default_value_t = 0)]
        grace: u32,
        /// A public beacon mixed into the dice key at the start, named before any join:
        /// `drand:<round>` (drand mainnet) or `nist:<minute>` (the NIST beacon's pulse,
        /// `nist:2026-12-10T20:00:00Z`); joins close when its value becomes public (docs/dice.md).
        #[arg(long)]
        beacon: Option<String>,
        #[command(flatten)]
        games: GamesArg,
    },
    /// Join a game with a car; prints the token the player's orders will carry.
    Join {
        /// The game.
        game: String,
        /// The player's mail address.
        #[arg(long)]
        address: String,
        /// The player's token (default: a fresh random one, printed once).
        #[arg(long)]
        token: Option<String>,
        /// Car number (default: the lowest free).
        #[arg(long)]
        car: Option<u8>,
        /// Display name.
        #[arg(long)]
        name: Option<String>,
        /// Tyres: hard, soft, rain.
        #[arg(long, default_value = "hard")]
        tyres: String,
        /// Tyres if the track is wet at the start (default: the same as --tyres).
        #[arg(long)]
        wet_tyres: Option<String>,
        /// Wear points: tyres,brakes,gas,body,engine,handling (default 6,4,3,3,3,1).
        #[arg(long)]
        wear: Option<String>,
        /// A free phrase mixed into the dice key at the start.
        #[arg(long)]
        entropy: Option<String>,
        /// The bot drives this car.
        #[arg(long)]
        bot: bool,
        /// The driver's points for this race: each re-rolls one gear roll (002, ruling 45).
        #[arg(long, default_value_t = 0)]
        driver_points: u8,
        /// The pit boxes wanted, best first, comma-separated, numbered from 1 along the pit lane
        /// (4-0-1; default: the box of the car's grid slot).
        #[arg(long, value_delimiter = ',')]
        boxes: Vec<u8>,
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        games: GamesArg,
    },
    /// Start the race: the dice key is derived from the seed, every player's phrase and the
    /// game's beacon value, if it names one.
    Start {
        /// The game.
        game: String,
        /// The value of the game's beacon, as read at its source (64 or 128 hex digits).
        #[arg(long)]
        beacon: Option<String>,
        #[command(flatten)]
        games: GamesArg,
    },
    /// Play an order for a car: a gear, a choice (letter or destination space), or the bot's move.
    Play {
        /// The game.
        game: String,
        /// The car's number (default with --bot: the car awaited).
        #[arg(long)]
        car: Option<u8>,
        /// Announce this gear.
        #[arg(long, conflicts_with_all = ["choose", "bot"])]
        gear: Option<u8>,
        /// Choose this option (letter) or destination (space id).
        #[arg(long, conflicts_with = "bot")]
        choose: Option<String>,
        /// With --choose ending at the car's box: `quick` or `long` stop (19-3, 19-4).
        #[arg(long, requires = "choose")]
        stop: Option<String>,
        /// With --choose ending at the car's box: the tyres announced (default: the same, 19-2-7).
        #[arg(long, requires = "choose")]
        tyres: Option<String>,
        /// With --stop long: a repair from the pit points, `part=points` (`brakes=1`), repeatable.
        #[arg(long, requires = "choose")]
        repair: Vec<String>,
        /// Expend a driver point to re-roll the gear roll awaiting the car's choice (002, ruling 45).
        #[arg(long, conflicts_with_all = ["gear", "choose", "bot"])]
        reroll: bool,
        /// Let the bot play the car awaited (a bot car, or a missed deadline).
        #[arg(long)]
        bot: bool,
        /// Check this token against the sender (`--from`) before playing.
        #[arg(long, requires = "from")]
        token: Option<String>,
        #[command(flatten)]
        source: SourceArgs,
        #[command(flatten)]
        games: GamesArg,
    },
    /// Show a game as a player sees it: the turn, the board, the car sheets, the options.
    Show {
        /// The game (a name, or a game directory).
        game: String,
        /// Show it as it stood after this turn.
        #[arg(long)]
        turn: Option<u32>,
        #[command(flatten)]
        games: GamesArg,
    },
    /// Replay a game and check everything; exits 1 naming the first bad turn, 3 when there is
    /// no such game (or mailbox) to check, 4 when the mails lack what a check needs.
    Verify {
        /// The game (a name, or a game directory); not with --mail.
        #[arg(required_unless_present = "mail", conflicts_with = "mail")]
        game: Option<String>,
        /// Check the dice from a player's mails instead: a Maildir folder or an mbox file. With
        /// --games, every mailed receipt is checked against the game directory as well.
        #[arg(long, value_name = "PATH")]
        mail: Option<PathBuf>,
        /// Check the rolls with this seed (64 hex digits) before it is revealed.
        #[arg(long)]
        seed: Option<String>,
        #[command(flatten)]
        games: GamesArg,
    },
    /// Reveal the seed now (moderator): the race ends where it stands.
    Reveal {
        /// The game.
        game: String,
        #[command(flatten)]
        games: GamesArg,
    },
    /// Dice statistics over games: counts against the real faces, chi-square, runs; exits 1 if
    /// anything is improbable.
    Audit {
        /// Games (names or directories); default every game in the games directory.
        games_list: Vec<String>,
        #[command(flatten)]
        games: GamesArg,
    },
}

/// The exit code of `verify` when there is nothing to check: no such game, mailbox or games
/// directory (a tampered game exits 1).
const NO_SUCH_GAME: u8 = 3;

/// The exit code of a check that could not be made (what is missing is printed): not a failure.
const NOT_CHECKED: u8 = 4;

/// Where game `name` lives: a directory given as a path, else `<games>/<name>`.
fn locate(games: &GamesArg, name: &str) -> (Store, String) {
    let p = Path::new(name);
    if (name.contains('/') || name.contains('\\')) && p.join("turns").is_dir() {
        let parent = p.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
        let parent = if parent.as_os_str().is_empty() { PathBuf::from(".") } else { parent };
        let id = p.file_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        return (Store::new(parent), id);
    }
    (Store::new(driver::games_dir(games.games.clone())), name.to_string())
}

fn parse_wear(s: &str) -> Result<Wear> {
    let v: Vec<u8> = s
        .split(',')
        .map(|x| x.trim().parse::<u8>())
        .collect::<Result<_, _>>()
        .with_context(|| format!("--wear takes six numbers tyres,brakes,gas,body,engine,handling, not `{s}`"))?;
    let [tyres, brakes, gas, body, engine, handling] = v[..] else {
        bail!("--wear takes six numbers tyres,brakes,gas,body,engine,handling, not `{s}`");
    };
    Ok(Wear { tyres, brakes, gas, body, engine, handling })
}

/// Runs a game command.
pub fn run(cmd: GameCommand) -> Result<ExitCode> {
    match cmd {
        GameCommand::New {
            game,
            track,
            laps,
            profile,
            toggles,
            max_cars,
            move_hours,
            join_by,
            weather,
            grid,
            weather_checks,
            late_arrivals,
            finish_ties,
            pit_choice,
            backmarkers,
            round_deadlines,
            round_at,
            zone,
            skip_weekends,
            notice,
            grace,
            beacon,
            games,
        } => {
            let schedule = match round_at {
                Some(at) => {
                    let Some(at) = crate::store::schedule::canonical_time(&at) else {
                        anyhow::bail!("--round-at {at}: give a time of day like 20:00");
                    };
                    let Some(zone) = crate::words::when::zone_name(&zone) else {
                        anyhow::bail!("--zone {zone}: give a time zone like Europe/Paris or UTC");
                    };
                    Some(crate::store::Schedule { at, zone, skip_weekends, notice_hours: notice, grace_minutes: grace })
                }
                None => None,
            };
            let beacon = match beacon {
                Some(b) => {
                    let (kind, arg) = b
                        .split_once(':')
                        .with_context(|| format!("--beacon takes drand:<round> or nist:<minute>, not `{b}`"))?;
                    Some(crate::store::Beacon::parse(kind, arg).map_err(anyhow::Error::msg)?)
                }
                None => None,
            };
            let finish_by_portion = match finish_ties.as_str() {
                "crossing" => false,
                crate::store::files::FINISH_PORTION => true,
                w => bail!("unknown --finish-ties `{w}` (crossing, portion)"),
            };
            let pit_choice = PitChoice::parse(&pit_choice)
                .with_context(|| format!("unknown --pit-choice `{pit_choice}` (grid, reverse-grid)"))?;
            let lap_third_weather = match weather_checks.as_str() {
                "rolls" => false,
                crate::store::files::LAP_THIRDS => true,
                w => bail!("unknown --weather-checks `{w}` (rolls, lap-thirds)"),
            };
            let grid = GridMethod::parse(&grid)
                .with_context(|| format!("unknown grid `{grid}` (join, qualifying, qualifying-black-die)"))?;
            let weather = Forecast::parse(&weather)
                .with_context(|| format!("unknown weather `{weather}` (track, sun, rain, changeable)"))?;
            // As `steward sim`: eurogames-advanced without --toggles plays all seven.
            let profile = match toggles {
                None if profile.contains(':') => profile,
                None => crate::engine::Rulebook::from_cli(&profile, None)?.spec(),
                Some(t) => crate::engine::Rulebook::from_cli(&profile, Some(&t))?.spec(),
            };
            let (store, id) = locate(&games, &game);
            let join_by = match join_by {
                Some(s) => Some(
                    Stamp::parse(&s).with_context(|| format!("--join-by `{s}` is not like 2026-05-01T12:00:00Z"))?,
                ),
                None => None,
            };
            let req = NewGame {
                id,
                track,
                profile,
                laps,
                max_cars,
                move_hours,
                join_by,
                weather,
                grid,
                lap_third_weather,
                late_arrivals,
                finish_by_portion,
                pit_choice,
                backmarkers,
                round_deadlines,
                schedule,
                scheme: crate::dice::Scheme::V3,
                beacon,
            };
            let h = store.create(&req, os_random()?, Meta::by("moderator"))?;
            let g = h.game();
            outln!("created game {} on {} in {}", g.setup.id, g.track.title, h.dir().display());
            outln!("dice commitment (publish it in the game's first message): {}", g.setup.commitment);
            Ok(ExitCode::SUCCESS)
        }
        GameCommand::Join {
            game,
            address,
            token,
            car,
            name,
            tyres,
            wet_tyres,
            wear,
            entropy,
            bot,
            driver_points,
            boxes,
            source,
            games,
        } => {
            let (store, id) = locate(&games, &game);
            let tyres = Tyres::parse(&tyres).with_context(|| format!("unknown tyres `{tyres}` (hard, soft, rain)"))?;
            let wet_tyres = match wet_tyres {
                Some(w) => Some(
                    Tyres::parse(&w).with_context(|| format!("unknown wet-track tyres `{w}` (hard, soft, rain)"))?,
                ),
                None => None,
            };
            let wear = match wear {
                Some(w) => parse_wear(&w)?,
                None => Wear::standard(),
            };
            let generated = token.is_none();
            let token = match token {
                Some(t) => t,
                None => new_token()?,
            };
            let mut h = store.open(&id)?;
            let req = Join {
                address,
                token: token.clone(),
                car,
                name,
                wear,
                tyres,
                wet_tyres,
                entropy,
                bot,
                driver_points,
                boxes,
            };
            let t = h.join(&req, source.meta("moderator"))?;
            let p = t.player.as_ref().expect("a join turn has its player");
            outln!("{} joins game {} with car {} (turn {})", p.address, id, p.car, t.turn);
            if generated {
                outln!("token (give it to the player; it is not stored): {token}");
            }
            Ok(ExitCode::SUCCESS)
        }
        GameCommand::Start { game, beacon, games } => {
            let (store, id) = locate(&games, &game);
            let mut h = store.open(&id)?;
            let beacon = match beacon {
                Some(b) => Some(
                    crate::store::beacon_value(&b)
                        .with_context(|| format!("--beacon takes the value: 64 or 128 hex digits, not `{b}`"))?,
                ),
                None => None,
            };
            h.start_with(beacon.as_deref(), Meta::by("moderator"))?;
            out!("{}", show::brief(h.game()));
            Ok(ExitCode::SUCCESS)
        }
        GameCommand::Play { game, car, gear, choose, stop, tyres, repair, reroll, bot, token, source, games } => {
            let (store, id) = locate(&games, &game);
            let mut h = store.open(&id)?;
            if let (Some(token), Some(from)) = (&token, &source.from) {
                let owner = h.authenticate(from, token)?;
                if car.is_some_and(|c| c != owner) {
                    bail!("{from} drives car {owner}, not car {}", car.unwrap_or_default());
                }
            }
            let car_or_awaited = || car.or(h.game().awaited().map(|a| a.0)).context("no car is awaited");
            if bot {
                if let (Some(c), Some((awaited, _))) = (car, h.game().awaited())
                    && c != awaited
                {
                    bail!("the bot plays only the car awaited, car {awaited}");
                }
                h.bot_move(&mut Bot::new(), source.meta("bot"))?;
            } else if reroll {
                let c = car_or_awaited()?;
                h.reroll(c, By::Player, source.meta("player"))?;
            } else if let Some(g) = gear {
                let c = car_or_awaited()?;
                h.gear(c, g, By::Player, source.meta("player"))?;
            } else if let Some(answer) = choose {
                let c = car_or_awaited()?;
                if stop.is_some() || tyres.is_some() || !repair.is_empty() {
                    let mut repairs = std::collections::BTreeMap::new();
                    for r in &repair {
                        let (part, n) = r.split_once('=').context("--repair takes part=points, e.g. brakes=1")?;
                        let n: u8 = n.trim().parse().context("--repair takes part=points, e.g. brakes=1")?;
                        repairs.insert(part.trim().to_string(), n);
                    }
                    let pit = crate::store::files::PitRecord { kind: stop, tyres, repairs };
                    h.choose_with_pit(c, &answer, pit, By::Player, source.meta("player"))?;
                } else {
                    h.choose(c, &answer, By::Player, source.meta("player"))?;
                }
            } else {
                bail!("say what to play: --gear G, --choose OPTION, --reroll, or --bot");
            }
            out!("{}", show::brief(h.game()));
            Ok(ExitCode::SUCCESS)
        }
        GameCommand::Show { game, turn, games } => {
            let (store, id) = locate(&games, &game);
            let dir = store.game_dir(&id);
            if !dir.join("turns").is_dir() {
                let games = dir.parent().map(|p| p.display().to_string()).unwrap_or_default();
                bail!("there is no game `{id}` in {games}");
            }
            let g = load_dir(&dir, turn)?;
            if let Some(n) = turn
                && n >= g.turns.len() as u32
            {
                bail!("game {id} has turns 0 to {}", g.turns.len() - 1);
            }
            out!("{}", show::show(&g));
            Ok(ExitCode::SUCCESS)
        }
        GameCommand::Verify { mail: Some(path), games, .. } => {
            if !path.exists() || games.games.as_deref().is_some_and(|g| !g.is_dir()) {
                let missing = if path.exists() { games.games.clone().unwrap_or_default() } else { path.clone() };
                eprintln!("no such mailbox or games directory: {} (nothing was checked)", missing.display());
                return Ok(ExitCode::from(NO_SUCH_GAME));
            }
            match crate::mail::verify::verify_mail(&path, games.games.as_deref()) {
                Ok(r) => {
                    outln!("{}: ok: {} mail(s) from steward read", path.display(), r.mails);
                    for g in &r.games {
                        outln!("{}", g.line());
                    }
                    if r.games.iter().any(|g| g.lacks.is_some()) {
                        return Ok(ExitCode::from(NOT_CHECKED));
                    }
                    Ok(ExitCode::SUCCESS)
                }
                Err(
                    e @ (crate::mail::verify::MailCheckError::Nothing(_)
                    | crate::mail::verify::MailCheckError::NoReceipts(_)),
                ) => {
                    outln!("{}: {e}", path.display());
                    Ok(ExitCode::from(NOT_CHECKED))
                }
                Err(e) => {
                    outln!("{}: FAILED: {e}", path.display());
                    Ok(ExitCode::from(1))
                }
            }
        }
        GameCommand::Verify { game, seed, games, .. } => {
            let game = game.unwrap_or_default();
            let (store, id) = locate(&games, &game);
            let dir = store.game_dir(&id);
            if !dir.join("turns").is_dir() {
                // Nothing to check is not a failed check: its own exit code.
                eprintln!("no such game: {id} (no {} directory)", dir.join("turns").display());
                return Ok(ExitCode::from(NO_SUCH_GAME));
            }
            let given = match seed {
                Some(s) => Some(parse_hex32(&s).with_context(|| format!("--seed takes 64 hex digits, not `{s}`"))?),
                None => None,
            };
            match verify::verify(&dir, given) {
                Ok(r) => {
                    let g = &r.game;
                    let rolls: usize = g.turns.iter().map(|t| t.rolls.len()).sum();
                    let how = match r.seed_from {
                        SeedFrom::Given => "derived from the seed given, which matches the commitment".to_string(),
                        SeedFrom::Revealed(n) => {
                            format!("derived from the seed revealed in turn {n}, which matches the commitment")
                        }
                        SeedFrom::Secret => {
                            "derived from secret.toml (the operator's copy, not yet public)".to_string()
                        }
                        SeedFrom::Unknown => {
                            "taken as recorded: the seed is not revealed yet (give --seed to check them)".to_string()
                        }
                    };
                    outln!(
                        "game {id}: ok: {} turns, hash chain intact, every event and state digest replayed",
                        g.turns.len()
                    );
                    outln!("{rolls} rolls {how}");
                    outln!("last turn hash: {}", g.hashes.last().map_or("-", String::as_str));
                    for line in verify::trust_lines(g) {
                        outln!("{line}");
                    }
                    for n in r.notes {
                        outln!("note: {n}");
                    }
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    outln!("game {id}: FAILED: {e}");
                    Ok(ExitCode::from(1))
                }
            }
        }
        GameCommand::Reveal { game, games } => {
            let (store, id) = locate(&games, &game);
            let mut h = store.open(&id)?;
            let t = h.reveal(Meta::by("moderator"))?;
            outln!("game {id}: seed revealed in turn {}: {}", t.turn, t.seed.as_deref().unwrap_or_default());
            Ok(ExitCode::SUCCESS)
        }
        GameCommand::Audit { games_list, games } => {
            let dirs: Vec<PathBuf> = if games_list.is_empty() {
                let store = Store::new(driver::games_dir(games.games.clone()));
                store.list()?.into_iter().map(|id| store.game_dir(&id)).collect()
            } else {
                games_list
                    .iter()
                    .map(|g| {
                        let (s, id) = locate(&games, g);
                        s.game_dir(&id)
                    })
                    .collect()
            };
            if dirs.is_empty() {
                bail!("no game to audit");
            }
            let (text, flagged) = audit::audit(&dirs)?;
            out!("{text}");
            Ok(if flagged { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
    }
}
