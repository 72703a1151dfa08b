//! The frame every page shares: a well-formed HTML5 document with one title, a language, the
//! stylesheet inline (no file to fetch) and a navigation bar of relative links, so the pages
//! work opened from disk and behind any web server.

use std::fmt::Write as _;

pub use crate::render::picture::escape;

const STYLE: &str = "body{font-family:sans-serif;margin:1em auto;max-width:60em;padding:0 1em;color:#222}\
table{border-collapse:collapse;margin:.5em 0;display:block;overflow-x:auto;max-width:100%}td,th{border:1px solid #bbb;padding:2px 6px;text-align:left}\
th{background:#eee}td.n{text-align:right}nav a{margin-right:1em}section.turn{border-top:1px solid #ccc;margin-top:1em}\
.ok{color:#070}.flag{color:#b00;font-weight:bold}code,pre{background:#f4f4f4}code{overflow-wrap:anywhere}pre{padding:.5em;overflow-x:auto}\
svg{max-width:100%;height:auto}";

/// A whole page: `title`, navigation `links` (text, relative href), and the body.
pub fn page(title: &str, links: &[(&str, String)], body: &str, script: Option<&str>) -> String {
    let mut o = String::with_capacity(body.len() + 2048);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>{STYLE}</style>\n</head>\n<body>\n<nav>",
        escape(title)
    );
    for (text, href) in links {
        let _ = write!(o, "<a href=\"{}\">{}</a>", escape(href), escape(text));
    }
    let _ = write!(o, "</nav>\n<h1>{}</h1>\n{body}", escape(title));
    if let Some(s) = script {
        let _ = writeln!(o, "<script>{s}</script>");
    }
    o.push_str("</body>\n</html>\n");
    o
}

/// A table from a header row and rows of cells (already escaped HTML); cells starting with a
/// digit are right-aligned.
pub fn table(head: &[&str], rows: &[Vec<String>]) -> String {
    let mut o = String::from("<table>\n<tr>");
    for h in head {
        let _ = write!(o, "<th>{}</th>", escape(h));
    }
    o.push_str("</tr>\n");
    for r in rows {
        o.push_str("<tr>");
        for c in r {
            let num = c.starts_with(|ch: char| ch.is_ascii_digit() || ch == '=');
            let _ = write!(o, "{}{c}</td>", if num { "<td class=\"n\">" } else { "<td>" });
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n");
    o
}

/// The page name of a game's race page and dice page, and of a league's pages.
pub fn race_href(game: &str) -> String {
    format!("race-{game}.html")
}

/// The dice page of a game.
pub fn dice_href(game: &str) -> String {
    format!("dice-{game}.html")
}

/// The page of a league.
pub fn league_href(league: &str) -> String {
    format!("league-{league}.html")
}

/// The dice page of a league.
pub fn league_dice_href(league: &str) -> String {
    format!("dice-league-{league}.html")
}
