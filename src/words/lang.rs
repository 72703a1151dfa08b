//! The languages a player reads steward in (`LANG en|fr`): every mail, receipt and error is
//! written in the player's language, English by default.

/// A language of the receipts and of the examples in error messages.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    /// English.
    #[default]
    En,
    /// French.
    Fr,
}

impl Lang {
    /// Reads `en`/`fr` (and `english`, `anglais`, `french`, `francais`, `français`).
    pub fn parse(folded: &str) -> Option<Lang> {
        match folded {
            "en" | "eng" | "english" | "anglais" => Some(Lang::En),
            "fr" | "fra" | "french" | "francais" => Some(Lang::Fr),
            _ => None,
        }
    }

    /// The code written in `LANG`.
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Fr => "fr",
        }
    }
}
