//! The languages of mail: each player chooses (`LANG fr`); the daemon has a default.

use serde::{Deserialize, Serialize};

/// A language steward writes.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// French.
    Fr,
}

impl Lang {
    /// `en` or `fr` (also `english`, `anglais`, `french`, `francais`, `français`).
    pub fn parse(s: &str) -> Option<Lang> {
        match s.trim().to_lowercase().as_str() {
            "en" | "english" | "anglais" => Some(Lang::En),
            "fr" | "french" | "francais" | "français" => Some(Lang::Fr),
            _ => None,
        }
    }

    /// The code used in file names and orders.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Fr => "fr",
        }
    }
}
