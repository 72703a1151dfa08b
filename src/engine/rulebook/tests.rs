//! The rulebook's own tests: profiles and toggles parse, and the tables hold what the articles say.

use super::*;

#[test]
fn profiles_and_toggles_parse_with_typed_errors() {
    assert_eq!(Rulebook::from_setup::<&str>("competition-2004", &[]), Ok(Rulebook::competition_2004()));
    assert_eq!(Rulebook::from_setup::<&str>("competition-2002", &[]).map(|r| r.set), Ok(RuleSet::COMPETITION_2002));
    let r = Rulebook::from_setup("eurogames-advanced", &["weather", "tyres"]).unwrap();
    assert_eq!(r.toggles, vec![Toggle::Tyres, Toggle::Weather], "kept in the booklet's order");
    assert!(r.set.tyre_types && r.set.weather && !r.set.slipstream && !r.set.road_holding && !r.set.repairs);
    assert_eq!(r.spec(), "eurogames-advanced:tyres,weather");
    let (p, t) = Rulebook::split_spec(&r.spec());
    assert_eq!(Rulebook::from_setup(&p, &t), Ok(r));
    assert_eq!(Rulebook::from_setup::<&str>("basic", &[]), Err(ProfileError::UnknownProfile("basic".into())));
    assert_eq!(
        Rulebook::from_setup("eurogames-advanced", &["turbo"]),
        Err(ProfileError::UnknownToggle("turbo".into()))
    );
    assert!(matches!(
        Rulebook::from_setup("competition-2004", &["tyres"]),
        Err(ProfileError::ToggleWithoutEurogames { .. })
    ));
    assert_eq!(
        Rulebook::from_setup("eurogames-advanced", &["pits", "pits"]),
        Err(ProfileError::Duplicate("pits".into()))
    );
    let all = Rulebook::from_cli("eurogames-advanced", None).unwrap();
    assert_eq!(all.toggles, Toggle::ALL.to_vec());
    assert_eq!(all.set.construction, Construction::Eurogames);
    let none = Rulebook::from_cli("eurogames-advanced", Some(&[])).unwrap();
    assert_eq!(none.set.construction, Construction::Fixed);
    assert_eq!(none.pit_points(), 0);
    assert!(!none.tyres_allowed(Tyres::Soft) && none.tyres_allowed(Tyres::Hard));
}

#[test]
fn the_2002_switches_are_exactly_the_2004_changes() {
    // shared/rules/README.md lists ten 2004 changes; they map onto eight switches, all off in
    // 2002 (16-0-9 is kept for both editions, ruling 33), and nothing else differs.
    let (a, b) = (RuleSet::COMPETITION_2004, RuleSet::COMPETITION_2002);
    let differ = [
        a.bonus_and_brakes != b.bonus_and_brakes,
        a.low_break_off_at_once != b.low_break_off_at_once,
        a.tyres_in_inertia != b.tyres_in_inertia,
        a.pit_lane_gear != b.pit_lane_gear,
        a.no_first_from_box != b.no_first_from_box,
        a.same_tyres_by_default != b.same_tyres_by_default,
        a.quick_exit_brakes != b.quick_exit_brakes,
        a.quick_exit_stop != b.quick_exit_stop,
    ];
    assert!(differ.iter().all(|&d| d));
    let undone = RuleSet {
        bonus_and_brakes: true,
        low_break_off_at_once: true,
        tyres_in_inertia: true,
        pit_lane_gear: true,
        no_first_from_box: true,
        same_tyres_by_default: true,
        quick_exit_brakes: true,
        quick_exit_stop: true,
        ..b
    };
    assert_eq!(undone, a);
    assert_eq!(RuleSet::eurogames(&Toggle::ALL).construction, Construction::Eurogames);
    assert!(RuleSet::eurogames(&Toggle::ALL).slipstream_no_stop && !a.slipstream_no_stop);
}

#[test]
fn dice_ranges_match_the_gear_table() {
    let ranges: Vec<(u8, u8)> = (1..=6).map(|g| Die::Gear(g).range()).collect();
    assert_eq!(ranges, vec![(1, 2), (2, 4), (4, 8), (7, 12), (11, 20), (21, 30)]);
    assert_eq!(Die::Black.range(), (1, 20));
    assert_eq!(Die::Gear(2).faces().iter().filter(|&&f| f == 4).count(), 3);
}

#[test]
fn blocking_table_matches_12_0_1() {
    assert_eq!(blocking_cost(4), Some((3, 1)));
    assert_eq!(blocking_cost(5), Some((3, 2)));
    assert_eq!(blocking_cost(6), Some((3, 3)));
    assert_eq!(blocking_cost(7), None);
}

#[test]
fn overshoot_factors_match_10_0_3() {
    // 10-0-3: three spaces cost 3 hard, 6 soft (1st/2nd lap), 9 soft (3rd), 3 rain on wet,
    // 6 rain on dry (1st/2nd), 9 rain on dry (3rd).
    assert_eq!(3 * overshoot_factor(Tyres::Hard, false, 1), 3);
    assert_eq!(3 * overshoot_factor(Tyres::Soft, false, 2), 6);
    assert_eq!(3 * overshoot_factor(Tyres::Soft, false, 3), 9);
    assert_eq!(3 * overshoot_factor(Tyres::Rain, true, 3), 3);
    assert_eq!(3 * overshoot_factor(Tyres::Rain, false, 1), 6);
    assert_eq!(3 * overshoot_factor(Tyres::Rain, false, 3), 9);
}

#[test]
fn slipstream_table_matches_18_4() {
    // 18-4: rows B in 1-3, 4, 5, 6; columns A in 1-3, 4, 5, 6.
    let row = |b: u8| [3u8, 4, 5, 6].map(|a| slipstream_allowed(b, a));
    assert_eq!(row(3), [false, false, false, false]);
    assert_eq!(row(4), [false, true, false, false]);
    assert_eq!(row(5), [false, true, true, false]);
    assert_eq!(row(6), [false, true, true, true]);
    assert!(!slipstream_allowed(1, 1) && !slipstream_allowed(2, 1));
}
