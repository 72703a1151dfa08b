//! The board as a picture (SVG): one drawing for the web pages and, rasterised later, for the
//! mails. A pure function of the track and the cars: no clock, no file, same input, same bytes.
//!
//! The shipped TOML tracks carry no coordinates, so the drawing is derived from what they do
//! carry: each racing space sits on a loop at the angle of its progress along the lap
//! (`Space::progress / Track::lap_length`) and at the radius of its lane (lane 0, the left of
//! the direction of travel, outermost, since the loop runs clockwise). Corners are shaded, the
//! pit lane runs inside the loop, the finish line is the top of the loop. Cars are numbered
//! discs; dangerous spaces (debris, oil: `RaceState::dangerous`) carry a red sticker; the
//! destinations of a pending roll may be lettered.

use std::f64::consts::PI;
use std::fmt::Write as _;

use crate::track::{SpaceIdx, Track};

/// A car on the picture.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CarMark {
    /// The car's number, shown on its disc.
    pub number: u8,
    /// Where it stands.
    pub space: SpaceIdx,
    /// Still in the race (drawn filled) or out / finished (drawn hollow).
    pub running: bool,
}

/// What goes on the board besides the track.
#[derive(Clone, Debug, Default)]
pub struct Marks {
    /// The cars.
    pub cars: Vec<CarMark>,
    /// Dangerous spaces (stickers).
    pub dangerous: Vec<SpaceIdx>,
    /// Lettered destinations of options: label, space.
    pub options: Vec<(String, SpaceIdx)>,
}

/// Side of the square picture, in SVG user units.
pub const SIZE: f64 = 600.0;
const CENTRE: f64 = SIZE / 2.0;
const OUTER: f64 = 270.0;
const LANE: f64 = 16.0;

/// Where space `s` is drawn: its centre.
pub fn position(t: &Track, s: SpaceIdx) -> (f64, f64) {
    let sp = &t.spaces[s.get()];
    let lap = f64::from(t.lap_length.max(1));
    let angle = 2.0 * PI * f64::from(sp.progress % t.lap_length.max(1)) / lap;
    let radius =
        if sp.in_pit_lane() { OUTER - LANE * (f64::from(t.lanes) + 0.8) } else { OUTER - LANE * f64::from(sp.lane) };
    (CENTRE + radius * angle.sin(), CENTRE - radius * angle.cos())
}

fn r1(x: f64) -> f64 {
    (x * 10.0).round() / 10.0
}

/// The whole track with its marks, as a standalone SVG document (`<svg>` element).
pub fn svg(t: &Track, marks: &Marks, title: &str) -> String {
    let mut o = open(title);
    o.push_str(&track(t));
    o.push_str(&overlay(t, marks));
    o.push_str("</svg>");
    o
}

/// The opening `<svg>` tag and its title.
pub fn open(title: &str) -> String {
    format!(
        r#"<svg xmlns="http://www.w3.org/2000/svg" class="board" viewBox="0 0 {SIZE} {SIZE}" width="{SIZE}" height="{SIZE}" role="img"><title>{}</title>"#,
        escape(title)
    )
}

/// The track alone (the same for every turn): a page showing many turns draws it once and
/// refers to it (`<use>`).
pub fn track(t: &Track) -> String {
    let mut o = String::with_capacity(64 * t.spaces.len() + 1024);
    o.push_str(r##"<rect width="600" height="600" fill="#4a7c3a"/>"##);
    let r = LANE / 2.0 - 1.0;
    for (i, sp) in t.spaces.iter().enumerate() {
        let (x, y) = position(t, SpaceIdx(i as u16));
        let fill = if sp.in_pit_lane() {
            "#b8b8b8"
        } else if sp.corner.is_some() {
            "#e8c8c8"
        } else {
            "#d8d8d8"
        };
        let _ = write!(
            o,
            r##"<circle cx="{}" cy="{}" r="{r}" fill="{fill}" stroke="#555" stroke-width="0.5"/>"##,
            r1(x),
            r1(y)
        );
    }
    // The finish line: the top of the loop.
    let _ = write!(
        o,
        r##"<line x1="{CENTRE}" y1="{}" x2="{CENTRE}" y2="{}" stroke="#000" stroke-width="3" stroke-dasharray="3 3"/>"##,
        CENTRE - OUTER - LANE,
        CENTRE - OUTER + LANE * f64::from(t.lanes)
    );
    // Each corner's number and required stops (7-1-1), outside its first space.
    for c in &t.corners {
        if let Some(first) = c.spaces.first() {
            let (x, y) = position(t, *first);
            let (dx, dy) = (x - CENTRE, y - CENTRE);
            let len = (dx * dx + dy * dy).sqrt().max(1.0);
            let (lx, ly) = (CENTRE + dx / len * (OUTER + 20.0), CENTRE + dy / len * (OUTER + 20.0));
            let _ = write!(
                o,
                r##"<text x="{}" y="{}" font-size="12" text-anchor="middle" dominant-baseline="middle" fill="#fff">{}·{}</text>"##,
                r1(lx),
                r1(ly),
                c.number,
                c.stops
            );
        }
    }
    o
}

/// What changes turn by turn: stickers, lettered options, cars.
pub fn overlay(t: &Track, marks: &Marks) -> String {
    let mut o = String::new();
    for d in &marks.dangerous {
        let (x, y) = position(t, *d);
        let _ = write!(
            o,
            r##"<rect class="sticker" x="{}" y="{}" width="7" height="7" fill="#d00"/>"##,
            r1(x - 3.5),
            r1(y - 3.5)
        );
    }
    for (label, s) in &marks.options {
        let (x, y) = position(t, *s);
        let _ = write!(
            o,
            r##"<text class="option" x="{}" y="{}" font-size="11" font-weight="bold" text-anchor="middle" dominant-baseline="central" fill="#004">{}</text>"##,
            r1(x),
            r1(y),
            escape(label)
        );
    }
    for c in &marks.cars {
        let (x, y) = position(t, c.space);
        let (fill, ink) = if c.running { (car_colour(c.number), "#fff") } else { ("#fff", "#000") };
        let _ = write!(
            o,
            r##"<g class="car"><circle cx="{x}" cy="{y}" r="{}" fill="{fill}" stroke="#000"/><text x="{x}" y="{y}" font-size="9" text-anchor="middle" dominant-baseline="central" fill="{ink}">{}</text></g>"##,
            LANE / 2.0 + 1.0,
            c.number,
            x = r1(x),
            y = r1(y),
        );
    }
    o
}

/// A fixed colour per car number.
fn car_colour(n: u8) -> &'static str {
    const C: [&str; 10] = ["#c00", "#06c", "#080", "#a0a", "#d60", "#066", "#660", "#333", "#909", "#06a"];
    C[usize::from(n) % C.len()]
}

/// Text escaped for XML and HTML.
pub fn escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '&' => o.push_str("&amp;"),
            '<' => o.push_str("&lt;"),
            '>' => o.push_str("&gt;"),
            '"' => o.push_str("&quot;"),
            '\'' => o.push_str("&#39;"),
            c => o.push(c),
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_input_same_bytes_and_one_disc_per_car() {
        let t = crate::track::load::resolve("sprint").expect("shipped track");
        let marks = Marks {
            cars: vec![
                CarMark { number: 3, space: t.grid[0], running: true },
                CarMark { number: 7, space: t.grid[1], running: false },
            ],
            dangerous: vec![t.grid[2]],
            options: vec![("A".into(), t.grid[3])],
        };
        let a = svg(&t, &marks, "t <1>");
        assert_eq!(a, svg(&t, &marks, "t <1>"));
        assert_eq!(a.matches(r#"class="car""#).count(), 2);
        assert_eq!(a.matches(r#"class="sticker""#).count(), 1);
        assert!(a.contains("t &lt;1&gt;"));
        assert_eq!(a.matches("<circle").count(), t.spaces.len() + 2);
    }
}
