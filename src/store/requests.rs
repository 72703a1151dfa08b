//! What callers hand the store: a new game, a player's join, and the metadata of every write
//! (when, and from which message). Plain data, apart from the driver that takes them.

use crate::dice::Scheme;
use crate::engine::pits::PitChoice;
use crate::engine::weather::Forecast;
use crate::engine::{Rulebook, Tyres, Wear};

use super::files::Source;
use super::qualifying::GridMethod;
use super::time::Stamp;

/// When and from where a call comes.
#[derive(Clone, Debug)]
pub struct Meta {
    /// When the order was received.
    pub at: Stamp,
    /// The message it came from.
    pub source: Option<Source>,
}

impl Meta {
    /// Now, with no message.
    pub fn now() -> Self {
        Meta { at: Stamp::now(), source: None }
    }

    /// Now, on behalf of `who` (`moderator`, `bot`...).
    pub fn by(who: &str) -> Self {
        Meta { at: Stamp::now(), source: Some(Source { by: Some(who.into()), ..Source::default() }) }
    }
}

/// What a new game is.
#[derive(Clone, Debug)]
pub struct NewGame {
    /// Its name.
    pub id: String,
    /// A shipped track's name or a track file.
    pub track: String,
    /// Rule profile, optionally with the Eurogames toggles after a colon
    /// (`eurogames-advanced:tyres,weather`, docs/profiles.md).
    pub profile: String,
    /// Laps.
    pub laps: u16,
    /// Most cars (default: the grid).
    pub max_cars: Option<u8>,
    /// Hours to answer.
    pub move_hours: u32,
    /// Joins close at.
    pub join_by: Option<Stamp>,
    /// How the race weather is decided (3-0-1).
    pub weather: Forecast,
    /// How the grid is made (1, ruling 31).
    pub grid: GridMethod,
    /// A changeable sky is tested three times a lap (002 "Weather", ruling 46).
    pub lap_third_weather: bool,
    /// Late arrivals may join from the pit-lane exit (004, ruling 47).
    pub late_arrivals: bool,
    /// Cars finishing in the same round are placed by the portion of their move used to touch
    /// the line (004, ruling 50), not by the order of crossing (21-1-4).
    pub finish_by_portion: bool,
    /// In which order the players choose their pit boxes (4-0-1; 002 after a d20 grid, ruling 48).
    pub pit_choice: PitChoice,
    /// The race plays with 002's backmarkers (ruling 49).
    pub backmarkers: bool,
    /// Deadlines run per round (issue 46): every decision of a round is due `move_hours` after
    /// the round began (a choice asked after a roll gets at least a quarter of that), so that
    /// the players answer side by side; otherwise each decision has `move_hours` from when it is
    /// asked.
    pub round_deadlines: bool,
    /// With `round_deadlines`: each round due at a time of day in the game's zone (issue 46).
    pub schedule: Option<crate::store::Schedule>,
    /// The dice scheme (docs/dice.md): v2 for every new game; `steward sim --keep` writes v1
    /// games, whose key is the one `steward sim` plays with.
    pub scheme: Scheme,
    /// A public beacon mixed into the dice key at the start (docs/dice.md, section 6).
    pub beacon: Option<Beacon>,
}

/// A public random value named at the creation of a game, before any join, and entered by a
/// moderator at the start: nothing the operator controls before the start can then steer the
/// dice key, since nobody knows the value until after the joins close.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Beacon {
    /// Where anyone looks the value up.
    pub source: String,
    /// When the value becomes public.
    pub at: Stamp,
}

/// drand's default ("mainnet") chain: the time of round 1 and the seconds between rounds
/// (https://api.drand.sh/info).
pub const DRAND_GENESIS: i64 = 1_595_431_050;
/// Seconds between two drand mainnet rounds.
pub const DRAND_PERIOD: i64 = 30;

impl Beacon {
    /// `drand <round>` (drand's mainnet chain; the value is the round's `randomness`, 64 hex
    /// digits, at https://api.drand.sh/public/<round>) or `nist <YYYY-MM-DDTHH:MM:00Z>` (the NIST
    /// Randomness Beacon's pulse of that minute; the value is its `outputValue`, 128 hex digits).
    pub fn parse(kind: &str, arg: &str) -> Result<Beacon, String> {
        match kind.to_ascii_lowercase().as_str() {
            "drand" => {
                let round: i64 = arg
                    .parse()
                    .ok()
                    .filter(|&r| (1..=1_000_000_000).contains(&r))
                    .ok_or_else(|| format!("a drand round is a number, like 5700000, not `{arg}`"))?;
                Ok(Beacon {
                    source: format!(
                        "drand mainnet round {round} (https://api.drand.sh/public/{round}, its randomness)"
                    ),
                    at: Stamp(DRAND_GENESIS + (round - 1) * DRAND_PERIOD),
                })
            }
            "nist" => {
                let at = Stamp::parse(arg).filter(|s| s.0 % 60 == 0).ok_or_else(|| {
                    format!("a NIST pulse is named by its minute, like 2026-12-10T20:00:00Z, not `{arg}`")
                })?;
                Ok(Beacon {
                    source: format!(
                        "NIST Randomness Beacon pulse of {at} (https://beacon.nist.gov/beacon/2.0/pulse/time/{}, its outputValue)",
                        at.0 * 1000
                    ),
                    at,
                })
            }
            _ => Err(format!("a beacon is `drand <round>` or `nist <minute>`, not `{kind}`")),
        }
    }

    /// The first drand mainnet round at least `hours` after `now`: a sensible beacon for a game
    /// whose joins close then.
    pub fn drand_after(now: Stamp, hours: u32) -> Beacon {
        let t = now.plus_hours(hours).0;
        let round = (t - DRAND_GENESIS + DRAND_PERIOD - 1).div_euclid(DRAND_PERIOD) + 1;
        Beacon::parse("drand", &round.to_string()).expect("a round number")
    }
}

/// A beacon value as a moderator reads it at its source: 64 or 128 hex digits, kept lowercase.
pub fn beacon_value(text: &str) -> Option<String> {
    let t = text.trim();
    (matches!(t.len(), 64 | 128) && t.bytes().all(|b| b.is_ascii_hexdigit())).then(|| t.to_ascii_lowercase())
}

impl NewGame {
    /// A game as the library's callers mostly want it (simulations, benches, tests): the 2004
    /// rules, sun, the join order as the grid, 48 hours to answer, no other option.
    pub fn plain(id: &str, track: &str, laps: u16) -> NewGame {
        NewGame {
            id: id.into(),
            track: track.into(),
            profile: Rulebook::competition_2004().profile_name().into(),
            laps,
            max_cars: None,
            move_hours: 48,
            join_by: None,
            weather: Forecast::Sun,
            grid: GridMethod::Join,
            lap_third_weather: false,
            late_arrivals: false,
            finish_by_portion: false,
            pit_choice: PitChoice::GridOrder,
            backmarkers: false,
            round_deadlines: false,
            schedule: None,
            scheme: Scheme::V3,
            beacon: None,
        }
    }
}

/// A player's join.
#[derive(Clone, Debug)]
pub struct Join {
    /// Mail address.
    pub address: String,
    /// The token that will authenticate the player's orders (only its hash is stored).
    pub token: String,
    /// Car number wanted (default: the lowest free).
    pub car: Option<u8>,
    /// Display name.
    pub name: Option<String>,
    /// Wear points.
    pub wear: Wear,
    /// Tyres.
    pub tyres: Tyres,
    /// Tyres if the track is wet at the start (none: the same).
    pub wet_tyres: Option<Tyres>,
    /// Entropy phrase mixed into the dice key.
    pub entropy: Option<String>,
    /// The bot drives this car.
    pub bot: bool,
    /// The driver's points for this race (002 "Expending Driver Points", ruling 45): 0 for none.
    pub driver_points: u8,
    /// The pit boxes wanted, best first, numbered from 1 along the lane (4-0-1, ruling 48).
    pub boxes: Vec<u8>,
}

impl Join {
    /// Car `car` for `address` with `token`: the standard sheet (5-0-2), hard tyres, no phrase,
    /// no driver point, driven by its player.
    pub fn plain(address: &str, token: &str, car: u8) -> Join {
        Join {
            address: address.into(),
            token: token.into(),
            car: Some(car),
            name: None,
            wear: Wear::standard(),
            tyres: Tyres::Hard,
            wet_tyres: None,
            entropy: None,
            bot: false,
            driver_points: 0,
            boxes: Vec::new(),
        }
    }
}
