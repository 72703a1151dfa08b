//! Structural checks of a built track: what `steward track check` reports.
//!
//! Every check runs and every problem is reported, so a moderator fixes a file in one pass.
//! The engine relies on these properties (Architecture invariant: a track the loaders accept
//! passed `check`): every space has a way forward and a way to the line, arrows never go backwards
//! or jump a lane, each corner's arrows agree with its flag, and a full field (10 cars) has grid
//! slots and pit boxes.

use std::collections::VecDeque;

use super::model::{CornerIdx, SpaceIdx, Track};
use super::problem::{Diagnostic, TrackProblem};

/// A full Formula Dé field: ten cars need ten grid slots and ten pit boxes (4-0-1).
pub const FULL_FIELD: usize = 10;

/// Runs every check; an empty result means the track is sound.
pub fn check(t: &Track) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let id = |s: SpaceIdx| t.space(s).id.clone();
    let line = |s: SpaceIdx| t.space_lines.get(s.get()).copied().unwrap_or(0);

    // Dead ends, backward arrows, lane jumps.
    for s in t.indices() {
        let next = t.next(s);
        if next.is_empty() {
            out.push(Diagnostic::at(line(s), TrackProblem::DeadEnd(id(s))));
        }
        for &n in next {
            let gap = t.progress_gap(s, n);
            if gap == 0 || gap > t.lap_length / 2 {
                out.push(Diagnostic::at(line(s), TrackProblem::Backwards { from: id(s), to: id(n) }));
            }
            let (a, b) = (t.space(s), t.space(n));
            if !a.in_pit_lane() && !b.in_pit_lane() && a.lane.abs_diff(b.lane) > 1 {
                out.push(Diagnostic::at(line(s), TrackProblem::LaneJump { from: id(s), to: id(n) }));
            }
        }
    }

    // Reachability from the grid, and the finish line from everywhere.
    if !t.grid.is_empty() {
        let reached = flood(t, &t.grid, |s| t.next(s));
        for s in t.indices().filter(|s| !reached[s.get()]) {
            out.push(Diagnostic::at(line(s), TrackProblem::Unreachable(id(s))));
        }
    }
    let crossing: Vec<SpaceIdx> = t.indices().filter(|&s| t.next(s).iter().any(|&n| t.crosses_line(s, n))).collect();
    let finishes = flood(t, &crossing, |s| t.prev(s));
    for s in t.indices().filter(|s| !finishes[s.get()]) {
        out.push(Diagnostic::at(line(s), TrackProblem::CannotFinish(id(s))));
    }

    // Corners: flag values, lane lengths, and the arrows' shortest/longest way through.
    for (ci, c) in t.corners.iter().enumerate() {
        let cline = t.corner_lines.get(ci).copied().unwrap_or(0);
        if !(1..=3).contains(&c.stops) {
            out.push(Diagnostic::at(cline, TrackProblem::CornerStops { corner: c.number, stops: c.stops }));
        }
        if c.spaces.is_empty() {
            out.push(Diagnostic::at(cline, TrackProblem::EmptyCorner(c.number)));
            continue;
        }
        for lane in 0..t.lanes {
            let length = c.spaces.iter().filter(|s| t.space(**s).lane == lane).count() as u16;
            // A lane with no space in the corner does not run through it: the track is narrower
            // there (Indianapolis's fourth lane exists only on the oval).
            if length > 0 && (length < c.shortest || length > c.longest) {
                out.push(Diagnostic::at(
                    cline,
                    TrackProblem::LaneLength {
                        corner: c.number,
                        lane: Track::lane_name(t.lanes, lane),
                        length,
                        shortest: c.shortest,
                        longest: c.longest,
                    },
                ));
            }
        }
        let (lo, hi) = corner_paths(t, CornerIdx(ci as u16));
        if (lo, hi) != (c.shortest, c.longest) {
            out.push(Diagnostic::at(
                cline,
                TrackProblem::CornerPath {
                    corner: c.number,
                    shortest: c.shortest,
                    longest: c.longest,
                    computed_shortest: lo,
                    computed_longest: hi,
                },
            ));
        }
    }

    // Grid and pits.
    if t.grid.len() < FULL_FIELD {
        out.push(Diagnostic::at(0, TrackProblem::GridTooSmall { have: t.grid.len(), need: FULL_FIELD }));
    }
    for (k, &s) in t.grid.iter().enumerate() {
        let why = if t.space(s).in_pit_lane() {
            Some("is in the pit lane")
        } else if t.grid[..k].contains(&s) {
            Some("is used twice")
        } else {
            None
        };
        if let Some(why) = why {
            out.push(Diagnostic::at(line(s), TrackProblem::BadGridSlot { slot: k + 1, space: id(s), why: why.into() }));
        }
    }
    if t.pit_boxes.len() < FULL_FIELD {
        out.push(Diagnostic::at(0, TrackProblem::TooFewBoxes { have: t.pit_boxes.len(), need: FULL_FIELD }));
    }
    if let (Some(&first), Some(&last)) = (t.pit_lane.first(), t.pit_lane.last()) {
        if !t.prev(first).iter().any(|&p| !t.space(p).in_pit_lane()) {
            out.push(Diagnostic::at(
                line(first),
                TrackProblem::PitLane("no racing space leads into the pit lane".into()),
            ));
        }
        if !t.next(last).iter().any(|&n| !t.space(n).in_pit_lane()) {
            out.push(Diagnostic::at(
                line(last),
                TrackProblem::PitLane("the pit lane does not lead back to the track".into()),
            ));
        }
    } else {
        out.push(Diagnostic::at(0, TrackProblem::PitLane("the track has no pit lane".into())));
    }
    out
}

/// Breadth-first flood from `start` along `step`; returns which spaces were reached.
fn flood<'t, F>(t: &'t Track, start: &[SpaceIdx], step: F) -> Vec<bool>
where
    F: Fn(SpaceIdx) -> &'t [SpaceIdx],
{
    let mut seen = vec![false; t.spaces.len()];
    let mut queue: VecDeque<SpaceIdx> = start.iter().copied().collect();
    for s in start {
        seen[s.get()] = true;
    }
    while let Some(s) = queue.pop_front() {
        for &n in step(s) {
            if !seen[n.get()] {
                seen[n.get()] = true;
                queue.push_back(n);
            }
        }
    }
    seen
}

/// The fewest and the most corner spaces a car can cross going through corner `c` along the
/// arrows, from any space where it can enter to any space from which it can leave.
pub fn corner_paths(t: &Track, c: CornerIdx) -> (u16, u16) {
    let corner = &t.corners[c.get()];
    let inside = |s: SpaceIdx| t.space(s).corner == Some(c);
    // Corner spaces in decreasing progress: every arrow inside the corner goes forward, so each
    // space's successors are settled before it.
    let mut order = corner.spaces.clone();
    order.sort_by_key(|s| std::cmp::Reverse(t.progress_gap(corner.spaces[0], *s)));
    let mut best = vec![(u16::MAX, 0u16); t.spaces.len()];
    for &s in &order {
        let mut lo = u16::MAX;
        let mut hi = 0u16;
        for &n in t.next(s) {
            if inside(n) {
                let (a, b) = best[n.get()];
                if a != u16::MAX {
                    lo = lo.min(a);
                    hi = hi.max(b);
                }
            } else {
                lo = 0;
            }
        }
        if lo != u16::MAX {
            best[s.get()] = (lo + 1, hi + 1);
        }
    }
    let entries = corner.spaces.iter().filter(|&&s| t.prev(s).iter().any(|&p| !inside(p) && !t.space(p).in_pit_lane()));
    let mut lo = u16::MAX;
    let mut hi = 0;
    for &e in entries {
        let (a, b) = best[e.get()];
        if a != u16::MAX {
            lo = lo.min(a);
            hi = hi.max(b);
        }
    }
    if lo == u16::MAX { (0, 0) } else { (lo, hi) }
}
