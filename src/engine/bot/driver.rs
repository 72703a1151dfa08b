//! What the bot knows about the car it drives on this move: the plan's cost after each gear,
//! brake and gas point, and what tyres and handling are worth to it.

use super::*;

/// What the bot knows about the car it drives on this move.
pub(super) struct Driver<'a> {
    pub(super) model: &'a Model,
    pub(super) plan: &'a Plan,
    /// Line crossings still needed to finish.
    pub(super) r: usize,
    pub(super) car: &'a CarState,
    pub(super) wet: bool,
}

impl Driver<'_> {
    /// The plan's cost of ending at `e`'s position in gear `g` with `gas` and `brakes`.
    pub(super) fn after(&self, node: u32, cross: u8, g: u8, gas: u8, brakes: u8) -> f32 {
        if cross as usize >= self.r {
            return 0.0;
        }
        self.plan.cost[self.cost_at(self.r - cross as usize, node, g, gas) + (brakes as usize).min(NB - 1)]
    }

    /// The plan's costs of ending at `node` in gear `g` with `gas`, for 0 to `NB - 1` brake
    /// points ([`Driver::after`] for each), or `None` when the crossings finish the race (0).
    /// The plain loop of the gear choice reads them here; the vector rows read the same cells
    /// through [`Driver::cells_of`], whose index is worked out another way, and a unit test
    /// checks both choose alike.
    pub(super) fn cells(&self, node: u32, cross: u8, g: u8, gas: u8) -> Option<&[f32]> {
        if cross as usize >= self.r {
            return None;
        }
        let i = self.cost_at(self.r - cross as usize, node, g, gas);
        Some(&self.plan.cost[i..i + NB])
    }

    /// [`Driver::cells`] for every end of a move in gear `g` with `gas` or, spun, in neutral:
    /// where the cells of a position lie, worked out once for all the move's ends (the same
    /// index as [`Driver::cost_at`], with the gear and gas set aside).
    pub(super) fn cells_of(&self, g: u8, gas: u8) -> Cells<'_> {
        let positions = self.model.space_of.len();
        Cells {
            cost: &self.plan.cost,
            r: self.r,
            // From one line crossing needed to the next, a whole (gear, gas) table further.
            lap: NG * NA * positions * NB,
            gear: self.cost_at(self.r, 0, g, gas),
            spun: self.cost_at(self.r, 0, 0, gas),
        }
    }

    /// What ending this move with `brakes` brake points costs (see [`Plan::reserve`]).
    pub(super) fn reserve(&self, brakes: u8) -> f32 {
        self.plan.reserve[(brakes as usize).min(NB - 1)]
    }

    /// Where the costs of ending at `node` in gear `g` with `gas` begin in the plan's `cost`
    /// (0 brake points; the others follow).
    pub(super) fn cost_at(&self, r: usize, node: u32, g: u8, gas: u8) -> usize {
        model::cost_at(self.model.space_of.len(), r, node, g as usize, (gas as usize).min(NA - 1), 0)
    }

    /// The index of (`r`, `node`, gear, gas, brakes) in the plan's `gear`.
    pub(super) fn at(&self, r: usize, node: u32, g: u8, gas: u8, brakes: u8) -> usize {
        let positions = self.model.space_of.len();
        ((r - 1) * positions + node as usize) * CELLS
            + cell(g as usize, (gas as usize).min(NA - 1), (brakes as usize).min(NB - 1))
    }

    /// What losing `points` tyre points costs the car now (10-3, 10-4-1), and whether it spins.
    pub(super) fn tyres(&self, points: u8) -> (f32, bool) {
        if points == 0 {
            return (0.0, false);
        }
        let have = self.car.wear.tyres.max(1);
        if points > have {
            (ELIM, false)
        } else if points == have {
            (SPIN + TYRE * points as f32, true)
        } else {
            // Dearer as the set wears: the last point spins the car.
            let left = (have - points) as f32;
            (points as f32 * (TYRE + 4.0 / left), false)
        }
    }

    /// Expected cost of the handling tests on `n` dangerous spaces (17-0-2, 17-0-3).
    pub(super) fn handling(&self, n: usize) -> f32 {
        let p = handling_threshold(self.wet) as f32 / 20.0;
        let h = self.car.wear.handling as usize;
        (0..n).map(|i| p * if h <= i + 1 { ELIM } else { HANDLING }).sum()
    }
}
