//! The order language players write in the body of a mail (docs/orders.md): one order per line,
//! case-insensitive, English or French keywords, accents optional. Parsing is pure and keeps
//! every line's number and text so the receipt can answer line by line; a message with any
//! error applies nothing.

mod error;
mod keyword;
pub mod policy;
mod receipt;
mod report_mode;

pub use error::{Arg, OrderError};
pub use keyword::{Kw, fold, squash};
pub use receipt::{RECEIPT_WIDTH, masked, receipt};
pub use report_mode::ReportMode;

use crate::engine::pits::PitChoice;
use crate::engine::weather::Forecast;
use crate::engine::{Part, Setup, Tyres, Wear};
use crate::orders::policy::{Policy, Rule};
use crate::store::qualifying::GridMethod;
use crate::words::Lang;

/// Pit stop type (19-3 quick, 19-4 long).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Stop {
    /// Arrêt rapide: tyres only (19-3-1).
    Quick,
    /// Arrêt long: tyres and repairs (19-4).
    Long,
}

/// One order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Order {
    /// The game the mail is about.
    Game(String),
    /// The car the orders are for.
    Car(u8),
    /// The player's secret token, given at join.
    Token(String),
    /// The turn the orders answer (a stale one is refused by the daemon).
    Turn(u32),
    /// Join a game.
    Join {
        /// The game.
        game: String,
        /// The car wanted.
        car: Option<u8>,
        /// The game's join password, if it has one.
        password: Option<String>,
        /// Words mixed into the dice key (docs/dice.md).
        phrase: Option<String>,
    },
    /// The car's wear points, checked against chapter 5.
    Setup(Wear),
    /// Starting tyres (8): on a dry track, and (`WET rain`) on a track wet at the start, since the
    /// weather is drawn when the race starts (3-0-1, ruling 30).
    Tyres {
        /// Tyres fitted when the track is dry at the start.
        dry: Tyres,
        /// Tyres fitted when it is wet at the start (none: the same).
        wet: Option<Tyres>,
    },
    /// The pit boxes wanted, best first, numbered from 1 along the pit lane (4-0-1, ruling 48).
    Boxes(Vec<u8>),
    /// The gear for the next move (6-1).
    Gear(u8),
    /// The decision after a roll: an option's label or a destination space id.
    Choose(String),
    /// A driver point spent on the gear roll awaiting the choice: the gear die again, the second
    /// result stands (002 "Expending Driver Points", ruling 45).
    Reroll,
    /// A pit stop (19).
    Pit {
        /// Quick or long.
        stop: Stop,
        /// The tyres to leave on (19-2-6); none keeps the same type (19-2-7).
        tyres: Option<Tyres>,
        /// Wear points to repair, part by part (19-4).
        repairs: Vec<(Part, u8)>,
    },
    /// A standing order; no rule clears it.
    Policy(Policy),
    /// Resend the board.
    Board,
    /// Resend the last n turns.
    History(u32),
    /// Send the help text.
    Help,
    /// Send the standings.
    Standings,
    /// The language of the replies.
    Lang(Lang),
    /// Which reports the player of the mail's car gets (docs/orders.md).
    Reports(crate::orders::ReportMode),
    /// Moderator: create a game.
    Create {
        /// Its name.
        game: String,
        /// A shipped track's name.
        track: String,
        /// Laps.
        laps: u16,
        /// Most cars.
        cars: Option<u8>,
        /// Hours to answer.
        hours: Option<u32>,
        /// Rule profile.
        profile: Option<String>,
        /// How the race weather is decided (default: the track's table, 3-2-1).
        weather: Option<Forecast>,
        /// How the grid is made (default: join order).
        grid: Option<GridMethod>,
        /// `CHECKS LAP-THIRDS`: 002's three weather checks a lap (ruling 46).
        lap_thirds: bool,
        /// `LATE YES`: late arrivals join from the pit-lane exit (004, ruling 47).
        late: bool,
        /// `PITS REVERSE-GRID`: the boxes chosen from the back of the grid (002, ruling 48).
        pits: Option<PitChoice>,
        /// `BACKMARKERS YES`: 002's backmarkers join the race after the leader's first lap
        /// (ruling 49).
        backmarkers: bool,
    },
    /// A league edit (moderators) or the league's standings (anyone).
    League {
        /// The league.
        league: String,
        /// What to do.
        action: LeagueAction,
    },
    /// Moderator: start the race.
    Start,
    /// Moderator: stop the clock.
    Pause,
    /// Moderator: restart the clock.
    Resume,
    /// Moderator: hours to answer from now on.
    Deadline(u32),
    /// Moderator: give a car to another player.
    Replace {
        /// The car.
        car: u8,
        /// The new player's address.
        address: String,
    },
    /// Moderator: the bot plays the car's awaited move.
    Force {
        /// The car.
        car: u8,
    },
    /// Moderator: reveal the seed; the race ends where it stands.
    Reveal,
    /// The games open for joining and running, or one game's details (no token).
    List(Option<String>),
    /// Receive a game's reports as an observer.
    Watch(String),
    /// Stop observing a game (the mail's `GAME` when none is named).
    Unwatch(Option<String>),
    /// The car is played by its policy, else the bot, from one date to another (UTC days,
    /// `YYYY-MM-DD`, both included); `None`: the absence is cancelled.
    Absent(Option<(String, String)>),
    /// The car leaves the race (ruling 51): without a code, steward asks for the confirmation;
    /// with the code it sent, it is done.
    Retire(Option<String>),
    /// Moderator: the game returns to the end of this turn.
    Rollback(u32),
    /// Moderator: the game is open (true) or closed (false) to observers.
    Observers(bool),
}

/// What a `LEAGUE` line does (docs/leagues.md).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LeagueAction {
    /// Enter a driver from the next race.
    Enter(String),
    /// Withdraw a driver from the next race on.
    Withdraw(String),
    /// Form a team (or add a driver to it).
    Team {
        /// Its name.
        name: String,
        /// One or two addresses.
        drivers: Vec<String>,
    },
    /// Add a race at the end of the season.
    Race {
        /// The race's game name.
        game: String,
        /// The track.
        track: String,
        /// Laps.
        laps: u16,
        /// Grid method (`qualifying`, `d20`, `rotating`, `bids`).
        grid: String,
    },
    /// Send the league's standings.
    Standings,
}

impl Order {
    /// Whether only a moderator may give it.
    pub fn is_moderator(&self) -> bool {
        matches!(
            self,
            Order::Create { .. }
                | Order::League {
                    action: LeagueAction::Enter(_)
                        | LeagueAction::Withdraw(_)
                        | LeagueAction::Team { .. }
                        | LeagueAction::Race { .. },
                    ..
                }
                | Order::Start
                | Order::Pause
                | Order::Resume
                | Order::Deadline(_)
                | Order::Replace { .. }
                | Order::Force { .. }
                | Order::Reveal
                | Order::Rollback(_)
                | Order::Observers(_)
        )
    }

    /// Whether it says who and what the mail is about rather than doing something.
    pub fn is_header(&self) -> bool {
        matches!(self, Order::Game(_) | Order::Car(_) | Order::Token(_) | Order::Turn(_))
    }
}

/// One line that was read as an order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line {
    /// 1-based line number in the cleaned body.
    pub number: usize,
    /// The line as written (trimmed).
    pub text: String,
    /// The order, or why it is refused.
    pub result: Result<Order, OrderError>,
}

/// Who and what a mail is about: its `GAME`, `CAR`, `TOKEN` and `TURN` lines.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Headers {
    /// The game.
    pub game: Option<String>,
    /// The car.
    pub car: Option<u8>,
    /// The player's token.
    pub token: Option<String>,
    /// The turn answered.
    pub turn: Option<u32>,
}

/// A mail's orders.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Parsed {
    /// The lines read as orders, in order.
    pub lines: Vec<Line>,
    /// Lines of prose around the orders, skipped.
    pub skipped: usize,
    /// Those lines: their number and text, for the receipt to list.
    pub ignored: Vec<(usize, String)>,
    /// Whether an `END` line stopped the reading.
    pub ended: bool,
}

impl Parsed {
    /// No line is refused (and so the orders may be applied).
    pub fn is_ok(&self) -> bool {
        self.lines.iter().all(|l| l.result.is_ok())
    }

    /// The orders, in order; empty if any line is refused (a message with an error applies
    /// nothing).
    pub fn orders(&self) -> Vec<&Order> {
        if !self.is_ok() {
            return Vec::new();
        }
        self.lines.iter().filter_map(|l| l.result.as_ref().ok()).collect()
    }

    /// What the mail's `GAME`, `CAR`, `TOKEN` and `TURN` lines say.
    pub fn headers(&self) -> Headers {
        let mut h = Headers::default();
        for l in &self.lines {
            match &l.result {
                Ok(Order::Game(g)) => h.game = Some(g.clone()),
                Ok(Order::Car(c)) => h.car = Some(*c),
                Ok(Order::Token(t)) => h.token = Some(t.clone()),
                Ok(Order::Turn(t)) => h.turn = Some(*t),
                _ => {}
            }
        }
        h
    }

    /// The refused lines.
    pub fn errors(&self) -> impl Iterator<Item = (&Line, &OrderError)> {
        self.lines.iter().filter_map(|l| l.result.as_ref().err().map(|e| (l, e)))
    }
}

/// Longest line read, in characters; longer lines are refused as unknown (no order is long).
const MAX_LINE: usize = 1000;

/// Reads the orders of a cleaned mail body (see `mail::message`). Lines before the first
/// keyword line and after the last are prose and skipped, unless they look like a misspelt
/// order (at most 3 words, the first one letter off a keyword); between orders, blank lines are
/// skipped and every other line must be an order. `END` stops the reading.
pub fn parse(text: &str) -> Parsed {
    let mut out = Parsed::default();
    let last_line = text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()).last().map(|(i, _)| i);
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        let words = order_words(line);
        let Some(first) = words.first() else { continue };
        let first = squash(first);
        let kw = Kw::lookup(&first);
        // A short line whose first word is one letter off a keyword is a misspelt order; a
        // longer one is prose ("Pour le tour 12, voici mes ordres"), and so are a greeting, a
        // sign-off and a name alone on the last line (docs/orders.md).
        let courtesy = kw.is_none() && (is_courtesy(&words, line) || (Some(i) == last_line && is_name(line)));
        let suggestion = if first == "phrase" {
            // A word of the JOIN line on a line of its own, not under a JOIN: refused with the
            // JOIN example, never skipped as prose.
            Some(Kw::Join)
        } else if words.len() <= 3 && !courtesy {
            Kw::suggest(&first)
        } else {
            None
        };
        if kw.is_none() && out.lines.is_empty() && suggestion.is_none() {
            out.skipped += 1;
            out.ignored.push((i + 1, line.to_string()));
            continue;
        }
        // A PHRASE on the line under a JOIN that has none (a mail app wrapped the JOIN line) is
        // that JOIN's phrase (docs/orders.md).
        if first == "phrase"
            && let Some(prev) = out.lines.last_mut()
            && let Ok(Order::Join { phrase: phrase @ None, .. }) = &mut prev.result
        {
            let rest = line[line.find(char::is_whitespace).unwrap_or(line.len())..].trim();
            if !rest.is_empty() {
                *phrase = Some(rest.to_string());
                prev.text = format!("{} {line}", prev.text);
                continue;
            }
        }
        if kw == Some(Kw::End) && words.len() == 1 {
            out.ended = true;
            break;
        }
        let result = match kw {
            _ if line.chars().count() > MAX_LINE => {
                Err(OrderError::Unknown { word: words[0].chars().take(20).collect(), suggestion: None })
            }
            Some(k) => order(k, &words[1..], line),
            None => Err(OrderError::Unknown { word: words[0].to_string(), suggestion }),
        };
        // One game, car, token and turn per mail: a second line saying otherwise is refused.
        let result = match result {
            Ok(o) if o.is_header() => match out.lines.iter().find(|l| {
                l.result.as_ref().is_ok_and(|p| std::mem::discriminant(p) == std::mem::discriminant(&o) && *p != o)
            }) {
                Some(l) => Err(OrderError::Conflict { order: k_of(&o), line: l.number }),
                None => Ok(o),
            },
            r => r,
        };
        out.lines.push(Line { number: i + 1, text: line.to_string(), result });
    }
    // Prose after the last order ("Thanks, Ann") is skipped too, unless it looks like a
    // misspelt keyword.
    let prose = |l: &Line| matches!(l.result, Err(OrderError::Unknown { suggestion: None, .. }));
    let mut trailing = Vec::new();
    while out.lines.last().is_some_and(prose) {
        let l = out.lines.pop().expect("checked");
        out.skipped += 1;
        trailing.push((l.number, l.text));
    }
    out.ignored.extend(trailing.into_iter().rev());
    out
}

/// The keyword of a header order.
fn k_of(o: &Order) -> Kw {
    match o {
        Order::Game(_) => Kw::Game,
        Order::Car(_) => Kw::Car,
        Order::Token(_) => Kw::Token,
        _ => Kw::Turn,
    }
}

/// Words of a line: separated by white space, commas and semicolons.
fn split(line: &str) -> Vec<&str> {
    line.split(|c: char| c.is_whitespace() || c == ',' || c == ';').filter(|w| !w.is_empty()).collect()
}

/// The words of an order line, its typography undone (docs/orders.md): the colon after the
/// keyword, French style with a (non-breaking) space before it or not (`JETON : x`,
/// `PARTIE: gp1`, `GAME:gp1`), and a full stop, `!` or `?` ending the line (`Turn: 8.`).
fn order_words(line: &str) -> Vec<&str> {
    let mut words = split(line);
    if let Some(first) = words.first().copied()
        && let Some((kw, rest)) = first.split_once(':')
    {
        words[0] = kw;
        if !rest.is_empty() {
            words.insert(1, rest);
        }
    }
    if let Some(second) = words.get(1).copied()
        && let Some(rest) = second.strip_prefix(':')
    {
        if rest.is_empty() {
            words.remove(1);
        } else {
            words[1] = rest;
        }
    }
    if words.len() > 1
        && let Some(last) = words.last_mut()
    {
        *last = last.trim_end_matches(['.', '!', '?']);
        if last.is_empty() {
            words.pop();
        }
    }
    words.retain(|w| !w.is_empty());
    words
}

/// Words that open a greeting or a sign-off, in English and French (folded).
const COURTESY: &[&str] = &[
    "dear",
    "hi",
    "hello",
    "hey",
    "greetings",
    "good",
    "morning",
    "evening",
    "thanks",
    "thank",
    "thx",
    "cheers",
    "regards",
    "best",
    "kind",
    "yours",
    "sincerely",
    "cordially",
    "ta",
    "bye",
    "bonjour",
    "bonsoir",
    "salut",
    "coucou",
    "cher",
    "chere",
    "chers",
    "madame",
    "monsieur",
    "merci",
    "cordialement",
    "amicalement",
    "amities",
    "bises",
    "bisous",
    "salutations",
    "bien",
    "a+",
    "@+",
    "bonne",
];

/// A greeting or sign-off: its first word is one of [`COURTESY`] and it holds no digit
/// (`Dear Steward,`, `Thanks,`, `Cheers`, `Bien à vous`; not `Dear 4`, a misspelt `GEAR 4`).
fn is_courtesy(words: &[&str], line: &str) -> bool {
    let Some(first) = words.first() else { return false };
    let first = fold(first.trim_end_matches([',', '.', '!', ':']));
    COURTESY.contains(&first.as_str()) && !line.chars().any(|c| c.is_ascii_digit())
}

/// A name signing the mail: one word of letters, a capital then small letters (`Ann`, `Lane.`),
/// not written as keywords are (`GEER`, `geer`).
fn is_name(line: &str) -> bool {
    let w = line.trim_end_matches(['.', ',', '!']);
    let mut chars = w.chars();
    let Some(c) = chars.next() else { return false };
    c.is_uppercase()
        && w.chars().count() >= 2
        && chars.all(|c| c.is_lowercase() || c == '-' || c == '\'')
        && !w.contains(char::is_whitespace)
}

fn number(order: Kw, what: Arg, word: Option<&&str>, min: u32, max: u32) -> Result<u32, OrderError> {
    let Some(w) = word else { return Err(OrderError::Missing { order, what }) };
    match w.parse::<u32>() {
        Ok(n) if (min..=max).contains(&n) => Ok(n),
        _ => Err(OrderError::Range { order, what, got: w.to_string(), min, max }),
    }
}

fn no_more(order: Kw, rest: &[&str]) -> Result<(), OrderError> {
    match rest.first() {
        Some(w) => Err(OrderError::Unexpected { order, got: w.to_string() }),
        None => Ok(()),
    }
}

/// A name: a game id, a token, a track. Letters, digits, `-`, `_`, `.`, at most 64.
fn name(order: Kw, what: Arg, word: Option<&&str>) -> Result<String, OrderError> {
    let Some(w) = word else { return Err(OrderError::Missing { order, what }) };
    let ok = w.len() <= 64 && w.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if ok { Ok(w.to_string()) } else { Err(OrderError::Invalid { order, what, got: w.to_string() }) }
}

/// A game's id, lower-cased as the store keeps it (`store::game::valid_id`).
fn game_id(order: Kw, word: Option<&&str>) -> Result<String, OrderError> {
    let id = name(order, Arg::GameId, word)?.to_ascii_lowercase();
    if !id.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        return Err(OrderError::Invalid { order, what: Arg::GameId, got: id });
    }
    Ok(id)
}

fn tyres(order: Kw, word: Option<&&str>) -> Result<Tyres, OrderError> {
    let Some(w) = word else { return Err(OrderError::Missing { order, what: Arg::TyreType }) };
    Tyres::parse(&fold(w)).ok_or_else(|| OrderError::Invalid { order, what: Arg::TyreType, got: w.to_string() })
}

/// A part of the car in either language (5-0-1).
fn part(folded: &str) -> Option<Part> {
    match squash(folded).as_str() {
        "tyres" | "tires" | "tyre" | "tire" | "pneus" | "pneu" => Some(Part::Tyres),
        "brakes" | "brake" | "freins" | "frein" => Some(Part::Brakes),
        "gas" | "fuel" | "gearbox" | "consommation" | "conso" | "essence" | "boite" => Some(Part::Gas),
        "body" | "carrosserie" | "carro" => Some(Part::Body),
        "engine" | "moteur" => Some(Part::Engine),
        "handling" | "suspension" | "tenue" | "tenuederoute" => Some(Part::Handling),
        _ => None,
    }
}

/// `part=n`, `part:n` or `part n` pairs, as in `SETUP` and `REPAIR`.
fn pairs(order: Kw, words: &[&str]) -> Result<Vec<(Part, u8)>, OrderError> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        let (p, n) = match words[i].split_once(['=', ':']) {
            Some((p, n)) if !n.is_empty() => (p, Some(n)),
            Some((p, _)) => (p, words.get(i + 1).copied()),
            None => (words[i], words.get(i + 1).copied()),
        };
        let step = if words[i].split_once(['=', ':']).is_some_and(|(_, n)| !n.is_empty()) { 1 } else { 2 };
        let part = part(p).ok_or_else(|| OrderError::Invalid { order, what: Arg::Part, got: p.to_string() })?;
        let n = number(order, Arg::Points, n.as_ref(), 1, 22)?;
        out.push((part, n as u8));
        i += step;
    }
    Ok(out)
}

fn order(k: Kw, args: &[&str], line: &str) -> Result<Order, OrderError> {
    let bare = |o: Order| no_more(k, args).map(|_| o);
    match k {
        Kw::Game => game_id(k, args.first()).and_then(|g| no_more(k, &args[1..]).map(|_| Order::Game(g))),
        Kw::Car => {
            let n = number(k, Arg::CarNumber, args.first(), 1, 99)?;
            no_more(k, &args[1..])?;
            Ok(Order::Car(n as u8))
        }
        Kw::Token => {
            let t = name(k, Arg::Secret, args.first())?;
            no_more(k, &args[1..])?;
            Ok(Order::Token(t))
        }
        Kw::Turn => {
            let n = number(k, Arg::TurnNumber, args.first(), 0, 999_999)?;
            no_more(k, &args[1..])?;
            Ok(Order::Turn(n))
        }
        Kw::Join => join(args, line),
        Kw::Setup => setup(args),
        Kw::Tyres => {
            let dry = tyres(k, args.first())?;
            let wet = match args.get(1) {
                Some(w) if matches!(squash(w).as_str(), "wet" | "mouille" | "mouillee") => {
                    let t = tyres(k, args.get(2))?;
                    no_more(k, &args[3..])?;
                    Some(t)
                }
                _ => {
                    no_more(k, &args[1..])?;
                    None
                }
            };
            Ok(Order::Tyres { dry, wet })
        }
        Kw::Boxes => {
            if args.is_empty() {
                return Err(OrderError::Missing { order: k, what: Arg::PitBox });
            }
            // Any box number a track might have: the game checks it against its pit lane.
            let boxes = args.iter().map(|w| number(k, Arg::PitBox, Some(w), 1, 99).map(|n| n as u8));
            Ok(Order::Boxes(boxes.collect::<Result<_, _>>()?))
        }
        Kw::Gear => {
            // 6-1: six gears.
            let n = number(k, Arg::Gear, args.first(), 1, 6)?;
            no_more(k, &args[1..])?;
            Ok(Order::Gear(n as u8))
        }
        Kw::Choose => {
            let c = name(k, Arg::Choice, args.first())?;
            no_more(k, &args[1..])?;
            Ok(Order::Choose(c))
        }
        Kw::Reroll => bare(Order::Reroll),
        Kw::Pit => pit(args),
        Kw::Policy => policy(args),
        Kw::Board => bare(Order::Board),
        Kw::History => {
            let n = if args.is_empty() { 1 } else { number(k, Arg::Count, args.first(), 1, 100)? };
            no_more(k, args.get(1..).unwrap_or_default())?;
            Ok(Order::History(n))
        }
        Kw::Help => bare(Order::Help),
        Kw::Standings => bare(Order::Standings),
        Kw::Lang => {
            let Some(w) = args.first() else { return Err(OrderError::Missing { order: k, what: Arg::Language }) };
            let l = Lang::parse(&squash(w)).ok_or_else(|| OrderError::Invalid {
                order: k,
                what: Arg::Language,
                got: w.to_string(),
            })?;
            no_more(k, &args[1..])?;
            Ok(Order::Lang(l))
        }
        Kw::Reports => {
            let Some(w) = args.first() else { return Err(OrderError::Missing { order: k, what: Arg::ReportMode }) };
            let m = crate::orders::ReportMode::parse(&squash(w)).ok_or_else(|| OrderError::Invalid {
                order: k,
                what: Arg::ReportMode,
                got: w.to_string(),
            })?;
            no_more(k, &args[1..])?;
            Ok(Order::Reports(m))
        }
        Kw::Create => create(args),
        Kw::League => league(args),
        Kw::Start => bare(Order::Start),
        Kw::Pause => bare(Order::Pause),
        Kw::Resume => bare(Order::Resume),
        Kw::Deadline => {
            let n = number(k, Arg::Hours, args.first(), 1, 24 * 60)?;
            no_more(k, &args[1..])?;
            Ok(Order::Deadline(n))
        }
        Kw::Replace => {
            let car = car_word(k, args)?;
            let Some(a) = args.get(2) else { return Err(OrderError::Missing { order: k, what: Arg::Address }) };
            let a = a.trim_start_matches('<').trim_end_matches('>');
            let ok = a.len() <= 254
                && a.split_once('@').is_some_and(|(l, d)| !l.is_empty() && d.contains('.') && !d.contains('@'));
            if !ok {
                return Err(OrderError::Invalid { order: k, what: Arg::Address, got: a.to_string() });
            }
            no_more(k, &args[3..])?;
            Ok(Order::Replace { car, address: a.to_ascii_lowercase() })
        }
        Kw::Force => {
            let car = car_word(k, args)?;
            no_more(k, &args[2..])?;
            Ok(Order::Force { car })
        }
        Kw::Reveal => bare(Order::Reveal),
        Kw::List => {
            let game = if args.is_empty() { None } else { Some(game_id(k, args.first())?) };
            no_more(k, args.get(1..).unwrap_or_default())?;
            Ok(Order::List(game))
        }
        Kw::Watch => {
            let game = game_id(k, args.first())?;
            no_more(k, &args[1..])?;
            Ok(Order::Watch(game))
        }
        Kw::Unwatch => {
            let game = if args.is_empty() { None } else { Some(game_id(k, args.first())?) };
            no_more(k, args.get(1..).unwrap_or_default())?;
            Ok(Order::Unwatch(game))
        }
        Kw::Absent => absent(args),
        Kw::Retire => {
            let code = match args.first().map(|w| squash(w)) {
                None => None,
                Some(w) if w == "confirm" || w == "confirmer" => {
                    let code = name(k, Arg::Code, args.get(1))?;
                    no_more(k, &args[2..])?;
                    Some(code.to_ascii_lowercase())
                }
                Some(_) => return Err(OrderError::Unexpected { order: k, got: args[0].to_string() }),
            };
            Ok(Order::Retire(code))
        }
        Kw::Rollback => {
            let n = number(k, Arg::TurnNumber, args.first(), 0, 999_999)?;
            no_more(k, &args[1..])?;
            Ok(Order::Rollback(n))
        }
        Kw::Observers => {
            let yes = match args.first().map(|w| squash(w)).as_deref() {
                Some("yes" | "oui" | "open" | "ouvert") => true,
                Some("no" | "non" | "closed" | "ferme") => false,
                Some(_) => return Err(OrderError::Invalid { order: k, what: Arg::YesNo, got: args[0].to_string() }),
                None => return Err(OrderError::Missing { order: k, what: Arg::YesNo }),
            };
            no_more(k, &args[1..])?;
            Ok(Order::Observers(yes))
        }
        // `END` stands alone (alone, it stops the reading before getting here).
        Kw::End => Err(OrderError::Unexpected { order: k, got: args.first().unwrap_or(&"").to_string() }),
    }
}

/// `ABSENT <from> <to>` (ISO dates) or `ABSENT CANCEL`.
fn absent(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Absent;
    let Some(first) = args.first() else { return Err(OrderError::Missing { order: k, what: Arg::Date }) };
    if matches!(squash(first).as_str(), "cancel" | "annuler" | "none" | "aucune") {
        no_more(k, &args[1..])?;
        return Ok(Order::Absent(None));
    }
    let date = |w: Option<&&str>| -> Result<String, OrderError> {
        let Some(w) = w else { return Err(OrderError::Missing { order: k, what: Arg::Date }) };
        if crate::store::Stamp::parse(&format!("{w}T00:00:00Z")).is_some() && w.len() == 10 {
            Ok(w.to_string())
        } else {
            Err(OrderError::Invalid { order: k, what: Arg::Date, got: w.to_string() })
        }
    };
    let (from, to) = (date(args.first())?, date(args.get(1))?);
    no_more(k, &args[2..])?;
    if to < from {
        return Err(OrderError::Invalid { order: k, what: Arg::Date, got: format!("{from} {to}") });
    }
    Ok(Order::Absent(Some((from, to))))
}

/// `CAR <n>` after `REPLACE` or `FORCE`.
fn car_word(k: Kw, args: &[&str]) -> Result<u8, OrderError> {
    match args.first() {
        Some(w) if Kw::lookup(&squash(w)) == Some(Kw::Car) => {}
        Some(w) => return Err(OrderError::Unexpected { order: k, got: w.to_string() }),
        None => return Err(OrderError::Missing { order: k, what: Arg::CarNumber }),
    }
    Ok(number(k, Arg::CarNumber, args.get(1), 1, 99)? as u8)
}

fn join(args: &[&str], line: &str) -> Result<Order, OrderError> {
    let k = Kw::Join;
    let game = game_id(k, args.first())?;
    let (mut car, mut password, mut phrase) = (None, None, None);
    let mut i = 1;
    while i < args.len() {
        let w = squash(args[i]);
        match w.as_str() {
            "car" | "voiture" => {
                car = Some(number(k, Arg::CarNumber, args.get(i + 1), 1, 99)? as u8);
                i += 2;
            }
            "password" | "motdepasse" | "token" | "jeton" => {
                password = Some(name(k, Arg::Secret, args.get(i + 1))?);
                i += 2;
            }
            "phrase" => {
                // The rest of the line, as written: entropy for the dice key.
                let rest = after_word(line, args[i]).trim();
                if rest.is_empty() {
                    return Err(OrderError::Missing { order: k, what: Arg::Phrase });
                }
                phrase = Some(rest.to_string());
                break;
            }
            _ => return Err(OrderError::Unexpected { order: k, got: args[i].to_string() }),
        }
    }
    Ok(Order::Join { game, car, password, phrase })
}

/// The text of `line` after the first occurrence of the word `w` that follows the keyword.
fn after_word<'a>(line: &'a str, w: &str) -> &'a str {
    // The keyword is the first word; `w` is found after it.
    let start = line.find(char::is_whitespace).unwrap_or(line.len());
    let body = &line[start..];
    let mut from = 0;
    while let Some(p) = body[from..].find(w) {
        let at = from + p;
        let before = body[..at].chars().next_back();
        let after = body[at + w.len()..].chars().next();
        let starts = before.is_none_or(|c| c.is_whitespace() || c == ',' || c == ';');
        let ends = after.is_none_or(|c| c.is_whitespace() || c == ',' || c == ';');
        if starts && ends {
            return &body[at + w.len()..];
        }
        from = at + w.len();
    }
    ""
}

fn setup(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Setup;
    if args.is_empty() {
        return Err(OrderError::MissingParts { parts: Part::ALL.iter().map(|p| p.name()).collect() });
    }
    let mut wear = Wear::default();
    for (p, n) in pairs(k, args)? {
        if wear.get(p) != 0 {
            return Err(OrderError::PartTwice { part: p.name() });
        }
        *wear.get_mut(p) = n;
    }
    let missing: Vec<&'static str> = Part::ALL.iter().filter(|&&p| wear.get(p) == 0).map(|p| p.name()).collect();
    if !missing.is_empty() {
        return Err(OrderError::MissingParts { parts: missing });
    }
    // Chapter 5 is the engine's: the tyre type plays no part in the points check.
    Setup { wear, tyres: Tyres::Hard }.validate().map_err(OrderError::Setup)?;
    Ok(Order::Setup(wear))
}

fn pit(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Pit;
    let Some(w) = args.first() else { return Err(OrderError::Missing { order: k, what: Arg::StopType }) };
    let stop = match squash(w).as_str() {
        "quick" | "short" | "rapide" | "court" => Stop::Quick,
        "long" => Stop::Long,
        _ => return Err(OrderError::Invalid { order: k, what: Arg::StopType, got: w.to_string() }),
    };
    let (mut tyre, mut repairs) = (None, Vec::new());
    let mut i = 1;
    while i < args.len() {
        match squash(args[i]).as_str() {
            "tyres" | "tires" | "pneus" => {
                tyre = Some(tyres(k, args.get(i + 1))?);
                i += 2;
            }
            "repair" | "repairs" | "reparer" | "reparation" | "reparations" => {
                if stop == Stop::Quick {
                    return Err(OrderError::QuickRepair);
                }
                // Repairs run to the end of the line or to a TYRES word.
                let end = (i + 1..args.len())
                    .find(|&j| {
                        matches!(squash(args[j]).as_str(), "tyres" | "tires" | "pneus")
                            && args.get(j + 1).is_some_and(|t| Tyres::parse(&fold(t)).is_some())
                    })
                    .unwrap_or(args.len());
                if end == i + 1 {
                    return Err(OrderError::Missing { order: k, what: Arg::Part });
                }
                repairs.extend(pairs(k, &args[i + 1..end])?);
                i = end;
            }
            _ => return Err(OrderError::Unexpected { order: k, got: args[i].to_string() }),
        }
    }
    Ok(Order::Pit { stop, tyres: tyre, repairs })
}

fn policy(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Policy;
    if args.is_empty() {
        return Err(OrderError::Missing { order: k, what: Arg::Rule });
    }
    // Rules are separated by ELSE / SINON; the words of one rule may be split by spaces
    // (`FARTHEST FREE`).
    let mut groups: Vec<Vec<&str>> = vec![Vec::new()];
    for w in args {
        if matches!(squash(w).as_str(), "else" | "sinon" | "then" | "puis") {
            groups.push(Vec::new());
        } else if let Some(g) = groups.last_mut() {
            g.push(w);
        }
    }
    let mut rules = Vec::new();
    let mut none = false;
    for g in &groups {
        let written = g.join(" ");
        if g.is_empty() {
            return Err(OrderError::Missing { order: k, what: Arg::Rule });
        }
        let folded = squash(&written.replace(' ', ""));
        if matches!(folded.as_str(), "none" | "aucune" | "aucun" | "off" | "rien") {
            none = true;
            continue;
        }
        let r = Rule::parse(&folded).ok_or(OrderError::Invalid { order: k, what: Arg::Rule, got: written })?;
        rules.push(r);
    }
    if none && (!rules.is_empty() || groups.len() > 1) {
        return Err(OrderError::NoneWithRules);
    }
    Ok(Order::Policy(Policy { rules }))
}

fn address(k: Kw, w: Option<&&str>) -> Result<String, OrderError> {
    let Some(a) = w else { return Err(OrderError::Missing { order: k, what: Arg::Address }) };
    let a = a.trim_start_matches('<').trim_end_matches('>');
    let ok =
        a.len() <= 254 && a.split_once('@').is_some_and(|(l, d)| !l.is_empty() && d.contains('.') && !d.contains('@'));
    if !ok {
        return Err(OrderError::Invalid { order: k, what: Arg::Address, got: a.to_string() });
    }
    Ok(a.to_ascii_lowercase())
}

/// `LEAGUE <league> ENTER a | WITHDRAW a | TEAM name a [b] | RACE game TRACK t LAPS n [GRID m] |
/// STANDINGS`, in English or French.
fn league(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::League;
    let league = game_id(k, args.first())?;
    let Some(verb) = args.get(1) else { return Err(OrderError::Missing { order: k, what: Arg::LeagueAction }) };
    let rest = &args[2..];
    let action = match squash(verb).as_str() {
        "enter" | "inscrire" => {
            let a = address(k, rest.first())?;
            no_more(k, &rest[1..])?;
            LeagueAction::Enter(a)
        }
        "withdraw" | "retirer" => {
            let a = address(k, rest.first())?;
            no_more(k, &rest[1..])?;
            LeagueAction::Withdraw(a)
        }
        "team" | "equipe" => {
            let name = name(k, Arg::GameId, rest.first())?;
            let drivers = rest[1..].iter().map(|w| address(k, Some(w))).collect::<Result<Vec<_>, _>>()?;
            if drivers.is_empty() {
                return Err(OrderError::Missing { order: k, what: Arg::Address });
            }
            if drivers.len() > 2 {
                return Err(OrderError::Unexpected { order: k, got: rest[3].to_string() });
            }
            LeagueAction::Team { name, drivers }
        }
        "race" | "course" => {
            let game = game_id(k, rest.first())?;
            let (mut track, mut laps, mut grid) = (None, None, "qualifying".to_string());
            let mut i = 1;
            while i < rest.len() {
                let next = rest.get(i + 1);
                match squash(rest[i]).as_str() {
                    "track" | "circuit" => track = Some(name(k, Arg::Track, next)?),
                    "laps" | "tours" => laps = Some(number(k, Arg::Laps, next, 1, 99)? as u16),
                    "grid" | "grille" => {
                        let g = name(k, Arg::LeagueGrid, next)?.to_ascii_lowercase();
                        if !["qualifying", "d20", "rotating", "bids"].contains(&g.as_str()) {
                            return Err(OrderError::Invalid { order: k, what: Arg::LeagueGrid, got: g });
                        }
                        grid = g;
                    }
                    _ => return Err(OrderError::Unexpected { order: k, got: rest[i].to_string() }),
                }
                i += 2;
            }
            let track = track.ok_or(OrderError::Missing { order: k, what: Arg::Track })?;
            let laps = laps.ok_or(OrderError::Missing { order: k, what: Arg::Laps })?;
            LeagueAction::Race { game, track, laps, grid }
        }
        "standings" | "classement" => {
            no_more(k, rest)?;
            LeagueAction::Standings
        }
        _ => return Err(OrderError::Invalid { order: k, what: Arg::LeagueAction, got: verb.to_string() }),
    };
    Ok(Order::League { league, action })
}

fn create(args: &[&str]) -> Result<Order, OrderError> {
    let k = Kw::Create;
    let game = game_id(k, args.first())?;
    let (mut track, mut laps, mut cars, mut hours, mut profile) = (None, None, None, None, None);
    let (mut weather, mut grid, mut lap_thirds, mut late, mut pits) = (None, None, false, false, None);
    let mut backmarkers = false;
    let mut i = 1;
    while i < args.len() {
        let next = args.get(i + 1);
        match squash(args[i]).as_str() {
            "track" | "circuit" => track = Some(name(k, Arg::Track, next)?),
            "laps" | "tours" => laps = Some(number(k, Arg::Laps, next, 1, 99)? as u16),
            "cars" | "voitures" => cars = Some(number(k, Arg::CarNumber, next, 1, 99)? as u8),
            "hours" | "heures" => hours = Some(number(k, Arg::Hours, next, 1, 24 * 60)?),
            "profile" | "profil" => {
                // A profile, optionally with its toggles joined by `+` (commas split words):
                // `eurogames-advanced:tyres+weather`, kept as the store's spec `...:tyres,weather`.
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::Profile })?;
                let ok = w.len() <= 200
                    && w.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':' | '+'));
                if !ok {
                    return Err(OrderError::Invalid { order: k, what: Arg::Profile, got: w.to_string() });
                }
                profile = Some(w.to_ascii_lowercase().replace('+', ","));
            }
            "weather" | "meteo" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::Weather })?;
                weather = Some(forecast(&squash(w)).ok_or_else(|| OrderError::Invalid {
                    order: k,
                    what: Arg::Weather,
                    got: w.to_string(),
                })?);
            }
            "late" | "retard" | "retards" => late = yes_no(k, next)?,
            "backmarkers" | "retardataires" => backmarkers = yes_no(k, next)?,
            "pits" | "stands" | "boxes" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::PitChoice })?;
                pits = Some(match squash(w).replace('-', "").as_str() {
                    "grid" | "grille" => PitChoice::GridOrder,
                    "reversegrid" | "reverse" | "grilleinverse" | "inverse" => PitChoice::ReverseGrid,
                    _ => return Err(OrderError::Invalid { order: k, what: Arg::PitChoice, got: w.to_string() }),
                });
            }
            "checks" | "controles" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::Checks })?;
                lap_thirds = match squash(w).replace('-', "").as_str() {
                    "lapthirds" | "thirds" | "tiers" | "tiersdetour" => true,
                    "rolls" | "jets" => false,
                    _ => return Err(OrderError::Invalid { order: k, what: Arg::Checks, got: w.to_string() }),
                };
            }
            "grid" | "grille" => {
                let w = next.ok_or(OrderError::Missing { order: k, what: Arg::Grid })?;
                grid = Some(grid_method(&squash(w)).ok_or_else(|| OrderError::Invalid {
                    order: k,
                    what: Arg::Grid,
                    got: w.to_string(),
                })?);
            }
            _ => return Err(OrderError::Unexpected { order: k, got: args[i].to_string() }),
        }
        i += 2;
    }
    let track = track.ok_or(OrderError::Missing { order: k, what: Arg::Track })?;
    let laps = laps.ok_or(OrderError::Missing { order: k, what: Arg::Laps })?;
    Ok(Order::Create { game, track, laps, cars, hours, profile, weather, grid, lap_thirds, late, pits, backmarkers })
}

/// A CREATE setting's `YES` or `NO`, English or French.
fn yes_no(k: Kw, word: Option<&&str>) -> Result<bool, OrderError> {
    let w = word.ok_or(OrderError::Missing { order: k, what: Arg::YesNo })?;
    match squash(w).as_str() {
        "yes" | "oui" | "on" => Ok(true),
        "no" | "non" | "off" => Ok(false),
        _ => Err(OrderError::Invalid { order: k, what: Arg::YesNo, got: w.to_string() }),
    }
}

/// A CREATE's GRID word, English or French (`essais`: qualifying).
fn grid_method(w: &str) -> Option<GridMethod> {
    match w {
        "inscription" | "ordre" => Some(GridMethod::Join),
        "essais" => Some(GridMethod::Qualifying),
        "essais-de-noir" | "essais-noir" => Some(GridMethod::QualifyingBlackDie),
        _ => GridMethod::parse(w),
    }
}

/// A CREATE's WEATHER word, English or French (`piste`: the track's table).
fn forecast(w: &str) -> Option<Forecast> {
    match w {
        "soleil" | "sec" => Some(Forecast::Sun),
        "pluie" | "mouille" => Some(Forecast::Rain),
        "variable" => Some(Forecast::Changeable),
        "piste" | "circuit" | "table" => Some(Forecast::Track),
        _ => Forecast::parse(w),
    }
}
