//! The bot's plan (see the parent module's docs): the positions of a track, their moves on the
//! empty track, and the expected cost of every position, gear, gas and brake state, solved
//! backwards from the finish once per track and race length.

use super::search::St;
use super::*;

/// One way to end a move on the empty track.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(super) struct End {
    /// Position (space and stops) where the car ends.
    pub(super) node: u32,
    /// Spaces of overshoot (10-0-1), 0 if none.
    pub(super) over: u8,
    /// Finish-line crossings.
    pub(super) cross: u8,
    /// A 2- or 3-stop corner left two stops short (10-1).
    pub(super) missed: bool,
}

/// The per-track tables: positions, their moves on the empty track, and the plans.
#[derive(Clone)]
pub(super) struct Model {
    /// Which track the tables describe (name, spaces, lap length).
    pub(super) fingerprint: (String, usize, u32),
    /// First position of each space (`u32::MAX` in the pit lane): a straight space has one,
    /// a corner space one per stop count 0..=required.
    pub(super) base: Vec<u32>,
    /// The space of each position.
    pub(super) space_of: Vec<SpaceIdx>,
    /// `ends[index[p * KS + k]..index[p * KS + k + 1]]`: the ends of a `k`-space move from `p`.
    pub(super) index: Vec<u32>,
    pub(super) ends: Vec<End>,
    /// `touch[touch_at[y]..touch_at[y + 1]]`: the spaces where a move ending touches a car
    /// standing on space `y` (beside it or right behind it, 14-1); none for a car
    /// off the racing spaces.
    pub(super) touch_at: Vec<u32>,
    pub(super) touch: Vec<SpaceIdx>,
    /// Positions in solving order: every move's end before its start.
    pub(super) order: Vec<u32>,
    /// For each position, the longest length up to which no move overshoots a corner.
    pub(super) calm: Vec<u8>,
    /// How much of `order` a car on the grid can reach before the line (its first crossing).
    pub(super) grid_order: usize,
    /// Faces of each gear's die with their probabilities.
    pub(super) faces: Vec<Vec<(u8, f32)>>,
    /// Plans by race length: expected cost `[(r - 1) * positions + p] * CELLS + cell` with `r`
    /// the line crossings still needed.
    pub(super) plans: FxHashMap<PlanKey, Plan>,
}

impl std::fmt::Debug for Model {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Model")
            .field("track", &self.fingerprint.0)
            .field("positions", &self.space_of.len())
            .field("moves", &self.ends.len())
            .field("plans for laps", &self.plans.keys().collect::<Vec<_>>())
            .finish()
    }
}

impl Model {
    pub(super) fn fingerprint(t: &Track) -> (String, usize, u32) {
        (t.name.clone(), t.spaces.len(), t.lap_length)
    }

    pub(super) fn describes(&self, t: &Track) -> bool {
        let (name, spaces, lap) = &self.fingerprint;
        *name == t.name && *spaces == t.spaces.len() && *lap == t.lap_length
    }

    // Never inlined: made once per track, and tools/race_instructions.sh sets it aside by name.
    #[inline(never)]
    pub(super) fn new(t: &Track) -> Model {
        let mut base = vec![u32::MAX; t.spaces.len()];
        let mut space_of = Vec::new();
        for s in t.indices() {
            if t.space(s).in_pit_lane() {
                continue;
            }
            base[s.get()] = space_of.len() as u32;
            let count = t.space(s).corner.map_or(1, |c| t.corners[c.get()].stops as usize + 1);
            space_of.extend(std::iter::repeat_n(s, count));
        }
        let mut m = Model {
            fingerprint: Model::fingerprint(t),
            base,
            space_of,
            index: Vec::new(),
            ends: Vec::new(),
            touch_at: Vec::new(),
            touch: Vec::new(),
            order: Vec::new(),
            calm: Vec::new(),
            grid_order: 0,
            faces: (0..NG)
                .map(|g| {
                    if g == 0 {
                        return Vec::new();
                    }
                    let all = Die::Gear(g as u8).faces();
                    let mut v: Vec<(u8, f32)> = Vec::new();
                    for &f in all {
                        match v.iter_mut().find(|(x, _)| *x == f) {
                            Some((_, p)) => *p += 1.0 / all.len() as f32,
                            None => v.push((f, 1.0 / all.len() as f32)),
                        }
                    }
                    v
                })
                .collect(),
            plans: FxHashMap::default(),
        };
        m.build_moves(t);
        m.build_touch(t);
        m.build_order(t);
        m.grid_order =
            m.order.iter().rposition(|&p| t.grid.contains(&m.space_of[p as usize])).map_or(m.order.len(), |i| i + 1);
        m.calm = (0..m.space_of.len() as u32)
            .map(|p| {
                let rough = (0..KS).find(|&k| m.moves(p, k).iter().any(|e| e.over > 0 || e.missed));
                rough.map_or(REACH, |k| k.saturating_sub(1)) as u8
            })
            .collect();
        m
    }

    /// The position of a car on `space` with `stops` (`None` in the pit lane).
    pub(super) fn position(
        &self,
        t: &Track,
        space: SpaceIdx,
        stops: Option<(crate::track::CornerIdx, u8)>,
    ) -> Option<u32> {
        let b = *self.base.get(space.get())?;
        if b == u32::MAX {
            return None;
        }
        let i = match (t.space(space).corner, stops) {
            (Some(c), Some((c2, n))) if c == c2 => n.min(t.corners[c.get()].stops) as u32,
            _ => 0,
        };
        Some(b + i)
    }

    /// Stops counted by position `p` (its offset from its space's first position).
    pub(super) fn stops_of(&self, p: u32) -> u8 {
        (p - self.base[self.space_of[p as usize].get()]) as u8
    }

    pub(super) fn moves(&self, p: u32, k: usize) -> &[End] {
        let i = p as usize * KS + k;
        &self.ends[self.index[i] as usize..self.index[i + 1] as usize]
    }

    /// The ends of every move from `p` of 1 to `k` spaces (`k` at most [`REACH`]): those of
    /// [`Model::moves`] for each length, in one slice.
    pub(super) fn moves_up_to(&self, p: u32, k: usize) -> &[End] {
        let i = p as usize * KS;
        &self.ends[self.index[i + 1] as usize..self.index[i + k.min(REACH) + 1] as usize]
    }

    /// Where a move ending touches a car standing on `y` ([`Model::touch`]).
    pub(super) fn touching(&self, y: SpaceIdx) -> &[SpaceIdx] {
        &self.touch[self.touch_at[y.get()] as usize..self.touch_at[y.get() + 1] as usize]
    }

    /// [`Model::touch`]: for a car on a racing space, the racing spaces beside it and behind
    /// it, none of them ahead of it (a space both beside and behind counted once).
    pub(super) fn build_touch(&mut self, t: &Track) {
        self.touch_at = Vec::with_capacity(t.spaces.len() + 1);
        self.touch.clear();
        self.touch_at.push(0);
        for y in t.indices() {
            if t.space(y).kind == SpaceKind::Racing {
                let ahead = t.next(y);
                for (j, &x) in t.beside(y).iter().chain(t.prev(y)).enumerate() {
                    let dup = j >= t.beside(y).len() && t.beside(y).contains(&x);
                    if !dup && t.space(x).kind == SpaceKind::Racing && !ahead.contains(&x) {
                        self.touch.push(x);
                    }
                }
            }
            self.touch_at.push(self.touch.len() as u32);
        }
    }

    /// Where search state `st` ends the move (`movement::reach_of`, 7-1-1, 10-2-3).
    pub(super) fn end_of(&self, t: &Track, st: &St) -> End {
        let end = SpaceIdx(st.pos);
        let stops = t.space(end).corner.map(|c| {
            let need = t.corners[c.get()].stops;
            if st.over_k != NONE8 && st.over_corner != c.0 { (c, st.credit) } else { (c, (st.credit + 1).min(need)) }
        });
        let node = self.position(t, end, stops).expect("a move ends on the racing track");
        let over = if st.over_k != NONE8 { st.k + 1 - st.over_k } else { 0 };
        End { node, over, cross: st.crossings, missed: st.missed != NONE16 }
    }

    pub(super) fn build_moves(&mut self, t: &Track) {
        let mut scratch = Scratch::default();
        let mut search = Search::new(t, &[], &mut scratch);
        let mut by_len: Vec<Vec<End>> = vec![Vec::new(); KS];
        self.index = Vec::with_capacity(self.space_of.len() * KS + 1);
        self.index.push(0);
        for p in 0..self.space_of.len() as u32 {
            let space = self.space_of[p as usize];
            let stops = t.space(space).corner.map(|c| (c, self.stops_of(p)));
            for v in &mut by_len {
                v.clear();
            }
            search.run(space, stops, REACH, |st| by_len[st.k as usize].push(self.end_of(t, st)));
            for v in &mut by_len {
                v.sort_unstable();
                v.dedup();
                self.ends.extend_from_slice(v);
                self.index.push(self.ends.len() as u32);
            }
        }
    }

    /// Positions ordered so that every move's end comes before its start: spaces in reverse
    /// topological order of the lap (cut at the finish line), more stops first.
    pub(super) fn build_order(&mut self, t: &Track) {
        let n = t.spaces.len();
        let mut indeg = vec![0u32; n];
        let racing = |s: SpaceIdx| !t.space(s).in_pit_lane();
        for s in t.indices().filter(|&s| racing(s)) {
            for &x in t.next(s) {
                if racing(x) && !t.crosses_line(s, x) {
                    indeg[x.get()] += 1;
                }
            }
        }
        let mut queue: Vec<SpaceIdx> = t.indices().filter(|&s| racing(s) && indeg[s.get()] == 0).collect();
        let mut head = 0;
        while head < queue.len() {
            let s = queue[head];
            head += 1;
            for &x in t.next(s) {
                if racing(x) && !t.crosses_line(s, x) {
                    indeg[x.get()] -= 1;
                    if indeg[x.get()] == 0 {
                        queue.push(x);
                    }
                }
            }
        }
        if queue.len() != t.racing_spaces() {
            // Not a lap cut at the line (a track the checker should refuse): fall back on
            // progress, which the plan's later sweeps tolerate.
            queue = t.indices().filter(|&s| racing(s)).collect();
            queue.sort_by_key(|&s| (t.space(s).progress, s));
        }
        self.order.clear();
        for &s in queue.iter().rev() {
            let b = self.base[s.get()];
            let count = t.space(s).corner.map_or(1, |c| t.corners[c.get()].stops as u32 + 1);
            for i in (0..count).rev() {
                self.order.push(b + i);
            }
        }
    }

    /// The plan for `key` (solved on first use).
    pub(super) fn plan(&mut self, key: PlanKey) -> &Plan {
        if !self.plans.contains_key(&key) {
            let plan = self.solve(key);
            self.plans.insert(key, plan);
        }
        &self.plans[&key]
    }

    pub(super) fn solve(&self, key: PlanKey) -> Plan {
        let PlanKey { laps, traffic, factor } = key;
        let positions = self.space_of.len();
        let rs = laps as usize + 1;
        let mut plan = Plan {
            cost: vec![ELIM; rs * positions * CELLS],
            gear: vec![ELIM; rs * positions * CELLS],
            reserve: if traffic { RESERVE } else { [0.0; NB] },
            factor,
        };
        // The gears whose faces, less the brakes, can make a move of each length.
        let gears: Vec<(usize, usize)> = (0..KS)
            .map(|k| {
                let can = |g: usize| {
                    let (lo, hi) = Die::Gear(g as u8).range();
                    (lo as usize).saturating_sub(NB - 1) <= k && k <= hi as usize
                };
                let lo = (1..NG).find(|&g| can(g)).unwrap_or(NG);
                let hi = (1..NG).rev().find(|&g| can(g)).unwrap_or(0);
                (lo, hi)
            })
            .collect();
        // Scratch: the cheapest end of each length per (gear engaged, gas, brakes left).
        let mut best = vec![0f32; KS * CELLS];
        for r in 1..=rs {
            // Before its first crossing a car is on the grid or between it and the line.
            let order = if r == rs { &self.order[..self.grid_order] } else { &self.order[..] };
            for &p in order {
                self.solve_position(&mut plan, &mut best, &gears, r, p);
            }
        }
        plan.cost = by_gear(&plan.cost, positions);
        plan
    }

    pub(super) fn solve_position(&self, plan: &mut Plan, best: &mut [f32], gears: &[(usize, usize)], r: usize, p: u32) {
        let positions = self.space_of.len();
        let at = |r: usize, p: u32| (r - 1) * positions * CELLS + p as usize * CELLS;
        let here = at(r, p);
        let block = NA * NB;
        let cost = &mut plan.cost;
        for k in 1..KS {
            let (lo, hi) = gears[k];
            if lo > hi {
                continue;
            }
            let row = &mut best[k * CELLS + lo * block..k * CELLS + (hi + 1) * block];
            row.fill(f32::INFINITY);
            for e in self.moves(p, k) {
                let points = e.over.saturating_mul(plan.factor);
                let extra = TYRE * points as f32 + if points >= OVER_OUT { ELIM } else { 0.0 };
                if e.missed {
                    row.iter_mut().for_each(|x| *x = x.min(ELIM));
                } else if e.cross as usize >= r {
                    row.iter_mut().for_each(|x| *x = x.min(extra));
                } else {
                    let next = &cost[at(r - e.cross as usize, e.node) + lo * block..][..row.len()];
                    for (x, &n) in row.iter_mut().zip(next) {
                        *x = x.min(extra + n);
                    }
                }
            }
        }
        let still = self.moves(p, 0).first().copied();
        for b in 0..NB {
            // gear[g'][a][b]: one move in gear g' with a gas and b brakes, then the plan.
            for g in 1..NG {
                for a in 0..NA {
                    let mut total = 1.0;
                    for &(f, prob) in &self.faces[g] {
                        let f = f as usize;
                        let mut m = f32::INFINITY;
                        for j in 0..=b.min(f) {
                            let k = f - j;
                            let v = if k == 0 {
                                // Braking to a standstill: the car stays (a stop if in a corner).
                                still.map_or(ELIM, |e| cost[at(r, e.node) + cell(g, a, b - j)])
                            } else {
                                best[k * CELLS + cell(g, a, b - j)]
                            };
                            m = m.min(v + BRAKE * j as f32 + plan.reserve[b - j]);
                        }
                        total += prob * if m.is_finite() { m } else { ELIM };
                    }
                    plan.gear[here + cell(g, a, b)] = total;
                }
            }
            // cost[g][a][b]: the best gear from gear g.
            for g in 0..NG {
                for a in 0..NA {
                    let mut v = f32::INFINITY;
                    for (to, change) in changes(g as u8) {
                        let (gas, brakes, engine) = change;
                        if (gas as usize) > a || (brakes as usize) > b {
                            continue;
                        }
                        let x = plan.gear[here + cell(to as usize, a - gas as usize, b - brakes as usize)]
                            + ENGINE * engine as f32;
                        v = v.min(x);
                    }
                    cost[here + cell(g, a, b)] = if v.is_finite() { v } else { ELIM };
                }
            }
        }
    }
}

/// A plan: for each line crossing still needed `r`, position `p` and cell (gear, gas, brakes),
/// the expected cost to the finish.
#[derive(Clone, Debug)]
pub(super) struct Plan {
    /// ... having just used that gear (the best next gear taken). While the plan is solved, at
    /// index `((r - 1) * positions + p) * CELLS + cell` (a position's cells side by side, as its
    /// solving reads them); once solved, at [`cost_at`] (see [`by_gear`]).
    pub(super) cost: Vec<f32>,
    /// ... engaging that gear now, its change already paid, at index
    /// `((r - 1) * positions + p) * CELLS + cell`.
    pub(super) gear: Vec<f32>,
    /// What ending a move with each number of brake points costs: with other cars on the
    /// track, [`RESERVE`].
    pub(super) reserve: [f32; NB],
    /// Tyre points an overshoot costs per space (10-0-2).
    pub(super) factor: u8,
}

/// What a plan depends on besides the track.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct PlanKey {
    /// Laps of the race.
    pub(super) laps: u16,
    /// Whether the race has other cars.
    pub(super) traffic: bool,
    /// Tyre points an overshoot costs per space with the car's tyres (10-0-2, 8-5).
    pub(super) factor: u8,
}

impl PlanKey {
    /// The plan that fits `car` in `state`. The same plan serves the whole race but for a
    /// change of tyre factor (soft tyres on their third lap, 8-5).
    pub(super) fn of(state: &RaceState, car: CarId) -> PlanKey {
        let c = state.car(car);
        PlanKey {
            laps: state.laps,
            traffic: state.cars.len() > 1,
            factor: overshoot_factor(c.tyres, state.wet, c.tyre_lap),
        }
    }
}

/// The index of (gear, gas, brakes) in a plan row.
pub(super) fn cell(g: usize, a: usize, b: usize) -> usize {
    (g * NA + a) * NB + b
}

/// The index of the cost of (`r` crossings still needed, position `p`, gear `g`, gas `a`,
/// brakes `b`) in a solved plan's `cost`, on a track of `positions` positions: for each (`r`,
/// gear, gas), every position's brake counts side by side, positions in track order.
#[inline]
pub(super) fn cost_at(positions: usize, r: usize, p: u32, g: usize, a: usize, b: usize) -> usize {
    ((((r - 1) * NG + g) * NA + a) * positions + p as usize) * NB + b
}

/// The solved costs `cost` (a position's cells side by side, as solving reads them) laid out
/// for the moves of one turn ([`cost_at`]). A gear choice reads, for each gear it weighs, the
/// cells of that gear at the ends of the car's moves: neighbouring positions, since positions
/// follow the track. Position by position those cells lay a position's whole block (672
/// bytes) apart, a cache line each; gear by gear they lie a few bytes apart. The values are the
/// same, only their places change.
pub(super) fn by_gear(cost: &[f32], positions: usize) -> Vec<f32> {
    let mut out = vec![0f32; cost.len()];
    for (i, cells) in cost.chunks_exact(CELLS).enumerate() {
        let (r, p) = (i / positions + 1, (i % positions) as u32);
        for (j, brakes) in cells.chunks_exact(NB).enumerate() {
            let at = cost_at(positions, r, p, j / NA, j % NA, 0);
            out[at..at + NB].copy_from_slice(brakes);
        }
    }
    out
}

/// The gears reachable from gear `from` and what each change costs (gas, brakes, engine)
/// (6-1-1, 13-1, 13-2; a standing car starts in 1st).
pub(super) fn changes(from: u8) -> impl Iterator<Item = (u8, (u8, u8, u8))> {
    let gears = if from == 0 { 1..=1 } else { 1..=(from + 1).min(TOP_GEAR) };
    gears.filter_map(move |to| {
        let skipped = from.saturating_sub(to).saturating_sub(1);
        match skipped {
            0 => Some((to, (0, 0, 0))),
            s if s > MAX_SKIP => None,
            s => Some((to, OVER_REV[(s - 1) as usize])),
        }
    })
}
