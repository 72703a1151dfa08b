//! The picture of the board in the mails (`render::picture::mail_png`): golden PNGs of a shipped
//! track and of an imported one, the same bytes every time, a size that leaves the mail well
//! under its cap, and the imported track drawn at its own coordinates.
//!
//! Golden pictures live in `tests/golden/picture/`. A mismatch writes `<name>.actual.png`
//! beside the golden file and fails; `STEWARD_BLESS=1 cargo test` rewrites them.

use std::path::{Path, PathBuf};

use steward::render::layout::Layout;
use steward::render::picture::{CarMark, Marks, mail_png};
use steward::track::{SpaceIdx, Track};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/picture")
}

fn golden(name: &str, actual: &[u8]) {
    let dir = golden_dir();
    let path = dir.join(format!("{name}.png"));
    if std::env::var_os("STEWARD_BLESS").is_some_and(|v| v == "1") {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read(&path).unwrap_or_default();
    let out = dir.join(format!("{name}.actual.png"));
    if expected != actual {
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(&out, actual).unwrap();
        panic!("{} differs from the picture drawn: see {}; STEWARD_BLESS=1 rewrites it", path.display(), out.display());
    }
    let _ = std::fs::remove_file(out);
}

/// The spaces `steps` arrows ahead of `from`, in index order.
fn ahead(t: &Track, from: SpaceIdx, steps: usize) -> Vec<SpaceIdx> {
    let mut now = vec![from];
    for _ in 0..steps {
        let mut next: Vec<SpaceIdx> = now.iter().flat_map(|&s| t.next(s).iter().copied()).collect();
        next.sort();
        next.dedup();
        now = next;
    }
    now
}

/// A mover on `at`, other cars around it, a sticker, and options lettered A, B, ... on the
/// spaces 7 to 9 arrows ahead (two options on the farthest space, as a path through a corner
/// and one around it may end on the same space).
pub fn scene(t: &Track, mover: SpaceIdx) -> (Marks, SpaceIdx) {
    let mut ends: Vec<SpaceIdx> = Vec::new();
    for k in (7..=9).rev() {
        let new: Vec<SpaceIdx> = ahead(t, mover, k).into_iter().filter(|s| !ends.contains(s)).take(2).collect();
        ends.extend(new);
    }
    let mut options: Vec<(String, SpaceIdx)> =
        ends.iter().enumerate().map(|(i, &s)| (((b'A' + i as u8) as char).to_string(), s)).collect();
    options.insert(1, ("B".into(), ends[0]));
    for (i, o) in options.iter_mut().enumerate() {
        o.0 = ((b'A' + i as u8) as char).to_string();
    }
    let near = ahead(t, mover, 3);
    let behind = t.prev(t.prev(mover)[0])[0];
    let cars = vec![
        CarMark { number: 7, space: mover, running: true },
        CarMark { number: 3, space: near[0], running: true },
        CarMark { number: 12, space: behind, running: true },
        CarMark { number: 5, space: *near.last().unwrap(), running: false },
    ];
    let sticker = ahead(t, mover, 5)[0];
    (Marks { cars, dangerous: vec![sticker], options }, mover)
}

/// A small imported track (`track::synthetic`): a `.dat` graph of `rows` rows, three lanes, a
/// 1-stop corner and a 2-stop corner, a pit lane outside, squashed into an egg.
pub fn synthetic_dat(rows: u32) -> String {
    steward::track::synthetic::Synthetic { egg: true, mark_line: true, ..Default::default() }.dat(rows)
}

pub fn imported() -> Track {
    steward::track::import::import_str(&synthetic_dat(60), "egg").expect("the synthetic track imports").track
}

#[test]
fn golden_pictures_of_a_shipped_and_an_imported_track() {
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/pictures");
    std::fs::create_dir_all(&shots).unwrap();
    let monaco = steward::track::load::resolve("monaco").unwrap();
    let sprint = steward::track::load::resolve("sprint").unwrap();
    let egg = imported();
    let cases: Vec<(&str, &Track, SpaceIdx)> = vec![
        ("monaco_c5", &monaco, monaco.find("c5.m.1").unwrap()),
        // The pole: the finish line and the pit lane ahead.
        ("sprint_grid", &sprint, sprint.grid[0]),
        ("egg_c1", &egg, egg.corners[0].spaces[0]),
    ];
    for (name, t, at) in cases {
        let (marks, mover) = scene(t, at);
        let png = mail_png(t, &marks, mover);
        std::fs::write(shots.join(format!("{name}.png")), &png).unwrap();
        assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "{name}: a PNG");
        assert_eq!(png, mail_png(t, &marks, mover), "{name}: same input, same bytes");
        // Monaco's hairpin shows two stretches of track side by side: about 60 KB.
        assert!(png.len() < 64 * 1024, "{name}: {} bytes", png.len());
        golden(name, &png);
    }
}

#[test]
fn an_imported_track_is_drawn_at_its_own_coordinates_and_keeps_them_in_its_toml() {
    let t = imported();
    let l = Layout::of(&t);
    for (i, sp) in t.spaces.iter().enumerate() {
        let (x, y) = sp.at.expect("every imported space has its node's position");
        assert_eq!(l.at[i], (f64::from(x), f64::from(y)));
    }
    // A game keeps an imported track as TOML in the graph form: the positions go with it.
    let text = steward::track::import::to_toml(&steward::track::import::import_str(&synthetic_dat(60), "egg").unwrap())
        .unwrap();
    let back = steward::track::load::from_toml(&text, None).unwrap();
    assert!(t.spaces.iter().zip(&back.spaces).all(|(a, b)| a.at == b.at && a.at.is_some()));
    // A shipped track has none: it is drawn along its outline, or from its segments.
    let m = steward::track::load::resolve("monaco").unwrap();
    assert!(m.spaces.iter().all(|s| s.at.is_none()));
}

/// Every mail the season's Maildirs hold (the players' and the moderators' mailboxes).
fn season_mails() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.parent().and_then(|d| d.file_name()).is_some_and(|n| n == "new" || n == "cur")
                // steward's own mailbox holds the players' mails (their replies quote a report's
                // board as text); only steward's mails are reports.
                && !p.components().any(|c| c.as_os_str() == "steward@demo.invalid")
            {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(crate::site::season().parent().expect("the season's folder"), &mut out);
    out.sort();
    out
}

/// A report mail read back: its HTML part, the PNG its `cid:` names, its text part.
struct Shown {
    html: String,
    png: Vec<u8>,
    text: String,
}

/// The picture of a mail that has one, checked: a `multipart/alternative` whose text part has no
/// picture and whose HTML part sits in a `multipart/related` with one `image/png` part, which
/// the HTML names by its Content-ID.
fn shown(raw: &[u8]) -> Option<Shown> {
    use mail_parser::{MessageParser, MimeHeaders, PartType};
    let m = MessageParser::default().parse(raw).expect("steward's mails parse");
    let pngs: Vec<&mail_parser::MessagePart> = m
        .parts
        .iter()
        .filter(|p| p.content_type().is_some_and(|c| c.ctype() == "image" && c.subtype() == Some("png")))
        .collect();
    let text = m.body_text(0).expect("a text part").into_owned();
    let png = pngs.first()?;
    assert_eq!(pngs.len(), 1, "one picture a mail");
    let root = m.root_part().content_type().expect("a content type");
    assert_eq!((root.ctype(), root.subtype()), ("multipart", Some("alternative")));
    assert!(
        m.parts
            .iter()
            .any(|p| p.content_type().is_some_and(|c| c.ctype() == "multipart" && c.subtype() == Some("related"))),
        "the HTML and its picture are related"
    );
    let cid = png.content_id().expect("the picture has a Content-ID");
    assert!(png.content_disposition().is_some_and(|d| d.ctype() == "inline"), "shown inline");
    let html = m.body_html(0).expect("an HTML part").into_owned();
    assert!(html.contains(&format!("src=\"cid:{cid}\"")), "the HTML shows the picture by its Content-ID");
    assert!(html.contains(" alt=\""), "with a text for readers who cannot see it");
    assert!(!text.contains("cid:"), "the text part is text");
    let (PartType::Binary(bytes) | PartType::InlineBinary(bytes)) = &png.body else {
        panic!("the picture is binary");
    };
    assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "a PNG");
    Some(Shown { html, png: bytes.to_vec(), text })
}

#[test]
fn report_mails_show_the_board_as_a_picture_by_content_id() {
    let mut pictures = 0;
    for path in season_mails() {
        let raw = std::fs::read(&path).unwrap();
        let shown = shown(&raw);
        let m = mail_parser::MessageParser::default().parse(&raw[..]).unwrap();
        let text = m.body_text(0).unwrap_or_default();
        // Exactly the mails that draw the ASCII board (an empty cell) carry its picture.
        assert_eq!(shown.is_some(), text.contains("[   ]"), "{}", path.display());
        assert!(raw.len() <= steward::mail::limits::MAX_REPLY_BYTES, "{}: {} bytes", path.display(), raw.len());
        if let Some(s) = shown {
            assert!(s.text.contains("[   ]"), "the text part keeps the ASCII board");
            assert!(s.html.contains("[   ]"), "and so does the HTML part, under the picture");
            pictures += 1;
        }
    }
    assert!(pictures > 0, "the season's reports carry pictures");
}

#[test]
fn headless_chromium_displays_the_picture_of_a_report_mail() {
    let Some(browser) = crate::site::chromium() else {
        eprintln!("SKIPPED: Debian's chromium is not installed (apt-get install chromium; .ci/run does)");
        return;
    };
    let s =
        season_mails().iter().find_map(|p| shown(&std::fs::read(p).unwrap())).expect("a report mail with a picture");
    // The HTML part as a mail reader shows it: the `cid:` resolved to the picture's part
    // (here a file beside it), and a script that writes down what the browser displayed.
    let dir = std::env::temp_dir().join(format!("steward-picture-chromium-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("board.png"), &s.png).unwrap();
    let start = s.html.find("cid:").expect("a cid");
    let end = start + s.html[start..].find('"').expect("a quoted src");
    let script = "<script>window.addEventListener('load', () => { const i = document.images[0]; \
                  document.body.setAttribute('data-shown', i.complete ? i.naturalWidth + 'x' + i.naturalHeight : 'no'); });</script>";
    let html =
        format!("{}board.png{}", &s.html[..start], &s.html[end..]).replace("</body>", &format!("{script}</body>"));
    let page = dir.join("mail.html");
    std::fs::write(&page, html).unwrap();
    let url = format!("file://{}", page.display());
    let (dom, log) = crate::site::headless(&browser, &["--dump-dom", "--virtual-time-budget=5000"], &url);
    assert!(dom.contains("data-shown=\"600x400\""), "the picture is displayed at 600x400: {log}\n{dom}");
    // And its pixels are not blank: a screenshot of the page holds the track's green.
    let shot = dir.join("shot.png");
    let arg = format!("--screenshot={}", shot.display());
    crate::site::headless(&browser, &[&arg, "--window-size=700,500"], &url);
    let bytes = std::fs::read(&shot).expect("a screenshot");
    let pixmap = resvg::tiny_skia::Pixmap::decode_png(&bytes).expect("the screenshot decodes");
    let green = pixmap.pixels().iter().filter(|p| (p.red(), p.green(), p.blue()) == (0x4a, 0x7c, 0x3a)).count();
    let _ = std::fs::remove_dir_all(&dir);
    assert!(green > pixmap.pixels().len() / 10, "the track's green fills the picture: {green} pixels");
}

/// Issue 47: the letters of a busy corner piled up ("F/H", "G/I" merged, a car's disc over N).
/// Every roll that asks for a choice in whole bot races on every shipped track (10 cars, 3
/// laps), drawn as the mails draw it: no two labels overlap, no label covers a car or another
/// destination's space, none is cut by the picture's edge (geometry, not pixels). The three
/// densest positions are golden pictures.
#[test]
fn option_labels_never_collide_in_whole_bot_races() {
    use steward::engine::bot::Bot;
    use steward::engine::{MoveOption, Rulebook};
    use steward::sim::{SimConfig, SimWeather, run_race_watched};

    let rules = Rulebook::competition_2004();
    let races = 3;
    let cfg =
        SimConfig { cars: 10, laps: 3, races, seed: 47, trace: None, weather: SimWeather::Dry, backmarkers: false };
    let (mut positions, mut labels) = (0usize, 0usize);
    let mut densest: Vec<(usize, String, Marks, SpaceIdx)> = Vec::new();
    for name in steward::track::load::shipped_names() {
        let t = steward::track::load::resolve(&name).unwrap();
        let mut bot = Bot::new();
        for race in 0..races {
            run_race_watched(&t, &rules, &cfg, race, &mut bot, &mut None, &mut |r| {
                let marks = Marks {
                    cars: r
                        .state
                        .cars
                        .iter()
                        .filter(|c| c.status.on_board())
                        .map(|c| CarMark { number: c.number, space: c.space, running: true })
                        .collect(),
                    dangerous: r.state.dangerous.clone(),
                    options: r.options.iter().enumerate().map(|(i, o)| (MoveOption::label(i), o.end)).collect(),
                };
                let focus = r.from;
                let (p, at) = steward::render::picture::mail_placement(&t, &marks, focus);
                let bad = p.collisions(|s| at[s.get()]);
                assert!(
                    bad.is_empty(),
                    "{name} race {race}, car {} from {}: {bad:?}",
                    r.state.car(r.car).number,
                    t.space(r.from).id
                );
                positions += 1;
                labels += p.labels.len();
                densest.push((p.labels.len(), name.clone(), marks, focus));
                densest.sort_by_key(|d| std::cmp::Reverse(d.0));
                densest.truncate(3);
            })
            .unwrap();
        }
    }
    eprintln!("{positions} positions, {labels} labels, densest {:?}", densest.iter().map(|d| d.0).collect::<Vec<_>>());
    assert!(positions > 3000, "{positions} positions drawn");
    for (i, (_, name, marks, focus)) in densest.iter().enumerate() {
        let t = steward::track::load::resolve(name).unwrap();
        golden(&format!("densest_{i}"), &mail_png(&t, marks, *focus));
    }
}

/// Issue 47: the text part a player reads fits a mail client's width, and a prompt's letters
/// are on its text board. In every mail of the season: each line is at most 78 columns (but a
/// single word longer than a line: an address); in each prompt to choose, every letter of the
/// `CHOOSE <A|B|...>` line shows in a cell of the board (`[ B ]`, `[A/B]`) or in a note beside
/// it (`C=car 4's space`, `AA+=AA/AB`).
#[test]
fn report_texts_fit_78_columns_and_their_boards_carry_the_letters() {
    // A demo race on Monaco whose players answer every prompt by mail, and the season.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("picture-demo-texts");
    let _ = std::fs::remove_dir_all(&dir);
    let mut spec = crate::mail::sprint_demo(&dir, "texts", 4, 0, steward::store::qualifying::GridMethod::Join);
    spec.track = "monaco".into();
    steward::demo::run(&spec).unwrap();
    let mut paths = Vec::new();
    for who in 1..=4 {
        for sub in ["new", "cur"] {
            let d = dir.join("mail").join(format!("driver{who}@demo.invalid")).join(sub);
            paths.extend(std::fs::read_dir(d).into_iter().flatten().flatten().map(|e| e.path()));
        }
    }
    paths.sort();
    paths.extend(season_mails());
    let (mut mails, mut prompts) = (0, 0);
    for path in paths {
        let raw = std::fs::read(&path).unwrap();
        let m = mail_parser::MessageParser::default().parse(&raw[..]).unwrap();
        let Some(text) = m.body_text(0) else { continue };
        mails += 1;
        for l in text.lines() {
            assert!(
                l.chars().count() <= 78 || !l.trim().contains(' '),
                "{}: a line of {} columns:\n{l}",
                path.display(),
                l.chars().count()
            );
        }
        let Some(choose) = text.lines().find_map(|l| l.trim().strip_prefix("CHOOSE <")) else { continue };
        prompts += 1;
        // The prompt's top says what to send (issue 47).
        assert!(
            text.contains("\nSend: <") || text.contains("\nSend: CHOOSE"),
            "{}: no Send line:\n{text}",
            path.display()
        );
        let letters: Vec<&str> = choose.trim_end_matches('>').split('|').collect();
        let board: Vec<&str> = text.lines().filter(|l| l.contains("[") && l.contains("]")).collect();
        let mut shown = std::collections::BTreeSet::new();
        for l in &board {
            for cell in l.split('[').skip(1) {
                let inside = cell.split(']').next().unwrap_or("");
                for part in inside.trim().trim_end_matches('!').split('/') {
                    shown.insert(part.trim_end_matches('+').to_string());
                }
            }
            for note in l.split_whitespace() {
                if let Some((ls, _)) = note.split_once('=') {
                    shown.extend(ls.split('/').map(|x| x.trim_end_matches('+').to_string()));
                }
                if let Some((_, all)) = note.split_once("+=") {
                    shown.extend(all.split('/').map(str::to_string));
                }
            }
        }
        for letter in &letters {
            assert!(shown.contains(*letter), "{}: option {letter} is not on the text board:\n{text}", path.display());
        }
    }
    eprintln!("{mails} mails, {prompts} prompts to choose");
    assert!(mails > 100 && prompts > 20, "{mails} mails, {prompts} prompts to choose");
}
