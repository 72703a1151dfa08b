//! The standings as plain text for mail replies (at most 78 columns, monospace) and as JSON for
//! `steward league standings --json`.

use std::fmt::Write as _;

use super::config::League;
use super::scoring::Standings;

/// Widest line of the table.
pub const WIDTH: usize = 78;

fn cut(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { s.chars().take(n - 1).chain(['~']).collect() }
}

fn rank(r: u32, shared: bool) -> String {
    if shared { format!("={r}") } else { r.to_string() }
}

/// Half points as text: `2`, `2.5`.
fn halves(h: u32) -> String {
    if h.is_multiple_of(2) { (h / 2).to_string() } else { format!("{}.5", h / 2) }
}

/// The drivers' and constructors' tables (`dp`: the 002 driver points earned).
pub fn text(league: &League, s: &Standings) -> String {
    let mut o = String::new();
    let season = if league.season.is_empty() { String::new() } else { format!(" {}", league.season) };
    let counted = match league.scoring.counted {
        Some(n) => format!(", best {n} count"),
        None => String::new(),
    };
    let _ = writeln!(
        o,
        "{}{season}: standings after {} of {} races{counted}",
        league.name,
        s.races_run,
        league.races.len()
    );
    let _ = writeln!(o);
    let _ = writeln!(o, "DRIVERS");
    let _ = writeln!(
        o,
        "{:>4}  {:<24} {:<12} {:>5} {:>5} {:>3} {:>3} {:>3} {:>3} {:>4}",
        "pos", "driver", "team", "pts", "gross", "1st", "2nd", "3rd", "st", "dp"
    );
    for d in &s.drivers {
        let shared = s.drivers.iter().filter(|e| e.rank == d.rank).count() > 1;
        let p = |i: usize| d.places.get(i).copied().unwrap_or(0);
        let starts = d.races.iter().filter(|r| r.0.is_some()).count();
        let _ = writeln!(
            o,
            "{:>4}  {:<24} {:<12} {:>5} {:>5} {:>3} {:>3} {:>3} {:>3} {:>4}",
            rank(d.rank, shared),
            cut(&d.name, 24),
            cut(d.team.as_deref().unwrap_or("-"), 12),
            d.points,
            d.gross,
            p(0),
            p(1),
            p(2),
            starts,
            halves(d.driver_points_halves)
        );
    }
    let _ = writeln!(o, "  pts: results that count; gross: all; st: starts; dp: driver points (002)");
    if !s.teams.is_empty() {
        let _ = writeln!(o);
        let _ = writeln!(o, "CONSTRUCTORS");
        let _ = writeln!(o, "{:>4}  {:<41} {:>5} {:>3} {:>3} {:>3}", "pos", "team", "pts", "1st", "2nd", "3rd");
        for t in &s.teams {
            let shared = s.teams.iter().filter(|e| e.rank == t.rank).count() > 1;
            let p = |i: usize| t.places.get(i).copied().unwrap_or(0);
            let _ = writeln!(
                o,
                "{:>4}  {:<41} {:>5} {:>3} {:>3} {:>3}",
                rank(t.rank, shared),
                cut(&t.team, 41),
                t.points,
                p(0),
                p(1),
                p(2)
            );
        }
    }
    o
}

/// The standings as pretty JSON.
pub fn json(s: &Standings) -> String {
    serde_json::to_string_pretty(s).unwrap_or_default()
}
