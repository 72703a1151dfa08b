//! Slipstream (18): a car in 4th or higher that ends its move just behind a car in a gear no
//! higher than its own may add three spaces to its move, and again from behind the next car.
//!
//! Why a module of its own: a slipstream is an extension of the move the player already chose
//! among the labelled options, so it is offered as more options (the player decides whether to
//! take it and where the chain ends, 18-2-1), priced like the others. The driving code of the
//! extra spaces is the movement search continued from where the move ended ([`reaches_after`]):
//! arrows in corners (18-1-5), the overshoot carried on (18-2-2), pull-outs that are not
//! zigzags (18-3-3).
//!
//! The rules as applied here:
//! - both cars in 4th or higher, the mover's gear at least the other's (18-0-1, 18-1-1, the
//!   18-4 table in [`slipstream_allowed`]);
//! - the move ends just behind the other car: on the space an arrow leads to from the mover's
//!   end, in the same lane (18-0-2; docs/rulings.md);
//! - three spaces in full, or fewer for one brake point a space (18-1-2); a slipstream that cannot
//!   go its three spaces (blocked, or an overshoot keeping its lane) must brake (18-5-6);
//! - only a full slipstream, and only a move made without brakes or blocking, may be followed by
//!   another (18-1-3, 18-1-6);
//! - one brake point, without losing a space, when the slipstreams take the car into a corner it
//!   was not in when they began (18-1-4); none for slipstreams taken inside a corner (18-2-3);
//! - never from an overshoot (18-2-2, 18-5-7), never behind a spun-out car or a car in inertia
//!   (18-1-7, 16-0-5), but behind a car that has just broken its engine (18-1-8).
//!
//! With the other chapters: the soft-tyre +1 and the wet slide are steps of the same move
//! (18-3, 18-5-1 to 18-5-5; see [`extend`]); a car in inertia neither takes nor gives a
//! slipstream (16-0-5, 18-1-7; see [`can_slipstream`], [`can_draw`]). docs/rulings.md, ruling 19.

use crate::track::{SpaceIdx, Track};

use super::movement::{Board, Reach, Reaches, reaches_after};
use super::options::{Fate, MoveOption, build_option, prune_options};
use super::rulebook::{
    RuleSet, SLIPSTREAM_CORNER_BRAKES, SLIPSTREAM_SPACES, slide_spaces, slipstream_allowed, soft_bonus,
};
use super::state::{CarId, CarState, Elimination, RaceState, Status};
use super::tyres::{bonus_allowed, counting_stop};

/// What the slipstreams of an option did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Slip {
    /// Where the move ended before the first slipstream.
    pub from: SpaceIdx,
    /// The cars slipstreamed, in order (18-1-3).
    pub behind: Vec<CarId>,
    /// Spaces the last slipstream stops short of its three, one brake point each (18-1-2).
    pub short: u8,
    /// Brake points for entering a corner thanks to the slipstreams (18-1-4): 0 or 1.
    pub corner_brakes: u8,
}

impl Slip {
    /// All brake points the slipstreams cost.
    pub fn brake_points(&self) -> u8 {
        self.short + self.corner_brakes
    }
}

/// Whether a car may slipstream at all this move: a car racing (or starting). 18-1-7, 16-0-5:
/// never during an inertia move (a car in inertia is eliminated on its engine, so it is not
/// racing; `play::move_options` also skips [`extend`] for it).
pub fn can_slipstream(c: &CarState) -> bool {
    matches!(c.status, Status::Racing | Status::Grid | Status::Restarting | Status::Stalled)
}

/// Whether a car on the board can be slipstreamed: a racing car; not a spun-out car (18-1-7);
/// a car that has just broken its engine (18-1-8, 16-0-5) but not a car in inertia (18-1-7,
/// 16-0-5). A car that has just broken its engine waits for its inertia move in 5th or 6th (only
/// cars in 5th or 6th take engine tests, 16-0-1, and a break in 4th or lower has no inertia,
/// 16-0-3-1); once it has made that move it is in 4th or lower (16-0-3, 16-0-6), or has no
/// inertia left and waits to be taken off: in inertia either way (docs/rulings.md, ruling 19).
/// Other wrecks (blocking, body) stand still: no wake to take.
pub fn can_draw(c: &CarState) -> bool {
    match c.status {
        Status::Racing => true,
        Status::Eliminated { reason: Elimination::Engine, removed: false } => {
            c.inertia.is_some() && c.gear > super::rulebook::SLIPSTREAM_MIN_GEAR
        }
        _ => false,
    }
}

/// The car just in front of `end`, in its lane, that `mover` (in gear `gear`) may slipstream
/// (18-0-2, 18-1-1). `board`'s marks (every other car on the board, [`Board::occupied`]) say
/// where to look: a space it leaves free holds no car but the mover.
fn drawing_car(t: &Track, s: &RaceState, board: &Board<'_>, mover: CarId, gear: u8, end: SpaceIdx) -> Option<CarId> {
    let lane = t.space(end).lane;
    t.next(end).iter().filter(|&&n| t.space(n).lane == lane && board.occupied[n.get()]).find_map(|&n| {
        let a = s.car_on(n).filter(|&a| a != mover)?;
        let ac = s.car(a);
        (can_draw(ac) && slipstream_allowed(gear, ac.gear)).then_some(a)
    })
}

/// The slipstream options that extend the moves of `base` (the reaches of the roll `roll`):
/// every chain of slipstreams, ending after each one, in full or braked short. Returned pruned
/// (the cheapest way to each end) but not sorted.
///
/// The other steps of the same move (ruling 19):
/// - the soft-tyre +1 (8-2-1) may be taken once, before, between or after the slipstreams
///   (18-3-1); a slipstream move entering a corner costs its brake point even when the +1 is
///   what takes the car in (18-3-2, 18-5-5). It is one more space of the same move
///   (`reaches_after(b, r, 1, 1)`), taken only after a full move or slipstream (never with
///   brakes: braking one space with the +1 is the plain move);
/// - the slide of a wet track (8-1-2, 8-2-2, 8-3-2) happens once a move, where the move first
///   stops on a stop that counts in a corner: after the main move (18-5-2) or after the
///   slipstream that takes the car into the corner (18-5-3); it is compulsory, and a later
///   slipstream slides no more.
#[allow(clippy::too_many_arguments)]
pub fn extend(
    t: &Track,
    s: &RaceState,
    car: CarId,
    board: &Board<'_>,
    base: &Reaches,
    roll: u8,
    wet: bool,
    set: &RuleSet,
) -> Vec<MoveOption> {
    let c = s.car(car);
    let mut out = Vec::new();
    if !can_slipstream(c) || c.gear < super::rulebook::SLIPSTREAM_MIN_GEAR || base.longest < roll {
        return out; // 18-0-1; a blocked move ends with brakes (12-0-1), so no slipstream (18-1-6)
    }
    let bonus = soft_bonus(c.tyres, wet, c.tyre_lap);
    let slides = slide_spaces(c.tyres, wet) > 0;
    // No car to slipstream just in front of any space one step on from `x`: a move ending on
    // `x`, then taking the +1, has no slipstream to take ([`Chain::chain`]'s first tests).
    let none_after = |x: SpaceIdx| t.next(x).iter().all(|&y| drawing_car(t, s, board, car, c.gear, y).is_none());
    for r in base.at(roll) {
        // Without a slide the move goes on only from `r` itself, or with the +1 from a space one
        // step on: nothing to build when no car there can be slipstreamed (the chain's first
        // tests, for `r` and for every end of its +1).
        if !slides
            && (r.overshoot().is_some()
                || r.missed().is_some()
                || drawing_car(t, s, board, car, c.gear, r.end()).is_none())
            && (!bonus || none_after(r.end()))
        {
            continue;
        }
        let mut ctx = Chain { t, s, car, c, board, wet, set, from: r.end(), base_len: 0, out: &mut out };
        // 18-5-2: the main move's slide comes first.
        for (r0, p0, slid) in ctx.slide(r, base.path(r), 0) {
            ctx.from = r0.end();
            ctx.base_len = p0.len();
            ctx.chain(&r0, p0.clone(), Vec::new(), Steps { bonus: false, slid });
            if bonus && !none_after(r0.end()) {
                // 18-3-1: the +1 before the first slipstream, part of the main move.
                let more = reaches_after(board, &r0, 1, 1);
                for r1 in more.at(r0.spaces() + 1) {
                    let mut whole = p0.clone();
                    whole.extend(more.path(r1));
                    ctx.from = r1.end();
                    ctx.base_len = whole.len();
                    ctx.chain(r1, whole, Vec::new(), Steps { bonus: true, slid });
                }
            }
        }
    }
    prune_options(&mut out);
    out
}

/// The steps of the move already made besides the slipstreams.
#[derive(Copy, Clone)]
struct Steps {
    /// The soft-tyre +1 is used (8-2-1, 18-3-1).
    bonus: bool,
    /// Spaces slid (8-1-2); once a move (18-5-2, 18-5-3), so nonzero means done.
    slid: u8,
}

struct Chain<'a, 'b> {
    t: &'a Track,
    s: &'a RaceState,
    car: CarId,
    c: &'a CarState,
    board: &'a Board<'b>,
    wet: bool,
    set: &'a RuleSet,
    from: SpaceIdx,
    base_len: usize,
    out: &'a mut Vec<MoveOption>,
}

impl Chain<'_, '_> {
    /// The ways the move goes on from `r` (reached by `path`) with its slide, if the move has not
    /// slid yet and `r` is a stop that counts in a corner on a wet track (8-1-2, 7-1-1); else `r`
    /// itself. A slide that meets cars ends as far as it can get (ruling 16).
    fn slide(&self, r: &Reach, path: Vec<SpaceIdx>, slid: u8) -> Vec<(Reach, Vec<SpaceIdx>, u8)> {
        let n = slide_spaces(self.c.tyres, self.wet);
        if slid > 0 || n == 0 || !counting_stop(self.t, self.c, &build_option(self.t, self.c, self.wet, r, 0, 0)) {
            return vec![(r.clone(), path, slid)];
        }
        let more = reaches_after(self.board, r, n, n);
        if more.longest <= r.spaces() {
            return vec![(r.clone(), path, slid)];
        }
        more.at(more.longest)
            .iter()
            .map(|w| {
                let mut whole = path.clone();
                whole.extend(more.path(w));
                (w.clone(), whole, w.spaces() - r.spaces())
            })
            .collect()
    }

    /// From the end of `r` (reached by `path`, after slipstreaming `behind`), one more
    /// slipstream if the rules allow it.
    fn chain(&mut self, r: &Reach, path: Vec<SpaceIdx>, behind: Vec<CarId>, steps: Steps) {
        // 18-2-2, 18-5-7: a car overshooting keeps its lane and cannot pull out.
        if r.overshoot().is_some() || r.missed().is_some() {
            return;
        }
        let t = self.t;
        let Some(ahead) = drawing_car(t, self.s, self.board, self.car, self.c.gear, r.end()) else { return };
        let brakes = self.c.wear.brakes;
        let more = reaches_after(self.board, r, SLIPSTREAM_SPACES, SLIPSTREAM_SPACES.saturating_sub(brakes));
        let mut behind = behind;
        behind.push(ahead);
        let full = r.spaces() + SLIPSTREAM_SPACES;
        for k in (r.spaces() + 1)..=full {
            for r2 in more.at(k) {
                let mut whole = path.clone();
                whole.extend(more.path(r2));
                let short = full - k;
                // 18-5-3: the slide after the slipstream that takes the car into a corner.
                for (r3, whole, slid) in self.slide(r2, whole, steps.slid) {
                    let steps = Steps { slid, ..steps };
                    let Some(o) = self.option(&r3, &whole, &behind, short, steps) else { continue };
                    self.out.push(o);
                    if short > 0 {
                        continue; // never after brakes (18-1-6)
                    }
                    self.chain(&r3, whole.clone(), behind.clone(), steps); // 18-1-3
                    if !steps.bonus && soft_bonus(self.c.tyres, self.wet, self.c.tyre_lap) {
                        // 18-3-1: the +1 after (or between) slipstreams.
                        let plus = reaches_after(self.board, &r3, 1, 1);
                        for r4 in plus.at(r3.spaces() + 1) {
                            let mut w4 = whole.clone();
                            w4.extend(plus.path(r4));
                            let steps = Steps { bonus: true, ..steps };
                            let Some(o) = self.option(r4, &w4, &behind, 0, steps) else { continue };
                            self.out.push(o);
                            self.chain(r4, w4, behind.clone(), steps);
                        }
                    }
                }
            }
        }
    }

    /// The option of ending on `r` by `whole`, after slipstreaming `behind` (the last one
    /// `short` spaces short), priced; `None` when the car cannot pay it or it would eliminate the
    /// car (a slipstream is never obligatory, 18-2-1).
    fn option(&self, r: &Reach, whole: &[SpaceIdx], behind: &[CarId], short: u8, steps: Steps) -> Option<MoveOption> {
        let t = self.t;
        // 18-1-4, 18-2-3, 18-3-2: a brake point when the slipstreams (and a +1 taken with them)
        // take the car into a corner it was not in where they began.
        let began_in = t.space(self.from).corner;
        let enters = whole[self.base_len..].iter().any(|&x| {
            let corner = t.space(x).corner;
            corner.is_some() && corner != began_in
        });
        let corner_brakes = if enters { SLIPSTREAM_CORNER_BRAKES } else { 0 };
        if short + corner_brakes > self.c.wear.brakes {
            return None; // cannot pay: not offered (docs/rulings.md, ruling 19)
        }
        if steps.bonus && short > 0 && !self.set.bonus_and_brakes {
            return None; // 2002 6-3 step 7: the +1 *or* the brakes (ruling 33)
        }
        let mut o = build_option(self.t, self.c, self.wet, r, 0, 0);
        o.dangerous = whole.iter().copied().filter(|x| self.s.is_dangerous(*x)).collect();
        o.path = whole.to_vec();
        o.bonus = steps.bonus;
        o.slide = steps.slid;
        o.slip = Some(Slip { from: self.from, behind: behind.to_vec(), short, corner_brakes });
        if self.set.slipstream_no_stop
            && enters
            && let Some((k, n)) = o.stops
            && t.space(r.end()).corner == Some(k)
            && whole[self.base_len..].iter().any(|&x| t.space(x).corner == Some(k))
            && began_in != Some(k)
        {
            // 003-1-5: carried into a corner by the slipstream, the car "is not considered to
            // have made a corner stop" (ruling 35).
            o.stops = Some((k, n.saturating_sub(1)));
        }
        if matches!(o.fate, Fate::Eliminated(_)) || (o.bonus && !bonus_allowed(self.t, self.s, self.car, self.wet, &o))
        {
            return None; // 18-2-1; the +1 only while the tyres allow it (8-2-3)
        }
        Some(o)
    }
}
