//! The 002 series options whose numbers the text gives (ruling 43 for the rest): car
//! construction points fixed for the season (24 for three-lap races, 20 for two-lap races) with
//! the four-point conversion of a three-lap car for a two-lap race, and the driver points a
//! race earns (½ for a top-three finish, ½ for finishing). Pure functions.
//!
//! The 002 car sheet has eight categories and the drivers; it is not the 2004 car sheet
//! steward's games play (chapter 5's wear points), so these are checked and kept by the league
//! and not passed to the games (ruling 43); only the driver points are, when a driver joins a
//! race (`results::driver_points_for`, ruling 45).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::classification::{Ending, Placed};

/// The categories of the 002 car sheet: eight car categories and the driver.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Category {
    /// Tire points.
    Tires,
    /// Brake points.
    Brakes,
    /// Transmission points.
    Transmission,
    /// Engine points.
    Engine,
    /// Bodywork points.
    Bodywork,
    /// Suspension points.
    Suspension,
    /// Pit crew (shortens stops).
    PitCrew,
    /// The Qualifying Point.
    Qualifying,
    /// Driver points (re-rolls).
    Driver,
}

impl Category {
    /// 002 "Race Preparation": Driver Points, Pit Crew and Qualifying may not be adjusted for a
    /// two-lap race.
    pub fn convertible(self) -> bool {
        !matches!(self, Category::Driver | Category::PitCrew | Category::Qualifying)
    }
}

/// Construction points a team allocates for a series of `laps`-lap races (002 "Car
/// Construction": 24 for three laps, 20 for two); `None` for other lengths, of which the text
/// says nothing.
pub fn construction_points(laps: u16) -> Option<u32> {
    match laps {
        3 => Some(24),
        2 => Some(20),
        _ => None,
    }
}

/// Points removed from a three-lap car before a two-lap race (002).
pub const CONVERSION_POINTS: u32 = 4;

/// Why a car design or its conversion is refused (002 "Car Construction", "Race Preparation").
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DesignError {
    /// The total is not the series' allotment.
    #[error("the design spends {spent} construction points; a {laps}-lap series allots {allotted} (002)")]
    Total {
        /// Points spent.
        spent: u32,
        /// Allotted.
        allotted: u32,
        /// Race length.
        laps: u16,
    },
    /// No allotment for that race length.
    #[error("002 gives construction points for 2- and 3-lap races only, not {0} laps")]
    Length(u16),
    /// Not four points from four categories.
    #[error(
        "a three-lap car gives up 4 points from 4 different categories before a two-lap race, not {0} (002 \"Race Preparation\")"
    )]
    Conversion(String),
}

/// Checks a team's allocation against the series' allotment.
pub fn check_design(design: &BTreeMap<Category, u32>, laps: u16) -> Result<(), DesignError> {
    let allotted = construction_points(laps).ok_or(DesignError::Length(laps))?;
    let spent: u32 = design.values().sum();
    if spent != allotted {
        return Err(DesignError::Total { spent, allotted, laps });
    }
    Ok(())
}

/// A three-lap design converted for a two-lap race (002): one point off each of four different
/// categories, none of them Driver, Pit Crew or Qualifying, each with a point to give.
pub fn convert_for_two_laps(
    design: &BTreeMap<Category, u32>,
    removed: &[Category],
) -> Result<BTreeMap<Category, u32>, DesignError> {
    let mut distinct = removed.to_vec();
    distinct.sort();
    distinct.dedup();
    if removed.len() != CONVERSION_POINTS as usize || distinct.len() != removed.len() {
        return Err(DesignError::Conversion(format!("{removed:?}")));
    }
    let mut out = design.clone();
    for c in removed {
        if !c.convertible() {
            return Err(DesignError::Conversion(format!("{c:?}, which may not be adjusted")));
        }
        match out.get_mut(c) {
            Some(v) if *v > 0 => *v -= 1,
            _ => return Err(DesignError::Conversion(format!("{c:?}, which has no point"))),
        }
    }
    Ok(out)
}

/// Driver points a race earns, in halves (002 "Finishing Results"): ½ for each of the first
/// three finishers, and ½ for everyone who finishes. A car that did not finish earns nothing,
/// even when it is classified for the championship points (004).
pub fn driver_points_halves(p: &Placed) -> u32 {
    if p.ending != Ending::Finished {
        return 0;
    }
    1 + u32::from(p.place <= 3)
}

/// Driver points (in halves) `driver` has earned over `races`; they carry from race to race
/// until spent (002); a game's player spends them on re-rolls (ruling 45,
/// `results::driver_points_for`).
pub fn earned(driver: &str, races: &[Vec<Placed>]) -> u32 {
    races.iter().flat_map(|r| r.iter().filter(|p| p.driver == driver)).map(driver_points_halves).sum()
}
