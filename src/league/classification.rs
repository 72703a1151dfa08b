//! A race's classification, pure (004 "Winning and Scoring"): how each car's race ended, as the
//! store's final state says, and the places it gives (finishers, then cars still running, then
//! the cars that did not finish, the most recent first). Scoring and the 002 series read it.

use serde::Serialize;

/// How one car's race ended, as the store's final state says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CarOutcome {
    /// The league driver (mail address) who drove it.
    pub driver: String,
    /// Finishing place (21), if it finished.
    pub finished: Option<u32>,
    /// The round it went out in (20) and how far it had run (race distance in spaces), if it was
    /// eliminated.
    pub out: Option<(u32, u64)>,
    /// How far it had run at the end (race distance in spaces), for a car still running when the
    /// race was ended early (ruling 37).
    pub distance: u64,
}

/// How a classified car ended.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    /// Crossed the line (21).
    Finished,
    /// Still running when the race was ended early (ruling 37).
    Running,
    /// Did not finish: out in this round (20).
    Dnf {
        /// Round of play it went out in.
        round: u32,
    },
}

/// One place of a race's classification.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Placed {
    /// The driver.
    pub driver: String,
    /// 1-based place.
    pub place: u32,
    /// How the car ended.
    pub ending: Ending,
}

/// The classification of a race (004 "Winning and Scoring"): finishers in finishing order;
/// then cars still running when the race was ended, farthest first (ruling 37); then the cars
/// that did not finish, the most recent first ("the most recent cars to be classified DNF will
/// be awarded the position points"); cars out in the same round by distance run, farthest first
/// (ruling 36); equal distance keeps the input order.
pub fn classify(cars: &[CarOutcome]) -> Vec<Placed> {
    let mut v: Vec<(usize, &CarOutcome)> = cars.iter().enumerate().collect();
    let rank = |c: &CarOutcome| -> (u8, u64, u64) {
        match (c.finished, c.out) {
            (Some(p), _) => (0, p as u64, 0),
            (None, None) => (1, u64::MAX - c.distance, 0),
            (None, Some((round, dist))) => (2, u64::MAX - round as u64, u64::MAX - dist),
        }
    };
    v.sort_by_key(|(i, c)| (rank(c), *i));
    v.into_iter()
        .enumerate()
        .map(|(i, (_, c))| Placed {
            driver: c.driver.clone(),
            place: i as u32 + 1,
            ending: match (c.finished, c.out) {
                (Some(_), _) => Ending::Finished,
                (None, None) => Ending::Running,
                (None, Some((round, _))) => Ending::Dnf { round },
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(d: &str, fin: Option<u32>, o: Option<(u32, u64)>, dist: u64) -> CarOutcome {
        CarOutcome { driver: d.into(), finished: fin, out: o, distance: dist }
    }

    #[test]
    fn finishers_then_running_then_latest_dnf() {
        let c = classify(&[
            out("a", None, Some((3, 40)), 40),
            out("b", Some(2), None, 200),
            out("c", None, Some((7, 90)), 90),
            out("d", Some(1), None, 200),
            out("e", None, Some((7, 95)), 95),
        ]);
        let order: Vec<&str> = c.iter().map(|p| p.driver.as_str()).collect();
        assert_eq!(order, ["d", "b", "e", "c", "a"]);
        assert_eq!(c[2].ending, Ending::Dnf { round: 7 });
    }
}
