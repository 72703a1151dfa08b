//! Qualifying (1) and the grid methods (1-3-2, 002, 004), through `engine::qualifying` with fixed
//! dice. The worked examples of 1-4 are a referee's sheet (rolls, minutes, penalties): they are
//! checked on `absolute_time` with the overshoot factors of the engine; the lap itself is played
//! on the practice track.

use steward::engine::FixedDice;
use steward::engine::Tyres;
use steward::engine::pits::{PitChoice, choose_boxes};
use steward::engine::qualifying::grid::{self, Bid, Qualified, TieBreak};
use steward::engine::qualifying::{Lap, LapDriver, LapEnd, LapRoll, play_lap, start_space};
use steward::engine::rulebook::overshoot_factor;
use steward::engine::rulebook::{RuleSet, Toggle};
use steward::track::Track;
use steward::track::load::{resolve, shipped_names};

use crate::support::{root, stdout, steward};

fn practice() -> Track {
    resolve(root().join("tests/scenarios/tracks/practice.toml").to_str().unwrap()).unwrap()
}

/// Plays the gears given, always the farthest option (A) unless a space id is given for the move.
struct Script {
    gears: Vec<u8>,
    to: Vec<Option<&'static str>>,
    n: usize,
}

/// Gears 1, 2, 3 then 4th; dice 2, 4, 8 then 7s: on the practice track this overshoots corner 2
/// (one stop of two) and leaves corner 3 after one stop of three.
const GEARS: [u8; 12] = [1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4];
const DICE: [u8; 12] = [2, 4, 8, 7, 7, 7, 7, 7, 7, 7, 7, 7];

impl Script {
    fn new(gears: &[u8]) -> Self {
        Script { gears: gears.to_vec(), to: vec![None; gears.len()], n: 0 }
    }
}

impl LapDriver for Script {
    fn gear(&mut self, _t: &Track, _lap: &Lap) -> u8 {
        self.gears.get(self.n).copied().unwrap_or(1)
    }
    fn option(&mut self, t: &Track, _lap: &Lap, rolled: &LapRoll) -> usize {
        // 1-0-1: no wear points, so no braking is ever offered.
        assert!(rolled.options.iter().all(|o| o.brakes == 0), "a brake option in qualifying");
        let to = self.to.get(self.n).copied().flatten();
        self.n += 1;
        match to {
            Some(id) => {
                let s = t.find(id).unwrap_or_else(|| panic!("no space {id}"));
                rolled.options.iter().position(|o| o.end == s).unwrap_or_else(|| {
                    let ends: Vec<&str> = rolled.options.iter().map(|o| t.space(o.end).id.as_str()).collect();
                    panic!("no option to {id}: {ends:?}")
                })
            }
            None => 0,
        }
    }
}

fn trace(t: &Track, lap: &Lap) -> String {
    lap.moves
        .iter()
        .map(|m| {
            format!(
                "{}:{}->{}{}",
                m.gear,
                m.roll,
                t.space(m.to).id,
                m.overshoot.map_or(String::new(), |o| format!(" over{o:?}"))
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn scripted(tyres: Tyres, wet: bool) -> (Track, Lap) {
    let t = practice();
    let lap = Lap::new(&t, 7, tyres, wet).unwrap();
    let mut dice = FixedDice::new(DICE.to_vec());
    let lap = play_lap(&t, lap, &mut Script::new(&GEARS), &mut dice).unwrap();
    (t, lap)
}

#[test]
fn q_1_1_3_the_car_starts_on_the_centre_lane_behind_the_line_lever_in_first() {
    let t = practice();
    assert_eq!(t.space(start_space(&t).unwrap()).id, "s3.m.16");
    let lap = Lap::new(&t, 1, Tyres::Hard, false).unwrap();
    // Ruling 21: the first move is in 1st.
    assert_eq!(lap.legal_gears(), vec![1]);
    let err = lap.roll(&t, 2, &mut FixedDice::new(vec![3])).unwrap_err();
    assert!(err.to_string().contains("1st gear"), "{err}");
    // Ruling 22: two lanes, no centre: the pole slot's lane.
    let sprint = resolve("sprint").unwrap();
    let s = start_space(&sprint).unwrap();
    assert_eq!(sprint.space(s).lane, sprint.space(sprint.grid[0]).lane);
}

#[test]
fn q_1_0_1_over_revving_costs_nothing_but_the_gearbox_limits_hold() {
    let t = practice();
    let mut lap = Lap::new(&t, 1, Tyres::Hard, false).unwrap();
    let mut dice = FixedDice::new(vec![2, 4, 8, 7]);
    for g in [1, 2, 3, 4] {
        let r = lap.roll(&t, g, &mut dice).unwrap();
        lap = lap.resolve(&t, &r, 0).unwrap();
    }
    assert_eq!(lap.car().gear, 4);
    // 4th to 1st skips two gears: a gas and a brake point in a race (13-1), free here (ruling 23).
    assert_eq!(lap.legal_gears(), vec![1, 2, 3, 4, 5]);
}

#[test]
fn q_1_1_14_leaving_a_three_stop_corner_after_one_stop_aborts_the_lap() {
    let (t, lap) = scripted(Tyres::Hard, false);
    assert_eq!(lap.result.end, Some(LapEnd::Aborted { corner: 3 }), "{}", trace(&t, &lap));
    assert_eq!(lap.result.total(), None);
    assert_eq!(lap.result.rolls, 8);
    // 1-1-12: the overshoot of corner 2 (one stop of two) cost its spaces in rolls on hard tyres.
    let over: Vec<_> = lap.moves.iter().filter_map(|m| m.overshoot.map(|o| (o, m.penalty))).collect();
    // The move that aborts the lap leaves corner 3 as an overshoot too; an aborted lap has no
    // total, so its penalty never counts.
    assert_eq!(over, vec![((2, 6), 6), ((3, 6), 6)], "{}", trace(&t, &lap));
    assert_eq!(lap.result.overshoot, 12);
    // Nothing more can be played.
    assert!(lap.roll(&t, 4, &mut FixedDice::new(vec![7])).is_err());
}

#[test]
fn q_1_1_12_overshoot_penalties_follow_the_tyre_factor_of_8_5() {
    for (tyres, wet, factor) in [
        (Tyres::Hard, false, 1),
        (Tyres::Soft, false, 2),
        (Tyres::Rain, false, 2),
        (Tyres::Rain, true, 1),
        (Tyres::Soft, true, 2),
    ] {
        let (t, lap) = scripted(tyres, wet);
        let over: Vec<_> = lap.moves.iter().filter(|m| m.overshoot.is_some()).collect();
        assert!(!over.is_empty(), "{tyres:?} wet {wet}: {}", trace(&t, &lap));
        for m in &over {
            assert_eq!(m.penalty, m.overshoot.unwrap().1 as u32 * factor, "{tyres:?} wet {wet}");
        }
        assert_eq!(lap.result.overshoot, over.iter().map(|m| m.penalty).sum::<u32>());
        assert_eq!(factor, overshoot_factor(tyres, wet, 1) as u32);
    }
}

#[test]
fn q_8_2_1_soft_tyres_may_add_one_space_in_qualifying() {
    let (_, lap) = scripted(Tyres::Soft, false);
    assert!(lap.moves.iter().any(|m| m.bonus && m.spaces == m.roll + 1));
}

#[test]
fn q_1_1_10_a_completed_lap_counts_its_rolls_and_errors_add_ten() {
    let t = practice();
    let lap = Lap::new(&t, 3, Tyres::Hard, false).unwrap();
    let mut dice = steward::dice::LabelledDice::new(steward::dice::sim_key(4, "quali-test"), "q");
    let mut lap = play_lap(&t, lap, &mut steward::engine::bot::Bot::new(), &mut dice).unwrap();
    assert_eq!(lap.result.end, Some(LapEnd::Completed), "{}", trace(&t, &lap));
    assert_eq!(lap.result.rolls as usize, lap.moves.len());
    assert_eq!(lap.result.rolls as usize, dice.log.len());
    assert_eq!(lap.car().crossings, 2);
    let total = lap.result.total().unwrap();
    assert_eq!(total, lap.result.rolls + lap.result.overshoot);
    lap.add_error(); // 1-1-11
    assert_eq!(lap.result.total(), Some(total + 10));
    assert!(lap.roll(&t, 1, &mut FixedDice::new(vec![1])).is_err());
}

#[test]
fn q_1_1_bot_laps_end_on_every_shipped_track_dry_and_wet() {
    for name in shipped_names() {
        let t = resolve(&name).unwrap();
        for wet in [false, true] {
            let tyres = steward::engine::bot::tyres_for(wet);
            let lap = Lap::new(&t, 1, tyres, wet).unwrap();
            let mut dice = steward::dice::LabelledDice::new(steward::dice::sim_key(1, &name), "q");
            let lap = play_lap(&t, lap, &mut steward::engine::bot::Bot::new(), &mut dice).unwrap();
            assert!(lap.is_over(), "{name} wet {wet}: {}", trace(&t, &lap));
            assert_eq!(lap.result.rolls as usize, lap.moves.len());
        }
    }
}

#[test]
fn q_1_4_1_soft_tyres_two_spaces_out_and_a_placement_error() {
    let over = 2 * overshoot_factor(Tyres::Soft, false, 1) as u32;
    assert_eq!(over, 4);
    assert_eq!(grid::absolute_time(18, 1, over, 1), 33);
}

#[test]
fn q_1_4_2_rain_tyres_two_spaces_out_instead_of_three() {
    // Two rolls for two spaces: rain tyres on a wet track (factor 1), plus the error.
    let over = 2 * overshoot_factor(Tyres::Rain, true, 1) as u32;
    assert_eq!(grid::absolute_time(16, 1, over, 1), 29);
}

#[test]
fn q_1_4_3_entering_a_corner_instead_of_stopping_is_an_error() {
    assert_eq!(grid::absolute_time(17, 2, 0, 1), 29);
}

fn q(number: u8, best: Option<u32>, completed: u32) -> Qualified {
    Qualified { number, best, completed }
}

#[test]
fn q_1_3_2_grid_fewest_rolls_first_aborted_last_ties_by_completion() {
    let cars = [q(1, Some(20), 0), q(2, Some(19), 1), q(3, None, 2), q(4, Some(20), 3)];
    let mut dice = FixedDice::new(vec![]);
    assert_eq!(grid::from_qualifying(&cars, TieBreak::Completion, false, &mut dice), vec![2, 1, 4, 3]);
    assert!(dice.log.is_empty());
}

#[test]
fn q_1_3_2_ties_by_black_die_highest_first_rerolled() {
    let cars = [q(1, Some(20), 0), q(2, Some(19), 1), q(3, None, 2), q(4, Some(20), 3)];
    assert_eq!(
        grid::from_qualifying(&cars, TieBreak::BlackDie, false, &mut FixedDice::new(vec![5, 12])),
        vec![2, 4, 1, 3]
    );
    let mut dice = FixedDice::new(vec![7, 7, 3, 9]);
    assert_eq!(grid::from_qualifying(&cars, TieBreak::BlackDie, false, &mut dice), vec![2, 4, 1, 3]);
    assert!(dice.problems.is_empty() && dice.remaining().is_empty());
}

#[test]
fn q_003_2_aborted_laps_highest_black_die_last() {
    // 003-2: "If two or more players suffer this penalty then they must each throw the black
    // die, with the highest result positioned last on the grid, the next highest next to last,
    // and so on." Cars 3, 5 and 6 aborted; they roll 14, 3 and 9 (in car order): 5 (3), then 6
    // (9), then 3 (14) last. A tie (7, 7 for cars 5 and 6) is rolled again.
    let cars = [q(1, Some(20), 0), q(3, None, 1), q(5, None, 2), q(6, None, 3), q(2, Some(19), 4)];
    let mut dice = FixedDice::new(vec![14, 3, 9]);
    assert_eq!(grid::from_qualifying(&cars, TieBreak::Completion, true, &mut dice), vec![2, 1, 5, 6, 3]);
    let mut dice = FixedDice::new(vec![14, 7, 7, 12, 4]);
    assert_eq!(grid::from_qualifying(&cars, TieBreak::Completion, true, &mut dice), vec![2, 1, 6, 5, 3]);
    assert!(dice.problems.is_empty() && dice.remaining().is_empty());
    // The competition (1-1-14) ties them as the game says: by completion here, no die.
    let mut dice = FixedDice::new(vec![]);
    assert_eq!(grid::from_qualifying(&cars, TieBreak::Completion, false, &mut dice), vec![2, 1, 3, 5, 6]);
    // The switch is the Eurogames time trials' own.
    assert!(RuleSet::eurogames(&[Toggle::TimeTrials]).aborted_laps_by_black_die);
    let competition = [RuleSet::COMPETITION_2004, RuleSet::COMPETITION_2002];
    assert!(competition.iter().all(|r| !r.aborted_laps_by_black_die));
}

#[test]
fn q_1_3_2_best_lap_of_several_sessions_counts() {
    let t = practice();
    let mut a = Lap::new(&t, 5, Tyres::Hard, false).unwrap().result;
    a.end = Some(LapEnd::Completed);
    a.rolls = 20;
    let mut b = a;
    b.rolls = 18;
    let mut c = a;
    c.end = Some(LapEnd::Aborted { corner: 2 });
    assert_eq!(grid::best_of(5, &[(0, a), (4, b), (6, c)]), q(5, Some(18), 4));
    assert_eq!(grid::best_of(5, &[(6, c)]), q(5, None, 6));
}

#[test]
fn q_002_one_d20_per_car_lowest_first_ties_rerolled_qualifying_point_two_dice() {
    // Car 3 has a Qualifying Point: 15 and 6, keeps 6.
    let mut dice = FixedDice::new(vec![10, 4, 15, 6]);
    assert_eq!(grid::by_d20(&[(1, false), (2, false), (3, true)], &mut dice), vec![2, 3, 1]);
    let mut dice = FixedDice::new(vec![8, 8, 12, 3]);
    assert_eq!(grid::by_d20(&[(1, false), (2, false)], &mut dice), vec![2, 1]);
}

/// The box numbers (1-based along the lane) `choose_boxes` gives the cars on the grid.
fn boxes(t: &Track, wishes: &[&[usize]], order: PitChoice) -> Vec<usize> {
    let wishes: Vec<Vec<usize>> = wishes.iter().map(|w| w.to_vec()).collect();
    let got = choose_boxes(t, &wishes, order).unwrap();
    got.iter().map(|b| t.pit_boxes.iter().position(|x| Some(*x) == *b).unwrap() + 1).collect()
}

#[test]
fn q_002_pits_chosen_in_reverse_grid_order_after_a_d20_grid() {
    // 002 "Qualifying", 1) Normal method: "Pit assignments are then chosen in REVERSE order of
    // qualifying position (the car at the back of the grid chooses first, etc.)". Three cars all
    // want box 1: the last on the grid has it; the second, who wanted 1 then 2, has 2; the pole,
    // whose wish and whose own slot's box are both taken, has the first free box, 3 (ruling 48).
    let t = practice();
    assert_eq!(boxes(&t, &[&[1], &[1, 2], &[1]], PitChoice::ReverseGrid), vec![3, 2, 1]);
    // 4-0-1: "The pole sitter is the first one to pick a pit": the same wishes, pole first.
    assert_eq!(boxes(&t, &[&[1], &[1, 2], &[1]], PitChoice::GridOrder), vec![1, 2, 3]);
    // No wishes: each car has the box of its grid slot, in either order (games from before).
    for order in [PitChoice::GridOrder, PitChoice::ReverseGrid] {
        assert_eq!(boxes(&t, &[&[], &[], &[]], order), vec![1, 2, 3]);
    }
    // A car without wishes keeps its slot's box unless a car choosing before it took it.
    assert_eq!(boxes(&t, &[&[2], &[], &[]], PitChoice::GridOrder), vec![2, 1, 3]);
    assert_eq!(boxes(&t, &[&[], &[], &[2]], PitChoice::ReverseGrid), vec![3, 1, 2]);
    // A box the track does not have is refused, naming the boxes it has.
    let e = choose_boxes(&t, &[vec![11]], PitChoice::GridOrder).unwrap_err();
    assert!(e.to_string().contains("boxes 1 to 10"), "{e}");
}

#[test]
fn q_002_rotating_grid_pairs_add_up_and_rotate() {
    let race0 = grid::rotating(5, 2, 0).unwrap();
    assert_eq!(race0[0], vec![1, 10]);
    assert!(race0.iter().all(|p| p[0] + p[1] == 11));
    let mut firsts: Vec<usize> = (0..5).map(|r| grid::rotating(5, 2, r).unwrap()[0][0]).collect();
    firsts.sort();
    assert_eq!(firsts, vec![1, 2, 3, 4, 5]);
    assert_eq!(grid::rotating(3, 1, 1).unwrap(), vec![vec![2], vec![3], vec![1]]);
    assert!(grid::rotating(3, 3, 0).is_err());
    assert!(grid::rotating(0, 2, 0).is_err());
}

#[test]
fn q_004_sealed_bids_higher_first_ties_by_reveal_order_late_arrivals_last() {
    let revealed = [Bid { number: 1, points: 30 }, Bid { number: 2, points: 50 }, Bid { number: 3, points: 30 }];
    assert_eq!(grid::from_bids(&revealed, &[4, 5]), vec![2, 1, 3, 4, 5]);
    assert_eq!(grid::shuffle(3, &mut FixedDice::new(vec![4, 18, 9])), vec![1, 2, 0]);
}

#[test]
fn q_004_bid_budget_prorated_and_team_cap() {
    assert_eq!(grid::bid_allotment(1), 100);
    assert_eq!(grid::bid_allotment(2), 90);
    assert_eq!(grid::bid_allotment(3), 80);
    assert_eq!(grid::check_bid(95, 2, 0, 0), Err(grid::BidError::OverBudget { bid: 95, left: 90 }));
    assert_eq!(grid::check_bid(60, 1, 0, 150), Err(grid::BidError::OverTeamCap { bid: 60, cap: 200, left: 50 }));
    assert_eq!(grid::check_bid(40, 1, 60, 150), Ok(()));
    assert!(grid::check_bid(41, 1, 60, 0).unwrap_err().to_string().contains("40 qualifying points left"));
}

#[test]
fn steward_qualify_prints_a_table_and_a_grid_deterministically() {
    let args = ["qualify", "--track", "sprint", "--cars", "4", "--seed", "3", "--ties", "black-die"];
    let a = steward(&args);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let text = stdout(&a);
    assert!(text.contains("grid (1-3-2):"), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(". car ")).count(), 4, "{text}");
    assert_eq!(stdout(&steward(&args)), text);
    let bad = steward(&["qualify", "--weather", "fog"]);
    assert!(!bad.status.success());
}

#[test]
fn q_003_2_without_time_trials_the_grid_is_one_black_die_per_car() {
    // docs/profiles.md: the Eurogames profile with time trials (003-2) off has no timed laps.
    let args = ["qualify", "--track", "sprint", "--cars", "4", "--profile", "eurogames-advanced", "--toggles", "tyres"];
    let text = stdout(&steward(&args));
    assert!(text.contains("no time trials (advanced rule 2 is off)"), "{text}");
    assert!(!text.contains("overshoot"), "{text}");
    assert_eq!(text.lines().filter(|l| l.contains(". car ")).count(), 4, "{text}");
    let with = ["qualify", "--track", "sprint", "--cars", "4", "--profile", "eurogames-advanced"];
    assert!(stdout(&steward(&with)).contains("grid (1-3-2):"), "all seven toggles: timed laps");
}
