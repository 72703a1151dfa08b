//! Issue 45's property: a stranger holding every kind of leaked address — the reply addresses a
//! car was ever mailed (answered, stale, of another car, the one open now, one with its code
//! altered), the plain address — and forging any `From` (a player's, the moderator's, an
//! observer's) throws mails of every command at the daemon. Whatever they send, no car, game or
//! preference of anybody else changes: the one thing a leaked address may do is answer its own
//! prompt while it is open (docs/orders.md, "Who may give what").
//!
//! The race is set up once (two players who have answered prompts, an observer, an absence, a
//! policy, a language, a second game open for joins) and copied for every case.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use proptest::prelude::*;
use steward::mail::transport::{Inbox, MaildirInbox};
use steward::store::files::Kind;

use super::daemon::{MOD, MOD_TOKEN, STEWARD};
use super::desk::Desk;
use super::{code_in, mails_of, scratch};

const STRANGER: &str = "stranger@leak.invalid";
const FAN: &str = "fan@test.invalid";
const P1: &str = "p1@test.invalid";
const P2: &str = "p2@test.invalid";

/// The set-up race and the addresses the stranger holds.
struct Template {
    root: PathBuf,
    leaked: Vec<String>,
    /// What the stranger may guess of the secrets' shapes: tokens of the right length.
    guesses: Vec<String>,
    /// The players' tokens (the authority table's "token" column).
    tokens: Vec<String>,
}

/// A mail to `to` (the plain address or a reply address), with a `Reply-To` if given.
fn mail(from: &str, to: &str, reply_to: Option<&str>, id: &str, body: &str) -> Vec<u8> {
    let rt = reply_to.map(|r| format!("Reply-To: {r}\r\n")).unwrap_or_default();
    super::replytags::letter(from, to, &rt, id, body)
}

/// The newest signed reply address `who` was mailed.
fn newest_tag(root: &Path, who: &str) -> Option<(u32, String)> {
    mails_of(root, who)
        .into_iter()
        .filter_map(|m| {
            let r = m.reply_to?;
            let tag = steward::mail::tag::tag_in(STEWARD, &r)?;
            Some((steward::mail::tag::parse(&tag)?.turn, r))
        })
        .max()
}

fn template() -> &'static Template {
    static T: OnceLock<Template> = OnceLock::new();
    T.get_or_init(|| {
        let mut d = Desk::new("leaked-template", |_| {});
        d.mail(MOD, "s", &format!("TOKEN {MOD_TOKEN}\nCREATE g TRACK sprint LAPS 1 CARS 2 HOURS 24"));
        d.mail(MOD, "s", &format!("TOKEN {MOD_TOKEN}\nCREATE g2 TRACK sprint LAPS 1 CARS 3 HOURS 24"));
        let mut tokens = Vec::new();
        for (c, who) in [(1, P1), (2, P2)] {
            d.mail(who, "s", &format!("JOIN g CAR {c}"));
            let token = d
                .messages(who)
                .iter()
                .find_map(|m| super::token_in(&m.full_body))
                .expect("the welcome carries the token");
            tokens.push(token);
        }
        d.mail(P1, "s", "JOIN g2 CAR 1");
        let signed = |c: usize, orders: &str| format!("GAME g\nCAR {c}\nTOKEN {}\n{orders}", tokens[c - 1]);
        d.mail(P1, "s", &signed(1, "POLICY FARTHEST-FREE ELSE SAFEST\nLANG en"));
        d.mail(P2, "s", &signed(2, "ABSENT 2099-01-01 2099-01-02\nREPORTS ALL"));
        d.mail(FAN, "s", "WATCH g");
        let asked: String = mails_of(&d.root, FAN).iter().map(|m| m.full_body.clone()).collect();
        let code = code_in(&asked, "WATCH g CONFIRM ");
        d.mail(FAN, "s", &format!("WATCH g CONFIRM {code}"));
        d.mail(MOD, "s", &format!("GAME g\nTOKEN {MOD_TOKEN}\nSTART"));
        // The players answer a few prompts by bare replies: their addresses are now used.
        for _ in 0..6 {
            let Some((car, choice)) = d.game("g").awaited() else { break };
            let who = if car == 1 { P1 } else { P2 };
            let (_, tag) = newest_tag(&d.root, who).expect("a prompt has a reply address");
            let n = d.next_number();
            d.deliver(&mail(who, &tag, None, &format!("a{n}"), if choice { "A" } else { "GEAR 1" }));
            d.pass();
        }
        let mut leaked: Vec<String> = [P1, P2, FAN]
            .iter()
            .flat_map(|who| mails_of(&d.root, who))
            .filter_map(|m| m.reply_to.filter(|r| r.contains('+')))
            .collect();
        leaked.sort();
        leaked.dedup();
        assert!(leaked.len() >= 4, "answered and open reply addresses: {leaked:?}");
        // One altered: its code's last letter changed.
        let altered = {
            let t = leaked[0].clone();
            let at = t.find('@').unwrap();
            let last = t.as_bytes()[at - 1];
            format!("{}{}{}", &t[..at - 1], if last == b'a' { 'b' } else { 'a' }, &t[at..])
        };
        leaked.push(altered);
        leaked.push(STEWARD.into());
        let guesses = vec![
            "0".repeat(24),
            {
                // One character off the real token: never the token itself.
                let last = if tokens[0].ends_with('0') { "1" } else { "0" };
                tokens[0][..23].to_string() + last
            },
            MOD_TOKEN.to_uppercase(),
        ];
        Template { root: d.root.clone(), leaked, guesses, tokens }
    })
}

/// What belongs to somebody: each game's players, clock and end, its turns other than moves,
/// the daemon's record of its observers and absences, every car's standing orders and report
/// mode, every address's language and time zone but the stranger's, the games there are.
#[derive(Clone, Debug, PartialEq)]
struct Owned {
    games: Vec<String>,
    players: BTreeMap<String, Vec<(u8, String, String)>>,
    clock: BTreeMap<String, (bool, bool, bool, u32)>,
    other_turns: BTreeMap<String, Vec<(u32, String)>>,
    moves: BTreeMap<String, Vec<(u32, Vec<u8>)>>,
    judge: BTreeMap<String, String>,
    policies: BTreeMap<(String, u8), Option<String>>,
    queued: BTreeMap<(String, u8), String>,
    modes: BTreeMap<(String, u8), Option<String>>,
    people: BTreeMap<String, String>,
}

fn owned(d: &Desk) -> Owned {
    let store = d.store();
    let state = d.root.join("mail-state");
    let mut o = Owned {
        games: store.list().unwrap(),
        players: BTreeMap::new(),
        clock: BTreeMap::new(),
        other_turns: BTreeMap::new(),
        moves: BTreeMap::new(),
        judge: BTreeMap::new(),
        policies: BTreeMap::new(),
        queued: BTreeMap::new(),
        modes: BTreeMap::new(),
        people: BTreeMap::new(),
    };
    for id in &o.games {
        let g = store.load(id, None).unwrap();
        o.players.insert(
            id.clone(),
            g.now.players.iter().map(|p| (p.car, p.address.clone(), p.token_sha256.clone())).collect(),
        );
        o.clock.insert(id.clone(), (g.now.paused, g.now.over, g.now.revealed.is_some(), g.now.move_hours));
        o.other_turns.insert(
            id.clone(),
            g.turns.iter().filter(|t| t.kind != Kind::Move).map(|t| (t.turn, t.kind.name().to_string())).collect(),
        );
        o.moves.insert(
            id.clone(),
            g.turns
                .iter()
                .filter(|t| t.kind == Kind::Move)
                .map(|t| (t.turn, t.orders.iter().map(|x| x.car).collect()))
                .collect(),
        );
        let dir = state.join("games").join(id);
        o.judge.insert(id.clone(), std::fs::read_to_string(dir.join("judge.toml")).unwrap_or_default());
        for p in g.now.players.iter() {
            let car: toml::Table =
                toml::from_str(&std::fs::read_to_string(dir.join(format!("car-{}.toml", p.car))).unwrap_or_default())
                    .unwrap();
            o.policies.insert((id.clone(), p.car), car.get("policy").map(|v| v.to_string()));
            let rest: toml::Table = car.into_iter().filter(|(k, _)| k != "policy").collect();
            o.queued.insert((id.clone(), p.car), rest.to_string());
            let r: toml::Table = toml::from_str(
                &std::fs::read_to_string(dir.join(format!("reports-{}.toml", p.car))).unwrap_or_default(),
            )
            .unwrap();
            o.modes.insert((id.clone(), p.car), r.get("mode").map(|v| v.to_string()));
        }
    }
    for e in std::fs::read_dir(state.join("people")).into_iter().flatten().flatten() {
        let text = std::fs::read_to_string(e.path()).unwrap();
        if !text.contains(STRANGER) {
            o.people.insert(e.file_name().to_string_lossy().into_owned(), text);
        }
    }
    o
}

/// The car whose prompt `to` answers, if `to` is the reply address of a prompt still open: the
/// car has not moved since it was asked (a gear prompt, or the round prompt that takes the
/// car's gear and DRIVE ahead of its turn until it rolls).
fn open_prompt(d: &Desk, to: &str) -> Option<u8> {
    let parts = steward::mail::tag::parse(&steward::mail::tag::tag_in(STEWARD, to)?)?;
    let g = d.game("g");
    let answered =
        g.turns.iter().skip(parts.turn as usize + 1).any(|t| {
            t.orders.iter().any(|o| o.car == parts.car) || t.player.as_ref().is_some_and(|p| p.car == parts.car)
        });
    (!answered && !g.now.over).then_some(parts.car)
}

/// The stranger's orders: every command, signed with what they could guess or not at all.
const ORDERS: &[&str] = &[
    "GEAR 2",
    "1",
    "A",
    "CHOOSE B",
    "PIT QUICK",
    "REROLL",
    "GEAR 2\nDRIVE BOT",
    "POLICY BOT",
    "ABSENT 2026-11-22 2099-12-31",
    "ABSENT CANCEL",
    "RETIRE",
    "RETIRE CONFIRM 00000000",
    "LANG fr",
    "REPORTS NONE",
    "TIMEZONE Asia/Tokyo",
    "WATCH g",
    "WATCH g CONFIRM 00000000",
    "UNWATCH g",
    "OBSERVERS NO",
    "JOIN g2 CAR 2\nLANG fr",
    "JOIN g2 CONFIRM 00000000 CAR 2",
    "START",
    "PAUSE",
    "DEADLINE 1",
    "REPLACE CAR 1 stranger@leak.invalid",
    "FORCE CAR 1",
    "FORCE CAR 2",
    "ROLLBACK 5",
    "REVEAL",
    "CREATE g3 TRACK sprint LAPS 1",
    "LEAGUE l ENTER stranger@leak.invalid",
];

#[derive(Clone, Debug)]
struct Throw {
    to: usize,
    from: usize,
    head: usize,
    order: usize,
}

fn throw() -> impl Strategy<Value = Throw> {
    (any::<usize>(), 0usize..5, 0usize..6, 0..ORDERS.len()).prop_map(|(to, from, head, order)| Throw {
        to,
        from,
        head,
        order,
    })
}

/// A fresh copy of the template's race in scratch directory `name`, its mails read.
fn copy(name: &str) -> Desk {
    let t = template();
    let root = scratch(name);
    let copied = std::process::Command::new("cp").arg("-a").arg(t.root.join(".")).arg(&root).status().unwrap();
    assert!(copied.success());
    Desk::open(root.clone(), Desk::config(&root))
}

/// What proves who sends: the columns of docs/orders.md's "Who may give what", plus a reply
/// address whose prompt was answered.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Proof {
    Token,
    OpenReply,
    UsedReply,
    Moderator,
    Nothing,
}

/// The authority table cell by cell (issue 45): for each order and each proof, whether the
/// order takes effect, as docs/orders.md's table says (the test reads the table, so the two
/// cannot drift apart), tried on a copy of the race.
#[test]
fn the_authority_table_cell_by_cell() {
    let doc = std::fs::read_to_string(crate::support::root().join("docs/orders.md")).unwrap();
    let at = doc.find("## Who may give what").unwrap();
    let rows: Vec<Vec<String>> = doc[at..]
        .lines()
        .skip_while(|l| !l.starts_with("| order"))
        .skip(2)
        .take_while(|l| l.starts_with('|'))
        .map(|l| l.trim_matches('|').split(" | ").map(|c| c.trim().to_string()).collect())
        .collect();
    let cell = |order: &str, proof: Proof| -> bool {
        let row = rows
            .iter()
            .find(|r| r[0].split(", ").any(|w| w.trim_end_matches(" kept") == format!("`{order}`")))
            .unwrap_or_else(|| panic!("no row for {order} in the table"));
        let text = match proof {
            Proof::Token => &row[1],
            Proof::OpenReply => &row[2],
            Proof::UsedReply => return false,
            Proof::Moderator => &row[3],
            Proof::Nothing => &row[4],
        };
        text.starts_with("yes") || text.starts_with("moderator") || text.starts_with("its own open prompt")
    };
    let t = template();
    type Effect = fn(&Desk, u8, &str) -> bool;
    let orders: [(&str, &str, Effect); 6] = [
        ("GEAR", "<answer>", |d, c, _| {
            // A turn of this cell's mail (its Message-ID starts with `cell`) moved the car.
            let moved = d.game("g").turns.iter().any(|t| {
                t.source.as_ref().and_then(|s| s.message_id.as_deref()).is_some_and(|m| m.starts_with("cell"))
                    && t.orders.iter().any(|o| o.car == c)
            });
            moved
                || std::fs::read_to_string(d.root.join(format!("mail-state/games/g/car-{c}.toml")))
                    .unwrap_or_default()
                    .contains("[gear]")
        }),
        ("POLICY", "POLICY BOT", |d, c, _| {
            std::fs::read_to_string(d.root.join(format!("mail-state/games/g/car-{c}.toml")))
                .unwrap_or_default()
                .contains("policy = \"BOT\"")
        }),
        ("ABSENT", "ABSENT 2099-05-01 2099-05-02", |d, _, _| {
            std::fs::read_to_string(d.root.join("mail-state/games/g/judge.toml"))
                .unwrap_or_default()
                .contains("2099-05-01")
        }),
        ("RETIRE", "RETIRE", |d, _, who| d.messages(who).iter().any(|m| m.full_body.contains("send RETIRE CONFIRM "))),
        ("LANG", "LANG fr", |d, _, who| {
            std::fs::read_dir(d.root.join("mail-state/people")).into_iter().flatten().flatten().any(|e| {
                let text = std::fs::read_to_string(e.path()).unwrap();
                text.contains(&format!("address = \"{who}\"")) && text.contains("lang = \"fr\"")
            })
        }),
        ("PAUSE", "PAUSE", |d, _, _| d.game("g").now.paused),
    ];
    let mut n = 0;
    for (order, text, took) in orders {
        for proof in [Proof::Token, Proof::OpenReply, Proof::UsedReply, Proof::Moderator, Proof::Nothing] {
            n += 1;
            let mut d = copy(&format!("authority-{n}"));
            let (car, choice) = d.game("g").awaited().unwrap();
            let owner = if car == 1 { P1 } else { P2 };
            let text = if text == "<answer>" { if choice { "A" } else { "GEAR 1" } } else { text };
            let tags: Vec<String> = mails_of(&d.root, owner)
                .into_iter()
                .filter_map(|m| m.reply_to)
                .filter(|r| {
                    steward::mail::tag::tag_in(STEWARD, r)
                        .and_then(|x| steward::mail::tag::parse(&x))
                        .is_some_and(|p| p.car == car)
                })
                .collect();
            let open = tags.iter().find(|r| open_prompt(&d, r).is_some()).cloned();
            let used =
                tags.iter().find(|r| open_prompt(&d, r).is_none()).cloned().expect("an answered prompt's address");
            let token = &t.tokens[car as usize - 1];
            let (from, to, body) = match proof {
                Proof::Token => (owner, STEWARD.to_string(), format!("GAME g\nCAR {car}\nTOKEN {token}\n{text}")),
                Proof::OpenReply => (owner, open.clone().expect("the awaited car's open prompt"), text.to_string()),
                Proof::UsedReply => (owner, used, text.to_string()),
                Proof::Moderator => (MOD, STEWARD.to_string(), format!("GAME g\nTOKEN {MOD_TOKEN}\n{text}")),
                Proof::Nothing => (owner, STEWARD.to_string(), format!("GAME g\nCAR {car}\n{text}")),
            };
            d.received(from);
            d.deliver(&mail(from, &to, None, &format!("cell{n}"), &body));
            d.pass();
            let want = cell(order, proof);
            assert_eq!(took(&d, car, from), want, "{order} with {proof:?} ({body:?} to {to}): the table says {want}");
            let _ = std::fs::remove_dir_all(&d.root);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn a_stranger_with_leaked_addresses_changes_nothing_of_anybody_else(throws in prop::collection::vec(throw(), 1..10)) {
        let t = template();
        static N: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let mut d = copy(&format!("leaked-{}", N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)));
        let root = d.root.clone();
        // Mails from the template's run are read: only what the stranger causes is new.
        let mut ib = MaildirInbox::open(root.join("mail").join(STRANGER)).ok();
        if let Some(ib) = ib.as_mut() {
            for m in ib.fetch(10_000).unwrap() {
                ib.mark_processed(&m.key).unwrap();
            }
        }
        for (i, th) in throws.iter().enumerate() {
            let to = &t.leaked[th.to % t.leaked.len()];
            // From the stranger, or forged from someone with the stranger's Reply-To.
            let (from, reply_to) = match th.from {
                0 => (STRANGER, None),
                1 => (P1, Some(STRANGER)),
                2 => (P2, Some(STRANGER)),
                3 => (MOD, Some(STRANGER)),
                _ => (FAN, Some(STRANGER)),
            };
            let car = 1 + (th.head % 2);
            let head = match th.head / 2 {
                0 => String::new(),
                1 => format!("GAME g\nCAR {car}\n"),
                _ => format!("GAME g\nCAR {car}\nTOKEN {}\n", t.guesses[th.head % t.guesses.len()]),
            };
            let order = ORDERS[th.order];
            let body = if order.starts_with("JOIN") || order.starts_with("CREATE") || order.starts_with("LEAGUE") {
                order.to_string()
            } else {
                format!("{head}{order}")
            };
            let before = owned(&d);
            let open = open_prompt(&d, to);
            d.deliver(&mail(from, to, reply_to, &format!("x{i}-{}", th.order), &body));
            d.pass();
            let after = owned(&d);
            match open {
                // An open prompt's address answers that prompt: the car moves (and so may the
                // cars after it, on their own orders), or its gear or DRIVE waits for its turn;
                // nothing else changes.
                Some(c) => {
                    let mut a = after.clone();
                    if after.moves != before.moves {
                        let new: Vec<_> = after.moves["g"].iter().filter(|m| !before.moves["g"].contains(m)).collect();
                        prop_assert!(new.first().is_some_and(|m| m.1.contains(&c)), "{body:?} to {to}: moves {new:?}, not car {c}'s first");
                        a.moves = before.moves.clone();
                        a.queued = before.queued.clone();
                    } else {
                        a.queued.insert(("g".into(), c), before.queued[&("g".to_string(), c)].clone());
                    }
                    prop_assert_eq!(&a, &before, "{:?} from {} to {}: more than car {}'s answer changed", body, from, to, c);
                }
                None => prop_assert_eq!(&after, &before, "{:?} from {} to {} changed what is not the stranger's", body, from, to),
            }
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
