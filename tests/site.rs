//! `steward site`: the pages of a small simulated season are well-formed HTML with one title and
//! a language, no duplicate ids, every relative link resolving to a file (and every anchor to
//! an id); the rebuild is incremental; a game not yet revealed says so; and, when Debian's
//! `chromium` is installed (`.ci/run` installs it), headless Chromium loads the pages with no
//! console error, every chart and board in the DOM, and takes screenshots of a league page
//! and a dice page (left in `target/site-screenshots/`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use steward::demo::season::{SeasonSpec, run};

/// A two-race season on the sprint track, built once for every test here.
pub(crate) fn season() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = std::env::temp_dir().join(format!("steward-site-season-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let spec = SeasonSpec {
            dir: dir.clone(),
            league: "web".into(),
            races: 2,
            drivers: 4,
            laps: 1,
            tracks: vec!["sprint".into()],
            seed: 3,
        };
        run(&spec).expect("the season runs");
        dir.join("games")
    })
}

fn fresh_out(name: &str) -> PathBuf {
    let out = std::env::temp_dir().join(format!("steward-site-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    out
}

/// What a structural read of a page found.
#[derive(Debug, Default)]
struct Page {
    /// `<title>` elements outside SVG.
    titles: usize,
    lang: bool,
    ids: Vec<String>,
    hrefs: Vec<String>,
}

const VOID: [&str; 6] = ["meta", "br", "hr", "img", "input", "link"];

/// Reads `html` as a tag stream and checks that it is well-formed: every element closed in
/// order (void elements and `/>` apart), script and style bodies skipped.
fn read_page(html: &str) -> Result<Page, String> {
    let mut page = Page::default();
    let mut stack: Vec<String> = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find('<') {
        rest = &rest[i..];
        let end = rest.find('>').ok_or("a tag is not closed")?;
        let tag = &rest[1..end];
        rest = &rest[end + 1..];
        if tag.starts_with('!') {
            continue;
        }
        if let Some(name) = tag.strip_prefix('/') {
            let open = stack.pop().ok_or_else(|| format!("</{name}> closes nothing"))?;
            if open != name.trim() {
                return Err(format!("</{name}> closes <{open}>"));
            }
            continue;
        }
        let name: String = tag.split(|c: char| c.is_whitespace() || c == '/').next().unwrap_or("").to_string();
        let in_svg = stack.iter().any(|t| t == "svg");
        if name == "title" && !in_svg {
            page.titles += 1;
        }
        if name == "html" && tag.contains("lang=\"") {
            page.lang = true;
        }
        for (attr, list) in [(" id=\"", &mut page.ids), (" href=\"", &mut page.hrefs)] {
            if let Some(j) = tag.find(attr) {
                let v = &tag[j + attr.len()..];
                list.push(v[..v.find('"').ok_or("an attribute is not closed")?].to_string());
            }
        }
        if tag.ends_with('/') || VOID.contains(&name.as_str()) {
            continue;
        }
        if name == "script" || name == "style" {
            let close = format!("</{name}>");
            let j = rest.find(&close).ok_or_else(|| format!("<{name}> is not closed"))?;
            rest = &rest[j + close.len()..];
            continue;
        }
        stack.push(name);
    }
    if !stack.is_empty() {
        return Err(format!("unclosed: {stack:?}"));
    }
    Ok(page)
}

/// Every `.html` file of the site, read.
fn pages(out: &Path) -> BTreeMap<String, Page> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(out).unwrap().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if name.ends_with(".html") {
            let text = std::fs::read_to_string(e.path()).unwrap();
            m.insert(name.clone(), read_page(&text).unwrap_or_else(|err| panic!("{name}: {err}")));
        }
    }
    m
}

#[test]
fn the_checker_rejects_what_it_should() {
    assert!(read_page("<html lang=\"en\"><p></html>").is_err());
    assert!(read_page("<html lang=\"en\"><p></b></p></html>").is_err());
    let p = read_page("<html lang=\"en\"><title>a</title><svg><title>b</title><use href=\"#x\"/></svg><br></html>")
        .unwrap();
    assert_eq!((p.titles, p.lang, p.hrefs.len()), (1, true, 1));
}

#[test]
fn every_page_is_well_formed_and_every_link_resolves() {
    let games = season();
    let out = fresh_out("links");
    let built = steward::site::build(games, &out).unwrap();
    assert_eq!(built.rebuilt.len(), 2);
    assert_eq!(built.leagues, vec!["web".to_string()]);
    let all = pages(&out);
    // index, a league page and its dice page, and two pages per race.
    assert_eq!(all.len(), 1 + 2 + 2 * 2, "{:?}", all.keys());
    for (name, p) in &all {
        assert_eq!(p.titles, 1, "{name}: one title");
        assert!(p.lang, "{name}: the document's language");
        let unique: BTreeSet<&String> = p.ids.iter().collect();
        assert_eq!(unique.len(), p.ids.len(), "{name}: duplicate ids");
        for h in &p.hrefs {
            assert!(!h.contains("://") && !h.starts_with('/'), "{name}: {h} is not relative");
            let (file, anchor) = h.split_once('#').unwrap_or((h, ""));
            let target = if file.is_empty() { name.as_str() } else { file };
            let tp = all.get(target).unwrap_or_else(|| panic!("{name}: {h} leads to no page"));
            assert!(anchor.is_empty() || tp.ids.iter().any(|i| i == anchor), "{name}: no id for {h}");
        }
    }
    // Every league race is linked from the league page.
    for g in ["web-01", "web-02"] {
        assert!(all["league-web.html"].hrefs.contains(&format!("race-{g}.html")), "{g}");
        assert!(all["league-web.html"].hrefs.contains(&format!("dice-{g}.html")), "{g}");
    }
}

#[test]
fn only_changed_games_are_rebuilt() {
    let games = season();
    let out = fresh_out("incremental");
    assert_eq!(steward::site::build(games, &out).unwrap().rebuilt.len(), 2);
    let again = steward::site::build(games, &out).unwrap();
    assert!(again.rebuilt.is_empty(), "{again:?}");
    assert_eq!(again.kept.len(), 2);
    // A game whose last turn is not the one the manifest recorded is rebuilt, alone.
    let m = out.join("manifest.txt");
    let text = std::fs::read_to_string(&m).unwrap();
    std::fs::write(&m, text.replace("web-02 ", "web-02 0:")).unwrap();
    let third = steward::site::build(games, &out).unwrap();
    assert_eq!(third.rebuilt, vec!["web-02".to_string()]);
    // So is a game whose page went missing.
    std::fs::remove_file(out.join("dice-web-01.html")).unwrap();
    assert_eq!(steward::site::build(games, &out).unwrap().rebuilt, vec!["web-01".to_string()]);
}

#[test]
fn a_game_not_yet_revealed_says_so() {
    let games = season();
    // The same race before its reveal: its turn files without the last one.
    let copy = fresh_out("unrevealed");
    let g = copy.join("web-01");
    std::fs::create_dir_all(g.join("turns")).unwrap();
    for f in ["game.toml", "track.toml"] {
        std::fs::copy(games.join("web-01").join(f), g.join(f)).unwrap();
    }
    let mut turns: Vec<_> =
        std::fs::read_dir(games.join("web-01/turns")).unwrap().flatten().map(|e| e.path()).collect();
    turns.sort();
    let last = turns.pop().unwrap();
    assert!(std::fs::read_to_string(&last).unwrap().contains("seed"), "the last turn reveals the seed");
    for t in &turns {
        std::fs::copy(t, g.join("turns").join(t.file_name().unwrap())).unwrap();
    }
    let out = copy.join("site");
    steward::site::build(&copy, &out).unwrap();
    let dice = std::fs::read_to_string(out.join("dice-web-01.html")).unwrap();
    assert!(dice.contains("not yet revealed"), "{dice}");
    assert!(!dice.contains("Revealed seed"));
    let revealed = fresh_out("revealed");
    steward::site::build(games, &revealed).unwrap();
    let dice = std::fs::read_to_string(revealed.join("dice-web-01.html")).unwrap();
    assert!(dice.contains("Revealed seed") && !dice.contains("not yet revealed"));
    for cmd in [
        "steward verify --games GAMES web-01",
        "python3 tools/verify_game.py GAMES/web-01",
        "steward verify --mail PATH",
    ] {
        assert!(dice.contains(cmd), "{cmd}");
    }
    // The commands name no folder of the server's (issue 50): a member runs them on their own.
    assert!(!dice.contains(&games.display().to_string()), "the server's games folder is named");
}

/// Every page passes HTML Tidy (Debian's `tidy`, an HTML5 checker; `.ci/run` installs it) with
/// no error and no warning.
#[test]
fn every_page_passes_html_tidy() {
    let Some(tidy) =
        std::env::var_os("PATH").and_then(|p| std::env::split_paths(&p).map(|d| d.join("tidy")).find(|p| p.is_file()))
    else {
        eprintln!("SKIPPED: Debian's tidy is not installed (apt-get install tidy; .ci/run does)");
        return;
    };
    let out = fresh_out("tidy");
    steward::site::build(season(), &out).unwrap();
    let all = pages(&out);
    assert!(all.len() >= 7);
    for name in all.keys() {
        let o = Command::new(&tidy)
            .args(["-q", "-e", "--drop-empty-elements", "no"])
            .arg(out.join(name))
            .output()
            .expect("tidy runs");
        let said = String::from_utf8_lossy(&o.stderr);
        assert!(o.status.success() && said.trim().is_empty(), "{name}: tidy says\n{said}");
    }
}

pub(crate) fn chromium() -> Option<PathBuf> {
    std::env::var_os("PATH")?.to_str()?.split(':').map(|d| Path::new(d).join("chromium")).find(|p| p.is_file())
}

pub(crate) fn headless(browser: &Path, args: &[&str], url: &str) -> (String, String) {
    let o = Command::new(browser)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--enable-logging=stderr", "--v=0"])
        .args(args)
        .arg(url)
        .output()
        .expect("chromium runs");
    (String::from_utf8_lossy(&o.stdout).into_owned(), String::from_utf8_lossy(&o.stderr).into_owned())
}

#[test]
fn headless_chromium_loads_every_page_without_error() {
    let Some(browser) = chromium() else {
        eprintln!("SKIPPED: Debian's chromium is not installed (apt-get install chromium; .ci/run does)");
        return;
    };
    let games = season();
    let out = fresh_out("chromium");
    steward::site::build(games, &out).unwrap();
    let shots = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/site-screenshots");
    std::fs::create_dir_all(&shots).unwrap();
    for (name, _) in pages(&out) {
        let path = out.join(&name);
        let source = std::fs::read_to_string(&path).unwrap();
        let url = format!("file://{}", path.display());
        let (dom, log) = headless(&browser, &["--dump-dom"], &url);
        let errors: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert!(dom.contains("</html>"), "{name}: no DOM dumped: {log}");
        for class in ["class=\"chart\"", "class=\"board\"", "class=\"bar\"", "class=\"car\""] {
            assert_eq!(dom.matches(class).count(), source.matches(class).count(), "{name}: {class} drawn");
        }
        if name.starts_with("dice-") {
            assert!(source.contains("class=\"chart\""), "{name} has charts");
        }
        if name.starts_with("race-") {
            assert!(source.contains("class=\"board\""), "{name} has boards");
        }
    }
    // On a 390-pixel phone screen nothing is wider than the screen (issue 50): each page, laid
    // out 390 pixels wide (headless Chromium's window is at least 500) with a line of script
    // added to this copy only, writes the width its content takes into the DOM Chromium dumps.
    for (name, _) in pages(&out) {
        let source = std::fs::read_to_string(out.join(&name)).unwrap();
        let probe = out.join(format!("probe-{name}"));
        let script = "<script>document.body.setAttribute('data-width', document.body.scrollWidth - document.body.clientWidth + 390);</script></body>";
        let narrow = source.replace("</head>", "<style>html{width:390px}</style></head>").replace("</body>", script);
        std::fs::write(&probe, narrow).unwrap();
        let (dom, _) =
            headless(&browser, &["--dump-dom", "--window-size=390,844"], &format!("file://{}", probe.display()));
        let _ = std::fs::remove_file(&probe);
        let width: u32 = dom
            .split("data-width=\"")
            .nth(1)
            .and_then(|r| r.split('"').next())
            .and_then(|w| w.parse().ok())
            .unwrap_or_else(|| panic!("{name}: no width in the DOM"));
        assert!(width <= 390, "{name} is {width} pixels wide on a 390-pixel screen");
    }
    let phone = shots.join("race-web-01-390.png");
    let _ = std::fs::remove_file(&phone);
    let shot = format!("--screenshot={}", phone.display());
    headless(
        &browser,
        &[&shot, "--window-size=390,844"],
        &format!("file://{}", out.join("race-web-01.html").display()),
    );
    assert!(std::fs::read(&phone).is_ok_and(|b| b.len() > 10_000), "a phone-width screenshot");
    for name in ["league-web.html", "dice-web-01.html"] {
        let png = shots.join(name.replace(".html", ".png"));
        let _ = std::fs::remove_file(&png);
        let shot = format!("--screenshot={}", png.display());
        headless(&browser, &[&shot, "--window-size=1000,1400"], &format!("file://{}", out.join(name).display()));
        let bytes = std::fs::read(&png).unwrap_or_else(|_| panic!("no screenshot of {name}"));
        assert!(bytes.starts_with(b"\x89PNG") && bytes.len() > 10_000, "{name}: a real picture");
    }
}

#[test]
fn the_daemon_hook_rebuilds_when_the_job_wrote_turns() {
    let games = season();
    let g = steward::store::driver::load_dir(&games.join("web-01"), None).unwrap();
    let last = g.turns.len() as u32 - 1;
    let out = fresh_out("hook");
    // A job that wrote no turn of the game (a refused order): no rebuild.
    steward::site::refresh_after_job(Some(&out), games, &g, last + 1);
    assert!(!out.join("index.html").exists());
    // No `site` setting: no site.
    steward::site::refresh_after_job(None, games, &g, last);
    assert!(!out.join("index.html").exists());
    // A job that wrote a turn: the site.
    steward::site::refresh_after_job(Some(&out), games, &g, last);
    assert!(out.join("race-web-01.html").is_file() && out.join("league-web.html").is_file());
}

/// Issue 50: a public page never shows an e-mail address: not a driver's (their league name, a
/// display name or "car N" stands for it), not in a phrase (the season's phrases name their
/// drivers' addresses: the dice pages withhold them, their SHA-256 shown). Every file the site
/// writes is read.
#[test]
fn no_page_or_asset_shows_an_address() {
    let games = season();
    let out = fresh_out("private");
    steward::site::build(games, &out).unwrap();
    let mut files = vec![out.clone()];
    let (mut read, mut withheld) = (0, 0);
    while let Some(p) = files.pop() {
        if p.is_dir() {
            files.extend(std::fs::read_dir(&p).unwrap().map(|e| e.unwrap().path()));
            continue;
        }
        let text = String::from_utf8_lossy(&std::fs::read(&p).unwrap()).into_owned();
        read += 1;
        withheld += text.matches("withheld: SHA-256").count();
        for (i, line) in text.lines().enumerate() {
            assert!(!steward::words::names::holds_address(line), "{}:{}: {line}", p.display(), i + 1);
        }
    }
    assert!(read >= 7, "{read} files read");
    // The index says what each race is and how it stands, by name.
    let index = std::fs::read_to_string(out.join("index.html")).unwrap();
    for g in ["web-01", "web-02"] {
        let line = index.lines().find(|l| l.contains(&format!("race-{g}.html"))).expect("listed");
        assert!(line.contains("Sprint (two lanes), 1 lap, 4 cars, 20") && line.contains("; over, won by "), "{line}");
    }
    assert!(withheld >= 8, "the season's phrases name addresses: {withheld} withheld");
    // The games themselves do hold the addresses (the check would see them).
    let g = steward::store::Store::new(games.to_path_buf()).load("web-01", None).unwrap();
    assert!(g.now.players.iter().any(|p| steward::words::names::holds_address(&p.address)));
}

/// Issue 50: a 10-car 3-lap race's page loads fast: under 500 KB (it was 3.5 MB with one
/// section a turn), one replay section a round, and an index of the rounds.
#[test]
fn a_ten_car_three_lap_race_page_is_under_500_kb() {
    let games = fresh_out("big-games");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_steward"))
        .args(["sim", "--track", "monaco", "--cars", "10", "--laps", "3", "--seed", "5", "--keep"])
        .arg(&games)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let site = fresh_out("big-site");
    steward::site::build(&games, &site).unwrap();
    let (game, _) = steward::site::scan(&games).unwrap();
    let page = std::fs::read_to_string(site.join(format!("race-{}.html", game[0]))).unwrap();
    let g = steward::store::driver::load_dir(&games.join(&game[0]), None).unwrap();
    let rounds = g.now.race.as_ref().unwrap().state.round as usize;
    assert!(g.now.over && g.turns.len() > 600, "a whole race: {} turns", g.turns.len());
    assert!(page.len() < 500_000, "{} bytes", page.len());
    let sections = page.matches("<section class=\"turn\"").count();
    assert!(sections <= rounds + 2 && sections * 5 < g.turns.len(), "{sections} sections for {rounds} rounds");
    assert!(page.contains("The index: <a href=\"#t"), "the rounds' index");
    let _ = std::fs::remove_dir_all(&games);
    let _ = std::fs::remove_dir_all(&site);
}
