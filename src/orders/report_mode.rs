//! Report modes as a player writes them (`REPORTS MINE|ROUND|ALL|NONE`, docs/orders.md): the
//! word of the order language, read by the parser and kept in the judge's standing state
//! (`judge::modes` decides which jobs mail whom).

use crate::words::Lang;

/// When a player gets a report besides the replies to their own mails.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum ReportMode {
    /// When something is theirs to do (gear, choice, pit decision), the start, the end, a
    /// moderator's action or an event that hit their car; each mail condenses everything
    /// since their previous one. The default.
    #[default]
    Mine,
    /// One condensed digest a round, plus their own prompts, the start and the end.
    Round,
    /// Every turn as it is played, in full (steward's behaviour before report modes).
    All,
    /// Nothing unasked: only the replies to their own mails (and reminders, copies, welcomes).
    None,
}

impl ReportMode {
    /// Every mode.
    pub const ALL: [ReportMode; 4] = [ReportMode::Mine, ReportMode::Round, ReportMode::All, ReportMode::None];

    /// Reads a folded word (lower case, no accents) of either language.
    pub fn parse(folded: &str) -> Option<ReportMode> {
        match folded {
            "mine" | "my" | "miens" | "mien" | "miennes" | "mienne" | "moi" => Some(ReportMode::Mine),
            "round" | "rounds" | "tour" | "tours" | "manche" => Some(ReportMode::Round),
            "all" | "every" | "tous" | "tout" | "toutes" => Some(ReportMode::All),
            "none" | "no" | "off" | "aucun" | "aucune" | "rien" => Some(ReportMode::None),
            _ => None,
        }
    }

    /// The code kept in the standing state (`mine`, `round`, `all`, `none`).
    pub fn code(self) -> &'static str {
        match self {
            ReportMode::Mine => "mine",
            ReportMode::Round => "round",
            ReportMode::All => "all",
            ReportMode::None => "none",
        }
    }

    /// Reads [`ReportMode::code`]; an unknown code is the default.
    pub fn from_code(code: Option<&str>) -> ReportMode {
        code.and_then(ReportMode::parse).unwrap_or_default()
    }

    /// The word written in `REPORTS <mode>`, in `lang`.
    pub fn word(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (ReportMode::Mine, Lang::En) => "MINE",
            (ReportMode::Round, Lang::En) => "ROUND",
            (ReportMode::All, Lang::En) => "ALL",
            (ReportMode::None, Lang::En) => "NONE",
            (ReportMode::Mine, Lang::Fr) => "MIENS",
            (ReportMode::Round, Lang::Fr) => "TOUR",
            (ReportMode::All, Lang::Fr) => "TOUS",
            (ReportMode::None, Lang::Fr) => "AUCUN",
        }
    }

    /// What the mode sends, for the receipt.
    pub fn explain(self, lang: Lang) -> &'static str {
        match (self, lang) {
            (ReportMode::Mine, Lang::En) => {
                "a report when something is yours to do, at the start and the end, and when something hits your car; each tells everything since your previous mail"
            }
            (ReportMode::Round, Lang::En) => "one digest a round, plus your own prompts, the start and the end",
            (ReportMode::All, Lang::En) => "a report after every move of every car",
            (ReportMode::None, Lang::En) => "no report but the replies to your own mails",
            (ReportMode::Mine, Lang::Fr) => {
                "un rapport quand c'est à vous de jouer, au départ, à l'arrivée et quand votre voiture est touchée ; chacun raconte tout depuis votre courrier précédent"
            }
            (ReportMode::Round, Lang::Fr) => {
                "un résumé par tour de jeu, plus vos propres demandes, le départ et l'arrivée"
            }
            (ReportMode::All, Lang::Fr) => "un rapport après chaque coup de chaque voiture",
            (ReportMode::None, Lang::Fr) => "aucun rapport, sauf les reponses a vos propres messages",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_read_in_both_languages() {
        for m in ReportMode::ALL {
            assert_eq!(ReportMode::parse(&m.word(Lang::En).to_lowercase()), Some(m));
            assert_eq!(ReportMode::parse(&m.word(Lang::Fr).to_lowercase()), Some(m));
            assert_eq!(ReportMode::from_code(Some(m.code())), m);
        }
        assert_eq!(ReportMode::parse("everything"), None);
        assert_eq!(ReportMode::from_code(None), ReportMode::Mine);
    }
}
