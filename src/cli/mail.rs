//! The mail commands: `steward serve`, `steward demo`, `steward token-hash`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;

use crate::demo::{DemoSpec, run as run_demo};
use crate::judge::config::{InboxConfig, SendConfig, ServeConfig, moderator_token_hash};
use crate::judge::daemon::Daemon;
use crate::judge::outbox::Via;
use crate::mail::transport::{ImapInbox, Inbox, MaildirInbox, MaildirSender, SmtpSender};
use crate::store::fsio::Durability;

/// Mail commands.
#[derive(Debug, Subcommand)]
pub enum MailCommand {
    /// Run the mailbox daemon: read orders, adjudicate, reply (docs/daemon.md).
    Serve {
        /// The configuration file.
        #[arg(long, default_value = "steward.toml")]
        config: PathBuf,
        /// One pass (read every new message, check deadlines, flush the outbox), then exit.
        #[arg(long)]
        once: bool,
    },
    /// A whole race by mail with bot players in a local Maildir (no server needed).
    Demo {
        /// Keep everything (mailboxes, games, state) in DIR; default: a temporary directory, removed
        /// when the demo ends.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// The track.
        #[arg(long, default_value = "monaco")]
        track: String,
        /// Cars.
        #[arg(long, default_value_t = 4)]
        cars: u8,
        /// Laps.
        #[arg(long, default_value_t = 1)]
        laps: u16,
        /// The grid: qualifying (each player drives a timed lap by mail first), or join.
        #[arg(long, default_value = "qualifying")]
        grid: String,
        /// Backmarkers, slow cars no player drives (002), join the race when the leader finishes the
        /// first lap (ruling 49; they need two laps or more).
        #[arg(long)]
        backmarkers: bool,
        /// The report mode every player asks for with their JOIN: mine (the default: a mail
        /// when something is theirs to do), round, all (every move) or none.
        #[arg(long, default_value = "mine")]
        reports: String,
        /// A simulated calendar: every player answers each prompt after a random delay of this
        /// median (hours; a long tail, 3% never answered), the game's deadlines run per round (24
        /// hours), and the demo prints each player's mails against the rounds and the calendar
        /// the race took, beside the same race played with every roll answered by mail.
        #[arg(long)]
        answer_hours: Option<f64>,
        /// The seed of the simulated players' delays.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// The language the moderator and the players read: en, fr, or mixed (the moderator
        /// and the odd cars in French, the even cars in English).
        #[arg(long, default_value = "en")]
        lang: String,
    },
    /// Print the hash of a moderator's token, for `[[moderator]]` in steward.toml.
    TokenHash {
        /// The token.
        token: String,
    },
}

/// Runs a mail command.
pub fn run(cmd: MailCommand) -> Result<ExitCode> {
    match cmd {
        MailCommand::TokenHash { token } => {
            outln!("{}", moderator_token_hash(&token));
            Ok(ExitCode::SUCCESS)
        }
        MailCommand::Serve { config, once } => {
            let cfg = ServeConfig::load(&config)?;
            let mut inbox: Box<dyn Inbox> = match &cfg.inbox {
                InboxConfig::Maildir { dir } => Box::new(MaildirInbox::open(dir)?),
                InboxConfig::Imap(c) => {
                    let c = c.transport()?;
                    match ImapInbox::connect(c.clone()) {
                        Ok(inbox) => Box::new(inbox),
                        // Started before its IMAP server (at boot, say): the daemon waits for it.
                        Err(e) if !once && e.is_transient() => {
                            eprintln!("steward serve: {e}: waiting for the server");
                            Box::new(ImapInbox::unconnected(c))
                        }
                        Err(e) => return Err(e.into()),
                    }
                }
            };
            let mut via: Box<dyn crate::judge::outbox::Deliver> = match &cfg.send {
                SendConfig::Maildir { dir } => Box::new(crate::judge::outbox::Via(MaildirSender::per_recipient(dir))),
                SendConfig::Smtp(c) => Box::new(Via(SmtpSender::new(c.transport()?)?)),
            };
            eprintln!("steward serve: games in {}, state in {}", cfg.games.display(), cfg.state.display());
            let say = |p: &crate::judge::daemon::Pass| {
                if p.processed > 0 || p.deadlines > 0 || p.flushed.sent > 0 || p.flushed.failed > 0 {
                    eprintln!(
                        "steward serve: {} message(s) processed, {} deadline job(s), {} sent, {} deferred, {} failed",
                        p.processed, p.deadlines, p.flushed.sent, p.flushed.deferred, p.flushed.failed
                    );
                }
            };
            if once {
                // One pass: any failure is the exit status (cron runs it again).
                Daemon::new(cfg, Durability::Sync)?.run(inbox.as_mut(), via.as_mut(), |p| {
                    say(p);
                    true
                })?;
            } else {
                // Until stopped: a full disk or the mailbox server restarting is waited out.
                crate::judge::daemon::serve(
                    &cfg,
                    Durability::Sync,
                    inbox.as_mut(),
                    via.as_mut(),
                    |p| {
                        say(p);
                        false
                    },
                    std::thread::sleep,
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        MailCommand::Demo { dir, track, cars, laps, grid, backmarkers, reports, answer_hours, seed, lang } => {
            let langs = crate::demo::DemoLangs::parse(&crate::orders::squash(&lang))
                .with_context(|| format!("unknown language `{lang}` (en, fr, mixed)"))?;
            let reports = crate::orders::ReportMode::parse(&crate::orders::squash(&reports))
                .with_context(|| format!("unknown report mode `{reports}` (mine, round, all, none)"))?;
            let grid = crate::store::qualifying::GridMethod::parse(&grid)
                .with_context(|| format!("unknown grid `{grid}` (join, qualifying, qualifying-black-die)"))?;
            // The race is checked before any folder is made or mail written (issue 48).
            crate::demo::check(&track, cars, laps)?;
            let (root, tmp) = match dir {
                Some(d) => {
                    if fresh_demo_dir(&d)? {
                        outln!("{} held an earlier demo: it was removed, and this race starts afresh.", d.display());
                    }
                    (d, None)
                }
                None => {
                    let t = std::env::temp_dir().join(format!("steward-demo-{}", std::process::id()));
                    let tmp = TempDemo(t.clone());
                    std::fs::create_dir_all(&t).with_context(|| format!("cannot create {}", t.display()))?;
                    (t, Some(tmp))
                }
            };
            let game = format!("demo-{}", crate::store::Stamp::now().0);
            let spec = DemoSpec {
                dir: root.clone(),
                game,
                track,
                cars,
                laps,
                // In a simulated calendar every player drives by mail, so that the two protocols
                // compare like with like.
                policy_cars: if answer_hours.is_some() { 0 } else { cars / 2 },
                grid,
                backmarkers,
                reports: (reports != crate::orders::ReportMode::Mine).then_some(reports),
                drive: true,
                answer_hours,
                seed,
                langs,
            };
            // The same race with every roll answered by mail, for the comparison.
            let before = match answer_hours {
                Some(_) => {
                    let dir = root.join("every-roll-by-mail");
                    let r = run_demo(&DemoSpec { dir, drive: false, ..spec.clone() })?;
                    Some(r)
                }
                None => None,
            };
            let r = run_demo(&spec)?;
            outln!("{}", r.final_text);
            let n = |k: usize, one: &str, many: &str| format!("{k} {}", if k == 1 { one } else { many });
            outln!(
                "Mail: the daemon read {} and sent {}.",
                n(r.mails_in, "message", "messages"),
                n(r.mails_out, "mail", "mails")
            );
            outln!("Each player (reports {}): the mails received for the decisions they sent.", reports.code());
            for p in &r.players {
                outln!(
                    "  {} (car {}): {} for {}",
                    p.address,
                    p.car,
                    n(p.received, "mail", "mails"),
                    n(p.decisions, "decision", "decisions")
                );
            }
            if let (Some(h), Some(b)) = (answer_hours, &before) {
                let days = |r: &crate::demo::DemoResult| r.calendar_seconds.unwrap_or(0) as f64 / 86_400.0;
                let per = |r: &crate::demo::DemoResult| days(r) / f64::from(r.rounds.max(1));
                outln!(
                    "Simulated calendar (players answer after a median {h} h, a long tail, {:.0}% of prompts never answered; deadlines per round, 24 h):",
                    crate::demo::MISSED * 100.0
                );
                outln!(
                    "  round orders (GEAR and DRIVE in one mail):   calendar: {:.1} days for {} rounds ({:.2} days a round)",
                    days(&r),
                    r.rounds,
                    per(&r)
                );
                outln!(
                    "  every roll answered by mail (for comparison): calendar: {:.1} days for {} rounds ({:.2} days a round)",
                    days(b),
                    b.rounds,
                    per(b)
                );
                outln!("Mails per player against the {} rounds (round orders):", r.rounds);
                mails_per_player(&r)?;
                outln!("Mails per player against the {} rounds (every roll by mail):", b.rounds);
                mails_per_player(b)?;
            }
            if tmp.is_some() {
                // The temporary folder (it holds the game's seed) goes when the demo ends.
                outln!(
                    "The race ran in a temporary folder, now removed: give --dir DIR to keep the game and check every roll."
                );
                return Ok(ExitCode::SUCCESS);
            }
            outln!("Game directory: {}", r.game_dir.display());
            outln!(
                "Check every roll: {} verify --games {} {}",
                super::program::self_command(),
                r.game_dir.parent().map(|p| p.display().to_string()).unwrap_or_default(),
                r.game_dir.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
            );
            outln!("          or: python3 tools/verify_game.py {}", r.game_dir.display());
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Each player's mails and the moderator's, as the paced demo prints them, and how they stand
/// against the budget of issue 46 (rounds + 5): the mails the race sends a player on its own (the
/// round prompts, the choices they asked for, reminders, the start and the end) and the mails
/// they send; the replies to their own mails (acknowledgements) are counted beside them.
fn mails_per_player(r: &crate::demo::DemoResult) -> Result<()> {
    for p in &r.players {
        outln!(
            "  {} (car {}): {} mails from the race ({} reminders), {} sent, {} replies to their own mails ({} received in all)",
            p.address,
            p.car,
            p.received - p.replies,
            p.reminders,
            p.decisions,
            p.replies,
            p.received,
        );
    }
    outln!("  {} (moderator): {} mails received", crate::demo::MODERATOR, r.moderator_mails);
    let budget = r.rounds as usize + 5;
    let race = r.players.iter().map(|p| p.received - p.replies).max().unwrap_or(0);
    let sent = r.players.iter().map(|p| p.decisions).max().unwrap_or(0);
    let verdict = |n: usize| if n <= budget { "within" } else { "over" };
    outln!(
        "  against rounds + 5 = {budget}: mails from the race at most {race} ({}), sent at most {sent} ({}), the moderator's {} ({})",
        verdict(race),
        verdict(sent),
        r.moderator_mails,
        verdict(r.moderator_mails)
    );
    Ok(())
}

/// The temporary folder of a demo run without `--dir`, removed when the demo ends, however it
/// ends (it holds the game's secret seed).
struct TempDemo(PathBuf);

impl Drop for TempDemo {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The file that marks a folder made by `steward demo`, which a later demo may clear.
const DEMO_MARK: &str = ".steward-demo";

/// Readies `dir` for a demo: a new or empty folder is used as it is; a folder an earlier demo
/// made (it holds [`DEMO_MARK`]) is emptied, and `true` returned; any other folder is refused,
/// since the demo would mix its mail and games with what is there.
fn fresh_demo_dir(dir: &std::path::Path) -> Result<bool> {
    let shown = dir.display();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries.count(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(e) => anyhow::bail!("cannot read {shown}: {e}"),
    };
    let earlier = entries > 0 && dir.join(DEMO_MARK).is_file();
    if entries > 0 && !earlier {
        anyhow::bail!("{shown} is not empty and no earlier demo made it: give --dir a new or empty folder");
    }
    if earlier {
        std::fs::remove_dir_all(dir).with_context(|| format!("clearing the earlier demo in {shown}"))?;
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {shown}"))?;
    std::fs::write(dir.join(DEMO_MARK), "made by `steward demo`; a later demo into this folder clears it\n")
        .with_context(|| format!("writing {}", dir.join(DEMO_MARK).display()))?;
    Ok(earlier)
}
