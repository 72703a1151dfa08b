//! Every rule table the engine applies, in one place, each row citing its article.
//!
//! The 2004 French competition text (`shared/rules/001_*.txt`) is authoritative; a
//! [`Rulebook`] value says which edition and options a game plays, so editions are values, not
//! code paths scattered through the engine.
//!
//! The profiles (which edition and options a game plays, and the switches they make) are in
//! `profile`; the tables are here.

mod profile;
#[cfg(test)]
mod tests;

pub use profile::{Construction, Edition, Profile, ProfileError, RuleSet, Rulebook, Toggle};

/// The sheet of every car when the Eurogames car construction (003-5) is off: the basic booklet's
/// printed sheet is not among the sources, so the engine's balanced configuration is used
/// (`Wear::standard()`: tyres 6, brakes 4, gas 3, body 3, engine 3, road-holding 1; ruling 32).
pub const FIXED_SHEET: [u8; 6] = [6, 4, 3, 3, 3, 1];

/// A die of the game.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Die {
    /// The die of a gear, 1 to 6.
    Gear(u8),
    /// The black d20 (0-0-5) for every event other than movement.
    Black,
}

impl Die {
    /// The faces of the real die (shared/rules/README.md: the gear dice are not uniform).
    pub fn faces(self) -> &'static [u8] {
        match self {
            Die::Gear(1) => &GEAR_1,
            Die::Gear(2) => &GEAR_2,
            Die::Gear(3) => &GEAR_3,
            Die::Gear(4) => &GEAR_4,
            Die::Gear(5) => &GEAR_5,
            Die::Gear(6) => &GEAR_6,
            Die::Gear(g) => panic!("there is no gear {g}"),
            Die::Black => &BLACK,
        }
    }

    /// Smallest and largest result (6-2-1 table: 1st 1-2, 2nd 2-4, 3rd 4-8, 4th 7-12,
    /// 5th 11-20, 6th 21-30).
    pub fn range(self) -> (u8, u8) {
        let f = self.faces();
        (*f.iter().min().unwrap_or(&0), *f.iter().max().unwrap_or(&0))
    }

    /// Short name used in logs and mails (`d4`, `d30`, `black`).
    pub fn name(self) -> &'static str {
        match self {
            Die::Gear(1) => "gear1-d4",
            Die::Gear(2) => "gear2-d6",
            Die::Gear(3) => "gear3-d8",
            Die::Gear(4) => "gear4-d12",
            Die::Gear(5) => "gear5-d20",
            Die::Gear(6) => "gear6-d30",
            Die::Gear(_) => "gear?",
            Die::Black => "black-d20",
        }
    }
}

const GEAR_1: [u8; 4] = [1, 1, 2, 2];
const GEAR_2: [u8; 6] = [2, 3, 3, 4, 4, 4];
const GEAR_3: [u8; 8] = [4, 5, 6, 6, 7, 7, 8, 8];
const GEAR_4: [u8; 12] = [7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12];
const GEAR_5: [u8; 20] = [11, 11, 12, 12, 13, 13, 14, 14, 15, 15, 16, 16, 17, 17, 18, 18, 19, 19, 20, 20];
const GEAR_6: [u8; 30] = [
    21, 21, 21, 22, 22, 22, 23, 23, 23, 24, 24, 24, 25, 25, 25, 26, 26, 26, 27, 27, 27, 28, 28, 28, 29, 29, 29, 30, 30,
    30,
];
const BLACK: [u8; 20] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20];

/// The highest gear.
pub const TOP_GEAR: u8 = 6;

/// Wear points a car is configured with (5-0-2: 20 on the car plus 2 at the pit).
pub const CAR_POINTS: u8 = 20;
/// Wear points waiting at the pit (4-0-2, 5-0-2).
pub const PIT_POINTS: u8 = 2;

/// Over-revving costs by gears skipped (13-1): (gas, brakes, engine).
pub const OVER_REV: [(u8, u8, u8); 3] = [
    (1, 0, 0), // 1 gear skipped, e.g. 6th to 4th
    (1, 1, 0), // 2 gears, e.g. 5th to 2nd
    (1, 1, 1), // 3 gears, e.g. 6th to 2nd
];
/// Most gears a downshift may skip (13-2: 6th to 1st is forbidden).
pub const MAX_SKIP: u8 = 3;

/// The blocking table (12-0-1): (brakes, tyres) lost for 1..=6 spaces short; 7 or more
/// eliminates (12-1-1).
pub const BLOCKING: [(u8, u8); 6] = [(1, 0), (2, 0), (3, 0), (3, 1), (3, 2), (3, 3)];
/// Blocked this many spaces or more, the car is eliminated (12-1-1).
pub const BLOCKING_ELIMINATES_AT: u8 = 7;

/// Cost of being blocked `spaces` short (12-0-1), or `None` when it eliminates (12-1-1).
pub fn blocking_cost(spaces: u8) -> Option<(u8, u8)> {
    match spaces {
        0 => Some((0, 0)),
        s if s >= BLOCKING_ELIMINATES_AT => None,
        s => Some(BLOCKING[(s - 1) as usize]),
    }
}

/// Tyre type (8).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Tyres {
    /// Pneus durs (8-1).
    Hard,
    /// Pneus tendres (8-2).
    Soft,
    /// Pneus pluie (8-3).
    Rain,
}

impl Tyres {
    /// Name used in files and mails.
    pub fn name(self) -> &'static str {
        match self {
            Tyres::Hard => "hard",
            Tyres::Soft => "soft",
            Tyres::Rain => "rain",
        }
    }

    /// Parses `hard`, `soft`, `rain` (and the French `durs`, `tendres`, `pluie`).
    pub fn parse(s: &str) -> Option<Self> {
        match s.to_ascii_lowercase().as_str() {
            "hard" | "durs" | "dur" => Some(Tyres::Hard),
            "soft" | "tendres" | "tendre" => Some(Tyres::Soft),
            "rain" | "pluie" | "pluies" | "wet" => Some(Tyres::Rain),
            _ => None,
        }
    }
}

/// Overshoot factor: tyre points lost per space of overshoot (10-0-2, 8-5), given the tyre
/// type, whether the track is wet, and which lap of this set of tyres it is (8-0-2: laps count
/// per set of tyres, 1-based).
pub fn overshoot_factor(tyres: Tyres, wet: bool, tyre_lap: u16) -> u8 {
    let worn = tyre_lap >= 3;
    match (tyres, wet) {
        (Tyres::Hard, _) => 1,
        (Tyres::Rain, true) => 1,
        (Tyres::Soft, _) | (Tyres::Rain, false) => {
            if worn {
                3
            } else {
                2
            }
        }
    }
}

/// Spaces a car slides after each required stop inside a corner on a wet track (8-1-2, 8-2-2:
/// 3 on hard or soft tyres; 8-3-2: 1 on rain tyres); none on a dry track (8-5).
pub fn slide_spaces(tyres: Tyres, wet: bool) -> u8 {
    match (tyres, wet) {
        (_, false) => 0,
        (Tyres::Hard | Tyres::Soft, true) => 3,
        (Tyres::Rain, true) => 1,
    }
}

/// Whether the soft-tyre +1 may be used (8-2-1, 8-2-2, 8-5): soft tyres on their first lap, on a
/// dry track.
pub fn soft_bonus(tyres: Tyres, wet: bool, tyre_lap: u16) -> bool {
    tyres == Tyres::Soft && !wet && tyre_lap == 1
}

/// Black-die results that damage a car's body in a collision test (14-1, 14-3): the highest
/// failing face.
pub fn collision_threshold(wet: bool, aggravated: bool) -> u8 {
    match (wet, aggravated) {
        (false, false) => 1,
        (true, false) | (false, true) => 2,
        (true, true) => 3,
    }
}

/// Highest black-die face that costs an engine point in an engine test (16-0-2).
pub fn engine_threshold(wet: bool) -> u8 {
    if wet { 3 } else { 4 }
}

/// Highest black-die face that costs a road-handling point on a dangerous space (17-0-2).
pub fn handling_threshold(wet: bool) -> u8 {
    if wet { 5 } else { 4 }
}

/// Black-die face that stalls a car at the start (9-1) or at a restart after a spinout (10-4-6).
pub const STALL_FACE: u8 = 1;
/// Black-die face of a super start (9-2) or a lively restart (10-4-6).
pub const SUPER_START_FACE: u8 = 20;
/// Spaces a super start moves the car (9-2-1, 10-4-6).
pub const SUPER_START_SPACES: u8 = 4;

/// Slipstream (18-4 table): car B (the mover, in `behind` gear) may slipstream car A (in
/// `ahead` gear) only when both are in 4th or higher (18-0-1, 18-1-1) and B's gear is at least A's
/// (18-1-1). Rows of the 18-4 table, B's gear by A's gear:
/// 1-3 → never; 4 → A in 4th; 5 → A in 4th or 5th; 6 → A in 4th, 5th or 6th.
pub fn slipstream_allowed(behind: u8, ahead: u8) -> bool {
    (SLIPSTREAM_MIN_GEAR..=TOP_GEAR).contains(&behind) && (SLIPSTREAM_MIN_GEAR..=behind).contains(&ahead)
}

/// The lowest gear a slipstream works in, for both cars (18-0-1).
pub const SLIPSTREAM_MIN_GEAR: u8 = 4;
/// Spaces a slipstream adds to the move (18-0-3).
pub const SLIPSTREAM_SPACES: u8 = 3;
/// Brake points a slipstream costs when it takes the car into a corner (18-1-4, 18-3-2).
pub const SLIPSTREAM_CORNER_BRAKES: u8 = 1;

/// The gear a car leaves its box in: at once in 4th after a quick stop (19-3-3), 4th at most
/// after a missed quick stop (19-3-4) or a long stop (19-4-2).
pub const PIT_EXIT_GEAR: u8 = 4;
/// Black-die faces of a successful quick stop (19-3-3: 1 to 10; 11 to 20 miss it, 19-3-4).
pub const QUICK_STOP_MAX_FACE: u8 = 10;

/// Penalty rolls per placement error in a timed lap (1-1-11; 2004 annex: "toute erreur sera
/// pénalisée par 10 jets").
pub const QUALIFYING_ERROR_ROLLS: u32 = 10;
/// Qualifying points of a driver's season (004 "Qualifying"), at the first race.
pub const BID_SEASON_ALLOTMENT: u32 = 100;
/// Points the allotment loses for each race missed before joining (004: 90 at the second, 80 at
/// the third).
pub const BID_PRORATE_PER_RACE: u32 = 10;
/// Points a team may bid in a season (004).
pub const BID_TEAM_SEASON_CAP: u32 = 200;
