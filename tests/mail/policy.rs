//! Standing orders over the engine's real options: whole races on shipped tracks where every
//! car plays by a policy, each decision checked against the rule it claims to follow and
//! accepted by the store's `pick` under the label it gives.

use steward::dice::{LabelledDice, sim_key};
use steward::engine::bot::Bot;
use steward::engine::order::advance;
use steward::engine::{Fate, MoveOption, RaceState, Rulebook, Step, resolve, roll};
use steward::orders::policy::{Decision, Facts, Instruction, Policy, Rule, apply, decide};
use steward::sim::field;
use steward::store::records::pick;
use steward::track::load::resolve as track;

fn wear(o: &MoveOption) -> u16 {
    o.brake_points() as u16 + o.tyre_points() as u16
}

fn free(o: &MoveOption) -> bool {
    wear(o) == 0 && o.fate == Fate::Continues && o.dangerous.is_empty()
}

fn index(d: Option<Decision>) -> Option<usize> {
    match d {
        Some(Decision::Take { index, label }) => {
            assert_eq!(label, MoveOption::label(index));
            Some(index)
        }
        _ => None,
    }
}

#[test]
fn policies_follow_their_rules_on_real_rolls() {
    let rules = Rulebook::competition_2004();
    let policy = Policy::of(&[Rule::FarthestFree, Rule::Safest, Rule::Bot]);
    let mut checked = 0;
    for name in ["monaco", "sprint"] {
        let t = track(name).unwrap();
        let mut bot = Bot::new();
        let mut state = RaceState::new(&t, 1, &field(6)).unwrap();
        let mut dice = LabelledDice::new(sim_key(11, name), "0");
        for moves in 1..400 {
            let (s, next, _) = advance(&t, &state);
            state = s;
            let Some(car) = next else { break };
            dice.set_turn(&moves.to_string());
            let gear = bot.gear(&t, &state, car);
            state = match roll(&t, &state, car, gear, &mut dice, &rules).unwrap() {
                Step::Done(o) => o.state,
                Step::Choose(r) => {
                    let o = &r.options;
                    if let Some(i) = index(apply(&Instruction::of(Rule::FarthestFree), o, &Facts::default())) {
                        assert!(free(&o[i]) && !o[..i].iter().any(free), "{name}: {i} of {o:?}");
                    } else {
                        assert!(!o.iter().any(free));
                    }
                    if let Some(i) = index(apply(&Instruction::of(Rule::Farthest), o, &Facts::default())) {
                        assert!(o[..=i].iter().filter(|x| !matches!(x.fate, Fate::Eliminated(_))).count() == 1);
                    }
                    if let Some(i) = index(apply(&Instruction::of(Rule::Safest), o, &Facts::default())) {
                        assert_eq!(o[i].fate, Fate::Continues);
                        assert!(o.iter().filter(|x| x.fate == Fate::Continues).all(|x| wear(x) >= wear(&o[i])));
                    }
                    let i = match decide(&policy, o) {
                        Some(Decision::Take { index, label }) => {
                            assert_eq!(pick(&t, &r, &label).unwrap(), index, "the store reads the label back");
                            index
                        }
                        Some(Decision::AskBot) => bot.option(&t, &r),
                        Some(Decision::Stop { .. }) => panic!("no option ends at a box here"),
                        Some(Decision::Ask) | None => panic!("a policy ending in BOT always decides"),
                    };
                    checked += 1;
                    resolve(&t, &r, i, &mut dice, &rules).unwrap().state
                }
            };
        }
    }
    assert!(checked > 50, "only {checked} decisions");
}
