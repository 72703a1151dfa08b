//! Builds a [`Track`] from a hand-authored track file (`tracks/*.toml`).
//!
//! The lap is laid out segment by segment from the finish line. Straights have staggered lanes:
//! the odd lanes (the middle one on three lanes) sit half a row behind the others, as on the
//! printed boards, so a lane change costs distance (7-2-3 makes that matter). Corner lanes
//! divide the corner's depth evenly among their spaces. Arrows are then derived:
//! - every space links to the next space of its own lane;
//! - on a straight, to the first space ahead in each neighbouring lane (the diagonal);
//! - in a corner, to the first space of each neighbouring lane that lies wholly beyond the
//!   current space, so that no path through the corner is shorter than its inside lane or longer
//!   than its outside lane (the flag's C and L, 7-1-1).
//!
//! The loader reports every problem it finds, each with its line, then runs
//! [`crate::track::check`] on the result.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::builder::{SpaceDraft, TrackBuilder};
use super::check::check;
use super::file::{GridFile, OutlineFile, SegmentFile, TrackFile};
use super::graph_file::GraphFile;
use super::model::{Outline, ROW, SpaceIdx, SpaceKind, Track, Weather, WeatherTable, forward_gap};
use super::problem::{Diagnostic, TrackError, TrackProblem, line_of};
use super::weather_ranges::weather_table;

/// Parses and builds a track from TOML text; `file` is only used in messages.
///
/// Two forms exist: the segment form (`file.rs`, the default, `format = "segments"`) and the
/// graph form (`graph_file.rs`, `format = "graph"`), which lists every space and arrow.
pub fn from_toml(text: &str, file: Option<&Path>) -> Result<Track, TrackError> {
    let file_buf = file.map(Path::to_path_buf);
    let syntax = |e: toml::de::Error| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(0);
        TrackError::single(file_buf.clone(), line, TrackProblem::Syntax(e.message().trim().to_string()))
    };
    let mut diags = Vec::new();
    let format = toml::from_str::<FormatProbe>(text).ok().and_then(|p| p.format);
    let track = match format.as_ref().map(|f| f.get_ref().as_str()) {
        None | Some("segments") => {
            let parsed: TrackFile = toml::from_str(text).map_err(syntax)?;
            build(&parsed, text, &mut diags)
        }
        Some("graph") => {
            let parsed: GraphFile = toml::from_str(text).map_err(syntax)?;
            super::load_graph::build(&parsed, text, &mut diags)
        }
        Some(other) => {
            let line = format.as_ref().map(|f| line_of(text, f.span().start)).unwrap_or(0);
            return Err(TrackError::single(
                file_buf,
                line,
                TrackProblem::BadValue {
                    field: "format".into(),
                    message: format!("`{other}` is not a track file form; use \"segments\" (the default) or \"graph\""),
                },
            ));
        }
    };
    if let Some(track) = &track {
        diags.extend(check(track));
    }
    diags.sort_by_key(|d| d.line.unwrap_or(u32::MAX));
    match track {
        Some(t) if diags.is_empty() => Ok(t),
        _ => Err(TrackError { file: file_buf, diagnostics: diags }),
    }
}

/// Just the `format` key of a track file, to choose the form before parsing it.
#[derive(serde::Deserialize)]
struct FormatProbe {
    #[serde(default)]
    format: Option<toml::Spanned<String>>,
}

/// Reads and builds a track file.
pub fn from_file(path: &Path) -> Result<Track, TrackError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        TrackError::single(Some(path.to_path_buf()), 0, TrackProblem::Syntax(format!("cannot read the file: {e}")))
    })?;
    from_toml(&text, Some(path))
}

/// Lays out one segment's spaces from `start`; returns the segment's depth.
fn lay_out(
    b: &mut TrackBuilder,
    seg: u16,
    lengths: &[u16],
    straight: bool,
    start: u32,
    wall: Option<u8>,
    line: u32,
) -> u32 {
    let depth = lengths.iter().copied().max().unwrap_or(0) as u32 * ROW;
    for (lane, &n) in lengths.iter().enumerate() {
        let lane = lane as u8;
        for k in 0..n as u32 {
            let (progress, length) = if straight {
                // Staggered rows: odd lanes half a row behind the even ones.
                let offset = if lane % 2 == 1 { ROW / 4 } else { 3 * ROW / 4 };
                (start + k * ROW + offset, ROW)
            } else {
                let n = n as u32;
                (start + (2 * k + 1) * depth / (2 * n), depth / n)
            };
            b.add_space(SpaceDraft {
                lane,
                kind: SpaceKind::Racing,
                segment: Some(seg),
                progress,
                length,
                wall: wall == Some(lane),
                line,
                at: None,
            });
        }
    }
    depth
}

/// Derives the arrows of the racing track (see the module docs).
fn derive_links(b: &mut TrackBuilder, lanes: u8, corner_segments: &[bool]) {
    let lap = b.lap_length();
    let mut by_lane: Vec<Vec<SpaceIdx>> = vec![Vec::new(); lanes as usize];
    for i in 0..b.len() {
        let s = SpaceIdx(i as u16);
        let d = b.draft(s);
        if !d.kind.in_pit_lane() {
            by_lane[d.lane as usize].push(s);
        }
    }
    for lane in &mut by_lane {
        lane.sort_by_key(|s| b.draft(*s).progress);
    }
    // First space of `lane` whose centre is at or beyond `at` (circularly), but not `from`.
    let first_from = |b: &TrackBuilder, lane: &[SpaceIdx], at: u32, strictly: bool| -> Option<SpaceIdx> {
        let at = at % lap;
        let pos = lane.partition_point(|s| {
            let p = b.draft(*s).progress;
            if strictly { p <= at } else { p < at }
        });
        lane.get(pos).or(lane.first()).copied()
    };
    let mut links = Vec::new();
    for lane in 0..lanes as usize {
        for (k, &s) in by_lane[lane].iter().enumerate() {
            let d = b.draft(s);
            let ahead = by_lane[lane][(k + 1) % by_lane[lane].len()];
            links.push((s, ahead));
            let in_corner = d.segment.is_some_and(|g| corner_segments[g as usize]);
            for other in [lane.wrapping_sub(1), lane + 1] {
                let Some(other_lane) = by_lane.get(other) else { continue };
                if other_lane.is_empty() {
                    continue;
                }
                let target = if in_corner {
                    first_from(b, other_lane, d.progress + d.length / 2, false)
                } else {
                    first_from(b, other_lane, d.progress, true)
                };
                if let Some(t) = target {
                    links.push((s, t));
                }
            }
        }
    }
    for (a, t) in links {
        b.link(a, t);
    }
}

/// Builds the track, pushing every problem found into `diags`. Returns `None` when the problems
/// prevent building a graph at all.
fn build(f: &TrackFile, text: &str, diags: &mut Vec<Diagnostic>) -> Option<Track> {
    let at = |span: std::ops::Range<usize>| line_of(text, span.start);
    let lanes = *f.lanes.get_ref();
    if !(2..=4).contains(&lanes) {
        diags.push(Diagnostic::at(
            at(f.lanes.span()),
            TrackProblem::BadValue { field: "lanes".into(), message: format!("{lanes} lanes; a track has 2, 3 or 4") },
        ));
        return None;
    }
    let weather =
        match weather_table(&f.weather.get_ref().sun, &f.weather.get_ref().changeable, &f.weather.get_ref().rain) {
            Ok(w) => w,
            Err(problems) => {
                let line = at(f.weather.span());
                diags.extend(problems.into_iter().map(|p| Diagnostic::at(line, p)));
                WeatherTable::new([Weather::Sun; 20])
            }
        };
    let lane_by_name: HashMap<String, u8> = (0..lanes).map(|l| (Track::lane_name(lanes, l), l)).collect();
    let wall = f.wall.as_ref().and_then(|w| {
        let lane = lane_by_name.get(&w.get_ref().to_ascii_lowercase()).copied();
        if lane.is_none() {
            diags.push(Diagnostic::at(
                at(w.span()),
                TrackProblem::BadValue {
                    field: "wall".into(),
                    message: format!("`{}` is not a lane of this track", w.get_ref()),
                },
            ));
        }
        lane
    });

    let title = f.title.clone().unwrap_or_else(|| f.name.clone());
    let mut b = TrackBuilder::new(&f.name, &title, lanes, weather);
    let mut progress = 0u32;
    let mut corners_seen = 0u16;
    let mut seen_ids: HashMap<String, ()> = HashMap::new();
    let mut corner_segments = Vec::new();
    let mut last_straight_rows = None;
    let before_segments = diags.len();
    for seg in &f.segments {
        let line = at(seg.span());
        let s: &SegmentFile = seg.get_ref();
        let (id, lengths, straight) = match (s.straight, s.corner) {
            (Some(rows), None) => {
                if rows == 0 {
                    diags.push(Diagnostic::at(
                        line,
                        TrackProblem::BadValue {
                            field: "straight".into(),
                            message: "a straight needs at least 1 row".into(),
                        },
                    ));
                    continue;
                }
                if s.stops.is_some()
                    || s.shortest.is_some()
                    || s.longest.is_some()
                    || s.lengths.is_some()
                    || s.turn.is_some()
                {
                    diags.push(Diagnostic::at(
                        line,
                        TrackProblem::BadValue {
                            field: "straight".into(),
                            message: "a straight takes no stops, shortest, longest, turn or lengths".into(),
                        },
                    ));
                }
                last_straight_rows = Some(rows);
                (s.id.clone().unwrap_or_else(|| format!("s{corners_seen}")), vec![rows; lanes as usize], true)
            }
            (None, Some(number)) => {
                corners_seen += 1;
                last_straight_rows = None;
                if number != corners_seen {
                    diags.push(Diagnostic::at(line, TrackProblem::BadValue { field: "corner".into(), message: format!("corner {number} comes where corner {corners_seen} is expected (corners are numbered in lap order from 1)") }));
                }
                let (Some(stops), Some(shortest), Some(longest)) = (s.stops, s.shortest, s.longest) else {
                    diags.push(Diagnostic::at(
                        line,
                        TrackProblem::BadValue {
                            field: "corner".into(),
                            message: "a corner needs `stops`, `shortest` and `longest` (its yellow flag)".into(),
                        },
                    ));
                    continue;
                };
                if !(1..=3).contains(&stops) {
                    diags.push(Diagnostic::at(line, TrackProblem::CornerStops { corner: number, stops }));
                }
                if shortest == 0 || shortest > longest {
                    diags.push(Diagnostic::at(
                        line,
                        TrackProblem::BadValue {
                            field: "shortest".into(),
                            message: format!(
                                "corner {number}: shortest {shortest} must be at least 1 and at most longest {longest}"
                            ),
                        },
                    ));
                    continue;
                }
                let lengths = match (&s.lengths, s.turn.as_deref()) {
                    (Some(l), _) if l.len() == lanes as usize && l.iter().all(|&n| n > 0) => l.clone(),
                    (Some(l), _) => {
                        diags.push(Diagnostic::at(line, TrackProblem::BadValue { field: "lengths".into(), message: format!("corner {number}: {} lengths given for {lanes} lanes (one positive length per lane, left lane first)", l.len()) }));
                        continue;
                    }
                    (None, Some(turn @ ("left" | "right"))) => {
                        default_lengths(lanes, shortest, longest, turn == "left")
                    }
                    (None, other) => {
                        diags.push(Diagnostic::at(
                            line,
                            TrackProblem::BadValue {
                                field: "turn".into(),
                                message: format!(
                                    "corner {number}: give `lengths` or `turn = \"left\"`/`\"right\"` (got {other:?})"
                                ),
                            },
                        ));
                        continue;
                    }
                };
                let id = s.id.clone().unwrap_or_else(|| format!("c{number}"));
                let (seg_idx, _) = b.add_corner(&id, stops, shortest, longest, line);
                corner_segments.push(true);
                progress += lay_out(&mut b, seg_idx, &lengths, false, progress, wall, line);
                if seen_ids.insert(id.clone(), ()).is_some() {
                    diags.push(Diagnostic::at(line, TrackProblem::DuplicateSegment(id)));
                }
                continue;
            }
            _ => {
                diags.push(Diagnostic::at(
                    line,
                    TrackProblem::BadValue {
                        field: "segment".into(),
                        message: "each [[segment]] is either `straight = ROWS` or `corner = NUMBER`".into(),
                    },
                ));
                continue;
            }
        };
        if seen_ids.insert(id.clone(), ()).is_some() {
            diags.push(Diagnostic::at(line, TrackProblem::DuplicateSegment(id.clone())));
        }
        let seg_idx = b.add_straight(&id);
        corner_segments.push(false);
        progress += lay_out(&mut b, seg_idx, &lengths, straight, progress, wall, line);
    }
    let segment_problems = diags.len() > before_segments;
    if b.is_empty() {
        diags.push(Diagnostic::at(
            0,
            TrackProblem::BadValue { field: "segment".into(), message: "the track has no segment".into() },
        ));
        return None;
    }
    if segment_problems {
        return None;
    }
    b.set_lap_length(progress);
    derive_links(&mut b, lanes, &corner_segments);

    let ids = b.ids();
    let index: HashMap<&str, SpaceIdx> =
        ids.iter().enumerate().map(|(i, id)| (id.as_str(), SpaceIdx(i as u16))).collect();
    let resolve = |id: &str, line: u32, diags: &mut Vec<Diagnostic>| -> Option<SpaceIdx> {
        let found = index.get(id.to_ascii_lowercase().as_str()).copied();
        if found.is_none() {
            diags.push(Diagnostic::at(line, TrackProblem::UnknownSpace(id.to_string())));
        }
        found
    };

    // Grid (default: 10 slots, one per row back from the line, alternating the outer lanes).
    let (grid_spec, grid_line) = match &f.grid {
        Some(g) => (g.get_ref().clone(), at(g.span())),
        None => (GridFile::Slots(10), 0),
    };
    let grid: Vec<SpaceIdx> = match grid_spec {
        GridFile::Spaces(ids) => ids.iter().filter_map(|id| resolve(id, grid_line, diags)).collect(),
        GridFile::Slots(n) => {
            let rows = last_straight_rows.unwrap_or(0) as usize;
            let last = b.len();
            // The last straight's spaces are the last ones added, lane by lane.
            let mut slots = Vec::new();
            if rows > 0 {
                let lane_start = |lane: usize| last - (lanes as usize - lane) * rows;
                for k in 0..n.min(rows) {
                    let lane = if k % 2 == 0 { 0 } else { lanes as usize - 1 };
                    slots.push(SpaceIdx((lane_start(lane) + rows - 1 - k) as u16));
                }
            }
            if slots.len() < n {
                diags.push(Diagnostic::at(grid_line, TrackProblem::GridTooSmall { have: slots.len(), need: n }));
            }
            slots
        }
    };
    b.set_grid(grid);

    // Pit lane.
    let pit = f.pit.get_ref();
    let pit_line = at(f.pit.span());
    let entries: Vec<SpaceIdx> = pit.entry.ids().into_iter().filter_map(|id| resolve(id, pit_line, diags)).collect();
    let exits: Vec<SpaceIdx> = pit.exit.ids().into_iter().filter_map(|id| resolve(id, pit_line, diags)).collect();
    if pit.boxes > pit.length {
        diags.push(Diagnostic::at(
            pit_line,
            TrackProblem::PitLane(format!("{} boxes do not fit in {} pit-lane spaces", pit.boxes, pit.length)),
        ));
    }
    let first_box = pit.first_box.unwrap_or((pit.length.saturating_sub(pit.boxes)) / 2 + 1);
    if first_box == 0 || first_box + pit.boxes > pit.length + 1 {
        diags.push(Diagnostic::at(
            pit_line,
            TrackProblem::PitLane(format!(
                "first_box {first_box} puts boxes beyond the {} pit-lane spaces",
                pit.length
            )),
        ));
    }
    if !entries.is_empty() && !exits.is_empty() && pit.length > 0 {
        let lap = b.lap_length();
        let from = entries.iter().map(|s| b.draft(*s).progress).max().unwrap_or(0);
        let to = exits.iter().map(|s| b.draft(*s).progress).min().unwrap_or(0);
        let gap = forward_gap(from, to, lap);
        let step = (gap / (pit.length as u32 + 1)).max(1);
        let mut lane_spaces = Vec::new();
        for k in 1..=pit.length {
            let boxed = k >= first_box && k < first_box + pit.boxes;
            let s = b.add_space(SpaceDraft {
                lane: 0,
                kind: if boxed { SpaceKind::PitBox((k - first_box + 1) as u8) } else { SpaceKind::PitLane },
                segment: None,
                progress: (from + step * k as u32) % lap,
                length: step,
                wall: false,
                line: pit_line,
                at: None,
            });
            lane_spaces.push(s);
        }
        for &e in &entries {
            b.link(e, lane_spaces[0]);
        }
        for w in lane_spaces.windows(2) {
            b.link(w[0], w[1]);
        }
        for &x in &exits {
            b.link(lane_spaces[lane_spaces.len() - 1], x);
        }
        b.set_pit_lane(lane_spaces);
    }

    // Arrow overrides.
    for l in &f.links {
        let line = at(l.span());
        let spec = l.get_ref();
        match (&spec.add, &spec.remove) {
            (Some([a, c]), None) => {
                if let (Some(a), Some(c)) = (resolve(a, line, diags), resolve(c, line, diags)) {
                    b.link(a, c);
                }
            }
            (None, Some([a, c])) => {
                if let (Some(x), Some(y)) = (resolve(a, line, diags), resolve(c, line, diags))
                    && !b.unlink(x, y)
                {
                    diags.push(Diagnostic::at(
                        line,
                        TrackProblem::BadValue {
                            field: "link.remove".into(),
                            message: format!("there is no arrow {a} -> {c} to remove"),
                        },
                    ));
                }
            }
            _ => diags.push(Diagnostic::at(
                line,
                TrackProblem::BadValue {
                    field: "link".into(),
                    message: "each [[link]] has exactly one of `add = [FROM, TO]` or `remove = [FROM, TO]`".into(),
                },
            )),
        }
    }
    if let Some(o) = &f.outline {
        match outline(o.get_ref(), corners_seen) {
            Ok(outline) => b.outline(outline),
            Err(message) => {
                diags.push(Diagnostic::at(at(o.span()), TrackProblem::BadValue { field: "outline".into(), message }))
            }
        }
    }
    Some(b.finish())
}

/// The outline of `[outline]`, or why it cannot be drawn along: at least four points, all
/// finite, and either no corner points or one per corner, increasing, after the line's point.
fn outline(o: &OutlineFile, corners: u16) -> Result<Outline, String> {
    if o.points.len() < 4 {
        return Err(format!("{} points; an outline has at least 4", o.points.len()));
    }
    if let Some(p) = o.points.iter().find(|p| !p[0].is_finite() || !p[1].is_finite()) {
        return Err(format!("point {p:?} is not a pair of numbers"));
    }
    if !o.corners.is_empty() {
        if o.corners.len() != usize::from(corners) {
            return Err(format!(
                "{} corner points for {corners} corners; give one per corner, or none",
                o.corners.len()
            ));
        }
        let mut last = 0;
        for (k, &i) in o.corners.iter().enumerate() {
            if i <= last || i >= o.points.len() {
                return Err(format!(
                    "corner {}'s point is {i}; corner points are indices into `points` (0 is the line), each after the last, below {}",
                    k + 1,
                    o.points.len()
                ));
            }
            last = i;
        }
    }
    Ok(Outline { points: o.points.iter().map(|p| (p[0], p[1])).collect(), corners: o.corners.clone() })
}

/// Default per-lane lengths of a corner, left lane first: the inside lane gets the shortest
/// path, the outside lane the longest, lanes between are interpolated.
pub fn default_lengths(lanes: u8, shortest: u16, longest: u16, turns_left: bool) -> Vec<u16> {
    let n = lanes as u32;
    let mut v: Vec<u16> =
        (0..n).map(|i| (shortest as u32 + ((longest - shortest) as u32 * i + (n - 1) / 2) / (n - 1)) as u16).collect();
    if !turns_left {
        v.reverse();
    }
    v
}

/// Where shipped tracks are looked up: `$STEWARD_TRACKS`, else `./tracks`, else the crate's
/// own `tracks/` directory (so tests and `cargo run` work from anywhere).
pub fn track_dirs() -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    if let Some(d) = std::env::var_os("STEWARD_TRACKS") {
        dirs.push(PathBuf::from(d));
    }
    dirs.push(PathBuf::from("tracks"));
    dirs.push(Path::new(env!("CARGO_MANIFEST_DIR")).join("tracks"));
    dirs
}

/// Loads a track by shipped name (`monaco`) or by path (`.toml`, or `.dat` for the importer).
pub fn resolve(name_or_path: &str) -> Result<Track, TrackError> {
    let path = Path::new(name_or_path);
    if path.is_file() {
        return match path.extension().and_then(|e| e.to_str()) {
            Some("dat") => super::import::import_file(path).map(|i| i.track),
            _ => from_file(path),
        };
    }
    for dir in track_dirs() {
        let candidate = dir.join(format!("{name_or_path}.toml"));
        if candidate.is_file() {
            return from_file(&candidate);
        }
    }
    Err(TrackError::single(
        Some(path.to_path_buf()),
        0,
        TrackProblem::Syntax(format!(
            "no such file, and no shipped track named `{name_or_path}` (shipped: {})",
            shipped_names().join(", ")
        )),
    ))
}

/// Names of the tracks found in the track directories.
pub fn shipped_names() -> Vec<String> {
    let mut names = Vec::new();
    for dir in track_dirs() {
        if let Ok(entries) = std::fs::read_dir(&dir) {
            for e in entries.flatten() {
                let p = e.path();
                if p.extension().is_some_and(|x| x == "toml")
                    && let Some(stem) = p.file_stem().and_then(|s| s.to_str())
                    && !names.iter().any(|n| n == stem)
                {
                    names.push(stem.to_string());
                }
            }
        }
    }
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_lengths_put_shortest_inside() {
        assert_eq!(default_lengths(3, 3, 7, true), vec![3, 5, 7]);
        assert_eq!(default_lengths(3, 3, 7, false), vec![7, 5, 3]);
        assert_eq!(default_lengths(2, 4, 9, false), vec![9, 4]);
        assert_eq!(default_lengths(3, 8, 13, true), vec![8, 11, 13]);
    }

    /// The gap along the lap between two spaces is the remainder of the division, worked out
    /// without one, from every seventh space to every space of every shipped track.
    #[test]
    fn the_progress_gap_is_the_remainder() {
        for name in shipped_names() {
            let t = resolve(&name).unwrap();
            let lap = t.lap_length;
            let mut wrapped = 0;
            for a in t.indices().step_by(7) {
                for b in t.indices() {
                    let (pa, pb) = (t.space(a).progress, t.space(b).progress);
                    assert_eq!(t.progress_gap(a, b), (pb + lap - pa) % lap, "{name} {a:?} {b:?}");
                    wrapped += usize::from(pb + lap - pa >= lap);
                }
            }
            assert!(wrapped > 0, "{name}: some gaps wrap past the line");
        }
        // Off the lap too (progress values the importer and the loader may meet): the remainder.
        for lap in [1u32, 7, 100] {
            for from in 0..2 * lap {
                for to in from.saturating_sub(lap)..3 * lap {
                    assert_eq!(forward_gap(from, to, lap), (to + lap - from) % lap, "{from} {to} {lap}");
                }
            }
        }
    }

    /// A space's place in the pit lane, kept per space, is its index in the lane's list, on
    /// every shipped track; and every lane space has one.
    #[test]
    fn each_space_knows_its_place_in_the_pit_lane() {
        for name in shipped_names() {
            let t = resolve(&name).unwrap();
            assert!(!t.pit_lane.is_empty(), "{name}");
            for s in t.indices() {
                assert_eq!(t.pit_place(s), t.pit_lane.iter().position(|&x| x == s), "{name} {}", t.space(s).id);
            }
        }
    }

    /// The spaces beside each space, found in a window of its neighbour lanes, are those a
    /// pass over the whole of both lanes finds, on every shipped track.
    #[test]
    fn the_spaces_beside_are_those_of_a_whole_lane_pass() {
        use crate::track::model::circular_gap;
        for name in shipped_names() {
            let t = resolve(&name).unwrap();
            let mut pairs = 0;
            for s in t.indices() {
                let a = t.space(s);
                let mut whole = Vec::new();
                if !a.in_pit_lane() {
                    for lane in [a.lane.wrapping_sub(1), a.lane + 1] {
                        for o in t.indices() {
                            let b = t.space(o);
                            if !b.in_pit_lane()
                                && b.lane == lane
                                && lane <= t.lanes.max(1)
                                && 2 * circular_gap(a.progress, b.progress, t.lap_length) < a.length + b.length
                            {
                                whole.push(o);
                            }
                        }
                    }
                }
                whole.sort_unstable();
                pairs += whole.len();
                assert_eq!(t.beside(s), &whole[..], "{name} {}", a.id);
            }
            assert!(pairs > t.spaces.len(), "{name}: {pairs} pairs beside");
        }
    }
}
