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
use super::model::Track;
use super::problem::{Diagnostic, TrackError, TrackProblem};
use super::weather_ranges::weather_table;

/// An imported track and what the importer had to infer.
#[derive(Clone, Debug)]
pub struct Imported {
    /// The track.
    pub track: Track,
    /// Notes on inferred facts, one per line, human-readable.
    pub notes: Vec<String>,
}

/// An import whose track may still fail [`check`]: what `steward track import` shows, so that a
/// moderator can write the track out and fix it.
#[derive(Clone, Debug)]
pub struct Inspection {
    /// The track as inferred, and the notes.
    pub imported: Imported,
    /// What `check` finds wrong with it, arrow problems pointing at the arrow's line in the file.
    pub problems: Vec<Diagnostic>,
}

/// The project's default weather table (the `.dat` files carry none usable for the black die).
pub const DEFAULT_WEATHER: (&str, &str, &str) = ("1-12", "13-16", "17-20");

/// Imports a `.dat` file. The track is named after the file stem. Fails unless the track passes
/// [`check`].
pub fn import_file(path: &Path) -> Result<Imported, TrackError> {
    checked(inspect_file(path)?, Some(path))
}

/// Imports `.dat` text; `name` names the track (its title is the name capitalised). Fails unless
/// the track passes [`check`].
pub fn import_str(text: &str, name: &str) -> Result<Imported, TrackError> {
    checked(inspect_str(text, name)?, None)
}

/// Like [`import_file`], but returns the inferred track even when `check` finds problems.
pub fn inspect_file(path: &Path) -> Result<Inspection, TrackError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        TrackError::single(Some(path.to_path_buf()), 0, TrackProblem::Syntax(format!("cannot read the file: {e}")))
    })?;
    let name = path.file_stem().and_then(|s| s.to_str()).unwrap_or("track");
    import_text(&text, name, Some(path.to_path_buf()))
}

/// Like [`import_str`], but returns the inferred track even when `check` finds problems.
pub fn inspect_str(text: &str, name: &str) -> Result<Inspection, TrackError> {
    import_text(text, name, None)
}

fn checked(i: Inspection, file: Option<&Path>) -> Result<Imported, TrackError> {
    if i.problems.is_empty() {
        Ok(i.imported)
    } else {
        Err(TrackError { file: file.map(Path::to_path_buf), diagnostics: i.problems })
    }
}

fn import_text(text: &str, name: &str, file: Option<PathBuf>) -> Result<Inspection, TrackError> {
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
            "finish line: inferred at node 0 (the file marks none; node 0, the first node drawn, is on the marked \
             line in 38 of the 39 reference files): nodes {}, left to right",
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
            "long arrow: {} -> {} advances {} rows along a straight by the inferred progress (other straight \
             arrows advance half a row or a row); kept as drawn",
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

    let mut problems = arrow_lines(&track, &plan.node_of(), &dat, check(&track));
    problems.sort_by_key(|d| d.line.unwrap_or(u32::MAX));
    Ok(Inspection { imported: Imported { track, notes }, problems })
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::track::model::SpaceKind;

    /// The synthetic ring (`track::synthetic`), written as the original editor wrote: `\r\n`.
    fn synthetic(rows: u32, mark_line: bool, extra_arrows: &[(u32, u32)]) -> String {
        let s = crate::track::synthetic::Synthetic {
            mark_line,
            extra_arrows: extra_arrows.to_vec(),
            crlf: true,
            ..Default::default()
        };
        s.dat(rows)
    }

    #[test]
    fn synthetic_track_imports_with_the_expected_shape() {
        let rows = 60;
        let imp = import_str(&synthetic(rows, true, &[]), "ring").unwrap();
        let t = &imp.track;
        assert_eq!(t.lanes, 3);
        assert_eq!(t.racing_spaces(), 3 * rows as usize);
        let flags: Vec<(u8, u16, u16)> = t.corners.iter().map(|c| (c.stops, c.shortest, c.longest)).collect();
        assert_eq!(flags, vec![(1, 5, 10), (2, 8, 16)]);
        let segs: Vec<&str> = t.segments.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(segs, ["s0", "c1", "s1", "c2", "s2"]);
        assert_eq!(t.pit_lane.len(), 14);
        assert_eq!(t.pit_boxes.len(), 10);
        assert!(matches!(t.space(t.pit_lane[2]).kind, SpaceKind::PitBox(1)));
        // Node 0 is the middle lane of row 0; nodes 1 and 2 are the left and right lanes.
        let line_of_node = |node: u32| node + 2;
        let at_line = |l: u32| t.indices().find(|&s| t.space_lines[s.get()] == l).unwrap();
        assert_eq!(t.space(at_line(line_of_node(1))).lane, 0);
        assert_eq!(t.space(at_line(line_of_node(0))).lane, 1);
        assert_eq!(t.space(at_line(line_of_node(2))).lane, 2);
        assert_eq!(t.space(at_line(line_of_node(0))).id, "s0.m.1");
        // Same-row outer spaces share progress; the middle lane sits half a row behind.
        let p = |node: u32| t.space(at_line(line_of_node(node))).progress;
        assert_eq!(p(3 * 5 + 1), p(3 * 5 + 2));
        assert_eq!(p(3 * 5 + 1) - p(3 * 5), crate::track::ROW / 2);
        // The pole is the left lane of the last row, though the file lists it last.
        let pole = t.grid[0];
        assert_eq!(t.space_lines[pole.get()], line_of_node(3 * (rows - 1) + 1));
        assert!(check(t).is_empty());
    }

    #[test]
    fn an_unmarked_line_is_inferred_at_node_0() {
        let marked = import_str(&synthetic(60, true, &[]), "ring").unwrap().track;
        let inferred = import_str(&synthetic(60, false, &[]), "ring").unwrap();
        assert!(inferred.notes.iter().any(|n| n.contains("inferred at node 0")));
        let ids = |t: &Track| t.spaces.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
        assert_eq!(ids(&marked), ids(&inferred.track));
    }

    #[test]
    fn an_arrow_across_two_lanes_is_reported_at_its_line() {
        // Left lane of row 20 to the right lane of row 20: across the middle lane.
        let text = synthetic(60, true, &[(61, 62)]);
        let err = import_str(&text, "ring").unwrap_err();
        assert_eq!(err.diagnostics.len(), 1, "{err}");
        let d = &err.diagnostics[0];
        assert!(matches!(d.problem, TrackProblem::LaneJump { .. }), "{err}");
        let line = text.split("\r\n").nth(d.line.unwrap() as usize - 1).unwrap();
        assert_eq!(line, "61 62");
    }

    #[test]
    fn a_missing_curve_distance_is_typed() {
        let text = synthetic(60, true, &[]).replace("\r\n30 0\r\n", "\r\n");
        let err = import_str(&text, "ring").unwrap_err();
        assert_eq!(
            err.diagnostics[0].problem,
            TrackProblem::CurveDistance {
                node: 30,
                message: "it has no relative distance in the attribute list".into()
            }
        );
        // Node 30 is defined on line 32 (node k on line k + 2).
        assert_eq!(err.diagnostics[0].line, Some(32));
    }

    #[test]
    fn round_trip_through_the_graph_form() {
        let imp = import_str(&synthetic(60, true, &[]), "ring").unwrap();
        let text = to_toml(&imp).unwrap();
        let back = crate::track::load::from_toml(&text, None).unwrap();
        let t = &imp.track;
        assert_eq!(back.spaces.len(), t.spaces.len());
        for s in t.indices() {
            assert_eq!(back.space(s).id, t.space(s).id);
            assert_eq!(back.next(s), t.next(s));
        }
        assert_eq!(back.grid, t.grid);
        assert_eq!(back.pit_lane, t.pit_lane);
        assert_eq!(back.lap_length, t.lap_length);
    }

    #[test]
    fn titles_are_capitalised() {
        assert_eq!(title_of("monaco"), "Monaco");
        assert_eq!(title_of("hockenheimD"), "HockenheimD");
        assert_eq!(title_of(""), "");
    }
}
