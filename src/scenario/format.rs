//! The case file's format (docs/scenarios.md): the TOML structures a case is read into, and the
//! wear and pit decisions they write, as the engine takes them.

use serde::Deserialize;

use crate::engine::{Tyres, Wear};

/// A whole case file.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// The article the case is about (`12-2`).
    pub article: String,
    /// What the case shows, in a sentence.
    pub title: String,
    /// Skip the case, saying why (the rule is not implemented yet, say).
    #[serde(default)]
    pub ignore: Option<String>,
    /// A shipped track name, or a track file path relative to the case file.
    pub track: String,
    /// Rule profile (default `competition-2004`).
    #[serde(default)]
    pub profile: Option<String>,
    /// The Eurogames advanced rules switched on (`eurogames-advanced` only, docs/profiles.md).
    #[serde(default)]
    pub toggles: Vec<String>,
    /// Wet track.
    #[serde(default)]
    pub wet: bool,
    /// The sky of a changeable race (3-2-6): `changeable`, `sun` / `rain` (temporary),
    /// `final-sun`, `final-rain`; without it the weather is fixed.
    #[serde(default)]
    pub weather: Option<String>,
    /// `"lap-thirds"`: a changeable sky is tested as the leader passes each third of the lap
    /// (002 "Weather", ruling 46), not after a 20 in 5th or a 30 in 6th.
    #[serde(default)]
    pub weather_checks: Option<String>,
    /// `"portion"`: cars finishing in the same round are placed by the portion of their move used
    /// to touch the line (004, ruling 50), not in the order they cross (21-1-4).
    #[serde(default)]
    pub finish_ties: Option<String>,
    /// Laps of the race (default 3).
    #[serde(default)]
    pub laps: Option<u16>,
    /// `due`: the race plays with backmarkers, placed when the leader finishes the first lap
    /// (002 "Backmarkers", ruling 49).
    #[serde(default)]
    pub backmarkers: Option<String>,
    /// Dangerous spaces at the start.
    #[serde(default)]
    pub dangerous: Vec<String>,
    /// The cars, in any order.
    #[serde(rename = "car")]
    pub cars: Vec<CarSpec>,
    /// The car whose turn it is at the start (default: as the order of play says).
    #[serde(default)]
    pub to_play: Option<u8>,
    /// Moves played in order.
    #[serde(default, rename = "move")]
    pub moves: Vec<MoveSpec>,
    /// What must hold at the end.
    #[serde(default)]
    pub expect: Option<Expect>,
}

/// A car's position and sheet.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarSpec {
    /// Painted number.
    pub number: u8,
    /// Space id.
    pub space: String,
    /// Gear (0 = standing).
    #[serde(default)]
    pub gear: u8,
    /// Wear points; missing parts take the standard sheet's values.
    #[serde(default)]
    pub wear: Option<WearSpec>,
    /// Tyres (`hard`, `soft`, `rain`).
    #[serde(default)]
    pub tyres: Option<String>,
    /// Lap of the set of tyres (default 1).
    #[serde(default)]
    pub tyre_lap: Option<u16>,
    /// Finish-line crossings so far (default 1: on lap 1).
    #[serde(default)]
    pub crossings: Option<u16>,
    /// Stops counted in the corner the car stands in.
    #[serde(default)]
    pub stops: Option<u8>,
    /// `racing` (default), `spun`, `stalled`, `restarting` (turned round after a spinout, rolls
    /// the black die first, 10-4-6), `grid` (before the start, rolls the black die first, 9-0-1).
    #[serde(default)]
    pub status: Option<String>,
    /// Arrival order on its space (lower came first; default: file order).
    #[serde(default)]
    pub arrival: Option<u32>,
    /// Wear points waiting at its pit (4-0-2; default 0).
    #[serde(default)]
    pub pit_points: Option<u8>,
    /// In the pit lane (19): `to_box` (entered, going to its box), `stopped` (in its box after a
    /// missed quick stop or a long stop), `to_exit` (left its box, not yet out of the lane).
    #[serde(default)]
    pub pit: Option<String>,
    /// The lap (crossings) of its last pit stop, if any (19-2-4).
    #[serde(default)]
    pub last_stop: Option<u16>,
    /// The box its player chose (4-0-1, ruling 48), when not the box of its index.
    #[serde(default)]
    pub pit_box: Option<String>,
    /// A backmarker, no player's car (002 "Backmarkers", ruling 49): it plays by its own rules
    /// (3rd gear, no damage) and its options are chosen for it.
    #[serde(default)]
    pub backmarker: bool,
}

/// A pit decision: `{ kind = "long", tyres = "soft", repairs = { brakes = 1 } }`.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PitSpec {
    /// `quick` (default) or `long`.
    #[serde(default)]
    pub kind: Option<String>,
    /// The tyres announced (default: the same type, 19-2-7).
    #[serde(default)]
    pub tyres: Option<String>,
    /// Points taken from the pit points, part by part (long stop).
    #[serde(default)]
    pub repairs: Option<WearSpec>,
}

pub(super) fn pit_order(spec: Option<&PitSpec>) -> Result<crate::engine::pits::PitOrder, String> {
    use crate::engine::pits::{PitOrder, StopKind};
    let Some(p) = spec else { return Ok(PitOrder::default()) };
    let kind = match &p.kind {
        Some(k) => Some(StopKind::parse(k).ok_or_else(|| format!("pit kind `{k}` (quick, long)"))?),
        None => None,
    };
    let tyres = match &p.tyres {
        Some(x) => Some(Tyres::parse(x).ok_or_else(|| format!("pit tyres `{x}` (hard, soft, rain)"))?),
        None => None,
    };
    let mut repairs = Vec::new();
    if let Some(r) = &p.repairs {
        let zero = Wear { tyres: 0, brakes: 0, gas: 0, body: 0, engine: 0, handling: 0 };
        let w = apply_wear(zero, Some(r));
        for part in crate::engine::Part::ALL {
            if w.get(part) > 0 {
                repairs.push((part, w.get(part)));
            }
        }
    }
    Ok(PitOrder { kind, tyres, repairs })
}

/// Wear points, each optional.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct WearSpec {
    /// Tyres.
    pub tyres: Option<u8>,
    /// Brakes.
    pub brakes: Option<u8>,
    /// Gas.
    pub gas: Option<u8>,
    /// Body.
    pub body: Option<u8>,
    /// Engine.
    pub engine: Option<u8>,
    /// Handling.
    pub handling: Option<u8>,
}

/// One move.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveSpec {
    /// The car that must be the one to play (checked against the order of play).
    #[serde(default)]
    pub car: Option<u8>,
    /// Gear announced.
    #[serde(default)]
    pub gear: Option<u8>,
    /// Die results in order: the gear die, then black dice.
    #[serde(default)]
    pub dice: Vec<u8>,
    /// End space of the option chosen; without it the move is a look (nothing is played).
    #[serde(default)]
    pub choose: Option<String>,
    /// Among options ending there, the one with this many voluntary brake points.
    #[serde(default)]
    pub brakes: Option<u8>,
    /// Among options ending there, the one taking this many slipstreams (18; 0: none).
    #[serde(default)]
    pub slipstreams: Option<u8>,
    /// The decision at the box, when the move reaches it (19-2-6, 19-3, 19-4).
    #[serde(default)]
    pub pit: Option<PitSpec>,
    /// Among options ending there, the one that uses (or does not use) the soft-tyre +1 (8-2-1).
    #[serde(default)]
    pub bonus: Option<bool>,
    /// Instead of playing, put the car there as if it had moved (for order-of-play cases).
    #[serde(default)]
    pub place: Option<String>,
    /// Instead of playing, its player retires the car (`RETIRE`, ruling 51).
    #[serde(default)]
    pub retire: bool,
    /// What must hold after the roll (options) and after the move.
    #[serde(default)]
    pub expect: Option<Expect>,
}

/// Expectations; each is checked only when given.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The order is refused with a message containing this text.
    pub error: Option<String>,
    /// Exactly these end spaces are offered.
    pub options: Option<Vec<String>>,
    /// These end spaces are among those offered.
    pub options_include: Option<Vec<String>>,
    /// These end spaces are not offered.
    pub options_exclude: Option<Vec<String>>,
    /// Options that must be offered with these costs.
    #[serde(default, rename = "option")]
    pub option: Vec<OptionSpec>,
    /// Paths the driving code must allow or refuse (checked after the roll, before the move).
    #[serde(default, rename = "path")]
    pub paths: Vec<PathSpec>,
    /// Cars' states after the move.
    #[serde(default, rename = "car")]
    pub cars: Vec<CarExpect>,
    /// Stickers on exactly these spaces.
    pub dangerous: Option<Vec<String>>,
    /// These articles are cited by the move's events.
    pub articles: Option<Vec<String>>,
    /// The order in which cars are called to play from here on (car numbers).
    pub play_order: Option<Vec<u8>>,
    /// Finishing order so far (car numbers).
    pub finish: Option<Vec<u8>>,
    /// The sky after the move (3-2-6), as in the case's `weather` key.
    pub weather: Option<String>,
    /// Whether the track is wet after the move.
    pub wet: Option<bool>,
}

/// An option that must be on offer.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionSpec {
    /// End space.
    pub end: String,
    /// Voluntary brake points.
    pub brakes: Option<u8>,
    /// Spaces short because blocked.
    pub blocked: Option<u8>,
    /// All brake points lost.
    pub brake_points: Option<u8>,
    /// All tyre points lost.
    pub tyre_points: Option<u8>,
    /// Overshoot spaces.
    pub overshoot: Option<u8>,
    /// Stops counted in the end corner.
    pub stops: Option<u8>,
    /// `continues`, `spin`, `eliminated` or `eliminated:<reason>`.
    pub fate: Option<String>,
    /// Dangerous spaces entered.
    pub dangerous: Option<Vec<String>>,
    /// How many dangerous spaces it enters (road-handling tests, 17-0-2).
    pub tests: Option<u8>,
    /// The exact path (space ids after the start).
    pub path: Option<Vec<String>>,
    /// Slipstreams taken (18); 0 for a move without one.
    pub slipstreams: Option<u8>,
    /// Brake points of the slipstreams: short of three (18-1-2) plus entering a corner (18-1-4).
    pub slip_brakes: Option<u8>,
    /// Uses the soft-tyre +1 (8-2-1).
    pub bonus: Option<bool>,
    /// Spaces slid on a wet track (8-1-2); 0 for none.
    pub slide: Option<u8>,
    /// Entries into an oval's wall lane: body tests against the wall (15-0-2); 0 for none.
    pub wall: Option<u8>,
}

/// A path the moving car may or may not drive (7, 10-2), whatever its roll.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathSpec {
    /// Spaces the path passes in order; the last is where it stops. Intermediate spaces are
    /// waypoints (`A-C-D` in the rulebook): any legal path through them counts.
    pub via: Vec<String>,
    /// Whether the driving code allows such a path.
    pub legal: bool,
    /// With `legal = true`: a legal path of exactly this many spaces exists. With
    /// `legal = false`: no legal path of this many spaces exists (default: of any length).
    pub spaces: Option<u8>,
}

/// A car's expected state.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CarExpect {
    /// Which car.
    pub number: u8,
    /// Where it stands.
    pub space: Option<String>,
    /// Gear.
    pub gear: Option<u8>,
    /// Wear points (only those given are checked).
    pub wear: Option<WearSpec>,
    /// `racing`, `spun`, `stalled`, `finished`, `eliminated` or `eliminated:<reason>`.
    pub status: Option<String>,
    /// Stops in its corner.
    pub stops: Option<u8>,
    /// Line crossings.
    pub crossings: Option<u16>,
    /// Pit stage: `out`, `to_box`, `stopped`, `to_exit` (19).
    pub pit: Option<String>,
    /// Wear points left at its pit (4-0-2, 19-4-1).
    pub pit_points: Option<u8>,
    /// Tyre type fitted.
    pub tyres: Option<String>,
    /// Lap of its set of tyres (8-0-2).
    pub tyre_lap: Option<u16>,
}

pub(super) fn apply_wear(mut w: Wear, spec: Option<&WearSpec>) -> Wear {
    if let Some(s) = spec {
        let set = |v: &mut u8, x: Option<u8>| {
            if let Some(x) = x {
                *v = x;
            }
        };
        set(&mut w.tyres, s.tyres);
        set(&mut w.brakes, s.brakes);
        set(&mut w.gas, s.gas);
        set(&mut w.body, s.body);
        set(&mut w.engine, s.engine);
        set(&mut w.handling, s.handling);
    }
    w
}

/// A case file's text read into its structures; the error says what is wrong.
pub(super) fn parse(text: &str) -> Result<Scenario, String> {
    toml::from_str(text).map_err(|e| format!("not a valid case file: {}", e.message().trim()))
}
