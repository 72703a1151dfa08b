//! The board as a picture (SVG): the whole track for the web pages and, rasterised to PNG, the
//! stretch around the mover for the mails. A pure function of the track and the cars: no clock,
//! no file, same input, same bytes.
//!
//! Spaces are drawn where [`Layout`] puts them: an imported track at its own coordinates, a
//! track authored as segments on a drawing computed from them. Corners are shaded, the pit lane
//! darker, the finish line dashed across the lanes, each corner labelled with its number and
//! required stops (7-1-1). Cars are numbered discs; dangerous spaces (debris, oil:
//! `RaceState::dangerous`) carry a red sticker; the destinations of a pending roll are lettered.
//! The web pages write with SVG text (the browser's fonts); the mails' picture draws every
//! letter as strokes ([`glyphs`]), so that no installed font changes a pixel.

mod labels;
mod mail;

use std::fmt::Write as _;

use super::glyphs;
use super::layout::Layout;
use crate::track::{SpaceIdx, Track};

pub use labels::{Disc, Label, Placement, Rect};
pub use mail::{ZOOMS, forget_grounds, mail_placement, mail_png, mail_svg, whole_png};

/// The mails' picture's grass, where nothing of the track is drawn.
pub(super) const GRASS: (u8, u8, u8) = (0x4a, 0x7c, 0x3a);

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

/// Side of the square picture of the web pages, in SVG user units.
pub const SIZE: f64 = 600.0;

/// The mails' picture: width and height in pixels.
pub const MAIL_SIZE: (u32, u32) = (600, 400);

/// A layout placed in a picture: the spaces' centres in picture units.
pub struct View {
    at: Vec<(f64, f64)>,
    /// Where each corner's flag stands, by corner ([`Layout::flags`]).
    flags: Vec<Option<(f64, f64)>>,
    /// The distance between neighbouring spaces, in picture units.
    unit: f64,
    width: f64,
    height: f64,
    /// The picture's top left corner: (0, 0) but for a tile of a ground ([`ground_tile`]).
    origin: (f64, f64),
    /// How far, in units, beyond the picture's edge a corner's flag or the finish line's end
    /// may stand and still be drawn (the parts of it that reach the picture): 1 but for a tile
    /// of a ground. A space is drawn within a unit (its disc is under half a unit wide).
    reach: f64,
}

impl View {
    /// The whole track in a `width` × `height` picture.
    pub fn whole(t: &Track, width: f64, height: f64) -> View {
        let l = Layout::of(t);
        // The spaces and the corners' flags, whole.
        let (x0, y0, x1, y1) = l.flags.iter().zip(&t.corners).filter_map(|(f, c)| f.map(|p| (p, c.number))).fold(
            l.bounds(),
            |(a, b, c, d), ((x, y), number)| {
                let (bx0, by0, bx1, by1) = super::layout::flag_box(number, l.spacing);
                (a.min(x + bx0), b.min(y + by0), c.max(x + bx1), d.max(y + by1))
            },
        );
        let margin = l.spacing;
        let scale = ((width / (x1 - x0 + 2.0 * margin)).min(height / (y1 - y0 + 2.0 * margin))).max(1e-6);
        let (cx, cy) = ((x0 + x1) / 2.0, (y0 + y1) / 2.0);
        View::place(&l, scale, cx, cy, width, height)
    }

    /// The stretch of track around `spaces` (the first one, the mover, and the destinations
    /// offered) in a `width` × `height` picture: at the largest of the [`ZOOMS`] that shows them
    /// all (the smallest when none does), the layout's origin on a whole pixel, so that the
    /// picture is a cut-out of its track's ground at that zoom ([`backdrop`]). Returns the
    /// view, its zoom (an index in [`ZOOMS`]) and where it puts the layout's origin.
    fn around(l: &Layout, spaces: &[SpaceIdx], width: f64, height: f64) -> (View, usize, (i64, i64)) {
        let pts: Vec<(f64, f64)> = spaces.iter().map(|&s| l.get(s)).collect();
        let (x0, y0, x1, y1) = if pts.is_empty() {
            l.bounds()
        } else {
            pts.iter().fold((f64::MAX, f64::MAX, f64::MIN, f64::MIN), |(a, b, c, d), &(x, y)| {
                (a.min(x), b.min(y), c.max(x), d.max(y))
            })
        };
        let margin = 2.0 * l.spacing;
        let fit = (width / (x1 - x0 + 2.0 * margin)).min(height / (y1 - y0 + 2.0 * margin)) * l.spacing;
        let zoom = ZOOMS.iter().position(|&z| z <= fit).unwrap_or(ZOOMS.len() - 1);
        let scale = ZOOMS[zoom] / l.spacing;
        let shift = (
            (width / 2.0 - (x0 + x1) / 2.0 * scale).round() as i64,
            (height / 2.0 - (y0 + y1) / 2.0 * scale).round() as i64,
        );
        (View::shifted(l, scale, shift, width, height), zoom, shift)
    }

    /// `l` at `scale`, its origin at pixel `shift`.
    fn shifted(l: &Layout, scale: f64, shift: (i64, i64), width: f64, height: f64) -> View {
        let (sx, sy) = (shift.0 as f64, shift.1 as f64);
        let to = |(x, y): (f64, f64)| (x * scale + sx, y * scale + sy);
        let at = l.at.iter().map(|&p| to(p)).collect();
        let flags = l.flags.iter().map(|f| f.map(to)).collect();
        View { at, flags, unit: l.spacing * scale, width, height, origin: (0.0, 0.0), reach: 1.0 }
    }

    fn place(l: &Layout, scale: f64, cx: f64, cy: f64, width: f64, height: f64) -> View {
        let to = |(x, y): (f64, f64)| ((x - cx) * scale + width / 2.0, (y - cy) * scale + height / 2.0);
        let at = l.at.iter().map(|&p| to(p)).collect();
        let flags = l.flags.iter().map(|f| f.map(to)).collect();
        View { at, flags, unit: l.spacing * scale, width, height, origin: (0.0, 0.0), reach: 1.0 }
    }

    /// Where space `s` is drawn: its centre.
    pub fn position(&self, s: SpaceIdx) -> (f64, f64) {
        self.at[s.get()]
    }

    /// Whether a space's disc (or a car's) centred at `p` may show: within a unit of the edge.
    fn shows(&self, p: (f64, f64)) -> bool {
        self.within(p, 1.0)
    }

    /// Whether a flag placed at `p`, or the finish line ending there, may show: within
    /// [`View::reach`] units of the edge.
    fn reaches(&self, p: (f64, f64)) -> bool {
        self.within(p, self.reach)
    }

    fn within(&self, (x, y): (f64, f64), units: f64) -> bool {
        let m = self.unit * units;
        let (x, y) = (x - self.origin.0, y - self.origin.1);
        x > -m && y > -m && x < self.width + m && y < self.height + m
    }
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

/// How the picture writes: SVG text (a browser's fonts) or strokes ([`glyphs`], no font).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ink {
    Text,
    Strokes,
}

/// The track alone (the same for every turn): a page showing many turns draws it once and
/// refers to it (`<use>`).
pub fn track(t: &Track) -> String {
    ground(t, &View::whole(t, SIZE, SIZE), Ink::Text)
}

pub(super) fn ground(t: &Track, v: &View, ink: Ink) -> String {
    let mut o = String::with_capacity(64 * t.spaces.len() + 1024);
    let (grass, (x, y)) = (format!("#{:02x}{:02x}{:02x}", GRASS.0, GRASS.1, GRASS.2), v.origin);
    if (x, y) == (0.0, 0.0) {
        let _ = write!(o, r##"<rect width="{}" height="{}" fill="{grass}"/>"##, v.width, v.height);
    } else {
        let _ = write!(o, r##"<rect x="{x}" y="{y}" width="{}" height="{}" fill="{grass}"/>"##, v.width, v.height);
    }
    let r = r1(v.unit * 0.42);
    for (i, sp) in t.spaces.iter().enumerate() {
        let (x, y) = v.position(SpaceIdx(i as u16));
        if !v.shows((x, y)) {
            continue;
        }
        let fill = if sp.in_pit_lane() {
            "#b8b8b8"
        } else if sp.corner.is_some() {
            "#e8c8c8"
        } else {
            "#d8d8d8"
        };
        let _ = write!(
            o,
            r##"<circle cx="{}" cy="{}" r="{r}" fill="{fill}" stroke="#555" stroke-width="{}"/>"##,
            r1(x),
            r1(y),
            r1((v.unit / 30.0).max(0.5))
        );
    }
    o.push_str(&finish_line(t, v));
    for (c, (lx, ly)) in flags(t, v) {
        match ink {
            Ink::Text => {
                let _ = write!(
                    o,
                    r##"<text x="{}" y="{}" font-size="12" text-anchor="middle" dominant-baseline="middle" fill="#fff">{}·{}</text>"##,
                    r1(lx),
                    r1(ly),
                    c.number,
                    c.stops
                );
            }
            Ink::Strokes => {
                // "C5" and a yellow flag with its stops, as printed on the board.
                let name = format!("C{}", c.number);
                let (h, w) = flag_size(&name, v.unit);
                let _ = write!(
                    o,
                    r##"<rect x="{}" y="{}" width="{}" height="{}" rx="2" fill="#222"/>"##,
                    r1(lx - w / 2.0 - h * 0.3),
                    r1(ly - h * 0.8),
                    r1(w + h * 2.0),
                    r1(h * 1.6)
                );
                o.push_str(&glyphs::text(&name, lx, ly, h, "#fff"));
                let fx = lx + w / 2.0 + h * 0.7;
                let _ = write!(
                    o,
                    r##"<rect x="{}" y="{}" width="{}" height="{}" fill="#fd0"/>"##,
                    r1(fx - h * 0.6),
                    r1(ly - h * 0.65),
                    r1(h * 1.2),
                    r1(h * 1.3)
                );
                o.push_str(&glyphs::text(&c.stops.to_string(), fx, ly, h * 0.8, "#000"));
            }
        }
    }
    o
}

/// Where each corner's number and required stops (7-1-1) stand ([`Layout::flags`]): only those
/// that reach the picture.
fn flags<'t>(t: &'t Track, v: &View) -> Vec<(&'t crate::track::Corner, (f64, f64))> {
    t.corners.iter().zip(&v.flags).filter_map(|(c, at)| at.filter(|&p| v.reaches(p)).map(|p| (c, p))).collect()
}

/// The letters' height of a corner's flag saying `name` (`C5`), and the width of its name, at a
/// view whose spaces are `unit` apart.
fn flag_size(name: &str, unit: f64) -> (f64, f64) {
    let h = (unit * 0.5).max(8.0);
    (h, h * (name.len() as f64 * 5.6 + 1.0) / 6.0)
}

/// The boxes the mails' picture draws its corner flags in (`C5` and the yellow flag of its
/// stops), which the option labels keep clear of.
pub(super) fn flag_boxes(t: &Track, v: &View) -> Vec<labels::Rect> {
    flags(t, v)
        .into_iter()
        .map(|(c, (lx, ly))| {
            let (h, w) = flag_size(&format!("C{}", c.number), v.unit);
            labels::Rect { x0: lx - w / 2.0 - h * 0.3, y0: ly - h * 0.8, x1: lx + w / 2.0 + h * 1.7, y1: ly + h * 0.8 }
        })
        .collect()
}

/// The finish line, across the lanes between each lane's last space and its first: square to
/// the way the cars go there (on a straight whose lanes are staggered, a lane's gap lies half a
/// row from its neighbour's, and a line through the gaps would run askew), through the middle
/// of the gaps, half a space beyond the outer lanes.
fn finish_line(t: &Track, v: &View) -> String {
    // Each lane's gap: its middle, and the way from the lane's last space to its first.
    let mut gaps = Vec::new();
    for lane in 0..t.lanes {
        let racing = || t.indices().filter(|&s| !t.space(s).in_pit_lane() && t.space(s).lane == lane);
        let (Some(a), Some(b)) =
            (racing().min_by_key(|&s| t.space(s).progress), racing().max_by_key(|&s| t.space(s).progress))
        else {
            continue;
        };
        let (p, q) = (v.position(a), v.position(b));
        if (p.0 - q.0).hypot(p.1 - q.1) < 3.0 * v.unit {
            gaps.push((((p.0 + q.0) / 2.0, (p.1 + q.1) / 2.0), (p.0 - q.0, p.1 - q.1)));
        }
    }
    if gaps.is_empty() {
        return String::new();
    }
    let n = gaps.len() as f64;
    let c = (gaps.iter().map(|g| g.0.0).sum::<f64>() / n, gaps.iter().map(|g| g.0.1).sum::<f64>() / n);
    let (dx, dy) = (gaps.iter().map(|g| g.1.0).sum::<f64>(), gaps.iter().map(|g| g.1.1).sum::<f64>());
    let len = dx.hypot(dy);
    // Across the way the cars go.
    let (ux, uy) = if len > 0.0 { (-dy / len, dx / len) } else { (1.0, 0.0) };
    let across = |m: (f64, f64)| (m.0 - c.0) * ux + (m.1 - c.1) * uy;
    let lo = gaps.iter().map(|g| across(g.0)).fold(f64::INFINITY, f64::min);
    let hi = gaps.iter().map(|g| across(g.0)).fold(f64::NEG_INFINITY, f64::max);
    let e = v.unit * 0.6;
    let a = (c.0 + ux * (lo - e), c.1 + uy * (lo - e));
    let b = (c.0 + ux * (hi + e), c.1 + uy * (hi + e));
    if !v.reaches(a) && !v.reaches(b) {
        return String::new();
    }
    format!(
        r##"<line x1="{}" y1="{}" x2="{}" y2="{}" stroke="#000" stroke-width="{}" stroke-dasharray="{d} {d}"/>"##,
        r1(a.0),
        r1(a.1),
        r1(b.0),
        r1(b.1),
        r1((v.unit / 5.0).max(2.0)),
        d = r1((v.unit / 5.0).max(2.0)),
    )
}

/// What changes turn by turn: stickers, lettered options, cars.
pub fn overlay(t: &Track, marks: &Marks) -> String {
    marks_on(t, &View::whole(t, SIZE, SIZE), marks, None, Ink::Text)
}

pub(super) fn marks_on(t: &Track, v: &View, marks: &Marks, mover: Option<SpaceIdx>, ink: Ink) -> String {
    let mut o = String::new();
    let u = v.unit;
    for d in &marks.dangerous {
        let (x, y) = v.position(*d);
        let side = r1((u * 0.45).max(7.0));
        let _ = write!(
            o,
            r##"<rect class="sticker" x="{}" y="{}" width="{side}" height="{side}" fill="#d00"/>"##,
            r1(x - side / 2.0),
            r1(y - side / 2.0)
        );
    }
    // One label a destination (options ending on the same space share it), placed where it
    // hides nothing ([`labels`]); a label moved away has a leader line to a dot on its space.
    let placed = labels::place(v, marks, &flag_boxes(t, v));
    for l in placed.labels.iter().filter(|l| l.leader) {
        let (x, y) = v.position(l.space);
        let (cx, cy) = l.rect.centre();
        let _ = write!(
            o,
            r##"<line class="leader" x1="{}" y1="{}" x2="{}" y2="{}" stroke="#000" stroke-width="1.5"/><circle class="dot" cx="{}" cy="{}" r="{}" fill="#ffe14d" stroke="#000" stroke-width="1"/>"##,
            r1(x),
            r1(y),
            r1(cx),
            r1(cy),
            r1(x),
            r1(y),
            r1(placed.dot)
        );
    }
    for c in &marks.cars {
        // The mails' picture draws a car where the placement put it: a car beyond the edge
        // just inside it, its outline dashed.
        let ((x, y), beyond) = match ink {
            Ink::Text => (v.position(c.space), false),
            Ink::Strokes => match placed.cars.iter().find(|d| d.space == c.space && d.number == c.number) {
                Some(d) => (d.at, d.at_edge),
                None => continue,
            },
        };
        let (fill, text) = if c.running { (car_colour(c.number), "#fff") } else { ("#fff", "#000") };
        let r = match ink {
            Ink::Text => r1(u * 0.5 + 1.0),
            Ink::Strokes => r1(u * 0.5),
        };
        let ring = match (mover == Some(c.space), beyond) {
            (true, _) => r##" stroke-width="3""##,
            (false, true) => r##" stroke-width="2" stroke-dasharray="3 2""##,
            _ => "",
        };
        let _ = write!(
            o,
            r##"<g class="car"><circle cx="{x}" cy="{y}" r="{r}" fill="{fill}" stroke="#000"{ring}/>"##,
            x = r1(x),
            y = r1(y),
        );
        match ink {
            Ink::Text => {
                let _ = write!(
                    o,
                    r##"<text x="{}" y="{}" font-size="9" text-anchor="middle" dominant-baseline="central" fill="{text}">{}</text>"##,
                    r1(x),
                    r1(y),
                    c.number
                );
            }
            Ink::Strokes => o.push_str(&glyphs::text(&c.number.to_string(), x, y, u * 0.42, text)),
        }
        o.push_str("</g>");
    }
    let (h, letters) = labels::label_height(u);
    for l in &placed.labels {
        let (x, y) = l.rect.centre();
        match ink {
            Ink::Text => {
                let _ = write!(
                    o,
                    r##"<text class="option" x="{}" y="{}" font-size="11" font-weight="bold" text-anchor="middle" dominant-baseline="central" fill="#004">{}</text>"##,
                    r1(x),
                    r1(y),
                    escape(&l.text)
                );
            }
            Ink::Strokes => {
                let w = l.rect.x1 - l.rect.x0;
                let _ = write!(
                    o,
                    r##"<rect class="option" x="{}" y="{}" width="{}" height="{}" rx="{}" fill="#ffe14d" stroke="#000" stroke-width="1.5"/>"##,
                    r1(l.rect.x0),
                    r1(l.rect.y0),
                    r1(w),
                    r1(h),
                    r1(h / 2.0)
                );
                o.push_str(&glyphs::text(&l.text, x, y, letters, "#000"));
            }
        }
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

    /// Issue 15: on the sprint track's staggered straight the line ran from one lane's gap to
    /// the other's, askew; it is square to the way the cars go, and spans both lanes.
    #[test]
    fn the_finish_line_is_square_across_a_staggered_straight() {
        let track = crate::track::load::resolve("sprint").expect("shipped track");
        let t = &track;
        let v = View::whole(t, SIZE, SIZE);
        let line = finish_line(t, &v);
        let num = |k: &str| -> f64 {
            let i = line.find(&format!(" {k}=\"")).unwrap() + k.len() + 3;
            line[i..].split('"').next().unwrap().parse().unwrap()
        };
        let (x1, y1, x2, y2) = (num("x1"), num("y1"), num("x2"), num("y2"));
        let gap = |lane: u8| {
            let racing = || t.indices().filter(|&s| !t.space(s).in_pit_lane() && t.space(s).lane == lane);
            let first = v.position(racing().min_by_key(|&s| t.space(s).progress).unwrap());
            let last = v.position(racing().max_by_key(|&s| t.space(s).progress).unwrap());
            (first, last)
        };
        for lane in 0..t.lanes {
            let (first, last) = gap(lane);
            let (wx, wy) = (first.0 - last.0, first.1 - last.1);
            let (lx, ly) = (x2 - x1, y2 - y1);
            let cos = (wx * lx + wy * ly) / (wx.hypot(wy) * lx.hypot(ly));
            assert!(cos.abs() < 0.05, "lane {lane}: the line is askew (cos {cos:.3}): {line}");
        }
        assert!((x2 - x1).hypot(y2 - y1) >= v.unit * t.lanes as f64, "the line spans the lanes: {line}");
    }
}
