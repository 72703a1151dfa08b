//! Leagues and seasons (issue 7): the scoring examples of the issue on the pure league core
//! (best 9 of 12, ties by countback, the shared constructors' title, bids with reveal order and a
//! prorated late joiner, the rotating grid over a season), the league file and its edits, and
//! the rulings 36-43 of docs/rulings.md.

use std::path::Path;

use steward::engine::FixedDice;
use steward::league::classification::{CarOutcome, Ending, Placed, classify};
use steward::league::config::{BidRecord, GridMethod, League, LeagueError, RaceRecord};
use steward::league::grid::grid;
use steward::league::scoring::{Scoring, TeamTies, standings};

/// A race where `order` finished in that order.
fn race(order: &[&str]) -> Vec<Placed> {
    order
        .iter()
        .enumerate()
        .map(|(i, d)| Placed { driver: d.to_string(), place: i as u32 + 1, ending: Ending::Finished })
        .collect()
}

fn league(drivers: &[&str]) -> League {
    let mut l = League::new("test", "mod@x").unwrap();
    for d in drivers {
        l.enter(d, None, 1).unwrap();
    }
    l
}

fn champion(l: &League, races: &[Vec<Placed>]) -> String {
    standings(&l.entrants(), races, &l.scoring()).drivers[0].driver.clone()
}

#[test]
fn best_9_of_12_changes_the_champion() {
    // a is second in all twelve races (72 points); b wins the first six and starts no other
    // (60). Counting all, a is champion; counting the best nine (004 "The Drivers"), a keeps
    // 54 and b 60: the non-starts are b's dropped results.
    let mut l = league(&["a", "b", "c", "d", "e"]);
    let mut races = Vec::new();
    for i in 0..12 {
        races.push(match i {
            0..6 => race(&["b", "a", "c"]),
            6..8 => race(&["c", "a", "d"]),
            8..10 => race(&["d", "a", "e"]),
            _ => race(&["e", "a", "c"]),
        });
    }
    assert_eq!(champion(&l, &races), "a");
    l.scoring.counted = Some(9);
    let s = standings(&l.entrants(), &races, &l.scoring());
    assert_eq!(s.drivers[0].driver, "b");
    assert_eq!((s.drivers[0].points, s.drivers[0].gross), (60, 60));
    let a = s.drivers.iter().find(|d| d.driver == "a").unwrap();
    assert_eq!((a.points, a.gross, a.dropped.len()), (54, 72, 3));
    let b = &s.drivers[0];
    assert_eq!(b.dropped, vec![6, 7, 8], "the earliest of the equal worst results are dropped (ruling 38)");
}

#[test]
fn a_tie_on_points_is_broken_by_wins_then_seconds() {
    // Eight drivers, six scoring places. a: one win (10); b: a second and a third (6 + 4 = 10):
    // a ranks first (002 "Finishing Results", 004 "The Drivers").
    let l = league(&["a", "b", "c", "d", "e", "f", "g", "h"]);
    let races = vec![
        race(&["a", "c", "d", "e", "f", "g", "b", "h"]),
        race(&["c", "b", "d", "e", "f", "g", "a", "h"]),
        race(&["c", "d", "b", "e", "f", "g", "a", "h"]),
    ];
    let s = standings(&l.entrants(), &races, &l.scoring());
    let get = |d: &str| s.drivers.iter().find(|x| x.driver == d).unwrap().clone();
    let (a, b) = (get("a"), get("b"));
    assert_eq!((a.points, b.points), (10, 10));
    assert!(a.rank < b.rank, "most wins first");
    // No wins on either side: the most seconds decide. a: a second (6); b: a third and a
    // fifth (4 + 2).
    let races = vec![
        race(&["c", "a", "d", "e", "f", "g", "b", "h"]),
        race(&["c", "d", "b", "e", "f", "g", "a", "h"]),
        race(&["c", "d", "e", "f", "b", "g", "a", "h"]),
    ];
    let s = standings(&l.entrants(), &races, &l.scoring());
    let get = |d: &str| s.drivers.iter().find(|x| x.driver == d).unwrap().clone();
    let (a, b) = (get("a"), get("b"));
    assert_eq!((a.points, b.points), (6, 6));
    assert!(a.rank < b.rank, "then most seconds");
}

#[test]
fn an_exact_tie_is_a_shared_rank() {
    let l = league(&["a", "b", "c"]);
    let races = vec![race(&["a", "b", "c"]), race(&["b", "a", "c"])];
    let s = standings(&l.entrants(), &races, &l.scoring());
    assert_eq!((s.drivers[0].rank, s.drivers[1].rank, s.drivers[2].rank), (1, 1, 3));
}

#[test]
fn the_constructors_title_is_shared_on_equal_points() {
    // Team x (a, b) and team y (c, d), e and f without a team. Race 1: a, c, b, d, e, f:
    // x 10 + 4 = 14, y 6 + 3 = 9. Race 2: e, c, d, a, b, f: x 3 + 2 = 5, y 6 + 4 = 10.
    // Both 19; x has a win, y none.
    let mut l = league(&["a", "b", "c", "d", "e", "f"]);
    l.form_team("x", &["a", "b"], 1).unwrap();
    l.form_team("y", &["c", "d"], 1).unwrap();
    let races = vec![race(&["a", "c", "b", "d", "e", "f"]), race(&["e", "c", "d", "a", "b", "f"])];
    let s = standings(&l.entrants(), &races, &l.scoring());
    assert_eq!((s.teams[0].points, s.teams[1].points), (19, 19));
    assert_eq!((s.teams[0].rank, s.teams[1].rank), (1, 1), "004: ties are not resolved, the title is shared");
    assert!(crate_table(&l, &s).contains("  =1  x"));
    // 002's countback instead: x has the only win.
    l.scoring.team_ties = TeamTies::Countback;
    let s = standings(&l.entrants(), &races, &l.scoring());
    assert_eq!((s.teams[0].team.as_str(), s.teams[0].rank, s.teams[1].rank), ("x", 1, 2));
}

fn crate_table(l: &League, s: &steward::league::Standings) -> String {
    let t = steward::league::table::text(l, s);
    for line in t.lines() {
        assert!(line.chars().count() <= 78, "a line wider than 78 columns: {line:?}");
    }
    t
}

#[test]
fn fewer_than_six_finishers_the_latest_out_score_first() {
    // 004: "the most recent cars to be classified DNF will be awarded the position points".
    let o = |d: &str, fin: Option<u32>, out: Option<(u32, u64)>| CarOutcome {
        driver: d.into(),
        finished: fin,
        out,
        distance: out.map_or(300, |x| x.1),
    };
    let cars = [
        o("a", Some(1), None),
        o("b", None, Some((4, 50))),
        o("c", Some(2), None),
        o("d", None, Some((9, 120))),
        o("e", None, Some((9, 130))),
        o("f", None, Some((2, 20))),
        o("g", None, Some((1, 5))),
    ];
    let c = classify(&cars);
    let order: Vec<&str> = c.iter().map(|p| p.driver.as_str()).collect();
    assert_eq!(order, ["a", "c", "e", "d", "b", "f", "g"], "same round: farther first (ruling 36)");
    let l = league(&["a", "b", "c", "d", "e", "f", "g"]);
    let s = standings(&l.entrants(), std::slice::from_ref(&c), &l.scoring());
    let pts = |d: &str| s.drivers.iter().find(|x| x.driver == d).unwrap().points;
    assert_eq!([pts("a"), pts("c"), pts("e"), pts("d"), pts("b"), pts("f"), pts("g")], [10, 6, 4, 3, 2, 1, 0]);
    // 002 scores finishers only.
    let only = Scoring { dnf_score: false, ..Scoring::default() };
    let s = standings(&l.entrants(), &[c], &only);
    assert_eq!(s.drivers.iter().find(|x| x.driver == "e").unwrap().points, 0);
}

#[test]
fn a_race_ended_early_ranks_running_cars_by_distance_before_the_dnfs() {
    let o = |d: &str, out: Option<(u32, u64)>, dist: u64| CarOutcome {
        driver: d.into(),
        finished: None,
        out,
        distance: dist,
    };
    let c = classify(&[o("a", None, 80), o("b", Some((5, 200)), 200), o("c", None, 90)]);
    assert_eq!(c.iter().map(|p| p.driver.as_str()).collect::<Vec<_>>(), ["c", "a", "b"]);
    assert_eq!(c[0].ending, Ending::Running);
}

fn bids_league() -> League {
    let mut l = league(&["a", "b", "c", "d"]);
    for n in 1..=3 {
        l.add_race(RaceRecord {
            game: format!("r{n}"),
            track: "monaco".into(),
            laps: 1,
            grid: GridMethod::Bids,
            referee: None,
            bids: Vec::new(),
        })
        .unwrap();
    }
    l
}

fn bid(d: &str, points: u32) -> BidRecord {
    BidRecord { driver: d.into(), points, bought: 0, late: false }
}

#[test]
fn equal_bids_go_by_reveal_order_and_late_arrivals_start_last() {
    let mut l = bids_league();
    l.races[0].bids = vec![bid("c", 30), bid("b", 40), bid("a", 30), BidRecord { late: true, ..bid("d", 0) }];
    let g = grid(&l, 1, &mut FixedDice::new(vec![])).unwrap();
    assert_eq!(g, ["b", "c", "a", "d"], "004: the first revealed of equal bids is a fraction faster");
    l.races[0].bids.swap(0, 2);
    let g = grid(&l, 1, &mut FixedDice::new(vec![])).unwrap();
    assert_eq!(g, ["b", "a", "c", "d"]);
}

#[test]
fn a_late_joiner_has_a_prorated_budget_and_bids_are_spent_over_the_season() {
    let mut l = bids_league();
    // e joins at the third race: 80 points (004: 90 at the second race, 80 at the third).
    l.enter("e", None, 3).unwrap();
    l.races[2].bids = vec![bid("e", 85)];
    let e = grid(&l, 3, &mut FixedDice::new(vec![])).unwrap_err();
    assert!(matches!(e, LeagueError::Grid { race: 3, .. }));
    assert!(e.to_string().contains("80 qualifying points left"), "{e}");
    l.races[2].bids = vec![bid("e", 80)];
    assert_eq!(grid(&l, 3, &mut FixedDice::new(vec![])).unwrap()[0], "e");
    // a spends 70 at the first race: 30 left at the second.
    l.races[0].bids = vec![bid("a", 70)];
    l.races[1].bids = vec![bid("a", 31)];
    let e = grid(&l, 2, &mut FixedDice::new(vec![])).unwrap_err();
    assert!(e.to_string().contains("30 qualifying points left"), "{e}");
    // Points bought from the Team Design Table are added to the bid, unchecked (ruling 29).
    l.races[1].bids = vec![bid("b", 10), BidRecord { bought: 25, ..bid("a", 30) }];
    assert_eq!(grid(&l, 2, &mut FixedDice::new(vec![])).unwrap()[..2], ["a", "b"]);
}

#[test]
fn one_qualifying_card_per_driver_per_race() {
    // 004 "Qualifying": "Each driver receives a qualifying card", "There is one qualifying bid
    // session per race", "No driver may expend more than 100 bid points in a season." A second
    // card from a in the same race (60 then 50: 110 in the season) is refused, and a is not
    // listed twice on the grid.
    let mut l = bids_league();
    l.races[0].bids = vec![bid("a", 60), bid("b", 20), bid("a", 50)];
    let e = grid(&l, 1, &mut FixedDice::new(vec![])).unwrap_err();
    assert!(matches!(e, LeagueError::Grid { race: 1, .. }));
    assert!(e.to_string().contains("one qualifying card per race"), "{e}");
    // A late card is a card too.
    l.races[0].bids = vec![bid("a", 60), BidRecord { late: true, ..bid("a", 0) }];
    assert!(grid(&l, 1, &mut FixedDice::new(vec![])).is_err());
    l.races[0].bids = vec![bid("a", 60), bid("b", 20)];
    let g = grid(&l, 1, &mut FixedDice::new(vec![])).unwrap();
    assert_eq!(g.iter().filter(|d| d.as_str() == "a").count(), 1);
    assert_eq!(g[..2], ["a", "b"]);
}

#[test]
fn a_team_may_not_bid_more_than_200_in_a_season() {
    let mut l = bids_league();
    l.form_team("x", &["a", "b"], 1).unwrap();
    // A substitute c joins team x after b withdraws (FORS counts substitutes for the team).
    l.races[0].bids = vec![bid("a", 100), bid("b", 90)];
    l.withdraw("b", 2).unwrap();
    l.form_team("x", &["c"], 2).unwrap();
    l.races[1].bids = vec![bid("c", 20)];
    let e = grid(&l, 2, &mut FixedDice::new(vec![])).unwrap_err();
    assert!(e.to_string().contains("200 points for the season (10 left"), "{e}");
}

/// A league of `drivers` in teams of two (`t0`, `t1`... in order), with `races` one-lap races
/// `r1`, `r2`... on a rotating grid.
fn teams_of_two(drivers: &[&str], races: usize) -> League {
    let mut l = league(drivers);
    for t in 0..drivers.len() / 2 {
        l.form_team(&format!("t{t}"), &[drivers[2 * t], drivers[2 * t + 1]], 1).unwrap();
    }
    for n in 1..=races {
        l.add_race(RaceRecord {
            game: format!("r{n}"),
            track: "monaco".into(),
            laps: 1,
            grid: GridMethod::Rotating,
            referee: None,
            bids: Vec::new(),
        })
        .unwrap();
    }
    l
}

#[test]
fn a_rotating_grid_over_12_races_for_6_teams_of_two() {
    let names: Vec<String> = (1..=12).map(|i| format!("d{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let l = teams_of_two(&refs, 12);
    let mut used = vec![std::collections::BTreeMap::<(usize, usize), u32>::new(); 6];
    for n in 1..=12 {
        let g = grid(&l, n, &mut FixedDice::new(vec![])).unwrap();
        assert_eq!(g.len(), 12);
        for t in 0..6 {
            let slots: Vec<usize> = (0..2).map(|k| g.iter().position(|d| d == refs[2 * t + k]).unwrap() + 1).collect();
            // 002: "the total of the grid position numbers for each team" is the same for all:
            // 1 + 12 = 13 with six teams of two.
            assert_eq!(slots[0] + slots[1], 13, "race {n}, team {t}: {slots:?}");
            *used[t].entry((slots[0].min(slots[1]), slots[0].max(slots[1]))).or_default() += 1;
        }
    }
    for (t, u) in used.iter().enumerate() {
        // "each team would use each pair of grid positions twice"
        assert_eq!(u.len(), 6, "team {t}: {u:?}");
        assert!(u.values().all(|&k| k == 2), "team {t}: {u:?}");
    }
}

#[test]
fn track_marshals_rotate_and_their_team_sits_the_race_out() {
    // 002 "Series Length": "The duty of Track Marshall (the race umpire) will rotate among all
    // the players in turn. The Marshall's team will not run in the race" (ruling 42). Three
    // teams of two, six races: each team marshals twice, in the order the teams were formed.
    use steward::league::grid::entered;
    let names: Vec<String> = (1..=6).map(|i| format!("d{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut l = teams_of_two(&refs, 6);
    l.marshals = true;
    let games = std::env::temp_dir().join(format!("steward-marshals-{}", std::process::id()));
    for n in 1..=6 {
        let team = l.marshal_team(n).unwrap().to_string();
        assert_eq!(team, format!("t{}", (n - 1) % 3), "race {n}");
        // The marshal's team is not entered, and its first driver referees.
        let racing = entered(&l, n);
        assert_eq!(racing.len(), 4, "race {n}");
        let k = (n - 1) % 3;
        assert!(!racing.contains(&names[2 * k]) && !racing.contains(&names[2 * k + 1]), "race {n}");
        assert_eq!(steward::league::results::referee(&games, &l, n).unwrap(), names[2 * k]);
        // The rotating grid rotates the two teams that race.
        assert_eq!(grid(&l, n, &mut FixedDice::new(vec![])).unwrap().len(), 4, "race {n}");
    }
    // A referee the moderator names (a conflict settled by die roll) makes their team marshal.
    l.races[0].referee = Some("d6".into());
    assert_eq!(l.marshal_team(1), Some("t2"));
    assert!(!entered(&l, 1).contains(&"d5".to_string()));
    // Without marshals every driver races and the FORS referee stands.
    l.marshals = false;
    assert_eq!((l.marshal_team(2), entered(&l, 2).len()), (None, 6));
}

#[test]
fn a_rotating_grid_needs_teams() {
    let mut l = league(&["a", "b"]);
    l.add_race(RaceRecord {
        game: "r1".into(),
        track: "monaco".into(),
        laps: 1,
        grid: GridMethod::Rotating,
        referee: None,
        bids: Vec::new(),
    })
    .unwrap();
    let e = grid(&l, 1, &mut FixedDice::new(vec![])).unwrap_err();
    assert!(e.to_string().contains("form the teams first"), "{e}");
}

#[test]
fn a_d20_grid_is_lowest_first_with_ties_re_rolled() {
    let mut l = league(&["a", "b", "c"]);
    l.add_race(RaceRecord {
        game: "r1".into(),
        track: "monaco".into(),
        laps: 1,
        grid: GridMethod::D20,
        referee: None,
        bids: Vec::new(),
    })
    .unwrap();
    // a 12, b 5, c 12; the tie re-rolled: a 3, c 17 (lowest first, 002).
    let g = grid(&l, 1, &mut FixedDice::new(vec![12, 5, 12, 3, 17])).unwrap();
    assert_eq!(g, ["b", "a", "c"]);
}

#[test]
fn team_edits_keep_the_fors_rules() {
    let mut l = league(&["a", "b", "c"]);
    l.form_team("x", &["a", "b"], 1).unwrap();
    assert!(matches!(l.form_team("x", &["c"], 1), Err(LeagueError::TeamSize { n: 3, .. })));
    assert!(matches!(l.form_team("y", &["a"], 1), Err(LeagueError::TeamChange { .. })));
    assert!(matches!(l.form_team("y", &["zz"], 1), Err(LeagueError::UnknownDriver(_))));
    assert!(matches!(l.enter("A", None, 1), Err(LeagueError::DuplicateDriver(_))));
}

#[test]
fn team_points_count_from_the_race_a_driver_joined_the_team() {
    // Ruling 40: c's win at race 1 was before c joined team x.
    let mut l = league(&["a", "c", "d"]);
    l.form_team("x", &["a"], 1).unwrap();
    l.form_team("x", &["c"], 2).unwrap();
    let races = vec![race(&["c", "a", "d"]), race(&["c", "a", "d"])];
    let s = standings(&l.entrants(), &races, &l.scoring());
    assert_eq!(s.teams[0].points, 6 + 10 + 6);
}

#[test]
fn the_league_file_round_trips_and_says_what_is_wrong() {
    let dir = std::env::temp_dir().join(format!("steward-league-file-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut l = bids_league();
    l.form_team("x", &["a", "b"], 1).unwrap();
    l.races[0].bids = vec![bid("a", 10)];
    l.scoring.counted = Some(9);
    l.save(&dir).unwrap();
    assert_eq!(League::load(&dir, "test").unwrap(), l);
    let path = dir.join("test/league.toml");
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("team = \"x\"", "team = \"nope\"")).unwrap();
    let e = League::load(&dir, "test").unwrap_err().to_string();
    assert!(e.contains("drives for `nope`, which is not a [[team]]"), "{e}");
    let e = League::load(&dir, "other").unwrap_err().to_string();
    assert!(e.contains("steward league create other"), "{e}");
    assert!(Path::new(&path).exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Files of a Maildir (new and cur) whose text contains `needle`.
fn mails_with(mailbox: &Path, needle: &str) -> usize {
    ["new", "cur"]
        .iter()
        .filter_map(|d| std::fs::read_dir(mailbox.join(d)).ok())
        .flatten()
        .flatten()
        .filter(|e| std::fs::read(e.path()).is_ok_and(|b| String::from_utf8_lossy(&b).contains(needle)))
        .count()
}

#[test]
fn a_simulated_season_by_mail_verifies_race_by_race() {
    use steward::demo::season::{SeasonSpec, run};
    use steward::league::results::{referee, results};
    use steward::store::verify::verify;

    let dir = std::env::temp_dir().join(format!("steward-league-season-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let spec = SeasonSpec {
        dir: dir.clone(),
        league: "sim".into(),
        races: 12,
        drivers: 4,
        laps: 1,
        tracks: steward::track::load::shipped_names(),
        seed: 7,
    };
    let out = run(&spec).unwrap();
    assert_eq!(out.games.len(), 12);
    let games = dir.join("games");
    for g in &out.games {
        let r = verify(&games.join(g), None).unwrap_or_else(|e| panic!("{g}: {e}"));
        assert!(r.game.now.over, "{g} is not over");
    }
    let league = League::load(&games, "sim").unwrap();
    let res = results(&games, &league).unwrap();
    assert_eq!(res.len(), 12, "every race is classified");
    for (n, placed) in &res {
        assert_eq!(placed.len(), 4, "race {n}");
    }
    // Race 1's grid is the rotating grid: the game's players are in grid order.
    let g1 = steward::store::driver::load_dir(&games.join(&out.games[0]), None).unwrap();
    let joined: Vec<String> = g1.now.players.iter().map(|p| p.address.clone()).collect();
    assert_eq!(joined, grid(&league, 1, &mut FixedDice::new(vec![])).unwrap());
    // Races 4, 8 and 12 are qualified by mail in the game itself (ruling 31).
    for n in [4, 8, 12] {
        let g = steward::store::driver::load_dir(&games.join(&out.games[n - 1]), None).unwrap();
        assert_eq!(g.setup.grid.as_deref(), Some("qualifying"), "race {n}");
    }
    // Races 3, 7 and 11 have a d20 grid: every driver wished boxes 1 then 2 by mail, and the
    // boxes were chosen from the back of the grid (002, ruling 48): the last car has box 1, the
    // one before it box 2; then the second car and the pole, whose wishes and slots' boxes are
    // taken, have the first boxes left, 3 then 4.
    for n in [3, 7, 11] {
        let g = steward::store::driver::load_dir(&games.join(&out.games[n - 1]), None).unwrap();
        assert_eq!(g.setup.pit_choice.as_deref(), Some("reverse-grid"), "race {n}");
        assert!(g.now.players.iter().all(|p| p.boxes == [1, 2]), "race {n}");
        let st = &g.now.race.as_ref().unwrap().state;
        let got: Vec<usize> = st
            .ids()
            .map(|c| {
                let b = steward::engine::pits::own_box(&g.track, st, c).unwrap();
                g.track.pit_boxes.iter().position(|&x| x == b).unwrap() + 1
            })
            .collect();
        assert_eq!(got, [4, 3, 2, 1], "race {n}");
    }
    // From race 2, the referee is the previous winner and started the race with their token.
    for n in 2..=12 {
        let r = referee(&games, &league, n).unwrap();
        assert_eq!(r, res[n - 2].1[0].driver, "race {n}");
        let g = steward::store::driver::load_dir(&games.join(&out.games[n - 1]), None).unwrap();
        let start = g.turns.iter().find(|t| t.kind == steward::store::files::Kind::Start).unwrap();
        assert_eq!(start.source.as_ref().and_then(|s| s.from.as_deref()), Some(r.as_str()), "race {n}");
    }
    // The standings went to every driver after every race.
    for k in 1..=4 {
        let mb = dir.join("mail").join(format!("driver{k}@demo.invalid"));
        assert_eq!(mails_with(&mb, "standings after race "), 12, "driver {k}");
    }
    assert!(out.table.contains("standings after 12 of 12 races, best 9 count"), "{}", out.table);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A team design spending the 24 construction points of a three-lap series (002).
fn three_lap_design() -> std::collections::BTreeMap<steward::league::series::Category, u32> {
    use steward::league::series::Category::*;
    [
        (Tires, 5),
        (Brakes, 4),
        (Transmission, 3),
        (Engine, 3),
        (Bodywork, 3),
        (Suspension, 2),
        (PitCrew, 1),
        (Qualifying, 1),
        (Driver, 2),
    ]
    .into_iter()
    .collect()
}

#[test]
fn series_construction_points_and_the_two_lap_conversion() {
    use steward::league::series::{Category::*, DesignError, check_design, construction_points, convert_for_two_laps};
    assert_eq!((construction_points(3), construction_points(2), construction_points(4)), (Some(24), Some(20), None));
    let design = three_lap_design();
    check_design(&design, 3).unwrap();
    assert!(matches!(check_design(&design, 2), Err(DesignError::Total { spent: 24, allotted: 20, .. })));
    let two = convert_for_two_laps(&design, &[Tires, Brakes, Engine, Suspension]).unwrap();
    check_design(&two, 2).unwrap();
    // Not twice from one category; never Driver, Pit Crew or Qualifying (002 "Race Preparation").
    assert!(convert_for_two_laps(&design, &[Tires, Tires, Engine, Suspension]).is_err());
    let e = convert_for_two_laps(&design, &[Tires, Brakes, Engine, Driver]).unwrap_err();
    assert!(e.to_string().contains("may not be adjusted"), "{e}");
}

#[test]
fn series_driver_points_half_for_the_podium_and_half_for_finishing() {
    use steward::league::series::earned;
    let mut r = race(&["a", "b", "c", "d"]);
    r.push(Placed { driver: "e".into(), place: 5, ending: Ending::Dnf { round: 3 } });
    let races = vec![r.clone(), r];
    // a: (½ + ½) × 2 = 2 points = 4 halves; d: ½ × 2 = 2 halves; e did not finish: none.
    assert_eq!((earned("a", &races), earned("d", &races), earned("e", &races)), (4, 2, 0));
}

/// A stored game of `cars` bot cars on `track`, played `moves` bot moves (to the end if
/// `None`), then ended by a reveal if not over.
fn stored_game(
    name: &str,
    track: &str,
    cars: u8,
    laps: u16,
    moves: Option<usize>,
    fragile: bool,
) -> std::path::PathBuf {
    use steward::engine::Wear;
    use steward::engine::bot::Bot;
    use steward::store::{Join, Meta, NewGame, Store};
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("league-{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let store = Store::new(&dir);
    let req = NewGame::plain(name, track, laps);
    let mut h = store.create(&req, [7; 32], Meta::by("test")).unwrap();
    for c in 1..=cars {
        let j = Join {
            // Fragile cars (one point a part, the rest on the brakes) go out on the way.
            wear: if fragile && c % 2 == 0 {
                Wear { tyres: 1, brakes: 15, gas: 1, body: 1, engine: 1, handling: 1 }
            } else {
                Wear::standard()
            },
            bot: true,
            ..Join::plain(&format!("d{c}@x.invalid"), &format!("t{c}"), c)
        };
        h.join(&j, Meta::by("test")).unwrap();
    }
    h.start(Meta::by("test")).unwrap();
    let mut bot = Bot::new();
    let mut n = 0;
    while !h.game().now.over && moves.is_none_or(|m| n < m) {
        h.bot_move(&mut bot, Meta::by("test")).unwrap();
        n += 1;
    }
    if !h.game().now.over {
        h.reveal(Meta::by("test")).unwrap();
    }
    dir.join(name)
}

#[test]
fn results_from_stored_games_finishers_then_dnfs_latest_first() {
    use steward::league::results::outcomes;
    let dir = stored_game("full", "monaco", 8, 1, None, true);
    let cars = outcomes(&dir).unwrap().expect("the race is over");
    let c = classify(&cars);
    assert_eq!(c.len(), 8);
    let finished = c.iter().take_while(|p| p.ending == Ending::Finished).count();
    assert!(finished >= 1);
    // After the finishers only DNFs, later rounds first.
    let rounds: Vec<u32> = c[finished..]
        .iter()
        .map(|p| match p.ending {
            Ending::Dnf { round } => round,
            e => panic!("{e:?} after the finishers of a finished race"),
        })
        .collect();
    // (The bots rarely go out, even with fragile cars: the order of DNFs is held to the rule
    // when they do; `fewer_than_six_finishers_the_latest_out_score_first` pins it.)
    assert!(rounds.windows(2).all(|w| w[0] >= w[1]), "{rounds:?}");
}

#[test]
fn results_from_a_revealed_game_rank_running_cars_by_distance() {
    use steward::league::results::outcomes;
    let dir = stored_game("cut", "sprint", 4, 3, Some(30), false);
    let cars = outcomes(&dir).unwrap().expect("a revealed race is over");
    let c = classify(&cars);
    let running: Vec<u64> = c
        .iter()
        .filter(|p| p.ending == Ending::Running)
        .map(|p| cars.iter().find(|o| o.driver == p.driver).unwrap().distance)
        .collect();
    assert!(!running.is_empty());
    assert!(running.windows(2).all(|w| w[0] >= w[1]), "{running:?}");
    // A game not over is no result yet.
    let store = steward::store::Store::new(dir.parent().unwrap());
    assert!(store.list().unwrap().contains(&"cut".to_string()));
}

#[test]
fn the_league_command_line() {
    use crate::support::{stdout, steward};
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("league-cli");
    let _ = std::fs::remove_dir_all(&dir);
    let g = dir.to_str().unwrap();
    let run = |args: &[&str]| {
        let mut a = args.to_vec();
        a.extend(["--games", g]);
        steward(&a)
    };
    assert!(run(&["league", "create", "cup", "--moderator", "m@x.org", "--counted", "9"]).status.success());
    for d in ["a@x.org", "b@x.org", "c@x.org", "d@x.org"] {
        assert!(run(&["league", "enter", "cup", d]).status.success());
    }
    assert!(run(&["league", "team", "cup", "red", "a@x.org", "b@x.org"]).status.success());
    assert!(run(&["league", "team", "cup", "blue", "c@x.org", "d@x.org"]).status.success());
    assert!(
        run(&["league", "add-race", "cup", "cup-1", "--track", "sprint", "--laps", "1", "--grid", "bids"])
            .status
            .success()
    );
    assert!(run(&["league", "bid", "cup", "1", "c@x.org", "30"]).status.success());
    assert!(run(&["league", "bid", "cup", "1", "a@x.org", "30"]).status.success());
    let o = run(&["league", "bid", "cup", "1", "b@x.org", "101"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("100 qualifying points left"));
    let o = run(&["league", "grid", "cup", "1"]);
    let grid: Vec<String> = stdout(&o).lines().map(|l| l.split_whitespace().nth(1).unwrap().to_string()).collect();
    assert_eq!(grid, ["c@x.org", "a@x.org", "b@x.org", "d@x.org"], "reveal order, then no bid (ruling 41)");
    let o = run(&["league", "standings", "cup", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["drivers"].as_array().unwrap().len(), 4);
    assert_eq!(v["teams"][0]["rank"], 1);
    assert_eq!(v["teams"][1]["rank"], 1, "no points yet: a shared rank");
    let o = run(&["league", "team", "cup", "blue", "a@x.org"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn a_team_design_is_checked_against_the_series_and_converted_for_two_lap_races() {
    use steward::league::series::Category::*;
    let mut l = league(&["a"]);
    l.form_team("x", &["a"], 1).unwrap();
    for (n, laps) in [(1, 3), (2, 2)] {
        l.add_race(RaceRecord {
            game: format!("r{n}"),
            track: "monaco".into(),
            laps,
            grid: GridMethod::Qualifying,
            referee: None,
            bids: Vec::new(),
        })
        .unwrap();
    }
    l.teams[0].design = three_lap_design();
    // A three-lap series with a two-lap race: the conversion must be declared (002).
    let e = l.check().unwrap_err();
    assert!(e.contains("team `x`: two_lap"), "{e}");
    l.teams[0].two_lap = vec![Tires, Brakes, Engine, Suspension];
    l.check().unwrap();
    assert_eq!(l.design_for("x", 1).unwrap().values().sum::<u32>(), 24);
    assert_eq!(l.design_for("x", 2).unwrap().values().sum::<u32>(), 20);
    l.teams[0].design.insert(Driver, 3);
    assert!(l.check().unwrap_err().contains("spends 25 construction points"));
}

#[test]
fn the_documented_league_file_parses() {
    let doc = std::fs::read_to_string(crate::support::root().join("docs/leagues.md")).unwrap();
    let a = doc.find("```toml\n").unwrap() + 8;
    let b = a + doc[a..].find("```").unwrap();
    let l = League::parse(&doc[a..b], Path::new("docs/leagues.md")).unwrap();
    assert_eq!((l.name.as_str(), l.scoring.counted, l.races[0].grid), ("autumn", Some(9), GridMethod::Bids));
}

#[test]
fn results_from_kept_sim_races_classify_the_cars_that_went_out() {
    use crate::support::steward;
    use steward::league::results::outcomes;
    // Bot races on the sprint track lose cars to road-handling tests; `--keep` stores each as a
    // real game.
    let dir = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("league-kept");
    let _ = std::fs::remove_dir_all(&dir);
    let args = [
        "sim",
        "--track",
        "sprint",
        "--cars",
        "10",
        "--laps",
        "2",
        "--races",
        "20",
        "--seed",
        "3",
        "--weather",
        "wet",
        "--no-sync",
    ];
    let mut a = args.to_vec();
    a.extend(["--keep", dir.to_str().unwrap()]);
    assert!(steward(&a).status.success());
    let mut with_dnfs = 0;
    for e in std::fs::read_dir(&dir).unwrap().flatten().filter(|e| e.path().join("turns").is_dir()) {
        let cars = outcomes(&e.path()).unwrap().expect("a kept race is over");
        let c = classify(&cars);
        let finished = c.iter().take_while(|p| p.ending == Ending::Finished).count();
        let out: Vec<(u32, u64)> = c[finished..]
            .iter()
            .map(|p| {
                let o = cars.iter().find(|o| o.driver == p.driver).unwrap();
                match p.ending {
                    Ending::Dnf { round } => (round, o.out.unwrap().1),
                    e => panic!("{e:?} after the finishers"),
                }
            })
            .collect();
        // The most recent out first (004); in the same round the farther first (ruling 36).
        assert!(out.windows(2).all(|w| w[0].0 > w[1].0 || (w[0].0 == w[1].0 && w[0].1 >= w[1].1)), "{out:?}");
        assert!(out.iter().all(|o| o.0 >= 1));
        if !out.is_empty() {
            with_dnfs += 1;
        }
    }
    assert!(with_dnfs >= 1, "some kept race lost a car");
}

/// 002 "Finishing Results" to the games (ruling 45): a driver joins race n holding the whole
/// points earned in the races already over (½ for the podium, ½ for finishing).
#[test]
fn a_driver_holds_the_points_earned_in_earlier_races_for_the_next() {
    use steward::engine::Status;
    use steward::league::results::driver_points_for;
    let dir = stored_game("dp-1", "sprint", 4, 1, None, false);
    let games = dir.parent().unwrap();
    let mut l = steward::league::League::new("dpl", "mod@x.invalid").unwrap();
    for g in ["dp-1", "dp-2"] {
        let race = steward::league::RaceRecord {
            game: g.into(),
            track: "sprint".into(),
            laps: 1,
            grid: Default::default(),
            referee: None,
            bids: Vec::new(),
        };
        l.add_race(race).unwrap();
    }
    for c in 1..=4 {
        l.enter(&format!("d{c}@x.invalid"), None, 1).unwrap();
    }
    let g = steward::store::driver::load_dir(&dir, None).unwrap();
    let state = &g.now.race.as_ref().unwrap().state;
    let at = |place: u8| {
        let i = state.cars.iter().position(|c| c.status == Status::Finished { place })?;
        Some(g.now.players[i].address.clone())
    };
    let winner = at(1).expect("a winner");
    assert_eq!(driver_points_for(games, &l, &winner, 1).unwrap(), 0);
    assert_eq!(driver_points_for(games, &l, &winner, 2).unwrap(), 1, "½ for the podium and ½ for finishing");
    if let Some(fourth) = at(4) {
        assert_eq!(driver_points_for(games, &l, &fourth, 2).unwrap(), 0, "½ is not yet a point");
    }
}
