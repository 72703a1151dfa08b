//! One layer of the search: the states of the next length, each kept once unless another
//! dominates it.

use super::node::Node;
use crate::engine::chains::{Chains, END};

/// the first ones found stay (docs/rulings.md).
const MAX_VARIANTS: usize = 16;

/// One layer of the search: the states found at the next length, each kept once per space and
/// dangerous-space variant that no other state of the layer dominates, in the order found. The
/// states are written straight into the search's list of states, from `base` on (a layer is the
/// end of that list while it is built); a new state is compared only with the states already on
/// its space ([`Chains`]).
///
/// The plain search (no dangerous space within reach, no wall entry counted: a state with the
/// same key dominates) keeps no chains: a layer holds few states (at most 11 in 87 % of the layers of
/// searches from every space of every shipped and reference track, 54 at most), so it looks
/// through the layer itself, and only when a state already in it may stand on the same space
/// (`seen`, one bit per space number modulo 64). Most new states have no such state and are
/// added at once.
pub(super) struct Layer<T> {
    /// `tags[i]`: the tag of state `base + i` (none for the search: `T = ()`).
    pub(super) tags: Vec<T>,
    /// Item `i` of the chains is state `base + i` (the general search and [`through`]; the
    /// plain search chains nothing).
    chains: Chains,
    /// The layer's first state in the search's list.
    pub(super) base: usize,
    /// Bit `s % 64` set: a state of the layer may stand on space `s` (the plain search).
    seen: u64,
}

impl<T: Copy + PartialEq> Layer<T> {
    pub(super) fn new(cap: usize) -> Self {
        let mut chains = Chains::default();
        chains.reserve(cap);
        Layer { tags: Vec::with_capacity(cap), chains, base: 0, seen: 0 }
    }

    /// Empties the layer for states on a track of `spaces` spaces, to be added to `nodes` after
    /// the states it holds now.
    pub(super) fn clear(&mut self, spaces: usize, nodes: &[Node]) {
        self.tags.clear();
        self.chains.clear(spaces);
        self.base = nodes.len();
        self.seen = 0;
    }

    /// Adds a state to `nodes` unless one already in the layer (with the same tag) dominates it;
    /// replaces the state it dominates. `PLAIN`: no state has a mask bit or a test, so a state
    /// with the same key dominates.
    #[inline(always)]
    pub(super) fn add<const PLAIN: bool>(&mut self, nodes: &mut Vec<Node>, n: Node, tag: T) {
        // The plain search looks through the layer for a state with the same key, only when a
        // state of the layer may be on the same space (`seen`: a bit per space modulo 64). It
        // keeps no tags, so a layer with tags (none is plain today) takes the chains.
        if PLAIN && std::mem::size_of::<T>() == 0 {
            let bit = 1u64 << (n.pos() % 64);
            if self.seen & bit != 0 && nodes[self.base..].iter().any(|m| m.same_key(&n)) {
                return;
            }
            self.seen |= bit;
            nodes.push(n);
            return;
        }
        let pos = n.pos() as usize;
        let mut variants = 0;
        let mut i = self.chains.head(pos);
        while i != END {
            let m = &mut nodes[self.base + i as usize];
            // A tag of no size is always the same: nothing to read.
            let same_tag = std::mem::size_of::<T>() == 0 || self.tags[i as usize] == tag;
            if same_tag && m.same_key(&n) {
                if PLAIN || m.dominates(&n) {
                    return;
                }
                if n.dominates(m) {
                    *m = n;
                    return;
                }
                variants += 1;
            }
            i = self.chains.next(i);
        }
        if variants < MAX_VARIANTS {
            nodes.push(n);
            self.tags.push(tag);
            self.chains.push(pos);
        }
    }
}
