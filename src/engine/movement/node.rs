//! A search state packed in two words, and how two states compare: the search copies one at
//! every step, so it is kept small.

pub(super) const NONE16: u16 = u16::MAX;
pub(super) const NONE8: u8 = u8::MAX;

/// A search state. Within one layer of the search every state has the same length `k`.
///
/// Its identity is packed in two words ([`Node::same_key`] compares them, the length and the
/// tests aside), read and written through the accessors below: a state is copied at every step
/// and every layer, and two words copy in two moves where a dozen small fields took a dozen.
/// - word `a`: the space (`pos`), the straight stretch's anchor, the corner the car is in and the
///   corner it overshot (`over_corner`), 16 bits each;
/// - word `b`: the corner missed (16 bits), then 8 bits each: the length where the stretch began
///   (`anchor_k`), the stops counted in the corner (`credit`), the length where an overshoot
///   began (`over_k`), the line crossings, the length `k` and the tests.
#[derive(Copy, Clone)]
pub(super) struct Node {
    pub(super) a: u64,
    pub(super) b: u64,
    /// Dangerous spaces entered in the current straight stretch: they are not obstacles for its
    /// shortest-path rule (7-3-5).
    pub(super) mask: u64,
    /// The state it was reached from (its index in the search's states; `u32::MAX` for the
    /// first): the search's tree, from which a path is read. Not part of a state's identity.
    pub(super) parent: u32,
    /// The search's straight-distance field for (`anchor`, `mask`), once looked up ([`NO_FIELD`]
    /// before): a step on a straight then reads its distance without comparing keys. Derived from
    /// `anchor` and `mask` and meaningful only within one search, so not part of a state's
    /// identity.
    pub(super) field: u16,
}

/// A getter and a setter for a part of a state's packed words.
macro_rules! packed {
    ($($get:ident, $set:ident: $word:ident, $shift:expr, $ty:ty;)*) => {
        impl Node {
            $(
                #[inline(always)]
                pub(super) fn $get(&self) -> $ty {
                    (self.$word >> $shift) as $ty
                }

                // Some are set only by the tests: a step adds to the counters in place.
                #[inline(always)]
                #[cfg_attr(not(test), allow(dead_code))]
                pub(super) fn $set(&mut self, v: $ty) {
                    self.$word = (self.$word & !((<$ty>::MAX as u64) << $shift)) | ((v as u64) << $shift);
                }
            )*
        }
    };
}

packed! {
    pos, set_pos: a, 0, u16;
    anchor, set_anchor: a, 16, u16;
    corner, set_corner: a, 32, u16;
    over_corner, set_over_corner: a, 48, u16;
    missed, set_missed: b, 0, u16;
    anchor_k, set_anchor_k: b, 16, u8;
    credit, set_credit: b, 24, u8;
    over_k, set_over_k: b, 32, u8;
    crossings, set_crossings: b, 40, u8;
    k, set_k: b, 48, u8;
    tests, set_tests: b, 56, u8;
}

/// One more space moved, and one more line crossing, added to word `b`.
pub(super) const ONE_K: u64 = 1 << 48;
pub(super) const ONE_CROSSING: u64 = 1 << 40;

/// The bits of word `b` that are part of [`Node::same_key`]: all but the length and the tests.
pub(super) const KEY_B: u64 = (1 << 48) - 1;

impl std::fmt::Debug for Node {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Node")
            .field("pos", &self.pos())
            .field("anchor", &self.anchor())
            .field("anchor_k", &self.anchor_k())
            .field("corner", &self.corner())
            .field("credit", &self.credit())
            .field("over_k", &self.over_k())
            .field("over_corner", &self.over_corner())
            .field("missed", &self.missed())
            .field("crossings", &self.crossings())
            .field("k", &self.k())
            .field("mask", &self.mask)
            .field("tests", &self.tests())
            .finish()
    }
}

/// A state's field not looked up yet (or none: in a corner).
pub(super) const NO_FIELD: u16 = u16::MAX;

impl PartialEq for Node {
    fn eq(&self, o: &Node) -> bool {
        self.a == o.a && self.b == o.b && self.mask == o.mask
    }
}

impl Eq for Node {}

impl Node {
    /// Same state but for the length and the dangerous-space bookkeeping.
    #[inline]
    pub(super) fn same_key(&self, o: &Node) -> bool {
        self.a == o.a && (self.b ^ o.b) & KEY_B == 0
    }

    /// `self` can do everything `other` can, with no more tests: fewer dangerous spaces entered
    /// means more obstacles to go round, so every continuation legal for `other` is legal for
    /// `self` (7-2-3).
    #[inline]
    pub(super) fn dominates(&self, other: &Node) -> bool {
        self.mask & !other.mask == 0 && self.tests() <= other.tests()
    }
}
