//! The command line: parses arguments with clap and calls the library. No rule logic lives here.

pub mod game;
pub mod league;
pub mod mail;
mod program;
mod track;

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand};

/// How the help texts cite the rules (shown under every `--help`).
const REFERENCES: &str = "How the help cites the rules: numbers like 10-2-1 or (1-3-2) are articles of the 2004 \
French competition rules, the authoritative text; 002, 003 and 004 are the league texts (002 the series options, \
003 the Eurogames advanced rules, 004 the league rules); \"ruling N\" is a decision taken where the texts are \
silent, in docs/rulings.md. Backmarkers are slow cars no player drives (002).";

/// steward: a play-by-email adjudicator for Formula Dé.
#[derive(Debug, Parser)]
#[command(name = "steward", version, about, after_help = REFERENCES)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

// Parsed once per run: the size of its largest variant (`new`, with its many flags) costs nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Subcommand)]
enum Command {
    /// Tracks: check, describe, import and draw them.
    #[command(subcommand)]
    Track(track::TrackCommand),
    /// Run rulebook cases (`tests/scenarios/*.toml`); exits 1 with a readable diff on any failure.
    Scenario {
        /// Case files or directories of them.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Play whole bot races and print a deterministic summary (same seed, same bytes).
    Sim {
        /// A shipped track's name or a file path.
        #[arg(long, default_value = "monaco")]
        track: String,
        /// Cars per race.
        #[arg(long, default_value_t = 10)]
        cars: usize,
        /// Laps per race.
        #[arg(long, default_value_t = 3)]
        laps: u16,
        /// Number of races.
        #[arg(long, default_value_t = 1)]
        races: u32,
        /// Seed of the simulation's dice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Rule profile: competition-2004, competition-2002 or eurogames-advanced.
        #[arg(long, default_value = "competition-2004")]
        profile: String,
        /// Eurogames advanced rules switched on, comma-separated (slipstream, time-trials, tyres,
        /// weather, construction, road-holding, pits, or `all`); with eurogames-advanced and no
        /// --toggles, all seven are on.
        #[arg(long, value_delimiter = ',')]
        toggles: Option<Vec<String>>,
        /// Print every event of race N (1-based) before the summary.
        #[arg(long, value_name = "N")]
        trace: Option<u32>,
        /// Keep every race as a real game directory in DIR (continues games a killed run left).
        #[arg(long, value_name = "DIR")]
        keep: Option<PathBuf>,
        /// With --keep: skip fsync (safe against a killed process, not a power cut).
        #[arg(long, requires = "keep")]
        no_sync: bool,
        /// Weather: dry (sun, the default), wet (rain), changeable (3-2-4: the start from a
        /// qualifying draw, then weather tests), track (both draws on the track's table, 3-1, 3-2).
        #[arg(long, default_value = "dry")]
        weather: String,
        /// Backmarkers, slow cars no player drives (002), join every race when the leader finishes
        /// the first lap (ruling 49).
        #[arg(long)]
        backmarkers: bool,
    },
    /// Bot qualifying: a timed lap per car (article 1), the result table and the grid (1-3-2).
    Qualify {
        /// A shipped track's name or a file path.
        #[arg(long, default_value = "monaco")]
        track: String,
        /// Cars.
        #[arg(long, default_value_t = 10)]
        cars: usize,
        /// Seed of the dice.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Weather: dry, wet, or track (the black die on the track's table, 1-0-3).
        #[arg(long, default_value = "dry")]
        weather: String,
        /// Ties: completion (order of the laps) or black-die.
        #[arg(long, default_value = "completion")]
        ties: String,
        /// Rule profile (docs/profiles.md).
        #[arg(long, default_value = "competition-2004")]
        profile: String,
        /// Eurogames advanced rules switched on, comma-separated (all seven when not given).
        #[arg(long, value_delimiter = ',')]
        toggles: Option<Vec<String>>,
    },
    /// Write the leagues' and races' web pages: standings, race replays, dice audits
    /// (docs/site.md). Only games changed since the last build are rebuilt.
    Site {
        /// The games directory.
        #[arg(long, value_name = "DIR")]
        games: PathBuf,
        /// Where the pages go.
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Leagues: a season of races, drivers, teams, grids and standings (docs/leagues.md).
    #[command(subcommand)]
    League(crate::cli::league::LeagueCommand),
    #[command(flatten)]
    Game(crate::cli::game::GameCommand),
    #[command(flatten)]
    Mail(crate::cli::mail::MailCommand),
}

/// The command line with [`REFERENCES`] under every subcommand's `--help` too (`steward sim
/// --help`, `steward league create --help`...), where a newcomer meets the articles, 002's
/// backmarkers and the rulings without reading the top-level help first.
pub fn command() -> clap::Command {
    fn explain(c: clap::Command) -> clap::Command {
        c.after_help(REFERENCES).mut_subcommands(explain)
    }
    use clap::CommandFactory;
    explain(Cli::command())
}

/// Runs the command line and maps the outcome to an exit code (0 ok, 1 problems found,
/// 2 unusable input).
pub fn main() -> ExitCode {
    use clap::FromArgMatches;
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit());
    match run(cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("steward: {}", one_sentence(&e));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes on one line, each said once: a message that already quotes its
/// cause (`cannot read x: No such file or directory`, a typed error's `{source}`) does not get
/// the cause again, as `{:#}` would add it (issue 48).
pub fn one_sentence(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let said = cause.to_string();
        if said.is_empty() || text.contains(&said) {
            continue;
        }
        if said.contains(&text) {
            // A cause that repeats everything said so far and more.
            text = said;
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&said);
    }
    text
}

/// A reader that stopped reading (`| head`) is not an error of ours.
fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().filter_map(|c| c.downcast_ref::<std::io::Error>()).any(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Track(t) => track::run(t),
        Command::Scenario { files } => {
            let paths = crate::scenario::collect(&files);
            let mut report = String::new();
            let failed = crate::scenario::run_files(&paths, &mut report);
            out!("{report}");
            Ok(if failed > 0 { ExitCode::from(1) } else { ExitCode::SUCCESS })
        }
        Command::Game(g) => crate::cli::game::run(g),
        Command::League(l) => crate::cli::league::run(l),
        Command::Site { games, out } => {
            let b = crate::site::build(&games, &out)?;
            outln!(
                "{} game(s) rebuilt, {} unchanged, {} league(s); open {}",
                b.rebuilt.len(),
                b.kept.len(),
                b.leagues.len(),
                out.join("index.html").display()
            );
            Ok(ExitCode::SUCCESS)
        }
        Command::Qualify { track: name, cars, seed, weather, ties, profile, toggles } => {
            let rules = crate::engine::Rulebook::from_cli(&profile, toggles.as_deref())?;
            let weather = crate::sim::qualifying::SessionWeather::parse(&weather)
                .with_context(|| format!("unknown weather `{weather}` (dry, wet, track)"))?;
            let tie = crate::engine::qualifying::TieBreak::parse(&ties)
                .with_context(|| format!("unknown tie-break `{ties}` (completion, black-die)"))?;
            let t = crate::track::load::resolve(&name)?;
            anyhow::ensure!((1..=99).contains(&cars), "--cars must be 1 to 99");
            let s = crate::sim::qualifying::run(
                &t,
                &crate::sim::qualifying::SessionConfig { cars, seed, weather, tie, rules },
            )?;
            out!("{}", crate::sim::qualifying::report(&t, &s));
            Ok(ExitCode::SUCCESS)
        }
        Command::Mail(m) => crate::cli::mail::run(m),
        Command::Sim {
            track: name,
            cars,
            laps,
            races,
            seed,
            profile,
            toggles,
            trace,
            keep,
            no_sync,
            weather,
            backmarkers,
        } => {
            let weather = crate::sim::SimWeather::parse(&weather)
                .with_context(|| format!("unknown weather `{weather}` (dry, wet, changeable, track)"))?;
            let t = crate::track::load::resolve(&name)?;
            let rules = crate::engine::Rulebook::from_cli(&profile, toggles.as_deref())?;
            anyhow::ensure!(
                (1..=t.grid.len()).contains(&cars),
                "--cars must be 1 to {} (the grid of {})",
                t.grid.len(),
                t.name
            );
            anyhow::ensure!(laps >= 1, "--laps must be at least 1");
            let cfg = crate::sim::SimConfig {
                cars,
                laps,
                races,
                seed,
                trace: trace.map(|n| n.saturating_sub(1)),
                weather,
                backmarkers,
            };
            if let Some(dir) = keep {
                let sync =
                    if no_sync { crate::store::fsio::Durability::NoSync } else { crate::store::fsio::Durability::Sync };
                return match crate::sim::keep::run(&t, &name, &rules, &cfg, &dir, sync) {
                    Ok(text) => {
                        out!("{text}");
                        Ok(ExitCode::SUCCESS)
                    }
                    Err(crate::sim::keep::KeepError::Broken(e)) => {
                        eprintln!("steward: engine invariant broken: {e}");
                        Ok(ExitCode::from(1))
                    }
                    Err(e) => Err(e.into()),
                };
            }
            match crate::sim::run(&t, &rules, &cfg) {
                Ok(text) => {
                    out!("{text}");
                    Ok(ExitCode::SUCCESS)
                }
                Err(e) => {
                    out!("{}", e.context);
                    eprintln!("steward: engine invariant broken: {e}");
                    Ok(ExitCode::from(1))
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// A cause the message already quotes is not said again; one it does not is (issue 48).
    #[test]
    fn an_error_says_each_cause_once() {
        use anyhow::Context;
        let os = || std::io::Error::new(std::io::ErrorKind::NotFound, "No such file or directory (os error 2)");
        #[derive(Debug, thiserror::Error)]
        #[error("cannot read {path}: {source}")]
        struct Quoting {
            path: String,
            source: std::io::Error,
        }
        let e = anyhow::Error::new(Quoting { path: "/x".into(), source: os() });
        assert_eq!(
            format!("{e:#}"),
            "cannot read /x: No such file or directory (os error 2): No such file or directory (os error 2)"
        );
        assert_eq!(super::one_sentence(&e), "cannot read /x: No such file or directory (os error 2)");
        let e = Err::<(), _>(os()).context("reading /y").unwrap_err();
        assert_eq!(super::one_sentence(&e), "reading /y: No such file or directory (os error 2)");
        let e = anyhow::Error::new(Quoting { path: "/x".into(), source: os() })
            .context("race 1: cannot read /x: No such file or directory (os error 2)");
        assert_eq!(super::one_sentence(&e), "race 1: cannot read /x: No such file or directory (os error 2)");
    }

    /// Every subcommand's own `--help` explains the citations (issue 15).
    #[test]
    fn every_subcommand_help_explains_the_rule_citations() {
        fn check(c: &mut clap::Command, path: &str) {
            let help = c.render_long_help().to_string();
            assert!(help.contains("ruling N") && help.contains("Backmarkers are"), "{path} --help:\n{help}");
            for s in c.get_subcommands_mut().filter(|s| s.get_name() != "help") {
                let name = format!("{path} {}", s.get_name());
                check(s, &name);
            }
        }
        let mut c = super::command();
        c.build();
        check(&mut c, "steward");
    }
}
