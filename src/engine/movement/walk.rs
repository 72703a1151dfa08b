//! Walking a path a player names by waypoints, checked against the driving code, and the wall
//! entries of a path.

use super::fields::Fields;
use super::layer::Layer;
use super::node::Node;
use super::step::step;
use super::{Board, Mover, Reach, path_in, reach_of, reaches_root};
use crate::track::model::Arrow;
use crate::track::{SpaceIdx, Track};

/// A path named by waypoints, checked against the driving code.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Walk {
    /// Where it ends and what it costs.
    pub reach: Reach,
    /// The spaces entered, in order.
    pub path: Vec<SpaceIdx>,
}

/// The legal ways to drive through the spaces `via` in order and stop on the last one, at most
/// `m.max` spaces long: one path for each length that has one, shortest first. This is how a path
/// a player (or a rulebook example) names is checked against the driving code (7, 10-2): the same
/// steps as [`reaches`], with the waypoints met so far added to the search state.
pub fn through(b: &Board<'_>, m: &Mover, via: &[SpaceIdx]) -> Vec<Walk> {
    let Some(&last) = via.last() else { return Vec::new() };
    let t = b.track;
    let root = reaches_root(b, m);
    let mut fields = Fields::new(t);
    // The states, and the waypoints each has met.
    let mut nodes: Vec<Node> = vec![root];
    let mut mets: Vec<usize> = vec![0];
    let mut layer = 0..1usize;
    let mut out = Vec::new();
    let mut next = Layer::<usize>::new(64);
    let walls = b.walls && t.has_walls();
    for _ in 0..m.max {
        next.clear(t.spaces.len(), &nodes);
        for i in layer.clone() {
            let (mut n, met) = (nodes[i], mets[i]);
            if met == via.len() {
                continue; // the path has reached its last waypoint: it stops there
            }
            let pos = SpaceIdx(n.pos());
            let (here, arrows) = t.arrows(pos);
            for &Arrow { to: nxt, there } in arrows {
                if let Some(mut child) = step::<false>(b, walls, &mut fields, &mut n, pos, here, nxt, there, m.max) {
                    let met = if nxt == via[met] { met + 1 } else { met };
                    child.parent = i as u32;
                    next.add::<false>(&mut nodes, child, met);
                }
            }
        }
        let next_start = next.base;
        if nodes.len() == next_start {
            break;
        }
        mets.extend_from_slice(&next.tags);
        let done = (next_start..nodes.len()).find(|&i| mets[i] == via.len() && SpaceIdx(nodes[i].pos()) == last);
        if let Some(i) = done {
            out.push(Walk {
                reach: reach_of(&nodes[i], i as u32),
                path: path_in(&nodes, i as u32, nodes[i].k() as usize),
            });
        }
        layer = next_start..nodes.len();
    }
    out
}

/// The wall entries of a move from `start` along `path`: one body test against the wall each
/// (15-0-2, 15-0-4).
pub fn wall_entries(t: &Track, start: SpaceIdx, path: &[SpaceIdx]) -> u8 {
    if !t.has_walls() {
        return 0;
    }
    let mut prev = start;
    let mut n = 0u8;
    for &p in path {
        if t.space(p).wall && !t.space(prev).wall {
            n = n.saturating_add(1);
        }
        prev = p;
    }
    n
}
