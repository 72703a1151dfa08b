//! Running a case: the track and rules it names, the position it sets up, each move played with
//! its dice fixed, and the report of a run of case files.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::check::{car_id, check_articles, check_dice, check_options, check_paths, check_state, describe_options};
use super::format::{MoveSpec, Scenario, apply_wear, parse, pit_order};
use crate::engine::inertia::Inertia;
use crate::engine::order::advance;
use crate::engine::weather::WeatherState;
use crate::engine::{
    CarState, Elimination, FixedDice, MoveOption, RaceState, Rulebook, Status, Step, Tyres, Wear, roll,
};
use crate::track::{self, Track};

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
    let sc: Scenario = match parse(&text) {
        Ok(s) => s,
        Err(e) => return Verdict::Fail(vec![e]),
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
