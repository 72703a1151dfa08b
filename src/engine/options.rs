//! The choices a player has after a roll, each with its whole cost: where the car ends, the
//! path, brake and tyre points, the overshoot, the blocking, the stops counted, the handling
//! tests it triggers and whether it spins or eliminates the car (10, 11, 12).

use crate::track::{CornerIdx, SpaceIdx, Track};

use super::chains::{Chains, END};
use super::movement::{Reach, Reaches};
use super::rulebook::{blocking_cost, overshoot_factor};
use super::slipstream::Slip;
use super::state::{CarState, Elimination};

/// What an option does to the car beyond its wear.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Fate {
    /// Nothing more.
    Continues,
    /// The last tyre point goes: spinout (10-4-1, 12-1-4).
    SpinOut,
    /// Elimination.
    Eliminated(Elimination),
}

/// One labelled choice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MoveOption {
    /// Where the car ends.
    pub end: SpaceIdx,
    /// The spaces entered, in order.
    pub path: Vec<SpaceIdx>,
    /// Spaces moved.
    pub spaces: u8,
    /// Brake points used on purpose to stop short (11-0-3, 12-0-3).
    pub brakes: u8,
    /// Spaces short because the way is blocked (12-0-1).
    pub blocked: u8,
    /// Brake points the blocking costs (12-0-1 table).
    pub blocking_brakes: u8,
    /// Tyre points the blocking costs (12-0-1 table).
    pub blocking_tyres: u8,
    /// Corner overshot and spaces beyond it (10-0-1).
    pub overshoot: Option<(CornerIdx, u8)>,
    /// Tyre points the overshoot costs (spaces × factor, 10-0-2).
    pub overshoot_tyres: u8,
    /// A 2- or 3-stop corner left without enough stops (10-1).
    pub missed: Option<CornerIdx>,
    /// Dangerous spaces entered: one road-handling test each (17-0-2).
    pub dangerous: Vec<SpaceIdx>,
    /// Stops in the corner the car ends in (7-1-1).
    pub stops: Option<(CornerIdx, u8)>,
    /// Finish-line crossings.
    pub crossings: u8,
    /// What happens to the car.
    pub fate: Fate,
    /// The slipstreams that extend the move, if the player takes them (18).
    pub slip: Option<Slip>,
    /// The soft-tyre +1 is used: one space more than the die (8-2-1, 6-3 step 7).
    pub bonus: bool,
    /// Spaces slid on a wet track after a stop in a corner (8-1-2, 8-2-2, 8-3-2, 6-3 step 6),
    /// included in `spaces` and `path`.
    pub slide: u8,
    /// Entries into an oval's wall lane: one body test against the wall each (15-0-2).
    pub wall: u8,
}

impl MoveOption {
    /// All brake points lost.
    pub fn brake_points(&self) -> u8 {
        self.brakes + self.blocking_brakes + self.slip.as_ref().map_or(0, Slip::brake_points)
    }

    /// All tyre points lost.
    pub fn tyre_points(&self) -> u8 {
        self.overshoot_tyres + self.blocking_tyres
    }

    /// A short label for option `i`: A..Z, then AA..ZZ, then AAA... (never runs out: a position
    /// crowded with dangerous spaces can offer hundreds of options, 7-3-5).
    pub fn label(i: usize) -> String {
        let mut out = Vec::new();
        let mut i = i;
        loop {
            out.push(b'A' + (i % 26) as u8);
            if i < 26 {
                break;
            }
            i = i / 26 - 1;
        }
        out.reverse();
        String::from_utf8(out).unwrap_or_default()
    }
}

/// Turns the reachable ends of a roll into the player's options.
pub fn options(t: &Track, car: &CarState, roll: u8, wet: bool, reaches: &Reaches) -> Vec<MoveOption> {
    // Options are priced first (a few bytes each, [`Priced`]) and built, with their paths, last,
    // once the dominated ones are gone.
    let brakes = car.wear.brakes;
    // Stopping short on purpose: one brake point a space (11-0-3).
    let lowest = roll.saturating_sub(brakes);
    let mut out: Vec<Priced<'_>> = Vec::with_capacity((lowest..=roll).map(|k| reaches.at(k).len()).sum::<usize>() + 8);
    for k in lowest..=roll {
        for r in reaches.at(k) {
            out.push(Priced::of(car, wet, r, roll - k, 0));
        }
    }
    // Blocked: the car goes as far as it can (12-0-1), to the space that would play first next
    // round (12-1-3); voluntary brakes may be taken first (12-0-3).
    if reaches.longest < roll {
        let far = reaches.at(reaches.longest);
        let best = far.iter().map(|r| t.progress_gap(car.space, r.end())).max();
        let short = roll - reaches.longest;
        for r in far.iter().filter(|r| Some(t.progress_gap(car.space, r.end())) == best) {
            for b in 0..short.min(brakes + 1) {
                out.push(Priced::of(car, wet, r, b, short - b));
            }
        }
    }
    // A player may always choose a move that eliminates his car only when every move does
    // (docs/rulings.md).
    if out.iter().any(|p| !matches!(p.fate, Fate::Eliminated(_))) {
        out.retain(|p| !matches!(p.fate, Fate::Eliminated(_)));
    }
    prune(&mut out, t);
    // Farthest first, then cheapest, fewest tests; ties in the order the search found them. The
    // keys are sorted with their indices, and the options built once, in order.
    // The last key, the order the search found the reaches in, is the option's index in `out`:
    // `out` holds the reaches in that order (by length, then as found), and one reach's options
    // differ in blocking, which comes before. So the index sorts along and no two keys are equal.
    let mut keyed: Vec<u128> = out
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let r = p.reach;
            let gap = t.progress_gap(car.space, r.end()) + r.crossings() as u32 * t.lap_length;
            order_key(gap, p.brake_points(), p.tyre_points(), r.tests(), r.end(), p.blocked, i as u32)
        })
        .collect();
    keyed.sort_unstable();
    // Built whole from the priced record (its price is [`build`]'s: the same [`price`] of the
    // same fields), in place in the list, rather than built and repriced field by field.
    let mut built = Vec::with_capacity(keyed.len());
    for &key in &keyed {
        let p = &out[(key as u32) as usize];
        let r = p.reach;
        let path = reaches.path(r);
        let dangerous = reaches.dangerous_on(&path);
        built.push(MoveOption {
            end: r.end(),
            path,
            spaces: r.spaces(),
            brakes: p.brakes,
            blocked: p.blocked,
            blocking_brakes: p.blocking_brakes,
            blocking_tyres: p.blocking_tyres,
            overshoot: r.overshoot(),
            overshoot_tyres: p.overshoot_tyres,
            missed: r.missed(),
            dangerous,
            stops: r.stops(t),
            crossings: r.crossings(),
            fate: p.fate,
            slip: None,
            bonus: false,
            slide: 0,
            wall: 0,
        });
    }
    built
}

/// An option of [`options`] before it is built: its reach, brakes and blocking, and what
/// [`build`] would price it at (the same [`price`]).
struct Priced<'a> {
    reach: &'a Reach,
    brakes: u8,
    blocked: u8,
    blocking_brakes: u8,
    blocking_tyres: u8,
    overshoot_tyres: u8,
    fate: Fate,
    /// No other option beats it ([`prune`]).
    kept: bool,
}

impl<'a> Priced<'a> {
    fn of(car: &CarState, wet: bool, r: &'a Reach, brakes: u8, blocked: u8) -> Self {
        let (blocking_brakes, blocking_tyres) = blocking_cost(blocked).unwrap_or((0, 0));
        let (overshoot_tyres, fate) =
            price(car, wet, r.overshoot(), r.missed(), brakes, blocked, blocking_brakes, blocking_tyres);
        Priced { reach: r, brakes, blocked, blocking_brakes, blocking_tyres, overshoot_tyres, fate, kept: true }
    }

    /// As [`MoveOption::brake_points`] (no slipstream here).
    fn brake_points(&self) -> u8 {
        self.brakes + self.blocking_brakes
    }

    /// As [`MoveOption::tyre_points`].
    fn tyre_points(&self) -> u8 {
        self.overshoot_tyres + self.blocking_tyres
    }
}

/// How options are listed: farthest, cheapest in brakes then tyres, fewest tests, then space,
/// blocking and the order found, packed in one integer in that order (the order of the tuple
/// `(Reverse(gap), brakes, tyres, tests, end, blocked, found)`; one comparison instead of seven).
#[inline]
fn order_key(gap: u32, brakes: u8, tyres: u8, tests: u8, end: SpaceIdx, blocked: u8, found: u32) -> u128 {
    ((!gap as u128) << 96)
        | ((brakes as u128) << 88)
        | ((tyres as u128) << 80)
        | ((tests as u128) << 72)
        | ((end.0 as u128) << 56)
        | ((blocked as u128) << 48)
        | found as u128
}

/// The group of [`prune`] packed in the lower 96 bits of an integer: equal groups, equal integers,
/// and only those.
#[inline]
fn group_key(
    end: SpaceIdx,
    fate: Fate,
    stops: Option<(CornerIdx, u8)>,
    crossings: u8,
    missed: Option<CornerIdx>,
) -> u128 {
    let (f0, f1) = fate_rank(fate);
    let stops = stops.map_or(0u128, |(c, n)| (1 << 24) | ((c.0 as u128) << 8) | n as u128);
    let missed = missed.map_or(0u128, |c| (1 << 16) | c.0 as u128);
    ((end.0 as u128) << 80)
        | ((f0 as u128) << 72)
        | ((f1 as u128) << 64)
        | (stops << 32)
        | ((crossings as u128) << 24)
        | missed
}

fn build(t: &Track, car: &CarState, wet: bool, r: &Reach, brakes: u8, blocked: u8) -> MoveOption {
    let (blocking_brakes, blocking_tyres) = blocking_cost(blocked).unwrap_or((0, 0));
    let mut o = MoveOption {
        end: r.end(),
        path: Vec::new(),
        spaces: r.spaces(),
        brakes,
        blocked,
        blocking_brakes,
        blocking_tyres,
        overshoot: r.overshoot(),
        overshoot_tyres: 0,
        missed: r.missed(),
        dangerous: Vec::new(),
        stops: r.stops(t),
        crossings: r.crossings(),
        fate: Fate::Continues,
        slip: None,
        bonus: false,
        slide: 0,
        wall: 0,
    };
    reprice(car, wet, &mut o);
    o
}

/// The options of the soft-tyre +1 (8-2-1): the ways of exactly `roll + 1` spaces in `reaches`
/// (a search made with the +1), neither braked (braking one space with the +1 is the plain roll)
/// nor blocked (a player never takes a +1 he cannot use), and never eliminating the car (the +1
/// is optional, 8-5-1). With their paths.
pub fn bonus_options(t: &Track, car: &CarState, roll: u8, wet: bool, reaches: &Reaches) -> Vec<MoveOption> {
    let k = roll.saturating_add(1);
    // Without stickers on the board no way enters a dangerous space: the paths are then built
    // once the ways to the same end are down to one (below), not for every way found.
    let late = reaches.no_dangerous();
    let mut out: Vec<(MoveOption, &Reach)> = reaches
        .at(k)
        .iter()
        .map(|r| {
            let mut o = build(t, car, wet, r, 0, 0);
            o.bonus = true;
            if !late {
                o.path = reaches.path(r);
                o.dangerous = reaches.dangerous_on(&o.path);
            }
            (o, r)
        })
        .filter(|(o, _)| !matches!(o.fate, Fate::Eliminated(_)))
        .collect();
    // Of two ways to one end, the one with fewer tests (docs/rulings.md, ruling 7).
    out.sort_by_key(|(o, _)| (o.end, o.dangerous.len()));
    out.dedup_by_key(|(o, _)| (o.end, o.fate == Fate::SpinOut, o.stops, o.crossings));
    out.into_iter()
        .map(|(mut o, r)| {
            if late {
                o.path = reaches.path(r);
            }
            o
        })
        .collect()
}

/// Prices an option from its own fields (again, after a slide changed its path, 8-1-2): the
/// overshoot's tyre points (10-0-2) and the fate.
pub fn reprice(car: &CarState, wet: bool, o: &mut MoveOption) {
    let (overshoot_tyres, fate) =
        price(car, wet, o.overshoot, o.missed, o.brakes, o.blocked, o.blocking_brakes, o.blocking_tyres);
    o.overshoot_tyres = overshoot_tyres;
    o.fate = fate;
}

/// The overshoot's tyre points and the fate [`reprice`] would give option `o` if it overshot and
/// missed as `overshoot` and `missed` say (a slide on from its end, 8-1-2), without changing it.
pub(crate) fn priced(
    car: &CarState,
    wet: bool,
    o: &MoveOption,
    overshoot: Option<(CornerIdx, u8)>,
    missed: Option<CornerIdx>,
) -> (u8, Fate) {
    price(car, wet, overshoot, missed, o.brakes, o.blocked, o.blocking_brakes, o.blocking_tyres)
}

/// The overshoot's tyre points (10-0-2) and the fate of an option with these fields.
#[allow(clippy::too_many_arguments)]
#[inline]
fn price(
    car: &CarState,
    wet: bool,
    overshoot: Option<(CornerIdx, u8)>,
    missed: Option<CornerIdx>,
    brakes: u8,
    blocked: u8,
    blocking_brakes: u8,
    blocking_tyres: u8,
) -> (u8, Fate) {
    let mut fate = Fate::Continues;
    if blocking_cost(blocked).is_none() {
        fate = Fate::Eliminated(Elimination::Blocking);
    }
    let overshoot_tyres = overshoot.map_or(0, |(_, n)| {
        (n as u16 * overshoot_factor(car.tyres, wet, car.tyre_lap) as u16).min(u8::MAX as u16) as u8
    });
    if fate == Fate::Continues && brakes + blocking_brakes > car.wear.brakes {
        fate = Fate::Eliminated(Elimination::Blocking);
    }
    if missed.is_some() {
        fate = Fate::Eliminated(Elimination::Overshoot);
    }
    let tyres_lost = overshoot_tyres + blocking_tyres;
    if fate == Fate::Continues && tyres_lost > 0 {
        // 10-3, 10-4-1, 10-4-2, 12-1-1, 12-1-4: the last tyre point spins the car; more than
        // the car has eliminates it (a spun car with no tyre left spins again on one point).
        let have = car.wear.tyres.max(1);
        if tyres_lost > have {
            fate = Fate::Eliminated(if overshoot.is_some() && overshoot_tyres > 0 {
                Elimination::Overshoot
            } else {
                Elimination::Blocking
            });
        } else if tyres_lost == have {
            fate = Fate::SpinOut;
        }
    }
    (overshoot_tyres, fate)
}

/// Puts options in the order [`options`] lists them (farthest, cheapest in brakes then tyres,
/// fewest tests, then space and blocking); a stable sort, so options already in that order keep
/// theirs. Moves that eliminate the car stay only when every move does (ruling 1).
pub fn sort(t: &Track, car: &CarState, v: &mut Vec<MoveOption>) {
    if v.iter().any(|o| !matches!(o.fate, Fate::Eliminated(_))) {
        v.retain(|o| !matches!(o.fate, Fate::Eliminated(_)));
    }
    v.sort_by_cached_key(|o| list_key(t, car, o));
}

/// Where an option is listed ([`sort`], [`merge`]): farthest first, then cheapest in brakes and
/// tyres, fewest tests, then by space and blocking. Both sorts are stable and work each key out
/// once (an option is a large record: the keys are sorted, then the options moved once).
fn list_key(t: &Track, car: &CarState, o: &MoveOption) -> (std::cmp::Reverse<u32>, u8, u8, usize, SpaceIdx, u8) {
    let gap = t.progress_gap(car.space, o.end) + o.crossings as u32 * t.lap_length;
    (std::cmp::Reverse(gap), o.brake_points(), o.tyre_points(), o.dangerous.len(), o.end, o.blocked)
}

/// The option of ending where `r` ends after braking `brakes` spaces short on purpose and being
/// blocked `blocked` spaces short, priced (for the modules that extend moves, like 18).
pub(crate) fn build_option(t: &Track, car: &CarState, wet: bool, r: &Reach, brakes: u8, blocked: u8) -> MoveOption {
    build(t, car, wet, r, brakes, blocked)
}

/// Drops the options another one beats (see [`prune`]), counting a road-handling test for each
/// dangerous space on the path.
pub(crate) fn prune_options(v: &mut Vec<MoveOption>) {
    let items: Vec<(u128, u64)> = v
        .iter()
        .map(|o| {
            let group = group_key(o.end, o.fate, o.stops, o.crossings, o.missed);
            (group, costs(o.brake_points(), o.tyre_points(), o.dangerous.len() as u8))
        })
        .collect();
    let mut kept = unbeaten(&items).into_iter();
    v.retain(|_| kept.next().unwrap_or(true));
}

/// An option's brake points, tyre points and road-handling tests in 16-bit lanes of one word,
/// for [`no_more`].
#[inline]
fn costs(brakes: u8, tyres: u8, tests: u8) -> u64 {
    ((brakes as u64) << 32) | ((tyres as u64) << 16) | tests as u64
}

/// Costs `a` are no more than costs `b` in each lane ([`costs`]), in one subtraction: with the
/// lanes' top bits set in `b`, `b - a` keeps them all exactly when no lane of `a` is larger (a
/// lane holds less than 256, so none borrows from the next).
#[inline]
fn no_more(a: u64, b: u64) -> bool {
    const TOPS: u64 = (1 << 47) | (1 << 31) | (1 << 15);
    ((b | TOPS) - a) & TOPS == TOPS
}

/// Which of `items` (group, [`costs`]), in the order listed, no other item of the same group
/// beats (as in [`prune`]): none with no more of each cost and less of one, and none listed
/// earlier at the same costs.
///
/// The items are taken in order, keeping the ones unbeaten so far (`front`): an item is beaten
/// when one of them costs no more in each lane; else it is kept, and it drops those it beats.
/// This keeps what comparing every pair keeps (a beaten item's beater, or that one's, is in the
/// front when it matters) at the cost of comparing each item with the front only (the groups'
/// cheapest trade-offs), not with every other item.
fn unbeaten(items: &[(u128, u64)]) -> Vec<bool> {
    let mut kept = vec![false; items.len()];
    let mut front: Vec<usize> = Vec::new();
    for (i, &(gi, ci)) in items.iter().enumerate() {
        if front.iter().any(|&j| no_more(items[j].1, ci) && items[j].0 == gi) {
            continue;
        }
        front.retain(|&j| {
            let beaten = no_more(ci, items[j].1) && items[j].0 == gi;
            kept[j] = !beaten;
            !beaten
        });
        front.push(i);
        kept[i] = true;
    }
    kept
}

/// Adds `extra` options (slipstreams, 18) to `base` and lists them all as [`options`] does:
/// farthest first, then cheapest, fewest tests; `base` keeps its order among equals.
pub fn merge(t: &Track, car: &CarState, base: Vec<MoveOption>, extra: Vec<MoveOption>) -> Vec<MoveOption> {
    if extra.is_empty() {
        return base;
    }
    let mut all = base;
    all.extend(extra);
    all.sort_by_cached_key(|o| list_key(t, car, o));
    all
}

/// Drops options that another option of the same group (same end, fate, stops...) beats: no
/// more brake points, tyre points or road-handling tests, and fewer of one. Every dangerous
/// space is the same test (17-0-2), so of two ways to the same end at the same cost only the one
/// with fewer tests is offered (docs/rulings.md). Equal ones: the first listed stays (plain
/// braking comes before the same cost split as brakes and blocking, 12-0-3).
fn prune(v: &mut Vec<Priced<'_>>, t: &Track) {
    ENDS.with(|e| match e.try_borrow_mut() {
        Ok(mut e) => prune_with(v, t, &mut e),
        Err(_) => prune_with(v, t, &mut Ends::default()),
    })
}

/// The options of one [`prune`] by the space they end on ([`Chains`], kept per thread), the
/// spaces two options or more end on, once each, and the options of one such space with their
/// group keys and costs.
#[derive(Default)]
struct Ends {
    chains: Chains,
    shared: Vec<usize>,
    run_keys: Vec<(usize, u128, u64)>,
}

thread_local! {
    static ENDS: std::cell::RefCell<Ends> = std::cell::RefCell::new(Ends::default());
}

fn prune_with(v: &mut Vec<Priced<'_>>, t: &Track, e: &mut Ends) {
    let group =
        |p: &Priced<'_>| group_key(p.reach.end(), p.fate, p.reach.stops(t), p.reach.crossings(), p.reach.missed());
    let cost = |p: &Priced<'_>| costs(p.brake_points(), p.tyre_points(), p.reach.tests());
    // A group's options end on the same space: each group's options lie in the chain of their
    // end, among the options of the other groups ending there, which the whole group key tells
    // apart.
    let Ends { chains, shared, run_keys } = e;
    chains.clear(t.spaces.len());
    shared.clear();
    for (i, p) in v.iter().enumerate() {
        let s = p.reach.end().get();
        let first = chains.push(s);
        if first != i as u32 && chains.next(first) == i as u32 {
            shared.push(s); // its second option
        }
    }
    // A run's group keys and costs, worked out once per option rather than once per pair.
    for &s in shared.iter() {
        run_keys.clear();
        let mut i = chains.head(s);
        while i != END {
            let p = &v[i as usize];
            run_keys.push((i as usize, group(p), cost(p)));
            i = chains.next(i);
        }
        // Beaten: by one of the group with no more of each cost and less of one, or the same
        // costs and listed first (so never by itself). A run is short (the ways to one space at
        // a few lengths), and every pair compared costs less than [`unbeaten`]'s
        // bookkeeping here (measured: 56,066 against 56,299 instructions an enumeration).
        for &(i, gi, ci) in run_keys.iter() {
            v[i].kept = !run_keys.iter().any(|&(j, gj, cj)| no_more(cj, ci) && (cj != ci || j < i) && gj == gi);
        }
    }
    v.retain(|p| p.kept);
}

/// A total order on fates, for grouping.
fn fate_rank(f: Fate) -> (u8, u8) {
    match f {
        Fate::Continues => (0, 0),
        Fate::SpinOut => (1, 0),
        Fate::Eliminated(r) => (2, r as u8),
    }
}

#[cfg(test)]
mod tests {
    use super::{MoveOption, costs, no_more, unbeaten};
    use proptest::prelude::*;

    proptest! {
        /// Comparing each item with the ones kept so far keeps exactly what comparing every
        /// pair keeps: no other item of the group beats it, and none listed earlier costs the
        /// same.
        #[test]
        fn unbeaten_is_every_pair_compared(items in prop::collection::vec((0u128..3, (0u8..3, 0u8..3, 0u8..2)), 0..40)) {
            let beats = |a: (u8, u8, u8), b: (u8, u8, u8)| a.0 <= b.0 && a.1 <= b.1 && a.2 <= b.2 && a != b;
            let pairwise: Vec<bool> = (0..items.len())
                .map(|i| {
                    !(0..items.len()).any(|j| {
                        j != i && items[j].0 == items[i].0 && (beats(items[j].1, items[i].1) || (j < i && items[j].1 == items[i].1))
                    })
                })
                .collect();
            let listed: Vec<(u128, u64)> = items.iter().map(|&(g, (a, b, c))| (g, costs(a, b, c))).collect();
            prop_assert_eq!(unbeaten(&listed), pairwise);
        }

        /// One subtraction tells whether every cost is no more than another's.
        #[test]
        fn no_more_is_each_cost_compared(a in any::<(u8, u8, u8)>(), b in any::<(u8, u8, u8)>()) {
            prop_assert_eq!(no_more(costs(a.0, a.1, a.2), costs(b.0, b.1, b.2)), a.0 <= b.0 && a.1 <= b.1 && a.2 <= b.2);
        }
    }

    #[test]
    fn labels_go_on_past_zz() {
        let l: Vec<String> = [0, 25, 26, 27, 701, 702, 703].iter().map(|&i| MoveOption::label(i)).collect();
        assert_eq!(l, ["A", "Z", "AA", "AB", "ZZ", "AAA", "AAB"]);
    }
}
