//! Why a line of orders is refused, in words a player can act on: every message ends with what
//! to write instead, in the player's language.

use thiserror::Error;

use super::keyword::Kw;
use crate::engine::car::SetupError;
use crate::words::Lang;

/// A refused line. The English text is the `Display`; [`OrderError::message`] gives either
/// language.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{}", self.message(Lang::En))]
pub enum OrderError {
    /// The first word is no keyword.
    Unknown { word: String, suggestion: Option<Kw> },
    /// A word the order needs is missing.
    Missing { order: Kw, what: Arg },
    /// A number out of range, or not a number.
    Range { order: Kw, what: Arg, got: String, min: u32, max: u32 },
    /// A word the order does not take.
    Unexpected { order: Kw, got: String },
    /// An argument that is not one of the words allowed.
    Invalid { order: Kw, what: Arg, got: String },
    /// `SETUP` without all six parts (5-0-1).
    MissingParts { parts: Vec<&'static str> },
    /// `SETUP` names a part twice.
    PartTwice { part: &'static str },
    /// `SETUP` that chapter 5 refuses.
    Setup(SetupError),
    /// A second `GAME`, `CAR`, `TOKEN` or `TURN` line with another value.
    Conflict {
        /// The header.
        order: Kw,
        /// The line that gave it first.
        line: usize,
    },
    /// A quick stop only changes tyres (19-3-1): repairs need a long stop.
    QuickRepair,
    /// `POLICY NONE` with other rules.
    NoneWithRules,
}

/// What an argument is, to name it in a message.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Arg {
    /// A game's name.
    GameId,
    /// A car number.
    CarNumber,
    /// A secret token or password.
    Secret,
    /// A turn number.
    TurnNumber,
    /// A gear.
    Gear,
    /// An option's label or a space id.
    Choice,
    /// A tyre type.
    TyreType,
    /// A weather setting.
    Weather,
    /// A grid method.
    Grid,
    /// When the weather is checked.
    Checks,
    /// Yes or no.
    YesNo,
    /// A pit stop type.
    StopType,
    /// A part of the car.
    Part,
    /// Wear points.
    Points,
    /// A standing-order rule.
    Rule,
    /// A condition of a driving instruction.
    Condition,
    /// A lane.
    Lane,
    /// A game's pace: deadlines per round or per move.
    Pace,
    /// A time zone.
    TimeZone,
    /// A time of day.
    TimeOfDay,
    /// A number of minutes.
    Minutes,
    /// A language code.
    Language,
    /// A report mode.
    ReportMode,
    /// A track name.
    Track,
    /// A number of laps.
    Laps,
    /// A number of hours.
    Hours,
    /// A mail address.
    Address,
    /// A rule profile's name.
    Profile,
    /// A number of entries to resend.
    Count,
    /// The entropy phrase.
    Phrase,
    /// A league action.
    LeagueAction,
    /// A league race's grid method.
    LeagueGrid,
    /// A pit box's number.
    PitBox,
    /// The order the boxes are chosen in.
    PitChoice,
    /// A date, `YYYY-MM-DD`.
    Date,
    /// A confirmation code.
    Code,
    /// A public beacon (CREATE) or its value (START).
    Beacon,
}

impl Arg {
    fn name(self, lang: Lang) -> &'static str {
        let (en, fr) = match self {
            Arg::GameId => ("a game name", "un nom de partie"),
            Arg::CarNumber => ("a car number", "un numéro de voiture"),
            Arg::Secret => ("a secret word", "un mot secret"),
            Arg::TurnNumber => ("a turn number", "un numéro de tour"),
            Arg::Gear => ("a gear", "une vitesse"),
            Arg::Choice => ("an option's letter or a space", "la lettre d'une option ou une case"),
            Arg::TyreType => ("a tyre type", "un type de pneus"),
            Arg::Weather => ("a weather setting", "une météo"),
            Arg::Grid => ("a grid method", "une méthode de grille"),
            Arg::Checks => ("a weather check rule", "une règle de contrôle météo"),
            Arg::YesNo => ("yes or no", "oui ou non"),
            Arg::StopType => ("QUICK or LONG", "RAPIDE ou LONG"),
            Arg::Part => ("a part", "une partie"),
            Arg::Points => ("a number of points", "un nombre de points"),
            Arg::Rule => ("a rule", "une règle"),
            Arg::Condition => ("a condition", "une condition"),
            Arg::Lane => ("a lane", "un couloir"),
            Arg::Pace => ("a pace", "un rythme"),
            Arg::TimeZone => (
                "a time zone like Europe/Paris or America/New_York",
                "un fuseau horaire comme Europe/Paris ou America/New_York",
            ),
            Arg::TimeOfDay => ("a time of day like 20:00", "une heure comme 20:00"),
            Arg::Minutes => ("a number of minutes", "un nombre de minutes"),
            Arg::Language => ("a language", "une langue"),
            Arg::ReportMode => ("a report mode", "un mode de courrier"),
            Arg::Track => ("a track", "un circuit"),
            Arg::Laps => ("a number of laps", "un nombre de tours"),
            Arg::Hours => ("a number of hours", "un nombre d'heures"),
            Arg::Beacon => (
                "a beacon: DRAND <round> or NIST <minute, like 2026-12-10T20:00:00Z>, and at START its value (64 or 128 hex digits)",
                "une balise : DRAND <tirage> ou NIST <minute, comme 2026-12-10T20:00:00Z>, et au départ sa valeur (64 ou 128 chiffres hexadécimaux)",
            ),
            Arg::Address => ("a mail address", "une adresse mail"),
            Arg::LeagueAction => {
                ("ENTER, WITHDRAW, TEAM, RACE or STANDINGS", "INSCRIRE, RETIRER, EQUIPE, COURSE ou CLASSEMENT")
            }
            Arg::LeagueGrid => ("qualifying, d20, rotating or bids", "qualifying, d20, rotating ou bids"),
            Arg::Profile => ("a rule profile", "un profil de règles"),
            Arg::PitBox => ("a pit box number", "un numéro de box"),
            Arg::PitChoice => ("the order the boxes are chosen in", "l'ordre du choix des boxes"),
            Arg::Count => ("a count", "un nombre"),
            Arg::Phrase => ("some words", "quelques mots"),
            Arg::Date => ("a date like 2026-12-20", "une date comme 2026-12-20"),
            Arg::Code => ("the confirmation code", "le code de confirmation"),
        };
        if lang == Lang::Fr { fr } else { en }
    }

    /// The words allowed, when they are a closed list.
    fn allowed(self, lang: Lang) -> Option<&'static str> {
        match (self, lang) {
            (Arg::TyreType, Lang::En) => Some("HARD, SOFT or RAIN"),
            (Arg::TyreType, Lang::Fr) => Some("DURS, TENDRES ou PLUIE"),
            (Arg::Weather, Lang::En) => Some("TRACK, SUN, RAIN or CHANGEABLE"),
            (Arg::Weather, Lang::Fr) => Some("PISTE, SOLEIL, PLUIE ou VARIABLE"),
            (Arg::Grid, Lang::En) => Some("JOIN, QUALIFYING or QUALIFYING-BLACK-DIE"),
            (Arg::Grid, Lang::Fr) => Some("INSCRIPTION, ESSAIS ou ESSAIS-NOIR"),
            (Arg::PitChoice, Lang::En) => Some("GRID or REVERSE-GRID"),
            (Arg::PitChoice, Lang::Fr) => Some("GRILLE ou GRILLE-INVERSE"),
            (Arg::Checks, Lang::En) => Some("LAP-THIRDS or ROLLS"),
            (Arg::Checks, Lang::Fr) => Some("TIERS ou JETS"),
            (Arg::YesNo, Lang::En) => Some("YES or NO"),
            (Arg::YesNo, Lang::Fr) => Some("OUI ou NON"),
            (Arg::StopType, Lang::En) => Some("QUICK or LONG"),
            (Arg::StopType, Lang::Fr) => Some("RAPIDE ou LONG"),
            (Arg::Part, Lang::En) => Some("tyres, brakes, gas, body, engine, handling"),
            (Arg::Part, Lang::Fr) => Some("pneus, freins, conso, carrosserie, moteur, tenue"),
            (Arg::Rule, Lang::En) => Some("FARTHEST-FREE, FARTHEST, SAFEST, BOT, PIT, ASK or NONE"),
            (Arg::Rule, Lang::Fr) => Some("LOIN-GRATUIT, LOIN, SUR, BOT, STAND, DEMANDER ou AUCUNE"),
            (Arg::Condition, Lang::En) => {
                Some("BRAKES<=n, TYRES<=n, WEAR<=n, NO-OVERSHOOT, NO-DANGER, SLIPSTREAM YES|NO, LANE LEFT|MIDDLE|RIGHT")
            }
            (Arg::Condition, Lang::Fr) => Some(
                "FREINS<=n, PNEUS<=n, USURE<=n, SANS-SORTIE, SANS-DANGER, ASPIRATION OUI|NON, COULOIR GAUCHE|MILIEU|DROITE",
            ),
            (Arg::Pace, Lang::En) => Some("ROUND or MOVE"),
            (Arg::Pace, Lang::Fr) => Some("TOUR ou COUP"),
            (Arg::Lane, Lang::En) => Some("LEFT, MIDDLE or RIGHT"),
            (Arg::Lane, Lang::Fr) => Some("GAUCHE, MILIEU ou DROITE"),
            (Arg::Language, _) => Some("en, fr"),
            (Arg::ReportMode, Lang::En) => Some("MINE, ROUND, ALL or NONE"),
            (Arg::ReportMode, Lang::Fr) => Some("MIENS, TOUR, TOUS ou AUCUN"),
            _ => None,
        }
    }
}

impl OrderError {
    /// The message in `lang`, ending with what to write instead.
    pub fn message(&self, lang: Lang) -> String {
        let fr = lang == Lang::Fr;
        let write = if fr { "écrivez" } else { "write" };
        match self {
            OrderError::Unknown { word, suggestion: Some(k) } => {
                if fr {
                    format!(
                        "« {word} » n'est pas un ordre ; vouliez-vous dire {} ? {write} {}",
                        k.word(lang),
                        k.example(lang)
                    )
                } else {
                    format!("'{word}' is not an order; did you mean {}? {write} {}", k.word(lang), k.example(lang))
                }
            }
            OrderError::Unknown { word, suggestion: None } => {
                if fr {
                    format!(
                        "« {word} » n'est pas un ordre : écrivez AIDE pour la liste, ou FIN après votre dernier ordre"
                    )
                } else {
                    format!("'{word}' is not an order: write HELP for the list, or END after your last order")
                }
            }
            OrderError::Missing { order, what } => {
                let o = order.word(lang);
                if fr {
                    format!("{o} attend {} : {write} {}", what.name(lang), order.example(lang))
                } else {
                    format!("{o} needs {}: {write} {}", what.name(lang), order.example(lang))
                }
            }
            OrderError::Range { order, what, got, min, max } => {
                let o = order.word(lang);
                if fr {
                    format!(
                        "{o} : {} de {min} à {max}, pas « {got} » : {write} {}",
                        what.name(lang),
                        order.example(lang)
                    )
                } else {
                    format!(
                        "{o} takes {} from {min} to {max}, not '{got}': {write} {}",
                        what.name(lang),
                        order.example(lang)
                    )
                }
            }
            OrderError::Unexpected { order, got } => {
                let o = order.word(lang);
                if fr {
                    format!("{o} ne prend pas « {got} » : {write} {}", order.example(lang))
                } else {
                    format!("{o} does not take '{got}': {write} {}", order.example(lang))
                }
            }
            OrderError::Invalid { order, what, got } => {
                let o = order.word(lang);
                let allowed = what.allowed(lang).map(|a| format!(" ({a})")).unwrap_or_default();
                if fr {
                    format!("{o} : « {got} » n'est pas {}{allowed} : {write} {}", what.name(lang), order.example(lang))
                } else {
                    format!("{o}: '{got}' is not {}{allowed}: {write} {}", what.name(lang), order.example(lang))
                }
            }
            OrderError::MissingParts { parts } => {
                let ex = Kw::Setup.example(lang);
                if fr {
                    format!(
                        "la configuration doit donner les six parties (5-0-1), il manque {} : {write} {ex}",
                        parts.join(", ")
                    )
                } else {
                    format!("SETUP needs all six parts (5-0-1), missing {}: {write} {ex}", parts.join(", "))
                }
            }
            OrderError::PartTwice { part } => {
                let ex = Kw::Setup.example(lang);
                if fr {
                    format!("{part} est donné deux fois : {write} {ex}")
                } else {
                    format!("{part} is given twice: {write} {ex}")
                }
            }
            OrderError::Setup(e) => {
                let ex = Kw::Setup.example(lang);
                if fr {
                    let why = match e {
                        SetupError::EmptyPart(p) => format!("{p} n'a aucun point, il en faut au moins 1 (5-2)"),
                        SetupError::TooMany { total } => {
                            format!("{total} points, c'est trop : 20 plus les 2 du stand au plus (5-3)")
                        }
                        SetupError::TooFew { total } => format!("{total} points : les 20 doivent être placés (5-0-2)"),
                        SetupError::NotTwenty { total } => {
                            format!("{total} points : placez-en exactement 20 (règle avancée 5)")
                        }
                        SetupError::NotTheFixedSheet(w) => {
                            format!("cette partie se joue sans construction de voiture (règle avancée 5) : {w}")
                        }
                        SetupError::TyreType => {
                            "cette partie se joue sans types de pneus (règle avancée 3) : pneus durs".to_string()
                        }
                    };
                    format!("{why} : {write} {ex}")
                } else {
                    format!("{e}: {write} {ex}")
                }
            }
            OrderError::Conflict { order, line } => {
                let o = order.word(lang);
                if fr {
                    format!("{o} est déjà donné ligne {line} avec une autre valeur : gardez une seule ligne {o}")
                } else {
                    format!("{o} is already given on line {line} with another value: keep one {o} line")
                }
            }
            OrderError::QuickRepair => {
                if fr {
                    "un arrêt rapide ne change que les pneus (19-3-1) : écrivez STAND LONG REPARER freins 2".to_string()
                } else {
                    "a quick stop only changes tyres (19-3-1): write PIT LONG REPAIR brakes 2".to_string()
                }
            }
            OrderError::NoneWithRules => {
                if fr {
                    "AUCUNE efface la consigne et s'écrit seule : écrivez CONSIGNE AUCUNE".to_string()
                } else {
                    "NONE clears the policy and stands alone: write POLICY NONE".to_string()
                }
            }
        }
    }
}
