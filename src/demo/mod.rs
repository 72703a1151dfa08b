//! `steward demo`: a whole race by mail with no server. A moderator and bot players write their
//! orders as mail into the daemon's Maildir, the daemon answers into each player's Maildir, the
//! players read their mail (their token from the welcome, the turn and what is asked from each
//! report) and answer each report by replying to it with the bare answer (`B`, `GEAR 4`: the
//! report's signed `Reply-To` stands for the game, car, token and turn), until the race ends.
//!
//! The players think with the project's bot (reading the published game directory, as any
//! player may), but everything they do goes through mail and the order language: the same code
//! paths as a real league.

mod create;
pub mod season;

pub use create::{DemoRefused, check};

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
use crate::words::Lang;

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
    /// With round orders (issue 46), every player who answers every roll by mail sends a
    /// `DRIVE` with each gear, so that it is asked after the roll only where its instructions
    /// say `ASK`; without, it answers every roll by mail.
    pub drive: bool,
    /// A simulated calendar: the daemon runs on a simulated clock, the game's deadlines run per
    /// round (`PACE ROUND`, `HOURS 24`), and each player answers a prompt after a random delay
    /// of this median in hours (a long tail, and some prompts never answered). None: the players
    /// answer at once, on the real clock.
    pub answer_hours: Option<f64>,
    /// The seed of the simulated players' delays.
    pub seed: u64,
    /// The languages the moderator and the players read.
    pub langs: DemoLangs,
}

/// The languages of a demo's mail (`steward demo --lang`).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum DemoLangs {
    /// Everyone reads English.
    #[default]
    English,
    /// Everyone reads French.
    French,
    /// The moderator and the odd cars' players read French, the even cars' English.
    Mixed,
}

impl DemoLangs {
    /// Reads `en`, `fr` or `mixed` (folded).
    pub fn parse(folded: &str) -> Option<DemoLangs> {
        match folded {
            "mixed" | "mixte" => Some(DemoLangs::Mixed),
            w => Lang::parse(w).map(|l| if l == Lang::Fr { DemoLangs::French } else { DemoLangs::English }),
        }
    }

    /// The language of car `car`'s player (`None`: the moderator's).
    pub fn of(self, car: Option<u8>) -> Lang {
        match (self, car) {
            (DemoLangs::English, _) => Lang::En,
            (DemoLangs::French, _) | (DemoLangs::Mixed, None) => Lang::Fr,
            (DemoLangs::Mixed, Some(c)) => {
                if c % 2 == 1 {
                    Lang::Fr
                } else {
                    Lang::En
                }
            }
        }
    }

    /// The `LANG` line an order of car `car`'s player (`None`: the moderator's) starts with, or
    /// nothing for English (the default).
    fn line(self, car: Option<u8>) -> String {
        match self.of(car) {
            Lang::En => String::new(),
            l => format!("LANG {}\n", l.code()),
        }
    }
}

/// The share of prompts a simulated player never answers (`DemoSpec::answer_hours`).
pub const MISSED: f64 = 0.03;

/// The spread of the simulated delays: their logarithm's standard deviation (a long tail: one
/// answer in ten takes over 3.6 times the median).
pub const SPREAD: f64 = 1.0;

/// The instructions each demo player who answers rolls by mail sends with its gears
/// (`DemoSpec::drive`).
pub const DEMO_DRIVE: &str = "FARTHEST-FREE ELSE FARTHEST WEAR<=1 NO-OVERSHOOT ELSE SAFEST ELSE ASK";

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
    /// Mails the moderator (the game's creator) received.
    pub moderator_mails: usize,
    /// The race's rounds.
    pub rounds: u32,
    /// Simulated seconds from the START to the end of the race (`DemoSpec::answer_hours`).
    pub calendar_seconds: Option<i64>,
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
    /// Of the mails received, the replies to their own mails (acknowledgements, receipts).
    pub replies: usize,
    /// Of the mails received, the reminders of a deadline.
    pub reminders: usize,
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
    /// Of the mails read, the replies to the player's own mails.
    pub replies: usize,
    /// Of the mails read, the reminders of a deadline.
    pub reminders: usize,
    /// The instructions sent with each gear (`DRIVE`), if any.
    pub drive: Option<String>,
    /// In a simulated calendar: when the answer to the newest prompt goes (seconds), and the
    /// prompt's turn; `None` at `u64::MAX`: the player will not answer it.
    due: Option<(i64, u32)>,
    /// The newest prompt already scheduled or skipped.
    seen: Option<u32>,
    /// The state of the player's delays.
    rng: u64,
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
            replies: 0,
            reminders: 0,
            drive: None,
            due: None,
            seen: None,
            rng: u64::from(car).wrapping_mul(0x9E37_79B9_7F4A_7C15),
        }
    }

    /// Reads new mail for the token of the welcome.
    pub fn read_token(&mut self) -> Result<(), DaemonError> {
        read_token(self)
    }

    /// Reads new mail for the JOIN's confirmation code (issue 45: a JOIN takes a car once the
    /// address confirms it), and returns `join` with `CONFIRM <code>` after the game's name.
    pub fn confirmed_join(&mut self, join: &str) -> Result<String, DaemonError> {
        self.try_confirmed_join(join)?.ok_or_else(|| DaemonError::Io {
            what: "the demo".into(),
            source: std::io::Error::other(format!("{} got no confirmation code for its JOIN", self.address)),
        })
    }

    /// [`Player::confirmed_join`], `None` while no code has come.
    pub fn try_confirmed_join(&mut self, join: &str) -> Result<Option<String>, DaemonError> {
        let mut confirmed = None;
        for m in self.inbox.fetch(1000)? {
            self.received += 1;
            self.replies += usize::from(is_reply(&m.raw));
            if let Ok(msg) = Incoming::parse(&m.raw) {
                confirmed = confirmed.or_else(|| with_join_code(join, &msg.full_body));
            }
            self.inbox.mark_processed(&m.key)?;
        }
        Ok(confirmed)
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
            self.replies += usize::from(is_reply(&m.raw));
            self.reminders += usize::from(is_reminder(&m.raw));
            self.inbox.mark_processed(&m.key)?;
        }
        Ok(())
    }
}

/// `join` (a join mail's body) with the confirmation code of `mail` (steward's answer to it: a
/// line `JOIN <game> CONFIRM <code> ...`) put after the game's name on its JOIN line, as a player
/// sends it back (issue 45); `None` when `mail` carries no code, or `join` no JOIN line or one
/// confirmed already.
pub fn with_join_code(join: &str, mail: &str) -> Option<String> {
    let code = mail.lines().find_map(|l| {
        let w: Vec<&str> = l.split_whitespace().collect();
        if !matches!(w.first(), Some(&("JOIN" | "REJOINDRE"))) {
            return None;
        }
        let at = w.iter().position(|x| matches!(*x, "CONFIRM" | "CONFIRMER"))?;
        w.get(at + 1).map(|c| c.to_string())
    })?;
    let mut lines: Vec<String> = join.lines().map(str::to_string).collect();
    let i = lines.iter().position(|l| {
        let first = l.split_whitespace().next().unwrap_or_default().to_lowercase();
        matches!(first.as_str(), "join" | "rejoindre" | "inscription")
    })?;
    let mut words: Vec<String> = lines[i].split_whitespace().map(str::to_string).collect();
    if words.iter().any(|w| matches!(w.to_lowercase().as_str(), "confirm" | "confirmer")) {
        // Confirmed already.
        return None;
    }
    let fr = !words[0].eq_ignore_ascii_case("join");
    words.insert(2.min(words.len()), format!("{} {code}", if fr { "CONFIRMER" } else { "CONFIRM" }));
    lines[i] = words.join(" ");
    Some(lines.join("\n"))
}

/// Delivers `reply` from `from` into the daemon's Maildir `dir`; returns its key there.
pub(super) fn send_reply(dir: &Path, from: &str, n: &mut u64, reply: &Reply) -> Result<String, DaemonError> {
    *n += 1;
    Ok(deliver(dir, &reply.raw(from, &format!("demo-{n}-{}", from.replace('@', "."))))?)
}

/// The simulated calendar's first day: Monday 7 December 2026, 09:00 UTC.
pub const SIM_START: i64 = 1_796_634_000;

/// Dates a mail delivered in the simulated calendar at `at` (the Maildir's arrival time is the
/// file's modification time, which lateness is judged on).
fn stamp_arrival(dir: &Path, key: &str, at: i64) {
    let path = dir.join("new").join(key);
    if let Ok(f) = std::fs::File::options().append(true).open(&path) {
        let _ = f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(at.max(0) as u64));
    }
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
    // A track given as a file was copied there (`track_for_create`).
    cfg.tracks = Some(dir.join(create::DEMO_TRACKS)).filter(|t| t.is_dir());
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
    check(&spec.track, spec.cars, spec.laps)
        .map_err(|e| DaemonError::Io { what: "the demo".into(), source: std::io::Error::other(e) })?;
    let track = create::track_for_create(&spec.dir, &spec.track)?;
    let (mut daemon, mut inbox, mut via, sender, inbox_dir) = local_daemon(&spec.dir)?;
    // A simulated calendar: the daemon's clock is the demo's, from a Monday morning.
    let clock = std::sync::Arc::new(std::sync::atomic::AtomicI64::new(SIM_START));
    if spec.answer_hours.is_some() {
        let c = clock.clone();
        daemon.set_clock(move || crate::store::Stamp(c.load(std::sync::atomic::Ordering::SeqCst)));
    }
    let mut n = 0u64;
    let game = spec.game.clone();
    say(
        &inbox_dir,
        MODERATOR,
        &mut n,
        "new game",
        &format!(
            "{}TOKEN {MODERATOR_TOKEN}\nCREATE {game} TRACK {track} LAPS {} CARS {} GRID {}{}{}",
            spec.langs.line(None),
            spec.laps,
            spec.cars,
            spec.grid.name(),
            if spec.backmarkers { " BACKMARKERS YES" } else { "" },
            if spec.answer_hours.is_some() { " HOURS 24 PACE ROUND" } else { "" }
        ),
    )?;
    let mut players = Vec::new();
    let mut joins = Vec::new();
    for car in 1..=spec.cars {
        let address = format!("driver{car}@demo.invalid");
        let join = format!(
            "{}JOIN {game} CAR {car} PHRASE demo driver {car} says hello\nSETUP tyres=6 brakes=3 gas=3 body=3 engine=3 handling=2\nTYRES hard WET rain{}",
            spec.langs.line(Some(car)),
            spec.reports.map(|m| format!("\nREPORTS {}", m.word(crate::words::Lang::En))).unwrap_or_default()
        );
        say(&inbox_dir, &address, &mut n, "join", &join)?;
        joins.push(join);
        let mut p = Player::new(&address, car, &sender.mailbox_of(&address), car <= spec.policy_cars)?;
        p.rng ^= spec.seed;
        if spec.drive && !p.policy {
            p.drive = Some(DEMO_DRIVE.to_string());
        }
        players.push(p);
    }
    let mut mails_in = 0;
    daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
    let store = Store::new(spec.dir.join("games"));
    if !store.game_dir(&game).join("turns").is_dir() {
        return Err(create::create_refused(&sender.mailbox_of(MODERATOR), &game));
    }
    // Each address confirms its JOIN with the code mailed to it, in car order (the join order).
    for (p, join) in players.iter_mut().zip(&joins) {
        let confirmed = p.confirmed_join(join)?;
        say(&inbox_dir, &p.address, &mut n, "join", &confirmed)?;
        daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
    }
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
    before_start(&store.game_dir(&game))?;
    say(
        &inbox_dir,
        MODERATOR,
        &mut n,
        "start",
        &format!("{}GAME {game}\nTOKEN {MODERATOR_TOKEN}\nSTART", spec.langs.line(None)),
    )?;
    let started = clock.load(std::sync::atomic::Ordering::SeqCst);
    let mut bot = Bot::new();
    let stuck = || DaemonError::Io {
        what: "the demo".into(),
        source: std::io::Error::other("no player has anything to answer and the race is not over"),
    };
    for _round in 0..200_000 {
        daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
        let g = store.load(&game, None).map_err(|source| DaemonError::Store { game: game.clone(), source })?;
        if g.now.over {
            break;
        }
        let Some(hours) = spec.answer_hours else {
            let mut wrote = false;
            for p in &mut players {
                if let Some(r) = p.reply(&g, &mut bot, STEWARD)? {
                    p.decisions += 1;
                    send_reply(&inbox_dir, &p.address, &mut n, &r)?;
                    wrote = true;
                }
            }
            if !wrote {
                return Err(stuck());
            }
            continue;
        };
        // The simulated calendar: each new prompt is answered after its player's delay.
        let now = clock.load(std::sync::atomic::Ordering::SeqCst);
        let mut wrote = false;
        for p in &mut players {
            if let Some(t) = read_prompts(p)?
                && p.seen != Some(t)
                && p.answered != Some(t)
            {
                p.seen = Some(t);
                // A reminder does not put off an answer already on its way.
                if p.due.is_none() {
                    p.due = delay(&mut p.rng, hours).map(|d| (now + d, t));
                }
            }
            if let Some((at, _)) = p.due
                && at <= now
            {
                p.due = None;
                if let Some(r) = p.reply(&g, &mut bot, STEWARD)? {
                    p.decisions += 1;
                    let key = send_reply(&inbox_dir, &p.address, &mut n, &r)?;
                    stamp_arrival(&inbox_dir, &key, now);
                    wrote = true;
                }
            }
        }
        if wrote {
            continue;
        }
        // Nothing to send now: on to the next answer, reminder or deadline.
        let due = g.turns.last().and_then(|t| t.due.as_deref()).and_then(crate::store::Stamp::parse).map(|s| s.0);
        // The demo's games are paced by round (`PACE ROUND`): reminders as the daemon sends them.
        let hours = i64::from(daemon.config().round_reminder_hours);
        let remind = due.filter(|_| hours > 0).map(|d| d - hours * 3600).filter(|&r| r > now);
        let next = players
            .iter()
            .filter_map(|p| p.due.map(|d| d.0))
            .chain(remind)
            .chain(due.map(|d| d.max(now) + 1))
            .min()
            .ok_or_else(stuck)?;
        clock.store(next.max(now + 1), std::sync::atomic::Ordering::SeqCst);
    }
    daemon_pass(&mut daemon, &mut inbox, &mut via, &mut mails_in)?;
    let ended = clock.load(std::sync::atomic::Ordering::SeqCst);
    let g = store.load(&game, None).map_err(|source| DaemonError::Store { game: game.clone(), source })?;
    for p in &mut players {
        p.read_rest()?;
    }
    let moderator_mails = MaildirInbox::open(sender.mailbox_of(MODERATOR))?.fetch(1_000_000)?.len();
    Ok(DemoResult {
        moderator_mails,
        rounds: g.now.race.as_ref().map_or(0, |r| r.state.round),
        calendar_seconds: spec.answer_hours.map(|_| ended - started),
        players: players
            .iter()
            .map(|p| PlayerMail {
                address: p.address.clone(),
                car: p.car,
                received: p.received,
                decisions: p.decisions,
                replies: p.replies,
                reminders: p.reminders,
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
        p.replies += usize::from(is_reply(&m.raw));
        p.reminders += usize::from(is_reminder(&m.raw));
        if let Ok(msg) = Incoming::parse(&m.raw)
            && let Some(t) = msg.full_body.lines().find_map(|l| {
                let l = l.trim();
                let t = l.strip_prefix("TOKEN ").or_else(|| l.strip_prefix("JETON "))?.trim();
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
    let Some(turn) = read_prompts(p)? else { return Ok(None) };
    decide_on(p, g, bot, turn)
}

/// Reads the player's new mail; returns the turn of the newest report that asks this car
/// something, the newest kept to reply to.
fn read_prompts(p: &mut Player) -> Result<Option<u32>, DaemonError> {
    let mut asked: Option<u32> = p.prompt.as_ref().map(|q| q.turn);
    for m in p.inbox.fetch(10_000)? {
        p.received += 1;
        p.replies += usize::from(is_reply(&m.raw));
        p.reminders += usize::from(is_reminder(&m.raw));
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
    Ok(asked)
}

/// The player's answer to the report of `turn`, if it still asks something.
fn decide_on(p: &mut Player, g: &Game, bot: &mut Bot, turn: u32) -> Result<Option<(u32, String)>, DaemonError> {
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
    let Some(order) = order_now(p, g, bot) else { return Ok(None) };
    p.answered = Some(turn);
    Ok(Some((turn, order)))
}

/// What the player sends now: the choice after its roll, or its round order (the gear, with its
/// `DRIVE` if it sends one) while its car still moves in the round (issue 46).
fn order_now(p: &Player, g: &Game, bot: &mut Bot) -> Option<String> {
    let race = g.now.race.as_ref()?;
    if let Some(rolled) = g.pending_roll(p.car) {
        return Some(format!("CHOOSE {}", MoveOption::label(bot.option(&g.track, rolled))));
    }
    if !crate::judge::round::asked(g, p.car) {
        return None;
    }
    let id = g.player(p.car)?.0;
    let gear = format!("GEAR {}", bot.gear(&g.track, &race.state, id));
    Some(match &p.drive {
        Some(d) => format!("{gear}\nDRIVE {d}"),
        None => gear,
    })
}

/// Whether a mail is a deadline's reminder (its subject says so).
fn is_reminder(raw: &[u8]) -> bool {
    Incoming::parse(raw).is_ok_and(|m| m.subject.contains("] reminder: ") || m.subject.contains("] rappel"))
}

/// Whether a mail answers one of the player's own (it has an `In-Reply-To` header).
fn is_reply(raw: &[u8]) -> bool {
    Incoming::parse(raw).is_ok_and(|m| !m.in_reply_to.is_empty())
}

/// SplitMix64: the simulated players' delays (no secret in them).
fn next_u64(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn uniform(state: &mut u64) -> f64 {
    ((next_u64(state) >> 11) as f64 + 0.5) / (1u64 << 53) as f64
}

/// A delay in seconds: log-normal with median `hours` and [`SPREAD`]; `None` for a prompt
/// never answered ([`MISSED`]).
fn delay(state: &mut u64, hours: f64) -> Option<i64> {
    if uniform(state) < MISSED {
        return None;
    }
    let (u1, u2) = (uniform(state), uniform(state));
    let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
    Some((hours * 3600.0 * (SPREAD * z).exp()).round().max(60.0) as i64)
}
