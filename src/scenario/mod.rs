//! Rulebook cases as data (`tests/scenarios/*.toml`), like the Diplomacy adjudicator test cases:
//! each file sets up a position, fixes the dice, plays orders and states what the rulebook says
//! must follow. `steward scenario FILE...` and `cargo test` run them; `docs/scenarios.md`
//! documents the format for rules experts.
//!
//! A missing expectation is not checked; every mismatch of a case is reported, not only the
//! first. A move without `choose` is a look: its roll and options are checked and nothing is
//! played, so several rolls can be tried on one position. `[[move.expect.path]]` checks a path
//! named by its spaces against the driving code (7, 10-2), as the rulebook's worked examples
//! name theirs ("A-C-D").

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::engine::inertia::Inertia;
use crate::engine::order::advance;
use crate::engine::weather::WeatherState;
use crate::engine::{
    CarId, CarState, Elimination, Fate, FixedDice, MoveOption, RaceState, Rulebook, Status, Step, Tyres, Wear, roll,
};
use crate::track::{self, Track};

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

fn pit_order(spec: Option<&PitSpec>) -> Result<crate::engine::pits::PitOrder, String> {
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

/// The result of running one case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Every expectation held.
    Pass,
    /// Skipped, with the reason.
    Ignored(String),
    /// What did not hold.
    Fail(Vec<String>),
}

/// Loads and runs a case file.
pub fn run_file(path: &Path) -> Verdict {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return Verdict::Fail(vec![format!("cannot read: {e}")]),
    };
    let sc: Scenario = match toml::from_str(&text) {
        Ok(s) => s,
        Err(e) => return Verdict::Fail(vec![format!("not a valid case file: {}", e.message().trim())]),
    };
    if let Some(why) = &sc.ignore {
        return Verdict::Ignored(why.clone());
    }
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    run(&sc, &dir)
}

fn load_track(name: &str, dir: &Path) -> Result<Track, String> {
    let local: PathBuf = dir.join(name);
    let found = if local.is_file() { local.to_string_lossy().into_owned() } else { name.to_string() };
    track::load::resolve(&found).map_err(|e| format!("track: {e}"))
}

/// Runs a parsed case; `dir` resolves relative track paths.
pub fn run(sc: &Scenario, dir: &Path) -> Verdict {
    let mut fails = Vec::new();
    let t = match load_track(&sc.track, dir) {
        Ok(t) => t,
        Err(e) => return Verdict::Fail(vec![e]),
    };
    let mut rules = match Rulebook::from_setup(sc.profile.as_deref().unwrap_or("competition-2004"), &sc.toggles) {
        Ok(r) => r,
        Err(e) => return Verdict::Fail(vec![e.to_string()]),
    };
    match sc.weather_checks.as_deref() {
        None => {}
        Some(crate::store::files::LAP_THIRDS) => rules.set.lap_third_weather = true,
        Some(w) => return Verdict::Fail(vec![format!("weather_checks `{w}` (lap-thirds)")]),
    }
    match sc.finish_ties.as_deref() {
        None => {}
        Some(crate::store::files::FINISH_PORTION) => rules.set.finish_by_portion = true,
        Some(w) => return Verdict::Fail(vec![format!("finish_ties `{w}` (portion)")]),
    }
    if (sc.wet || sc.weather.is_some()) && !rules.set.weather {
        return Verdict::Fail(vec!["the case is wet but its profile plays without weather (003-4 off)".into()]);
    }
    let mut state = match setup(sc, &t) {
        Ok(s) => s,
        Err(e) => return Verdict::Fail(vec![e]),
    };
    if rules.set.lap_third_weather
        && let Some(lead) = crate::engine::backmarkers::race_leader(&state, &t)
    {
        // The checkpoints the leader has already passed owe nothing (ruling 46).
        let passed =
            crate::engine::weather::checkpoints_before(&t, crate::engine::order::race_distance(&state, &t, lead));
        if let Some(w) = state.weather.as_mut() {
            w.checks = passed;
        }
    }
    if let Some(c) = state.cars.iter().find(|c| !rules.tyres_allowed(c.tyres)) {
        return Verdict::Fail(vec![format!("car {}: this profile plays hard tyres only (003-3 off)", c.number)]);
    }
    for (i, m) in sc.moves.iter().enumerate() {
        let at = format!("move {}", i + 1);
        match play_move(&t, &rules, &state, m, &at, &mut fails) {
            Some(next) => state = next,
            None => break,
        }
    }
    if let Some(e) = &sc.expect {
        check_state(&t, &state, e, "end", &mut fails);
    }
    if fails.is_empty() { Verdict::Pass } else { Verdict::Fail(fails) }
}

fn setup(sc: &Scenario, t: &Track) -> Result<RaceState, String> {
    let mut cars = Vec::new();
    for (i, c) in sc.cars.iter().enumerate() {
        let space =
            t.find(&c.space).ok_or_else(|| format!("car {}: no space `{}` on {}", c.number, c.space, t.name))?;
        // A backmarker's points are the ones it never loses (ruling 49).
        let base = if c.backmarker { crate::engine::backmarkers::WEAR } else { Wear::standard() };
        let wear = apply_wear(base, c.wear.as_ref());
        let tyres = match &c.tyres {
            Some(s) => Tyres::parse(s).ok_or_else(|| format!("car {}: tyres `{s}` (hard, soft, rain)", c.number))?,
            None => Tyres::Hard,
        };
        let status = match c.status.as_deref().unwrap_or("racing") {
            "racing" => Status::Racing,
            "spun" => Status::SpunOut,
            "stalled" => Status::Stalled,
            "waiting" => Status::Waiting,
            "grid" => Status::Grid,
            "restarting" => Status::Restarting,
            // A car whose engine has broken, still on the board (16-0-3, 18-1-8).
            "inertia" | "inertia:extended" => Status::Eliminated { reason: Elimination::Engine, removed: false },
            other => {
                return Err(format!(
                    "car {}: status `{other}` (racing, spun, stalled, restarting, grid, inertia, inertia:extended)",
                    c.number
                ));
            }
        };
        let inertia = match c.status.as_deref() {
            Some("inertia") => Some(Inertia::Single),
            Some("inertia:extended") => Some(Inertia::Extended),
            _ => None,
        };
        let stops = match (t.space(space).corner, c.stops) {
            (Some(k), Some(n)) => Some((k, n)),
            (Some(k), None) => Some((k, 0)),
            (None, Some(_)) => {
                return Err(format!("car {}: `stops` given but {} is not in a corner", c.number, c.space));
            }
            (None, None) => None,
        };
        cars.push(CarState {
            number: c.number,
            space,
            gear: c.gear,
            wear,
            pit_points: c.pit_points.unwrap_or(0),
            tyres,
            tyre_lap: c.tyre_lap.unwrap_or(1),
            crossings: c.crossings.unwrap_or(1),
            stops,
            status,
            arrival: c.arrival.unwrap_or(i as u32),
            moves: 0,
            pit: {
                use crate::engine::pits::{PitStage, PitState};
                let mut p = PitState::new(Wear::standard().max(&wear));
                p.stage = match c.pit.as_deref().unwrap_or("out") {
                    "out" => PitStage::Out,
                    "to_box" => PitStage::ToBox,
                    "stopped" => PitStage::Stopped { max_gear: 4 },
                    "to_exit" => PitStage::ToExit,
                    other => return Err(format!("car {}: pit `{other}` (out, to_box, stopped, to_exit)", c.number)),
                };
                p.last_stop = c.last_stop;
                if let Some(b) = &c.pit_box {
                    let at = t.find(b).ok_or_else(|| format!("car {}: no space `{b}` on {}", c.number, t.name))?;
                    if !t.pit_boxes.contains(&at) {
                        return Err(format!("car {}: `{b}` is not a pit box of {}", c.number, t.name));
                    }
                    p.own_box = Some(at);
                }
                p
            },
            inertia,
            backmarker: c.backmarker,
        });
    }
    let mut state = RaceState::from_cars(cars, sc.laps.unwrap_or(3), sc.wet);
    state.backmarkers = match sc.backmarkers.as_deref() {
        None => crate::engine::backmarkers::Backmarkers::Off,
        Some("due") => crate::engine::backmarkers::Backmarkers::Due,
        Some("placed") => crate::engine::backmarkers::Backmarkers::Placed,
        Some(other) => return Err(format!("backmarkers `{other}` (due, placed)")),
    };
    if let Some(w) = &sc.weather {
        state.weather = Some(WeatherState::parse(w).ok_or_else(|| {
            format!("weather `{w}` (changeable, sun, rain, temporary-sun, temporary-rain, final-sun, final-rain)")
        })?);
    }
    for d in &sc.dangerous {
        let s = t.find(d).ok_or_else(|| format!("dangerous: no space `{d}`"))?;
        state.add_sticker(s);
    }
    let mut seen = Vec::new();
    for c in &state.cars {
        if seen.contains(&c.space) {
            return Err(format!("two cars on {}", t.space(c.space).id));
        }
        seen.push(c.space);
    }
    if let Some(n) = sc.to_play {
        let id = car_id(&state, n).ok_or_else(|| format!("to_play: no car {n}"))?;
        state.to_play = Some(id);
        state.round_leader = Some(id);
    }
    Ok(state)
}

fn apply_wear(mut w: Wear, spec: Option<&WearSpec>) -> Wear {
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

fn car_id(state: &RaceState, number: u8) -> Option<CarId> {
    state.ids().find(|&c| state.car(c).number == number)
}

fn play_move(
    t: &Track,
    rules: &Rulebook,
    state: &RaceState,
    m: &MoveSpec,
    at: &str,
    fails: &mut Vec<String>,
) -> Option<RaceState> {
    let mut state = state.clone();
    if state.to_play.is_none() {
        let (s, next, _) = advance(t, &state);
        state = s;
        if next.is_none() {
            fails.push(format!("{at}: no car is left to play"));
            return None;
        }
    }
    let car = state.to_play.expect("a car is to play");
    if let Some(n) = m.car
        && state.car(car).number != n
    {
        fails.push(format!("{at}: car {} is to play, not car {n} (6-2)", state.car(car).number));
        return None;
    }
    if m.retire {
        // Out where it stands, off the track (ruling 51); the next car is called.
        let (s, events) = crate::engine::play::retire(&state, car);
        state = s;
        state.to_play = None;
        if let Some(e) = &m.expect {
            check_articles(&events, e, at, fails);
            check_state(t, &state, e, at, fails);
        }
        return Some(state);
    }
    if let Some(place) = &m.place {
        let Some(s) = t.find(place) else {
            fails.push(format!("{at}: no space `{place}`"));
            return None;
        };
        let key = crate::engine::order::key(&state, t, car);
        let arrival = state.next_arrival;
        state.next_arrival += 1;
        let c = state.car_mut(car);
        if t.space(s).progress < t.space(c.space).progress {
            c.crossings += 1;
        }
        c.space = s;
        c.arrival = arrival;
        c.moves += 1;
        if c.status == Status::Grid {
            c.status = Status::Racing;
        }
        state.sweep = Some(key);
        state.played.push(car);
        state.to_play = None;
        if let Some(e) = &m.expect {
            check_state(t, &state, e, at, fails);
        }
        return Some(state);
    }
    let Some(gear) = m.gear else {
        fails.push(format!("{at}: a move needs `gear` (or `place`)"));
        return None;
    };
    let mut dice = FixedDice::new(m.dice.clone());
    let expect = m.expect.clone().unwrap_or_default();
    let step = match roll(t, &state, car, gear, &mut dice, rules) {
        Ok(s) => s,
        Err(e) => {
            match &expect.error {
                Some(want) if e.to_string().contains(want.as_str()) => {}
                Some(want) => fails.push(format!("{at}: refused with `{e}`, expected a refusal saying `{want}`")),
                None => fails.push(format!("{at}: order refused: {e}")),
            }
            return if expect.error.is_some() { Some(state) } else { None };
        }
    };
    // A refusal may come with the choice instead (a pit decision, 19-4-1): checked there.
    if let Some(want) = &expect.error
        && m.choose.is_none()
    {
        fails.push(format!("{at}: the order was accepted; expected a refusal saying `{want}`"));
    }
    let outcome = match step {
        Step::Done(o) => o,
        Step::Choose(r) => {
            check_options(t, &r.options, &expect, at, fails);
            check_paths(t, &r.state, r.car, &expect.paths, at, fails);
            let Some(choose) = &m.choose else {
                // A look: the options are checked, nothing is played, and the next move starts
                // from the same position with the same car to play.
                if !expect.cars.is_empty() || expect.play_order.is_some() || expect.finish.is_some() {
                    fails.push(format!("{at}: `choose` is needed to check the state after the move"));
                }
                check_dice(&dice, at, fails);
                check_articles(&r.events, &expect, at, fails);
                return Some(state);
            };
            // A backmarker's option is chosen by its rules (002, ruling 49).
            let by_rules = (choose == "backmarker" && r.state.car(r.car).backmarker)
                .then(|| crate::engine::backmarkers::choose(t, &r.state, r.car, &r.options));
            let end = match by_rules {
                Some(i) => r.options[i].end,
                None => match t.find(choose) {
                    Some(end) => end,
                    None => {
                        fails.push(format!("{at}: no space `{choose}`"));
                        return None;
                    }
                },
            };
            let slips = |o: &MoveOption| o.slip.as_ref().map_or(0, |x| x.behind.len() as u8);
            let pick = by_rules.or_else(|| {
                r.options.iter().position(|o| {
                    o.end == end
                        && m.brakes.is_none_or(|b| o.brakes == b)
                        && m.slipstreams.is_none_or(|n| slips(o) == n)
                        && m.bonus.is_none_or(|b| o.bonus == b)
                })
            });
            let Some(i) = pick else {
                fails.push(format!(
                    "{at}: {choose} is not offered{}; offered: {}",
                    m.brakes.map(|b| format!(" with {b} brake(s)")).unwrap_or_default(),
                    describe_options(t, &r.options)
                ));
                return None;
            };
            let order = match pit_order(m.pit.as_ref()) {
                Ok(o) => o,
                Err(e) => {
                    fails.push(format!("{at}: {e}"));
                    return None;
                }
            };
            match crate::engine::play::resolve_with(t, &r, i, &order, &mut dice, rules) {
                Ok(o) => {
                    if let Some(want) = &expect.error {
                        fails.push(format!("{at}: the order was accepted; expected a refusal saying `{want}`"));
                    }
                    let mut events = r.events.clone();
                    events.extend(o.events);
                    crate::engine::Outcome { state: o.state, events }
                }
                Err(e) => {
                    match &expect.error {
                        Some(want) if e.to_string().contains(want.as_str()) => {}
                        Some(want) => {
                            fails.push(format!("{at}: refused with `{e}`, expected a refusal saying `{want}`"))
                        }
                        None => fails.push(format!("{at}: choice refused: {e}")),
                    }
                    return if expect.error.is_some() { Some(state) } else { None };
                }
            }
        }
    };
    check_dice(&dice, at, fails);
    check_articles(&outcome.events, &expect, at, fails);
    check_state(t, &outcome.state, &expect, at, fails);
    Some(outcome.state)
}

fn check_articles(events: &[crate::engine::Event], e: &Expect, at: &str, fails: &mut Vec<String>) {
    if let Some(arts) = &e.articles {
        let cited: Vec<&str> = events.iter().map(|e| e.article()).collect();
        for a in arts {
            if !cited.contains(&a.as_str()) {
                fails.push(format!("{at}: no event cites {a}; cited: {}", cited.join(", ")));
            }
        }
    }
}

fn check_dice(dice: &FixedDice, at: &str, fails: &mut Vec<String>) {
    for p in &dice.problems {
        fails.push(format!("{at}: dice: {p}"));
    }
    if !dice.remaining().is_empty() {
        fails.push(format!("{at}: dice not used: {:?}", dice.remaining()));
    }
}

/// Longest path a path check looks for: the top of the 6th-gear die.
const PATH_MAX: u8 = 30;

fn check_paths(t: &Track, s: &RaceState, car: CarId, specs: &[PathSpec], at: &str, fails: &mut Vec<String>) {
    for p in specs {
        let mut via = Vec::new();
        for id in &p.via {
            match t.find(id) {
                Some(x) => via.push(x),
                None => {
                    fails.push(format!("{at}: path: no space `{id}`"));
                }
            }
        }
        if via.len() != p.via.len() || via.is_empty() {
            continue;
        }
        let found = crate::engine::play::paths_through(t, s, car, &via, PATH_MAX);
        let ids = |w: &crate::engine::movement::Walk| {
            w.path.iter().map(|x| t.space(*x).id.clone()).collect::<Vec<_>>().join(" ")
        };
        let lengths: Vec<u8> = found.iter().map(|w| w.reach.spaces()).collect();
        let via_text = p.via.join("-");
        match (p.legal, p.spaces) {
            (true, None) if found.is_empty() => fails.push(format!("{at}: no legal path via {via_text}")),
            (true, Some(n)) if !lengths.contains(&n) => {
                fails.push(format!("{at}: no legal path of {n} spaces via {via_text}; legal lengths: {lengths:?}"))
            }
            (false, None) if !found.is_empty() => fails.push(format!(
                "{at}: a path via {via_text} is legal but must not be: {} ({} spaces)",
                ids(&found[0]),
                found[0].reach.spaces()
            )),
            (false, Some(n)) => {
                if let Some(r) = found.iter().find(|r| r.reach.spaces() == n) {
                    fails.push(format!(
                        "{at}: a path of {n} spaces via {via_text} is legal but must not be: {}",
                        ids(r)
                    ));
                }
            }
            _ => {}
        }
    }
}

/// Options listed in a failure report at most; the rest are counted.
const DESCRIBED_OPTIONS: usize = 40;

fn describe_options(t: &Track, opts: &[MoveOption]) -> String {
    let more = opts.len().saturating_sub(DESCRIBED_OPTIONS);
    let listed = opts
        .iter()
        .take(DESCRIBED_OPTIONS)
        .enumerate()
        .map(|(i, o)| {
            format!(
                "{}:{}(b{} t{}{}{}{}{})",
                MoveOption::label(i),
                t.space(o.end).id,
                o.brake_points(),
                o.tyre_points(),
                o.slip.as_ref().map(|x| format!(" slip{}", x.behind.len())).unwrap_or_default(),
                if o.bonus { " +1" } else { "" },
                if o.slide > 0 { format!(" slide{}", o.slide) } else { String::new() },
                match o.fate {
                    Fate::Continues => String::new(),
                    Fate::SpinOut => " spin".into(),
                    Fate::Eliminated(r) => format!(" out:{}", r.name()),
                }
            )
        })
        .collect::<Vec<_>>()
        .join(" ");
    if more > 0 { format!("{listed} ... and {more} more") } else { listed }
}

fn check_options(t: &Track, opts: &[MoveOption], e: &Expect, at: &str, fails: &mut Vec<String>) {
    let mut ends: Vec<String> = opts.iter().map(|o| t.space(o.end).id.clone()).collect();
    ends.sort();
    ends.dedup();
    if let Some(want) = &e.options {
        let mut want = want.clone();
        want.sort();
        want.dedup();
        if want != ends {
            let missing: Vec<&String> = want.iter().filter(|w| !ends.contains(w)).collect();
            let extra: Vec<&String> = ends.iter().filter(|x| !want.contains(x)).collect();
            fails.push(format!("{at}: options differ: missing {missing:?}, not expected {extra:?}"));
        }
    }
    for w in e.options_include.iter().flatten() {
        if !ends.contains(w) {
            fails.push(format!("{at}: {w} is not offered; offered: {}", describe_options(t, opts)));
        }
    }
    for w in e.options_exclude.iter().flatten() {
        if ends.contains(w) {
            fails.push(format!("{at}: {w} is offered but must not be"));
        }
    }
    for spec in &e.option {
        let found = opts.iter().any(|o| option_matches(t, o, spec));
        if !found {
            fails.push(format!(
                "{at}: no option matches [{}]; offered: {}",
                describe_spec(spec),
                describe_options(t, opts)
            ));
        }
    }
}

/// An option expectation in the words of the case file: `end s0.m.10, blocked 5, ...`.
fn describe_spec(s: &OptionSpec) -> String {
    let mut parts = vec![format!("end {}", s.end)];
    let mut num = |name: &str, v: Option<u8>| {
        if let Some(v) = v {
            parts.push(format!("{name} {v}"));
        }
    };
    num("brakes", s.brakes);
    num("blocked", s.blocked);
    num("brake_points", s.brake_points);
    num("tyre_points", s.tyre_points);
    num("overshoot", s.overshoot);
    num("stops", s.stops);
    num("slipstreams", s.slipstreams);
    num("slip_brakes", s.slip_brakes);
    num("slide", s.slide);
    num("wall", s.wall);
    if let Some(b) = s.bonus {
        parts.push(format!("bonus {b}"));
    }
    if let Some(f) = &s.fate {
        parts.push(format!("fate {f}"));
    }
    if let Some(d) = &s.dangerous {
        parts.push(format!("dangerous [{}]", d.join(" ")));
    }
    if let Some(p) = &s.path {
        parts.push(format!("path [{}]", p.join(" ")));
    }
    parts.join(", ")
}

fn option_matches(t: &Track, o: &MoveOption, s: &OptionSpec) -> bool {
    let ids = |v: &[crate::track::SpaceIdx]| v.iter().map(|x| t.space(*x).id.clone()).collect::<Vec<_>>();
    t.space(o.end).id == s.end
        && s.brakes.is_none_or(|b| o.brakes == b)
        && s.blocked.is_none_or(|b| o.blocked == b)
        && s.brake_points.is_none_or(|b| o.brake_points() == b)
        && s.tyre_points.is_none_or(|b| o.tyre_points() == b)
        && s.overshoot.is_none_or(|b| o.overshoot.map_or(0, |(_, n)| n) == b)
        && s.stops.is_none_or(|b| o.stops.map_or(0, |(_, n)| n) == b)
        && s.fate.as_deref().is_none_or(|f| fate_matches(o.fate, f))
        && s.dangerous.as_ref().is_none_or(|d| *d == ids(&o.dangerous))
        && s.tests.is_none_or(|n| o.dangerous.len() == n as usize)
        && s.path.as_ref().is_none_or(|p| *p == ids(&o.path))
        && s.slipstreams.is_none_or(|n| o.slip.as_ref().map_or(0, |x| x.behind.len()) == n as usize)
        && s.slip_brakes.is_none_or(|n| o.slip.as_ref().map_or(0, |x| x.brake_points()) == n)
        && s.bonus.is_none_or(|b| o.bonus == b)
        && s.slide.is_none_or(|n| o.slide == n)
        && s.wall.is_none_or(|n| o.wall == n)
}

fn fate_matches(f: Fate, want: &str) -> bool {
    match (f, want) {
        (Fate::Continues, "continues") | (Fate::SpinOut, "spin") | (Fate::Eliminated(_), "eliminated") => true,
        (Fate::Eliminated(r), w) => w.strip_prefix("eliminated:") == Some(r.name()),
        _ => false,
    }
}

/// `inertia` / `inertia:extended`: the car still has that inertia to play (16-0-3, 16-0-6);
/// `None` for the other statuses.
fn inertia_matches(c: &CarState, want: &str) -> Option<bool> {
    let kind = match want {
        "inertia" => Inertia::Single,
        "inertia:extended" => Inertia::Extended,
        _ => return None,
    };
    Some(c.inertia == Some(kind) && matches!(c.status, Status::Eliminated { removed: false, .. }))
}

fn status_matches(s: Status, want: &str) -> bool {
    match (s, want) {
        (Status::Racing, "racing")
        | (Status::SpunOut, "spun")
        | (Status::Stalled, "stalled")
        | (Status::Waiting, "waiting")
        | (Status::Grid, "grid")
        | (Status::Restarting, "restarting")
        | (Status::Finished { .. }, "finished") => true,
        (Status::Eliminated { reason, removed }, w) => {
            // "eliminated:engine removed" / "eliminated:body waiting": taken off at once, or
            // still on the board until its next turn.
            let (w, place) = match w.split_once(' ') {
                Some((w, "removed")) => (w, Some(true)),
                Some((w, "waiting")) => (w, Some(false)),
                _ => (w, None),
            };
            let reason_ok = w == "eliminated" || w.strip_prefix("eliminated:") == Some(reason.name());
            reason_ok && place.is_none_or(|p| p == removed)
        }
        _ => false,
    }
}

fn check_state(t: &Track, s: &RaceState, e: &Expect, at: &str, fails: &mut Vec<String>) {
    if let Some(w) = &e.weather {
        let have = s.weather.map_or("fixed", |x| x.name());
        let want = WeatherState::parse(w).map_or(w.as_str(), |x| x.name());
        if have != want {
            fails.push(format!("{at}: the weather is {have}, expected {want}"));
        }
    }
    if let Some(wet) = e.wet
        && s.wet != wet
    {
        fails.push(format!("{at}: the track is {}, expected {}", dry_wet(s.wet), dry_wet(wet)));
    }
    for ce in &e.cars {
        let Some(id) = car_id(s, ce.number) else {
            fails.push(format!("{at}: no car {}", ce.number));
            continue;
        };
        let c = s.car(id);
        let who = format!("{at}: car {}", ce.number);
        if let Some(sp) = &ce.space
            && t.space(c.space).id != *sp
        {
            fails.push(format!("{who} is on {}, expected {sp}", t.space(c.space).id));
        }
        if let Some(g) = ce.gear
            && c.gear != g
        {
            fails.push(format!("{who} is in gear {}, expected {g}", c.gear));
        }
        if let Some(w) = &ce.wear {
            let expected = apply_wear(c.wear, Some(w));
            if expected != c.wear {
                fails.push(format!("{who} wear is {}, expected {}", c.wear, expected));
            }
        }
        if let Some(st) = &ce.status
            && !inertia_matches(c, st).unwrap_or_else(|| status_matches(c.status, st))
        {
            fails.push(format!("{who} status is {:?}, expected {st}", c.status));
        }
        if let Some(n) = ce.stops {
            let have = c.stops.map_or(0, |(_, n)| n);
            if have != n {
                fails.push(format!("{who} has {have} stop(s), expected {n}"));
            }
        }
        if let Some(n) = ce.crossings
            && c.crossings != n
        {
            fails.push(format!("{who} crossed the line {} time(s), expected {n}", c.crossings));
        }
        if let Some(p) = &ce.pit {
            use crate::engine::pits::PitStage;
            let have = match c.pit.stage {
                PitStage::Out => "out",
                PitStage::ToBox => "to_box",
                PitStage::Stopped { .. } => "stopped",
                PitStage::ToExit => "to_exit",
            };
            if have != p {
                fails.push(format!("{who} pit stage is {have}, expected {p}"));
            }
        }
        if let Some(n) = ce.pit_points
            && c.pit_points != n
        {
            fails.push(format!("{who} has {} pit point(s) left, expected {n}", c.pit_points));
        }
        if let Some(ty) = &ce.tyres
            && Tyres::parse(ty) != Some(c.tyres)
        {
            fails.push(format!("{who} is on {} tyres, expected {ty}", c.tyres.name()));
        }
        if let Some(n) = ce.tyre_lap
            && c.tyre_lap != n
        {
            fails.push(format!("{who} is on lap {} of its tyres, expected {n}", c.tyre_lap));
        }
    }
    if let Some(d) = &e.dangerous {
        let mut have: Vec<String> = s.dangerous.iter().map(|x| t.space(*x).id.clone()).collect();
        let mut want = d.clone();
        have.sort();
        want.sort();
        if have != want {
            fails.push(format!("{at}: stickers on {have:?}, expected {want:?}"));
        }
    }
    if let Some(f) = &e.finish {
        let have: Vec<u8> = s.finish_order.iter().map(|&c| s.car(c).number).collect();
        if have != *f {
            fails.push(format!("{at}: finish order {have:?}, expected {f:?}"));
        }
    }
    if let Some(order) = &e.play_order {
        // Cars called from here on, without moving anybody: each is marked as played in turn.
        let mut st = s.clone();
        let mut called = Vec::new();
        for _ in 0..order.len() {
            let (n, next, _) = advance(t, &st);
            st = n;
            let Some(c) = next else { break };
            called.push(st.car(c).number);
            let key = crate::engine::order::key(&st, t, c);
            st.sweep = Some(key);
            st.played.push(c);
            st.to_play = None;
        }
        if called != *order {
            fails.push(format!("{at}: play order {called:?}, expected {order:?}"));
        }
    }
}

/// Runs case files and writes a report; returns how many failed.
pub fn run_files(paths: &[PathBuf], out: &mut String) -> usize {
    let (mut passed, mut failed, mut skipped) = (0, 0, 0);
    for p in paths {
        match run_file(p) {
            Verdict::Pass => {
                passed += 1;
                let _ = writeln!(out, "ok      {}", p.display());
            }
            Verdict::Ignored(why) => {
                skipped += 1;
                let _ = writeln!(out, "ignored {} ({why})", p.display());
            }
            Verdict::Fail(msgs) => {
                failed += 1;
                let _ = writeln!(out, "FAILED  {}", p.display());
                for m in msgs {
                    let _ = writeln!(out, "    {m}");
                }
            }
        }
    }
    let _ = writeln!(out, "scenarios: {passed} passed, {failed} failed, {skipped} skipped");
    failed
}

/// The case files named by `args`: files as given, directories expanded to their `*.toml`
/// files (not recursing into `tracks/`), sorted.
pub fn collect(args: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for a in args {
        if a.is_dir() {
            let mut v: Vec<PathBuf> = std::fs::read_dir(a)
                .into_iter()
                .flatten()
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                .collect();
            v.sort();
            out.extend(v);
        } else {
            out.push(a.clone());
        }
    }
    out
}

fn dry_wet(wet: bool) -> &'static str {
    if wet { "wet" } else { "dry" }
}
