//! Where the picture draws each space: a pure function of the track.
//!
//! An imported `.dat` track carries the real position of every node ([`Space::at`]), which is
//! used as it is. A track authored as segments carries none, so a drawing that reads the same is
//! computed from what it does carry: straights are straight, each corner an arc turning the way
//! its inside lane (the lane with the fewest spaces) says, by the angle its lane lengths give
//! (the outside lane's extra spaces over the track's width), the angles scaled so that the lap
//! closes (one full turn) and the last gap spread along the lap. Lanes sit one space apart, lane
//! 0 on the left of the direction of travel; the pit lane runs beside the lanes, on the side of
//! the lane that leads into it. Same track, same numbers.

use std::f64::consts::{PI, TAU};

use crate::track::{ROW, SpaceIdx, Track};

/// Every space's centre in one plane (y down), and the distance between neighbouring spaces.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The centre of each space, by [`SpaceIdx`].
    pub at: Vec<(f64, f64)>,
    /// The usual distance between two linked spaces: the unit the picture's discs and letters
    /// are sized in.
    pub spacing: f64,
}

impl Layout {
    /// The layout of `t`: its own coordinates when every space has them, else computed.
    pub fn of(t: &Track) -> Layout {
        let at: Vec<(f64, f64)> = if !t.spaces.is_empty() && t.spaces.iter().all(|s| s.at.is_some()) {
            t.spaces.iter().map(|s| s.at.map(|(x, y)| (f64::from(x), f64::from(y))).unwrap_or_default()).collect()
        } else {
            computed(t)
        };
        let spacing = spacing(t, &at);
        Layout { at, spacing }
    }

    /// The centre of space `s`.
    pub fn get(&self, s: SpaceIdx) -> (f64, f64) {
        self.at[s.get()]
    }

    /// The smallest box holding every space: (min x, min y, max x, max y).
    pub fn bounds(&self) -> (f64, f64, f64, f64) {
        self.at.iter().fold((f64::MAX, f64::MAX, f64::MIN, f64::MIN), |(a, b, c, d), &(x, y)| {
            (a.min(x), b.min(y), c.max(x), d.max(y))
        })
    }
}

/// The median length of the track's arrows (1 if it has none).
fn spacing(t: &Track, at: &[(f64, f64)]) -> f64 {
    let mut d: Vec<f64> = t
        .indices()
        .flat_map(|s| t.next(s).iter().map(move |&n| (s, n)))
        .map(|(a, b)| {
            let (p, q) = (at[a.get()], at[b.get()]);
            (p.0 - q.0).hypot(p.1 - q.1)
        })
        .filter(|d| *d > 0.0)
        .collect();
    if d.is_empty() {
        return 1.0;
    }
    d.sort_by(f64::total_cmp);
    d[d.len() / 2]
}

/// A segment of the computed drawing: where its centre line starts, its heading there, its
/// progress range and, for a corner, the signed angle it turns (positive to the right).
#[derive(Clone, Copy, Debug)]
struct Piece {
    start: u32,
    depth: f64,
    turn: f64,
    x: f64,
    y: f64,
    heading: f64,
}

/// Lanes are one row apart.
const WIDTH: f64 = ROW as f64;

fn computed(t: &Track) -> Vec<(f64, f64)> {
    let lap = t.lap_length.max(1);
    let half = (f64::from(t.lanes.max(1)) - 1.0) / 2.0 * WIDTH;
    // Each segment's progress range, from its spaces.
    let mut first = vec![u32::MAX; t.segments.len()];
    for sp in &t.spaces {
        if let Some(g) = sp.segment {
            let g = usize::from(g);
            first[g] = first[g].min(sp.progress.saturating_sub(sp.length / 2));
        }
    }
    let order: Vec<usize> = (0..t.segments.len()).filter(|&g| first[g] != u32::MAX).collect();
    if order.is_empty() {
        return vec![(0.0, 0.0); t.spaces.len()];
    }
    let mut pieces: Vec<Piece> = Vec::with_capacity(order.len());
    for (k, &g) in order.iter().enumerate() {
        let start = if k == 0 { 0 } else { first[g] };
        let end = order.get(k + 1).map_or(lap, |&n| first[n]);
        let depth = f64::from(end.saturating_sub(start).max(1));
        let turn = t.segments[g].corner.map_or(0.0, |c| {
            let lane_count =
                |lane: u8| t.corners[c.get()].spaces.iter().filter(|&&s| t.space(s).lane == lane).count() as f64;
            let (left, right) = (lane_count(0), lane_count(t.lanes.saturating_sub(1)));
            let angle = if half > 0.0 { (left - right).abs() * WIDTH / (2.0 * half) / WIDTH } else { PI / 2.0 };
            let angle = angle.clamp(PI / 6.0, PI);
            if right <= left { angle } else { -angle }
        });
        pieces.push(Piece { start, depth, turn, x: 0.0, y: 0.0, heading: 0.0 });
    }
    // One full turn a lap: scale the turns of the main direction against the others.
    let (plus, minus): (f64, f64) =
        pieces.iter().fold((0.0, 0.0), |(p, m), q| if q.turn > 0.0 { (p + q.turn, m) } else { (p, m - q.turn) });
    if plus > 0.0 || minus > 0.0 {
        let (main, other, sign) = if plus >= minus { (plus, minus, 1.0) } else { (minus, plus, -1.0) };
        let scale = ((TAU + other) / main).clamp(0.25, 4.0);
        for q in &mut pieces {
            if q.turn * sign > 0.0 {
                q.turn *= scale;
            }
        }
        // What scaling could not close, every corner shares.
        let left_over = sign * TAU - pieces.iter().map(|q| q.turn).sum::<f64>();
        let corners = pieces.iter().filter(|q| q.turn != 0.0).count().max(1) as f64;
        for q in pieces.iter_mut().filter(|q| q.turn != 0.0) {
            q.turn += left_over / corners;
        }
        // A corner too tight for its inside lane is opened up.
        for q in &mut pieces {
            let most = q.depth / (2.0 * half + WIDTH) * 0.95;
            q.turn = q.turn.clamp(-most, most);
        }
    }
    // Walk the lap: each piece's start pose.
    let (mut x, mut y, mut h) = (0.0, 0.0, -PI / 2.0);
    for q in &mut pieces {
        (q.x, q.y, q.heading) = (x, y, h);
        (x, y, h) = pose(q, 1.0, 0.0, half);
    }
    // The gap left at the line, spread along the lap.
    let (gx, gy) = (x, y);
    let place = |progress: u32, offset: f64| {
        let k = pieces.partition_point(|q| q.start <= progress).saturating_sub(1);
        let q = &pieces[k];
        let f = (f64::from(progress.saturating_sub(q.start)) / q.depth).min(1.0);
        let (px, py, _) = pose(q, f, offset, half);
        let share = f64::from(progress) / f64::from(lap);
        (px - gx * share, py - gy * share)
    };
    let pit_side = pit_side(t);
    t.spaces
        .iter()
        .map(|sp| {
            let offset =
                if sp.in_pit_lane() { pit_side * (half + 1.4 * WIDTH) } else { f64::from(sp.lane) * WIDTH - half };
            place(sp.progress % lap, offset)
        })
        .collect()
}

/// The point `offset` to the right of the centre line at fraction `f` of piece `q`, and the
/// heading there.
fn pose(q: &Piece, f: f64, offset: f64, half: f64) -> (f64, f64, f64) {
    let right = |h: f64| (-h.sin(), h.cos());
    if q.turn == 0.0 {
        let (nx, ny) = right(q.heading);
        let d = f * q.depth;
        return (q.x + d * q.heading.cos() + offset * nx, q.y + d * q.heading.sin() + offset * ny, q.heading);
    }
    // The outside lane is as long as the corner's depth; the centre line turns on a circle
    // `half` inside it.
    let s = q.turn.signum();
    let angle = q.turn.abs();
    let radius = q.depth / angle - half;
    let (nx, ny) = right(q.heading);
    let (cx, cy) = (q.x + s * radius * nx, q.y + s * radius * ny);
    let h = q.heading + s * f * angle;
    let (mx, my) = right(h);
    let r = radius - s * offset;
    (cx - s * r * mx, cy - s * r * my, h)
}

/// +1 when the pit lane runs on the right of the track, -1 on the left: the side of the lane
/// that leads into it.
fn pit_side(t: &Track) -> f64 {
    let Some(&entry) = t.pit_lane.first() else { return 1.0 };
    let lanes: Vec<u8> =
        t.prev(entry).iter().filter(|&&s| !t.space(s).in_pit_lane()).map(|&s| t.space(s).lane).collect();
    let mean = lanes.iter().map(|&l| f64::from(l)).sum::<f64>() / lanes.len().max(1) as f64;
    if mean * 2.0 >= f64::from(t.lanes.saturating_sub(1)) { 1.0 } else { -1.0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_computed_lap_closes_and_neighbours_sit_about_a_space_apart() {
        for name in ["sprint", "monaco", "oval"] {
            let t = crate::track::load::resolve(name).expect("shipped track");
            let l = Layout::of(&t);
            assert_eq!(l.at.len(), t.spaces.len());
            assert!(l.at.iter().all(|p| p.0.is_finite() && p.1.is_finite()), "{name}");
            // Every arrow is short: no space is flung across the picture.
            for s in t.indices() {
                for &n in t.next(s) {
                    let (a, b) = (l.get(s), l.get(n));
                    let d = (a.0 - b.0).hypot(a.1 - b.1);
                    assert!(d < 4.0 * l.spacing, "{name}: {} -> {} is {d} long", t.space(s).id, t.space(n).id);
                }
            }
            assert!((l.spacing - WIDTH).abs() < 0.5 * WIDTH, "{name}: spacing {}", l.spacing);
        }
    }
}
