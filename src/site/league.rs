//! A league's pages: the drivers' and constructors' standings with their tie-breaks (the
//! countback columns, shared ranks marked `=`), the calendar, each race's result with links to
//! its pages, and the league's dice page (every race's rolls pooled).

use std::fmt::Write as _;
use std::path::Path;

use crate::league::classification::Ending;
use crate::league::config::{League, LeagueError};
use crate::league::results;

use super::html::{self, escape};

fn rank(r: u32, shared: bool) -> String {
    if shared { format!("={r}") } else { r.to_string() }
}

/// The league page and the league's dice page.
pub fn pages(games: &Path, l: &League) -> Result<(String, String), LeagueError> {
    let res = results::results(games, l)?;
    let s = results::league_standings(games, l)?;
    let entrants = l.entrants();
    let name_of = |a: &str| {
        entrants
            .iter()
            .find(|e| e.driver.eq_ignore_ascii_case(a))
            .map_or_else(|| "driver".to_string(), |e| e.name.clone())
    };
    let mut b = String::new();
    let counted = l.scoring.counted.map(|n| format!(", best {n} count")).unwrap_or_default();
    let _ = writeln!(b, "<p>Standings after {} of {} races{counted}.</p>", s.races_run, l.races.len());
    b.push_str("<h2 id=\"drivers\">Drivers</h2>\n");
    let rows: Vec<Vec<String>> = s
        .drivers
        .iter()
        .map(|d| {
            let shared = s.drivers.iter().filter(|e| e.rank == d.rank).count() > 1;
            let p = |i: usize| d.places.get(i).copied().unwrap_or(0).to_string();
            vec![
                rank(d.rank, shared),
                escape(&d.name),
                escape(d.team.as_deref().unwrap_or("")),
                d.points.to_string(),
                d.gross.to_string(),
                p(0),
                p(1),
                p(2),
            ]
        })
        .collect();
    b.push_str(&html::table(&["pos", "driver", "team", "points", "gross", "1st", "2nd", "3rd"], &rows));
    b.push_str("<p>Ties are broken by countback: more wins, then more second places, and so on; a tie that remains is shared (=).</p>\n");
    if !s.teams.is_empty() {
        b.push_str("<h2 id=\"constructors\">Constructors</h2>\n");
        let rows: Vec<Vec<String>> = s
            .teams
            .iter()
            .map(|t| {
                let shared = s.teams.iter().filter(|e| e.rank == t.rank).count() > 1;
                let p = |i: usize| t.places.get(i).copied().unwrap_or(0).to_string();
                vec![rank(t.rank, shared), escape(&t.team), t.points.to_string(), p(0), p(1), p(2)]
            })
            .collect();
        b.push_str(&html::table(&["pos", "team", "points", "1st", "2nd", "3rd"], &rows));
    }
    b.push_str("<h2 id=\"calendar\">Calendar</h2>\n");
    let rows: Vec<Vec<String>> = l
        .races
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let run = games.join(&r.game).join("turns").is_dir();
            let winner = res
                .iter()
                .find(|x| x.0 == i + 1)
                .and_then(|x| x.1.iter().find(|p| p.place == 1))
                .map(|p| escape(&name_of(&p.driver)))
                .unwrap_or_default();
            vec![
                (i + 1).to_string(),
                escape(&r.track),
                r.laps.to_string(),
                escape(r.grid.name()),
                if run {
                    format!(
                        "<a href=\"{}\">{}</a> (<a href=\"{}\">dice</a>)",
                        escape(&html::race_href(&r.game)),
                        escape(&r.game),
                        escape(&html::dice_href(&r.game))
                    )
                } else {
                    format!("{} (not run)", escape(&r.game))
                },
                winner,
            ]
        })
        .collect();
    b.push_str(&html::table(&["race", "track", "laps", "grid", "game", "winner"], &rows));
    b.push_str("<h2 id=\"results\">Results</h2>\n");
    for (n, placed) in &res {
        let game = &l.races[n - 1].game;
        let _ = writeln!(
            b,
            "<h3 id=\"race-{n}\">Race {n}: <a href=\"{}\">{}</a></h3>",
            escape(&html::race_href(game)),
            escape(game)
        );
        let rows: Vec<Vec<String>> = placed
            .iter()
            .map(|p| {
                let how = match p.ending {
                    Ending::Finished => "finished".to_string(),
                    Ending::Running => "running".to_string(),
                    Ending::Dnf { round } => format!("out in round {round}"),
                };
                vec![p.place.to_string(), escape(&name_of(&p.driver)), how, l.scoring().points_for(p).to_string()]
            })
            .collect();
        b.push_str(&html::table(&["place", "driver", "", "points"], &rows));
    }
    let season = if l.season.is_empty() { String::new() } else { format!(" {}", l.season) };
    let title = format!("{}{season}", l.name);
    let links = [("index", "index.html".to_string()), ("dice", html::league_dice_href(&l.name))];
    let page = html::page(&title, &links, &b, None);

    let dirs: Vec<_> = l.races.iter().map(|r| games.join(&r.game)).filter(|d| d.join("turns").is_dir()).collect();
    let mut d = String::new();
    let _ = writeln!(d, "<p>The rolls of the {} race(s) run, pooled per die.</p>", dirs.len());
    d.push_str(
        &super::race::dice_sections(&dirs).map_err(|source| LeagueError::Store { game: l.name.clone(), source })?,
    );
    d.push_str("<h2 id=\"check\">Check every roll</h2>\n<p>Each race's dice page gives its commitment, seed, and the commands that re-check it.</p>\n<ul>\n");
    for r in &l.races {
        if games.join(&r.game).join("turns").is_dir() {
            let _ = writeln!(d, "<li><a href=\"{}\">{}</a></li>", escape(&html::dice_href(&r.game)), escape(&r.game));
        }
    }
    d.push_str("</ul>\n");
    let links = [("index", "index.html".to_string()), ("league", html::league_href(&l.name))];
    let dice = html::page(&format!("Dice of {title}"), &links, &d, None);
    Ok((page, dice))
}
