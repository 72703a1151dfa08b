//! The words of the order language in English and French, in one table, so the parser, the
//! error messages ("write GEAR 4" / "écrivez VITESSE 4") and docs/orders.md agree.

use crate::words::Lang;

/// An order's keyword (the first word of its line).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Kw {
    /// `GAME` / `PARTIE`.
    Game,
    /// `CAR` / `VOITURE`.
    Car,
    /// `TOKEN` / `JETON`.
    Token,
    /// `TURN` / `TOUR`.
    Turn,
    /// `JOIN` / `REJOINDRE`.
    Join,
    /// `SETUP` / `CONFIG`.
    Setup,
    /// `TYRES` / `PNEUS`.
    Tyres,
    /// `BOXES` / `BOXES`: the pit boxes wanted, best first (4-0-1, ruling 48).
    Boxes,
    /// `GEAR` / `VITESSE`.
    Gear,
    /// `CHOOSE` / `CHOIX`.
    Choose,
    /// `REROLL` / `RELANCER`: a driver point re-rolls the gear die (002, ruling 45).
    Reroll,
    /// `PIT` / `STAND`.
    Pit,
    /// `POLICY` / `CONSIGNE`.
    Policy,
    /// `DRIVE` / `PILOTER`: the instructions for the car's next move only (issue 46).
    Drive,
    /// `LAP` / `CHRONO`: the instructions for the car's whole timed lap (issue 46).
    Lap,
    /// `BOARD` / `PLATEAU`.
    Board,
    /// `HISTORY` / `HISTORIQUE`.
    History,
    /// `HELP` / `AIDE`.
    Help,
    /// `STANDINGS` / `CLASSEMENT`.
    Standings,
    /// `TIMEZONE` / `FUSEAU`: the time zone deadlines are written in (issue 46).
    TimeZone,
    /// `LANG` / `LANGUE`.
    Lang,
    /// `REPORTS` / `COURRIER`: which reports the player gets (docs/orders.md).
    Reports,
    /// `CREATE` / `CREER`.
    Create,
    /// `LEAGUE` / `LIGUE`: a league edit (moderators) or its standings.
    League,
    /// `START` / `DEMARRER`.
    Start,
    /// `PAUSE`.
    Pause,
    /// `RESUME` / `REPRENDRE`.
    Resume,
    /// `DEADLINE` / `DELAI`.
    Deadline,
    /// `REPLACE` / `REMPLACER`.
    Replace,
    /// `FORCE` / `FORCER`.
    Force,
    /// `REVEAL` / `REVELER`.
    Reveal,
    /// `END` / `FIN`: stop reading the mail here.
    End,
    /// `LIST` / `LISTE`: the games open for joining and running (no token).
    List,
    /// `WATCH` / `SUIVRE`: receive a game's reports as an observer.
    Watch,
    /// `UNWATCH` / `NE-PLUS-SUIVRE`: stop observing a game.
    Unwatch,
    /// `ABSENT`: the car is played by its policy or the bot between two dates.
    Absent,
    /// `RETIRE` / `ABANDON`: the car leaves the race, a DNF (ruling 51).
    Retire,
    /// `ROLLBACK` / `REVENIR`: a moderator returns the game to the end of a turn.
    Rollback,
    /// `OBSERVERS` / `OBSERVATEURS`: a moderator opens or closes a game to observers.
    Observers,
}

/// Every spelling of every keyword, folded (lower case, no accents, no hyphens).
const WORDS: &[(&str, Kw)] = &[
    ("game", Kw::Game),
    ("partie", Kw::Game),
    ("car", Kw::Car),
    ("voiture", Kw::Car),
    ("token", Kw::Token),
    ("password", Kw::Token),
    ("jeton", Kw::Token),
    ("motdepasse", Kw::Token),
    ("turn", Kw::Turn),
    ("tour", Kw::Turn),
    ("join", Kw::Join),
    ("rejoindre", Kw::Join),
    ("inscription", Kw::Join),
    ("setup", Kw::Setup),
    ("config", Kw::Setup),
    ("configuration", Kw::Setup),
    ("tyres", Kw::Tyres),
    ("tires", Kw::Tyres),
    ("pneus", Kw::Tyres),
    ("boxes", Kw::Boxes),
    ("box", Kw::Boxes),
    ("gear", Kw::Gear),
    ("vitesse", Kw::Gear),
    ("rapport", Kw::Gear),
    ("choose", Kw::Choose),
    ("choice", Kw::Choose),
    ("choix", Kw::Choose),
    ("choisir", Kw::Choose),
    ("reroll", Kw::Reroll),
    ("relancer", Kw::Reroll),
    ("relance", Kw::Reroll),
    ("pit", Kw::Pit),
    ("stand", Kw::Pit),
    ("policy", Kw::Policy),
    ("consigne", Kw::Policy),
    ("lap", Kw::Lap),
    ("chrono", Kw::Lap),
    ("drive", Kw::Drive),
    ("driving", Kw::Drive),
    ("piloter", Kw::Drive),
    ("pilotage", Kw::Drive),
    ("conduite", Kw::Drive),
    ("board", Kw::Board),
    ("plateau", Kw::Board),
    ("history", Kw::History),
    ("historique", Kw::History),
    ("help", Kw::Help),
    ("aide", Kw::Help),
    ("standings", Kw::Standings),
    ("classement", Kw::Standings),
    ("lang", Kw::Lang),
    ("language", Kw::Lang),
    ("langue", Kw::Lang),
    ("timezone", Kw::TimeZone),
    ("tz", Kw::TimeZone),
    ("fuseau", Kw::TimeZone),
    ("fuseauhoraire", Kw::TimeZone),
    ("reports", Kw::Reports),
    ("report", Kw::Reports),
    ("courrier", Kw::Reports),
    ("courriers", Kw::Reports),
    ("rapports", Kw::Reports),
    ("comptesrendus", Kw::Reports),
    ("league", Kw::League),
    ("ligue", Kw::League),
    ("create", Kw::Create),
    ("creer", Kw::Create),
    ("start", Kw::Start),
    ("demarrer", Kw::Start),
    ("pause", Kw::Pause),
    ("resume", Kw::Resume),
    ("reprendre", Kw::Resume),
    ("deadline", Kw::Deadline),
    ("delai", Kw::Deadline),
    ("replace", Kw::Replace),
    ("remplacer", Kw::Replace),
    ("force", Kw::Force),
    ("forcer", Kw::Force),
    ("reveal", Kw::Reveal),
    ("reveler", Kw::Reveal),
    ("end", Kw::End),
    ("fin", Kw::End),
    ("list", Kw::List),
    ("liste", Kw::List),
    ("games", Kw::List),
    ("parties", Kw::List),
    ("watch", Kw::Watch),
    ("observe", Kw::Watch),
    ("suivre", Kw::Watch),
    ("observer", Kw::Watch),
    ("unwatch", Kw::Unwatch),
    ("neplussuivre", Kw::Unwatch),
    ("absent", Kw::Absent),
    ("absence", Kw::Absent),
    ("retire", Kw::Retire),
    ("abandon", Kw::Retire),
    ("abandonner", Kw::Retire),
    ("rollback", Kw::Rollback),
    ("revenir", Kw::Rollback),
    ("observers", Kw::Observers),
    ("observateurs", Kw::Observers),
];

impl Kw {
    /// Every keyword.
    pub const ALL: [Kw; 39] = [
        Kw::Game,
        Kw::Car,
        Kw::Token,
        Kw::Turn,
        Kw::Join,
        Kw::Setup,
        Kw::Tyres,
        Kw::Boxes,
        Kw::Gear,
        Kw::Choose,
        Kw::Reroll,
        Kw::Pit,
        Kw::Policy,
        Kw::Drive,
        Kw::Lap,
        Kw::Board,
        Kw::History,
        Kw::Help,
        Kw::Standings,
        Kw::Lang,
        Kw::TimeZone,
        Kw::Reports,
        Kw::Create,
        Kw::League,
        Kw::Start,
        Kw::Pause,
        Kw::Resume,
        Kw::Deadline,
        Kw::Replace,
        Kw::Force,
        Kw::Reveal,
        Kw::End,
        Kw::List,
        Kw::Watch,
        Kw::Unwatch,
        Kw::Absent,
        Kw::Retire,
        Kw::Rollback,
        Kw::Observers,
    ];

    /// The keyword a folded word spells, if any.
    pub fn lookup(folded: &str) -> Option<Kw> {
        WORDS.iter().find(|(w, _)| *w == folded).map(|&(_, k)| k)
    }

    /// The closest keyword to a misspelt word (one letter wrong, missing, extra or two letters
    /// swapped), for "did you mean GEAR?".
    pub fn suggest(folded: &str) -> Option<Kw> {
        // Short words are left out: `and` is one letter from `end`, `car` from `cat`.
        if folded.chars().count() < 4 {
            return None;
        }
        WORDS.iter().find(|(w, _)| w.len() >= 4 && near(w, folded)).map(|&(_, k)| k)
    }

    /// The keyword as written in `lang`.
    pub fn word(self, lang: Lang) -> &'static str {
        let (en, fr) = self.words();
        if lang == Lang::Fr { fr } else { en }
    }

    fn words(self) -> (&'static str, &'static str) {
        match self {
            Kw::Game => ("GAME", "PARTIE"),
            Kw::Car => ("CAR", "VOITURE"),
            Kw::Token => ("TOKEN", "JETON"),
            Kw::Turn => ("TURN", "TOUR"),
            Kw::Join => ("JOIN", "REJOINDRE"),
            Kw::Setup => ("SETUP", "CONFIG"),
            Kw::Tyres => ("TYRES", "PNEUS"),
            Kw::Boxes => ("BOXES", "BOXES"),
            Kw::Gear => ("GEAR", "VITESSE"),
            Kw::Choose => ("CHOOSE", "CHOIX"),
            Kw::Reroll => ("REROLL", "RELANCER"),
            Kw::Pit => ("PIT", "STAND"),
            Kw::Policy => ("POLICY", "CONSIGNE"),
            Kw::Drive => ("DRIVE", "PILOTER"),
            Kw::Lap => ("LAP", "CHRONO"),
            Kw::Board => ("BOARD", "PLATEAU"),
            Kw::History => ("HISTORY", "HISTORIQUE"),
            Kw::Help => ("HELP", "AIDE"),
            Kw::Standings => ("STANDINGS", "CLASSEMENT"),
            Kw::Lang => ("LANG", "LANGUE"),
            Kw::TimeZone => ("TIMEZONE", "FUSEAU"),
            Kw::Reports => ("REPORTS", "COURRIER"),
            Kw::Create => ("CREATE", "CREER"),
            Kw::League => ("LEAGUE", "LIGUE"),
            Kw::Start => ("START", "DEMARRER"),
            Kw::Pause => ("PAUSE", "PAUSE"),
            Kw::Resume => ("RESUME", "REPRENDRE"),
            Kw::Deadline => ("DEADLINE", "DELAI"),
            Kw::Replace => ("REPLACE", "REMPLACER"),
            Kw::Force => ("FORCE", "FORCER"),
            Kw::Reveal => ("REVEAL", "REVELER"),
            Kw::End => ("END", "FIN"),
            Kw::List => ("LIST", "LISTE"),
            Kw::Watch => ("WATCH", "SUIVRE"),
            Kw::Unwatch => ("UNWATCH", "NE-PLUS-SUIVRE"),
            Kw::Absent => ("ABSENT", "ABSENT"),
            Kw::Retire => ("RETIRE", "ABANDON"),
            Kw::Rollback => ("ROLLBACK", "REVENIR"),
            Kw::Observers => ("OBSERVERS", "OBSERVATEURS"),
        }
    }

    /// A correct example of the order, in `lang`.
    pub fn example(self, lang: Lang) -> &'static str {
        let (en, fr) = match self {
            Kw::Game => ("GAME monaco-1", "PARTIE monaco-1"),
            Kw::Car => ("CAR 3", "VOITURE 3"),
            Kw::Token => ("TOKEN k7w2-x9qa", "JETON k7w2-x9qa"),
            Kw::Turn => ("TURN 12", "TOUR 12"),
            Kw::Join => (
                "JOIN monaco-1 CAR 3 PASSWORD blue PHRASE any words",
                "REJOINDRE monaco-1 VOITURE 3 MOTDEPASSE bleu PHRASE des mots",
            ),
            Kw::Setup => (
                "SETUP tyres=6 brakes=4 gas=3 body=3 engine=3 handling=1",
                "CONFIG pneus=6 freins=4 conso=3 carrosserie=3 moteur=3 tenue=1",
            ),
            Kw::Tyres => ("TYRES soft WET rain", "PNEUS tendres MOUILLE pluie"),
            Kw::Boxes => ("BOXES 1 2 3", "BOXES 1 2 3"),
            Kw::Gear => ("GEAR 4", "VITESSE 4"),
            Kw::Choose => ("CHOOSE B", "CHOIX B"),
            Kw::Reroll => ("REROLL", "RELANCER"),
            Kw::Pit => ("PIT LONG TYRES hard REPAIR brakes 2", "STAND LONG PNEUS durs REPARER freins 2"),
            Kw::Policy => ("POLICY FARTHEST-FREE ELSE SAFEST", "CONSIGNE LOIN-GRATUIT SINON SUR"),
            Kw::Lap => ("LAP FARTHEST-FREE ELSE SAFEST ELSE ASK", "CHRONO LOIN-GRATUIT SINON SUR SINON DEMANDER"),
            Kw::Drive => (
                "DRIVE FARTHEST BRAKES<=1 NO-OVERSHOOT ELSE SAFEST ELSE ASK",
                "PILOTER LOIN FREINS<=1 SANS-SORTIE SINON SUR SINON DEMANDER",
            ),
            Kw::Board => ("BOARD", "PLATEAU"),
            Kw::History => ("HISTORY 3", "HISTORIQUE 3"),
            Kw::Help => ("HELP", "AIDE"),
            Kw::Standings => ("STANDINGS", "CLASSEMENT"),
            Kw::Lang => ("LANG fr", "LANGUE en"),
            Kw::TimeZone => ("TIMEZONE Europe/Paris", "FUSEAU Europe/Paris"),
            Kw::Reports => ("REPORTS MINE", "COURRIER MIENS"),
            Kw::Create => (
                "CREATE monaco-1 TRACK monaco LAPS 3 WEATHER track",
                "CREER monaco-1 CIRCUIT monaco TOURS 3 METEO piste",
            ),
            Kw::League => ("LEAGUE autumn ENTER ann@example.org", "LIGUE automne INSCRIRE ann@example.org"),
            Kw::Start => ("START", "DEMARRER"),
            Kw::Pause => ("PAUSE", "PAUSE"),
            Kw::Resume => ("RESUME", "REPRENDRE"),
            Kw::Deadline => ("DEADLINE 48", "DELAI 48"),
            Kw::Replace => ("REPLACE CAR 3 ann@example.org", "REMPLACER VOITURE 3 ann@example.org"),
            Kw::Force => ("FORCE CAR 3", "FORCER VOITURE 3"),
            Kw::Reveal => ("REVEAL", "REVELER"),
            Kw::End => ("END", "FIN"),
            Kw::List => ("LIST monaco-1", "LISTE monaco-1"),
            Kw::Watch => ("WATCH monaco-1", "SUIVRE monaco-1"),
            Kw::Unwatch => ("UNWATCH monaco-1", "NE-PLUS-SUIVRE monaco-1"),
            Kw::Absent => ("ABSENT 2026-12-20 2027-01-03", "ABSENT 2026-12-20 2027-01-03"),
            Kw::Retire => ("RETIRE CONFIRM 1a2b3c4d", "ABANDON CONFIRMER 1a2b3c4d"),
            Kw::Rollback => ("ROLLBACK 12", "REVENIR 12"),
            Kw::Observers => ("OBSERVERS NO", "OBSERVATEURS NON"),
        };
        if lang == Lang::Fr { fr } else { en }
    }
}

/// Lower case, accents dropped, for matching words of either language: `RÉVÉLER` → `reveler`.
/// Hyphens and underscores are kept (`mot-de-passe` is matched by [`squash`]).
pub fn fold(word: &str) -> String {
    word.chars()
        .flat_map(char::to_lowercase)
        .map(|c| match c {
            'à' | 'â' | 'ä' | 'á' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'î' | 'ï' | 'í' => 'i',
            'ô' | 'ö' | 'ó' => 'o',
            'ù' | 'û' | 'ü' | 'ú' => 'u',
            'ç' => 'c',
            'ÿ' => 'y',
            c => c,
        })
        .collect()
}

/// [`fold`] without hyphens, underscores and dots: `Mot-de-passe` → `motdepasse`.
pub fn squash(word: &str) -> String {
    fold(word).chars().filter(|c| !matches!(c, '-' | '_' | '.')).collect()
}

/// Whether two words differ by one edit (or one swap of neighbours).
pub(crate) fn near(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a == b {
        return true;
    }
    let (la, lb) = (a.len(), b.len());
    if la.abs_diff(lb) > 1 {
        return false;
    }
    let p = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if la == lb {
        // One substitution, or one swap of neighbours.
        a[p + 1..] == b[p + 1..] || (p + 1 < la && a[p] == b[p + 1] && a[p + 1] == b[p] && a[p + 2..] == b[p + 2..])
    } else if la > lb {
        a[p + 1..] == b[p..]
    } else {
        a[p..] == b[p + 1..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_keyword_is_spelt_in_both_languages() {
        for k in Kw::ALL {
            assert_eq!(Kw::lookup(&squash(k.word(Lang::En))), Some(k));
            assert_eq!(Kw::lookup(&squash(k.word(Lang::Fr))), Some(k));
        }
        assert_eq!(Kw::lookup(&squash("RÉVÉLER")), Some(Kw::Reveal));
        assert_eq!(Kw::lookup(&squash("Mot-de-passe")), Some(Kw::Token));
    }

    #[test]
    fn misspellings_are_near() {
        assert_eq!(Kw::suggest("geer"), Some(Kw::Gear));
        assert_eq!(Kw::suggest("gaer"), Some(Kw::Gear));
        assert_eq!(Kw::suggest("vitese"), Some(Kw::Gear));
        assert_eq!(Kw::suggest("hello"), None);
        assert_eq!(Kw::suggest("ge"), None);
        assert_eq!(Kw::suggest("and"), None);
    }
}
