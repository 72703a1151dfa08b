//! The order language players write in the body of a mail (docs/orders.md): one order per line,
//! case-insensitive, English or French keywords, accents optional. Parsing is pure and keeps
//! every line's number and text so the receipt can answer line by line; a message with any
//! error applies nothing.
mod args;
mod driving;
mod error;
mod instructions;
mod keyword;
mod lines;
mod moderator;
mod player;
pub mod policy;
pub mod preview;
mod receipt;
mod report_mode;

pub use error::{Arg, OrderError};
pub(crate) use keyword::near;
pub use keyword::{Kw, fold, squash};
pub use lines::parse;
pub use receipt::{RECEIPT_WIDTH, masked, receipt};
pub(crate) use receipt::{wrap, wrap_note};
pub use report_mode::ReportMode;

use crate::engine::pits::PitChoice;
use crate::engine::weather::Forecast;
use crate::engine::{Part, Tyres, Wear};
use crate::orders::policy::Policy;
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
        /// `CONFIRM <code>`: the code steward mailed to the address, proving the JOIN is its
        /// own (issue 45: nobody is given a car by a mail forged in their name).
        confirm: Option<String>,
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
    /// The instructions for the car's next move only (a round order's, issue 46); no rule
    /// clears them.
    Drive(Policy),
    /// The instructions for the car's whole timed lap of qualifying (issue 46): steward picks
    /// each gear as its lap driver does, and the instructions choose after each roll.
    Lap(Policy),
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
    /// The time zone the sender's deadlines are written in (`Europe/Paris`).
    TimeZone(String),
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
        /// `PACE ROUND`: deadlines per round, every decision of a round due `HOURS` after the
        /// round began (issue 46); `PACE MOVE` (the default): each decision `HOURS` after it is
        /// asked.
        round_pace: bool,
        /// `AT 20:00` (`A 20:00`): every round due at that time of day in the game's zone
        /// (`ZONE Europe/Paris`, `FUSEAU`; UTC by default; the default zone its players' deadlines
        /// are written in), skipping weekends with `WEEKENDS NO`, with at least `NOTICE` hours (12) and a
        /// `GRACE` of minutes (issue 46; implies `PACE ROUND`).
        schedule: Option<crate::store::Schedule>,
        /// `BEACON DRAND 5700000` or `BEACON NIST 2026-12-10T20:00:00Z`: a public value mixed into
        /// the dice key at the start (docs/dice.md, section 6).
        beacon: Option<crate::store::Beacon>,
    },
    /// A league edit (moderators) or the league's standings (anyone).
    League {
        /// The league.
        league: String,
        /// What to do.
        action: LeagueAction,
    },
    /// Moderator: start the race; with the beacon's value, for a game that names one.
    Start(Option<String>),
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
    Watch(String, Option<String>),
    /// Stop observing a game (the mail's `GAME` when none is named).
    Unwatch(Option<String>, Option<String>),
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
                | Order::Start(_)
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
