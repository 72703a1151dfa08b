//! The search itself: its per-thread buffers, its compiled copies (plain or not, into the pit
//! lane or not), the layers grown one length at a time, and its answer.

use super::fields::Fields;
use super::layer::Layer;
use super::node::{NO_FIELD, Node};
use super::step::step;
use super::{Board, Reach, Reaches, reach_of};
use crate::track::SpaceIdx;
use crate::track::model::{Arrow, NEAR};

/// The buffers of a search, reused from one search to the next on the same thread: the states,
/// the layer, the straight-distance fields, and the vectors of results ([`Reaches`]) given back
/// when dropped. Only their capacity carries over (every search empties them first), so a search
/// finds the same ways whatever ran before it.
#[derive(Default)]
pub(super) struct Scratch {
    fields: Option<Fields>,
    layer: Option<Layer<()>>,
    /// The vectors of dropped [`Reaches`], at most [`SPARE`].
    pub(super) spare: Vec<Parts>,
}

/// The vectors a [`Reaches`] owns.
#[derive(Default)]
pub(super) struct Parts {
    pub(super) all: Vec<Reach>,
    pub(super) start: Vec<u32>,
    pub(super) nodes: Vec<Node>,
    pub(super) dangerous: Vec<SpaceIdx>,
}

/// Results' vectors kept for reuse (a move's enumeration holds a few [`Reaches`] at once: the
/// move's, a slide's, a slipstream's).
const SPARE: usize = 8;

thread_local! {
    pub(super) static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::new(Scratch::default());
}

impl Drop for Reaches {
    fn drop(&mut self) {
        if self.nodes.capacity() == 0 {
            return; // nothing worth keeping (a default)
        }
        let parts = Parts {
            all: std::mem::take(&mut self.all),
            start: std::mem::take(&mut self.start),
            nodes: std::mem::take(&mut self.nodes),
            dangerous: std::mem::take(&mut self.dangerous),
        };
        // Not kept while the thread ends or the scratch is in use.
        let _ = SCRATCH.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut()
                && s.spare.len() < SPARE
            {
                s.spare.push(parts);
            }
        });
    }
}

/// The plain search ([`search_in`]) on from `prefix` ([`grow_in`]), with the thread's buffers.
pub(super) fn grow(b: &Board<'_>, prefix: &[Node], max: u8, min: u8) -> Reaches {
    debug_assert!(plain(b, &prefix[0], max), "a board the plain search serves");
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => grow_in::<true, false>(&mut s, b, prefix, max, min),
        Err(_) => grow_in::<true, false>(&mut Scratch::default(), b, prefix, max, min),
    })
}

pub(super) fn search(b: &Board<'_>, root: Node, max: u8, min: u8, to_pit_lane: bool) -> Reaches {
    SCRATCH.with(|s| match s.try_borrow_mut() {
        Ok(mut s) => search_with(&mut s, b, root, max, min, to_pit_lane),
        Err(_) => search_with(&mut Scratch::default(), b, root, max, min, to_pit_lane),
    })
}

/// [`search_in`] for the board: a board with no dangerous space within the move's reach
/// ([`Track::arrows_from`]) and no wall entry counted (most boards) takes a copy of the search
/// compiled for it, where no state ever has a test or a mask bit, so none of that bookkeeping is
/// done. Both copies find the same states in the same order. The search for the ways into the
/// pit lane has copies of its own, so that the others do not test, at every step, whether they
/// are one (`TO_PIT_LANE`).
fn search_with(scratch: &mut Scratch, b: &Board<'_>, root: Node, max: u8, min: u8, to_pit_lane: bool) -> Reaches {
    match (plain(b, &root, max), to_pit_lane) {
        (true, false) => search_in::<true, false>(scratch, b, root, max, min),
        (true, true) => search_in::<true, true>(scratch, b, root, max, min),
        (false, false) => search_in::<false, false>(scratch, b, root, max, min),
        (false, true) => search_in::<false, true>(scratch, b, root, max, min),
    }
}

/// True when the search from `root` up to `max` may take the plain copy ([`search_with`]): no
/// wall entry counted, no test or mask bit at the root, and no dangerous space within the
/// move's reach. A dangerous space the move cannot reach changes nothing the plain copy does not
/// do: no step enters it, so every state's mask and tests stay empty, and as an obstacle it
/// closes the same straight paths in both copies (a field is worked out with the empty mask
/// either way).
pub(super) fn plain(b: &Board<'_>, root: &Node, max: u8) -> bool {
    let t = b.track;
    if (b.walls && t.has_walls()) || root.mask != 0 || root.tests() != 0 {
        return false;
    }
    let left = max.saturating_sub(root.k());
    b.dangerous.is_empty()
        || (left < NEAR && {
            let d = t.arrows_from(SpaceIdx(root.pos()));
            b.dangerous.iter().all(|s| d[s.get()] > left)
        })
}

/// The search ([`reaches`]); `PLAIN`: the board has no dangerous space the move can reach and
/// counts no wall entry, and the root no test (see [`search_with`]); `TO_PIT_LANE`: only the
/// ways into the pit lane are wanted ([`reaches_to_pit_lane`]).
pub(super) fn search_in<const PLAIN: bool, const TO_PIT_LANE: bool>(
    scratch: &mut Scratch,
    b: &Board<'_>,
    root: Node,
    max: u8,
    min: u8,
) -> Reaches {
    grow_in::<PLAIN, TO_PIT_LANE>(scratch, b, &[root], max, min)
}

/// [`search_in`] from the states `prefix` (the root first, then whole layers, as a search lists
/// them): the search goes on from the last layer. Its states are those of the search from the
/// root whenever the prefix is that search's first layers (a kept search's, [`memo`]).
fn grow_in<const PLAIN: bool, const TO_PIT_LANE: bool>(
    scratch: &mut Scratch,
    b: &Board<'_>,
    prefix: &[Node],
    max: u8,
    min: u8,
) -> Reaches {
    let t = b.track;
    let root = prefix[0];
    // Cutting the states that cannot reach the pit lane changes no state that can: the layers
    // compare only states on the same space. It would change which dangerous spaces get the
    // first 64 mask bits, so it is done only when they all get one.
    let to_pit_lane = TO_PIT_LANE && !(b.walls && t.has_walls()) && b.dangerous.len() <= 64;
    let Scratch { fields, layer: next, spare } = scratch;
    let fields = fields.get_or_insert_with(|| Fields::new(t));
    fields.reset(t);
    let next = next.get_or_insert_with(|| Layer::new(64));
    let Parts { all, start, mut nodes, dangerous } = spare.pop().unwrap_or_default();
    nodes.clear();
    nodes.extend_from_slice(prefix);
    // A field index belongs to one search; the root has no parent.
    nodes.iter_mut().for_each(|n| n.field = NO_FIELD);
    nodes[0].parent = u32::MAX;
    let mut longest = nodes.last().map_or(root.k(), |n| n.k());
    let mut layer = nodes.iter().position(|n| n.k() == longest).unwrap_or(0)..nodes.len();
    // The first state at least `min` long: the layers before it are not reported.
    let mut first_reported = nodes.iter().position(|n| n.k() >= min).unwrap_or(usize::MAX);
    let walls = b.walls && t.has_walls();
    for k in nodes[layer.start].k()..max {
        next.clear(t.spaces.len(), &nodes);
        for i in layer.clone() {
            let mut n = nodes[i];
            let pos = SpaceIdx(n.pos());
            let (here, arrows) = t.arrows(pos);
            for &Arrow { to: nxt, there } in arrows {
                // The state is passed through `black_box` so that the compiler reads its fields
                // where a step uses them, rather than working them all out once per state ahead
                // of its arrows and keeping them on the stack (most steps use few of them).
                let n = std::hint::black_box(&mut n);
                if let Some(mut child) = step::<PLAIN>(b, walls, fields, n, pos, here, nxt, there, max) {
                    if to_pit_lane && t.arrows_to_pit_lane(nxt) > max - child.k() {
                        continue; // no way into the lane from there within the roll
                    }
                    child.parent = i as u32;
                    next.add::<PLAIN>(&mut nodes, child, ());
                }
            }
        }
        let next_start = next.base;
        if nodes.len() == next_start {
            break;
        }
        longest = k + 1;
        layer = next_start..nodes.len();
        if longest == min {
            first_reported = next_start;
        }
    }

    // Nodes are in layers, so by increasing length already: the reported ones are those from
    // the first of length `min`, or the last layer (the longest) when it is shorter.
    let reported = if longest < min { layer.start } else { first_reported };
    debug_assert!(
        nodes.iter().enumerate().all(|(i, n)| (i >= reported) == (n.k() >= min || n.k() == longest)),
        "the states reported are those at least `min` long, or the longest"
    );
    report(Parts { all, start, nodes, dangerous }, reported, max, longest, root.k(), b.dangerous)
}

/// A search's answer from its states (`parts.nodes`, in layers, the others emptied here): the
/// ways from state `reported` on, by length, for a roll of `max`; `dangerous`: the board's.
#[inline(always)]
pub(super) fn report(
    parts: Parts,
    reported: usize,
    max: u8,
    longest: u8,
    root_k: u8,
    dangerous: &[SpaceIdx],
) -> Reaches {
    let Parts { mut all, mut start, nodes, dangerous: mut stickers } = parts;
    all.clear();
    all.reserve(nodes.len() - reported);
    start.clear();
    start.resize(max as usize + 2, 0);
    for (i, n) in nodes.iter().enumerate().skip(reported) {
        all.push(reach_of(n, i as u32));
        start[n.k() as usize + 1] = all.len() as u32;
    }
    for k in 1..start.len() {
        start[k] = start[k].max(start[k - 1]);
    }
    stickers.clear();
    stickers.extend_from_slice(dangerous);
    Reaches { all, start, longest, nodes, dangerous: stickers, root_k }
}
