//! Where the picture draws each space: a pure function of the track.
//!
//! An imported `.dat` track carries the real position of every node ([`Space::at`]), which is
//! used as it is. A track authored as segments may carry the real circuit's outline
//! ([`Outline`]): its lanes are laid along it, one space apart on either side of the centre line,
//! each corner's middle at the outline's point for it and the rest spread by length between
//! them. A track with neither gets a drawing that reads the same computed from what it does
//! carry: straights are straight, each corner an arc turning the way
//! its inside lane (the lane with the fewest spaces) says, by the angle its lane lengths give
//! (the outside lane's extra spaces over the track's width), the angles scaled so that the lap
//! closes (one full turn) and the last gap spread along the lap. Lanes sit one space apart, lane
//! 0 on the left of the direction of travel; the pit lane runs beside the lanes, on the side of
//! the lane that leads into it. Same track, same numbers.

use std::f64::consts::{PI, TAU};

use crate::track::{Outline, ROW, SpaceIdx, Track};

/// Every space's centre in one plane (y down), and the distance between neighbouring spaces.
#[derive(Clone, Debug)]
pub struct Layout {
    /// The centre of each space, by [`SpaceIdx`].
    pub at: Vec<(f64, f64)>,
    /// The usual distance between two linked spaces: the unit the picture's discs and letters
    /// are sized in.
    pub spacing: f64,
    /// Where each corner's flag (its number and stops, 7-1-1) stands, by corner: on the grass
    /// beside the corner ([`flag_spots`]); `None` for a corner without spaces.
    pub flags: Vec<Option<(f64, f64)>>,
}

impl Layout {
    /// The layout of `t`: its own coordinates when every space has them, else computed.
    pub fn of(t: &Track) -> Layout {
        let at: Vec<(f64, f64)> = if !t.spaces.is_empty() && t.spaces.iter().all(|s| s.at.is_some()) {
            t.spaces.iter().map(|s| s.at.map(|(x, y)| (f64::from(x), f64::from(y))).unwrap_or_default()).collect()
        } else if let Some(o) = t.outline.as_ref().and_then(|o| along(t, o)) {
            o
        } else {
            computed(t)
        };
        let spacing = spacing(t, &at);
        let flags = flag_spots(t, &at, spacing);
        Layout { at, spacing, flags }
    }

    /// [`Layout::of`] `t`, worked out once a track: a track is not changed once built
    /// ([`Track::uid`]), and a daemon draws the same few tracks' pictures all day (the outline's
    /// smoothing and the flags' search cost about a tenth of a picture).
    pub fn kept(t: &Track) -> std::sync::Arc<Layout> {
        use std::sync::{Arc, Mutex};
        /// Tracks whose layouts are kept, the newest last.
        const KEPT: usize = 16;
        static KEPT_LAYOUTS: Mutex<Vec<(u64, Arc<Layout>)>> = Mutex::new(Vec::new());
        let uid = t.uid();
        if let Some((_, l)) = KEPT_LAYOUTS.lock().unwrap_or_else(|e| e.into_inner()).iter().find(|(u, _)| *u == uid) {
            return l.clone();
        }
        let l = Arc::new(Layout::of(t));
        let mut kept = KEPT_LAYOUTS.lock().unwrap_or_else(|e| e.into_inner());
        if kept.len() >= KEPT {
            kept.remove(0);
        }
        kept.push((uid, l.clone()));
        l
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

/// The box a corner's flag is drawn in, around the point it stands at, in spaces (a flag's
/// letters are about half a space high): "C10" and the yellow square of its stops.
pub fn flag_box(number: u16, unit: f64) -> (f64, f64, f64, f64) {
    let h = unit * 0.55;
    let w = h * (format!("C{number}").len() as f64 * 5.6 + 1.0) / 6.0;
    (-w / 2.0 - h * 0.3, -h * 0.8, w / 2.0 + h * 1.7, h * 0.8)
}

/// Where each corner's flag stands: the first of a few spots beside the corner (beside its
/// first space, then a third and two thirds into it; nearest first; on the side away from the
/// middle of the track first) whose box clears every space's disc by a fifth of a space, else
/// the spot that clears them most. On a track whose lanes wind (Monaco's Massenet and Casino),
/// "away from the middle" alone puts a flag on another stretch of the track.
fn flag_spots(t: &Track, at: &[(f64, f64)], unit: f64) -> Vec<Option<(f64, f64)>> {
    let n = at.len().max(1) as f64;
    let middle = at.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0 / n, a.1 + p.1 / n));
    let disc = unit * 0.42;
    let enough = disc + unit * 0.2;
    t.corners
        .iter()
        .map(|c| {
            let mut spaces: Vec<SpaceIdx> = c.spaces.clone();
            spaces.sort_by_key(|&s| (t.space(s).progress, s));
            let first = *spaces.first()?;
            let bases = [first, spaces[spaces.len() / 3], spaces[spaces.len() * 2 / 3]];
            let (x0, y0, x1, y1) = flag_box(c.number, unit);
            let away = unit * (f64::from(t.lanes) * 0.5 + 1.2);
            // The spaces that can come near any spot.
            let reach = away + unit * 4.0 + (x1 - x0);
            let (bx, by) = at[first.get()];
            let near: Vec<(f64, f64)> = at
                .iter()
                .copied()
                .filter(|p| (p.0 - bx).abs() < reach + unit * 20.0 && (p.1 - by).abs() < reach + unit * 20.0)
                .collect();
            let clearance = |(x, y): (f64, f64)| {
                near.iter()
                    .map(|&(px, py)| {
                        let dx = (x + x0 - px).max(px - (x + x1)).max(0.0);
                        let dy = (y + y0 - py).max(py - (y + y1)).max(0.0);
                        dx.hypot(dy)
                    })
                    .fold(f64::INFINITY, f64::min)
            };
            let mut best: Option<((f64, f64), f64)> = None;
            for far in [away, away + unit, away + 2.0 * unit] {
                for &b in &bases {
                    let (px, py) = at[b.get()];
                    let out = (px - middle.0).atan2(py - middle.1);
                    for k in 0..16 {
                        // 0, +1, -1, +2, -2 ... sixteenths of a turn from "away from the middle".
                        let step = if k % 2 == 1 { (k + 1) / 2 } else { -(k / 2) } as f64;
                        let a = out + step * TAU / 16.0;
                        let spot = (px + a.sin() * far, py + a.cos() * far);
                        let clear = clearance(spot);
                        if clear >= enough {
                            return Some(spot);
                        }
                        if best.is_none_or(|(_, c)| clear > c) {
                            best = Some((spot, clear));
                        }
                    }
                }
            }
            best.map(|(spot, _)| spot)
        })
        .collect()
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

/// Samples of the outline a row apart, their moving average over this many samples on either
/// side: a polyline's angles are rounded off to curves the lanes can follow.
const SMOOTHING: usize = 2;

/// The spaces laid along outline `o`: the centre line is the outline sampled a quarter of a row
/// apart and smoothed, scaled so that a lap of it is as long as the track's; a space at progress
/// p stands at the centre line's sample that p maps to (linearly between the line and each
/// corner's middle, which stands at the corner's outline point), its lane's offset to the side.
/// `None` when the outline has no length.
fn along(t: &Track, o: &Outline) -> Option<Vec<(f64, f64)>> {
    let lap = f64::from(t.lap_length.max(1));
    let half = (f64::from(t.lanes.max(1)) - 1.0) / 2.0 * WIDTH;
    let n = o.points.len();
    let mut cum = vec![0.0; n + 1];
    for i in 0..n {
        let (p, q) = (o.points[i], o.points[(i + 1) % n]);
        cum[i + 1] = cum[i] + (q.0 - p.0).hypot(q.1 - p.1);
    }
    let total = cum[n];
    if total.is_nan() || total <= 0.0 {
        return None;
    }
    let scale = lap / total;
    // The centre line, a sample every quarter row, in progress units.
    let m = ((lap / (WIDTH / 4.0)).ceil() as usize).max(8);
    let at_arc = |u: f64| {
        let i = cum.partition_point(|&c| c <= u).clamp(1, n) - 1;
        let (p, q) = (o.points[i], o.points[(i + 1) % n]);
        let f = if cum[i + 1] > cum[i] { (u - cum[i]) / (cum[i + 1] - cum[i]) } else { 0.0 };
        ((p.0 + (q.0 - p.0) * f) * scale, (p.1 + (q.1 - p.1) * f) * scale)
    };
    let mut line: Vec<(f64, f64)> = (0..m).map(|j| at_arc(j as f64 * total / m as f64)).collect();
    let w = 4 * SMOOTHING;
    for _ in 0..3 {
        line = (0..m)
            .map(|j| {
                let (sx, sy) =
                    (0..=2 * w).map(|k| line[(j + m + k - w) % m]).fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
                (sx / (2 * w + 1) as f64, sy / (2 * w + 1) as f64)
            })
            .collect();
    }
    // Progress to sample: the line at 0, each corner's middle at its point, the lap at m.
    let mut knots = vec![(0.0, 0.0)];
    for (c, &i) in t.corners.iter().zip(&o.corners) {
        let ps = c.spaces.iter().map(|&s| f64::from(t.space(s).progress));
        let (lo, hi) = ps.fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p), b.max(p)));
        let mid = (lo + hi) / 2.0;
        if mid > knots.last().map_or(0.0, |k: &(f64, f64)| k.0) && mid < lap {
            knots.push((mid, cum[i] / total * m as f64));
        }
    }
    knots.push((lap, m as f64));
    let sample = |p: f64| {
        let k = knots.partition_point(|q| q.0 <= p).clamp(1, knots.len() - 1);
        let (a, b) = (knots[k - 1], knots[k]);
        a.1 + (b.1 - a.1) * (p - a.0) / (b.0 - a.0).max(1e-9)
    };
    let point = |f: f64| {
        let j = f.floor();
        let (a, b) = (line[(j as usize) % m], line[(j as usize + 1) % m]);
        let g = f - j;
        (a.0 + (b.0 - a.0) * g, a.1 + (b.1 - a.1) * g)
    };
    let pit_side = pit_side(t);
    Some(
        t.spaces
            .iter()
            .map(|sp| {
                let offset =
                    if sp.in_pit_lane() { pit_side * (half + 1.4 * WIDTH) } else { f64::from(sp.lane) * WIDTH - half };
                let f = sample(f64::from(sp.progress % t.lap_length.max(1)));
                let (x, y) = point(f);
                // The way the line goes here, over a row either side.
                let (p, q) = (point(f + m as f64 - 4.0), point(f + 4.0));
                let (dx, dy) = (q.0 - p.0, q.1 - p.1);
                let len = dx.hypot(dy).max(1e-9);
                (x - dy / len * offset, y + dx / len * offset)
            })
            .collect(),
    )
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
    fn a_kept_layout_is_the_track_s_own_and_worked_out_once() {
        let monaco = crate::track::load::resolve("monaco").unwrap();
        let oval = crate::track::load::resolve("oval").unwrap();
        let (a, b) = (Layout::kept(&monaco), Layout::kept(&monaco));
        assert!(std::sync::Arc::ptr_eq(&a, &b), "worked out once");
        assert_eq!(a.at, Layout::of(&monaco).at);
        assert_eq!(Layout::kept(&oval).at, Layout::of(&oval).at, "each track its own");
        // A clone is another track to the cache (its uid differs), with the same layout.
        let copy = monaco.clone();
        assert!(!std::sync::Arc::ptr_eq(&Layout::kept(&copy), &a));
        assert_eq!(Layout::kept(&copy).at, a.at);
    }

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

    /// Monaco is laid along its outline: each corner's spaces gather round the outline point
    /// named for it, and no two stretches of the lap come within a space of each other (no disc
    /// covers another stretch's).
    #[test]
    fn monaco_follows_its_outline_and_no_stretch_covers_another() {
        let t = crate::track::load::resolve("monaco").expect("shipped track");
        let o = t.outline.as_ref().expect("monaco carries an outline");
        let l = Layout::of(&t);
        assert_eq!(Some(l.at.clone()), along(&t, o), "monaco is drawn along its outline");
        // The outline scaled as the layout scales it: a lap as long as the track's.
        let n = o.points.len();
        let total: f64 = (0..n)
            .map(|i| {
                let (p, q) = (o.points[i], o.points[(i + 1) % n]);
                (q.0 - p.0).hypot(q.1 - p.1)
            })
            .sum();
        let scale = f64::from(t.lap_length) / total;
        for (c, &i) in t.corners.iter().zip(&o.corners) {
            let k = c.spaces.len() as f64;
            let (sx, sy) = c.spaces.iter().map(|&s| l.get(s)).fold((0.0, 0.0), |a, p| (a.0 + p.0 / k, a.1 + p.1 / k));
            let (px, py) = (o.points[i].0 * scale, o.points[i].1 * scale);
            // The centroid of a corner's spaces lies inside the bend, the point on its line: a
            // few spaces apart at most, against a lap about 190 rows long.
            let d = (sx - px).hypot(sy - py) / l.spacing;
            assert!(d < 4.0, "corner {}: its spaces gather {d:.1} spaces from its outline point", c.number);
        }
        let far = 10 * ROW;
        for a in t.indices() {
            for b in t.indices().filter(|&b| b > a) {
                let (sa, sb) = (t.space(a), t.space(b));
                let gap = sa.progress.abs_diff(sb.progress);
                if gap.min(t.lap_length - gap.min(t.lap_length)) < far {
                    continue;
                }
                let (p, q) = (l.get(a), l.get(b));
                let d = (p.0 - q.0).hypot(p.1 - q.1) / l.spacing;
                assert!(d > 1.0, "{} and {} are {d:.2} spaces apart", sa.id, sb.id);
            }
        }
    }

    /// Every corner's flag stands on the grass: its box clears every space's disc, on the
    /// shipped tracks and an imported one.
    #[test]
    fn corner_flags_stand_clear_of_the_track() {
        let dat = crate::track::synthetic::Synthetic { egg: true, ..Default::default() }.dat(60);
        let imported = crate::track::import::import_str(&dat, "egg").expect("synthetic track").track;
        let mut tracks: Vec<Track> =
            ["sprint", "monaco", "oval"].iter().map(|n| crate::track::load::resolve(n).expect("shipped")).collect();
        tracks.push(imported);
        for t in &tracks {
            let l = Layout::of(t);
            assert_eq!(l.flags.len(), t.corners.len());
            for (c, f) in t.corners.iter().zip(&l.flags) {
                let (x, y) = f.unwrap_or_else(|| panic!("{}: corner {} has no flag", t.name, c.number));
                let (x0, y0, x1, y1) = flag_box(c.number, l.spacing);
                for (i, &(px, py)) in l.at.iter().enumerate() {
                    let dx = (x + x0 - px).max(px - (x + x1)).max(0.0);
                    let dy = (y + y0 - py).max(py - (y + y1)).max(0.0);
                    assert!(
                        dx.hypot(dy) > 0.42 * l.spacing,
                        "{}: corner {}'s flag covers space {}",
                        t.name,
                        c.number,
                        t.spaces[i].id
                    );
                }
            }
        }
    }
}
