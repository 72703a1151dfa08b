//! Puts every racing node in a lane.
//!
//! Lanes start at the finish line, leftmost first, and are traced forward through the nodes in
//! progress order: a node joins the lane whose last node has an arrow to it; when several do,
//! the lane that lags furthest behind takes it (every lane must keep moving forward), and on a
//! tie the lane that turns least. On straights a lane continues along its "own-lane" arrow, the
//! one also reachable through a lane change (`u -> w -> v` as well as `u -> v`); a straight node
//! reached only by lane-change arrows from lanes that continue elsewhere starts (or restarts)
//! the free lane on its side: that is how a track that narrows from four lanes to three and
//! widens again is traced.

use super::super::model::Track;
use super::super::problem::{Diagnostic, TrackProblem};
use super::layout::{FinishLine, Graph, LapOrder, Seg, Shape};

/// Lane of every node (`None` for non-racing nodes) and notes on lanes that end and restart.
pub struct Lanes {
    /// Lane per node, 0 = leftmost.
    pub lane: Vec<Option<u8>>,
    /// Human-readable notes.
    pub notes: Vec<String>,
}

/// Traces the lanes (see the module docs).
pub fn assign(g: &Graph, line: &FinishLine, lap: &LapOrder, shape: &Shape) -> Result<Lanes, Diagnostic> {
    let n = g.succ.len();
    let mut lanes: Vec<Vec<usize>> = line.nodes.iter().map(|&k| vec![k]).collect();
    let mut lane: Vec<Option<u8>> = vec![None; n];
    for (j, &k) in line.nodes.iter().enumerate() {
        lane[k] = Some(j as u8);
    }
    let mut position = vec![0usize; n];
    for (i, &k) in lap.order.iter().enumerate() {
        position[k] = i;
    }
    let mut rest: Vec<usize> = lap.order.iter().copied().filter(|&k| lane[k].is_none()).collect();
    rest.sort_by_key(|&k| (shape.progress[k], position[k]));

    let straight = |k: usize| matches!(shape.segment[k], Seg::Straight(_));
    let implied = |u: usize, v: usize| g.succ[u].iter().any(|&w| w != v && g.succ[w].contains(&v));
    let own_lane = |u: usize| g.succ[u].iter().copied().find(|&c| implied(u, c));
    let mut notes = Vec::new();

    for v in rest {
        let all: Vec<usize> = (0..lanes.len()).filter(|&j| g.succ[*lanes[j].last().unwrap()].contains(&v)).collect();
        let mut cands: Vec<usize> = all
            .iter()
            .copied()
            .filter(|&j| {
                let u = *lanes[j].last().unwrap();
                !(straight(u) && straight(v)) || implied(u, v) || own_lane(u).is_none()
            })
            .collect();
        if cands.is_empty() && !all.is_empty() {
            // Only lane changes lead here: a lane that had ended restarts beside its neighbour.
            let u = *lanes[all[0]].last().unwrap();
            let w = own_lane(u).unwrap_or(u);
            let (pu, pw, pv) = (g.pos(u), g.pos(w), g.pos(v));
            let d = (pw.0 - pu.0, pw.1 - pu.1);
            let r = (pv.0 - pw.0, pv.1 - pw.1);
            let on_left = r.0 * d.1 - r.1 * d.0 > 0.0;
            let here = lane[u].unwrap_or(0) as usize;
            let j = if on_left { here.checked_sub(1) } else { Some(here + 1) };
            if let Some(j) = j.filter(|&j| j < lanes.len()) {
                let last = *lanes[j].last().unwrap();
                if g.succ[last].iter().all(|&c| lane[c].is_some()) {
                    notes.push(format!(
                        "lane {} ends at node {} and restarts at node {} (the track narrows, then widens)",
                        Track::lane_name(lanes.len() as u8, j as u8),
                        g.id(last),
                        g.id(v)
                    ));
                    lanes[j].push(v);
                    lane[v] = Some(j as u8);
                    continue;
                }
            }
            cands = all;
        }
        let turn = |j: usize| {
            let l = &lanes[j];
            if l.len() < 2 {
                return 0.0;
            }
            let (a, b, c) = (g.pos(l[l.len() - 2]), g.pos(l[l.len() - 1]), g.pos(v));
            let (v1, v2) = ((b.0 - a.0, b.1 - a.1), (c.0 - b.0, c.1 - b.1));
            (v1.0 * v2.1 - v1.1 * v2.0).atan2(v1.0 * v2.0 + v1.1 * v2.1).abs()
        };
        let Some(j) = cands.into_iter().min_by(|&a, &b| {
            let (la, lb) = (*lanes[a].last().unwrap(), *lanes[b].last().unwrap());
            shape.progress[la].cmp(&shape.progress[lb]).then(turn(a).total_cmp(&turn(b))).then(a.cmp(&b))
        }) else {
            return Err(Diagnostic::at(
                g.line(v),
                TrackProblem::LaneInference(format!(
                    "node {} continues no lane: no lane's last node has an arrow to it",
                    g.id(v)
                )),
            ));
        };
        lanes[j].push(v);
        lane[v] = Some(j as u8);
    }
    Ok(Lanes { lane, notes })
}
