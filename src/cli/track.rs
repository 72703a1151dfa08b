//! `steward track ...`: check, describe, import and draw tracks.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::Subcommand;

use crate::track::{self, info::TrackInfo};

#[derive(Debug, Subcommand)]
pub enum TrackCommand {
    /// Validate track files and report every problem, with file and line. Exits 1 on any problem.
    Check {
        /// Track files (`.toml`, or `.dat` from the public collection) or shipped track names.
        #[arg(required = true)]
        tracks: Vec<String>,
    },
    /// Print a track's facts: lanes, racing spaces, corners, grid, pit boxes, weather.
    Info {
        /// A shipped track's name (e.g. `monaco`) or a file path.
        track: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Convert a `.dat` track graph into the model; optionally write it as a TOML track.
    Import {
        /// The `.dat` file.
        file: PathBuf,
        /// Where to write the converted track (TOML); prints a summary when absent.
        #[arg(long, short)]
        out: Option<PathBuf>,
    },
    /// Draw the track (or the window around a space) as plain text for an email.
    Show {
        /// A shipped track's name or a file path.
        track: String,
        /// Draw only the rows around this space id (e.g. `c5.m.3`).
        #[arg(long)]
        around: Option<String>,
        /// A TOML file placing cars (`[[car]] number = 7, space = "c5.m.3"`) and optionally marking
        /// dangerous spaces (`dangerous = ["s6.l.4"]`, before the first `[[car]]`).
        #[arg(long)]
        cars: Option<PathBuf>,
    },
    /// Draw the whole track as a picture: PNG (corner flags drawn as on the mails' picture) or,
    /// for a file ending in `.svg`, the web pages' SVG.
    Picture {
        /// A shipped track's name or a file path (`.toml` or `.dat`).
        track: String,
        /// The file to write (`monaco.png`, `monaco.svg`).
        #[arg(long, short)]
        out: PathBuf,
        /// The PNG's width and height in pixels.
        #[arg(long, default_value_t = 800)]
        size: u32,
    },
}

pub fn run(cmd: TrackCommand) -> Result<ExitCode> {
    let mut out = std::io::stdout().lock();
    match cmd {
        TrackCommand::Check { tracks } => {
            let mut bad = 0;
            for name in &tracks {
                match track::load::resolve(name) {
                    Ok(t) => writeln!(
                        out,
                        "{name}: ok ({} racing spaces, {} corners, {} grid slots, {} pit boxes)",
                        t.racing_spaces(),
                        t.corners.len(),
                        t.grid.len(),
                        t.pit_boxes.len()
                    )?,
                    Err(e) => {
                        bad += 1;
                        writeln!(out, "{e}")?;
                    }
                }
            }
            if bad > 0 {
                writeln!(out, "{bad} of {} track(s) have problems", tracks.len())?;
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
        TrackCommand::Picture { track: name, out: path, size } => {
            let t = track::load::resolve(&name)?;
            let bytes = if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg")) {
                crate::render::picture::svg(&t, &Default::default(), &t.title).into_bytes()
            } else {
                crate::render::picture::whole_png(&t, size.clamp(100, 4000), size.clamp(100, 4000))
            };
            std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))?;
            writeln!(out, "{}: {} drawn in {}", name, t.title, path.display())?;
            Ok(ExitCode::SUCCESS)
        }
        TrackCommand::Info { track: name, json } => {
            let t = track::load::resolve(&name)?;
            let info = TrackInfo::of(&t);
            if json {
                writeln!(out, "{}", serde_json::to_string_pretty(&info)?)?;
            } else {
                writeln!(
                    out,
                    "{} ({}): {} lanes, {} racing spaces",
                    info.title, info.name, info.lanes, info.racing_spaces
                )?;
                for c in &info.corners {
                    writeln!(
                        out,
                        "  corner {:>2}: {} stop(s), {}/{} spaces",
                        c.number, c.stops, c.shortest, c.longest
                    )?;
                }
                writeln!(
                    out,
                    "  grid: {} slots, pole {}",
                    info.grid.len(),
                    info.grid.first().map_or("-", String::as_str)
                )?;
                writeln!(out, "  pit lane: {} spaces, {} boxes", info.pit_lane_spaces, info.pit_boxes.len())?;
                writeln!(
                    out,
                    "  weather: sun {}, changeable {}, rain {}",
                    info.weather.sun, info.weather.changeable, info.weather.rain
                )?;
            }
            Ok(ExitCode::SUCCESS)
        }
        TrackCommand::Import { file, out: dest } => {
            let inspection = track::import::inspect_file(&file)?;
            let imported = &inspection.imported;
            for n in &imported.notes {
                writeln!(out, "note: {n}")?;
            }
            let t = &imported.track;
            writeln!(out, "{}: {} racing spaces, {} corners", file.display(), t.racing_spaces(), t.corners.len())?;
            if let Some(dest) = dest {
                let text = track::import::to_toml(imported)?;
                std::fs::write(&dest, text).with_context(|| format!("writing {}", dest.display()))?;
                writeln!(out, "wrote {}", dest.display())?;
            }
            if !inspection.problems.is_empty() {
                let error = track::TrackError { file: Some(file.clone()), diagnostics: inspection.problems.clone() };
                writeln!(out, "{error}")?;
                writeln!(
                    out,
                    "{} problem(s): the track does not pass `track check` until they are fixed",
                    inspection.problems.len()
                )?;
                return Ok(ExitCode::from(1));
            }
            Ok(ExitCode::SUCCESS)
        }
        TrackCommand::Show { track: name, around, cars } => {
            let t = track::load::resolve(&name)?;
            let marks = match cars {
                Some(p) => crate::render::board::read_cars(&p, &t)?,
                None => crate::render::board::BoardMarks::default(),
            };
            let window = match around {
                Some(id) => Some(t.find(&id).with_context(|| format!("no space `{id}` on {}", t.name))?),
                None => None,
            };
            write!(out, "{}", crate::render::board::draw(&t, &marks, window))?;
            Ok(ExitCode::SUCCESS)
        }
    }
}
