//! What the tyres add to a move (8): the soft-tyre +1 on a dry track and the slide after a stop
//! in a corner on a wet track. Both are steps of a player's play (6-3, 2004 text): the die's
//! move (step 5), the slide (step 6), the soft +1 (step 7), the brakes (step 9). On a wet track
//! there is no +1 (8-2-2), so a move has one or the other, never both.
//!
//! Kept apart from `options` (which prices the ways of one search) because both need more than
//! one search: the +1 a search one space longer, the slide a search from where the car stops.
//! The overshoot factors by tyre type, track and tyre lap are in `rulebook` (8-5, 10-0-2).

use crate::track::{CornerIdx, SpaceIdx, Track};

use super::movement::{Board, Mover, Reaches, reaches};
use super::options::{Fate, MoveOption, priced, reprice};
use super::pits::{self, PitStage};
use super::rulebook::{RuleSet, Tyres, slide_spaces, soft_bonus};
use super::state::{CarId, CarState, RaceState};

/// Whether a die's result of `value` loses a space to worn soft tyres (003-3, the Eurogames table:
/// soft tyres on their third lap, "all moves in the straights will be reduced by one space"): a
/// move begun on a straight of the racing track, never below one space (ruling 34).
pub fn worn_soft_malus(t: &Track, car: &CarState, value: u8, set: &RuleSet) -> bool {
    set.worn_soft_straights
        && car.tyres == Tyres::Soft
        && car.tyre_lap >= 3
        && value > 1
        && t.space(car.space).corner.is_none()
        && !t.space(car.space).in_pit_lane()
}

/// Whether `car` may use the soft-tyre +1 on a move that takes option `o` (8-2-1, 8-2-3): soft
/// tyres on their first lap on a dry track, and "jusqu'au tour précédant le franchissement de la
/// ligne": not on a move whose line crossing ends the tyres' first lap ([`crossing_ages_tyres`]:
/// the crossing from the grid starts lap 1 and ends nothing, and neither does a crossing on the
/// way to the car's box, 19-3-6, nor the first crossing of a set fitted at a box before the line,
/// 8-0-2).
pub fn bonus_allowed(t: &Track, s: &RaceState, car: CarId, wet: bool, o: &MoveOption) -> bool {
    let c = s.car(car);
    if !soft_bonus(c.tyres, wet, c.tyre_lap) {
        return false;
    }
    (0..o.crossings as u16).all(|k| !crossing_ages_tyres(t, s, car, c.crossings + k, o.end))
}

/// Whether the line crossing that takes `car` from `before` crossings to `before + 1` on a move
/// ending on `end` ends a lap of its tyres (8-0-2: « on ne fait pas référence à la voiture mais
/// au train de pneus »). Not the crossing from the grid (it starts lap 1); not a crossing on the
/// way to the car's box (the set is changed there at the end of this lap, and the +1 holds until
/// the box « même si ce dernier est placé au-delà de la ligne d'arrivée », 19-3-6); and not the
/// first crossing after a set was fitted at a box before the line (« si une voiture change ses
/// pneus à la fin du deuxième tour de circuits, la voiture commence son troisième tour mais ses
/// pneus en sont seulement à leur premier tour »). A set fitted at a box beyond the line has
/// crossed it already: its next crossing ends its first lap.
pub fn crossing_ages_tyres(t: &Track, s: &RaceState, car: CarId, before: u16, end: SpaceIdx) -> bool {
    let c = s.car(car);
    if before == 0 {
        return false;
    }
    if matches!(c.pit.stage, PitStage::Out | PitStage::ToBox) && t.space(end).in_pit_lane() {
        return false;
    }
    let fitted_before_line =
        c.pit.last_stop == Some(before) && pits::own_box(t, s, car).is_some_and(|b| pits::box_before_line(t, b));
    !fitted_before_line
}

/// True if option `o` of `car` ends on a stop that counts in a corner (7-1-1): a corner whose
/// required stops are not all made yet, entered normally (an overshoot into the next corner
/// counts no stop there, 10-2-3). Only such stops slide: "tout arrêt supplémentaire dans les
/// limites du virage n'est plus considéré comme étant dans le virage, notamment pour les
/// glissades sous la pluie" (7-1-1).
pub fn counting_stop(t: &Track, car: &CarState, o: &MoveOption) -> bool {
    let Some((k, after)) = o.stops else { return false };
    let before = match car.stops {
        Some((ck, n)) if ck == k && t.space(car.space).corner == Some(k) => n,
        _ => 0,
    };
    after > before
}

/// The slide of every option that ends on a counting stop on a wet track (8-1-2, 8-2-2, 8-3-2):
/// the car goes on along the arrows, 3 spaces on hard or soft tyres, 1 on rain tyres, one option
/// for each way the slide can take, and stops where the slide ends. The stop counts there if it
/// is still inside the corner; a slide out of the corner leaves it with the stops made before
/// (an overshoot, 10-0-1, or an elimination, 10-1). A slide stopped by a car ends behind it at no
/// cost (it is not the die's move, 12-0-1; docs/rulings.md, ruling 16). Options are returned in
/// the usual order; unchanged when nothing slides (a dry track).
pub fn slide(t: &Track, board: &Board<'_>, car: &CarState, wet: bool, opts: Vec<MoveOption>) -> Vec<MoveOption> {
    let n = slide_spaces(car.tyres, wet);
    if n == 0 || !opts.iter().any(|o| counting_stop(t, car, o)) {
        return opts;
    }
    // The slides searched so far, by where they start: options to one end with the same stops
    // (braked, blocked or by other ways) slide the same ways.
    let mut searched: Vec<((SpaceIdx, CornerIdx, u8), Reaches)> = Vec::new();
    // Every option the slides make, in order: an option that does not slide stands for itself
    // (`None`), one that slides for each of its ways (the search and the way's index there).
    let mut made: Vec<(usize, Option<(usize, usize)>)> = Vec::with_capacity(opts.len() * 4);
    for (i, o) in opts.iter().enumerate() {
        if matches!(o.fate, Fate::Eliminated(_)) || !counting_stop(t, car, o) {
            made.push((i, None));
            continue;
        }
        let (k, after) = o.stops.expect("a counting stop is in a corner");
        let from = (o.end, k, after);
        let j = match searched.iter().position(|(f, _)| *f == from) {
            Some(j) => j,
            None => {
                let mover = Mover { start: o.end, stops: Some((k, after - 1)), max: n, min: n };
                searched.push((from, reaches(board, &mover)));
                searched.len() - 1
            }
        };
        let r = &searched[j].1;
        let ways = r.at(r.longest).len();
        if r.longest == 0 || ways == 0 {
            made.push((i, None));
            continue;
        }
        made.extend((0..ways).map(|w| (i, Some((j, w)))));
    }
    // One option per end and cost (ruling 7): ways that differ only in the spaces slid through.
    // Each option's key is worked out before it is built, so that only the options kept are.
    let mut seen: Vec<(u128, usize)> = Vec::with_capacity(made.len());
    made.retain(|&(i, way)| {
        let o = &opts[i];
        let k = match way {
            None => (slide_key(o, o.end, o.stops, o.crossings, o.fate, o.overshoot, o.missed), o.dangerous.len()),
            Some((j, w)) => {
                let r = &searched[j].1;
                let w = &r.at(r.longest)[w];
                let (_, fate) = priced(car, wet, o, w.overshoot(), w.missed());
                let slid_dangerous = if r.no_dangerous() { 0 } else { r.dangerous_on(&r.path(w)).len() };
                let key =
                    slide_key(o, w.end(), w.stops(t), o.crossings + w.crossings(), fate, w.overshoot(), w.missed());
                (key, o.dangerous.len() + slid_dangerous)
            }
        };
        if seen.iter().any(|(s, d)| *s == k.0 && *d <= k.1) {
            return false;
        }
        seen.push(k);
        true
    });
    // The options kept, built: an option that slides is copied with the slide appended, its path
    // and dangerous spaces built at their length.
    let mut opts: Vec<Option<MoveOption>> = opts.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(made.len());
    for (i, way) in made {
        let Some((j, w)) = way else {
            out.push(opts[i].take().expect("an option that does not slide is listed once"));
            continue;
        };
        let o = opts[i].as_ref().expect("an option that slides is never taken");
        let r = &searched[j].1;
        let w = &r.at(r.longest)[w];
        let path = r.path(w);
        let slid_dangerous = r.dangerous_on(&path);
        let mut dangerous = Vec::with_capacity(o.dangerous.len() + slid_dangerous.len());
        dangerous.extend_from_slice(&o.dangerous);
        dangerous.extend(slid_dangerous);
        let mut whole = Vec::with_capacity(o.path.len() + path.len());
        whole.extend_from_slice(&o.path);
        whole.extend(path);
        let mut s = MoveOption {
            end: w.end(),
            path: whole,
            spaces: o.spaces + w.spaces(),
            dangerous,
            stops: w.stops(t),
            overshoot: w.overshoot(),
            missed: w.missed(),
            crossings: o.crossings + w.crossings(),
            slide: w.spaces(),
            slip: o.slip.clone(),
            ..*o
        };
        reprice(car, wet, &mut s);
        out.push(s);
    }
    super::options::sort(t, car, &mut out);
    out
}

/// What tells two options apart for [`slide`]'s one option per end and cost, packed in one
/// integer (equal keys, equal integers, and only those): the end, the brakes, the blocking, the
/// +1, the stops, the line crossings, a spin, the overshoot and a missed corner; not the spaces
/// slid through nor the dangerous spaces entered. `o` gives the brakes, blocking and +1.
fn slide_key(
    o: &MoveOption,
    end: SpaceIdx,
    stops: Option<(CornerIdx, u8)>,
    crossings: u8,
    fate: Fate,
    overshoot: Option<(CornerIdx, u8)>,
    missed: Option<CornerIdx>,
) -> u128 {
    // 25 bits: whether there is one, the corner, the count.
    let corner = |x: Option<(CornerIdx, u8)>| x.map_or(0u128, |(c, n)| (1 << 24) | ((c.0 as u128) << 8) | n as u128);
    end.0 as u128
        | (o.brakes as u128) << 16
        | (o.blocked as u128) << 24
        | (o.bonus as u128) << 32
        | ((fate == Fate::SpinOut) as u128) << 33
        | (crossings as u128) << 34
        | corner(stops) << 42
        | corner(overshoot) << 67
        | missed.map_or(0u128, |c| (1 << 16) | c.0 as u128) << 92
}
