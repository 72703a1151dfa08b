//! Choosing a gear (6-1, 13): every gear the gearbox allows weighed by the plan's expected
//! moves over the die's real faces, with the cars and dangerous spaces in reach.

use super::*;

impl Bot {
    /// The plan's expected cost (in moves) for `car` in `state` if it had just used gear
    /// `gear`: what the gear choice minimises. `None` off the racing track.
    pub fn expected_moves(&mut self, t: &Track, state: &RaceState, car: CarId, gear: u8) -> Option<f32> {
        let c = state.car(car);
        let m = self.model(t);
        let p = m.position(t, c.space, c.stops)?;
        let laps = state.laps;
        let key = PlanKey::of(state, car);
        m.plan(key);
        let m = self.model.as_ref()?;
        let d = Driver { model: m, plan: &m.plans[&key], r: remaining(laps, c), car: c, wet: state.wet };
        Some(d.after(p, 0, gear, c.wear.gas, c.wear.brakes))
    }

    /// The gear the bot engages for `car`; a car in inertia plays the gear the rule gives it.
    pub fn gear(&mut self, t: &Track, state: &RaceState, car: CarId) -> u8 {
        let c = state.car(car);
        if state.in_inertia(car) {
            return crate::engine::inertia::default_gear(c); // 16-0-3, 16-0-6
        }
        if c.pit.stage != PitStage::Out {
            return pit_gear(t, state, car);
        }
        let gears = legal_gears(c);
        let fallback = gears.iter().copied().find(|&g| g + 1 >= c.gear).unwrap_or(1);
        if gears.len() <= 1 {
            return fallback;
        }
        let m = self.model(t);
        let Some(p) = m.position(t, c.space, c.stops) else { return fallback };
        let key = PlanKey::of(state, car);
        m.plan(key);
        let Bot {
            model,
            scratch,
            occupied,
            zone,
            marks,
            clean,
            frontier,
            reached,
            local,
            rows,
            lanes,
            plain_rows,
            calm,
            ..
        } = self;
        let m = model.as_ref().expect("built");
        let d = Driver { model: m, plan: &m.plans[&key], r: remaining(state.laps, c), car: c, wet: state.wet };

        // The plan's gear for the empty track. Cars ahead only take moves away (and a scarce
        // set of tyres only makes overshooting dearer), so the gear the bot engages is never
        // higher.
        let gas = c.wear.gas;
        let brakes = c.wear.brakes;
        // In 5th or 6th the car takes an engine test whenever any car in 5th or 6th rolls a 20 or
        // a 30 (16-0-1, 16-0-2): about one chance in ten per such car and round. With its last
        // engine point that risk is an elimination (16-0-3).
        let fast =
            state.cars.iter().enumerate().filter(|(i, o)| *i != car.get() && o.status.plays() && o.gear >= 5).count();
        let fail = engine_threshold(state.wet) as f32 / 20.0;
        // A lost engine point also leaves a sticker under the car (17-0-1).
        let point = if c.wear.engine <= 1 { ELIM } else { ENGINE + ENGINE_STICKER };
        let exposure = |g: u8| -> f32 { if g >= 5 { (fast + 1) as f32 * 0.1 * fail * point } else { 0.0 } };
        let planned = |g: u8| -> f32 {
            let Ok(change) = gearbox::change(c, g) else { return f32::INFINITY };
            if change.engine > 0 && c.wear.engine <= change.engine {
                return f32::INFINITY; // 13-1, 16-0-3: the last engine point is an elimination.
            }
            let i = d.at(d.r, p, g, gas - change.gas, brakes - change.brakes);
            d.plan.gear[i] + ENGINE * change.engine as f32 + exposure(g)
        };
        // The first gear of least planned cost (as `min_by` of `total_cmp` would choose), each
        // gear's cost worked out once.
        let mut top: Option<(f32, u8)> = None;
        for &g in &gears {
            let v = planned(g);
            if top.is_none_or(|(best, _)| v.total_cmp(&best).is_lt()) {
                top = Some((v, g));
            }
        }
        let top = top.map_or(fallback, |(_, g)| g);
        let depth = Die::Gear(top).range().1 as usize;

        // Traffic. Every space a move passes through ends a shorter move, so when no other car
        // stands where the empty-track moves end, those are the real moves; otherwise the bot
        // searches again around the cars (7-0-1, 7-2-3), and beyond the longest move the car is
        // blocked (12-0-1).
        occupied.clear();
        occupied.resize(t.spaces.len(), false);
        marks.clear();
        marks.resize(t.spaces.len(), 0);
        for (i, o) in state.cars.iter().enumerate() {
            if i != car.get() && o.status.on_board() {
                occupied[o.space.get()] = true;
                marks[o.space.get()] |= CAR;
            }
        }
        // Where a move would end touching another car (beside it or right behind it, 14-1):
        // a body test for each car, and one for the car touched.
        zone.clear();
        zone.resize(t.spaces.len(), 0);
        for (i, o) in state.cars.iter().enumerate() {
            if i != car.get() && o.status.on_board() {
                for &x in m.touching(o.space) {
                    zone[x.get()] = zone[x.get()].saturating_add(1);
                    marks[x.get()] |= TOUCH;
                }
            }
        }
        // Dangerous spaces (17-0-1).
        for &x in &state.dangerous {
            marks[x.get()] |= STICKER_ON;
        }
        // One pass over the ends in reach: a car on one (`near`), one beside a car (`touchy`), a
        // dangerous space on one (`risky`).
        let seen = m.moves_up_to(p, depth).iter().fold(0, |seen, e| seen | marks[m.space_of[e.node as usize].get()]);
        let (near, touchy, risky) = (seen & CAR != 0, seen & TOUCH != 0, seen & STICKER_ON != 0);
        if !near && !touchy && !risky && depth <= m.calm[p as usize] as usize {
            return top; // nothing in the way, no corner to overshoot: the plan's gear
        }
        // The plan's key holds the overshoot factor of the car's tyres (10-0-2, 8-5).
        let factor = key.factor;
        // A clear road with a corner in reach: the choice made before from the same key.
        let calm_key = (!near && !touchy && !risky && !*plain_rows).then_some(Calm {
            p,
            gear: c.gear,
            tyres: c.wear.tyres,
            brakes,
            gas,
            engine: c.wear.engine,
            r: d.r as u32,
            fast: fast as u32,
            wet: state.wet,
            plan: key,
        });
        if let Some(g) = calm_key.and_then(|k| calm.get(&k)) {
            self.calm_hits += 1;
            return *g;
        }
        // With dangerous spaces in reach, the lengths that reach each space without entering
        // one (or a car): ends beyond cost a road-handling test (17-0-2; 17-1: the cars go
        // round them when they can).
        if risky {
            clean.clear();
            clean.resize(t.spaces.len(), 0);
            clean[c.space.get()] = 1;
            frontier.clear();
            frontier.push(c.space);
            let mut next_frontier = Vec::new();
            for k in 1..=depth {
                next_frontier.clear();
                for &y in frontier.iter() {
                    for &x in t.next(y) {
                        if t.space(x).in_pit_lane() || occupied[x.get()] || marks[x.get()] & STICKER_ON != 0 {
                            continue;
                        }
                        if clean[x.get()] & (1 << k) == 0 {
                            clean[x.get()] |= 1 << k;
                            next_frontier.push(x);
                        }
                    }
                }
                std::mem::swap(frontier, &mut next_frontier);
                if frontier.is_empty() {
                    break;
                }
            }
        }
        let zone = &*zone;
        let clean = &*clean;
        let sticker_test = d.handling(1);
        // What ending a move of `k` spaces at `e` costs beyond the plan: the body tests of the
        // cars it touches, and a road-handling test if it must cross a dangerous space.
        let around = |e: &End, k: usize| -> f32 {
            let x = m.space_of[e.node as usize].get();
            let mut v = body_tests_cost(state, car, zone[x] as usize);
            if risky && clean[x] & (1 << k) == 0 {
                v += sticker_test;
            }
            v
        };
        let mut longest = REACH;
        if near {
            local.resize_with(KS, Vec::new);
            local.iter_mut().for_each(Vec::clear);
            // First the empty-track moves the cars leave: an end whose space holds no car and
            // follows a space reached one length shorter (bit k of `reached`: reached in k).
            reached.clear();
            reached.resize(t.spaces.len(), 0);
            reached[c.space.get()] = 1;
            local[0].extend_from_slice(m.moves(p, 0));
            longest = 0;
            for (k, here) in local.iter_mut().enumerate().take(depth + 1).skip(1) {
                for e in m.moves(p, k) {
                    let x = m.space_of[e.node as usize];
                    if occupied[x.get()] {
                        continue;
                    }
                    if reached[x.get()] & (1 << k) != 0
                        || t.prev(x).iter().any(|y| reached[y.get()] & (1 << (k - 1)) != 0)
                    {
                        reached[x.get()] |= 1 << k;
                        here.push(*e);
                    }
                }
                if here.is_empty() {
                    break;
                }
                longest = k;
            }
            if longest < depth || c.wear.brakes <= 1 {
                // Blocked that way: the driving code may still find a way round the cars (a
                // shortest path counts them as obstacles, 7-2-3), so search again; and search
                // anyway when the car has a brake point or none, as a blocking would then
                // eliminate it (12-1-1) and the shortcut above can, rarely, see a way through
                // where there is none.
                local.iter_mut().for_each(Vec::clear);
                Search::new(t, occupied, scratch)
                    .run(c.space, c.stops, depth, |st| local[st.k as usize].push(m.end_of(t, st)));
                for v in local.iter_mut() {
                    v.sort_unstable();
                    v.dedup();
                }
                longest = local.iter().rposition(|v| !v.is_empty()).unwrap_or(0);
            }
        }
        let local = &*local;
        let ends = |k: usize| -> &[End] { if near { &local[k] } else { m.moves(p, k) } };

        let mut best = (f32::INFINITY, top);
        for g in gears.into_iter().filter(|&g| g <= top) {
            let Ok(change) = gearbox::change(c, g) else { continue };
            if change.engine > 0 && c.wear.engine <= change.engine {
                continue; // 13-1, 16-0-3: the last engine point is an elimination.
            }
            let gas = c.wear.gas - change.gas;
            let brakes = c.wear.brakes - change.brakes;
            // The end of a `k`-space move after `used` brake points, at its cheapest.
            let end = |k: usize, used: u8, tyres: u8| -> f32 {
                let mut v = f32::INFINITY;
                for e in ends(k) {
                    if e.missed {
                        v = v.min(ELIM);
                        continue;
                    }
                    let (now, spin) = d.tyres(e.over * factor + tyres);
                    let left = brakes - used;
                    let then = d.after(e.node, e.cross, if spin { 0 } else { g }, gas, left);
                    v = v.min(now + around(e, k) + then + BRAKE * used as f32 + d.reserve(left));
                }
                v
            };
            // `end(k, used, 0)` for every length a face of this gear can make and every brake
            // count, in one pass over each length's ends: an end's tyre cost is worked out once
            // and its plan costs for every brake count lie side by side (same values as `end`).
            let faces = &m.faces[g as usize];
            let (lo, hi) = match (faces.first(), faces.last()) {
                (Some(&(a, _)), Some(&(b, _))) => {
                    ((a as usize).saturating_sub(brakes as usize), (b as usize).min(longest))
                }
                _ => (1, 0),
            };
            let width = brakes as usize + 1;
            let vector = !*plain_rows;
            let lengths = hi.saturating_sub(lo).saturating_add(1);
            if vector {
                // The cheapest end of each length by brake points left (0 to `NB - 1`; more
                // read `NB - 1`'s: the plan tells no more apart): the end's own cost and its
                // plan cell, side by side in a fixed row the compiler keeps in vector
                // registers. What the brake points used cost (`BRAKE` each, and the reserve
                // left) is the same for every end of a length, so `cost` adds it to the
                // minimum when it reads one: a rounded sum never reorders two costs (it is
                // monotonic), so each cost is `end`'s to the bit. An end that misses a corner
                // costs `ELIM` whatever the brakes (the row's flag).
                lanes.clear();
                lanes.resize(lengths, ([f32::INFINITY; NB], false));
                let cells = d.cells_of(g, gas);
                for k in lo..=hi {
                    let (row, missed) = &mut lanes[k - lo];
                    for e in ends(k) {
                        if e.missed {
                            *missed = true;
                            continue;
                        }
                        let (now, spin) = d.tyres(e.over * factor);
                        let now = now + around(e, k);
                        // `d.after(e.node, e.cross, if spin { 0 } else { g }, gas, left)` for
                        // every `left` (none once the race is over: 0).
                        let then = cells.at(e.node, e.cross, spin).copied().unwrap_or([0.0; NB]);
                        for left in 0..NB {
                            let x = now + then[left];
                            row[left] = if x < row[left] { x } else { row[left] };
                        }
                    }
                }
            } else {
                rows.clear();
                rows.resize(lengths * width, f32::INFINITY);
                for k in lo..=hi {
                    let row = &mut rows[(k - lo) * width..(k - lo + 1) * width];
                    for e in ends(k) {
                        if e.missed {
                            row.iter_mut().for_each(|v| *v = v.min(ELIM));
                            continue;
                        }
                        let (now, spin) = d.tyres(e.over * factor);
                        let now = now + around(e, k);
                        let gear_then = if spin { 0 } else { g };
                        let cells = d.cells(e.node, e.cross, gear_then, gas);
                        for (used, v) in row.iter_mut().enumerate() {
                            let left = brakes - used as u8;
                            let then = cells.map_or(0.0, |c| c[(left as usize).min(NB - 1)]);
                            *v = v.min(now + then + BRAKE * used as f32 + d.reserve(left));
                        }
                    }
                }
            }
            let (lanes, rows) = (&*lanes, &*rows);
            let cost = |k: usize, used: usize| {
                if vector {
                    let (row, missed) = &lanes[k - lo];
                    let left = brakes - used as u8;
                    let v = row[(left as usize).min(NB - 1)] + BRAKE * used as f32 + d.reserve(left);
                    if *missed && ELIM < v { ELIM } else { v }
                } else {
                    rows[(k - lo) * width + used]
                }
            };
            let mut total = ENGINE * change.engine as f32 + exposure(g);
            for &(f, prob) in faces {
                let f = f as usize;
                let mut v = f32::INFINITY;
                for k in f.saturating_sub(brakes as usize)..=f.min(longest) {
                    v = v.min(cost(k, f - k));
                }
                if f > longest {
                    let short = (f - longest) as u8;
                    for used in 0..short.min(brakes + 1) {
                        match blocking_cost(short - used) {
                            Some((bb, bt)) if used + bb <= brakes => v = v.min(end(longest, used + bb, bt)),
                            _ => v = v.min(ELIM),
                        }
                    }
                }
                total += prob * if v.is_finite() { v } else { ELIM };
            }
            if total < best.0 {
                best = (total, g);
            }
        }
        if let Some(k) = calm_key {
            if calm.len() >= CALM_KEPT {
                calm.clear();
            }
            calm.insert(k, best.1);
        }
        best.1
    }
}
