//! Infers the lap from a `.dat` graph: the finish line, the lap order, corners and progress.
//!
//! Rules (docs/import.md explains them with examples):
//! - The finish line is the set of type-5 (or `F`-flagged) nodes; files that mark none have it
//!   inferred at node 0 (the first node drawn, which is on the marked line in 38 of the 39
//!   reference files): the nodes just ahead of a cross-section through node 0, perpendicular to
//!   the direction of travel there. Its width is the number of lanes.
//! - Arrows into the line from behind it are the only ones that wrap; without them the racing
//!   arrows must form a DAG (else the arrows loop without crossing the line).
//! - Corners are the connected groups of curve nodes of one type; groups of one type lying side
//!   by side (overlapping progress) are one corner, as when a corner has no lane-change arrows.
//! - Progress (in [`ROW`] units): straights advance half a row per arrow along the longest chain
//!   of arrows (so staggered lanes sit half a row apart, like the TOML loader's straights); a
//!   corner starts half a row after the last space leading into it and places each space at its
//!   relative distance (1.0 = one row); the straight after it starts half a row after the corner's
//!   last space.

use std::collections::{BTreeSet, HashMap};

use super::super::model::ROW;
use super::super::problem::{Diagnostic, TrackProblem};
use super::dat::{Dat, NodeKind};

const HALF: u32 = ROW / 2;
/// Progress of the rearmost finish-line spaces (a quarter row past the line, as in the TOML
/// loader's first row).
pub const FIRST: u32 = ROW / 4;

/// The racing graph of a `.dat` file: racing nodes and the arrows between them.
pub struct Graph<'a> {
    /// The parsed file.
    pub dat: &'a Dat,
    /// Node positions that are racing spaces (blocked nodes excluded).
    pub racing: Vec<bool>,
    /// Racing arrows out of each node.
    pub succ: Vec<Vec<usize>>,
    /// Racing arrows into each node.
    pub pred: Vec<Vec<usize>>,
}

impl<'a> Graph<'a> {
    /// Builds the racing graph: arrows between racing nodes only.
    pub fn new(dat: &'a Dat) -> Self {
        let n = dat.nodes.len();
        let racing: Vec<bool> = dat.nodes.iter().map(|x| x.kind.is_racing()).collect();
        let mut succ = vec![Vec::new(); n];
        let mut pred = vec![Vec::new(); n];
        for &(a, b, _) in &dat.arrows {
            if racing[a] && racing[b] && !succ[a].contains(&b) {
                succ[a].push(b);
                pred[b].push(a);
            }
        }
        Graph { dat, racing, succ, pred }
    }

    /// Pixel position of a node.
    pub fn pos(&self, k: usize) -> (f64, f64) {
        let n = &self.dat.nodes[k];
        (n.x as f64, n.y as f64)
    }

    /// The id of a node in the file.
    pub fn id(&self, k: usize) -> u32 {
        self.dat.nodes[k].id
    }

    /// The line of a node in the file.
    pub fn line(&self, k: usize) -> u32 {
        self.dat.nodes[k].line
    }

    /// Stops of a curve node, `None` for other nodes.
    pub fn stops(&self, k: usize) -> Option<u8> {
        match self.dat.nodes[k].kind {
            NodeKind::Curve(s) => Some(s),
            _ => None,
        }
    }

    /// Median length of the racing arrows in pixels: about one row.
    pub fn row_pixels(&self) -> f64 {
        let mut lens: Vec<f64> = (0..self.succ.len())
            .flat_map(|a| self.succ[a].iter().map(move |&b| (a, b)))
            .map(|(a, b)| dist(self.pos(a), self.pos(b)))
            .collect();
        if lens.is_empty() {
            return 1.0;
        }
        lens.sort_by(f64::total_cmp);
        lens[lens.len() / 2].max(1.0)
    }
}

/// Euclidean distance.
pub fn dist(a: (f64, f64), b: (f64, f64)) -> f64 {
    (a.0 - b.0).hypot(a.1 - b.1)
}

/// Unit vector from `a` to `b` (zero if they coincide).
pub fn unit(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let d = dist(a, b);
    if d == 0.0 { (0.0, 0.0) } else { ((b.0 - a.0) / d, (b.1 - a.1) / d) }
}

/// The finish line.
pub struct FinishLine {
    /// Its nodes, leftmost first (in the direction of travel).
    pub nodes: Vec<usize>,
    /// True when the file marks it (type 5 or `F`), false when inferred at node 0.
    pub declared: bool,
}

/// Finds the finish line (see the module docs).
pub fn finish_line(g: &Graph) -> Result<FinishLine, Diagnostic> {
    let dat = g.dat;
    let declared: Vec<usize> =
        (0..dat.nodes.len()).filter(|&k| dat.nodes[k].kind == NodeKind::Finish || dat.nodes[k].finish_flag).collect();
    let (nodes, is_declared) = if !declared.is_empty() {
        if let Some(&k) = declared.iter().find(|&&k| !g.racing[k] || dat.nodes[k].kind == NodeKind::Pit) {
            return Err(Diagnostic::at(
                g.line(k),
                TrackProblem::FinishLine(format!(
                    "node {} is marked as on the line but is not a racing space",
                    g.id(k)
                )),
            ));
        }
        (declared, true)
    } else {
        (inferred_line(g)?, false)
    };
    if !(2..=4).contains(&nodes.len()) {
        let ids: Vec<String> = nodes.iter().map(|&k| g.id(k).to_string()).collect();
        return Err(Diagnostic::at(
            nodes.first().map(|&k| g.line(k)).unwrap_or(0),
            TrackProblem::FinishLine(format!(
                "it has {} node(s) ({}); a track has 2 to 4 lanes",
                nodes.len(),
                ids.join(", ")
            )),
        ));
    }
    // Order left to right: direction of travel from the line nodes to their successors.
    let mut d = (0.0, 0.0);
    for &a in &nodes {
        for &b in g.succ[a].iter().filter(|b| !nodes.contains(b)) {
            let u = unit(g.pos(a), g.pos(b));
            d = (d.0 + u.0, d.1 + u.1);
        }
    }
    // Image rows grow downwards, so the left of direction (dx, dy) is (dy, -dx).
    let left = |k: usize| {
        let p = g.pos(k);
        p.0 * d.1 - p.1 * d.0
    };
    let mut nodes = nodes;
    nodes.sort_by(|&a, &b| left(b).total_cmp(&left(a)));
    Ok(FinishLine { nodes, declared: is_declared })
}

fn inferred_line(g: &Graph) -> Result<Vec<usize>, Diagnostic> {
    let dat = g.dat;
    let Some(r) = (0..dat.nodes.len()).find(|&k| dat.nodes[k].id == 0).or(Some(0)).filter(|&k| g.racing[k]) else {
        return Err(Diagnostic::at(
            dat.nodes.first().map(|n| n.line).unwrap_or(0),
            TrackProblem::FinishLine(
                "no node is marked as on the line (type 5 or `F`) and node 0 is not a racing space to infer it from"
                    .into(),
            ),
        ));
    };
    let row = g.row_pixels();
    let mut d = (0.0, 0.0);
    for &b in &g.succ[r] {
        let u = unit(g.pos(r), g.pos(b));
        d = (d.0 + u.0, d.1 + u.1);
    }
    for &a in &g.pred[r] {
        let u = unit(g.pos(a), g.pos(r));
        d = (d.0 + u.0, d.1 + u.1);
    }
    let norm = d.0.hypot(d.1);
    if norm == 0.0 {
        return Err(Diagnostic::at(
            g.line(r),
            TrackProblem::FinishLine("node 0 has no arrows to tell the direction of travel by".into()),
        ));
    }
    let d = (d.0 / norm, d.1 / norm);
    let p0 = g.pos(r);
    let ahead = |k: usize| {
        let p = g.pos(k);
        (p.0 - p0.0) * d.0 + (p.1 - p0.1) * d.1
    };
    let near = |k: usize| dist(g.pos(k), p0) < 3.0 * row;
    let q = 0.3 * row;
    let mut line = BTreeSet::new();
    for a in (0..g.succ.len()).filter(|&a| g.racing[a] && near(a) && ahead(a) < -q) {
        for &b in &g.succ[a] {
            if near(b) && ahead(b) >= -q {
                line.insert(b);
            }
        }
    }
    if !line.contains(&r) {
        return Err(Diagnostic::at(
            g.line(r),
            TrackProblem::FinishLine(
                "no node is marked as on the line, and no arrow from behind node 0 crosses a line through it".into(),
            ),
        ));
    }
    Ok(line.into_iter().collect())
}

/// The lap order: a topological order of the racing nodes once the arrows into the finish line
/// are cut.
pub struct LapOrder {
    /// Racing nodes, each after all its non-wrapping predecessors.
    pub order: Vec<usize>,
    /// Arrows that cross the finish line, as (from, to).
    pub wraps: BTreeSet<(usize, usize)>,
}

impl LapOrder {
    /// The predecessors of `k` along non-wrapping arrows.
    pub fn preds<'g>(&'g self, g: &'g Graph, k: usize) -> impl Iterator<Item = usize> + 'g {
        g.pred[k].iter().copied().filter(move |&p| !self.wraps.contains(&(p, k)))
    }
}

/// Cuts the arrows into the line and orders the racing nodes.
pub fn lap_order(g: &Graph, line: &FinishLine) -> Result<LapOrder, Diagnostic> {
    let n = g.succ.len();
    let on_line = |k: usize| line.nodes.contains(&k);
    let mut wraps = BTreeSet::new();
    for &b in &line.nodes {
        for &a in &g.pred[b] {
            if !on_line(a) {
                wraps.insert((a, b));
            }
        }
    }
    let mut indeg = vec![0usize; n];
    for a in 0..n {
        for &b in &g.succ[a] {
            if !wraps.contains(&(a, b)) {
                indeg[b] += 1;
            }
        }
    }
    if let Some(k) = (0..n).find(|&k| g.racing[k] && indeg[k] == 0 && !on_line(k)) {
        return Err(Diagnostic::at(
            g.line(k),
            TrackProblem::Unreachable(format!("node {} (no arrow leads to it)", g.id(k))),
        ));
    }
    let mut ready: Vec<usize> = line.nodes.iter().copied().filter(|&k| indeg[k] == 0).collect();
    ready.reverse();
    let mut order = Vec::with_capacity(n);
    while let Some(a) = ready.pop() {
        order.push(a);
        for &b in g.succ[a].iter().rev() {
            if wraps.contains(&(a, b)) {
                continue;
            }
            indeg[b] -= 1;
            if indeg[b] == 0 {
                ready.push(b);
            }
        }
    }
    let racing = g.racing.iter().filter(|&&r| r).count();
    if order.len() != racing {
        let stuck: Vec<usize> = (0..n).filter(|&k| g.racing[k] && indeg[k] > 0).collect();
        let ids: Vec<String> = stuck.iter().take(8).map(|&k| g.id(k).to_string()).collect();
        let more = if stuck.len() > 8 { format!(" and {} more", stuck.len() - 8) } else { String::new() };
        return Err(Diagnostic::at(
            stuck.first().map(|&k| g.line(k)).unwrap_or(0),
            TrackProblem::ArrowLoop(format!("{}{more}", ids.join(", "))),
        ));
    }
    Ok(LapOrder { order, wraps })
}

/// A corner as inferred: its curve nodes and flag stops.
#[derive(Clone, Debug)]
pub struct CornerGroup {
    /// Required stops (from the node type).
    pub stops: u8,
    /// Its nodes.
    pub members: Vec<usize>,
}

/// Where a racing node lies.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Seg {
    /// In the straight after corner `k` (1-based; 0 = the straight after the line): `s<k>`.
    Straight(usize),
    /// In corner `c` (0-based index, lap order): `c<c+1>`.
    Corner(usize),
}

/// Progress and segments of every racing node.
pub struct Shape {
    /// Progress per node (racing nodes only; 0 elsewhere).
    pub progress: Vec<u32>,
    /// Corners in lap order.
    pub corners: Vec<CornerGroup>,
    /// The segment of each racing node.
    pub segment: Vec<Seg>,
    /// Human-readable notes on what was merged.
    pub notes: Vec<String>,
}

/// Groups curve nodes into corners and computes progress (see the module docs).
pub fn shape(g: &Graph, lap: &LapOrder) -> Result<Shape, Diagnostic> {
    let n = g.succ.len();
    // Relative distances of curve nodes.
    let mut rel: Vec<Option<f64>> = vec![None; n];
    for &(k, v, line) in &g.dat.attributes {
        if g.stops(k).is_some() {
            if v < 0.0 {
                return Err(Diagnostic::at(
                    line,
                    TrackProblem::CurveDistance {
                        node: g.id(k),
                        message: format!("relative distance {v} is negative"),
                    },
                ));
            }
            rel[k] = Some(v);
        }
    }
    if let Some(k) = (0..n).find(|&k| g.racing[k] && g.stops(k).is_some() && rel[k].is_none()) {
        return Err(Diagnostic::at(
            g.line(k),
            TrackProblem::CurveDistance {
                node: g.id(k),
                message: "it has no relative distance in the attribute list".into(),
            },
        ));
    }
    let rel: Vec<f64> = rel.into_iter().map(|r| r.unwrap_or(0.0)).collect();

    // Connected groups of same-type curve nodes.
    let mut group: Vec<Option<usize>> = vec![None; n];
    let mut groups: Vec<CornerGroup> = Vec::new();
    for &k in &lap.order {
        let Some(stops) = g.stops(k) else { continue };
        if group[k].is_some() {
            continue;
        }
        let gi = groups.len();
        let mut members = vec![k];
        group[k] = Some(gi);
        let mut i = 0;
        while i < members.len() {
            let x = members[i];
            i += 1;
            for &y in g.succ[x].iter().chain(g.pred[x].iter()) {
                if group[y].is_none() && g.stops(y) == Some(stops) && !lap.wraps.contains(&(x, y)) {
                    group[y] = Some(gi);
                    members.push(y);
                }
            }
        }
        groups.push(CornerGroup { stops, members });
    }

    let mut notes = Vec::new();
    loop {
        let progress = place(g, lap, &group, &groups, &rel)?;
        // Merge two groups of one type lying side by side.
        let span = |c: &CornerGroup| {
            let lo = c.members.iter().map(|&m| progress[m]).min().unwrap_or(0);
            let hi = c.members.iter().map(|&m| progress[m]).max().unwrap_or(0);
            (lo, hi)
        };
        let live: Vec<usize> = (0..groups.len()).filter(|&c| !groups[c].members.is_empty()).collect();
        let mut merge = None;
        'outer: for (i, &a) in live.iter().enumerate() {
            for &b in &live[i + 1..] {
                let (sa, sb) = (span(&groups[a]), span(&groups[b]));
                if groups[a].stops == groups[b].stops && sa.0 <= sb.1 && sb.0 <= sa.1 {
                    merge = Some((a, b));
                    break 'outer;
                }
            }
        }
        let Some((a, b)) = merge else {
            // Final numbering: corners in lap order.
            let mut live = live;
            live.sort_by_key(|&c| span(&groups[c]).0);
            let renumber: HashMap<usize, usize> = live.iter().enumerate().map(|(i, &c)| (c, i)).collect();
            let corners: Vec<CornerGroup> = live.iter().map(|&c| groups[c].clone()).collect();
            let segment = segments(g, lap, &group, &progress, &renumber);
            return Ok(Shape { progress, corners, segment, notes });
        };
        let ids = |c: &CornerGroup| {
            let mut v: Vec<u32> = c.members.iter().map(|&m| g.id(m)).collect();
            v.sort();
            v.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", ")
        };
        notes.push(format!(
            "curve nodes {{{}}} and {{{}}} ({}-stop) lie side by side with no arrow between them: one corner",
            ids(&groups[a]),
            ids(&groups[b]),
            groups[a].stops
        ));
        let moved = std::mem::take(&mut groups[b].members);
        for &m in &moved {
            group[m] = Some(a);
        }
        groups[a].members.extend(moved);
    }
}

/// Computes progress for a grouping; straights after a corner are found by following the arrows.
fn place(
    g: &Graph,
    lap: &LapOrder,
    group: &[Option<usize>],
    groups: &[CornerGroup],
    rel: &[f64],
) -> Result<Vec<u32>, Diagnostic> {
    let n = g.succ.len();
    let mut prog: Vec<Option<u32>> = vec![None; n];
    // For straights: the corner group they follow (None = the line).
    let mut after: Vec<Option<usize>> = vec![None; n];
    let mut end: Vec<Option<u32>> = vec![None; groups.len()];
    let rank = |after: Option<usize>, end: &[Option<u32>]| after.and_then(|c| end[c]).unwrap_or(0);
    let mut left = lap.order.len();
    while left > 0 {
        let before = left;
        for &v in &lap.order {
            if prog[v].is_some() {
                continue;
            }
            if let Some(c) = group[v] {
                let members = &groups[c].members;
                let mut base = None;
                let mut ready = true;
                for &m in members {
                    for p in lap.preds(g, m) {
                        if group[p] == Some(c) {
                            continue;
                        }
                        match prog[p] {
                            Some(x) => base = Some(base.unwrap_or(0).max(x + HALF)),
                            None => ready = false,
                        }
                    }
                }
                if !ready {
                    continue;
                }
                let base = base.unwrap_or(FIRST);
                let lo = members.iter().map(|&m| rel[m]).fold(f64::INFINITY, f64::min);
                let mut hi = 0;
                for &m in members {
                    let p = base + ((rel[m] - lo) * ROW as f64).round() as u32;
                    prog[m] = Some(p);
                    hi = hi.max(p);
                    left -= 1;
                }
                end[c] = Some(hi + HALF);
            } else {
                let preds: Vec<usize> = lap.preds(g, v).collect();
                if preds.iter().any(|&p| prog[p].is_none()) {
                    continue;
                }
                if preds.is_empty() {
                    prog[v] = Some(FIRST);
                    left -= 1;
                    continue;
                }
                // The segment: the latest one among the predecessors'.
                let seg_of = |p: usize| if group[p].is_some() { group[p] } else { after[p] };
                let seg = preds.iter().map(|&p| seg_of(p)).max_by_key(|&s| rank(s, &end)).flatten();
                let entry = preds.iter().any(|&p| seg_of(p) != seg || group[p].is_some());
                let mut p = preds.iter().map(|&p| prog[p].unwrap_or(0)).max().unwrap_or(0) + HALF;
                if entry && let Some(c) = seg {
                    p = p.max(end[c].unwrap_or(0));
                }
                prog[v] = Some(p);
                after[v] = seg;
                left -= 1;
            }
        }
        if left == before {
            let k = lap.order.iter().copied().find(|&k| prog[k].is_none()).unwrap_or(0);
            return Err(Diagnostic::at(
                g.line(k),
                TrackProblem::CurveDistance {
                    node: g.id(k),
                    message: "its corner is entered from a space that lies after the corner; no lap order fits".into(),
                },
            ));
        }
    }
    Ok(prog.into_iter().map(|p| p.unwrap_or(0)).collect())
}

/// Assigns straights to segments: the straight after the latest corner among its predecessors.
fn segments(
    g: &Graph,
    lap: &LapOrder,
    group: &[Option<usize>],
    progress: &[u32],
    renumber: &HashMap<usize, usize>,
) -> Vec<Seg> {
    let n = g.succ.len();
    let mut seg: Vec<Seg> = vec![Seg::Straight(0); n];
    // Process in progress order so predecessors come first.
    let mut order = lap.order.clone();
    order.sort_by_key(|&k| progress[k]);
    for &v in &order {
        if let Some(c) = group[v] {
            seg[v] = Seg::Corner(renumber[&c]);
            continue;
        }
        let k = lap
            .preds(g, v)
            .map(|p| match seg[p] {
                Seg::Corner(c) => c + 1,
                Seg::Straight(k) => k,
            })
            .max()
            .unwrap_or(0);
        seg[v] = Seg::Straight(k);
    }
    seg
}
