//! Builds a [`Track`] from a graph-form track file (`format = "graph"`, see
//! [`super::graph_file`]): spaces, ids and arrows as written, through [`TrackBuilder`].

use std::collections::HashMap;

use super::builder::{SpaceDraft, TrackBuilder};
use super::graph_file::{GraphFile, KindEntry};
use super::model::{SpaceIdx, SpaceKind, Track, Weather, WeatherTable};
use super::problem::{Diagnostic, TrackProblem, line_of};
use super::weather_ranges::weather_table;

/// Builds the track, pushing every problem found into `diags`. Returns `None` when the problems
/// prevent building a graph at all. `check` is left to the caller.
pub fn build(f: &GraphFile, text: &str, diags: &mut Vec<Diagnostic>) -> Option<Track> {
    let at = |span: std::ops::Range<usize>| line_of(text, span.start);
    let bad = |field: &str, message: String| TrackProblem::BadValue { field: field.into(), message };
    let lanes = *f.lanes.get_ref();
    if !(2..=4).contains(&lanes) {
        diags.push(Diagnostic::at(at(f.lanes.span()), bad("lanes", format!("{lanes} lanes; a track has 2, 3 or 4"))));
        return None;
    }
    let w = f.weather.get_ref();
    let weather = match weather_table(&w.sun, &w.changeable, &w.rain) {
        Ok(t) => t,
        Err(problems) => {
            let line = at(f.weather.span());
            diags.extend(problems.into_iter().map(|p| Diagnostic::at(line, p)));
            WeatherTable::new([Weather::Sun; 20])
        }
    };
    let title = f.title.clone().unwrap_or_else(|| f.name.clone());
    let mut b = TrackBuilder::new(&f.name, &title, lanes, weather);
    if let Some(len) = f.lap_length {
        b.set_lap_length(len);
    }

    // Segments in order of first appearance among the racing spaces; corners by segment id.
    let corner_by_segment: HashMap<String, usize> =
        f.corners.iter().enumerate().map(|(i, c)| (c.get_ref().segment_id(), i)).collect();
    let mut segment_index: HashMap<String, u16> = HashMap::new();
    let mut next_corner = 1u16;
    for s in &f.spaces {
        let (sp, line) = (s.get_ref(), at(s.span()));
        if sp.kind != KindEntry::Racing {
            continue;
        }
        let Some(seg) = &sp.segment else {
            diags.push(Diagnostic::at(line, bad("segment", format!("racing space `{}` has no segment", sp.id))));
            continue;
        };
        if segment_index.contains_key(seg) {
            continue;
        }
        let idx = match corner_by_segment.get(seg) {
            Some(&ci) => {
                let (c, cline) = (f.corners[ci].get_ref(), at(f.corners[ci].span()));
                if c.number != next_corner {
                    diags.push(Diagnostic::at(
                        cline,
                        bad(
                            "corner",
                            format!(
                                "corner {} comes where corner {next_corner} is expected (corners are numbered in lap order from 1)",
                                c.number
                            ),
                        ),
                    ));
                }
                next_corner += 1;
                b.add_corner(seg, c.stops, c.shortest, c.longest, cline).0
            }
            None => b.add_straight(seg),
        };
        segment_index.insert(seg.clone(), idx);
    }
    for c in &f.corners {
        if !segment_index.contains_key(&c.get_ref().segment_id()) {
            diags.push(Diagnostic::at(at(c.span()), TrackProblem::EmptyCorner(c.get_ref().number)));
        }
    }

    // Spaces, in file order.
    let mut index: HashMap<&str, SpaceIdx> = HashMap::new();
    for s in &f.spaces {
        let (sp, line) = (s.get_ref(), at(s.span()));
        let kind = match (sp.kind, sp.box_number) {
            (KindEntry::Racing, None) => SpaceKind::Racing,
            (KindEntry::Pit, None) => SpaceKind::PitLane,
            (KindEntry::Box, Some(n)) if n > 0 => SpaceKind::PitBox(n),
            (KindEntry::Box, _) => {
                diags.push(Diagnostic::at(line, bad("box", format!("box `{}` needs `box = N` (1 or more)", sp.id))));
                SpaceKind::PitLane
            }
            (_, Some(_)) => {
                diags.push(Diagnostic::at(line, bad("box", format!("`{}` is not a box but has `box`", sp.id))));
                SpaceKind::PitLane
            }
        };
        if kind == SpaceKind::Racing && sp.lane >= lanes {
            diags.push(Diagnostic::at(line, bad("lane", format!("`{}` is in lane {} of {lanes}", sp.id, sp.lane))));
        }
        if kind != SpaceKind::Racing && sp.segment.is_some() {
            diags.push(Diagnostic::at(line, bad("segment", format!("pit space `{}` has a segment", sp.id))));
        }
        let segment = if kind == SpaceKind::Racing {
            sp.segment.as_ref().and_then(|g| segment_index.get(g)).copied()
        } else {
            None
        };
        let idx = b.add_space(SpaceDraft {
            lane: sp.lane,
            kind,
            segment,
            progress: sp.progress,
            length: sp.length,
            wall: sp.wall,
            line,
            at: sp.x.zip(sp.y),
        });
        b.set_id(idx, &sp.id);
        if index.insert(sp.id.as_str(), idx).is_some() {
            diags.push(Diagnostic::at(line, bad("id", format!("space id `{}` is used twice", sp.id))));
        }
    }
    let resolve = |id: &str, line: u32, diags: &mut Vec<Diagnostic>| -> Option<SpaceIdx> {
        let found = index.get(id).copied();
        if found.is_none() {
            diags.push(Diagnostic::at(line, TrackProblem::UnknownSpace(id.to_string())));
        }
        found
    };
    for s in &f.spaces {
        let (sp, line) = (s.get_ref(), at(s.span()));
        let from = index[sp.id.as_str()];
        for n in &sp.next {
            if let Some(to) = resolve(n, line, diags) {
                b.link(from, to);
            }
        }
    }
    let gline = at(f.grid.span());
    let grid = f.grid.get_ref().iter().filter_map(|id| resolve(id, gline, diags)).collect();
    b.set_grid(grid);
    let pline = at(f.pit_lane.span());
    let pit: Vec<SpaceIdx> = f.pit_lane.get_ref().iter().filter_map(|id| resolve(id, pline, diags)).collect();
    for s in &f.spaces {
        let (sp, line) = (s.get_ref(), at(s.span()));
        let idx = index[sp.id.as_str()];
        if sp.kind != KindEntry::Racing && !pit.contains(&idx) {
            diags.push(Diagnostic::at(line, TrackProblem::PitLane(format!("`{}` is not listed in pit_lane", sp.id))));
        }
    }
    b.set_pit_lane(pit);
    if b.is_empty() {
        diags.push(Diagnostic::at(0, bad("space", "the track has no space".into())));
        return None;
    }
    Some(b.finish())
}

#[cfg(test)]
mod tests {
    use crate::track::graph_file::GraphFile;
    use crate::track::load::{from_file, from_toml};
    use crate::track::problem::TrackProblem;

    fn shipped_monaco() -> crate::track::Track {
        from_file(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tracks/monaco.toml")).unwrap()
    }

    #[test]
    fn a_segment_form_track_round_trips_through_the_graph_form() {
        let t = shipped_monaco();
        let text = GraphFile::from_track(&t).to_toml().unwrap();
        let back = from_toml(&text, None).unwrap();
        assert_eq!(back.lap_length, t.lap_length);
        assert_eq!(back.spaces.len(), t.spaces.len());
        for s in t.indices() {
            let (a, b) = (t.space(s), back.space(s));
            assert_eq!((&a.id, a.lane, a.kind, a.progress, a.length), (&b.id, b.lane, b.kind, b.progress, b.length));
            assert_eq!(t.next(s), back.next(s));
            assert_eq!(t.beside(s), back.beside(s));
        }
        assert_eq!(t.segments, back.segments);
        assert_eq!(t.grid, back.grid);
        assert_eq!(t.pit_lane, back.pit_lane);
        assert_eq!(t.pit_boxes, back.pit_boxes);
        for (a, b) in t.corners.iter().zip(&back.corners) {
            assert_eq!((a.number, a.stops, a.shortest, a.longest), (b.number, b.stops, b.shortest, b.longest));
            assert_eq!(a.spaces, b.spaces);
        }
    }

    /// The graph form of the shipped Monaco with one edit applied to its text.
    fn edited(from: &str, to: &str) -> String {
        let text = GraphFile::from_track(&shipped_monaco()).to_toml().unwrap();
        assert!(text.contains(from), "`{from}` not in the file");
        text.replacen(from, to, 1)
    }

    fn line_containing(text: &str, needle: &str) -> u32 {
        text.lines().position(|l| l.contains(needle)).unwrap() as u32 + 1
    }

    #[test]
    fn unknown_arrow_targets_are_reported_at_their_space() {
        let text = edited("next = [\"s0.l.2\"", "next = [\"s0.l.99\"");
        let err = from_toml(&text, None).unwrap_err();
        let d = err.diagnostics.iter().find(|d| d.problem == TrackProblem::UnknownSpace("s0.l.99".into())).unwrap();
        // The space table starts a few lines above its `next` key.
        let next_line = line_containing(&text, "s0.l.99");
        assert!(d.line.unwrap() < next_line && d.line.unwrap() + 10 > next_line);
    }

    #[test]
    fn duplicate_ids_and_box_numbers_are_reported() {
        let text = edited("id = \"s0.l.2\"", "id = \"s0.l.1\"");
        let err = from_toml(&text, None).unwrap_err();
        assert!(
            err.diagnostics.iter().any(|d| matches!(&d.problem, TrackProblem::BadValue { field, .. } if field == "id"))
        );
        let text = edited("box = 1\n", "");
        let err = from_toml(&text, None).unwrap_err();
        assert!(
            err.diagnostics
                .iter()
                .any(|d| matches!(&d.problem, TrackProblem::BadValue { field, .. } if field == "box"))
        );
    }

    #[test]
    fn unknown_forms_and_kinds_are_rejected() {
        let text = edited("format = \"graph\"", "format = \"drawing\"");
        let err = from_toml(&text, None).unwrap_err();
        assert_eq!(err.diagnostics[0].line, Some(1));
        assert!(matches!(&err.diagnostics[0].problem, TrackProblem::BadValue { field, .. } if field == "format"));
        let text = edited("kind = \"racing\"", "kind = \"grass\"");
        let err = from_toml(&text, None).unwrap_err();
        assert!(matches!(err.diagnostics[0].problem, TrackProblem::Syntax(_)));
    }

    #[test]
    fn the_segment_form_may_say_so() {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tracks/monaco.toml");
        let text = std::fs::read_to_string(path).unwrap().replacen("name = ", "format = \"segments\"\nname = ", 1);
        assert_eq!(from_toml(&text, None).unwrap().racing_spaces(), 497);
    }
}
