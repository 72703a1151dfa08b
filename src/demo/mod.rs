//! `steward demo`: a whole race by mail with no server. A moderator and bot players write their
//! orders as mail into the daemon's Maildir, the daemon answers into each player's Maildir, the
//! players read their mail (their token from the welcome, the turn and what is asked from each
//! report) and answer each report by replying to it with the bare answer (`B`, `GEAR 4`: the
//! report's signed `Reply-To` stands for the game, car, token and turn), until the race ends.
//!
//! The players think with the project's bot (reading the published game directory, as any
//! player may), but everything they do goes through mail and the order language: the same code
//! paths as a real league.

pub mod season;

use std::path::{Path, PathBuf};

use crate::engine::MoveOption;
use crate::engine::bot::Bot;
use crate::store::fsio::Durability;
use crate::store::{Game, Store};

use crate::judge::config::{ModeratorConfig, ServeConfig, moderator_token_hash};
use crate::judge::daemon::{Daemon, DaemonError};
use crate::judge::outbox::Via;
use crate::mail::message::Incoming;
use crate::mail::transport::{Inbox, MaildirInbox, MaildirSender, deliver};
use crate::orders::ReportMode;
use crate::store::qualifying::GridMethod;

/// The moderator's address in the demo.
pub const MODERATOR: &str = "moderator@demo.invalid";
/// The daemon's address in the demo.
pub const STEWARD: &str = "steward@demo.invalid";
pub(super) const MODERATOR_TOKEN: &str = "demo-moderator-token";

/// What to race.
#[derive(Clone, Debug)]
pub struct DemoSpec {
    /// Where everything goes (mailboxes, games, state).
    pub dir: PathBuf,
    /// The game's name.
    pub game: String,
    /// The track.
    pub track: String,
    /// Cars.
    pub cars: u8,
    /// Laps.
    pub laps: u16,
    /// Cars whose players leave their choices to a standing `POLICY` (the others answer every
    /// roll by mail).
    pub policy_cars: u8,
    /// How the grid is made: by qualifying laps by mail (ruling 31), or join order.
    pub grid: GridMethod,
    /// The race plays with 002's backmarkers (`CREATE ... BACKMARKERS YES`, ruling 49).
    pub backmarkers: bool,
    /// The report mode every player asks for with their JOIN (`REPORTS`); none: the default
    /// (`MINE`).
    pub reports: Option<ReportMode>,
}

/// How the demo went.
#[derive(Clone, Debug, Default)]
pub struct DemoResult {
    /// The game directory.
    pub game_dir: PathBuf,
    /// Mails the daemon read.
    pub mails_in: usize,
    /// Mails it sent.
    pub mails_out: usize,
    /// The final `steward show` text.
    pub final_text: String,
    /// What each player received and decided, in car order.
    pub players: Vec<PlayerMail>,
}

/// One player's mail in the demo.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PlayerMail {
    /// The player's address.
    pub address: String,
    /// Their car.
    pub car: u8,
    /// Mails they received (the welcome and every reply and report).
    pub received: usize,
    /// Decisions they sent by mail (a GEAR or a CHOOSE each).
    pub decisions: usize,
}

/// A bot player that reads its Maildir and answers what it is asked (the demo's, and the
/// crash tests').
pub struct Player {
    /// Its address.
    pub address: String,
    /// Its car.
    pub car: u8,
    /// Its token, once the welcome is read.
    pub token: Option<String>,
    inbox: Box<dyn Inbox>,
    policy: bool,
    /// The last turn answered, so one report is answered once.
    answered: Option<u32>,
    /// The newest report that asks this car something, kept to reply to.
    prompt: Option<Prompt>,
    /// Mails read so far.
    pub received: usize,
    /// Decisions answered so far (a GEAR or a CHOOSE each).
    pub decisions: usize,
}

/// A report that asks a player's car for something, as the player's mail program keeps it.
#[derive(Clone, Debug)]
struct Prompt {
    turn: u32,
    /// Its `Reply-To`: the signed reply address (`mail::tag`).
    reply_to: Option<String>,
    message_id: Option<String>,
    subject: String,
    text: String,
}

/// A player's reply to a prompt: hit Reply, write the bare answer above the quoted report.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    /// Where it goes: the prompt's `Reply-To` (or the daemon's plain address, when the prompt
    /// had none and the body is the from-scratch form).
    pub to: String,
    /// `Re: ` and the prompt's subject.
    pub subject: String,
    /// The prompt's Message-ID.
    pub in_reply_to: Option<String>,
    /// What the player wrote (the answer alone, `B` or `GEAR 4`), then the prompt quoted as a
    /// mail program quotes it.
    pub body: String,
    /// The answer alone.
    pub answer: String,
}

impl Reply {
    /// The mail's bytes, from `from`, with Message-ID `<message_id>`.
    pub fn raw(&self, from: &str, message_id: &str) -> Vec<u8> {
        let mut head =
            format!("From: {from}\r\nTo: {}\r\nSubject: {}\r\nMessage-ID: <{message_id}>\r\n", self.to, self.subject);
        if let Some(r) = &self.in_reply_to {
            head.push_str(&format!("In-Reply-To: <{r}>\r\nReferences: <{r}>\r\n"));
        }
        format!(
            "{head}Date: Sun, 22 Nov 2026 12:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{}\r\n",
            self.body.replace('\n', "\r\n")
        )
        .into_bytes()
    }
}

impl Player {
    /// A player reading `mailbox`; with `policy` it leaves its choices to `POLICY BOT`.
    pub fn new(address: &str, car: u8, mailbox: &Path, policy: bool) -> Result<Player, DaemonError> {
        Ok(Player::with_inbox(address, car, Box::new(MaildirInbox::open(mailbox)?), policy))
    }

    /// A player reading its mail from `inbox` (IMAP in the end-to-end test).
    pub fn with_inbox(address: &str, car: u8, inbox: Box<dyn Inbox>, policy: bool) -> Player {
        Player {
            address: address.into(),
            car,
            token: None,
            inbox,
            policy,
            answered: None,
            prompt: None,
            received: 0,
            decisions: 0,
        }
    }

    /// Reads new mail for the token of the welcome.
    pub fn read_token(&mut self) -> Result<(), DaemonError> {
        read_token(self)
    }

    /// The body of the player's answer to its newest report, if it asks this car for
    /// something and the game still waits for it.
    pub fn answer(&mut self, g: &Game, bot: &mut Bot) -> Result<Option<String>, DaemonError> {
        Ok(answer(self, g, bot)?.map(|(_, body)| body))
    }

    /// The player's reply to its newest report, if it asks this car for something and the game
    /// still waits for it: to the report's signed `Reply-To`, the bare answer (`B`, `GEAR 4`)
    /// above the quoted report, no GAME, CAR, TOKEN or TURN (docs/orders.md). A report without
    /// a signed address gets the from-scratch form at `steward` instead.
    pub fn reply(&mut self, g: &Game, bot: &mut Bot, steward: &str) -> Result<Option<Reply>, DaemonError> {
        let Some((turn, order)) = decide(self, g, bot)? else { return Ok(None) };
        let prompt = self.prompt.clone().filter(|p| p.turn == turn);
        let (subject, in_reply_to) = match &prompt {
            Some(p) if p.subject.to_lowercase().starts_with("re:") => (p.subject.clone(), p.message_id.clone()),
            Some(p) => (format!("Re: {}", p.subject), p.message_id.clone()),
            None => (format!("Re: turn {turn}"), None),
        };
        let Some((p, to)) = prompt.as_ref().and_then(|p| Some((p, p.reply_to.clone()?))) else {
            let body = scratch_form(self, g, turn, &order);
            return Ok(Some(Reply { to: steward.into(), subject, in_reply_to, body, answer: order }));
        };
        let answer = order.strip_prefix("CHOOSE ").unwrap_or(&order).to_string();
        let quoted: String =
            p.text.lines().map(|l| if l.is_empty() { ">\n".to_string() } else { format!("> {l}\n") }).collect();
        let body = format!("{answer}\n\nOn Sun, 22 Nov 2026 at 12:00, steward <{steward}> wrote:\n{quoted}");
        Ok(Some(Reply { to, subject, in_reply_to, body, answer }))
    }

    /// Reads (and counts) the mail not read yet.
    pub fn read_rest(&mut self) -> Result<(), DaemonError> {
        for m in self.inbox.fetch(10_000)? {
            self.received += 1;
            self.inbox.mark_processed(&m.key)?;
        }
        Ok(())
    }
}

/// Delivers `reply` from `from` into the daemon's Maildir `dir`.
pub(super) fn send_reply(dir: &Path, from: &str, n: &mut u64, reply: &Reply) -> Result<(), DaemonError> {
    *n += 1;
    deliver(dir, &reply.raw(from, &format!("demo-{n}-{}", from.replace('@', "."))))?;
    Ok(())
}

pub(super) fn say(dir: &Path, from: &str, n: &mut u64, subject: &str, body: &str) -> Result<(), DaemonError> {
    *n += 1;
    let raw = format!(
        "From: {from}\r\nTo: {STEWARD}\r\nSubject: {subject}\r\nMessage-ID: <demo-{n}-{}>\r\nDate: Sun, 22 Nov 2026 12:00:00 +0000\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
        from.replace('@', ".")
    );
    deliver(dir, raw.as_bytes())?;
    Ok(())
}

/// A daemon on a local Maildir tree under `dir`, as the demo and the simulated season run it:
/// the demo's moderator, no rate limit, no fsync. Returns the daemon, its inbox, its outgoing
/// path, the sender (whose `mailbox_of` gives each player's Maildir) and the inbox's directory.
pub(super) fn local_daemon(
    dir: &Path,
) -> Result<(Daemon, MaildirInbox, Via<MaildirSender>, MaildirSender, PathBuf), DaemonError> {
    let mut cfg = ServeConfig::local(dir, STEWARD);
    cfg.moderators
        .push(ModeratorConfig { address: MODERATOR.into(), token_sha256: moderator_token_hash(MODERATOR_TOKEN) });
    cfg.rate_per_hour = u32::MAX;
    let inbox_dir = match &cfg.inbox {
        crate::judge::config::InboxConfig::Maildir { dir } => dir.clone(),
        crate::judge::config::InboxConfig::Imap(_) => unreachable!("a local daemon reads a Maildir"),
    };
    let daemon = Daemon::new(cfg, Durability::NoSync)?;
    let inbox = MaildirInbox::open(&inbox_dir)?;
    let sender = MaildirSender::per_recipient(dir.join("mail"));
    Ok((daemon, inbox, Via(sender.clone()), sender, inbox_dir))
}

/// Runs the demo race to its end.
pub fn run(spec: &DemoSpec) -> Result<DemoResult, DaemonError> {
    run_with(spec, &mut |_| Ok(()))
}

/// Runs the demo race to its end, calling `before_start` with the game directory once every
/// player has joined and before the moderator's `START` (what a dishonest operator could do
/// there is what the attack tests do: docs/dice.md, section 6).
pub fn run_with(
    spec: &DemoSpec,
    before_start: &mut dyn FnMut(&Path) -> Result<(), DaemonError>,
) -> Result<DemoResult, DaemonError> {
    let (mut daemon, mut inbox, mut via, sender, inbox_dir) = local_daemon(&spec.dir)?;
    let mut n = 0u64;
    let game = spec.game.clone();
    say(
        &inbox_dir,
        MODERATOR,
        &mut n,
        "new game",
        &format!(
            "TOKEN {MODERATOR_TOKEN}\nCREATE {game} TRACK {} LAPS {} CARS {} GRID {}{}",
            spec.track,
            spec.laps,
            spec.cars,
            spec.grid.name(),
            if spec.backmarkers { " BACKMARKERS YES" } else { "" }
        ),
    )?;
    let mut players = Vec::new();
    for car in 1..=spec.cars {
        let address = format!("driver{car}@demo.invalid");
        say(
            &inbox_dir,
            &address,
            &mut n,
            "join",
            &format!(
                "JOIN {game} CAR {car} PHRASE demo driver {car} says hello\nSETUP tyres=6 brakes=3 gas=3 body=3 engine=3 handling=2\nTYRES hard WET rain{}",
                spec.reports.map(|m| format!("\nREPORTS {}", m.word(crate::words::Lang::En))).unwrap_or_default()
            ),
        )?;
        players.push(Player::new(&address, car, &sender.mailbox_of(&address), car <= spec.policy_cars)?);
    }
    let mut mails_in = 0;
    daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
    for p in &mut players {
        read_token(p)?;
        if p.policy
            && let Some(t) = &p.token
        {
            say(
                &inbox_dir,
                &p.address,
                &mut n,
                "policy",
                &format!("GAME {game}\nCAR {}\nTOKEN {t}\nPOLICY BOT", p.car),
            )?;
        }
    }
    let store = Store::new(spec.dir.join("games"));
    before_start(&store.game_dir(&game))?;
    say(&inbox_dir, MODERATOR, &mut n, "start", &format!("GAME {game}\nTOKEN {MODERATOR_TOKEN}\nSTART"))?;
    let mut bot = Bot::new();
    for _round in 0..200_000 {
        daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
        let g = store.load(&game, None).map_err(|source| DaemonError::Store { game: game.clone(), source })?;
        if g.now.over {
            break;
        }
        let mut wrote = false;
        for p in &mut players {
            if let Some(r) = p.reply(&g, &mut bot, STEWARD)? {
                p.decisions += 1;
                send_reply(&inbox_dir, &p.address, &mut n, &r)?;
                wrote = true;
            }
        }
        if !wrote {
            return Err(DaemonError::Io {
                what: "the demo".into(),
                source: std::io::Error::other("no player has anything to answer and the race is not over"),
            });
        }
    }
    daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
    let g = store.load(&game, None).map_err(|source| DaemonError::Store { game: game.clone(), source })?;
    for p in &mut players {
        p.read_rest()?;
    }
    Ok(DemoResult {
        players: players
            .iter()
            .map(|p| PlayerMail {
                address: p.address.clone(),
                car: p.car,
                received: p.received,
                decisions: p.decisions,
            })
            .collect(),
        game_dir: store.game_dir(&game),
        mails_in,
        mails_out: daemon.outbox().sent().map_err(crate::judge::service::io("reading the outbox"))?.len(),
        final_text: crate::store::show::show(&g),
    })
}

pub(super) fn daemon_pass(
    d: &mut Daemon,
    inbox: &mut MaildirInbox,
    via: &mut Via<MaildirSender>,
    mails_in: &mut usize,
) -> Result<(), DaemonError> {
    let p = d.pass(inbox, via)?;
    *mails_in += p.processed;
    Ok(())
}

/// Reads the player's new mail for the token of the welcome.
fn read_token(p: &mut Player) -> Result<(), DaemonError> {
    for m in p.inbox.fetch(1000)? {
        p.received += 1;
        if let Ok(msg) = Incoming::parse(&m.raw)
            && let Some(t) = msg.full_body.lines().find_map(|l| {
                let t = l.trim().strip_prefix("TOKEN ")?.trim();
                (!t.is_empty() && !t.contains(' ')).then(|| t.to_string())
            })
        {
            p.token = Some(t);
        }
        p.inbox.mark_processed(&m.key)?;
    }
    Ok(())
}

/// The player's answer to its newest report, if it asks this car for something: the subject and
/// the from-scratch body (GAME, CAR, TOKEN, TURN and the order).
fn answer(p: &mut Player, g: &Game, bot: &mut Bot) -> Result<Option<(String, String)>, DaemonError> {
    let Some((turn, order)) = decide(p, g, bot)? else { return Ok(None) };
    Ok(Some((format!("Re: turn {turn}"), scratch_form(p, g, turn, &order))))
}

/// An order in the from-scratch form, signed with the player's token.
fn scratch_form(p: &Player, g: &Game, turn: u32, order: &str) -> String {
    let token = p.token.as_deref().unwrap_or_default();
    format!("GAME {}\nCAR {}\nTOKEN {token}\nTURN {turn}\n{order}", g.setup.id, p.car)
}

/// Reads the player's new mail and decides its answer to the newest report that asks this car
/// something: the turn answered and the order (`GEAR n`, `CHOOSE X`).
fn decide(p: &mut Player, g: &Game, bot: &mut Bot) -> Result<Option<(u32, String)>, DaemonError> {
    let mut asked: Option<u32> = None;
    for m in p.inbox.fetch(10_000)? {
        p.received += 1;
        if let Ok(msg) = Incoming::parse(&m.raw) {
            // A report that asks this car ends with the lines to send back: `CAR n` then
            // `TURN t` (`VOITURE n`, `TOUR t` in French).
            let lines: Vec<&str> = msg.full_body.lines().map(str::trim).collect();
            let mine = [format!("CAR {}", p.car), format!("VOITURE {}", p.car)];
            if let Some(i) = lines.iter().position(|l| mine.iter().any(|m| m == l))
                && let Some(turn) = lines
                    .get(i + 2)
                    .and_then(|l| l.strip_prefix("TURN ").or_else(|| l.strip_prefix("TOUR "))?.trim().parse().ok())
            {
                if asked.is_none_or(|a| turn >= a) {
                    p.prompt = Some(Prompt {
                        turn,
                        reply_to: msg.reply_to.clone().filter(|r| r.contains('+')),
                        message_id: msg.message_id.clone(),
                        subject: msg.subject.clone(),
                        text: msg.full_body.clone(),
                    });
                }
                asked = asked.max(Some(turn));
            }
        }
        p.inbox.mark_processed(&m.key)?;
    }
    let Some(turn) = asked else { return Ok(None) };
    if p.answered == Some(turn) {
        return Ok(None);
    }
    if p.token.is_none() {
        return Ok(None);
    }
    if let Some(q) = &g.now.qualifying {
        // Every car drives its timed lap at once (ruling 31): answer while this car's lap waits
        // for the step the report asked for.
        use crate::engine::qualifying::LapDriver;
        let Some(e) = q.entry(p.car).filter(|e| !e.lap.is_over()) else { return Ok(None) };
        let asked_at = g.turns.iter().rev().find(|t| t.orders.iter().any(|o| o.car == p.car)).map_or(0, |t| t.turn);
        if turn < asked_at {
            return Ok(None);
        }
        let order = match &e.pending {
            Some((r, _)) => format!("CHOOSE {}", MoveOption::label(LapDriver::option(bot, &g.track, &e.lap, r))),
            None => format!("GEAR {}", LapDriver::gear(bot, &g.track, &e.lap)),
        };
        p.answered = Some(turn);
        return Ok(Some((turn, order)));
    }
    if g.next_turn() != turn + 1 {
        return Ok(None);
    }
    let Some((car, choice)) = g.awaited() else { return Ok(None) };
    if car != p.car {
        return Ok(None);
    }
    let race = g.now.race.as_ref().expect("a car is awaited in a started race");
    let order = if choice {
        let rolled = &race.pending.as_ref().expect("a choice awaits").rolled;
        format!("CHOOSE {}", MoveOption::label(bot.option(&g.track, rolled)))
    } else {
        let id = g.player(car).expect("the awaited car plays").0;
        format!("GEAR {}", bot.gear(&g.track, &race.state, id))
    };
    p.answered = Some(turn);
    Ok(Some((turn, order)))
}
