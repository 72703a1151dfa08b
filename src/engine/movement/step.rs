//! One step of the driving code: the state after moving along one arrow, or none when the code
//! forbids it (7, 10, 15-0-2).

use super::fields::Fields;
use super::node::{NO_FIELD, NONE8, NONE16, Node, ONE_CROSSING, ONE_K};
use super::{Board, wall_entry};
use crate::track::SpaceIdx;
use crate::track::model::Compact;

/// The state after moving from `pos` (state `n`, space facts `here`) to `nxt` (facts `there`),
/// or `None` if the driving code forbids it. `walls`: the board counts wall entries and the track
/// has walls. `PLAIN`: no dangerous space within the move's reach and `walls` false ([`plain`]),
/// so no state has a mask bit.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn step<const PLAIN: bool>(
    b: &Board<'_>,
    walls: bool,
    fields: &mut Fields,
    n: &mut Node,
    pos: SpaceIdx,
    here: Compact,
    nxt: SpaceIdx,
    there: Compact,
    max: u8,
) -> Option<Node> {
    let t = b.track;
    // 10-2-1: after the first space of an overshoot, the car keeps its lane. (Tested first: in
    // long moves it turns away a third of the arrows, and it reads nothing but the two spaces'
    // facts.)
    if n.over_k() != NONE8 && there.lane != here.lane {
        return None;
    }
    if b.occupied[nxt.get()] || (there.pit && !b.pit_open) {
        return None;
    }
    let mut c = *n;
    c.set_pos(nxt.0);
    // One more space, and one more line crossing when the arrow crosses the finish line, added
    // in place: the length stays below the roll (at most 255), and a move crosses the line a few
    // times at most, so neither carries into the next field.
    c.b += ONE_K + if there.progress < here.progress { ONE_CROSSING } else { 0 };
    if !PLAIN && !b.dangerous.is_empty() && b.dangerous.binary_search(&nxt).is_ok() {
        c.mask |= fields.bit(nxt).unwrap_or(0);
        c.set_tests(c.tests() + 1);
    }
    if !PLAIN && walls && wall_entry(b, pos, nxt) {
        // 15-0-2: entering the wall lane is a body test against the wall.
        c.mask |= fields.bit(nxt).unwrap_or(0);
        c.set_tests(c.tests() + 1);
    }
    // A state's corner is always its space's (the root's is, and every step sets it), so the
    // space's facts say whether this step leaves one.
    debug_assert_eq!(n.corner(), here.corner);
    if there.corner != here.corner {
        if here.corner != NONE16 {
            // Leaving a corner (7-1-1, 10).
            let need = t.corners[here.corner as usize].stops;
            let deficit = need.saturating_sub(n.credit());
            if deficit >= 2 && c.missed() == NONE16 {
                c.set_missed(here.corner); // 10-1
            }
            if deficit >= 1 && c.over_k() == NONE8 {
                c.set_over_k(c.k()); // first overshoot space (10-0-1)
                c.set_over_corner(here.corner);
            }
        }
        c.set_corner(there.corner);
        c.set_credit(0); // no stop is made in the middle of a move
    }
    // The straight driving code (7-2-3): every prefix of a straight stretch is a shortest path
    // from its anchor, and so is the step that ends it in a corner (7-3-4-2).
    if here.corner == NONE16 {
        // The field of (anchor, mask): the parent's when no dangerous space was entered (looked
        // up once for all its steps), else another.
        let same_mask = PLAIN || c.mask == n.mask;
        let f = if same_mask && n.field != NO_FIELD {
            n.field as usize
        } else {
            let f = fields.field(b, n.anchor(), if PLAIN { 0 } else { c.mask }, max - n.anchor_k());
            if same_mask && f < NO_FIELD as usize {
                n.field = f as u16;
            }
            f
        };
        c.field = if f < NO_FIELD as usize { f as u16 } else { NO_FIELD };
        if fields.at(f, nxt) != c.k() - n.anchor_k() {
            return None;
        }
        if there.corner != NONE16 {
            c.set_anchor(NONE16);
            c.set_anchor_k(0);
            c.mask = 0; // the straight stretch is over
            c.field = NO_FIELD;
        }
    } else {
        c.field = NO_FIELD;
        if there.corner == NONE16 {
            // A straight stretch begins at the corner's last space (7-3-3-1).
            c.set_anchor(pos.0);
            c.set_anchor_k(n.k());
        }
    }
    Some(c)
}
