//! The TOML track format, the structural checks and `steward track check/info`.

use steward::track::check::{check, corner_paths};
use steward::track::load::{from_toml, resolve, shipped_names};
use steward::track::{CornerIdx, TrackProblem, Weather};

use crate::support::{stdout, steward};

/// A small, valid two-lane track used as a base for the failure cases below.
const SMALL: &str = r#"
name = "small"
lanes = 2
grid = 10
[weather]
sun = "1-10"
changeable = "11-15"
rain = "16-20"
[pit]
entry = "s2.r.1"
exit = "s0.r.3"
length = 12
boxes = 10
[[segment]]
straight = 6
[[segment]]
corner = 1
stops = 2
shortest = 4
longest = 7
turn = "right"
[[segment]]
straight = 5
[[segment]]
corner = 2
stops = 1
shortest = 2
longest = 4
turn = "left"
[[segment]]
straight = 12
"#;

#[test]
fn shipped_tracks_load_and_pass_check() {
    let names = shipped_names();
    for expected in ["monaco", "oval", "sprint"] {
        assert!(names.iter().any(|n| n == expected), "{expected} is shipped: {names:?}");
    }
    for name in names {
        let t = resolve(&name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(check(&t).is_empty(), "{name} passes check");
    }
}

#[test]
fn monaco_has_the_boards_flags() {
    let t = resolve("monaco").unwrap();
    assert_eq!(t.lanes, 3);
    assert_eq!(t.racing_spaces(), 497);
    let flags: Vec<(u8, u16, u16)> = t.corners.iter().map(|c| (c.stops, c.shortest, c.longest)).collect();
    assert_eq!(
        flags,
        vec![
            (1, 3, 7),
            (1, 5, 10),
            (1, 2, 6),
            (1, 2, 6),
            (3, 8, 18),
            (1, 5, 9),
            (1, 3, 7),
            (2, 8, 13),
            (2, 6, 11),
            (1, 2, 6)
        ]
    );
    assert_eq!(t.grid.len(), 10);
    assert_eq!(t.pit_boxes.len(), 10);
    // The arrows through every corner give exactly the flag's C and L.
    for (i, c) in t.corners.iter().enumerate() {
        assert_eq!(corner_paths(&t, CornerIdx(i as u16)), (c.shortest, c.longest), "corner {}", c.number);
    }
}

#[test]
fn ids_are_readable_and_unique() {
    let t = resolve("monaco").unwrap();
    let c5 = t.find("c5.m.3").expect("c5.m.3 exists");
    assert_eq!(t.space(c5).lane, 1);
    assert_eq!(t.corner_of(c5).map(|c| c.number), Some(5));
    assert_eq!(t.find("C5.M.3"), Some(c5), "ids are case-insensitive");
    assert!(t.find("c5.m.99").is_none());
    let mut ids: Vec<&str> = t.spaces.iter().map(|s| s.id.as_str()).collect();
    ids.sort();
    let before = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), before, "no two spaces share an id");
    // Corner 5 turns left: the left (inside) lane has C spaces, the right lane L.
    assert!(t.find("c5.l.8").is_some() && t.find("c5.l.9").is_none());
    assert!(t.find("c5.r.18").is_some() && t.find("c5.r.19").is_none());
}

#[test]
fn straights_are_staggered_and_lateral_neighbours_touch() {
    let t = resolve("monaco").unwrap();
    let m = t.find("s1.m.4").unwrap();
    let ahead: Vec<&str> = t.next(m).iter().map(|&s| t.space(s).id.as_str()).collect();
    // The middle lane sits half a row behind: its diagonals reach the same row number.
    assert_eq!(sorted(ahead), vec!["s1.l.4", "s1.m.5", "s1.r.4"]);
    let l = t.find("s1.l.4").unwrap();
    let ahead: Vec<&str> = t.next(l).iter().map(|&s| t.space(s).id.as_str()).collect();
    assert_eq!(sorted(ahead), vec!["s1.l.5", "s1.m.5"]);
    let beside: Vec<&str> = t.beside(l).iter().map(|&s| t.space(s).id.as_str()).collect();
    assert_eq!(sorted(beside), vec!["s1.m.4", "s1.m.5"]);
}

#[test]
fn the_oval_marks_its_wall_lane() {
    let t = resolve("oval").unwrap();
    assert!(t.spaces.iter().filter(|s| !s.in_pit_lane()).all(|s| s.wall == (s.lane == 2)));
    assert!(t.corners.iter().all(|c| c.stops == 1));
}

#[test]
fn weather_table_is_read() {
    let t = resolve("monaco").unwrap();
    assert_eq!(t.weather.weather(1), Weather::Sun);
    assert_eq!(t.weather.weather(14), Weather::Changeable);
    assert_eq!(t.weather.weather(17), Weather::Rain);
}

#[test]
fn the_small_track_is_valid() {
    let t = from_toml(SMALL, None).unwrap();
    assert_eq!(t.racing_spaces(), 2 * (6 + 5 + 12) + (4 + 7) + (2 + 4));
    assert_eq!(t.pit_lane.len(), 12);
    // Crossing the line: the last row links to the first.
    let last = t.find("s2.l.12").unwrap();
    let first = t.find("s0.l.1").unwrap();
    assert!(t.next(last).contains(&first));
    assert!(t.crosses_line(last, first));
}

#[test]
fn every_problem_is_reported_at_once_with_its_line() {
    let broken = SMALL
        .replace("changeable = \"11-15\"", "changeable = \"11-14\"")
        .replace("entry = \"s2.r.1\"", "entry = \"s9.r.1\"")
        .replace("shortest = 2\nlongest = 4\nturn = \"left\"", "shortest = 2\nlongest = 4\nlengths = [2, 6]");
    let err = from_toml(&broken, None).unwrap_err();
    let problems: Vec<&TrackProblem> = err.diagnostics.iter().map(|d| &d.problem).collect();
    assert!(problems.contains(&&TrackProblem::WeatherGap(15)), "{err}");
    assert!(problems.contains(&&TrackProblem::UnknownSpace("s9.r.1".into())), "{err}");
    let weather_line = SMALL.lines().position(|l| l == "[weather]").unwrap() as u32 + 1;
    assert!(err.diagnostics.iter().any(|d| d.line == Some(weather_line)), "{err}");
}

#[test]
fn corner_lanes_outside_the_flag_are_refused() {
    let broken =
        SMALL.replace("shortest = 2\nlongest = 4\nturn = \"left\"", "shortest = 2\nlongest = 4\nlengths = [2, 6]");
    let err = from_toml(&broken, None).unwrap_err();
    assert!(
        err.diagnostics.iter().any(|d| matches!(
            &d.problem,
            TrackProblem::LaneLength { corner: 2, length: 6, shortest: 2, longest: 4, .. }
        )),
        "{err}"
    );
}

#[test]
fn an_arrow_that_shortens_a_corner_is_caught() {
    let broken = format!("{SMALL}\n[[link]]\nadd = [\"c1.r.1\", \"c1.r.4\"]\n");
    let err = from_toml(&broken, None).unwrap_err();
    assert!(
        err.diagnostics
            .iter()
            .any(|d| matches!(d.problem, TrackProblem::CornerPath { corner: 1, computed_shortest: 2, .. })),
        "{err}"
    );
}

#[test]
fn lane_jumps_backward_arrows_and_dead_ends_are_caught() {
    let lanes3 = SMALL.replace("lanes = 2", "lanes = 3");
    let broken =
        format!("{lanes3}\n[[link]]\nadd = [\"s0.l.2\", \"s0.r.3\"]\n[[link]]\nadd = [\"s0.l.4\", \"s0.l.2\"]\n");
    let err = from_toml(&broken, None).unwrap_err();
    let text = err.to_string();
    assert!(
        err.diagnostics
            .iter()
            .any(|d| matches!(&d.problem, TrackProblem::LaneJump { from, to } if from == "s0.l.2" && to == "s0.r.3")),
        "{text}"
    );
    assert!(
        err.diagnostics
            .iter()
            .any(|d| matches!(&d.problem, TrackProblem::Backwards { from, to } if from == "s0.l.4" && to == "s0.l.2")),
        "{text}"
    );

    // Removing every arrow out of a space makes it a dead end, and the spaces only it fed
    // become unreachable.
    let dead =
        format!("{SMALL}\n[[link]]\nremove = [\"s1.l.2\", \"s1.l.3\"]\n[[link]]\nremove = [\"s1.l.2\", \"s1.r.3\"]\n");
    let err = from_toml(&dead, None).unwrap_err();
    assert!(err.diagnostics.iter().any(|d| d.problem == TrackProblem::DeadEnd("s1.l.2".into())), "{err}");
    assert!(err.diagnostics.iter().any(|d| d.problem == TrackProblem::CannotFinish("s1.l.2".into())), "{err}");
}

#[test]
fn too_small_grids_and_pits_are_caught() {
    let broken = SMALL.replace("grid = 10", "grid = 14").replace("boxes = 10", "boxes = 8");
    let err = from_toml(&broken, None).unwrap_err();
    assert!(err.diagnostics.iter().any(|d| d.problem == TrackProblem::GridTooSmall { have: 12, need: 14 }), "{err}");
    assert!(err.diagnostics.iter().any(|d| d.problem == TrackProblem::TooFewBoxes { have: 8, need: 10 }), "{err}");
}

#[test]
fn syntax_errors_name_the_line() {
    let err = from_toml("name = \"x\"\nlanes = 3\nweather = 12\n", None).unwrap_err();
    assert_eq!(err.diagnostics.len(), 1);
    assert_eq!(err.diagnostics[0].line, Some(3), "{err}");
}

#[test]
fn track_check_command_exits_non_zero_and_lists_problems() {
    let dir = std::env::temp_dir().join(format!("steward-check-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.toml");
    std::fs::write(&bad, SMALL.replace("boxes = 10", "boxes = 8").replace("sun = \"1-10\"", "sun = \"1-9\"")).unwrap();
    let out = steward(&["track", "check", "monaco", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out);
    assert!(text.contains("monaco: ok (497 racing spaces"), "{text}");
    assert!(text.contains("bad.toml:") && text.contains("face 10") && text.contains("8 boxes"), "{text}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn track_info_json_gives_the_facts() {
    let out = steward(&["track", "info", "monaco", "--json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["lanes"], 3);
    assert_eq!(v["racing_spaces"], 497);
    assert_eq!(v["corners"].as_array().unwrap().len(), 10);
    assert_eq!(v["corners"][4], serde_json::json!({"id": "c5", "number": 5, "stops": 3, "shortest": 8, "longest": 18}));
    assert_eq!(v["grid"].as_array().unwrap().len(), 10);
    assert_eq!(v["pit_boxes"].as_array().unwrap().len(), 10);
    assert_eq!(v["weather"]["rain"], "17-20");
}

fn sorted(mut v: Vec<&str>) -> Vec<&str> {
    v.sort();
    v
}

/// `Track::arrows_to_pit_lane`, which lets the engine skip the search for a way into the pit
/// lane (19-1-1), is the fewest arrows to the lane: checked against a forward search from every
/// space of every shipped track.
#[test]
fn arrows_to_the_pit_lane_are_the_fewest() {
    for name in shipped_names() {
        let t = resolve(&name).unwrap();
        let mut checked = 0;
        for s in t.indices() {
            // Forward breadth-first search from `s` until a pit-lane space.
            let mut dist = vec![u32::MAX; t.spaces.len()];
            let mut queue = std::collections::VecDeque::from([s]);
            dist[s.get()] = 0;
            let mut found = u32::MAX;
            while let Some(u) = queue.pop_front() {
                if t.space(u).in_pit_lane() {
                    found = dist[u.get()];
                    break;
                }
                for &v in t.next(u) {
                    if dist[v.get()] == u32::MAX {
                        dist[v.get()] = dist[u.get()] + 1;
                        queue.push_back(v);
                    }
                }
            }
            let want = found.min(u8::MAX as u32) as u8;
            assert_eq!(t.arrows_to_pit_lane(s), want, "{name}: space {}", t.space(s).id);
            checked += usize::from(want > 0 && want < u8::MAX);
        }
        assert!(checked > 10, "{name}: most spaces are some arrows from the lane");
    }
}

/// `[outline]` is read and checked: one point per corner, increasing, after the line's; at
/// least four points. Each problem names the outline's line and what to give instead.
#[test]
fn an_outline_is_read_and_its_mistakes_are_named() {
    let square = "\n[outline]\npoints = [[0, 10], [0, 0], [10, 0], [10, 10], [5, 12]]\n";
    let t = from_toml(&format!("{SMALL}{square}corners = [1, 3]\n"), None).expect("a valid outline");
    let o = t.outline.as_ref().expect("the outline is kept");
    assert_eq!(o.points.len(), 5);
    assert_eq!(o.corners, vec![1, 3]);
    let text = format!("{SMALL}{square}");
    let line = text.lines().position(|l| l == "[outline]").unwrap() as u32 + 1;
    for (corners, says) in [
        ("[1]", "1 corner points for 2 corners"),
        ("[3, 1]", "corner 2's point is 1"),
        ("[0, 2]", "corner 1's point is 0"),
        ("[1, 5]", "corner 2's point is 5"),
    ] {
        let err = from_toml(&format!("{SMALL}{square}corners = {corners}\n"), None).unwrap_err();
        assert!(err.to_string().contains(says), "{corners}: {err}");
        assert!(err.diagnostics.iter().any(|d| d.line == Some(line)), "{corners}: {err}");
    }
    let err = from_toml(&format!("{SMALL}\n[outline]\npoints = [[0, 0], [1, 1], [2, 0]]\n"), None).unwrap_err();
    assert!(err.to_string().contains("3 points; an outline has at least 4"), "{err}");
    // A track without one is drawn from its segments, as before.
    assert!(from_toml(SMALL, None).unwrap().outline.is_none());
}

/// `steward track picture` draws a whole track: a PNG, or the pages' SVG for `.svg`.
#[test]
fn track_picture_writes_a_png_or_an_svg() {
    let dir = std::env::temp_dir().join(format!("steward-picture-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (png, svg) = (dir.join("monaco.png"), dir.join("monaco.svg"));
    for f in [&png, &svg] {
        let out = steward(&["track", "picture", "monaco", "--out", f.to_str().unwrap(), "--size", "300"]);
        assert!(out.status.success(), "{}", stdout(&out));
    }
    let bytes = std::fs::read(&png).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(u32::from_be_bytes(bytes[16..20].try_into().unwrap()), 300, "width");
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("<title>Monaco</title>") && text.contains("5·3"), "{text:.200}");
    std::fs::remove_dir_all(&dir).ok();
}
