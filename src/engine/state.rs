//! The race state: every car's position, gear, sheet and status, the stickers on the track, and
//! where the round of play stands. Plain data: the engine returns new states, never mutates its
//! inputs.

use crate::track::{CornerIdx, SpaceIdx, Track};

use super::car::{Setup, Wear};
use super::inertia::Inertia;
use super::pits::PitState;
use super::rulebook::Tyres;
use super::weather::WeatherState;

/// A car's index in [`RaceState::cars`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CarId(pub u8);

impl CarId {
    /// The index as `usize`.
    pub fn get(self) -> usize {
        self.0 as usize
    }
}

/// Why a car left the race (20).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Elimination {
    /// Sortie de route: an overshoot it could not pay (10-3), or a missed 2-/3-stop corner (10-1).
    Overshoot,
    /// Blocked 7 or more spaces, or unable to pay a blocking (12-1-1).
    Blocking,
    /// Last body point lost (14-1).
    Body,
    /// Last engine point lost (16-0-3, 13-1).
    Engine,
    /// Last road-handling point lost (17-0-2).
    Handling,
    /// Retired by its player between moves (`RETIRE` by mail, ruling 51): off the track at once.
    Retired,
}

impl Elimination {
    /// The article that eliminates for this reason.
    pub fn article(self) -> &'static str {
        match self {
            Elimination::Overshoot => "10-3",
            Elimination::Blocking => "12-1-1",
            Elimination::Body => "14-1",
            Elimination::Engine => "16-0-3",
            Elimination::Handling => "17-0-2",
            Elimination::Retired => "ruling 51",
        }
    }

    /// Name used in summaries.
    pub fn name(self) -> &'static str {
        match self {
            Elimination::Overshoot => "overshoot",
            Elimination::Blocking => "blocking",
            Elimination::Body => "body",
            Elimination::Engine => "engine",
            Elimination::Handling => "handling",
            Elimination::Retired => "retired",
        }
    }
}

/// Where a car stands in the race.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Status {
    /// On the grid before its first move.
    Grid,
    /// Racing normally.
    Racing,
    /// Spun out (10-4): turned round until the end of the round, restarts in 1st.
    SpunOut,
    /// Stalled at the start (9-1) or at a restart (10-4-6): waits for the next round.
    Stalled,
    /// Turned round after a spinout (10-4-1): rolls the black die before its next move (10-4-6).
    Restarting,
    /// Out of the race; `removed` once its car has left the track (20).
    Eliminated {
        /// Why.
        reason: Elimination,
        /// True once the car is off the board.
        removed: bool,
    },
    /// A backmarker taken off the track once every player car had passed it, or at the end of
    /// the race (002 "Backmarkers", ruling 49).
    Withdrawn,
    /// A late arrival waiting at the pit-lane exit until every other car has passed it (004
    /// "Late Arrivals", ruling 47): it does not play, and is no obstacle's victim.
    Waiting,
    /// Crossed the finish line for the last time (21), `place` 1-based.
    Finished {
        /// Finishing position.
        place: u8,
    },
}

impl Status {
    /// True while the car still takes turns.
    pub fn plays(self) -> bool {
        matches!(self, Status::Grid | Status::Racing | Status::SpunOut | Status::Stalled | Status::Restarting)
    }

    /// True while the car stands on the board (racing, or eliminated but not yet removed).
    pub fn on_board(self) -> bool {
        match self {
            Status::Finished { .. } => false,
            Status::Eliminated { removed, .. } => !removed,
            _ => true,
        }
    }
}

/// One car.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CarState {
    /// The number painted on the car, shown on the board.
    pub number: u8,
    /// Where it stands.
    pub space: SpaceIdx,
    /// Gear engaged (1-6; 0 on the grid before the start).
    pub gear: u8,
    /// Wear points left.
    pub wear: Wear,
    /// Wear points still waiting at its pit (4-0-2).
    pub pit_points: u8,
    /// Tyre type fitted.
    pub tyres: Tyres,
    /// Which lap of this set of tyres the car is on, from 1 (8-0-2).
    pub tyre_lap: u16,
    /// Times the car crossed the finish line (the first crossing starts lap 1).
    pub crossings: u16,
    /// The corner the car stands in and the stops it has counted there (7-1-1).
    pub stops: Option<(CornerIdx, u8)>,
    /// Racing, spun out, out, finished...
    pub status: Status,
    /// When the car reached its space (lower = earlier), for side-by-side order (6-2-3).
    pub arrival: u32,
    /// Moves (coups) played.
    pub moves: u32,
    /// Where the car stands with its pit stops (19) and the sheet its repairs restore.
    pub pit: PitState,
    /// The inertia still to play after a broken engine (16-0-3, 16-0-6); `None` for every other
    /// car.
    pub inertia: Option<Inertia>,
    /// A backmarker: a car no player drives (002 "Backmarkers", [`backmarkers`](super::backmarkers)).
    pub backmarker: bool,
}

impl CarState {
    /// A car on grid slot `space` with `setup`.
    pub fn on_grid(number: u8, space: SpaceIdx, setup: &Setup, pit_points: u8, arrival: u32) -> Self {
        CarState {
            number,
            space,
            gear: 0,
            wear: setup.wear,
            pit_points,
            tyres: setup.tyres,
            tyre_lap: 1,
            crossings: 0,
            stops: None,
            status: Status::Grid,
            arrival,
            moves: 0,
            pit: PitState::new(setup.wear),
            inertia: None,
            backmarker: false,
        }
    }

    /// Laps completed (the crossing that starts lap 1 is not a completed lap).
    pub fn laps_done(&self) -> u16 {
        self.crossings.saturating_sub(1)
    }
}

/// The whole race at one instant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RaceState {
    /// The cars, indexed by [`CarId`].
    pub cars: Vec<CarState>,
    /// Dangerous-space stickers on the track (17-0-1), sorted, no duplicates.
    pub dangerous: Vec<SpaceIdx>,
    /// Whether the track is wet (3, 8).
    pub wet: bool,
    /// The sky of a changeable race (3-2-4, 3-2-6); `None` when the weather is fixed for the
    /// race (sun or rain, 3-2-2, 3-2-3).
    pub weather: Option<WeatherState>,
    /// Laps of the race.
    pub laps: u16,
    /// Round of play, from 1 (0-0-2).
    pub round: u32,
    /// The car that opened the current round (the leader when it started, 0-0-2).
    pub round_leader: Option<CarId>,
    /// Cars that have played in the current round.
    pub played: Vec<CarId>,
    /// The car called to play (set by `order::advance`, cleared when its move is over).
    pub to_play: Option<CarId>,
    /// Order key of the last mover's starting position: the round's sweep continues behind it
    /// (6-2-5).
    pub sweep: Option<OrderKey>,
    /// Next arrival stamp.
    pub next_arrival: u32,
    /// Finishing order so far.
    pub finish_order: Vec<CarId>,
    /// How the finishers of a race on 004's finish rule used their last move
    /// ([`finish`](super::finish)); empty under 21-1-4.
    pub finish_portions: Vec<super::finish::Portion>,
    /// Whether the race plays with backmarkers (002 "Backmarkers", ruling 49).
    pub backmarkers: super::backmarkers::Backmarkers,
}

/// A car's position in the order of play: further along the lap first, then higher gear, then
/// earlier arrival (6-2-2, 6-2-3). Larger keys play first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OrderKey {
    /// Progress of the car's space along the lap.
    pub progress: u32,
    /// Gear for ordering purposes (1st for a spun car, 10-4-7; 0 for a stalled one, 9-1-3).
    pub gear: u8,
    /// `u32::MAX - arrival`, so that earlier arrivals sort higher.
    pub early: u32,
}

impl RaceState {
    /// A race on `track` with the cars placed on the grid in order (pole first), each with its
    /// setup. Returns an error message naming the problem if the field does not fit.
    pub fn new(track: &Track, laps: u16, setups: &[(u8, Setup)]) -> Result<Self, String> {
        if setups.len() > track.grid.len() {
            return Err(format!("{} cars but {} grid slots on {}", setups.len(), track.grid.len(), track.name));
        }
        let mut cars = Vec::new();
        for (i, (number, setup)) in setups.iter().enumerate() {
            let pit = setup.validate().map_err(|e| format!("car {number}: {e}"))?;
            cars.push(CarState::on_grid(*number, track.grid[i], setup, pit, i as u32));
        }
        Ok(RaceState::from_cars(cars, laps, false))
    }

    /// [`RaceState::new`] under `rules`: its laps, and each setup checked by the profile's
    /// construction and tyre rules (5, 003-3, 003-5).
    pub fn new_for(track: &Track, rules: &super::Rulebook, setups: &[(u8, Setup)]) -> Result<Self, String> {
        if setups.len() > track.grid.len() {
            return Err(format!("{} cars but {} grid slots on {}", setups.len(), track.grid.len(), track.name));
        }
        let mut cars = Vec::new();
        for (i, (number, setup)) in setups.iter().enumerate() {
            let pit = setup.validate_for(rules).map_err(|e| format!("car {number}: {e}"))?;
            cars.push(CarState::on_grid(*number, track.grid[i], setup, pit, i as u32));
        }
        Ok(RaceState::from_cars(cars, rules.laps, false))
    }

    /// Whether the field has not yet cleared the starting grid: a car still stands on its grid
    /// slot (004 "Late Arrivals").
    pub fn on_the_grid(&self, track: &Track) -> bool {
        self.cars.iter().any(|c| c.status.plays() && (c.status == Status::Grid || track.grid.contains(&c.space)))
    }

    /// Gives each car the box chosen for it ([`choose_boxes`](super::pits::choose_boxes), in
    /// car order). Only a box other than the one of the car's grid slot is recorded.
    pub fn assign_boxes(&mut self, track: &Track, boxes: &[Option<SpaceIdx>]) {
        for (i, (car, b)) in self.cars.iter_mut().zip(boxes).enumerate() {
            car.pit.own_box = b.filter(|&b| track.pit_boxes.get(i) != Some(&b));
        }
    }

    /// A late arrival (004 "Late Arrivals", ruling 47): car `number` joins a race whose field has
    /// not cleared the starting grid, waiting in the pit lane (at its exit, or behind the late
    /// cars already waiting there) until every car has passed it. Returns its id.
    pub fn late_arrival(
        &mut self,
        track: &Track,
        rules: &super::Rulebook,
        number: u8,
        setup: &Setup,
    ) -> Result<CarId, String> {
        if !self.on_the_grid(track) {
            return Err("the field has cleared the starting grid: a late arrival can no longer start (004)".into());
        }
        let pit = setup.validate_for(rules).map_err(|e| format!("car {number}: {e}"))?;
        let taken = |sp: SpaceIdx| {
            self.cars.iter().any(|c| c.space == sp && !matches!(c.status, Status::Eliminated { removed: true, .. }))
        };
        let space = track
            .pit_lane
            .iter()
            .rev()
            .copied()
            .find(|&sp| !taken(sp) && !track.pit_boxes.contains(&sp))
            .ok_or_else(|| "no free space in the pit lane for a late arrival".to_string())?;
        let mut car = CarState::on_grid(number, space, setup, pit, self.next_arrival);
        self.next_arrival += 1;
        // Its box: the one of its index if no car chose it, else the first box nobody has
        // (4-0-1, ruling 48).
        let id = CarId(self.cars.len() as u8);
        let held: Vec<SpaceIdx> = self.ids().filter_map(|c| super::pits::own_box(track, self, c)).collect();
        if track.pit_boxes.get(id.get()).is_some_and(|b| held.contains(b)) {
            car.pit.own_box = track.pit_boxes.iter().copied().find(|b| !held.contains(b));
        }
        car.status = Status::Waiting;
        // It will leave like a car out of its box (19-1-9): along the lane to its exit.
        car.pit.stage = super::pits::PitStage::ToExit;
        // On the lap's first stretch, past the line, as the cars leaving the grid will be.
        let line = track.grid.first().map_or(0, |&g| track.space(g).progress);
        car.crossings = u16::from(track.space(space).progress < line);
        self.cars.push(car);
        Ok(CarId((self.cars.len() - 1) as u8))
    }

    /// A race at its first round with `cars` placed as given (arrival stamps continue after
    /// theirs), before anybody is called to play.
    pub fn from_cars(cars: Vec<CarState>, laps: u16, wet: bool) -> Self {
        RaceState {
            next_arrival: cars.iter().map(|c| c.arrival + 1).max().unwrap_or(0),
            cars,
            dangerous: Vec::new(),
            wet,
            weather: None,
            laps,
            round: 1,
            round_leader: None,
            played: Vec::new(),
            to_play: None,
            sweep: None,
            finish_order: Vec::new(),
            finish_portions: Vec::new(),
            backmarkers: super::backmarkers::Backmarkers::Off,
        }
    }

    /// The car `id`.
    pub fn car(&self, id: CarId) -> &CarState {
        &self.cars[id.get()]
    }

    /// Mutable car `id`.
    pub fn car_mut(&mut self, id: CarId) -> &mut CarState {
        &mut self.cars[id.get()]
    }

    /// All car ids.
    pub fn ids(&self) -> impl Iterator<Item = CarId> + '_ {
        (0..self.cars.len()).map(|i| CarId(i as u8))
    }

    /// The car standing on `s`, if any (eliminated cars stay until removed, 12-1-2, 14-2).
    pub fn car_on(&self, s: SpaceIdx) -> Option<CarId> {
        self.ids().find(|&c| self.car(c).space == s && self.car(c).status.on_board())
    }

    /// True if a sticker marks `s`.
    pub fn is_dangerous(&self, s: SpaceIdx) -> bool {
        self.dangerous.binary_search(&s).is_ok()
    }

    /// Puts a sticker on `s` (17-0-1).
    pub fn add_sticker(&mut self, s: SpaceIdx) {
        if let Err(i) = self.dangerous.binary_search(&s) {
            self.dangerous.insert(i, s);
        }
    }

    /// True if `car` is eliminated on its engine and still has an inertia move to play (16-0-3).
    pub fn in_inertia(&self, car: CarId) -> bool {
        let c = self.car(car);
        c.inertia.is_some() && matches!(c.status, Status::Eliminated { removed: false, .. })
    }

    /// True once no car takes turns any more (21); backmarkers do not count (002).
    pub fn is_over(&self) -> bool {
        !self.cars.iter().any(|c| c.status.plays() && !c.backmarker)
    }
}
