//! Secrets and impersonation (issue 13, items 5 and 6): no mail but the welcome to the address
//! that joined carries a token, whatever a sender echoes (refusals, subjects, misspelt orders,
//! display names); display names are cleaned before anyone sees them; a JOIN's token goes to
//! From, never to Reply-To; a LANG needs the token. Then a property test throws thousands of
//! hostile mails at a daemon on a Maildir and checks the same on every mail that leaves it.

use std::collections::HashMap;

use proptest::prelude::*;

use steward::store::Store;
use steward::store::fsio::Durability;

use super::desk::Desk;
use super::scratch;

const STEWARD: &str = "steward@sec.invalid";
const MOD: &str = "mod@sec.invalid";
const MOD_TOKEN: &str = "moderator-secret";

/// A mail leaving the daemon, as a player's client shows it.
#[derive(Debug)]
pub(super) struct Out {
    pub(super) mailbox: String,
    pub(super) subject: String,
    pub(super) text: String,
}

/// A daemon on Maildirs with game `g` created and `players` joined.
pub(super) struct Rig {
    desk: Desk,
}

on_a_desk!(Rig);

impl Rig {
    pub(super) fn new(name: &str) -> Rig {
        let root = scratch(name);
        let mut cfg = Desk::config_for(&root, STEWARD, MOD, MOD_TOKEN);
        cfg.rate_per_hour = 1_000_000;
        Rig { desk: Desk::open(root, cfg) }
    }

    /// Delivers a mail with these header lines and body (no pass); its Maildir key.
    pub(super) fn drop_mail(&mut self, headers: &str, body: &str) -> String {
        let raw = format!(
            "{headers}\r\nTo: {STEWARD}\r\nMessage-ID: <s{}@sec.invalid>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n",
            self.desk.next_number()
        );
        self.desk.deliver(raw.as_bytes())
    }

    /// Sets the delivery time of the message `key` in steward's mailbox.
    pub(super) fn set_arrival(&self, key: &str, at: i64) {
        let f = std::fs::File::options()
            .write(true)
            .open(self.root.join("mail").join(STEWARD).join("new").join(key))
            .unwrap();
        f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(at as u64)).unwrap();
    }

    pub(super) fn send(&mut self, from: &str, body: &str) {
        self.drop_mail(&format!("From: {from}\r\nSubject: orders"), body);
        self.pass();
    }

    /// [`Rig::send`] of a JOIN, then the JOIN confirmed with the code mailed to `from`.
    pub(super) fn joined(&mut self, from: &str, body: &str) {
        self.send(from, body);
        if let Some(confirmed) = self.desk.confirm_join(from, body) {
            self.send(from, &confirmed);
        }
    }

    /// Every mail delivered so far to anyone but steward (text and HTML parts, subject).
    pub(super) fn mails(&self) -> Vec<Out> {
        let mut v = Vec::new();
        for e in std::fs::read_dir(self.root.join("mail")).unwrap() {
            let dir = e.unwrap().path();
            let mailbox = dir.file_name().unwrap().to_string_lossy().into_owned();
            if mailbox == STEWARD {
                continue;
            }
            for sub in ["new", "cur"] {
                let Ok(rd) = std::fs::read_dir(dir.join(sub)) else { continue };
                for f in rd {
                    let raw = std::fs::read(f.unwrap().path()).unwrap();
                    let m = mail_parser::MessageParser::default().parse(&raw).unwrap();
                    let mut text = String::new();
                    for i in 0..4 {
                        text.extend(m.body_text(i).map(|t| t.into_owned()));
                        text.extend(m.body_html(i).map(|t| t.into_owned()));
                    }
                    v.push(Out { mailbox: mailbox.clone(), subject: m.subject().unwrap_or("").to_string(), text });
                }
            }
        }
        v
    }

    /// The tokens mailed so far: token → the mailbox of its welcome.
    pub(super) fn tokens(&self) -> HashMap<String, String> {
        tokens_in(&self.mails())
    }

    /// Game `g` on sprint with players `p1`...`pN`; their tokens.
    pub(super) fn game(&mut self, players: u8) -> Vec<String> {
        self.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE g TRACK sprint LAPS 1 CARS 6 HOURS 24"));
        for c in 1..=players {
            self.joined(&format!("p{c}@sec.invalid"), &format!("JOIN g CAR {c}"));
        }
        let tokens = self.tokens();
        (1..=players)
            .map(|c| {
                let who = format!("p{c}@sec.invalid");
                tokens.iter().find(|(_, m)| **m == who).map(|(t, _)| t.clone()).expect("a welcome with a token")
            })
            .collect()
    }

    /// Fails if a token is in any mail but the welcome to the address that joined.
    pub(super) fn assert_no_leak(&self) {
        assert_no_leak(&self.mails());
    }
}

/// The tokens in `mails`: token → the mailbox of its welcome.
fn tokens_in(mails: &[Out]) -> HashMap<String, String> {
    let mut t = HashMap::new();
    for m in mails {
        if m.subject.contains("drive car") {
            for l in m.text.lines() {
                if let Some(tok) = l.trim().strip_prefix("TOKEN ") {
                    t.insert(tok.trim().to_string(), m.mailbox.clone());
                }
            }
        }
    }
    t
}

/// Fails if a token is in any of `mails` but the welcome to the address that joined.
fn assert_no_leak(mails: &[Out]) {
    let tokens = tokens_in(mails);
    for m in mails {
        for (t, owner) in &tokens {
            let welcome = m.subject.contains("drive car") && m.mailbox == *owner;
            let seen = m.text.contains(t.as_str()) || m.subject.contains(t.as_str());
            assert!(welcome || !seen, "token of {owner} in a mail to {}: {:?}\n{}", m.mailbox, m.subject, m.text);
        }
    }
}

#[test]
fn refusals_and_echoed_subjects_never_show_a_token() {
    let mut r = Rig::new("sec-echo");
    let t = r.game(2);
    let t1 = &t[0];
    // Each of these echoed the token in clear (issue 13, item 5).
    r.drop_mail(&format!("From: p1@sec.invalid\r\nSubject: TOKEN {t1}"), "GAME g\nCAR 1\nHELP");
    r.drop_mail("From: p1@sec.invalid\r\nSubject: o", &format!("GAME g\nCAR 1 TOKEN {t1}\nBOARD"));
    r.drop_mail("From: p1@sec.invalid\r\nSubject: o", &format!("GAME g\nCAR 1\nTOKEN {t1}\nGEAR zz{t1}zz"));
    r.drop_mail("From: p1@sec.invalid\r\nSubject: o", &format!("GAME g\nJETON : {t1}\nBOARD"));
    r.drop_mail("From: p1@sec.invalid\r\nSubject: o", &format!("GAME g\nCAR 1\nTOKEN: {t1}\nCHOOSE {t1}"));
    r.drop_mail(
        &format!("From: \"{t1}\" <p2@sec.invalid>\r\nSubject: o"),
        &format!("GAME g\nCAR 2\nTOKEN {}\nBOARD", t[1]),
    );
    r.drop_mail("From: p1@sec.invalid\r\nSubject: o", &format!("JOIN g CAR 1 PASSWORD {MOD_TOKEN}\nGEER 4"));
    r.pass();
    r.assert_no_leak();
    let all: String = r.mails().iter().map(|m| format!("{}\n{}\n", m.subject, m.text)).collect();
    assert!(!all.contains(MOD_TOKEN), "the moderator's token is echoed");
    assert!(all.contains("********"), "the echoes are masked, not dropped");
}

#[test]
fn a_moderator_s_token_is_never_echoed_even_under_a_misspelt_keyword() {
    // Issue 45, item 10: `TOKN <moderator token>` was echoed in clear to the mail's Reply-To.
    let mut r = Rig::new("sec-tokn");
    r.game(2);
    let to = "Reply-To: list@elsewhere.invalid\r\nSubject: o";
    r.drop_mail(&format!("From: {MOD}\r\n{to}"), &format!("GAME g\nTOKN {MOD_TOKEN}\nPAUSE"));
    r.drop_mail(&format!("From: {MOD}\r\n{to}"), &format!("GAME g\nTOKEN\nPAUSE {MOD_TOKEN}"));
    r.drop_mail(&format!("From: {MOD}\r\n{to}"), &format!("GAME g\nmy key is {MOD_TOKEN} PAUSE"));
    r.pass();
    let mails = r.mails();
    let to_list: Vec<_> = mails.iter().filter(|m| m.mailbox.contains("list@elsewhere")).collect();
    assert!(to_list.len() >= 3, "each mail is answered at its Reply-To: {mails:?}");
    for m in &mails {
        assert!(!m.text.contains(MOD_TOKEN) && !m.subject.contains(MOD_TOKEN), "to {}:\n{}", m.mailbox, m.text);
    }
    assert!(to_list.iter().all(|m| m.text.contains("********")), "the echoes are masked, not dropped");
}

#[test]
fn a_join_mails_the_token_to_from_never_to_reply_to() {
    let mut r = Rig::new("sec-replyto");
    r.game(1);
    // Issue 45, item 4: a JOIN forged in the victim's name takes no car; the code that would
    // take it goes to the victim's From address alone, never to the Reply-To.
    let forged = "From: victim@sec.invalid\r\nReply-To: attacker@sec.invalid\r\nSubject: join";
    r.drop_mail(forged, "JOIN g CAR 2");
    r.pass();
    let seated = |r: &Rig| Store::new(r.root.join("games")).load("g", None).unwrap().player(2).is_some();
    assert!(!seated(&r), "a forged JOIN took car 2");
    let mails = r.mails();
    let to = |who: &str| mails.iter().filter(|m| m.mailbox == who).map(|m| m.text.clone()).collect::<String>();
    let victim = to("victim@sec.invalid");
    let at = victim.find("JOIN g CONFIRM ").expect("the code goes to From") + "JOIN g CONFIRM ".len();
    let code = &victim[at..at + 8];
    assert!(!to("attacker@sec.invalid").contains(code), "the code went to Reply-To:\n{}", to("attacker@sec.invalid"));
    assert!(to("attacker@sec.invalid").contains("confirmation code was mailed to victim@sec.invalid"));
    // A guessed code takes nothing.
    r.drop_mail(forged, "JOIN g CONFIRM 00000000 CAR 2");
    r.pass();
    assert!(!seated(&r), "a guessed code took car 2");
    // The victim, who did want the car, confirms from their own address: the token goes to From.
    let confirmed = r.desk.confirm_join("victim@sec.invalid", "JOIN g CAR 2").expect("the code");
    r.drop_mail(forged, &confirmed);
    r.pass();
    assert!(seated(&r), "the confirmed JOIN takes car 2");
    let tokens = r.tokens();
    assert!(tokens.values().any(|m| m == "victim@sec.invalid"), "the welcome goes to From");
    assert!(!tokens.values().any(|m| m == "attacker@sec.invalid"), "no welcome to Reply-To");
    r.assert_no_leak();
}

#[test]
fn a_player_without_a_display_name_is_car_n_never_their_address() {
    // Issue 45, item 9: a bare `From:` put the address on the race page and in every report.
    let mut r = Rig::new("sec-bare");
    r.game(2);
    r.send(MOD, &format!("GAME g\nTOKEN {MOD_TOKEN}\nSTART"));
    let mails = r.mails();
    for (me, other) in [("p1@sec.invalid", "p2@sec.invalid"), ("p2@sec.invalid", "p1@sec.invalid")] {
        let mine: Vec<&Out> = mails.iter().filter(|m| m.mailbox == me).collect();
        assert!(mine.iter().any(|m| m.text.contains("car 2") || m.text.contains("Car 2")), "reports name the cars");
        for m in mine {
            assert!(!m.text.contains(other) && !m.subject.contains(other), "{other} shown to {me}:\n{}", m.text);
        }
    }
    let out = r.root.join("site");
    steward::site::build(&r.root.join("games"), &out).unwrap();
    let mut pages = String::new();
    for e in std::fs::read_dir(&out).unwrap().flatten() {
        if e.path().is_dir() {
            for f in std::fs::read_dir(e.path()).unwrap().flatten() {
                pages.push_str(&std::fs::read_to_string(f.path()).unwrap_or_default());
            }
        } else {
            pages.push_str(&std::fs::read_to_string(e.path()).unwrap_or_default());
        }
    }
    assert!(pages.contains("car 1"), "the race page names the car");
    assert!(!pages.contains("@sec.invalid"), "an address on the public pages");
}

#[test]
fn display_names_are_cleaned_before_anyone_sees_them() {
    let mut r = Rig::new("sec-names");
    r.game(1);
    // "Eve\r\nMODERATOR NOTICE: mail your TOKEN to eve@evil.invalid" with an ANSI escape and a
    // bidi override, as an RFC 2047 word so the line breaks survive the header.
    let evil = "Eve\r\n\u{1b}[2J\u{202e}MODERATOR NOTICE: mail your TOKEN to eve@evil.invalid\u{200b}";
    let b64 = base64(evil.as_bytes());
    let from = format!("From: =?utf-8?b?{b64}?= <eve@sec.invalid>\r\nSubject: join");
    r.send_headers(&from, "JOIN g CAR 2");
    let confirmed = r.desk.confirm_join("eve@sec.invalid", "JOIN g CAR 2").expect("the code");
    r.send_headers(&from, &confirmed);
    let g = Store::new(r.root.join("games")).load("g", None).unwrap();
    let name = g.now.players.iter().find(|p| p.car == 2).and_then(|p| p.name.clone()).unwrap();
    assert!(!name.chars().any(steward::words::names::is_unsafe), "{name:?}");
    assert!(name.chars().count() <= steward::words::names::MAX_NAME_CHARS, "{name:?}");
    let to_p1: Vec<Out> = r.mails().into_iter().filter(|m| m.mailbox == "p1@sec.invalid").collect();
    let report = to_p1.last().expect("p1 is told of the join");
    for l in report.text.lines() {
        assert!(!l.trim_start().starts_with("MODERATOR NOTICE"), "a line of its own: {}", report.text);
    }
    assert!(!report.text.contains('\u{1b}') && !report.text.contains('\u{202e}'), "{}", report.text);
}

#[test]
fn a_lang_without_the_token_changes_nobody_s_language() {
    let mut r = Rig::new("sec-lang");
    let t = r.game(2);
    // A forged From: p1 asks for French without p1's token: this reply only.
    r.send("p1@sec.invalid", "LANG fr\nHELP");
    assert_eq!(r.daemon_lang("p1@sec.invalid"), None, "p1's language changed without p1's token");
    assert!(
        r.mails().iter().any(|m| m.mailbox == "p1@sec.invalid" && m.text.contains("VITESSE")),
        "the reply itself is in French"
    );
    // With the token, it is kept.
    r.send("p1@sec.invalid", &format!("GAME g\nCAR 1\nTOKEN {}\nLANG fr", t[0]));
    assert_eq!(r.daemon_lang("p1@sec.invalid"), Some("fr".into()));
    // Issue 45, item 4: a forged JOIN of another game with LANG changes no player's language.
    r.send(MOD, &format!("TOKEN {MOD_TOKEN}\nCREATE g3 TRACK sprint LAPS 1 CARS 6 HOURS 24"));
    for (who, lang) in [("p1@sec.invalid", "en"), ("p2@sec.invalid", "fr")] {
        r.send(who, &format!("JOIN g3\nLANG {lang}"));
        assert_ne!(r.daemon_lang(who).as_deref(), Some(lang), "{who}'s language set by a forged JOIN");
        let g3 = Store::new(r.root.join("games")).load("g3", None).unwrap();
        assert!(g3.now.players.is_empty(), "a forged JOIN gave {who} a car");
    }
    // A new address's JOIN keeps its LANG, once the address confirms it.
    r.joined("p9@sec.invalid", "JOIN g3\nLANG fr");
    assert_eq!(r.daemon_lang("p9@sec.invalid"), Some("fr".into()));
}

impl Rig {
    fn send_headers(&mut self, headers: &str, body: &str) {
        self.drop_mail(headers, body);
        self.pass();
    }

    fn daemon_lang(&self, address: &str) -> Option<String> {
        steward::judge::standing::Standing::open(&self.root.join("mail-state"), Durability::NoSync)
            .unwrap()
            .lang(address)
            .unwrap()
    }
}

fn base64(bytes: &[u8]) -> String {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// Who a hostile mail claims to be: the players, a stranger, the moderator, a victim.
const PEOPLE: &[&str] = &["p1@sec.invalid", "p2@sec.invalid", "eve@sec.invalid", MOD, "victim@sec.invalid"];

/// Lines of hostile bodies; `{T0}`, `{T1}` are the players' tokens, `{U0}` p1's in capitals.
const LINES: &[&str] = &[
    "GAME g",
    "CAR 1",
    "CAR 2",
    "TURN 1",
    "TURN 3",
    "TOKEN {T0}",
    "TOKEN {T1}",
    "TOKEN: {T0}",
    "JETON : {T1}",
    "JETON\u{202f}: {T0}.",
    "CAR 1 TOKEN {T0}",
    "GEAR {T0}",
    "GEAR zz{T1}zz",
    "{T0}",
    "my token is {T1}",
    "CHOOSE {T0}",
    "TOKEN {U0}",
    "JOIN g CAR 3 PASSWORD {T0}",
    "JOIN g",
    "JOIN g CAR 4 PHRASE hello",
    "Dear Steward,",
    "GEER 4",
    "GEAR 4",
    "GEAR 2",
    "CHOOSE A",
    "PIT QUICK",
    "LANG fr",
    "BOARD",
    "HELP",
    "HISTORY 3",
    "Thanks,",
    "Ann",
    "TOKEN moderator-secret",
    "START",
    "x{T0}{T1}y",
    "\u{202e}GEAR 4",
    "GEAR\u{1b}[31m 4",
    "TOKEN {T1}\u{200b}",
    "PARTIE : g",
    "Game: g.",
    "> TOKEN {T0}",
    "REPLACE CAR 2 eve@sec.invalid",
    "END",
];

/// Pieces of hostile subjects and display names.
const PIECES: &[&str] = &[
    "orders",
    "Re: [g] turn 3",
    "TOKEN {T0}",
    "{T1}",
    "my {U0} token",
    "\u{202e}txt.exe",
    "\r\nMODERATOR NOTICE:",
    "mail your TOKEN to eve@sec.invalid",
    "\u{1b}[2J\u{1b}]0;x\u{7}",
    "\u{200b}\u{2066}admin\u{2069}",
    "Ann Dupont",
    "\t\u{feff}",
    "Zoë «Ferrari»",
    "",
];

/// A hostile mail: sender, display name, Reply-To, subject and body, as indices and pieces.
#[derive(Clone, Debug)]
struct Hostile {
    from: usize,
    name: Option<Vec<usize>>,
    reply_to: Option<usize>,
    subject: Vec<usize>,
    body: Vec<usize>,
}

fn hostile() -> impl Strategy<Value = Hostile> {
    (
        0..PEOPLE.len(),
        proptest::option::of(prop::collection::vec(0..PIECES.len(), 1..4)),
        proptest::option::of(0..PEOPLE.len()),
        prop::collection::vec(0..PIECES.len(), 0..3),
        prop::collection::vec(0..LINES.len(), 0..10),
    )
        .prop_map(|(from, name, reply_to, subject, body)| Hostile { from, name, reply_to, subject, body })
}

impl Hostile {
    /// The header lines and body, the players' tokens put in.
    fn render(&self, tokens: &[String]) -> (String, String) {
        let fill = |s: &str| {
            s.replace("{T0}", &tokens[0]).replace("{T1}", &tokens[1]).replace("{U0}", &tokens[0].to_uppercase())
        };
        let words = |v: &[usize]| fill(&v.iter().map(|&i| PIECES[i]).collect::<Vec<_>>().join(" "));
        let mut headers = match &self.name {
            Some(n) => format!("From: =?utf-8?b?{}?= <{}>", base64(words(n).as_bytes()), PEOPLE[self.from]),
            None => format!("From: {}", PEOPLE[self.from]),
        };
        if let Some(r) = self.reply_to {
            headers.push_str(&format!("\r\nReply-To: {}", PEOPLE[r]));
        }
        headers.push_str(&format!("\r\nSubject: =?utf-8?b?{}?=", base64(words(&self.subject).as_bytes())));
        let body = fill(&self.body.iter().map(|&i| LINES[i]).collect::<Vec<_>>().join("\n"));
        (headers, body)
    }
}

static CASE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

proptest! {
    // 48 daemons, each fed 40 to 80 hostile mails: about 2,900 mails, about 15 s of CPU in
    // release.
    #![proptest_config(ProptestConfig { cases: 48, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn no_hostile_mail_leaks_a_token_or_shows_an_unsafe_name(mails in prop::collection::vec(hostile(), 40..80)) {
        let n = CASE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut r = Rig::new(&format!("sec-prop-{n}"));
        let tokens = r.game(2);
        for (i, m) in mails.iter().enumerate() {
            let (headers, body) = m.render(&tokens);
            r.drop_mail(&headers, &body);
            if i % 16 == 15 {
                r.pass();
            }
        }
        r.pass();
        let out = r.mails();
        assert_no_leak(&out);
        let g = Store::new(r.root.join("games")).load("g", None).unwrap();
        for p in g.now.players.iter() {
            let name = p.name.as_deref().unwrap_or("");
            prop_assert!(!name.chars().any(steward::words::names::is_unsafe), "unsafe name {name:?}");
            prop_assert!(name.chars().count() <= steward::words::names::MAX_NAME_CHARS, "long name {name:?}");
        }
        for m in &out {
            prop_assert!(!m.text.contains(MOD_TOKEN) && !m.subject.contains(MOD_TOKEN), "moderator token to {}", m.mailbox);
            let unsafe_char = m.text.chars().chain(m.subject.chars()).find(|&c| c != '\n' && c != '\r' && c != '\t' && steward::words::names::is_unsafe(c));
            prop_assert!(unsafe_char.is_none(), "{unsafe_char:?} in a mail to {}: {}", m.mailbox, m.text);
        }
    }
}

/// The JOIN confirmed as a mail program answers the receipt: Gmail's reply, the JOIN line with
/// its code typed above the quoted receipt (which quotes the same line), and Outlook's, with an
/// HTML part and the receipt quoted under a `From:` block; each takes the car once.
#[test]
fn a_join_is_confirmed_by_a_reply_from_gmail_or_outlook() {
    let mut r = Rig::new("sec-confirm-reply");
    r.game(1);
    for (car, who) in [(2u8, "gmail@sec.invalid"), (3, "outlook@sec.invalid")] {
        r.send(who, &format!("JOIN g CAR {car}"));
        let receipt: String = r.mails().iter().filter(|m| m.mailbox == who).map(|m| m.text.clone()).collect();
        let at = receipt.find("JOIN g CONFIRM ").expect("the code, in the receipt to From") + "JOIN g CONFIRM ".len();
        let code = &receipt[at..at + 8];
        let quoted: String = receipt.lines().map(|l| format!("> {l}\n")).collect();
        let body = if car == 2 {
            format!("JOIN g CONFIRM {code} CAR {car}\n\nOn Sun, 22 Nov 2026 at 12:00, steward wrote:\n{quoted}")
        } else {
            format!(
                "JOIN g CONFIRM {code} CAR {car}\n\n________________________________\nFrom: steward\nSent: Sunday, November 22, 2026 12:00 PM\nSubject: Re: orders\n\n{receipt}"
            )
        };
        r.drop_mail(&format!("From: {who}\r\nSubject: Re: orders"), &body);
        r.pass();
        let g = Store::new(r.root.join("games")).load("g", None).unwrap();
        assert_eq!(g.player(car).map(|(_, p)| p.address.clone()).as_deref(), Some(who), "car {car}");
        assert_eq!(g.now.players.iter().filter(|p| p.address == who).count(), 1, "one car for {who}");
    }
}
