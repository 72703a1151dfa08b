//! What happened, and why: every change the engine makes is reported as an event that cites its
//! article. Mails, logs and the renderer read events; they never re-derive rules.

use crate::track::{CornerIdx, SpaceIdx, Track, Weather};

use super::car::Part;
use super::dice::Purpose;
use super::pits::StopKind;
use super::rulebook::{Die, Tyres};
use super::state::{CarId, Elimination};
use super::weather::WeatherState;

/// One thing that happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    /// A new round of play begins with its leader (0-0-2).
    RoundStarted {
        /// Round number.
        round: u32,
        /// The car that opens it.
        leader: CarId,
    },
    /// A car is to play (6-2, 6-2-5).
    ToPlay {
        /// The car.
        car: CarId,
    },
    /// A gear is engaged (6-1).
    Gear {
        /// The car.
        car: CarId,
        /// Gear before (0: standing).
        from: u8,
        /// Gear engaged.
        to: u8,
    },
    /// Wear points lost (5-0-1), with the article that takes them.
    Wear {
        /// The car.
        car: CarId,
        /// The part.
        part: Part,
        /// Points lost.
        points: u8,
        /// Article.
        article: &'static str,
    },
    /// A die is rolled.
    Rolled {
        /// The car, if the roll is a car's.
        car: Option<CarId>,
        /// The die.
        die: Die,
        /// Why.
        purpose: Purpose,
        /// The face.
        value: u8,
    },
    /// A car moves (6-2-1, 7).
    Moved {
        /// The car.
        car: CarId,
        /// From.
        from: SpaceIdx,
        /// To.
        to: SpaceIdx,
        /// Spaces moved.
        spaces: u8,
    },
    /// Brake points used to stop short (11-0-3).
    Braked {
        /// The car.
        car: CarId,
        /// Spaces not moved thanks to the brakes.
        spaces: u8,
    },
    /// A car is blocked (12-0-1).
    Blocked {
        /// The car.
        car: CarId,
        /// Spaces it could not move.
        spaces: u8,
    },
    /// A corner left a stop short (10-0-1).
    Overshoot {
        /// The car.
        car: CarId,
        /// The corner.
        corner: CornerIdx,
        /// Spaces beyond its limit.
        spaces: u8,
    },
    /// A stop counted in a corner (7-1-1), or not counted after an overshoot (10-2-3).
    Stop {
        /// The car.
        car: CarId,
        /// The corner.
        corner: CornerIdx,
        /// Stops counted there now.
        stops: u8,
        /// Stops required.
        required: u8,
    },
    /// A spinout (10-4-1).
    SpunOut {
        /// The car.
        car: CarId,
    },
    /// A dangerous-space sticker is put down (17-0-1).
    Sticker {
        /// The space.
        space: SpaceIdx,
        /// Article.
        article: &'static str,
    },
    /// A car is eliminated (20).
    Eliminated {
        /// The car.
        car: CarId,
        /// Why.
        reason: Elimination,
    },
    /// An eliminated car is taken off the board (12-1-2, 14-2).
    Removed {
        /// The car.
        car: CarId,
    },
    /// A car crosses the finish line and starts a new lap.
    Lap {
        /// The car.
        car: CarId,
        /// The lap it starts (1-based).
        lap: u16,
    },
    /// A car finishes (21).
    Finished {
        /// The car.
        car: CarId,
        /// Its place.
        place: u8,
    },
    /// A spun-out car is turned round and will restart in 1st (10-4-1).
    Restarts {
        /// The car.
        car: CarId,
    },
    /// A 1 on the black die at the start or at a restart: the engine stalls, the car waits for
    /// the next round (9-1-1, 10-4-6).
    Stalled {
        /// The car.
        car: CarId,
    },
    /// The player expends one of the driver's points to re-roll the gear die; the second result
    /// stands (002 "Expending Driver Points", ruling 45).
    DriverPoint {
        /// The car.
        car: CarId,
        /// The first result, discarded.
        first: u8,
    },
    /// A 20 on the black die at the start or at a restart: the car moves 4 spaces at once and may
    /// play 1st or 2nd next (9-2-1, 10-4-6).
    SuperStart {
        /// The car.
        car: CarId,
    },
    /// A body test (14-1): `car` rolls the black die for touching `other`; aggravated when one of
    /// them is eliminated, spun out or stalled (14-3, 20-6, 9-1-2, 10-4-3).
    BodyTest {
        /// The car that rolls.
        car: CarId,
        /// The car it touches.
        other: CarId,
        /// Aggravated odds (14-3).
        aggravated: bool,
    },
    /// An engine test after a 20 in 5th or a 30 in 6th (16-0-1).
    EngineTest {
        /// The car that rolls.
        car: CarId,
    },
    /// A car enters the pit lane: it must stop at its box (19-2-5).
    PitLane {
        /// The car.
        car: CarId,
    },
    /// A car stops at its box, on the tyres announced first (19-2-6, 19-2-7).
    PitStop {
        /// The car.
        car: CarId,
        /// Quick or long.
        kind: StopKind,
        /// The tyres it leaves on.
        tyres: Tyres,
    },
    /// Wear points regained at the pit: tyres (19-2-3) or repairs (19-4-1).
    Repaired {
        /// The car.
        car: CarId,
        /// The part.
        part: Part,
        /// Points regained.
        points: u8,
        /// Article.
        article: &'static str,
    },
    /// A quick stop made: the car moves out at once in 4th (19-3-3).
    QuickStop {
        /// The car.
        car: CarId,
        /// Spaces of its exit move.
        spaces: u8,
    },
    /// A quick stop missed: the car waits in its box (19-3-4).
    QuickStopMissed {
        /// The car.
        car: CarId,
    },
    /// A slipstream: `car` ends just behind `ahead` and adds three spaces to its move (18-0-3).
    Slipstream {
        /// The car that takes it.
        car: CarId,
        /// The car it draws on.
        ahead: CarId,
    },
    /// A late arrival leaves the pit lane: every car has passed it (004 "Late Arrivals").
    LateStart {
        /// The car.
        car: CarId,
    },
    /// A backmarker is put on the track (002 "Backmarkers", ruling 49).
    BackmarkerPlaced {
        /// The backmarker.
        car: CarId,
    },
    /// A backmarker every player car has passed is taken off the track (002, ruling 49).
    BackmarkerWithdrawn {
        /// The backmarker.
        car: CarId,
    },
    /// The weather drawn before the qualifying (3-1-1) or the race (3-2-1).
    WeatherDrawn {
        /// The race's weather (else the qualifying's).
        race: bool,
        /// Sun, changeable or rain.
        weather: Weather,
        /// Whether the track is wet (at the start, for the race).
        wet: bool,
    },
    /// A weather test at the end of the round changed (or kept) the sky (3-2-5, 3-2-6).
    WeatherChange {
        /// The sky now.
        weather: WeatherState,
        /// Whether the track is wet now.
        wet: bool,
    },
    /// A body test against an oval's concrete wall, for entering the lane along it (15-0-2).
    WallTest {
        /// The car that rolls.
        car: CarId,
    },
    /// Worn soft tyres (their third lap) move one space less than the die on a straight
    /// (003-3, Eurogames tyres only; docs/rulings.md, ruling 34).
    WornSoftTyres {
        /// The car.
        car: CarId,
    },
    /// The soft-tyre +1 is used: one space more than the die (8-2-1).
    SoftBonus {
        /// The car.
        car: CarId,
    },
    /// A car slid after a stop in a corner on a wet track (8-1-2, 8-2-2, 8-3-2); the spaces are
    /// part of its move.
    Slid {
        /// The car.
        car: CarId,
        /// Spaces slid.
        spaces: u8,
        /// Its tyres (the article depends on them).
        tyres: Tyres,
    },
}

impl Event {
    /// The article of the competition rules (2004) the event applies.
    pub fn article(&self) -> &'static str {
        match self {
            Event::RoundStarted { .. } => "0-0-2",
            Event::ToPlay { .. } => "6-2-2",
            Event::Gear { .. } => "6-1-1",
            Event::Wear { article, .. } => article,
            Event::Rolled { purpose, .. } => match purpose {
                Purpose::Move => "6-2-1",
                Purpose::Start => "9-0-1",
                Purpose::Handling => "17-0-2",
                Purpose::Collision => "14-1",
                Purpose::Engine => "16-0-1",
                Purpose::Weather => "3-0-1",
                Purpose::Pit => "19-3-2",
                Purpose::Other => "0-0-5",
            },
            Event::Moved { .. } => "7-0-1",
            Event::Braked { .. } => "11-0-3",
            Event::Blocked { .. } => "12-0-1",
            Event::Overshoot { .. } => "10-0-1",
            Event::Stop { .. } => "7-1-1",
            Event::SpunOut { .. } => "10-4-1",
            Event::Sticker { article, .. } => article,
            Event::Eliminated { reason, .. } => reason.article(),
            Event::Removed { .. } => "20",
            Event::Lap { .. } => "0-0-1",
            Event::Finished { .. } => "21",
            Event::Restarts { .. } => "10-4-1",
            Event::Stalled { .. } => "9-1-1",
            Event::SuperStart { .. } => "9-2-1",
            Event::DriverPoint { .. } => "002 Expending Driver Points",
            Event::BodyTest { aggravated: false, .. } => "14-1",
            Event::BodyTest { aggravated: true, .. } => "14-3",
            Event::EngineTest { .. } => "16-0-1",
            Event::Slipstream { .. } => "18-0-3",
            Event::PitLane { .. } => "19-2-5",
            Event::PitStop { .. } => "19-2-6",
            Event::Repaired { article, .. } => article,
            Event::QuickStop { .. } => "19-3-3",
            Event::QuickStopMissed { .. } => "19-3-4",
            Event::SoftBonus { .. } => "8-2-1",
            Event::WornSoftTyres { .. } => "003-3",
            Event::WallTest { .. } => "15-0-2",
            Event::WeatherChange { .. } => "3-2-6",
            Event::WeatherDrawn { race: true, .. } => "3-2-1",
            Event::LateStart { .. } => "004",
            Event::BackmarkerPlaced { .. } | Event::BackmarkerWithdrawn { .. } => "002",
            Event::WeatherDrawn { race: false, .. } => "3-1-1",
            Event::Slid { tyres: Tyres::Hard, .. } => "8-1-2",
            Event::Slid { tyres: Tyres::Soft, .. } => "8-2-2",
            Event::Slid { tyres: Tyres::Rain, .. } => "8-3-2",
        }
    }

    /// A one-line English description; `number` gives a car's painted number.
    pub fn describe(&self, t: &Track, number: impl Fn(CarId) -> u8) -> String {
        format!("{} ({})", self.text(t, number), self.article())
    }

    /// [`Event::describe`] without the article: what a turn file records beside it.
    pub fn text(&self, t: &Track, number: impl Fn(CarId) -> u8) -> String {
        let id = |s: &SpaceIdx| t.space(*s).id.as_str();
        let corner = |c: &CornerIdx| t.corners[c.get()].number;
        match self {
            Event::RoundStarted { round, leader } => format!("round {round} starts with car {}", number(*leader)),
            Event::ToPlay { car } => format!("car {} to play", number(*car)),
            Event::Gear { car, from, to } => format!("car {} shifts from gear {from} to {to}", number(*car)),
            Event::Wear { car, part, points, .. } => {
                format!("car {} loses {points} {} point(s)", number(*car), part.name())
            }
            Event::Rolled { car, die, purpose, value } => match car {
                Some(c) => format!("car {} rolls {} for {}: {value}", number(*c), die.name(), purpose.name()),
                None => format!("{} rolled for {}: {value}", die.name(), purpose.name()),
            },
            Event::Moved { car, from, to, spaces } => {
                format!("car {} moves {spaces} space(s) from {} to {}", number(*car), id(from), id(to))
            }
            Event::Braked { car, spaces } => format!("car {} brakes {spaces} space(s) short", number(*car)),
            Event::Blocked { car, spaces } => format!("car {} is blocked {spaces} space(s) short", number(*car)),
            Event::Overshoot { car, corner: c, spaces } => {
                format!("car {} overshoots corner {} by {spaces} space(s)", number(*car), corner(c))
            }
            Event::Stop { car, corner: c, stops, required } => {
                format!("car {} has {stops} of {required} stop(s) in corner {}", number(*car), corner(c))
            }
            Event::SpunOut { car } => format!("car {} spins out", number(*car)),
            Event::Sticker { space, .. } => format!("dangerous-space sticker on {}", id(space)),
            Event::Eliminated { car, reason } => format!("car {} is eliminated ({})", number(*car), reason.name()),
            Event::Removed { car } => format!("car {} is taken off the track", number(*car)),
            Event::Lap { car, lap } => format!("car {} starts lap {lap}", number(*car)),
            Event::Finished { car, place } => format!("car {} finishes in place {place}", number(*car)),
            Event::Restarts { car } => format!("car {} is turned round and restarts in 1st", number(*car)),
            Event::Stalled { car } => format!("car {} stalls and waits for the next round", number(*car)),
            Event::SuperStart { car } => format!("car {} makes a super start: 4 spaces at once", number(*car)),
            Event::DriverPoint { car, first } => format!(
                "car {} expends a driver point: its roll of {first} is discarded and the gear die rolled again; the second result stands",
                number(*car)
            ),
            Event::BodyTest { car, other, aggravated } => format!(
                "car {} takes a{} body test for touching car {}",
                number(*car),
                if *aggravated { "n aggravated" } else { "" },
                number(*other)
            ),
            Event::EngineTest { car } => format!("car {} takes an engine test", number(*car)),
            Event::PitLane { car } => format!("car {} enters the pit lane", number(*car)),
            Event::PitStop { car, kind, tyres } => {
                format!("car {} makes a {} stop on {} tyres", number(*car), kind.name(), tyres.name())
            }
            Event::Repaired { car, part, points, .. } => {
                format!("car {} regains {points} {} point(s) at its pit", number(*car), part.name())
            }
            Event::QuickStop { car, spaces } => {
                format!("car {}'s quick stop is made: it moves {spaces} space(s) out in 4th", number(*car))
            }
            Event::QuickStopMissed { car } => {
                format!("car {}'s quick stop is missed: it waits in its box", number(*car))
            }
            Event::Slipstream { car, ahead } => {
                format!("car {} takes the slipstream of car {}: 3 more spaces", number(*car), number(*ahead))
            }
            Event::WeatherChange { weather, wet } => {
                format!("the weather is {} and the track {}", weather.name(), if *wet { "wet" } else { "dry" })
            }
            Event::WeatherDrawn { race, weather, wet } => format!(
                "the {} weather is {}: the track is {}{}",
                if *race { "race" } else { "qualifying" },
                weather.name(),
                if *wet { "wet" } else { "dry" },
                if *race { " at the start" } else { "" }
            ),
            Event::LateStart { car } => {
                format!("late arrival car {} leaves the pit lane: every car has passed it", number(*car))
            }
            Event::BackmarkerPlaced { car } => {
                format!("backmarker car {} is put on the track: the leader has finished the first lap", number(*car))
            }
            Event::BackmarkerWithdrawn { car } => {
                format!("backmarker car {} is taken off the track: every car has passed it", number(*car))
            }
            Event::WallTest { car } => format!("car {} takes a body test against the wall", number(*car)),
            Event::SoftBonus { car } => format!("car {} uses its soft-tyre +1", number(*car)),
            Event::WornSoftTyres { car } => {
                format!("car {}'s worn soft tyres lose a space on the straight", number(*car))
            }
            Event::Slid { car, spaces, .. } => {
                format!("car {} slides {spaces} space(s) on the wet track", number(*car))
            }
        }
    }
}
