//! A synthetic track in the `.dat` form the importer reads, whose every space can be worked out
//! by hand: the fixture of the importer's tests and of the pictures' golden tests (the real
//! graphs of `../shared/reference-tracks/` are not in the repository).
//!
//! `rows` rows of three lanes on a circle: node `3r` is the middle lane of row r, `3r+1` the
//! left lane and `3r+2` the right lane, the outer lanes half a row ahead of the middle one (as
//! on the printed boards). Rows 10..=14 form a 1-stop corner and rows 30..=37 a 2-stop corner,
//! laid out like straights, so a car crossing one visits between k (one lane) and 2k
//! (zigzagging) of its spaces. A pit lane of 14 nodes runs outside the left lane from row
//! `rows - 8` to row 5, its boxes the 3rd to the 12th; the grid is the last ten rows, written
//! back to front.

/// How the synthetic graph is drawn and written.
#[derive(Clone, Debug, Default)]
pub struct Synthetic {
    /// Squashed into an egg, so that a picture shows the file's shape rather than a ring.
    pub egg: bool,
    /// Node 0 marked as the finish line (kind 5); unmarked, the importer infers it.
    pub mark_line: bool,
    /// Arrows added after the track's own (to make a faulty graph).
    pub extra_arrows: Vec<(u32, u32)>,
    /// Lines ended by `\r\n`, as the original editor wrote them; `\n` otherwise.
    pub crlf: bool,
}

impl Synthetic {
    /// The `.dat` text of a track `rows` rows long.
    pub fn dat(&self, rows: u32) -> String {
        let row_px = 20.0;
        let base = rows as f64 * row_px / std::f64::consts::TAU;
        let mut nodes = Vec::new();
        let mut attrs = Vec::new();
        // Multiplying by 1.0 changes no bit: the ring's coordinates are those of the plain formula.
        let (stretch, squash_by) = if self.egg { (1.4, 0.35) } else { (1.0, 0.0) };
        let pos = |t: f64, radius: f64| {
            let a = t / rows as f64 * std::f64::consts::TAU;
            let squash = 1.0 - squash_by * a.sin().max(0.0);
            ((400.0 + radius * a.cos() * stretch).round() as i32, (400.0 + radius * a.sin() * squash).round() as i32)
        };
        for r in 0..rows {
            for lane in 0..3u32 {
                let t = if lane == 0 { r as f64 } else { r as f64 + 0.5 };
                // Increasing angle turns clockwise on screen: the left lane is the outer one.
                let radius = base + [0.0, 17.0, -17.0][lane as usize];
                let (x, y) = pos(t, radius);
                let kind = match r {
                    0 if self.mark_line => 5,
                    10..=14 => 3,
                    30..=37 => 2,
                    _ => 1,
                };
                nodes.push(format!("{} {x} {y} {kind}", 3 * r + lane));
                if matches!(r, 10..=14 | 30..=37) {
                    let first = if r <= 14 { 10.0 } else { 30.0 };
                    attrs.push(format!("{} {}", 3 * r + lane, t - first));
                }
            }
        }
        let n = 3 * rows;
        let id = |r: u32, lane: u32| 3 * (r % rows) + lane;
        let mut arrows = Vec::new();
        for r in 0..rows {
            arrows.push((id(r, 0), id(r, 1)));
            arrows.push((id(r, 0), id(r, 2)));
            arrows.push((id(r, 0), id(r + 1, 0)));
            for lane in [1, 2] {
                arrows.push((id(r, lane), id(r + 1, 0)));
                arrows.push((id(r, lane), id(r + 1, lane)));
            }
        }
        for i in 0..14u32 {
            let t = rows as f64 - 8.0 + (i as f64 + 1.0) * 13.0 / 15.0;
            let (x, y) = pos(t, base + 45.0);
            nodes.push(format!("{} {x} {y} 7", n + i));
            if (2..12).contains(&i) {
                attrs.push(format!("{} 1.0", n + i));
            }
            if i > 0 {
                arrows.push((n + i - 1, n + i));
            }
        }
        arrows.push((id(rows - 8, 1), n));
        arrows.push((n + 13, id(5, 1)));
        arrows.extend_from_slice(&self.extra_arrows);
        let grid: Vec<String> = (0..10u32).rev().map(|k| format!("{} 270.0", id(rows - 1 - k, 1 + k % 2))).collect();
        let arrows: Vec<String> = arrows.iter().map(|(a, b)| format!("{a} {b}")).collect();
        let nl = if self.crlf { "\r\n" } else { "\n" };
        format!(
            "synthetic.png 0{nl}{}{nl}{nl}{}{nl}{nl}{}{nl}{nl}{}{nl}",
            nodes.join(nl),
            arrows.join(nl),
            attrs.join(nl),
            grid.join(nl)
        )
    }
}
