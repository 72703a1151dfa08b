//! Which spaces go on which text line of the board.
//!
//! The board is a vertical ribbon: one line per board row (a bucket of [`ROW`] progress units),
//! in lap order. A row is split into several lines where it must be:
//! - when one lane (or the pit lane) has more than one space centred in the row, as on the
//!   outside of a tight corner of an imported track, each of those spaces gets its own line;
//! - when spaces of different segments share the row (a corner ending mid-row), each segment gets
//!   its own lines, so that every line belongs to one segment and its label names it.
//!
//! The pit lane is a single lane of its own (19-1), so its spaces are fitted to the racing lines
//! near their progress rather than splitting rows: one may sit a line away from its exact row.
//!
//! Only the model is used: lanes, kinds, segments and progress.

use crate::track::{CornerIdx, ROW, SpaceIdx, Track, model::circular_gap};

/// Rows drawn behind the space a window is centred on.
pub const ROWS_BEHIND: u32 = 12;
/// Rows drawn ahead of the space a window is centred on (a 6th-gear move is at most 30 spaces).
pub const ROWS_AHEAD: u32 = 30;

/// One text line of the board.
#[derive(Clone, Debug)]
pub(crate) struct Line {
    /// The board row (progress bucket) it belongs to.
    pub bucket: u32,
    /// The segment of its racing spaces.
    pub segment: Option<u16>,
    /// The space of each column on this line: racing lanes `0..lanes`, then the pit lane.
    pub cells: Vec<Option<SpaceIdx>>,
    /// A progress value standing for the line, to decide where a lane continues.
    pub rep: u32,
}

impl Line {
    fn new(bucket: u32, segment: Option<u16>, columns: usize) -> Self {
        Line { bucket, segment, cells: vec![None; columns], rep: 0 }
    }

    /// True when the line holds at least one racing space.
    pub fn has_racing(&self, lanes: usize) -> bool {
        self.cells[..lanes].iter().any(Option::is_some)
    }

    /// The corners of the racing spaces on this line, in order, without repeats.
    pub fn corners(&self, t: &Track) -> Vec<CornerIdx> {
        let mut out = Vec::new();
        for s in self.cells[..t.lanes as usize].iter().flatten() {
            if let Some(c) = t.space(*s).corner
                && !out.contains(&c)
            {
                out.push(c);
            }
        }
        out
    }
}

/// Number of board rows in a lap.
pub(crate) fn row_count(t: &Track) -> u32 {
    t.lap_length.div_ceil(ROW).max(1)
}

/// The board row of a progress value.
pub(crate) fn bucket_of(t: &Track, progress: u32) -> u32 {
    (progress / ROW).min(row_count(t) - 1)
}

/// The column of a space: its lane, or `lanes` for the pit lane.
pub(crate) fn column_of(t: &Track, s: SpaceIdx) -> usize {
    let sp = t.space(s);
    if sp.in_pit_lane() { t.lanes as usize } else { (sp.lane as usize).min(t.lanes as usize - 1) }
}

/// The rows to draw, in drawing order: the whole lap from the finish line, or the window
/// around a space (wrapping over the finish line).
pub(crate) fn rows_to_draw(t: &Track, around: Option<SpaceIdx>) -> Vec<u32> {
    let n = row_count(t);
    match around {
        Some(s) if n > ROWS_BEHIND + ROWS_AHEAD + 1 => {
            let b0 = bucket_of(t, t.space(s).progress);
            (0..=ROWS_BEHIND + ROWS_AHEAD).map(|i| (b0 + n - ROWS_BEHIND + i) % n).collect()
        }
        _ => (0..n).collect(),
    }
}

/// The lines of the given rows, in order.
pub(crate) fn lines(t: &Track, rows: &[u32]) -> Vec<Line> {
    let n = row_count(t) as usize;
    let lanes = t.lanes as usize;
    let mut racing: Vec<Vec<SpaceIdx>> = vec![Vec::new(); n];
    let mut pit: Vec<Vec<SpaceIdx>> = vec![Vec::new(); n];
    for s in t.indices() {
        let b = bucket_of(t, t.space(s).progress) as usize;
        if t.space(s).in_pit_lane() { pit[b].push(s) } else { racing[b].push(s) }
    }
    // Racing lines row by row.
    let mut out: Vec<Vec<Line>> = rows.iter().map(|&b| racing_lines(t, b, &racing[b as usize])).collect();
    // The pit lane (a single lane beside the track, 19-1) goes on the line of its row where it
    // fits, or on a neighbouring line where two of its spaces share a row; a row gets a line of
    // its own for the pit lane only where that is not enough (a pit lane denser than the track).
    let pit_count: usize = rows.iter().map(|&b| pit[b as usize].len()).sum();
    let mut budget = 4 * pit_count + 8;
    loop {
        let (placed, crowded) = place_pit(t, rows, &out, &pit);
        match crowded {
            Some(row) if budget > 0 => {
                budget -= 1;
                let seg = out[row].last().and_then(|l| l.segment);
                let mut extra = Line::new(rows[row], seg, lanes + 1);
                extra.rep = out[row].last().map_or(rows[row] * ROW, |l| l.rep);
                out[row].push(extra);
            }
            _ => {
                let mut flat: Vec<Line> = out.into_iter().flatten().collect();
                for (at, s) in placed {
                    flat[at].cells[lanes] = Some(s);
                }
                return flat;
            }
        }
    }
}

/// Puts the pit spaces of the drawn rows on lines, in driving order, each as near its own row
/// as the others allow. Returns the (line, space) pairs and, when a space ends up more than one
/// line from where it belongs, the drawn row that should get one more line.
fn place_pit(
    t: &Track,
    rows: &[u32],
    lines: &[Vec<Line>],
    pit: &[Vec<SpaceIdx>],
) -> (Vec<(usize, SpaceIdx)>, Option<usize>) {
    let mut wanted: Vec<(usize, u32, SpaceIdx, usize)> = Vec::new();
    let mut first = 0;
    for (i, &b) in rows.iter().enumerate() {
        let count = lines[i].len();
        for &s in &pit[b as usize] {
            let into = t.space(s).progress.saturating_sub(b * ROW) as u64;
            let sub = ((into * count as u64 / ROW as u64) as usize).min(count - 1);
            wanted.push((first + sub, t.space(s).progress, s, i));
        }
        first += count;
    }
    wanted.sort_unstable();
    let (total, m) = (first, wanted.len());
    if m > total {
        return (Vec::new(), Some(wanted[0].3));
    }
    let mut out: Vec<(usize, SpaceIdx)> = Vec::with_capacity(m);
    let mut crowded = None;
    for (i, &(want, _, s, row)) in wanted.iter().enumerate() {
        let at = want.max(out.last().map_or(0, |p| p.0 + 1)).min(total - (m - i));
        if crowded.is_none() && at.abs_diff(want) > 1 {
            // Pushed down by the spaces before it: the row of the one before gets a line; pushed
            // up by the end of the drawing: its own row does.
            crowded = Some(if at > want { wanted[i - 1].3 } else { row });
        }
        out.push((at, s));
    }
    (out, crowded)
}

/// Spreads `members` (one lane's spaces in the row, in progress order) over `k` lines: each goes
/// to the line matching its place in the row, pushed down or up just enough to keep one space a
/// line and the lane's order.
fn assign(t: &Track, members: &[SpaceIdx], k: usize, start: u32) -> Vec<usize> {
    let m = members.len();
    let mut out: Vec<usize> = Vec::with_capacity(m);
    for (i, s) in members.iter().enumerate() {
        let into = (t.space(*s).progress.saturating_sub(start)) as u64;
        let wanted = ((into * k as u64 / ROW as u64) as usize).min(k - 1);
        let lowest = out.last().map_or(0, |&p| p + 1);
        out.push(wanted.max(lowest).min(k - (m - i)));
    }
    out
}

/// The racing lines of one row (at least one line, even for a row without a space).
fn racing_lines(t: &Track, bucket: u32, spaces: &[SpaceIdx]) -> Vec<Line> {
    let lanes = t.lanes as usize;
    let start = bucket * ROW;
    let mut racing = spaces.to_vec();
    racing.sort_by_key(|s| (t.space(*s).progress, t.space(*s).lane, *s));

    // Segments in order of their first space in the row.
    let mut groups: Vec<(Option<u16>, Vec<SpaceIdx>)> = Vec::new();
    for s in racing {
        let seg = t.space(s).segment;
        match groups.iter_mut().find(|g| g.0 == seg) {
            Some(g) => g.1.push(s),
            None => groups.push((seg, vec![s])),
        }
    }
    let mut out: Vec<Line> = Vec::new();
    for (seg, members) in &groups {
        let mut per_lane: Vec<Vec<SpaceIdx>> = vec![Vec::new(); lanes];
        for &s in members {
            per_lane[column_of(t, s)].push(s);
        }
        let k = per_lane.iter().map(Vec::len).max().unwrap_or(1).max(1);
        let base = out.len();
        out.extend((0..k).map(|_| Line::new(bucket, *seg, lanes + 1)));
        for (lane, list) in per_lane.iter().enumerate() {
            for (s, j) in list.iter().zip(assign(t, list, k, start)) {
                out[base + j].cells[lane] = Some(*s);
            }
        }
    }
    if out.is_empty() {
        out.push(Line::new(bucket, None, lanes + 1));
    }
    let total = out.len() as u64;
    for (j, line) in out.iter_mut().enumerate() {
        let present: Vec<u64> = line.cells.iter().flatten().map(|s| t.space(*s).progress as u64).collect();
        line.rep = if present.is_empty() {
            start + ((2 * j as u64 + 1) * ROW as u64 / (2 * total)) as u32
        } else {
            (present.iter().sum::<u64>() / present.len() as u64) as u32
        };
    }
    out
}

/// Where each column (lane or pit lane) runs, to draw a continuation mark on lines where the
/// column has no space of its own (a long corner space) and nothing where it does not run.
pub(crate) struct Extents {
    /// Per column: (progress, length) of its spaces, by progress.
    columns: Vec<Vec<(u32, u32)>>,
    lap: u32,
}

impl Extents {
    pub fn new(t: &Track) -> Self {
        let mut columns: Vec<Vec<(u32, u32)>> = vec![Vec::new(); t.lanes as usize + 1];
        for s in t.indices() {
            let sp = t.space(s);
            columns[column_of(t, s)].push((sp.progress, sp.length));
        }
        for c in &mut columns {
            c.sort_unstable();
        }
        Extents { columns, lap: t.lap_length.max(1) }
    }

    /// True when column `col` runs at progress `x`: `x` lies within one of its spaces, or
    /// between two consecutive ones that follow each other without a hole.
    pub fn runs(&self, col: usize, x: u32) -> bool {
        let c = &self.columns[col];
        if c.is_empty() {
            return false;
        }
        let pos = c.partition_point(|&(p, _)| p <= x);
        let before = c[(pos + c.len() - 1) % c.len()];
        let after = c[pos % c.len()];
        let covers = |(p, len): (u32, u32)| 2 * circular_gap(p, x, self.lap) <= len;
        if covers(before) || covers(after) {
            return true;
        }
        if c.len() < 2 {
            return false;
        }
        let gap = (after.0 + self.lap - before.0) % self.lap;
        gap <= (before.1 + after.1) / 2 + ROW / 2
    }
}
