//! `steward site --games DIR --out DIR`: the league's web pages as a static site (plain HTML,
//! the style inline, charts and the board as inline SVG, relative links only), so it works
//! opened from disk and behind any web server (docs/site.md).
//!
//! Rebuilding is incremental: `manifest.txt` in the output directory records, per game, the
//! hash of its last turn file; a game whose last turn is unchanged keeps its pages. The index
//! and the league pages (standings, calendar, league dice) are rebuilt every time, since any
//! race may change them.

pub mod charts;
pub mod html;
pub mod league;
pub mod race;

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use crate::store::StoreError;
use crate::store::hash::sha256_hex;

/// Why the site could not be written.
#[derive(Debug, thiserror::Error)]
pub enum SiteError {
    /// The games directory cannot be listed.
    #[error("cannot read the games directory {dir}: {source}; give an existing directory with --games")]
    Games {
        /// The directory.
        dir: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A page cannot be written.
    #[error("cannot write {path}: {source}; check the --out directory is writable")]
    Write {
        /// The file.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// A game does not load.
    #[error("game {game}: {source}; `steward verify` on it says more")]
    Game {
        /// The game.
        game: String,
        /// Cause.
        source: Box<StoreError>,
    },
    /// A league does not load.
    #[error("league {league}: {source}")]
    League {
        /// The league.
        league: String,
        /// Cause.
        source: Box<crate::league::config::LeagueError>,
    },
}

/// What a build did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Built {
    /// Games whose pages were (re)written.
    pub rebuilt: Vec<String>,
    /// Games whose pages were kept.
    pub kept: Vec<String>,
    /// Leagues written.
    pub leagues: Vec<String>,
}

const MANIFEST: &str = "manifest.txt";

/// The games (directories with `turns/`) and leagues (directories with `league.toml`) under
/// `games`, sorted by name.
pub fn scan(games: &Path) -> Result<(Vec<String>, Vec<String>), SiteError> {
    let rd = fs::read_dir(games).map_err(|source| SiteError::Games { dir: games.into(), source })?;
    let (mut g, mut l) = (Vec::new(), Vec::new());
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let p = e.path();
        if p.join("turns").is_dir() {
            g.push(name);
        } else if p.join("league.toml").is_file() {
            l.push(name);
        }
    }
    g.sort();
    l.sort();
    Ok((g, l))
}

/// The hash of a game's last turn file (its name and bytes): what the manifest records.
pub fn last_turn_hash(dir: &Path) -> Result<String, StoreError> {
    let files = crate::store::verify::read(dir)?;
    let (n, bytes) = files.turns.last().map_or((0, &[][..]), |(n, b)| (*n, &b[..]));
    Ok(format!("{n}:{}", sha256_hex(bytes)))
}

fn read_manifest(out: &Path) -> BTreeMap<String, String> {
    fs::read_to_string(out.join(MANIFEST))
        .unwrap_or_default()
        .lines()
        .filter_map(|l| l.split_once(' ').map(|(a, b)| (a.to_string(), b.to_string())))
        .collect()
}

fn write(path: &Path, text: &str) -> Result<(), SiteError> {
    fs::write(path, text).map_err(|source| SiteError::Write { path: path.into(), source })
}

/// Writes the site for the games under `games` into `out`, rebuilding only the games whose last
/// turn changed since the manifest was written.
pub fn build(games: &Path, out: &Path) -> Result<Built, SiteError> {
    fs::create_dir_all(out).map_err(|source| SiteError::Write { path: out.into(), source })?;
    let (game_names, league_names) = scan(games)?;
    let old = read_manifest(out);
    let mut leagues = BTreeMap::new();
    for l in &league_names {
        let lg = crate::league::config::League::load(games, l)
            .map_err(|source| SiteError::League { league: l.clone(), source: Box::new(source) })?;
        leagues.insert(l.clone(), lg);
    }
    let league_of = |g: &str| leagues.iter().find(|(_, lg)| lg.race_of_game(g).is_some()).map(|(n, _)| n.as_str());
    let mut built = Built::default();
    let mut manifest = BTreeMap::new();
    for g in &game_names {
        let dir = games.join(g);
        let hash =
            last_turn_hash(&dir).map_err(|source| SiteError::Game { game: g.clone(), source: Box::new(source) })?;
        // The manifest keeps each game's last turn hash and the index's line about it.
        let kept = old.get(g).and_then(|v| v.split_once('\t')).filter(|(h, _)| *h == hash).map(|(_, about)| about);
        let fresh = out.join(html::race_href(g)).is_file() && out.join(html::dice_href(g)).is_file();
        let about = match kept.filter(|_| fresh) {
            Some(about) => {
                built.kept.push(g.clone());
                about.to_string()
            }
            None => {
                built.rebuilt.push(g.clone());
                game_pages(games, g, league_of(g), out)?
            }
        };
        manifest.insert(g.clone(), (hash, about));
    }
    for (name, lg) in &leagues {
        let (page, dice) = league::pages(games, lg)
            .map_err(|source| SiteError::League { league: name.clone(), source: Box::new(source) })?;
        write(&out.join(html::league_href(name)), &page)?;
        write(&out.join(html::league_dice_href(name)), &dice)?;
        built.leagues.push(name.clone());
    }
    write(&out.join("index.html"), &index(&manifest, &league_names))?;
    let mut m = String::new();
    for (g, (h, about)) in &manifest {
        let _ = writeln!(m, "{g} {h}\t{about}");
    }
    write(&out.join(MANIFEST), &m)?;
    Ok(built)
}

/// Writes one game's race page and dice page; returns the index's line about it (escaped
/// HTML: the track, laps, cars, start date and how the race stands).
pub fn game_pages(games: &Path, game: &str, league: Option<&str>, out: &Path) -> Result<String, SiteError> {
    let err = |source| SiteError::Game { game: game.into(), source: Box::new(source) };
    let rp = race::replay(&games.join(game)).map_err(err)?;
    write(&out.join(html::race_href(game)), &race::race_page(game, &rp, league))?;
    let dice = race::dice_page(game, games, &rp, league).map_err(err)?;
    write(&out.join(html::dice_href(game)), &dice)?;
    Ok(race::about(&rp))
}

/// The daemon's hook (`site = "DIR"` in steward.toml): when this job wrote turns of game `g`
/// (from `first` on), rebuild the site, so that a league follows a race on its pages while it
/// runs (issue 50: they changed only when a race ended). The rebuild is incremental: only the
/// games whose last turn changed, then the league pages and the index. A site that cannot be
/// written never fails the mail job: the error is printed for the operator, and the next job
/// (or `steward site` by hand) writes it again.
pub fn refresh_after_job(out: Option<&Path>, games: &Path, g: &crate::store::Game, first: u32) {
    let Some(out) = out else { return };
    let wrote = (first as usize) < g.turns.len();
    if wrote && let Err(e) = build(games, out) {
        eprintln!("steward: the web pages in {} were not refreshed: {e}", out.display());
    }
}

fn index(games: &BTreeMap<String, (String, String)>, leagues: &[String]) -> String {
    let mut b = String::new();
    if !leagues.is_empty() {
        b.push_str("<h2 id=\"leagues\">Leagues</h2>\n");
        let leagues: Vec<(String, String)> = leagues.iter().map(|l| (l.clone(), String::new())).collect();
        links_with_dice(&mut b, &leagues, html::league_href, html::league_dice_href);
    }
    b.push_str("<h2 id=\"races\">Races</h2>\n");
    let games: Vec<(String, String)> = games.iter().map(|(g, (_, about))| (g.clone(), about.clone())).collect();
    links_with_dice(&mut b, &games, html::race_href, html::dice_href);
    html::page("Formula Dé by mail: leagues and races", &[], &b, None)
}

/// A list of `names`, each linked to its page and to its dice page, with its line (escaped
/// HTML) after it.
fn links_with_dice(b: &mut String, names: &[(String, String)], page: fn(&str) -> String, dice: fn(&str) -> String) {
    b.push_str("<ul>\n");
    for (n, about) in names {
        let about = if about.is_empty() { String::new() } else { format!(": {about}") };
        let _ = writeln!(
            b,
            "<li><a href=\"{}\">{}</a>{about} (<a href=\"{}\">dice</a>)</li>",
            html::escape(&page(n)),
            html::escape(n),
            html::escape(&dice(n))
        );
    }
    b.push_str("</ul>\n");
}
