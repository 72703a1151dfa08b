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
//! - never from an overshoot (18-2-2, 18-5-7), never behind a spun-out car (18-1-7), but behind a
//!   car that has just broken its engine (18-1-8).
//!
//! Hooks for the rules of other chapters (weather and tyres, 8; inertia, 16): see [`can_draw`],
//! [`can_slipstream`] and the notes at [`extend`]; the rulings list what is still open.

use crate::track::{SpaceIdx, Track};

use super::movement::{Board, Reach, Reaches, reaches_after};
use super::options::{Fate, MoveOption, build_option, prune_options};
use super::rulebook::{SLIPSTREAM_CORNER_BRAKES, SLIPSTREAM_SPACES, slipstream_allowed};
use super::state::{CarId, CarState, Elimination, RaceState, Status};

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

/// Whether a car may slipstream at all this move. 18-1-7: never during an inertia move. The
/// inertia move of a broken engine (16-0-3, 20-4-2) is played by its own code path, not through
/// the options; when it is, it must not call [`extend`].
pub fn can_slipstream(c: &CarState) -> bool {
    matches!(c.status, Status::Racing | Status::Grid | Status::Restarting | Status::Stalled)
}

/// Whether a car on the board can be slipstreamed: not a spun-out car (18-1-7), but a car that
/// has just broken its engine (18-1-8). A car waiting for its inertia move keeps the engine
/// status; once inertia is played as a status of its own (16), it must answer `false` here
/// (18-1-7). Other wrecks (blocking, body) stand still: no wake to take (docs/rulings.md).
pub fn can_draw(c: &CarState) -> bool {
    matches!(c.status, Status::Racing | Status::Eliminated { reason: Elimination::Engine, removed: false })
}

/// The car just in front of `end`, in its lane, that `mover` (in gear `gear`) may slipstream
/// (18-0-2, 18-1-1).
fn drawing_car(t: &Track, s: &RaceState, mover: CarId, gear: u8, end: SpaceIdx) -> Option<CarId> {
    let lane = t.space(end).lane;
    t.next(end).iter().filter(|&&n| t.space(n).lane == lane).find_map(|&n| {
        let a = s.car_on(n).filter(|&a| a != mover)?;
        let ac = s.car(a);
        (can_draw(ac) && slipstream_allowed(gear, ac.gear)).then_some(a)
    })
}

/// The slipstream options that extend the moves of `base` (the reaches of the roll `roll`):
/// every chain of slipstreams, ending after each one, in full or braked short. Returned pruned
/// (the cheapest way to each end) but not sorted.
///
/// Hooks: the soft-tyre +1 (8-2) may be taken before, between or after slipstreams (18-3-1),
/// and a slipstream entering a corner thanks to it still costs the brake point (18-3-2); the
/// mandatory slide of a wet track (8) happens once a move, after the main move or after the
/// slipstream that takes the car into the corner (18-5-2, 18-5-3). When options gain those steps,
/// they are inserted between [`chain`]'s calls (a +1 is one more space of the same move, so
/// `reaches_after(b, r, 1, 1)` gives it).
pub fn extend(
    t: &Track,
    s: &RaceState,
    car: CarId,
    board: &Board<'_>,
    base: &Reaches,
    roll: u8,
    wet: bool,
) -> Vec<MoveOption> {
    let c = s.car(car);
    let mut out = Vec::new();
    if !can_slipstream(c) || c.gear < super::rulebook::SLIPSTREAM_MIN_GEAR || base.longest < roll {
        return out; // 18-0-1; a blocked move ends with brakes (12-0-1), so no slipstream (18-1-6)
    }
    for r in base.at(roll) {
        let path = base.path(r);
        let from = r.end;
        let base_len = path.len();
        let mut ctx = Chain { t, s, car, c, board, wet, from, base_len, out: &mut out };
        ctx.chain(r, path, Vec::new());
    }
    prune_options(&mut out);
    out
}

struct Chain<'a, 'b> {
    t: &'a Track,
    s: &'a RaceState,
    car: CarId,
    c: &'a CarState,
    board: &'a Board<'b>,
    wet: bool,
    from: SpaceIdx,
    base_len: usize,
    out: &'a mut Vec<MoveOption>,
}

impl Chain<'_, '_> {
    /// From the end of `r` (reached by `path`, after slipstreaming `behind`), one more
    /// slipstream if the rules allow it.
    fn chain(&mut self, r: &Reach, path: Vec<SpaceIdx>, behind: Vec<CarId>) {
        // 18-2-2, 18-5-7: a car overshooting keeps its lane and cannot pull out.
        if r.overshoot.is_some() || r.missed.is_some() {
            return;
        }
        let t = self.t;
        let Some(ahead) = drawing_car(t, self.s, self.car, self.c.gear, r.end) else { return };
        let brakes = self.c.wear.brakes;
        let more = reaches_after(self.board, r, SLIPSTREAM_SPACES, SLIPSTREAM_SPACES.saturating_sub(brakes));
        let mut behind = behind;
        behind.push(ahead);
        let full = r.spaces + SLIPSTREAM_SPACES;
        for k in (r.spaces + 1)..=full {
            for r2 in more.at(k) {
                let extra = more.path(r2);
                let mut whole = path.clone();
                whole.extend_from_slice(&extra);
                // 18-1-4, 18-2-3: a brake point when the slipstreams take the car into a corner
                // it was not in where they began.
                let began_in = t.space(self.from).corner;
                let enters = whole[self.base_len..].iter().any(|&x| {
                    let corner = t.space(x).corner;
                    corner.is_some() && corner != began_in
                });
                let corner_brakes = if enters { SLIPSTREAM_CORNER_BRAKES } else { 0 };
                let short = full - k;
                if short + corner_brakes > brakes {
                    continue; // cannot pay: not offered (docs/rulings.md)
                }
                let mut o = build_option(self.c, self.wet, r2, 0, 0);
                o.dangerous = whole.iter().copied().filter(|x| self.s.is_dangerous(*x)).collect();
                o.path = whole.clone();
                o.slip = Some(Slip { from: self.from, behind: behind.clone(), short, corner_brakes });
                if matches!(o.fate, Fate::Eliminated(_)) {
                    continue; // a slipstream is never obligatory (18-2-1): never take it to go out
                }
                self.out.push(o);
                if short == 0 {
                    self.chain(r2, whole, behind.clone()); // 18-1-3; never after brakes (18-1-6)
                }
            }
        }
    }
}
