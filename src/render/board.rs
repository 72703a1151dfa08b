//! The text board shown in every reply email: printable ASCII and the accented letters of French and of track names (one column each), at most 78 columns, deterministic.
//!
//! The lap is drawn as a vertical ribbon, top to bottom from the finish line, one text line per
//! board row (see [`layout`] for when a row takes more than one line). Columns are the lanes,
//! left to right as the driver sees them, plus the pit lane beside the straight it runs along.
//! Every space is one cell, drawn once, with its number in its lane just left of it, so that a
//! player reads a space id off the board: the line's label (`c5`), the column's lane (`m`) and the
//! number by the cell (`3[   ]`) make `c5.m.3`. A lane with fewer spaces than the row count (the
//! inside of a corner) shows `:` on the lines its long spaces stretch over.

mod cars;
mod layout;

use std::collections::HashMap;
use std::fmt::Write as _;

pub use cars::{CarsFileError, parse_cars, read_cars};
pub use layout::{ROWS_AHEAD, ROWS_BEHIND};

use crate::say;
use crate::track::{CornerIdx, ROW, SpaceIdx, SpaceKind, Track};
use crate::words::Lang;
use layout::{Extents, Line};

/// Widest line the board may produce: what mail clients show without wrapping (issue 47).
pub const WIDTH: usize = 78;

/// Width of the separator lines (corner limits, finish line) unless the table is wider.
const RULE_W: usize = 60;

/// A car to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PlacedCar {
    /// The car's number.
    pub number: u8,
    /// Where it stands.
    pub space: SpaceIdx,
}

/// What to draw on the board besides the track: cars, dangerous spaces, and the lettered
/// destinations of the reader's own pending roll.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BoardMarks {
    /// Cars and where they stand.
    pub cars: Vec<PlacedCar>,
    /// Spaces to flag as dangerous (debris, oil: whatever the game state says).
    pub dangerous: Vec<SpaceIdx>,
    /// The options of the reader's roll: letter, the space it ends on (issue 47: a player who
    /// reads the text part finds each letter on the board, not only in the list below).
    pub options: Vec<(String, SpaceIdx)>,
}

/// Draws the whole lap, or with `around` only the rows from [`ROWS_BEHIND`] behind to
/// [`ROWS_AHEAD`] ahead of that space.
pub fn draw(t: &Track, marks: &BoardMarks, around: Option<SpaceIdx>) -> String {
    draw_in(Lang::En, t, marks, around)
}

/// [`draw`], its words in `lang`.
pub fn draw_in(lang: Lang, t: &Track, marks: &BoardMarks, around: Option<SpaceIdx>) -> String {
    let rows = layout::rows_to_draw(t, around);
    let lines = layout::lines(t, &rows);
    let board = Board::new(lang, t, marks, around, &lines);
    board.text()
}

/// Draws the rows around `around`, as [`draw`] does, widened so that every car of `marks` is on
/// the board: the shortest run of rows, around the lap, that holds the window and every car (the
/// whole lap when that is shorter to say). A report lists every car; the board shows them all.
pub fn draw_all_cars(t: &Track, marks: &BoardMarks, around: SpaceIdx) -> String {
    draw_all_cars_in(Lang::En, t, marks, around)
}

/// [`draw_all_cars`], its words in `lang`.
pub fn draw_all_cars_in(lang: Lang, t: &Track, marks: &BoardMarks, around: SpaceIdx) -> String {
    let window = layout::rows_to_draw(t, Some(around));
    let n = layout::row_count(t);
    let mut wanted: Vec<bool> = vec![false; n as usize];
    for &r in &window {
        wanted[r as usize] = true;
    }
    for c in &marks.cars {
        wanted[layout::bucket_of(t, t.space(c.space).progress) as usize] = true;
    }
    if wanted.iter().all(|&w| w) || window.len() as u32 >= n {
        return draw_in(lang, t, marks, Some(around));
    }
    // The longest run of rows nobody needs is left out; the rows after it, round the lap, are drawn.
    let (mut best, mut best_len, mut run) = (0u32, 0u32, 0u32);
    for i in 0..2 * n {
        if wanted[(i % n) as usize] {
            run = 0;
        } else {
            run += 1;
            if run > best_len {
                best_len = run.min(n);
                best = i % n;
            }
        }
    }
    let start = (best + 1) % n;
    let rows: Vec<u32> = (0..n - best_len).map(|i| (start + i) % n).collect();
    if rows.len() == window.len() {
        return draw_in(lang, t, marks, Some(around));
    }
    let lines = layout::lines(t, &rows);
    let mut board = Board::new(lang, t, marks, Some(around), &lines);
    board.widened = true;
    board.text()
}

/// Everything the drawing needs, worked out once.
struct Board<'a> {
    lang: Lang,
    t: &'a Track,
    marks: &'a BoardMarks,
    around: Option<SpaceIdx>,
    lines: &'a [Line],
    /// Column indices (lanes `0..lanes`, pit `lanes`) in drawing order.
    order: Vec<usize>,
    /// Width of the line labels.
    label_w: usize,
    /// Width of the numbers beside the cells.
    num_w: usize,
    /// Grid slot of a space (1 = pole).
    grid: HashMap<SpaceIdx, usize>,
    /// Cars by space, lowest number first.
    cars: HashMap<SpaceIdx, Vec<u8>>,
    /// The letters of the options ending on each space, in order.
    letters: HashMap<SpaceIdx, Vec<String>>,
    extents: Extents,
    /// Lanes along a wall, and whether the wall is on their left.
    wall: HashMap<usize, bool>,
    /// The window was widened to every car ([`draw_all_cars`]).
    widened: bool,
}

impl<'a> Board<'a> {
    fn new(lang: Lang, t: &'a Track, marks: &'a BoardMarks, around: Option<SpaceIdx>, lines: &'a [Line]) -> Self {
        let lanes = t.lanes as usize;
        let pit_drawn = lines.iter().any(|l| l.cells[lanes].is_some());
        let mut order: Vec<usize> = (0..lanes).collect();
        if pit_drawn {
            if pit_on_left(t) {
                order.insert(0, lanes);
            } else {
                order.push(lanes);
            }
        }
        let label_w = lines.iter().map(|l| label(t, l).len()).max().unwrap_or(0).max(2);
        let num_w = lines
            .iter()
            .flat_map(|l| l.cells.iter().flatten())
            .map(|s| ordinal(t, *s).map_or(1, |o| o.len()))
            .max()
            .unwrap_or(1);
        let grid = t.grid.iter().enumerate().map(|(i, s)| (*s, i + 1)).collect();
        let mut cars: HashMap<SpaceIdx, Vec<u8>> = HashMap::new();
        for c in &marks.cars {
            cars.entry(c.space).or_default().push(c.number);
        }
        for v in cars.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        let mut letters: HashMap<SpaceIdx, Vec<String>> = HashMap::new();
        for (l, s) in &marks.options {
            letters.entry(*s).or_default().push(l.clone());
        }
        let mut wall = HashMap::new();
        for s in t.indices() {
            let sp = t.space(s);
            if sp.wall && !sp.in_pit_lane() {
                let lane = layout::column_of(t, s);
                wall.insert(lane, lane == 0 && lanes > 1);
            }
        }
        Board {
            lang,
            t,
            marks,
            around,
            lines,
            order,
            label_w,
            num_w,
            grid,
            cars,
            letters,
            extents: Extents::new(t),
            wall,
            widened: false,
        }
    }

    /// The legend and the table, as ASCII lines of at most [`WIDTH`] columns.
    fn text(&self) -> String {
        let mut out = Vec::new();
        self.legend(&mut out);
        self.table(&mut out);
        let mut text = String::new();
        for l in out.iter().flat_map(|l| l.split('\n')) {
            let l = printable(l);
            let l = truncate(&l, WIDTH);
            let _ = writeln!(text, "{}", l.trim_end());
        }
        text
    }

    fn lanes(&self) -> usize {
        self.t.lanes as usize
    }

    /// Width of one column block: wall slot, number, cell, wall slot.
    fn block_w(&self) -> usize {
        self.num_w + 7
    }

    /// The separator before the block at drawing position `i`.
    fn sep(&self, i: usize) -> &'static str {
        let pit = self.lanes();
        if i == 0 {
            " "
        } else if self.order[i] == pit || self.order[i - 1] == pit {
            "   "
        } else {
            " "
        }
    }

    /// Width of the table part of a line (label and columns, no notes).
    fn table_w(&self) -> usize {
        self.label_w + (0..self.order.len()).map(|i| self.sep(i).len() + self.block_w()).sum::<usize>()
    }

    fn legend(&self, out: &mut Vec<String>) {
        let t = self.t;
        let whole = self.lines.first().map(|l| l.bucket) == Some(0)
            && self.lines.last().map(|l| l.bucket) == Some(layout::row_count(t) - 1);
        let title = match self.around {
            Some(s) if whole => say!(self.lang, "board.whole_lap_around", track = t.title, space = t.space(s).id),
            Some(s) if self.widened => {
                say!(self.lang, "board.every_car_around", track = t.title, space = t.space(s).id)
            }
            Some(s) => say!(
                self.lang,
                "board.window",
                track = t.title,
                behind = ROWS_BEHIND,
                ahead = ROWS_AHEAD,
                space = t.space(s).id
            ),
            None => say!(
                self.lang,
                "board.whole_lap",
                track = t.title,
                spaces = t.racing_spaces(),
                corners = t.corners.len()
            ),
        };
        out.push(title);
        let names: Vec<String> = (0..t.lanes).map(|l| Track::lane_name(t.lanes, l)).collect();
        out.push(say!(self.lang, "board.runs", lanes = names.join(" ")));
        let example = self
            .around
            .filter(|s| !t.space(*s).in_pit_lane())
            .or_else(|| self.lines.iter().flat_map(|l| l.cells[..self.lanes()].iter().flatten()).next().copied());
        if let Some(s) = example
            && let Some(seg) = t.space(s).segment
            && let Some(n) = ordinal(t, s)
        {
            let lane = Track::lane_name(t.lanes, t.space(s).lane);
            out.push(say!(
                self.lang,
                "board.space_id",
                label = t.segments[seg as usize].id,
                lane = lane,
                number = n,
                id = t.space(s).id
            ));
        }
        if let Some(note) = self.stagger_note() {
            out.push(note);
        }
        let drawn = |pred: &dyn Fn(SpaceIdx) -> bool| {
            self.lines.iter().flat_map(|l| l.cells.iter().flatten()).any(|s| pred(*s))
        };
        let l = self.lang;
        let mut items: Vec<String> =
            vec![say!(l, "board.key_car"), say!(l, "board.key_dangerous"), say!(l, "board.key_car_dangerous")];
        if !self.letters.is_empty() {
            items.push(say!(l, "board.key_option"));
        }
        if drawn(&|s| self.grid.contains_key(&s)) {
            items.push(say!(l, "board.key_grid"));
        }
        if drawn(&|s| matches!(t.space(s).kind, SpaceKind::PitBox(_))) {
            items.push(say!(l, "board.key_box"));
        }
        if drawn(&|s| t.space(s).in_pit_lane()) {
            items.push(say!(l, "board.key_pit_ids"));
        }
        if self.lines.iter().any(|l| (0..self.lanes()).any(|c| l.cells[c].is_none())) {
            items.push(say!(l, "board.key_lane_goes_on"));
        }
        if !self.wall.is_empty() {
            items.push(say!(l, "board.key_wall"));
        }
        let mut line = String::new();
        for item in items {
            if !line.is_empty() && width(&line) + 3 + width(&item) > WIDTH - 1 {
                out.push(std::mem::take(&mut line));
            }
            if !line.is_empty() {
                line.push_str("   ");
            }
            line.push_str(&item);
        }
        out.push(line);
        out.push(String::new());
    }

    /// Straights drawn with staggered lanes put two spaces half a row apart on one line; say
    /// which lanes sit behind, so that a diagonal move to the same line does not surprise.
    fn stagger_note(&self) -> Option<String> {
        let t = self.t;
        let lanes = self.lanes();
        let mut sum = vec![(0u64, 0u64); lanes];
        for line in self.lines.iter().filter(|l| l.corners(t).is_empty()) {
            for (lane, s) in line.cells[..lanes].iter().enumerate() {
                if let Some(s) = s {
                    let into = t.space(*s).progress.saturating_sub(line.bucket * ROW) as u64;
                    sum[lane].0 += into;
                    sum[lane].1 += 1;
                }
            }
        }
        let mean: Vec<Option<u64>> = sum.iter().map(|&(a, n)| (n > 0).then(|| a / n)).collect();
        let front = mean.iter().flatten().max().copied()?;
        let behind: Vec<String> = (0..lanes)
            .filter(|&l| mean[l].is_some_and(|m| m + (ROW as u64) / 4 <= front))
            .map(|l| Track::lane_name(t.lanes, l as u8))
            .collect();
        let level: Vec<String> = (0..lanes)
            .filter(|&l| mean[l].is_some_and(|m| m + (ROW as u64) / 4 > front))
            .map(|l| Track::lane_name(t.lanes, l as u8))
            .collect();
        if behind.is_empty() {
            return None;
        }
        let and = say!(self.lang, "board.and");
        let one = behind.len() == 1;
        let (behind, level) = (and_list(&behind, &and), and_list(&level, &and));
        Some(if one {
            say!(self.lang, "board.stagger_one", behind = behind, level = level)
        } else {
            say!(self.lang, "board.stagger_many", behind = behind, level = level)
        })
    }

    fn table(&self, out: &mut Vec<String>) {
        let t = self.t;
        let lanes = self.lanes();
        // Header: the lane letter over the middle of the cells, `pit` over the pit cells.
        let mut header = " ".repeat(self.label_w);
        for (i, &col) in self.order.iter().enumerate() {
            header.push_str(self.sep(i));
            let name = if col == lanes { say!(self.lang, "board.pit") } else { Track::lane_name(t.lanes, col as u8) };
            let mid = 1 + self.num_w + 2;
            let at = mid - (name.len() - 1) / 2;
            let mut block = " ".repeat(self.block_w());
            block.replace_range(at..at + name.len(), &name);
            header.push_str(&block);
        }
        out.push(header);

        let rows = layout::row_count(t);
        let Some(first) = self.lines.first() else { return };
        let last = &self.lines[self.lines.len() - 1];
        if first.bucket == 0 {
            out.push(self.rule('=', &say!(self.lang, "board.finish_line")));
        }
        let mut current: Vec<CornerIdx> = first.corners(t);
        for &c in &current {
            let text = if self.lines.iter().any(|l| l.cells.contains(&t.corners[c.get()].spaces.first().copied())) {
                self.corner_text(c)
            } else {
                say!(self.lang, "board.entered_above", corner = self.corner_text(c))
            };
            out.push(self.rule('-', &text));
        }
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                let prev = &self.lines[i - 1];
                let now = if line.has_racing(lanes) { line.corners(t) } else { current.clone() };
                for c in current.iter().filter(|c| !now.contains(c)) {
                    out.push(self.rule('-', &say!(self.lang, "board.corner_end", number = t.corners[c.get()].number)));
                }
                if line.bucket < prev.bucket {
                    out.push(self.rule('=', &say!(self.lang, "board.finish_line")));
                }
                for c in now.iter().filter(|c| !current.contains(c)) {
                    out.push(self.rule('-', &self.corner_text(*c)));
                }
                current = now;
            }
            out.push(self.row(line));
        }
        for &c in &current {
            let spaces = &t.corners[c.get()].spaces;
            let text = if self.lines.iter().any(|l| l.cells.contains(&spaces.last().copied())) {
                say!(self.lang, "board.corner_end", number = t.corners[c.get()].number)
            } else {
                say!(self.lang, "board.corner_goes_on", number = t.corners[c.get()].number)
            };
            out.push(self.rule('-', &text));
        }
        if last.bucket == rows - 1 {
            out.push(self.rule('=', &say!(self.lang, "board.finish_line")));
        }
    }

    fn corner_text(&self, c: CornerIdx) -> String {
        let k = &self.t.corners[c.get()];
        let stops = say!(self.lang, "count.stops", n = k.stops);
        say!(self.lang, "board.corner", number = k.number, stops = stops, shortest = k.shortest, longest = k.longest)
    }

    /// A separator line: `---- text ------` as wide as the table.
    fn rule(&self, fill: char, text: &str) -> String {
        let head: String = std::iter::repeat_n(fill, 4).collect();
        let mut s = format!("{head} {text} ");
        let mut w = width(&s);
        let want = self.table_w().max(RULE_W).max(w + 4).min(WIDTH);
        while w < want {
            s.push(fill);
            w += 1;
        }
        s
    }

    fn row(&self, line: &Line) -> String {
        let t = self.t;
        let lanes = self.lanes();
        let mut s = format!("{:<w$}", label(t, line), w = self.label_w);
        let mut notes: Vec<String> = Vec::new();
        for (i, &col) in self.order.iter().enumerate() {
            s.push_str(self.sep(i));
            let mut block = String::with_capacity(self.block_w());
            let wall_left = self.wall.get(&col).copied();
            let walled =
                |sp: Option<SpaceIdx>| col < lanes && wall_left.is_some() && sp.is_none_or(|sp| t.space(sp).wall);
            match line.cells[col] {
                Some(sp) => {
                    let w = walled(Some(sp));
                    block.push(if w && wall_left == Some(true) { '#' } else { ' ' });
                    let num = ordinal(t, sp).unwrap_or_else(|| {
                        notes.push(format!("?={}", t.space(sp).id));
                        "?".into()
                    });
                    let _ = write!(block, "{num:>w$}", w = self.num_w);
                    block.push_str(&self.cell(sp));
                    block.push(if w && wall_left == Some(false) { '#' } else { ' ' });
                    if Some(sp) == self.around {
                        notes.push(format!("<- {}", t.space(sp).id));
                    }
                    if let Some(cs) = self.cars.get(&sp) {
                        for extra in cs.iter().skip(1) {
                            notes.push(say!(self.lang, "board.also_car", car = extra));
                        }
                    }
                    // An option's letters the cell cannot hold: under a car, or too many.
                    if let Some(ls) = self.letters.get(&sp) {
                        let all = ls.join("/");
                        match self.cars.get(&sp).and_then(|c| c.first()) {
                            Some(car) => notes.push(say!(self.lang, "board.on_car", letters = all, car = car)),
                            None if all.len() > 3 => notes.push(format!("{}={all}", letters_cell(ls))),
                            None => {}
                        }
                    }
                    if !t.space(sp).in_pit_lane() {
                        if t.next(sp).iter().any(|n| t.space(*n).in_pit_lane()) {
                            notes.push(say!(self.lang, "board.pit_entry", space = t.space(sp).id));
                        }
                        if t.prev(sp).iter().any(|n| t.space(*n).in_pit_lane()) {
                            notes.push(say!(self.lang, "board.pit_exit", space = t.space(sp).id));
                        }
                    }
                }
                None => {
                    let runs = self.extents.runs(col, line.rep);
                    let w = runs && walled(None);
                    block.push(if w && wall_left == Some(true) { '#' } else { ' ' });
                    block.push_str(&" ".repeat(self.num_w));
                    block.push_str(if runs { "  :  " } else { "     " });
                    block.push(if w && wall_left == Some(false) { '#' } else { ' ' });
                }
            }
            s.push_str(&block);
        }
        // The notes beside the row; those that do not fit within [`WIDTH`] go on lines of their
        // own under it, beside the table (no cell there: nothing to misread as a space).
        let indent = width(&s);
        let mut line_len = width(&s);
        for n in notes {
            if line_len + 2 + width(&n) > WIDTH && line_len > indent {
                s.push('\n');
                s.push_str(&" ".repeat(indent.min(WIDTH.saturating_sub(width(&n) + 2))));
                line_len = indent.min(WIDTH.saturating_sub(width(&n) + 2));
            }
            s.push_str("  ");
            s.push_str(&n);
            line_len += 2 + width(&n);
        }
        s
    }

    /// The five characters of a space's cell.
    fn cell(&self, s: SpaceIdx) -> String {
        let t = self.t;
        let danger = self.marks.dangerous.contains(&s);
        match self.cars.get(&s).and_then(|c| c.first()) {
            Some(&n) if n < 100 => format!("[{n:>2}{}]", if danger { '!' } else { ' ' }),
            Some(&n) if danger => format!("!{n}!"),
            Some(&n) => format!("[{n}]"),
            None if let Some(ls) = self.letters.get(&s) => {
                let text = letters_cell(ls);
                if danger && text.len() <= 2 { format!("[{text:>2}!]") } else { format!("[{text:^3}]") }
            }
            None if danger => "[!!!]".into(),
            None => {
                let tag = match (self.grid.get(&s), t.space(s).kind) {
                    (Some(p), _) => format!("P{p}"),
                    (None, SpaceKind::PitBox(b)) => format!("B{b}"),
                    _ => String::new(),
                };
                format!("[{:<3}]", truncate(&tag, 3))
            }
        }
    }
}

/// The three characters a cell shows of the letters of the options ending on its space: `A`,
/// `AB`, `A/B`, else the first and a `+` (`AB+`; a note beside the row lists them all).
fn letters_cell(ls: &[String]) -> String {
    let all = ls.join("/");
    if all.len() <= 3 { all } else { format!("{}+", truncate(&ls[0], 2)) }
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String], and: &str) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} {and} {last}", rest.join(", ")),
    }
}

/// The label of a line: its segment's id.
fn label(t: &Track, line: &Line) -> String {
    line.segment.map(|g| printable(&t.segments[g as usize].id)).unwrap_or_default()
}

/// The number a player reads beside a cell: the last part of the space's id, when the id is
/// `<label>.<lane>.<n>` (or `pit.<n>` in the pit lane) as the board promises.
fn ordinal(t: &Track, s: SpaceIdx) -> Option<String> {
    let sp = t.space(s);
    let prefix = match sp.segment {
        Some(g) if !sp.in_pit_lane() => {
            format!("{}.{}.", t.segments[g as usize].id, Track::lane_name(t.lanes, sp.lane))
        }
        _ if sp.in_pit_lane() => "pit.".to_string(),
        _ => return None,
    };
    let rest = sp.id.strip_prefix(&prefix)?;
    (!rest.is_empty() && rest.len() <= 3 && rest.bytes().all(|b| b.is_ascii_digit())).then(|| rest.to_string())
}

/// True when the pit lane runs on the left of the track: the racing spaces leading into it and
/// out of it are in the left half of the lanes.
fn pit_on_left(t: &Track) -> bool {
    let (Some(first), Some(last)) = (t.pit_lane.first(), t.pit_lane.last()) else { return false };
    let lanes: Vec<u8> = t
        .prev(*first)
        .iter()
        .chain(t.next(*last))
        .filter(|s| !t.space(**s).in_pit_lane())
        .map(|s| t.space(*s).lane)
        .collect();
    !lanes.is_empty() && lanes.iter().all(|&l| 2 * (l as u32) + 1 < t.lanes as u32)
}

/// Replaces what a mail client may not show in a monospace line: printable ASCII and the
/// accented Latin letters of French and of track names stay (one column each), anything else
/// reads `?`.
fn printable(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            ' '..='~' | 'œ' | 'Œ' | 'ß' => c,
            '×' | '÷' => '?',
            'À'..='ÿ' => c,
            _ => '?',
        })
        .collect()
}

/// The first `n` characters of a line.
fn truncate(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// The columns a line takes in a monospace font: one a character ([`printable`] keeps no other).
fn width(s: &str) -> usize {
    s.chars().count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn printable_replaces_what_mail_may_mangle() {
        assert_eq!(printable("Sainte Dévote, Nürburgring"), "Sainte Dévote, Nürburgring");
        assert_eq!(printable("a\u{2192}b\tc×"), "a?b?c?");
        assert_eq!(printable("LIGNE D'ARRIVÉE, Ça"), "LIGNE D'ARRIVÉE, Ça");
        assert_eq!(truncate("ARRIVÉE", 6), "ARRIVÉ");
        assert_eq!(width("ARRIVÉE"), 7);
    }
}
