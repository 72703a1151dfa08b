//! Importer for the `.dat` track graphs of the public Formula D collection (an open-source Java
//! game). `docs/import.md` describes the format and every inference rule.
//!
//! A `.dat` file gives nodes with pixel positions and types, the arrows between them, curve
//! distances, pit boxes and grid slots, but no lanes, lap order, progress or corner flags: those
//! are inferred ([`layout`] for the finish line, lap order, corners and progress; [`lanes`] for
//! lanes), then the track is built through [`TrackBuilder`](super::model::TrackBuilder)
//! ([`assemble`]) and must pass [`check`](super::check::check) like any other track.
//! [`Imported::notes`] says what was inferred.

mod assemble;
mod dat;
mod lanes;
mod layout;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::check::check;
use super::graph_file::GraphFile;
use super::load::weather_table;
use super::model::Track;
use super::problem::{Diagnostic, TrackError, TrackProblem};

/// An imported track and what the importer had to infer.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The track.
    pub track: Track,
    /// Notes on inferred facts, one per line, human-readable.
    pub notes: Vec<String>,
}

/// The project's default weather table (the `.dat` files carry none usable for the black die).
pub const DEFAULT_WEATHER: (&str, &str, &str) = ("1-12", "13-16", "17-20");

/// Imports a `.dat` file. The track is named after the file stem.
pub fn import_file(path: &Path) -> Result<Imported, TrackError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        TrackError::single(Some(path.to_path_buf()), 0, TrackProblem::Syntax(format!("cannot read the file: {e}")))
    })?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("track");
    import_text(&text, name, Some(path.to_path_buf()))
}

/// Imports `.dat` text; `name` names the track (its title is the name capitalised).
pub fn import_str(text: &str, name: &str) -> Result<Imported, TrackError> {
    import_text(text, name, None)
}

fn import_text(text: &str, name: &str, file: Option<PathBuf>) -> Result<Imported, TrackError> {
    let fail = |diagnostics: Vec<Diagnostic>| TrackError { file: file.clone(), diagnostics };
    let dat = dat::parse(text).map_err(fail)?;
    let mut notes = Vec::new();

    let (sun, changeable, rain) = DEFAULT_WEATHER;
    let weather = weather_table(sun, changeable, rain).expect("the default weather table is valid");
    notes.push(match dat.weather_params {
        Some((p, s)) => format!(
            "weather: the header gives rain probability {p}% and shortest period {s} (the Java game's turn-by-turn \
             forecast); they do not define a black-die table, so the project default is used: sun {sun}, \
             changeable {changeable}, rain {rain}"
        ),
        None => format!(
            "weather: the file has no weather; the project default is used: sun {sun}, changeable {changeable}, rain {rain}"
        ),
    });
    notes.push(format!(
        "{} nodes, {} arrows; lines end in {}",
        dat.nodes.len(),
        dat.arrows.len(),
        if dat.crlf { "CRLF" } else { "LF" }
    ));
    notes.push(format!(
        "header: image `{}`, info-box corner {} ({}); display only, not imported",
        dat.image,
        dat.info_corner,
        ["NE", "SE", "SW", "NW"].get(dat.info_corner as usize).copied().unwrap_or("outside the Java game's 0..3")
    ));

    let blocked: Vec<&dat::Node> = dat.nodes.iter().filter(|n| n.kind == dat::NodeKind::Blocked).collect();
    for n in &blocked {
        let ins: Vec<String> =
            dat.arrows.iter().filter(|a| dat.nodes[a.1].id == n.id).map(|a| dat.nodes[a.0].id.to_string()).collect();
        notes.push(format!(
            "node {} is blocked (type 4): no car may enter it, so it is left out with its arrows (from {})",
            n.id,
            if ins.is_empty() { "none".to_string() } else { ins.join(", ") }
        ));
    }

    let g = layout::Graph::new(&dat);
    let one = |d: Diagnostic| fail(vec![d]);
    let line = layout::finish_line(&g).map_err(one)?;
    let line_ids: Vec<String> = line.nodes.iter().map(|&k| g.id(k).to_string()).collect();
    notes.push(if line.declared {
        format!("finish line: nodes {} (marked in the file), left to right", line_ids.join(", "))
    } else {
        format!(
            "finish line: inferred at node 0 (the file marks none; node 0 lies on the line in every file that marks \
             it): nodes {}, left to right",
            line_ids.join(", ")
        )
    });
    notes.push(format!("{} lanes (the width of the finish line)", line.nodes.len()));
    let lap = layout::lap_order(&g, &line).map_err(one)?;
    let shape = layout::shape(&g, &lap).map_err(one)?;
    notes.extend(shape.notes.iter().cloned());
    let lanes = lanes::assign(&g, &line, &lap, &shape).map_err(one)?;
    notes.extend(lanes.notes.iter().cloned());
    for (a, b) in long_arrows(&g, &shape) {
        notes.push(format!(
            "odd arrow: {} -> {} jumps {} rows along a straight (kept as drawn)",
            g.id(a),
            g.id(b),
            (shape.progress[b] - shape.progress[a]) as f64 / super::model::ROW as f64
        ));
    }

    let title = title_of(name);
    let plan = assemble::plan(&g, &line, &shape, &lanes, name, &title, weather).map_err(fail)?;
    notes.extend(plan.notes.iter().cloned());
    let track = plan.build_with_flags();
    for (seg, c) in track.segments.iter().filter_map(|s| s.corner.map(|c| (s, &track.corners[c.get()]))) {
        let node_of = plan.node_of();
        let mut ids: Vec<u32> = c.spaces.iter().map(|s| g.id(node_of[s.get()])).collect();
        ids.sort();
        notes.push(format!(
            "corner {} ({}): {} stop(s) from the node type, {}/{} from the arrows, {} spaces (nodes {}..{})",
            c.number,
            seg.id,
            c.stops,
            c.shortest,
            c.longest,
            c.spaces.len(),
            ids.first().unwrap_or(&0),
            ids.last().unwrap_or(&0)
        ));
    }
    notes.push("walls: the format has none; no space is marked as along a wall".into());

    let diags = check(&track);
    if !diags.is_empty() {
        let mut diags = arrow_lines(&track, &plan.node_of(), &dat, diags);
        diags.sort_by_key(|d| d.line.unwrap_or(u32::MAX));
        return Err(fail(diags));
    }
    Ok(Imported { track, notes })
}

/// "Monaco" from "monaco".
fn title_of(name: &str) -> String {
    let mut c = name.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Arrows along a straight that advance more than a row and a half: a lane-change arrow moves half
/// a row, an own-lane arrow one row.
fn long_arrows(g: &layout::Graph, shape: &layout::Shape) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for a in 0..g.succ.len() {
        for &b in &g.succ[a] {
            let straight = |k: usize| matches!(shape.segment[k], layout::Seg::Straight(_));
            if straight(a)
                && straight(b)
                && shape.segment[a] == shape.segment[b]
                && shape.progress[b] > shape.progress[a] + 3 * super::model::ROW / 2
            {
                out.push((a, b));
            }
        }
    }
    out
}

/// Points arrow problems found by `check` at the arrow's line in the `.dat` file.
fn arrow_lines(track: &Track, node_of: &[usize], d: &dat::Dat, diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    let lines: HashMap<(usize, usize), u32> = d.arrows.iter().map(|&(a, b, l)| ((a, b), l)).collect();
    let node = |id: &str| track.find(id).map(|s| node_of[s.get()]);
    diags
        .into_iter()
        .map(|diag| {
            let arrow = match &diag.problem {
                TrackProblem::LaneJump { from, to } | TrackProblem::Backwards { from, to } => {
                    node(from).zip(node(to)).and_then(|k| lines.get(&k).copied())
                }
                _ => None,
            };
            match arrow {
                Some(l) => Diagnostic::at(l, diag.problem),
                None => diag,
            }
        })
        .collect()
}

/// Writes an imported track as a TOML track file in the graph form (see
/// [`crate::track::graph_file`]), which `load::from_toml` reads back.
pub fn to_toml(imported: &Imported) -> Result<String, TrackError> {
    let header = imported.notes.iter().map(|n| format!("# {n}\n")).collect::<String>();
    GraphFile::from_track(&imported.track)
        .to_toml()
        .map(|body| {
            format!(
                "# Imported by `steward track import` from the .dat graph of {}. Inferred:\n{header}\n{body}",
                imported.track.title
            )
        })
        .map_err(|e| TrackError::single(None, 0, TrackProblem::Syntax(format!("cannot write the track as TOML: {e}"))))
}
