//! Builds the [`Track`] from the inferred lap through [`TrackBuilder`], so ids, reverse links and
//! lateral neighbours derive exactly as for TOML tracks.

use std::collections::HashMap;

use super::super::builder::{SpaceDraft, TrackBuilder};
use super::super::check::corner_paths;
use super::super::model::{CornerIdx, ROW, SpaceIdx, SpaceKind, Track, WeatherTable, forward_gap};
use super::super::problem::{Diagnostic, TrackProblem};
use super::dat::NodeKind;
use super::lanes::Lanes;
use super::layout::{FinishLine, Graph, Seg, Shape};

/// Everything needed to build the track, computed once.
pub struct Plan {
    name: String,
    title: String,
    lanes: u8,
    weather: WeatherTable,
    /// Segments in lap order: (id, corner index).
    segments: Vec<(String, Option<usize>)>,
    /// Corners: (stops, line).
    corners: Vec<(u8, u32)>,
    /// Spaces in track order: (node, draft without segment index resolved).
    spaces: Vec<(usize, SpaceDraft)>,
    /// Arrows between kept nodes, as space indices.
    links: Vec<(SpaceIdx, SpaceIdx)>,
    grid: Vec<SpaceIdx>,
    pit_lane: Vec<SpaceIdx>,
    /// Notes about the pit lane and the grid.
    pub notes: Vec<String>,
}

impl Plan {
    /// The .dat node position behind each space of the built track.
    pub fn node_of(&self) -> Vec<usize> {
        self.spaces.iter().map(|(k, _)| *k).collect()
    }

    /// Builds the track with the given corner flags (shortest, longest), lap order.
    pub fn build(&self, flags: &[(u16, u16)]) -> Track {
        let mut b = TrackBuilder::new(&self.name, &self.title, self.lanes, self.weather.clone());
        for (id, corner) in &self.segments {
            match corner {
                Some(c) => {
                    let (stops, line) = self.corners[*c];
                    let (lo, hi) = flags.get(*c).copied().unwrap_or((0, 0));
                    b.add_corner(id, stops, lo, hi, line);
                }
                None => {
                    b.add_straight(id);
                }
            }
        }
        for (_, d) in &self.spaces {
            b.add_space(d.clone());
        }
        for &(a, c) in &self.links {
            b.link(a, c);
        }
        b.set_grid(self.grid.clone());
        b.set_pit_lane(self.pit_lane.clone());
        b.finish()
    }

    /// Builds the track, computing each corner's flag from the arrows (as `check` does).
    pub fn build_with_flags(&self) -> Track {
        let draft = self.build(&[]);
        let flags: Vec<(u16, u16)> =
            (0..self.corners.len()).map(|c| corner_paths(&draft, CornerIdx(c as u16))).collect();
        self.build(&flags)
    }
}

/// Lays out the spaces, the pit lane and the grid.
pub fn plan(
    g: &Graph,
    line: &FinishLine,
    shape: &Shape,
    lanes: &Lanes,
    name: &str,
    title: &str,
    weather: WeatherTable,
) -> Result<Plan, Vec<Diagnostic>> {
    let dat = g.dat;
    let n = dat.nodes.len();
    let mut notes = Vec::new();
    let lane_count = line.nodes.len() as u8;

    // Segments in lap order: s0, c1, s1, c2, ... (empty straights are left out).
    let key = |s: Seg| match s {
        Seg::Straight(k) => 2 * k,
        Seg::Corner(c) => 2 * c + 1,
    };
    let racing: Vec<usize> = (0..n).filter(|&k| g.racing[k]).collect();
    let mut used: Vec<bool> = vec![false; 2 * shape.corners.len() + 1];
    for &k in &racing {
        used[key(shape.segment[k])] = true;
    }
    let mut segments = Vec::new();
    let mut seg_index: HashMap<usize, u16> = HashMap::new();
    for (s, &u) in used.iter().enumerate() {
        if s % 2 == 1 {
            let c = s / 2;
            seg_index.insert(s, segments.len() as u16);
            segments.push((format!("c{}", c + 1), Some(c)));
        } else if u {
            seg_index.insert(s, segments.len() as u16);
            segments.push((format!("s{}", s / 2), None));
        }
    }
    let corners: Vec<(u8, u32)> = shape
        .corners
        .iter()
        .map(|c| {
            let first = c.members.iter().copied().min_by_key(|&m| (shape.progress[m], g.line(m))).unwrap_or(0);
            (c.stops, g.line(first))
        })
        .collect();

    // Space lengths: a straight space is a row; corner spaces share the corner's depth per lane.
    let mut lane_count_in: HashMap<(usize, u8), u32> = HashMap::new();
    for &k in &racing {
        if let Seg::Corner(c) = shape.segment[k] {
            *lane_count_in.entry((c, lanes.lane[k].unwrap_or(0))).or_default() += 1;
        }
    }
    let depth: Vec<u32> = shape
        .corners
        .iter()
        .map(|c| {
            let lo = c.members.iter().map(|&m| shape.progress[m]).min().unwrap_or(0);
            let hi = c.members.iter().map(|&m| shape.progress[m]).max().unwrap_or(0);
            hi - lo + ROW
        })
        .collect();

    let mut order = racing.clone();
    order.sort_by_key(|&k| (key(shape.segment[k]), lanes.lane[k], shape.progress[k], k));
    let mut spaces: Vec<(usize, SpaceDraft)> = order
        .iter()
        .map(|&k| {
            let seg = shape.segment[k];
            let lane = lanes.lane[k].unwrap_or(0);
            let length = match seg {
                Seg::Corner(c) => depth[c] / lane_count_in[&(c, lane)].max(1),
                Seg::Straight(_) => ROW,
            };
            let draft = SpaceDraft {
                lane,
                kind: SpaceKind::Racing,
                segment: Some(seg_index[&key(seg)]),
                progress: shape.progress[k],
                length,
                wall: false,
                line: g.line(k),
                at: Some((dat.nodes[k].x, dat.nodes[k].y)),
            };
            (k, draft)
        })
        .collect();

    // Lap length, as the builder will compute it.
    let lap = {
        let end = spaces.iter().map(|(_, d)| d.progress + d.length / 2).max().unwrap_or(ROW);
        end.div_ceil(ROW).max(1) * ROW
    };

    // The pit lane: one chain of type-7 nodes from the racing track back to it.
    let pit = pit_chain(g)?;
    let mut pit_lane = Vec::new();
    if !pit.is_empty() {
        let first = pit[0];
        let last = pit[pit.len() - 1];
        let progress = |k: usize| g.racing[k].then_some(shape.progress[k]);
        let entries: Vec<u32> =
            dat.arrows.iter().filter(|a| a.1 == first && g.racing[a.0]).filter_map(|a| progress(a.0)).collect();
        let exits: Vec<u32> =
            dat.arrows.iter().filter(|a| a.0 == last && g.racing[a.1]).filter_map(|a| progress(a.1)).collect();
        let from = entries.iter().copied().max().unwrap_or(0);
        let to = exits.iter().copied().min().unwrap_or(from);
        let gap = match forward_gap(from, to, lap) {
            0 => lap,
            x => x,
        };
        let step = (gap / (pit.len() as u32 + 1)).max(1);
        let boxes: HashMap<usize, f64> =
            dat.attributes.iter().filter(|a| dat.nodes[a.0].kind == NodeKind::Pit).map(|a| (a.0, a.1)).collect();
        let mut box_no = 0u8;
        for (i, &k) in pit.iter().enumerate() {
            let kind = match boxes.get(&k) {
                Some(&v) if v != 0.0 => {
                    box_no += 1;
                    SpaceKind::PitBox(box_no)
                }
                _ => SpaceKind::PitLane,
            };
            if let Some(&v) = boxes.get(&k).filter(|&&v| v != 1.0) {
                notes.push(format!("pit node {} has attribute {v}; read as {}", g.id(k), kind_name(kind)));
            }
            pit_lane.push(SpaceIdx(spaces.len() as u16));
            spaces.push((
                k,
                SpaceDraft {
                    lane: 0,
                    kind,
                    segment: None,
                    progress: (from + step * (i as u32 + 1)) % lap,
                    length: step,
                    wall: false,
                    line: g.line(k),
                    at: Some((dat.nodes[k].x, dat.nodes[k].y)),
                },
            ));
        }
        notes.push(format!(
            "pit lane: {} spaces from node {} to node {}, {} boxes (pit nodes flagged 1.0 in the attribute list), \
             placed evenly between the spaces leading into and out of it",
            pit.len(),
            g.id(first),
            g.id(last),
            box_no
        ));
    }

    let index: HashMap<usize, SpaceIdx> =
        spaces.iter().enumerate().map(|(i, (k, _))| (*k, SpaceIdx(i as u16))).collect();
    let mut links = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for &(a, b, _) in &dat.arrows {
        if let (Some(&x), Some(&y)) = (index.get(&a), index.get(&b))
            && seen.insert((x, y))
        {
            links.push((x, y));
        }
    }

    // The grid, pole first: the slot nearest behind the line.
    let mut grid_nodes: Vec<(usize, u32)> = Vec::new();
    let mut diags = Vec::new();
    for (slot, &(k, _, l)) in dat.grid.iter().enumerate() {
        match index.get(&k) {
            Some(_) if g.racing[k] => grid_nodes.push((k, l)),
            _ => diags.push(Diagnostic::at(
                l,
                TrackProblem::BadGridSlot {
                    slot: slot + 1,
                    space: format!("node {}", g.id(k)),
                    why: "is not a racing space".into(),
                },
            )),
        }
    }
    if !diags.is_empty() {
        return Err(diags);
    }
    grid_nodes.sort_by_key(|&(k, _)| lap - shape.progress[k] % lap);
    let grid: Vec<SpaceIdx> = grid_nodes.iter().map(|(k, _)| index[k]).collect();
    if !grid_nodes.is_empty() {
        let ids: Vec<String> = grid_nodes.iter().map(|&(k, _)| g.id(k).to_string()).collect();
        notes.push(format!(
            "grid: {} slots, pole first (nearest behind the line; the file's order and angles are not used): nodes {}",
            ids.len(),
            ids.join(", ")
        ));
    }

    Ok(Plan {
        name: name.into(),
        title: title.into(),
        lanes: lane_count,
        weather,
        segments,
        corners,
        spaces,
        links,
        grid,
        pit_lane,
        notes,
    })
}

fn kind_name(k: SpaceKind) -> &'static str {
    match k {
        SpaceKind::PitBox(_) => "a pit box",
        _ => "a pit-lane space",
    }
}

/// The pit nodes in driving order: entered from the racing track, one arrow to the next.
fn pit_chain(g: &Graph) -> Result<Vec<usize>, Vec<Diagnostic>> {
    let dat = g.dat;
    let is_pit = |k: usize| dat.nodes[k].kind == NodeKind::Pit;
    let pits: Vec<usize> = (0..dat.nodes.len()).filter(|&k| is_pit(k)).collect();
    if pits.is_empty() {
        return Ok(Vec::new());
    }
    let problem = |k: usize, m: String| vec![Diagnostic::at(g.line(k), TrackProblem::PitLane(m))];
    let mut firsts: Vec<usize> = dat.arrows.iter().filter(|a| is_pit(a.1) && g.racing[a.0]).map(|a| a.1).collect();
    firsts.sort();
    firsts.dedup();
    let first = match firsts.as_slice() {
        [f] => *f,
        [] => return Err(problem(pits[0], "no racing space leads into the pit lane".into())),
        [a, b, ..] => {
            return Err(problem(
                *b,
                format!("the racing track leads into two pit nodes, {} and {}", g.id(*a), g.id(*b)),
            ));
        }
    };
    let mut chain = vec![first];
    let mut seen = vec![false; dat.nodes.len()];
    seen[first] = true;
    loop {
        let here = *chain.last().unwrap();
        let mut next: Vec<usize> = dat.arrows.iter().filter(|a| a.0 == here && is_pit(a.1)).map(|a| a.1).collect();
        next.dedup();
        match next.as_slice() {
            [] => break,
            [x] if !seen[*x] => {
                seen[*x] = true;
                chain.push(*x);
            }
            [x] => return Err(problem(*x, format!("the pit lane loops back to node {}", g.id(*x)))),
            _ => return Err(problem(here, format!("the pit lane branches at node {}", g.id(here)))),
        }
    }
    if let Some(&k) = pits.iter().find(|&&k| !seen[k]) {
        return Err(problem(k, format!("pit node {} is not on the pit lane from node {}", g.id(k), g.id(first))));
    }
    Ok(chain)
}
