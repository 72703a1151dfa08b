//! A race's pages, read from its stored game: the race page (grid, result, weather, each car's
//! sheet at the end, and the replay round by round: the board picture after the round, its rolls
//! and events, an index of the rounds, one anchor a round with previous/next links, arrow keys
//! with JavaScript) and the
//! dice page (the audit's statistics for this game, the commitment, the seed, the players'
//! contributions and the commands that re-check every roll).

use crate::words::names::public_name;
use std::fmt::Write as _;
use std::path::Path;

use crate::engine::{RaceState, Status};
use crate::render::picture::{self, CarMark, Marks};
use crate::store::hash::hex32;
use crate::store::{Game, StoreError, audit};

use super::charts;
use super::html::{self, escape};

/// The arrow keys move between the turns' anchors; the pages work without it.
const ARROWS: &str = "(function(){var s=[].slice.call(document.querySelectorAll('section.turn'));\
document.addEventListener('keydown',function(e){if(e.key!=='ArrowLeft'&&e.key!=='ArrowRight')return;\
var h=location.hash.slice(1),i=s.findIndex(function(x){return x.id===h;});\
i=e.key==='ArrowRight'?Math.min(i+1,s.length-1):Math.max(i-1,0);if(s[i]){location.hash=s[i].id;}});})();";

/// A game replayed turn by turn: the final game and the race state after each turn (`None`
/// before the race starts).
pub struct Replayed {
    /// The game as it stands.
    pub game: Game,
    /// The race state after each turn, in turn order.
    pub states: Vec<Option<RaceState>>,
}

/// Loads the game in `dir` and replays it once more, keeping each turn's race state.
pub fn replay(dir: &Path) -> Result<Replayed, StoreError> {
    let g = crate::store::driver::load_dir(dir, None)?;
    let (mut r, first) = Game::create(g.track.clone(), &g.turns[0], g.seed)?;
    let next = r.now.clone();
    r.push(first, next, g.hashes[0].clone());
    let mut states = vec![None];
    for (t, hash) in g.turns[1..].iter().zip(&g.hashes[1..]) {
        let (_, next) = r.apply(t)?;
        states.push(next.race.as_ref().map(|x| x.state.clone()));
        // The real hashes: a rollback turn checks the head of the turns it undoes.
        r.push(t.clone(), next, hash.clone());
    }
    Ok(Replayed { game: g, states })
}

fn player_name(g: &Game, number: u8) -> String {
    g.player(number)
        .map_or_else(|| format!("car {number}"), |(_, p)| public_name(p.name.as_deref(), || format!("car {number}")))
}

fn status_text(s: &Status) -> String {
    match s {
        Status::Finished { place } => format!("finished {place}"),
        Status::Eliminated { reason, .. } => format!("out ({reason:?})"),
        other => format!("{other:?}").to_lowercase(),
    }
}

/// The index's line about a race (escaped HTML): its track, laps and cars, the day it was
/// created, and how it stands: not started, under way (the round), or over with its winner.
pub fn about(rp: &Replayed) -> String {
    let g = &rp.game;
    let day = g.turns.first().map(|t| t.at.get(..10).unwrap_or(&t.at).to_string()).unwrap_or_default();
    let laps = if g.setup.laps == 1 { "1 lap".to_string() } else { format!("{} laps", g.setup.laps) };
    let cars = g.now.players.len();
    let stands = match &g.now.race {
        None => "not started".to_string(),
        Some(r) if g.now.over => match r.state.finish_order.first() {
            Some(&c) => format!("over, won by {}", player_name(g, r.state.car(c).number)),
            None => "over, nobody finished".to_string(),
        },
        Some(r) => format!("under way, round {}", r.state.round),
    };
    escape(&format!("{}, {laps}, {cars} car{}, {day}; {stands}", g.track.title, if cars == 1 { "" } else { "s" }))
}

/// The marks of one race state: cars still on the board, stickers.
pub fn marks(s: &RaceState) -> Marks {
    let cars = s
        .cars
        .iter()
        .filter(|c| !matches!(c.status, Status::Eliminated { removed: true, .. } | Status::Withdrawn))
        .map(|c| CarMark {
            number: c.number,
            space: c.space,
            running: !matches!(c.status, Status::Finished { .. } | Status::Eliminated { .. }),
        })
        .collect();
    Marks { cars, dangerous: s.dangerous.clone(), options: Vec::new() }
}

/// The race page.
pub fn race_page(game: &str, rp: &Replayed, league: Option<&str>) -> String {
    let g = &rp.game;
    let mut b = String::new();
    let weather = g.setup.weather.as_deref().unwrap_or("track");
    let wet = g.now.race.as_ref().map(|r| if r.state.wet { "wet" } else { "dry" });
    let _ = writeln!(
        b,
        "<p>{} ({}), rules {}; weather setting {}{}; {}.</p>",
        escape(&g.track.title),
        if g.setup.laps == 1 { "1 lap".to_string() } else { format!("{} laps", g.setup.laps) },
        escape(&g.setup.profile),
        escape(weather),
        wet.map(|w| format!(", the track {w}")).unwrap_or_default(),
        if g.now.over { "race over" } else { "race under way" }
    );
    b.push_str("<h2 id=\"grid\">Grid</h2>\n");
    let rows: Vec<Vec<String>> = g
        .now
        .players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            vec![
                (i + 1).to_string(),
                p.car.to_string(),
                escape(&public_name(p.name.as_deref(), || format!("car {}", p.car))),
                if p.bot { "bot".into() } else { "player".into() },
                escape(&p.tyres),
            ]
        })
        .collect();
    b.push_str(&html::table(&["pos", "car", "driver", "driven by", "tyres"], &rows));
    if let Some(race) = &g.now.race {
        b.push_str("<h2 id=\"result\">Result and car sheets</h2>\n");
        let mut cars: Vec<_> = race.state.cars.iter().filter(|c| !c.backmarker).collect();
        cars.sort_by_key(|c| match c.status {
            Status::Finished { place } => (0, u32::from(place)),
            _ => (1, u32::MAX - u32::from(c.crossings)),
        });
        let rows: Vec<Vec<String>> = cars
            .iter()
            .map(|c| {
                let w = &c.wear;
                vec![
                    c.number.to_string(),
                    escape(&player_name(g, c.number)),
                    escape(&status_text(&c.status)),
                    w.tyres.to_string(),
                    w.brakes.to_string(),
                    w.gas.to_string(),
                    w.body.to_string(),
                    w.engine.to_string(),
                    w.handling.to_string(),
                    c.gear.to_string(),
                ]
            })
            .collect();
        b.push_str(&html::table(
            &["car", "driver", "status", "tyres", "brakes", "gas", "body", "engine", "handling", "gear"],
            &rows,
        ));
        b.push_str("<h2 id=\"replay\">Replay</h2>\n<p>One section per round of play: the board after it, then the round's rolls and events; the arrow keys move between them. The index: ");
        let _ = writeln!(
            b,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"0\" height=\"0\" aria-hidden=\"true\"><defs><g id=\"track\">{}</g></defs></svg>",
            picture::track(&g.track)
        );
        // The race's turns grouped by round of play (issue 50: one section a turn made a 10-car
        // 3-lap race's page 3.5 MB); a section is named by its last turn, `#t<turn>`.
        let turns: Vec<usize> = (0..g.turns.len()).filter(|&i| rp.states[i].is_some()).collect();
        let mut rounds: Vec<(u32, Vec<usize>)> = Vec::new();
        for &i in &turns {
            let round = rp.states[i].as_ref().map_or(0, |s| s.round);
            match rounds.last_mut() {
                Some((r, v)) if *r == round => v.push(i),
                _ => rounds.push((round, vec![i])),
            }
        }
        let id = |k: usize| g.turns[*rounds[k].1.last().expect("a round has a turn")].turn;
        let index: Vec<String> =
            (0..rounds.len()).map(|k| format!("<a href=\"#t{}\">{}</a>", id(k), rounds[k].0)).collect();
        // The index sits in the paragraph opened above.
        let at = b.rfind("The index: ").expect("written above") + "The index: ".len();
        b.insert_str(at, &format!("{}.</p>\n", index.join(" ")));
        for (k, (round, group)) in rounds.iter().enumerate() {
            let last = *group.last().expect("a round has a turn");
            let s = rp.states[last].as_ref().expect("filtered");
            let first = g.turns[group[0]].turn;
            let turns_text = if group.len() == 1 {
                format!("turn {first}")
            } else {
                format!("turns {first}-{}", g.turns[last].turn)
            };
            let laps = s.cars.iter().filter(|c| !c.backmarker).map(|c| c.crossings).max().unwrap_or(0);
            let _ = write!(
                b,
                "<section class=\"turn\" id=\"t{}\">\n<h3>Round {round} ({turns_text}; leader on lap {})</h3>\n<p>",
                g.turns[last].turn,
                laps.clamp(1, g.setup.laps.max(1))
            );
            if k > 0 {
                let _ = write!(b, "<a href=\"#t{}\">previous</a> ", id(k - 1));
            }
            if k + 1 < rounds.len() {
                let _ = write!(b, "<a href=\"#t{}\">next</a>", id(k + 1));
            }
            b.push_str("</p>\n");
            // The picture of the mails, its track drawn once per page and referred to.
            b.push_str(&picture::open(&format!("{} after round {round}", g.track.title)));
            b.push_str("<use href=\"#track\"/>");
            b.push_str(&picture::overlay(&g.track, &marks(s)));
            b.push_str("</svg>\n");
            let rolls: Vec<String> = group
                .iter()
                .flat_map(|&i| &g.turns[i].rolls)
                .map(|r| format!("{} <code>{}</code> {}", escape(&r.die), escape(&r.label), r.value))
                .collect();
            if !rolls.is_empty() {
                let _ = writeln!(b, "<p>Rolls: {}</p>", rolls.join("; "));
            }
            let events: Vec<String> = group
                .iter()
                .flat_map(|&i| &g.turns[i].events)
                // Who is called to play is the order of the round, which the rolls show.
                .filter(|e| !(e.text.ends_with(" to play") || e.text.starts_with("round ")))
                .map(|e| {
                    format!(
                        "<li>{} <small>({})</small></li>",
                        escape(&crate::store::show::shown(&e.text)),
                        escape(&e.article)
                    )
                })
                .collect();
            if !events.is_empty() {
                let _ = writeln!(b, "<ul>\n{}\n</ul>", events.join("\n"));
            }
            b.push_str("</section>\n");
        }
    }
    let mut links = vec![("index", "index.html".to_string())];
    if let Some(l) = league {
        links.push(("league", html::league_href(l)));
    }
    links.push(("dice", html::dice_href(game)));
    html::page(&format!("Race {game}"), &links, &b, Some(ARROWS))
}

/// The statistics of every die, as charts with their numbers and verdicts.
pub fn dice_sections(dirs: &[std::path::PathBuf]) -> Result<String, StoreError> {
    let by_die = audit::collect(dirs)?;
    let mut b = String::new();
    let total: usize = by_die.values().map(|r| r.values.len()).sum();
    let _ = writeln!(b, "<p>{total} rolls. Each test flags a result below p = {}.</p>", audit::FLAG_BELOW);
    let mut names: Vec<&String> = by_die.keys().collect();
    names.sort_by_key(|n| {
        audit::die_named(n).map_or((2, 0), |d| match d {
            crate::engine::Die::Gear(g) => (0, g),
            crate::engine::Die::Black => (1, 0),
        })
    });
    for name in names {
        let r = audit::analyse(name, &by_die[name]);
        let _ = writeln!(b, "<h3 id=\"die-{}\">{}</h3>", escape(&r.die), escape(&r.die));
        b.push_str(&charts::die_bars(&r));
        let _ = writeln!(
            b,
            "\n<p>{} rolls; chi-square {:.2} on {} degree(s) of freedom, p = {:.3}; longest run {} × {} (p = {:.3}). Bars: counts rolled; red lines: counts expected from the real faces.</p>",
            r.n, r.chi2, r.dof, r.p, r.run.1, r.run.0, r.run_p
        );
        if r.flags.is_empty() {
            b.push_str("<p class=\"ok\">Verdict: nothing improbable; these rolls look like fair dice.</p>\n");
        } else {
            for f in &r.flags {
                let _ = writeln!(b, "<p class=\"flag\">Verdict: {}</p>", escape(f));
            }
        }
    }
    Ok(b)
}

/// A player's phrase as a public page shows it: as written, unless it names an e-mail address
/// (a page never shows one, issue 50): then its SHA-256 alone.
fn public_phrase(phrase: &str) -> String {
    if crate::words::names::holds_address(phrase) {
        format!("withheld: SHA-256 <code>{}</code>", crate::store::hash::sha256_hex(phrase.as_bytes()))
    } else {
        format!("<code>{}</code>", escape(phrase))
    }
}

/// The dice page of a game: commitment, seed, contributions, statistics and commands.
pub fn dice_page(game: &str, games_dir: &Path, rp: &Replayed, league: Option<&str>) -> Result<String, StoreError> {
    let g = &rp.game;
    let mut b = String::new();
    let _ = writeln!(
        b,
        "<p>Dice scheme <code>{}</code> (docs/dice.md). Commitment: <code>{}</code>.</p>",
        escape(g.scheme().name()),
        escape(&g.setup.commitment)
    );
    match &g.now.revealed {
        Some(seed) => {
            let _ = writeln!(b, "<p>Revealed seed: <code>{}</code>.</p>", hex32(seed));
        }
        None => b.push_str(
            "<p class=\"flag\">The seed is not yet revealed: the rolls can be re-checked once the race is over.</p>\n",
        ),
    }
    // What the files cannot prove, and what the moderator undid (docs/dice.md, 3a and 6).
    b.push_str("<h2 id=\"trust\">What to check yourself</h2>\n<ul>\n");
    for line in crate::store::verify::trust_lines(g) {
        let class =
            if line.starts_with("no public beacon") || line.starts_with("rollback") { " class=\"flag\"" } else { "" };
        let _ = writeln!(b, "<li{class}>{}</li>", escape(&line));
    }
    b.push_str("</ul>\n<p>The statistics below count the rolls of the race as it was played: the rolls of turns a rollback undid are listed above, not counted.</p>\n");
    // Every moderator act, where every player can see it (issue 45, ruling 52).
    b.push_str("<h2 id=\"moderator\">What the moderators did</h2>\n");
    let acts: Vec<Vec<String>> = crate::store::verify::moderator_acts(g)
        .into_iter()
        .map(|(turn, at, what)| vec![turn.to_string(), escape(&at), escape(&what)])
        .collect();
    if acts.is_empty() {
        b.push_str("<p>No moderator act yet.</p>\n");
    } else {
        b.push_str(&html::table(&["turn", "time", "act"], &acts));
    }
    b.push_str("<h2 id=\"contributions\">The key's contributions</h2>\n");
    let mut rows = Vec::new();
    for t in &g.turns {
        for c in &t.contributions {
            rows.push(vec![t.turn.to_string(), c.car.to_string(), public_phrase(&c.entropy)]);
        }
    }
    if rows.is_empty() {
        b.push_str("<p>No player contributed a phrase.</p>\n");
    } else if rows.iter().any(|r| r[2].starts_with("withheld")) {
        b.push_str("<p>A phrase that names an e-mail address is withheld here (no page shows an address); its SHA-256 stands for it, and its player, who holds the phrase and their mails, checks their rolls with it.</p>\n");
        b.push_str(&html::table(&["turn", "car", "phrase"], &rows));
    } else {
        b.push_str(&html::table(&["turn", "car", "phrase"], &rows));
    }
    b.push_str("<h2 id=\"dice\">Every die</h2>\n");
    b.push_str(&dice_sections(&[games_dir.join(game)])?);
    // The commands as a member runs them on their own machine (issue 50: they named the
    // server's folders): the game's folder is not published, its turn files name the players'
    // addresses.
    let _ = writeln!(
        b,
        "<h2 id=\"check\">Check every roll</h2>\n<p>A player checks every roll they were mailed with nothing but their own mails (PATH: their Maildir folder or mbox file):</p>\n<pre>steward verify --mail PATH</pre>\n<p>With a copy of the game's folder (GAMES/{game}, which the league's moderator can send: it is not published here, as its turn files name the players' addresses), anyone replays the game and re-derives every roll, the second command independently of steward:</p>\n<pre>steward verify --games GAMES {game}\npython3 tools/verify_game.py GAMES/{game}</pre>",
        game = escape(game)
    );
    let mut links = vec![("index", "index.html".to_string()), ("race", html::race_href(game))];
    if let Some(l) = league {
        links.push(("league", html::league_href(l)));
    }
    Ok(html::page(&format!("Dice of {game}"), &links, &b, None))
}
