//! Reading a mail body: which lines are orders and which are prose around them, each line's
//! words with its typography undone, and each keyword sent to the reader of its family.

use super::args::{game_id, name, no_more, number};
use super::{Arg, Kw, Line, Order, OrderError, Parsed, driving, fold, instructions, moderator, player, squash};

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
        Kw::Join => player::join(args, line),
        Kw::Setup => driving::setup(args),
        Kw::Tyres => driving::starting_tyres(args),
        Kw::Boxes => driving::boxes(args),
        Kw::Gear => driving::gear(args),
        Kw::Choose => driving::choose(args),
        Kw::Reroll => bare(Order::Reroll),
        Kw::Pit => driving::pit(args),
        Kw::Policy => instructions::policy(args),
        Kw::Drive => instructions::drive(args),
        Kw::Lap => instructions::lap(args),
        Kw::Board => bare(Order::Board),
        Kw::History => player::history(args),
        Kw::Help => bare(Order::Help),
        Kw::Standings => bare(Order::Standings),
        Kw::Lang => player::lang(args),
        Kw::TimeZone => player::timezone(args),
        Kw::Reports => player::reports(args),
        Kw::Create => moderator::create(args),
        Kw::League => moderator::league(args),
        Kw::Start => moderator::start(args),
        Kw::Pause => bare(Order::Pause),
        Kw::Resume => bare(Order::Resume),
        Kw::Deadline => moderator::deadline(args),
        Kw::Replace => moderator::replace(args),
        Kw::Force => moderator::force(args),
        Kw::Reveal => bare(Order::Reveal),
        Kw::List => player::list(args),
        Kw::Watch => player::watch(args),
        Kw::Unwatch => player::unwatch(args),
        Kw::Absent => player::absent(args),
        Kw::Retire => player::retire(args),
        Kw::Rollback => moderator::rollback(args),
        Kw::Observers => moderator::observers(args),
        // `END` stands alone (alone, it stops the reading before getting here).
        Kw::End => Err(OrderError::Unexpected { order: k, got: args.first().unwrap_or(&"").to_string() }),
    }
}
