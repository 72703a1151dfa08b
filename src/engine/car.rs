//! A car's sheet: its wear points (5) and tyres (8), and the check of a starting configuration.

use std::fmt;

use thiserror::Error;

use super::rulebook::{CAR_POINTS, Construction, FIXED_SHEET, PIT_POINTS, Rulebook, Tyres};

/// The six parts that carry wear points (PdV, 5-0-1).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Part {
    /// Pneus.
    Tyres,
    /// Freins.
    Brakes,
    /// Consommation.
    Gas,
    /// Carrosserie.
    Body,
    /// Moteur.
    Engine,
    /// Tenue de route.
    Handling,
}

impl Part {
    /// All parts, in sheet order.
    pub const ALL: [Part; 6] = [Part::Tyres, Part::Brakes, Part::Gas, Part::Body, Part::Engine, Part::Handling];

    /// Name used in files and mails.
    pub fn name(self) -> &'static str {
        match self {
            Part::Tyres => "tyres",
            Part::Brakes => "brakes",
            Part::Gas => "gas",
            Part::Body => "body",
            Part::Engine => "engine",
            Part::Handling => "handling",
        }
    }
}

/// Wear points left on each part.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct Wear {
    /// Tyre points.
    pub tyres: u8,
    /// Brake points.
    pub brakes: u8,
    /// Gas (fuel) points.
    pub gas: u8,
    /// Body points.
    pub body: u8,
    /// Engine points.
    pub engine: u8,
    /// Road-handling points.
    pub handling: u8,
}

impl Wear {
    /// Points on `part`.
    pub fn get(&self, part: Part) -> u8 {
        match part {
            Part::Tyres => self.tyres,
            Part::Brakes => self.brakes,
            Part::Gas => self.gas,
            Part::Body => self.body,
            Part::Engine => self.engine,
            Part::Handling => self.handling,
        }
    }

    /// Mutable points on `part`.
    pub fn get_mut(&mut self, part: Part) -> &mut u8 {
        match part {
            Part::Tyres => &mut self.tyres,
            Part::Brakes => &mut self.brakes,
            Part::Gas => &mut self.gas,
            Part::Body => &mut self.body,
            Part::Engine => &mut self.engine,
            Part::Handling => &mut self.handling,
        }
    }

    /// Sum of all points.
    pub fn total(&self) -> u16 {
        Part::ALL.iter().map(|&p| self.get(p) as u16).sum()
    }

    /// A balanced configuration of 20 points, used by bots and tests.
    pub fn standard() -> Self {
        Wear { tyres: 6, brakes: 4, gas: 3, body: 3, engine: 3, handling: 1 }
    }

    /// Part by part, the more of `self` and `other`.
    pub fn max(&self, other: &Wear) -> Wear {
        let mut w = *self;
        for p in Part::ALL {
            *w.get_mut(p) = self.get(p).max(other.get(p));
        }
        w
    }
}

impl fmt::Display for Wear {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tyres {} brakes {} gas {} body {} engine {} handling {}",
            self.tyres, self.brakes, self.gas, self.body, self.engine, self.handling
        )
    }
}

/// Why a car configuration is refused (5).
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum SetupError {
    /// A part with no point (5-0-2, 5-2: at least 1 each).
    #[error("{0} has no point: every part needs at least 1 (5-2)")]
    EmptyPart(&'static str),
    /// More points than the car may carry (5-0-2, 5-3: 20 plus the 2 pit points at most).
    #[error("the car carries {total} points; the most is {CAR_POINTS} plus the {PIT_POINTS} pit points = 22 (5-3)")]
    TooMany {
        /// Points configured.
        total: u16,
    },
    /// 003-5: exactly 20 points on the car, the pit keeps its own.
    #[error("the car carries {total} points; place exactly {CAR_POINTS} (advanced rule 5, car construction)")]
    NotTwenty {
        /// Points configured.
        total: u16,
    },
    /// Without 003-5 every car has the same sheet.
    #[error("this game plays without car construction (advanced rule 5 is off): every car has the sheet {0}")]
    NotTheFixedSheet(String),
    /// A tyre type the game does not play (003-3 off).
    #[error("this game plays without tyre types (advanced rule 3 is off): start on hard tyres")]
    TyreType,
    /// Fewer than the 20 points every car must use (5-0-2).
    #[error("the car carries {total} points; all {CAR_POINTS} must be placed on it (5-0-2), the pit keeps only its 2")]
    TooFew {
        /// Points configured.
        total: u16,
    },
}

impl Wear {
    /// The sheet every car has without the Eurogames car construction (003-5 off, ruling 32).
    pub fn fixed() -> Self {
        let [tyres, brakes, gas, body, engine, handling] = FIXED_SHEET;
        Wear { tyres, brakes, gas, body, engine, handling }
    }
}

/// A car's configuration before the start: its wear points and tyres. The pit keeps what the
/// car does not carry of its 2 pit points (5-3).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    /// Points on the car.
    pub wear: Wear,
    /// Starting tyres.
    pub tyres: Tyres,
}

impl Setup {
    /// Checks the configuration under `rules` and returns the points left at the pit: the
    /// competition's chapter 5, the Eurogames construction (003-5: exactly 20, at least 1 a part)
    /// or the fixed sheet (003-5 off), and the tyre types played (003-3).
    pub fn validate_for(&self, rules: &Rulebook) -> Result<u8, SetupError> {
        if !rules.tyres_allowed(self.tyres) {
            return Err(SetupError::TyreType);
        }
        match rules.set.construction {
            Construction::Competition => self.validate(),
            Construction::Fixed => {
                if self.wear == Wear::fixed() {
                    Ok(rules.pit_points())
                } else {
                    Err(SetupError::NotTheFixedSheet(Wear::fixed().to_string()))
                }
            }
            Construction::Eurogames => {
                for p in Part::ALL {
                    if self.wear.get(p) == 0 {
                        return Err(SetupError::EmptyPart(p.name()));
                    }
                }
                match self.wear.total() {
                    t if t == CAR_POINTS as u16 => Ok(rules.pit_points()),
                    total => Err(SetupError::NotTwenty { total }),
                }
            }
        }
    }

    /// Checks the configuration (5-0-2, 5-2, 5-3) and returns the points left at the pit.
    pub fn validate(&self) -> Result<u8, SetupError> {
        for p in Part::ALL {
            if self.wear.get(p) == 0 {
                return Err(SetupError::EmptyPart(p.name()));
            }
        }
        let total = self.wear.total();
        let max = (CAR_POINTS + PIT_POINTS) as u16;
        if total > max {
            return Err(SetupError::TooMany { total });
        }
        if total < CAR_POINTS as u16 {
            return Err(SetupError::TooFew { total });
        }
        Ok((max - total) as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eurogames_construction_and_the_fixed_sheet() {
        use crate::engine::rulebook::Toggle;
        let euro = Rulebook::eurogames(&[Toggle::Construction, Toggle::Pits, Toggle::Tyres]);
        let ok = Setup { wear: Wear::standard(), tyres: Tyres::Soft };
        assert_eq!(ok.validate_for(&euro), Ok(2), "003-5: 20 points, the pit keeps its 2 (003-7)");
        let mut w = Wear::standard();
        w.tyres += 2;
        assert_eq!(
            Setup { wear: w, tyres: Tyres::Hard }.validate_for(&euro),
            Err(SetupError::NotTwenty { total: 22 }),
            "003-5: no pit points on the car"
        );
        let mut w = Wear::standard();
        w.handling = 0;
        w.tyres += 1;
        assert_eq!(Setup { wear: w, tyres: Tyres::Hard }.validate_for(&euro), Err(SetupError::EmptyPart("handling")));
        let basic = Rulebook::eurogames(&[]);
        assert_eq!(Setup { wear: Wear::fixed(), tyres: Tyres::Hard }.validate_for(&basic), Ok(0));
        assert_eq!(Setup { wear: Wear::fixed(), tyres: Tyres::Rain }.validate_for(&basic), Err(SetupError::TyreType));
        let mut w = Wear::fixed();
        w.brakes += 1;
        w.tyres -= 1;
        assert!(matches!(
            Setup { wear: w, tyres: Tyres::Hard }.validate_for(&basic),
            Err(SetupError::NotTheFixedSheet(_))
        ));
        let comp = Rulebook::competition_2004();
        let mut w = Wear::standard();
        w.tyres += 2;
        assert_eq!(Setup { wear: w, tyres: Tyres::Soft }.validate_for(&comp), Ok(0), "5-3 as before");
    }

    #[test]
    fn configurations_follow_chapter_5() {
        let ok = Setup { wear: Wear::standard(), tyres: Tyres::Hard };
        assert_eq!(ok.validate(), Ok(2));
        let mut w = Wear::standard();
        w.tyres += 2;
        assert_eq!(Setup { wear: w, tyres: Tyres::Soft }.validate(), Ok(0), "5-3: 22 points, none left at the pit");
        w.tyres += 1;
        assert_eq!(Setup { wear: w, tyres: Tyres::Soft }.validate(), Err(SetupError::TooMany { total: 23 }));
        let mut w = Wear::standard();
        w.handling = 0;
        w.tyres += 1;
        assert_eq!(Setup { wear: w, tyres: Tyres::Hard }.validate(), Err(SetupError::EmptyPart("handling")));
        let mut w = Wear::standard();
        w.tyres -= 1;
        assert_eq!(Setup { wear: w, tyres: Tyres::Hard }.validate(), Err(SetupError::TooFew { total: 19 }));
    }
}
