//! Items chained by the space they are on, in the order listed: the search's layers compare a new
//! state only with the states already on its space ([`crate::engine::movement`]), and pruning
//! compares an option only with the options ending on its space ([`crate::engine::options`]).
//!
//! Why a table of chains and not a sort or a map: a list holds a few dozen items on a track of
//! hundreds of spaces, and both users empty it hundreds of times a move. Each space's chain
//! belongs to the list stamped in it, so emptying the list is a new stamp, not a pass over the
//! track, and the table is allocated once per thread and reused.

/// The end of a chain: no item.
pub(crate) const END: u32 = u32::MAX;

/// Items numbered in the order listed (`0..len`), chained per space.
#[derive(Default)]
pub(crate) struct Chains {
    /// Per space: the stamp of the list that last chained an item there, then its first and last
    /// item (meaningful only when the stamp is the list's).
    first: Vec<(u32, u32, u32)>,
    /// `link[i]`: the next item on item `i`'s space ([`END`] for none).
    link: Vec<u32>,
    stamp: u32,
}

impl Chains {
    /// Empties the list, for items on a track of `spaces` spaces.
    pub(crate) fn clear(&mut self, spaces: usize) {
        self.link.clear();
        if self.first.len() < spaces {
            self.first.resize(spaces, (0, END, END));
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            // Every stamp has been used: forget them all.
            self.first.iter_mut().for_each(|f| *f = (0, END, END));
            self.stamp = 1;
        }
    }

    /// Room for `n` items without growing.
    pub(crate) fn reserve(&mut self, n: usize) {
        self.link.reserve(n);
    }

    /// The first item on `space` ([`END`] for none).
    #[inline]
    pub(crate) fn head(&self, space: usize) -> u32 {
        let (stamp, head, _) = self.first[space];
        if stamp == self.stamp { head } else { END }
    }

    /// The item after item `i` on its space ([`END`] for none).
    #[inline]
    pub(crate) fn next(&self, i: u32) -> u32 {
        self.link[i as usize]
    }

    /// Lists the next item (numbered by how many are listed before it) on `space`, at the end of its chain; returns
    /// the chain's first item, which is the new one when the space had none.
    #[inline]
    pub(crate) fn push(&mut self, space: usize) -> u32 {
        let i = self.link.len() as u32;
        self.link.push(END);
        let (stamp, head, tail) = self.first[space];
        if stamp == self.stamp {
            self.link[tail as usize] = i;
            self.first[space] = (stamp, head, i);
            head
        } else {
            self.first[space] = (self.stamp, i, i);
            i
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Chains, END};

    /// Every space's items, in the order listed.
    fn chain(c: &Chains, space: usize) -> Vec<u32> {
        let mut out = Vec::new();
        let mut i = c.head(space);
        while i != END {
            out.push(i);
            i = c.next(i);
        }
        out
    }

    #[test]
    fn items_chain_per_space_in_order_and_a_new_list_forgets_the_old() {
        let mut c = Chains::default();
        c.clear(4);
        let firsts: Vec<u32> = [2, 0, 2, 3, 2, 0].iter().map(|&s| c.push(s)).collect();
        assert_eq!(firsts, [0, 1, 0, 3, 0, 1]);
        assert_eq!(
            (chain(&c, 0), chain(&c, 1), chain(&c, 2), chain(&c, 3)),
            (vec![1, 5], vec![], vec![0, 2, 4], vec![3])
        );
        assert_eq!(c.link.len(), 6);
        c.clear(4);
        assert_eq!(c.link.len(), 0);
        assert!((0..4).all(|s| c.head(s) == END));
        c.push(1);
        assert_eq!((chain(&c, 1), chain(&c, 2)), (vec![0], vec![]));
    }

    #[test]
    fn stamps_wrapping_around_forget_every_chain() {
        let mut c = Chains::default();
        c.clear(2);
        c.push(1);
        c.stamp = u32::MAX; // the last stamp: the next list wraps to 0, which is never used
        c.first[1].0 = 1; // a chain stamped long ago, which the wrapped stamp must not revive
        c.clear(2);
        assert_eq!(c.stamp, 1);
        assert_eq!(c.head(1), END);
    }
}
