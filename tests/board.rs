//! The ASCII board: golden files, and checks of facts every drawing must hold on every shipped
//! track (width, ASCII, each space and each car drawn once, determinism).
//!
//! Golden files live in `tests/golden/board/`. A mismatch writes `<name>.actual` beside the golden
//! file and fails; `STEWARD_BLESS=1 cargo test` rewrites the golden files.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use proptest::prelude::*;
use steward::render::board::{
    self, BoardMarks, CarsFileError, PlacedCar, ROWS_AHEAD, ROWS_BEHIND, WIDTH, draw, parse_cars,
};
use steward::track::{ROW, SpaceIdx, Track, load};

fn monaco() -> Track {
    load::resolve("monaco").expect("monaco loads")
}

fn shipped() -> Vec<Track> {
    let names = load::shipped_names();
    assert!(names.iter().any(|n| n == "monaco"), "shipped tracks: {names:?}");
    names.iter().map(|n| load::resolve(n).unwrap_or_else(|e| panic!("{n}: {e}"))).collect()
}

fn golden(name: &str, actual: &str) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/board");
    let path = dir.join(format!("{name}.txt"));
    let stale = dir.join(format!("{name}.actual"));
    if std::env::var_os("STEWARD_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, actual).unwrap();
        let _ = std::fs::remove_file(&stale);
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    if expected == actual {
        let _ = std::fs::remove_file(&stale);
        return;
    }
    std::fs::write(&stale, actual).unwrap();
    let first = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
    panic!(
        "{} differs from the drawing (first at line {}): see {}; STEWARD_BLESS=1 rewrites it\n  golden: {:?}\n  actual: {:?}",
        path.display(),
        first + 1,
        stale.display(),
        expected.lines().nth(first).unwrap_or("<end>"),
        actual.lines().nth(first).unwrap_or("<end>"),
    );
}

fn marks(t: &Track, text: &str) -> BoardMarks {
    parse_cars(text, Path::new("cars.toml"), t).unwrap_or_else(|e| panic!("{e}"))
}

// ---------------------------------------------------------------------------------------------
// Reading a drawing back, as a player would: label of the line, lane of the column, number by
// the cell.

/// One cell read off a drawing.
#[derive(Debug)]
struct ReadCell {
    id: String,
    inside: String,
    line: usize,
}

/// Reads every cell of a drawing as (space id, what is inside the brackets).
fn read_back(t: &Track, text: &str) -> Vec<ReadCell> {
    let lines: Vec<&str> = text.lines().collect();
    let header_at = lines.iter().position(|l| l.is_empty()).expect("a blank line ends the legend") + 1;
    let header = lines[header_at];
    // Column centres: the lane letter sits over the middle of the cells, `pit` is centred.
    let mut columns: Vec<(usize, String)> = Vec::new();
    let mut x = 0;
    for word in header.split(' ') {
        if !word.is_empty() {
            let centre = x + (word.len() - 1) / 2;
            columns.push((centre, word.to_string()));
        }
        x += word.len() + 1;
    }
    let lane_names: Vec<String> = (0..t.lanes).map(|l| Track::lane_name(t.lanes, l)).collect();
    for (_, name) in &columns {
        assert!(name == "pit" || lane_names.contains(name), "unexpected header word `{name}` in {header:?}");
    }
    let mut out = Vec::new();
    for (n, line) in lines.iter().enumerate().skip(header_at + 1) {
        if line.starts_with("----") || line.starts_with("====") {
            continue;
        }
        let b = line.as_bytes();
        let label = line.split(' ').next().unwrap_or("");
        for (c, name) in &columns {
            let (open, close) = (c - 2, c + 2);
            if close >= b.len() || !matches!(b[open], b'[' | b'!') || !matches!(b[close], b']' | b'!') {
                continue;
            }
            let mut start = open;
            while start > 0 && b[start - 1].is_ascii_digit() {
                start -= 1;
            }
            let number = &line[start..open];
            assert!(!number.is_empty(), "line {}: cell without a number: {line:?}", n + 1);
            let id = if name == "pit" { format!("pit.{number}") } else { format!("{label}.{name}.{number}") };
            out.push(ReadCell { id, inside: line[open + 1..close].to_string(), line: n + 1 });
        }
    }
    out
}

fn bucket(t: &Track, s: SpaceIdx) -> u32 {
    let rows = t.lap_length.div_ceil(ROW);
    (t.space(s).progress / ROW).min(rows - 1)
}

/// The board rows a window around `s` covers, from the documented window size.
fn window_rows(t: &Track, s: SpaceIdx) -> HashSet<u32> {
    let n = t.lap_length.div_ceil(ROW);
    if n <= ROWS_BEHIND + ROWS_AHEAD + 1 {
        return (0..n).collect();
    }
    let b0 = bucket(t, s);
    (0..=ROWS_BEHIND + ROWS_AHEAD).map(|i| (b0 + n - ROWS_BEHIND + i) % n).collect()
}

/// Checks that the drawing shows exactly the expected spaces, each once, under its own id.
fn assert_spaces_once(t: &Track, text: &str, expected: &HashSet<SpaceIdx>, what: &str) {
    let cells = read_back(t, text);
    let mut seen: HashMap<SpaceIdx, usize> = HashMap::new();
    for c in &cells {
        let s = t.find(&c.id).unwrap_or_else(|| panic!("{what}: line {} reads as `{}`, no such space", c.line, c.id));
        if let Some(first) = seen.insert(s, c.line) {
            panic!("{what}: {} drawn twice (lines {first} and {})", c.id, c.line);
        }
    }
    for lane in 0..=t.lanes {
        let in_lane = |s: &SpaceIdx| {
            let sp = t.space(*s);
            if lane == t.lanes { sp.in_pit_lane() } else { !sp.in_pit_lane() && sp.lane == lane }
        };
        let want = expected.iter().filter(|s| in_lane(s)).count();
        let got = seen.keys().filter(|s| in_lane(s)).count();
        assert_eq!(got, want, "{what}: lane {lane} shows {got} cells, the model has {want} in the rows drawn");
    }
    for s in expected {
        assert!(seen.contains_key(s), "{what}: {} is missing", t.space(*s).id);
    }
}

// ---------------------------------------------------------------------------------------------
// Golden files.

#[test]
fn golden_monaco_full() {
    golden("monaco_full", &draw(&monaco(), &BoardMarks::default(), None));
}

#[test]
fn golden_monaco_corner5_with_cars() {
    let t = monaco();
    let m = marks(
        &t,
        r#"
dangerous = ["c5.l.4", "c5.r.9", "s5.m.2"]

[[car]]
number = 7
space = "c5.m.3"

[[car]]
number = 12
space = "c5.l.4"

[[car]]
number = 3
space = "s4.r.2"

[[car]]
number = 101
space = "c5.r.12"

[[car]]
number = 5
space = "s6.l.1"
"#,
    );
    golden("monaco_c5_cars", &draw(&t, &m, t.find("c5.m.3")));
}

#[test]
fn golden_monaco_finish_grid_pit() {
    let t = monaco();
    let m = marks(
        &t,
        r#"
dangerous = ["pit.14"]

[[car]]
number = 1
space = "s10.l.12"

[[car]]
number = 2
space = "s10.r.11"

[[car]]
number = 9
space = "pit.8"

[[car]]
number = 4
space = "s0.m.3"
"#,
    );
    golden("monaco_finish", &draw(&t, &m, t.find("s0.m.1")));
}

// ---------------------------------------------------------------------------------------------
// Facts on every shipped track.

fn every_drawing(t: &Track) -> Vec<(String, Option<SpaceIdx>, String)> {
    let mut out = vec![(format!("{} full", t.name), None, draw(t, &BoardMarks::default(), None))];
    for s in t.indices().step_by(10) {
        out.push((format!("{} around {}", t.name, t.space(s).id), Some(s), draw(t, &BoardMarks::default(), Some(s))));
    }
    out
}

#[test]
fn lines_fit_80_columns_and_are_ascii() {
    for t in shipped() {
        for (what, _, text) in every_drawing(&t) {
            assert!(text.ends_with('\n'), "{what}: no final newline");
            for (n, line) in text.lines().enumerate() {
                assert!(line.len() <= WIDTH, "{what}: line {} has {} columns: {line:?}", n + 1, line.len());
                assert!(
                    line.bytes().all(|b| (b' '..=b'~').contains(&b)),
                    "{what}: line {} is not printable ASCII: {line:?}",
                    n + 1
                );
                assert_eq!(line, line.trim_end(), "{what}: line {} has trailing blanks", n + 1);
            }
        }
    }
}

#[test]
fn every_space_of_the_drawing_appears_exactly_once() {
    for t in shipped() {
        for (what, around, text) in every_drawing(&t) {
            let expected: HashSet<SpaceIdx> = match around {
                None => t.indices().collect(),
                Some(s) => {
                    let rows = window_rows(&t, s);
                    t.indices().filter(|x| rows.contains(&bucket(&t, *x))).collect()
                }
            };
            assert_spaces_once(&t, &text, &expected, &what);
            if let Some(s) = around {
                let id = &t.space(s).id;
                assert!(text.contains(&format!("<- {id}")), "{what}: the window does not point at {id}");
            }
        }
    }
}

#[test]
fn drawing_is_deterministic() {
    for t in shipped() {
        let t2 = load::resolve(&t.name).unwrap();
        let m = BoardMarks {
            cars: vec![PlacedCar { number: 4, space: t.grid[0] }, PlacedCar { number: 8, space: t.pit_boxes[0] }],
            dangerous: vec![SpaceIdx(3)],
            ..Default::default()
        };
        assert_eq!(draw(&t, &m, None), draw(&t2, &m, None), "{}", t.name);
        for s in t.indices().step_by(37) {
            assert_eq!(draw(&t, &m, Some(s)), draw(&t2, &m, Some(s)), "{} around {}", t.name, t.space(s).id);
        }
    }
}

#[test]
fn corner_shows_each_lane_with_its_own_count() {
    // Corner 5 of Monaco: 8 spaces inside, 18 outside, over 18 rows.
    let t = monaco();
    let text = draw(&t, &BoardMarks::default(), t.find("c5.m.3"));
    let cells = read_back(&t, &text);
    for (lane, count) in [("l", 8), ("m", 13), ("r", 18)] {
        let prefix = format!("c5.{lane}.");
        let got: Vec<&ReadCell> = cells.iter().filter(|c| c.id.starts_with(&prefix)).collect();
        assert_eq!(got.len(), count, "lane {lane}");
        // In order down the page, numbered 1.. without a gap.
        for (k, c) in got.iter().enumerate() {
            assert_eq!(c.id, format!("{prefix}{}", k + 1));
        }
    }
    let rows = text.lines().filter(|l| l.starts_with("c5 ")).count();
    assert_eq!(rows, 18, "one line per row of the corner");
    assert!(text.contains("---- corner 5: 3 stops, 8 to 18 spaces ----"));
    assert!(text.contains("---- end of corner 5 ----"));
}

#[test]
fn finish_window_shows_line_grid_and_pit() {
    let t = monaco();
    let text = draw(&t, &BoardMarks::default(), t.find("s0.m.1"));
    assert!(text.lines().any(|l| l.starts_with("==== FINISH LINE ====")));
    let cells = read_back(&t, &text);
    for (k, s) in t.grid.iter().enumerate() {
        let c = cells.iter().find(|c| c.id == t.space(*s).id).expect("grid slot drawn");
        assert_eq!(c.inside.trim_end(), format!("P{}", k + 1));
    }
    for (k, s) in t.pit_boxes.iter().enumerate() {
        let c = cells.iter().find(|c| c.id == t.space(*s).id).expect("pit box drawn");
        assert_eq!(c.inside.trim_end(), format!("B{}", k + 1));
    }
    assert!(text.contains("pit entry: s10.r.1"));
    assert!(text.contains("pit exit: s0.r.5"));
}

#[test]
fn dangerous_spaces_are_flagged() {
    let t = monaco();
    let m = marks(&t, "dangerous = [\"c5.l.4\", \"c5.m.5\"]\n[[car]]\nnumber = 7\nspace = \"c5.m.5\"\n");
    let cells = read_back(&t, &draw(&t, &m, t.find("c5.m.3")));
    let inside = |id: &str| cells.iter().find(|c| c.id == id).unwrap().inside.clone();
    assert_eq!(inside("c5.l.4"), "!!!");
    assert_eq!(inside("c5.m.5"), " 7!");
    assert_eq!(inside("c5.m.4"), "   ");
}

fn car_numbers_once(t: &Track, cars: &[PlacedCar], around: Option<SpaceIdx>) -> Result<(), TestCaseError> {
    let m = BoardMarks {
        cars: cars.to_vec(),
        dangerous: cars.iter().step_by(2).map(|c| c.space).collect(),
        ..Default::default()
    };
    let text = draw(t, &m, around);
    let cells = read_back(t, &text);
    let rows = around.map(|s| window_rows(t, s));
    for car in cars {
        let shown: Vec<&ReadCell> = cells
            .iter()
            .filter(|c| c.inside.trim_matches(|ch: char| ch == ' ' || ch == '!') == car.number.to_string())
            .collect();
        let visible = rows.as_ref().is_none_or(|r| r.contains(&bucket(t, car.space)));
        prop_assert_eq!(shown.len(), usize::from(visible), "car {} in\n{}", car.number, text);
        if let Some(c) = shown.first() {
            prop_assert_eq!(&c.id, &t.space(car.space).id);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn each_car_appears_exactly_once(
        picks in proptest::collection::btree_map(0u16..600, 1u8..=255, 1..12),
        centre in 0u16..600,
    ) {
        let t = monaco();
        let n = t.spaces.len() as u16;
        let mut used = HashSet::new();
        let mut numbers = HashSet::new();
        let cars: Vec<PlacedCar> = picks
            .into_iter()
            .filter(|(s, num)| used.insert(s % n) && numbers.insert(*num))
            .map(|(s, number)| PlacedCar { number, space: SpaceIdx(s % n) })
            .collect();
        car_numbers_once(&t, &cars, None)?;
        car_numbers_once(&t, &cars, Some(SpaceIdx(centre % n)))?;
    }
}

// ---------------------------------------------------------------------------------------------
// The cars file.

fn cars_error(text: &str) -> CarsFileError {
    parse_cars(text, Path::new("cars.toml"), &monaco()).expect_err("the file is refused")
}

#[test]
fn cars_file_reads_cars_and_dangerous_spaces() {
    let t = monaco();
    let m = marks(&t, "dangerous = [\"s6.l.4\"]\n\n[[car]]\nnumber = 7\nspace = \"C5.M.3\"\n");
    assert_eq!(m.cars, vec![PlacedCar { number: 7, space: t.find("c5.m.3").unwrap() }]);
    assert_eq!(m.dangerous, vec![t.find("s6.l.4").unwrap()]);
    assert_eq!(marks(&t, ""), BoardMarks::default());
}

#[test]
fn cars_file_errors_name_the_line_and_the_space() {
    let e = cars_error("[[car]]\nnumber = 7\nspace = \"c5.m.3\"\n\n[[car]]\nnumber = 8\nspace = \"c55.m.3\"\n");
    assert!(matches!(&e, CarsFileError::UnknownSpace { line: 7, id, .. } if id == "c55.m.3"), "{e:?}");
    assert_eq!(e.to_string(), "cars.toml:7: no space `c55.m.3` on monaco (ids look like `s0.m.3`, `c5.l.2`, `pit.4`)");

    let e = cars_error("dangerous = [\"s6.l.4\",\n  \"nowhere\"]\n");
    assert!(matches!(&e, CarsFileError::UnknownSpace { line: 2, id, .. } if id == "nowhere"), "{e:?}");

    let e = cars_error("[[car]]\nnumber = 7\nspace = \"c5.m.3\"\n[[car]]\nnumber = 7\nspace = \"c5.m.4\"\n");
    assert!(matches!(e, CarsFileError::DuplicateCar { number: 7, first: 1, line: 4, .. }), "{e:?}");
    assert!(e.to_string().contains("car 7 is placed twice"), "{e}");

    let e = cars_error("[[car]]\nnumber = 7\nspace = \"c5.m.3\"\n[[car]]\nnumber = 8\nspace = \"c5.m.3\"\n");
    assert!(matches!(&e, CarsFileError::SpaceTaken { number: 8, other: 7, .. }), "{e:?}");
    assert!(e.to_string().contains("car 8 is on c5.m.3, where car 7 already stands"), "{e}");

    let e = cars_error("[[car]]\nnumber = 7\nspace = \"c5.m.3\"\ncolour = \"red\"\n");
    assert!(matches!(e, CarsFileError::Syntax { line: 4, .. }), "{e:?}");

    let e = cars_error("[[car]]\nnumber = 300\nspace = \"c5.m.3\"\n");
    assert!(matches!(e, CarsFileError::Syntax { line: 2, .. }), "{e:?}");

    let e = board::read_cars(&PathBuf::from("/nonexistent/cars.toml"), &monaco()).unwrap_err();
    assert!(e.to_string().starts_with("/nonexistent/cars.toml: cannot read the cars file"), "{e}");
}

// ---------------------------------------------------------------------------------------------
// A track shaped like an imported one: four lanes, a wall, corners whose spaces have uneven
// progress (more than one space of a lane in a row, a corner ending mid-row), a dense pit lane
// on the left.

fn odd_track() -> Track {
    use steward::track::{SpaceDraft, TrackBuilder};
    use steward::track::{SpaceKind, Weather, WeatherTable};
    let mut b = TrackBuilder::new("odd", "Odd Oval (Nürburg)", 4, WeatherTable::new([Weather::Sun; 20]));
    let mut lanes: Vec<Vec<SpaceIdx>> = vec![Vec::new(); 4];
    let mut add = |b: &mut TrackBuilder, seg: u16, lane: u8, progress: u32, length: u32| {
        let s = b.add_space(SpaceDraft {
            lane,
            kind: SpaceKind::Racing,
            segment: Some(seg),
            progress,
            length,
            wall: lane == 3,
            line: 0,
            at: None,
        });
        lanes[lane as usize].push(s);
    };
    // s0: 12 staggered rows.
    let s0 = b.add_straight("s0");
    for lane in 0..4u8 {
        for k in 0..12 {
            add(&mut b, s0, lane, k * ROW + if lane % 2 == 1 { 250 } else { 750 }, ROW);
        }
    }
    // c1 from 12000 to 20500: uneven spaces; the outside lane has 14 spaces in 8.5 rows.
    let (c1, _) = b.add_corner("c1", 2, 3, 14, 0);
    for (lane, n) in [(0u8, 3u32), (1, 6), (2, 9), (3, 14)] {
        for k in 0..n {
            let p = 12000 + (8500 * (2 * k + 1) / (2 * n)) + if k % 2 == 0 { 90 } else { 0 };
            add(&mut b, c1, lane, p, 8500 / n);
        }
    }
    // s1: 40 staggered rows from 20500, so its first spaces share a board row with c1's last.
    let s1 = b.add_straight("s1");
    for lane in 0..4u8 {
        for k in 0..40 {
            add(&mut b, s1, lane, 20500 + k * ROW + if lane % 2 == 1 { 250 } else { 750 }, ROW);
        }
    }
    // c2 from 60500 to 66000, then s2 to the line at 80000.
    let (c2, _) = b.add_corner("c2", 1, 2, 7, 0);
    for (lane, n) in [(0u8, 7u32), (1, 5), (2, 4), (3, 2)] {
        for k in 0..n {
            add(&mut b, c2, lane, 60500 + 5500 * (2 * k + 1) / (2 * n), 5500 / n);
        }
    }
    let s2 = b.add_straight("s2");
    for lane in 0..4u8 {
        for k in 0..14 {
            add(&mut b, s2, lane, 66000 + k * ROW + 500, ROW);
        }
    }
    b.set_lap_length(80000);
    for lane in &mut lanes {
        lane.sort_by_key(|s| b.draft(*s).progress);
        for k in 0..lane.len() {
            b.link(lane[k], lane[(k + 1) % lane.len()]);
        }
    }
    // A dense pit lane on the left: 14 spaces between 74000 and 3000, boxes 1..8.
    let mut pit = Vec::new();
    for k in 0..14u32 {
        let kind = if (3..11).contains(&k) { SpaceKind::PitBox((k - 2) as u8) } else { SpaceKind::PitLane };
        let s = b.add_space(SpaceDraft {
            lane: 0,
            kind,
            segment: None,
            progress: (74000 + k * 600) % 80000,
            length: 600,
            wall: false,
            line: 0,
            at: None,
        });
        pit.push(s);
    }
    let entry = lanes[0].iter().copied().find(|s| b.draft(*s).progress > 73000).unwrap();
    let exit = lanes[0].iter().copied().find(|s| b.draft(*s).progress > 4000).unwrap();
    b.link(entry, pit[0]);
    for w in pit.windows(2) {
        b.link(w[0], w[1]);
    }
    b.link(pit[13], exit);
    b.set_pit_lane(pit);
    b.set_grid(vec![lanes[0][11], lanes[3][10]]);
    b.finish()
}

#[test]
fn odd_track_draws_every_space_once_within_78_columns() {
    let t = odd_track();
    for (what, around, text) in every_drawing(&t) {
        for line in text.lines() {
            // One column a character: ASCII, and the accented letters of track names and French.
            let latin = line.chars().all(|c| c.is_ascii() || ('À'..='ÿ').contains(&c));
            assert!(line.chars().count() <= WIDTH && latin, "{what}: {line:?}");
        }
        let expected: HashSet<SpaceIdx> = match around {
            None => t.indices().collect(),
            Some(s) => {
                let rows = window_rows(&t, s);
                t.indices().filter(|x| rows.contains(&bucket(&t, *x))).collect()
            }
        };
        assert_spaces_once(&t, &text, &expected, &what);
    }
    let full = draw(&t, &BoardMarks::default(), None);
    assert!(full.starts_with("Odd Oval (Nürburg): the whole lap"), "{full}");
    assert!(full.contains("#"), "the wall is drawn");
    let header = full.lines().find(|l| l.trim_start().starts_with("pit")).expect("pit column on the left");
    let words: Vec<&str> = header.split_whitespace().collect();
    assert_eq!(words, ["pit", "a", "b", "c", "d"]);
}

#[test]
fn golden_odd_track() {
    let t = odd_track();
    let m = BoardMarks {
        cars: vec![
            PlacedCar { number: 11, space: t.find("c1.d.5").unwrap() },
            PlacedCar { number: 22, space: t.find("pit.4").unwrap() },
        ],
        dangerous: vec![t.find("c1.a.2").unwrap()],
        // Issue 47: a roll's options lettered on the board: alone, two on one space, one on
        // a dangerous space, one under a car, and more than a cell holds.
        options: vec![
            ("A".into(), t.find("c1.a.3").unwrap()),
            ("B".into(), t.find("c1.b.4").unwrap()),
            ("C".into(), t.find("c1.b.4").unwrap()),
            ("D".into(), t.find("c1.a.2").unwrap()),
            ("E".into(), t.find("c1.d.5").unwrap()),
            ("AA".into(), t.find("c1.c.3").unwrap()),
            ("AB".into(), t.find("c1.c.3").unwrap()),
        ],
    };
    golden("odd_c1", &draw(&t, &m, t.find("c1.b.2")));
    golden("odd_pit", &draw(&t, &m, t.find("pit.4")));
}
