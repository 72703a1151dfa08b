//! The `.dat` importer against the 39 reference track graphs in `../shared/reference-tracks/`
//! (read from there, never copied into the repository). Skipped, with a message, when that
//! directory is absent.
//!
//! The facts asserted come from the files themselves (counted here by reading the raw text, not
//! through the importer) or from the printed boards (Monaco's flags); the four known defective
//! files are listed with the arrows that cross two lanes, checked by inspection of their node
//! coordinates (docs/import.md shows them).

use std::collections::HashMap;
use std::path::PathBuf;

use steward::track::check::check;
use steward::track::import::{Imported, import_file, import_str, inspect_file, to_toml};
use steward::track::load::from_toml;
use steward::track::{SpaceKind, Track, TrackProblem};

fn reference_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/reference-tracks");
    if dir.is_dir() {
        Some(dir)
    } else {
        println!("skipped: {} is absent", dir.display());
        None
    }
}

fn reference_files() -> Vec<PathBuf> {
    let Some(dir) = reference_dir() else { return Vec::new() };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dat"))
        .collect();
    files.sort();
    files
}

/// Facts counted from the raw text of a `.dat` file, independently of the importer.
struct Raw {
    /// Racing nodes: types 1, 2, 3, 5, 6 (type 4 is blocked, 7 the pit lane).
    racing: usize,
    /// Nodes on the finish line: type 5 or flagged `F`.
    finish: usize,
    /// Pit nodes flagged 1.0 in the attribute list.
    boxes: usize,
    /// Pit nodes.
    pit: usize,
    /// Lines of the grid list.
    grid: usize,
}

fn raw_facts(text: &str) -> Raw {
    let mut part = 0;
    let mut types: HashMap<u32, u32> = HashMap::new();
    let mut raw = Raw { racing: 0, finish: 0, boxes: 0, pit: 0, grid: 0 };
    for line in text.lines().skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        if f.is_empty() {
            part += 1;
            continue;
        }
        match part {
            0 => {
                let t: u32 = f[3].parse().unwrap();
                types.insert(f[0].parse().unwrap(), t);
                raw.racing += matches!(t, 1 | 2 | 3 | 5 | 6) as usize;
                raw.pit += (t == 7) as usize;
                raw.finish += (t == 5 || f.get(4) == Some(&"F")) as usize;
            }
            2 => raw.boxes += (types[&f[0].parse().unwrap()] == 7 && f[1] == "1.0") as usize,
            3 => raw.grid += 1,
            _ => {}
        }
    }
    raw
}

/// The known defects: arrows from one outer lane to the other, across the middle lane
/// (the node coordinates put the middle-lane space between their ends).
fn known_defects() -> HashMap<&'static str, Vec<&'static str>> {
    HashMap::from([
        ("algarve", vec!["57 58", "58 61"]),
        ("korea", vec!["296 297"]),
        ("newjersey", vec!["135 138", "138 139"]),
        ("valenciaD", vec!["426 428", "428 429"]),
    ])
}

/// Asserts that a track loaded back from the graph form is the same track.
fn assert_same(a: &Track, b: &Track) {
    assert_eq!(a.spaces.len(), b.spaces.len());
    for s in a.indices() {
        let (x, y) = (a.space(s), b.space(s));
        assert_eq!((&x.id, x.lane, x.kind, x.progress, x.segment), (&y.id, y.lane, y.kind, y.progress, y.segment));
        assert_eq!(a.next(s), b.next(s), "links of {}", x.id);
    }
    let flags = |t: &Track| {
        t.corners.iter().map(|c| (c.number, c.stops, c.shortest, c.longest, c.spaces.clone())).collect::<Vec<_>>()
    };
    assert_eq!(flags(a), flags(b));
    assert_eq!(a.segments, b.segments);
    assert_eq!(a.grid, b.grid);
    assert_eq!(a.pit_lane, b.pit_lane);
    assert_eq!(a.pit_boxes, b.pit_boxes);
    assert_eq!(a.lap_length, b.lap_length);
    assert_eq!((a.lanes, &a.name, &a.title), (b.lanes, &b.name, &b.title));
}

#[test]
fn monaco_matches_the_printed_board() {
    let Some(dir) = reference_dir() else { return };
    let Imported { track: t, notes } = import_file(&dir.join("monaco.dat")).unwrap();
    assert_eq!(t.lanes, 3);
    assert_eq!(t.racing_spaces(), 497);
    let stops: Vec<u8> = t.corners.iter().map(|c| c.stops).collect();
    assert_eq!(stops, [1, 1, 1, 1, 3, 1, 1, 2, 2, 1]);
    let paths: Vec<(u16, u16)> = t.corners.iter().map(|c| (c.shortest, c.longest)).collect();
    assert_eq!(paths, [(3, 7), (5, 10), (2, 6), (2, 6), (8, 18), (5, 9), (3, 7), (8, 13), (6, 11), (2, 6)]);
    assert_eq!(t.grid.len(), 10);
    assert_eq!(t.pit_boxes.len(), 10);
    assert!(t.pit_boxes.iter().all(|&b| matches!(t.space(b).kind, SpaceKind::PitBox(_))));
    assert!(check(&t).is_empty());
    assert!(!notes.is_empty());
    // The pole is the grid slot nearest the line: every other slot is further behind it.
    let behind = |s| t.lap_length - t.space(s).progress;
    assert!(t.grid.windows(2).all(|w| behind(w[0]) <= behind(w[1])));
}

#[test]
fn every_reference_file_imports_cleanly_or_fails_for_its_known_defect() {
    let files = reference_files();
    if files.is_empty() {
        return;
    }
    assert_eq!(files.len(), 39);
    let defects = known_defects();
    let mut passed = 0;
    for path in &files {
        let name = path.file_stem().unwrap().to_str().unwrap();
        let text = std::fs::read_to_string(path).unwrap();
        let raw = raw_facts(&text);
        match import_file(path) {
            Ok(imp) => {
                let t = &imp.track;
                assert!(!defects.contains_key(name), "{name} imported although it has a known defect");
                assert_eq!(t.racing_spaces(), raw.racing, "{name}: racing spaces");
                assert_eq!(t.lanes as usize, raw.finish, "{name}: lanes = finish-line width");
                assert_eq!(t.pit_boxes.len(), raw.boxes, "{name}: pit boxes");
                assert_eq!(t.pit_lane.len(), raw.pit, "{name}: pit-lane spaces");
                assert_eq!(t.grid.len(), raw.grid, "{name}: grid slots");
                assert!(check(t).is_empty(), "{name}: {:?}", check(t));
                let back = from_toml(&to_toml(&imp).unwrap(), None).unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_same(t, &back);
                passed += 1;
            }
            Err(e) => {
                let expected = defects.get(name).unwrap_or_else(|| panic!("{name} failed: {e}"));
                let lines: Vec<&str> = text.lines().collect();
                let mut found: Vec<&str> = e
                    .diagnostics
                    .iter()
                    .map(|d| {
                        assert!(matches!(d.problem, TrackProblem::LaneJump { .. }), "{name}: {e}");
                        lines[d.line.unwrap() as usize - 1].trim()
                    })
                    .collect();
                found.sort();
                assert_eq!(&found, expected, "{name}");
                // Those arrows are the only problem: without them the file imports cleanly.
                let fixed: Vec<&str> = lines.iter().copied().filter(|l| !expected.contains(&l.trim())).collect();
                let imp = import_str(&fixed.join("\n"), name).unwrap_or_else(|e| panic!("{name} without them: {e}"));
                assert_eq!(imp.track.racing_spaces(), raw.racing, "{name}: racing spaces");
                assert_eq!(imp.track.lanes as usize, raw.finish, "{name}: lanes");
                // And the importer still shows the inferred track, for a moderator to fix.
                let inspection = inspect_file(path).unwrap();
                assert_eq!(inspection.problems, e.diagnostics);
                assert_eq!(inspection.imported.track.racing_spaces(), raw.racing);
                // Written in the graph form, it fails to load for the same arrows.
                let back = from_toml(&to_toml(&inspection.imported).unwrap(), None).unwrap_err();
                let problems =
                    |d: &[steward::track::Diagnostic]| d.iter().map(|d| d.problem.clone()).collect::<Vec<_>>();
                let (mut a, mut b) = (problems(&back.diagnostics), problems(&e.diagnostics));
                a.sort_by_key(|p| p.to_string());
                b.sort_by_key(|p| p.to_string());
                assert_eq!(a, b, "{name}");
            }
        }
    }
    assert_eq!(passed, 35);
}

/// Every reference file marks its line; with the marks removed the line is inferred at node 0.
/// Where the marks include node 0 (all files but Yas Marina, whose marked line is nodes 2, 3 and
/// 4, half a row ahead of node 0) the inferred line is the marked one, so the track is the same.
#[test]
fn the_finish_line_inferred_at_node_0_is_the_one_the_files_mark() {
    for path in reference_files() {
        let name = path.file_stem().unwrap().to_str().unwrap().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(marked) = import_str(&text, &name) else { continue };
        let marks_node_0 = text.lines().nth(1).is_some_and(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            f[0] == "0" && (f[3] == "5" || f.get(4) == Some(&"F"))
        });
        // Unmark the line: type 5 becomes a straight, and `F` flags go.
        let mut part = 0;
        let unmarked: Vec<String> = text
            .lines()
            .enumerate()
            .map(|(i, l)| {
                if l.trim().is_empty() {
                    part += 1;
                }
                let f: Vec<&str> = l.split_whitespace().collect();
                if i > 0 && part == 0 && f.len() >= 4 {
                    let t = if f[3] == "5" { "1" } else { f[3] };
                    format!("{} {} {} {t}", f[0], f[1], f[2])
                } else {
                    l.to_string()
                }
            })
            .collect();
        let inferred = import_str(&unmarked.join("\n"), &name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(inferred.notes.iter().any(|n| n.contains("inferred at node 0")), "{name}");
        assert!(check(&inferred.track).is_empty(), "{name}");
        if marks_node_0 {
            let ids = |t: &Track| t.spaces.iter().map(|s| s.id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&marked.track), ids(&inferred.track), "{name}");
        } else {
            assert_eq!(name, "yasmarina");
        }
    }
}
