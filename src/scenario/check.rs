//! Checking a case's expectations: the options offered, the paths the driving code allows, the
//! articles cited, the dice used and the cars' states after a move.

use super::format::{Expect, OptionSpec, PathSpec, apply_wear};
use crate::engine::inertia::Inertia;
use crate::engine::order::advance;
use crate::engine::weather::WeatherState;
use crate::engine::{CarId, CarState, Fate, FixedDice, MoveOption, RaceState, Status, Tyres};
use crate::track::Track;

pub(super) fn check_articles(events: &[crate::engine::Event], e: &Expect, at: &str, fails: &mut Vec<String>) {
    if let Some(arts) = &e.articles {
        let cited: Vec<&str> = events.iter().map(|e| e.article()).collect();
        for a in arts {
            if !cited.contains(&a.as_str()) {
                fails.push(format!("{at}: no event cites {a}; cited: {}", cited.join(", ")));
            }
        }
    }
}

pub(super) fn check_dice(dice: &FixedDice, at: &str, fails: &mut Vec<String>) {
    for p in &dice.problems {
        fails.push(format!("{at}: dice: {p}"));
    }
    if !dice.remaining().is_empty() {
        fails.push(format!("{at}: dice not used: {:?}", dice.remaining()));
    }
}

/// Longest path a path check looks for: the top of the 6th-gear die.
const PATH_MAX: u8 = 30;

pub(super) fn check_paths(t: &Track, s: &RaceState, car: CarId, specs: &[PathSpec], at: &str, fails: &mut Vec<String>) {
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

pub(super) fn describe_options(t: &Track, opts: &[MoveOption]) -> String {
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

pub(super) fn check_options(t: &Track, opts: &[MoveOption], e: &Expect, at: &str, fails: &mut Vec<String>) {
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

pub(super) fn check_state(t: &Track, s: &RaceState, e: &Expect, at: &str, fails: &mut Vec<String>) {
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

fn dry_wet(wet: bool) -> &'static str {
    if wet { "wet" } else { "dry" }
}

/// The car numbered `number` in `state`.
pub(super) fn car_id(state: &RaceState, number: u8) -> Option<CarId> {
    state.ids().find(|&c| state.car(c).number == number)
}
