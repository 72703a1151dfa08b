//! Where the option letters go (issue 47): at a busy corner 28 options can end within a few
//! spaces of each other, and letters drawn on their spaces piled up ("F/H", "G/I" merged, car 4's
//! disc over N). Each destination gets one label (options ending on the same space share it),
//! of a size that stays readable at every zoom; a label sits on its space when it hides
//! nothing there, else it moves out along a leader line to the nearest free place: never over
//! another label, a car's disc, another destination's space, or the picture's edge.
//!
//! Pure geometry, in picture units, deterministic: the same view and marks give the same
//! places. [`Placement::collisions`] is what the overlap test checks over whole bot races.

use crate::track::SpaceIdx;

use super::{Marks, View};

/// An axis-aligned box: left, top, right, bottom.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rect {
    /// Left.
    pub x0: f64,
    /// Top.
    pub y0: f64,
    /// Right.
    pub x1: f64,
    /// Bottom.
    pub y1: f64,
}

impl Rect {
    fn around((x, y): (f64, f64), w: f64, h: f64) -> Rect {
        Rect { x0: x - w / 2.0, y0: y - h / 2.0, x1: x + w / 2.0, y1: y + h / 2.0 }
    }

    /// Whether the two boxes share some area (touching edges do not).
    pub fn meets(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// Whether the box and the disc of centre `c` and radius `r` share some area.
    pub fn meets_disc(&self, (cx, cy): (f64, f64), r: f64) -> bool {
        let dx = cx - cx.clamp(self.x0, self.x1);
        let dy = cy - cy.clamp(self.y0, self.y1);
        dx * dx + dy * dy < r * r
    }

    /// The centre.
    pub fn centre(&self) -> (f64, f64) {
        ((self.x0 + self.x1) / 2.0, (self.y0 + self.y1) / 2.0)
    }
}

/// A destination's label where it is drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// What it says: `A`, `A/B`, `C-F`.
    pub text: String,
    /// The space it names.
    pub space: SpaceIdx,
    /// Its box.
    pub rect: Rect,
    /// Drawn away from its space, with a leader line to it.
    pub leader: bool,
}

/// A car's disc.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Disc {
    /// The car's number.
    pub number: u8,
    /// Its space.
    pub space: SpaceIdx,
    /// Centre: its space's, or pulled inside the picture when its space is at the edge (a car
    /// is never cut by the edge, issue 47).
    pub at_edge: bool,
    /// Centre.
    pub at: (f64, f64),
    /// Radius.
    pub r: f64,
}

/// The labels and the cars of a picture, placed.
#[derive(Clone, Debug, Default)]
pub struct Placement {
    /// The labels.
    pub labels: Vec<Label>,
    /// The cars drawn.
    pub cars: Vec<Disc>,
    /// The radius of the dot that marks a destination's space under a label moved away.
    pub dot: f64,
    /// Labels that found no free place (drawn at the least crowded one): none, in every race
    /// the overlap test plays.
    pub crowded: usize,
    /// The picture's size.
    pub size: (f64, f64),
    /// What the labels keep clear of (the corner flags).
    pub flags: Vec<Rect>,
}

/// The text of a destination's label: its options' letters, `A/B` for two or three, `C-F` for
/// more.
pub fn label_text(letters: &[&str]) -> String {
    if letters.len() > 3 { format!("{}-{}", letters[0], letters[letters.len() - 1]) } else { letters.join("/") }
}

/// The height of a label and its letters, in picture units, at a view whose spaces are `unit`
/// apart: half a space, never under 9 pixels of letter (readable at the smallest zoom).
pub fn label_height(unit: f64) -> (f64, f64) {
    let letters = (unit * 0.5).max(9.0);
    (letters * 1.7, letters)
}

/// The width of a label saying `text` whose letters are `letters` high.
pub fn label_width(text: &str, letters: f64) -> f64 {
    letters * (text.chars().count() as f64 * 5.6 - 1.6) / 6.0 + letters
}

/// Places the labels of `marks.options` on `v`, clear of the boxes `keep_clear` (the corner
/// flags), and lists the cars drawn (those within the picture).
pub fn place(v: &View, marks: &Marks, keep_clear: &[Rect]) -> Placement {
    let u = v.unit;
    let car_r = u * 0.5;
    let dot = (u * 0.22).max(2.5);
    let frame = Rect { x0: v.origin.0, y0: v.origin.1, x1: v.origin.0 + v.width, y1: v.origin.1 + v.height };
    let inside = |(x, y): (f64, f64)| {
        let m = car_r + 1.0;
        (x.clamp(frame.x0 + m, frame.x1 - m), y.clamp(frame.y0 + m, frame.y1 - m))
    };
    let cars: Vec<Disc> = marks
        .cars
        .iter()
        .filter(|c| v.shows(v.position(c.space)))
        .map(|c| {
            let at = v.position(c.space);
            let pulled = inside(at);
            Disc { number: c.number, space: c.space, at_edge: pulled != at, at: pulled, r: car_r }
        })
        .collect();
    // One label a destination, in the order of the options (A first).
    let mut ends: Vec<(SpaceIdx, Vec<&str>)> = Vec::new();
    for (label, s) in &marks.options {
        match ends.iter_mut().find(|(d, _)| d == s) {
            Some((_, l)) => l.push(label),
            None => ends.push((*s, vec![label])),
        }
    }
    let spaces: Vec<(f64, f64)> = ends.iter().map(|(s, _)| v.position(*s)).collect();
    let n = spaces.len().max(1) as f64;
    let centroid = (spaces.iter().map(|p| p.0).sum::<f64>() / n, spaces.iter().map(|p| p.1).sum::<f64>() / n);
    let (h, letters) = label_height(u);
    let mut labels: Vec<Label> = Vec::with_capacity(ends.len());
    let mut crowded = 0;
    for (i, (space, letters_of)) in ends.iter().enumerate() {
        let text = label_text(letters_of);
        let w = label_width(&text, letters).max(h);
        let at = spaces[i];
        // What a label must not cover: the placed labels, the cars, the other destinations'
        // spaces (so that every leader ends on a space one can see).
        let cost = |r: &Rect| -> f64 {
            let mut c = 0.0;
            if r.x0 < frame.x0 || r.y0 < frame.y0 || r.x1 > frame.x1 || r.y1 > frame.y1 {
                c += 100.0;
            }
            for l in &labels {
                if r.meets(&l.rect) {
                    c += 10.0;
                }
            }
            for d in &cars {
                if r.meets_disc(d.at, d.r) {
                    c += 10.0;
                }
            }
            for f in keep_clear {
                if r.meets(f) {
                    c += 1.0;
                }
            }
            for (j, p) in spaces.iter().enumerate() {
                if j != i && r.meets_disc(*p, dot) {
                    c += 1.0;
                }
            }
            c
        };
        // Outward from the destinations' middle first, then turning both ways, ring by ring.
        let (dx, dy) = (at.0 - centroid.0, at.1 - centroid.1);
        let base = if dx.hypot(dy) > 1e-6 { dy.atan2(dx) } else { -std::f64::consts::FRAC_PI_2 };
        let mut best: Option<(f64, Rect, bool)> = None;
        let here = Rect::around(at, w, h);
        let c0 = cost(&here);
        if c0 == 0.0 {
            best = Some((0.0, here, false));
        } else {
            'rings: for ring in 1..=14 {
                let dist = (h.max(w) * 0.5 + dot) + (ring - 1) as f64 * h * 0.75;
                let steps = 8 + 4 * ring;
                for k in 0..steps {
                    let turn = (k + 1) / 2;
                    let sign = if k % 2 == 1 { 1.0 } else { -1.0 };
                    let a = base + sign * turn as f64 * std::f64::consts::TAU / steps as f64;
                    let r = Rect::around((at.0 + dist * a.cos(), at.1 + dist * a.sin()), w, h);
                    let c = cost(&r);
                    if c == 0.0 {
                        best = Some((0.0, r, true));
                        break 'rings;
                    }
                    if best.as_ref().is_none_or(|b| c < b.0) {
                        best = Some((c, r, true));
                    }
                }
            }
            if best.as_ref().is_some_and(|b| b.0 >= c0) {
                best = Some((c0, here, false));
            }
        }
        let (c, rect, leader) = best.expect("a place is always chosen");
        if c > 0.0 {
            crowded += 1;
        }
        labels.push(Label { text, space: *space, rect, leader });
    }
    Placement { labels, cars, dot, crowded, size: (v.width, v.height), flags: keep_clear.to_vec() }
}

impl Placement {
    /// What overlaps in the picture: two labels, a label and a car, a label and another
    /// destination's space or a corner's flag, a label beyond the picture's edge. Empty when every label reads.
    pub fn collisions(&self, spaces: impl Fn(SpaceIdx) -> (f64, f64)) -> Vec<String> {
        let mut out = Vec::new();
        for d in &self.cars {
            let (x, y) = d.at;
            if x - d.r < 0.0 || y - d.r < 0.0 || x + d.r > self.size.0 || y + d.r > self.size.1 {
                out.push(format!("car {} is cut by the edge", d.number));
            }
        }
        for (i, a) in self.labels.iter().enumerate() {
            let r = &a.rect;
            if r.x0 < 0.0 || r.y0 < 0.0 || r.x1 > self.size.0 || r.y1 > self.size.1 {
                out.push(format!("label {} is cut by the edge", a.text));
            }
            for b in &self.labels[i + 1..] {
                if a.rect.meets(&b.rect) {
                    out.push(format!("labels {} and {} overlap", a.text, b.text));
                }
            }
            for d in &self.cars {
                if a.rect.meets_disc(d.at, d.r) {
                    out.push(format!("label {} covers car {}", a.text, d.number));
                }
            }
            if self.flags.iter().any(|f| a.rect.meets(f)) {
                out.push(format!("label {} covers a corner's flag", a.text));
            }
            for b in &self.labels {
                if b.space != a.space && a.rect.meets_disc(spaces(b.space), self.dot) {
                    out.push(format!("label {} covers the space of {}", a.text, b.text));
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::layout::Layout;
    use crate::render::picture::CarMark;

    /// Options on every space of a corner and the mover in the middle of them: every label
    /// finds a place that hides nothing.
    #[test]
    fn a_crowded_corner_reads() {
        let t = crate::track::load::resolve("monaco").expect("shipped track");
        let l = Layout::of(&t);
        let c = &t.corners[2];
        let mut spaces: Vec<SpaceIdx> = c.spaces.clone();
        spaces.sort();
        let options: Vec<(String, SpaceIdx)> = spaces
            .iter()
            .enumerate()
            .map(|(i, &s)| (crate::engine::MoveOption::label(i), s))
            .chain(spaces.iter().take(3).map(|&s| ("Z".to_string(), s)))
            .collect();
        let marks = Marks {
            cars: vec![CarMark { number: 4, space: spaces[spaces.len() / 2], running: true }],
            dangerous: Vec::new(),
            options,
        };
        for zoom in 0..super::super::ZOOMS.len() {
            let scale = super::super::ZOOMS[zoom] / l.spacing;
            let (x, y) = l.get(spaces[0]);
            let v = View::shifted(&l, scale, ((300.0 - x * scale) as i64, (200.0 - y * scale) as i64), 600.0, 400.0);
            let p = place(&v, &marks, &[]);
            let bad = p.collisions(|s| v.position(s));
            assert!(bad.is_empty(), "zoom {zoom}: {bad:?}");
            assert_eq!(p.crowded, 0);
            assert_eq!(p.labels.len(), spaces.len(), "one label a space");
            assert!(p.labels.iter().any(|l| l.text.contains('/')), "shared labels");
            assert_eq!(place(&v, &marks, &[]).labels, p.labels, "deterministic");
        }
    }
}
