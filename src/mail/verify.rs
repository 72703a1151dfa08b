//! `steward verify --mail`: the dice checked from the mails one player received, so that a
//! player needs nothing from the operator but what was mailed to them (docs/dice.md, "What a
//! player keeps").
//!
//! Every report and welcome starts with the receipt block ([`crate::judge::report::proof`]): `Game:`,
//! `Turn:`, `Dice:`, `Receipt:` (that turn's hash), `Commitment:` and, once the race is over,
//! `Seed:`. Reports list the start's phrases (`Car N contributes entropy "..."`) and every roll
//! with its label (`roll LABEL DIE face F = V`). From them, per game: the FIRST commitment mailed
//! is the one that counts; every later one must equal it; the revealed seed must match it; the
//! key is derived from the seed and the mailed phrases, and every mailed roll re-derived. With a
//! games directory, every mailed receipt is checked against the turn file it names, and the game
//! replayed: a re-seeded game, a rewritten history or a deleted tail disagree with the mails.

use std::collections::BTreeMap;
use std::path::Path;

use mail_parser::MessageParser;
use thiserror::Error;

use crate::dice::{Scheme, face_index};
use crate::engine::Die;
use crate::store::hash::{hex32, parse_hex32, sha256_hex};
use crate::store::verify::{turn_path, verify};

use crate::mail::transport::TransportError;
use crate::mail::transport::export::{Exported, read_exported};

/// Why the mails do not verify.
#[derive(Debug, Error)]
pub enum MailCheckError {
    /// The mailbox cannot be read.
    #[error(transparent)]
    Read(#[from] TransportError),
    /// No mail from steward with a receipt block.
    #[error("no mail in {0} carries a steward receipt block (`Game: ...  Turn: ...`): is it the right mailbox?")]
    NoReceipts(String),
    /// The first disagreement found.
    #[error("game {game}: {why}")]
    Disagree {
        /// The game.
        game: String,
        /// What disagrees, with the mails and files involved.
        why: String,
    },
    /// Nothing could be checked.
    #[error(
        "NOT VERIFIED: {0} (the seed is revealed in the last report of a finished race; give --games DIR to check the receipts against the game directory)"
    )]
    Nothing(String),
}

/// Where a value was read: the mail (its file or place in the mbox) and the turn of its block.
#[derive(Clone, Debug, PartialEq, Eq)]
struct From_ {
    place: String,
    turn: u32,
}

impl std::fmt::Display for From_ {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the mail of turn {} ({})", self.turn, self.place)
    }
}

/// One mailed roll.
#[derive(Clone, Debug)]
struct MailedRoll {
    die: String,
    face: u32,
    value: u32,
    from: From_,
}

/// What the mails say of one game.
#[derive(Clone, Debug, Default)]
struct GameMails {
    dice: Option<(String, From_)>,
    commitment: Option<(String, From_)>,
    commitments: Vec<(String, From_)>,
    receipts: BTreeMap<u32, (String, From_)>,
    seed: Option<(String, From_)>,
    beacon_source: Option<String>,
    beacon: Option<(String, From_)>,
    contributions: BTreeMap<u8, String>,
    rolls: BTreeMap<String, MailedRoll>,
}

/// What was checked for one game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameChecked {
    /// The game.
    pub game: String,
    /// The first commitment mailed, and where.
    pub commitment: String,
    /// Where that first commitment was read.
    pub first_mail: String,
    /// The seed was revealed and matches the first commitment.
    pub seed_checked: bool,
    /// Mailed rolls re-derived.
    pub rolls: usize,
    /// Mailed receipts checked against the game directory.
    pub receipts: usize,
    /// The game directory replayed with every check.
    pub replayed: bool,
    /// The public beacon the game named, with the value mailed at its start.
    pub beacon: Option<String>,
    /// What the mails lack for a check they could not make (nothing failed).
    pub lacks: Option<String>,
    /// The game directory's rollbacks, each with the rolls it discarded (with `--games`).
    pub notes: Vec<String>,
}

impl GameChecked {
    /// True when anything was actually checked.
    pub fn checked_anything(&self) -> bool {
        self.seed_checked || self.receipts > 0
    }

    /// One line for the player.
    pub fn line(&self) -> String {
        let mut parts = vec![format!("commitment {} from the first mail, {}", self.commitment, self.first_mail)];
        if self.seed_checked && self.lacks.is_some() {
            parts.push("the revealed seed matches it; no roll re-derived".into());
        } else if self.seed_checked {
            parts.push(format!("the revealed seed matches it; {} mailed roll(s) re-derived, all agree", self.rolls));
        } else {
            parts.push("the seed is not revealed in these mails: no roll checked".into());
        }
        if let Some(l) = &self.lacks {
            parts.push(format!("NOT CHECKED: the mails lack {l}"));
        }
        if self.replayed {
            parts.push(format!("{} mailed receipt(s) match the game directory, which replays", self.receipts));
        }
        parts.push(match &self.beacon {
            Some(b) => format!("public beacon {b}: check that value at its source"),
            None => "no public beacon: the operator, who holds the seed, could have tried keys before the start by steering seats and phrases (docs/dice.md, section 6)".into(),
        });
        let mut out = format!("game {}: {}", self.game, parts.join("; "));
        for n in &self.notes {
            out.push_str(&format!("\ngame {}: {n}", self.game));
        }
        out
    }
}

/// The mails' verdict.
#[derive(Clone, Debug)]
pub struct MailReport {
    /// Mails read.
    pub mails: usize,
    /// Per game, in name order.
    pub games: Vec<GameChecked>,
}

/// Checks the mails of the Maildir folder or mbox file at `path`; with `games`, against the game
/// directories under it.
pub fn verify_mail(path: &Path, games: Option<&Path>) -> Result<MailReport, MailCheckError> {
    let mails = read_exported(path)?;
    verify_exported(&mails, &path.display().to_string(), games)
}

/// [`verify_mail`] on mails already read.
pub fn verify_exported(mails: &[Exported], name: &str, games: Option<&Path>) -> Result<MailReport, MailCheckError> {
    // The mails in the order they were sent: by date, then by the first turn they report.
    let mut texts: Vec<(i64, u32, &str, String)> = Vec::new();
    for m in mails {
        let Some(msg) = MessageParser::default().parse(&m.raw) else { continue };
        let Some(text) = msg.body_text(0) else { continue };
        let text = text.into_owned();
        let Some(turn) = text.lines().find_map(|l| block_head(l).map(|(_, t, _)| t)) else { continue };
        let date = msg.date().map_or(i64::MAX, |d| d.to_timestamp());
        texts.push((date, turn, m.place.as_str(), text));
    }
    if texts.is_empty() {
        return Err(MailCheckError::NoReceipts(name.into()));
    }
    texts.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
    let mut by_game: BTreeMap<String, GameMails> = BTreeMap::new();
    for (_, _, place, text) in &texts {
        read_mail(place, text, &mut by_game)?;
    }
    let mut out = Vec::new();
    for (game, m) in &by_game {
        out.push(check_game(game, m, games)?);
    }
    if !out.iter().any(GameChecked::checked_anything) {
        let names: Vec<&str> = out.iter().map(|g| g.game.as_str()).collect();
        return Err(MailCheckError::Nothing(format!(
            "{} mail(s) of game(s) {} hold no revealed seed, and no games directory was given",
            texts.len(),
            names.join(", ")
        )));
    }
    Ok(MailReport { mails: texts.len(), games: out })
}

/// `Game: G  Turn: N  Dice: D`.
fn block_head(line: &str) -> Option<(String, u32, String)> {
    let rest = line.trim().strip_prefix("Game: ")?;
    let (game, rest) = rest.split_once("  Turn: ")?;
    let (turn, dice) = rest.split_once("  Dice: ")?;
    Some((game.trim().to_string(), turn.trim().parse().ok()?, dice.trim().to_string()))
}

fn disagree(game: &str, why: String) -> MailCheckError {
    MailCheckError::Disagree { game: game.into(), why }
}

/// Reads one mail's blocks, rolls and phrases into `by_game`.
fn read_mail(place: &str, text: &str, by_game: &mut BTreeMap<String, GameMails>) -> Result<(), MailCheckError> {
    let mut current: Option<(String, From_)> = None;
    for line in text.lines() {
        let l = line.trim();
        if let Some((game, turn, dice)) = block_head(l) {
            let from = From_ { place: place.into(), turn };
            let g = by_game.entry(game.clone()).or_default();
            match &g.dice {
                None => g.dice = Some((dice, from.clone())),
                Some((d, first)) if *d != dice => {
                    return Err(disagree(&game, format!("{from} names dice {dice}, {first} named {d}")));
                }
                Some(_) => {}
            }
            current = Some((game, from));
            continue;
        }
        let Some((game, from)) = &current else { continue };
        let g = by_game.get_mut(game).expect("entered with its block");
        if let Some(h) = l.strip_prefix("Receipt: ") {
            let h = h.trim().to_string();
            match g.receipts.get(&from.turn) {
                Some((other, first)) if *other != h => {
                    return Err(disagree(
                        game,
                        format!("turn {} was mailed with two receipts: {other} in {first}, {h} in {from}", from.turn),
                    ));
                }
                Some(_) => {}
                None => {
                    g.receipts.insert(from.turn, (h, from.clone()));
                }
            }
        } else if let Some(c) = l.strip_prefix("Commitment: ") {
            let c = c.trim().to_string();
            if g.commitment.is_none() {
                g.commitment = Some((c.clone(), from.clone()));
            }
            g.commitments.push((c, from.clone()));
        } else if let Some(v) = l.strip_prefix("Beacon value: ") {
            let v = v.trim().to_string();
            match &g.beacon {
                Some((other, first)) if *other != v => {
                    return Err(disagree(
                        game,
                        format!("two beacon values were mailed: {other} in {first}, {v} in {from}"),
                    ));
                }
                Some(_) => {}
                None => g.beacon = Some((v, from.clone())),
            }
        } else if let Some(b) = l.strip_prefix("Beacon: ") {
            g.beacon_source.get_or_insert_with(|| b.trim().to_string());
        } else if let Some(s) = l.strip_prefix("Seed: ") {
            let s = s.trim().to_string();
            match &g.seed {
                Some((other, first)) if *other != s => {
                    return Err(disagree(game, format!("two seeds were mailed: {other} in {first}, {s} in {from}")));
                }
                Some(_) => {}
                None => g.seed = Some((s, from.clone())),
            }
        } else if let Some(r) = roll_line(l) {
            let (label, roll) = r;
            if let Some(other) = g.rolls.get(&label)
                && (other.die != roll.die || other.face != roll.face || other.value != roll.value)
            {
                return Err(disagree(
                    game,
                    format!(
                        "roll {label} was mailed twice with different results: {} face {} = {} in {}, {} face {} = {} in {from}",
                        other.die, other.face, other.value, other.from, roll.die, roll.face, roll.value
                    ),
                ));
            }
            g.rolls.entry(label).or_insert(MailedRoll { from: from.clone(), ..roll });
        } else if let Some((car, phrase)) = contribution_line(l) {
            g.contributions.insert(car, phrase);
        }
    }
    Ok(())
}

/// `roll LABEL DIE face F = V` (the report's summary, `store::show::turn_summary`).
fn roll_line(l: &str) -> Option<(String, MailedRoll)> {
    let rest = l.strip_prefix("roll ")?;
    let mut w = rest.split_whitespace();
    let label = w.next()?.to_string();
    let die = w.next()?.to_string();
    if w.next()? != "face" {
        return None;
    }
    let face = w.next()?.parse().ok()?;
    if w.next()? != "=" {
        return None;
    }
    let value = w.next()?.parse().ok()?;
    let from = From_ { place: String::new(), turn: 0 };
    Some((label, MailedRoll { die, face, value, from }))
}

/// `Car N contributes entropy "..."` (the phrase in Rust's debug quoting).
fn contribution_line(l: &str) -> Option<(u8, String)> {
    let rest = l.strip_prefix("Car ")?;
    let (car, rest) = rest.split_once(" contributes entropy ")?;
    Some((car.parse().ok()?, unquote_debug(rest)?))
}

/// The string a Rust `{:?}` quoted: `\"`, `\\`, `\'`, `\n`, `\r`, `\t`, `\0`, `\u{..}`.
pub fn unquote_debug(s: &str) -> Option<String> {
    let inner = s.strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            '0' => out.push('\0'),
            'u' => {
                if chars.next()? != '{' {
                    return None;
                }
                let hex: String = chars.by_ref().take_while(|&c| c != '}').collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            c => out.push(c),
        }
    }
    Some(out)
}

fn die_named(name: &str) -> Option<Die> {
    (1..=6).map(Die::Gear).chain([Die::Black]).find(|d| d.name() == name)
}

fn check_game(game: &str, m: &GameMails, games: Option<&Path>) -> Result<GameChecked, MailCheckError> {
    let (dice, _) = m.dice.clone().expect("a game is entered with its block");
    let scheme = Scheme::parse(&dice).ok_or_else(|| disagree(game, format!("unknown dice scheme {dice}")))?;
    let (first, first_from) =
        m.commitment.clone().ok_or_else(|| disagree(game, "no mail carries its commitment".into()))?;
    if let Some((c, from)) = m.commitments.iter().find(|(c, _)| *c != first) {
        return Err(disagree(
            game,
            format!(
                "{from} carries commitment {c}, but the first mail ({first_from}) committed to {first}: the game was re-seeded after the commitment was published"
            ),
        ));
    }
    let mut checked = GameChecked {
        game: game.into(),
        commitment: first.clone(),
        first_mail: first_from.to_string(),
        seed_checked: false,
        rolls: 0,
        receipts: 0,
        replayed: false,
        beacon: m.beacon_source.as_ref().map(|s| match &m.beacon {
            Some((v, _)) => format!("{s} = {v}"),
            None => s.clone(),
        }),
        lacks: None,
        notes: Vec::new(),
    };
    if let Some((text, from)) = &m.seed {
        let seed = parse_hex32(text)
            .ok_or_else(|| disagree(game, format!("the seed {text} in {from} is not 64 hex digits")))?;
        let c = hex32(&scheme.commit(game, &seed));
        if c != first {
            return Err(disagree(
                game,
                format!(
                    "the seed revealed in {from} commits to {c}, not to {first}, the commitment of the first mail ({first_from})"
                ),
            ));
        }
        checked.seed_checked = true;
        // The key's other inputs: the start's phrases as mailed (every mail with the seed
        // carries them), else as the game directory's start turn gives them.
        let mut contributions = m.contributions.clone();
        let mut beacon = m.beacon.as_ref().map(|(v, _)| v.clone());
        if contributions.is_empty()
            && let Some(start) = games.and_then(|d| start_turn(&d.join(game)))
        {
            contributions = start.contributions.iter().map(|c| (c.car, c.entropy.clone())).collect();
            beacon = beacon.or(start.beacon);
        }
        if m.beacon_source.is_some() && beacon.is_none() && !m.rolls.is_empty() {
            checked.lacks = Some("the beacon's value (`Beacon value:`, in every mail after the start)".into());
        } else if !m.rolls.is_empty() && contributions.is_empty() {
            checked.lacks = Some(
                "the start's phrases (`Car N contributes entropy`, in the mail that reveals the seed): give --games DIR"
                    .into(),
            );
        }
        let pairs: Vec<(u8, &str)> = contributions.iter().map(|(c, p)| (*c, p.as_str())).collect();
        let key = scheme.key(game, &seed, beacon.as_deref().unwrap_or_default(), &pairs);
        for (label, r) in m.rolls.iter().filter(|_| checked.lacks.is_none()) {
            let die = die_named(&r.die)
                .ok_or_else(|| disagree(game, format!("roll {label} in {} names an unknown die {}", r.from, r.die)))?;
            let faces = die.faces();
            let f = face_index(&key, label, faces.len());
            if (r.face as usize, r.value) != (f, u32::from(faces[f])) {
                return Err(disagree(
                    game,
                    format!(
                        "roll {label} on {} was mailed as face {} = {} in {}, the committed dice give face {f} = {}",
                        r.die, r.face, r.value, r.from, faces[f]
                    ),
                ));
            }
            checked.rolls += 1;
        }
    }
    if let Some(dir) = games {
        let gdir = dir.join(game);
        if !gdir.join("turns").is_dir() {
            return Err(disagree(game, format!("the mails name it but {} holds no such game", dir.display())));
        }
        for (turn, (hash, from)) in &m.receipts {
            let p = gdir.join(turn_path(*turn));
            let Ok(bytes) = std::fs::read(&p) else {
                return Err(disagree(
                    game,
                    format!(
                        "turn {turn} was mailed with receipt {hash} ({from}), but {} is missing: turns were deleted",
                        p.display()
                    ),
                ));
            };
            let h = sha256_hex(&bytes);
            if h != *hash {
                return Err(disagree(
                    game,
                    format!(
                        "{} hashes to {h}, but {from} gave its receipt as {hash}: the history was rewritten",
                        p.display()
                    ),
                ));
            }
            checked.receipts += 1;
        }
        let r = verify(&gdir, None).map_err(|e| disagree(game, format!("the game directory does not verify: {e}")))?;
        if r.game.setup.commitment != first {
            return Err(disagree(
                game,
                format!(
                    "the game directory commits to {}, the first mail ({first_from}) to {first}: the game was re-seeded",
                    r.game.setup.commitment
                ),
            ));
        }
        checked.replayed = true;
        // The rollbacks and what they discarded, as `steward verify` lists them.
        checked.notes =
            crate::store::verify::trust_lines(&r.game).into_iter().filter(|l| l.starts_with("rollback")).collect();
    }
    Ok(checked)
}

/// The start turn of the game directory `dir`, if it has one.
fn start_turn(dir: &Path) -> Option<crate::store::files::TurnFile> {
    (1..10_000u32)
        .map_while(|n| {
            let text = std::fs::read_to_string(dir.join(turn_path(n))).ok()?;
            toml::from_str::<crate::store::files::TurnFile>(&text).ok()
        })
        .find(|t| t.kind == crate::store::files::Kind::Start)
}
