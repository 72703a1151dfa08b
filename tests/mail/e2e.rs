//! The end-to-end race against real servers: scripted players send their orders over SMTP
//! (Postfix), `steward serve` reads them over IMAP (Dovecot) and replies over SMTP, and the
//! players read the replies over IMAP and answer each report by replying to it with the bare
//! answer (its signed `Reply-To`, `steward+<tag>@`, through Postfix's `recipient_delimiter` to
//! the steward mailbox in Dovecot), until the race is over. And the daemon outliving its IMAP
//! server going away and coming back.

use std::net::{Shutdown, TcpListener, TcpStream};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use steward::demo::Player;
use steward::engine::bot::Bot;
use steward::judge::config::{ServeConfig, moderator_token_hash};
use steward::judge::daemon::serve;
use steward::judge::outbox::Via;
use steward::mail::transport::{ImapInbox, Inbox, MaildirSender, Sender, SmtpSender};
use steward::store::Store;
use steward::store::fsio::Durability;

use super::scratch;
use super::servers::{Servers, servers};

fn letter(from: &str, to: &str, n: u32, body: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: {to}\r\nSubject: orders {n}\r\nMessage-ID: <e2e-{n}@players.test>\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{body}\r\n"
    )
    .into_bytes()
}

#[test]
fn a_race_played_over_real_imap_and_smtp() {
    let s = servers();
    let root = scratch("e2e");
    let steward = s.address("steward");
    let moderator = s.address("mod");
    std::fs::write(root.join("imap-password"), s.password("steward")).unwrap();
    let config = root.join("steward.toml");
    std::fs::write(
        &config,
        format!(
            "address = \"{steward}\"\ngames = \"games\"\nstate = \"state\"\npoll_seconds = 1\n\
             [inbox]\nkind = \"imap\"\nhost = \"127.0.0.1\"\nport = {}\nuser = \"{steward}\"\npassword = \"file:{}\"\n\
             [send]\nkind = \"smtp\"\nhost = \"127.0.0.1\"\nport = {}\n\
             [[moderator]]\naddress = \"{moderator}\"\ntoken_sha256 = \"{}\"\n",
            s.imap_port,
            root.join("imap-password").display(),
            s.smtp_port,
            moderator_token_hash("referee-token")
        ),
    )
    .unwrap();
    let serve = || {
        let out = Command::new(env!("CARGO_BIN_EXE_steward"))
            .args(["serve", "--once", "--config"])
            .arg(&config)
            .output()
            .unwrap();
        assert!(out.status.success(), "steward serve: {}", String::from_utf8_lossy(&out.stderr));
    };
    let mut smtp = SmtpSender::new(s.smtp()).unwrap();
    // A poison mail first (issue 13): a From no reply can be addressed to (the mail builder
    // refuses a local part over 64 characters; Postfix passes it on, where it would drop a
    // domain's trailing dot).
    // It used to stop `serve` before it was recorded, so every mail behind it waited for ever.
    smtp.send(
        &moderator,
        std::slice::from_ref(&steward),
        format!(
            "From: <racer{}@{}>\r\nTo: {steward}\r\nSubject: poison\r\nMessage-ID: <e2e-poison@players.test>\r\n\r\nJOIN e2e CAR 1\r\n",
            "x".repeat(70),
            s.address("x").split('@').nth(1).unwrap()
        )
        .as_bytes(),
    )
    .unwrap();
    let mut n = 0;
    let mut send = |from: &str, body: &str| {
        n += 1;
        smtp.send(from, std::slice::from_ref(&steward), &letter(from, &steward, n, body)).unwrap();
    };
    let mut replies = std::collections::BTreeSet::new();
    let mut players: Vec<Player> = (1..=2u8)
        .map(|car| {
            let user = format!("racer{car}");
            let inbox = ImapInbox::connect(s.imap(&user)).unwrap();
            Player::with_inbox(&s.address(&user), car, Box::new(inbox), car == 2)
        })
        .collect();

    send(&moderator, "TOKEN referee-token\nCREATE e2e TRACK sprint LAPS 1 CARS 2 HOURS 24");
    for p in &players {
        send(&p.address.clone(), &format!("JOIN e2e CAR {}\nPHRASE over the wire", p.car));
    }
    // Wait for the joins to arrive and be answered with the tokens.
    let t0 = Instant::now();
    // Each JOIN is answered with a confirmation code, and the JOIN sent again with it (issue 45).
    let mut confirmed = [false; 2];
    while players.iter().any(|p| p.token.is_none()) {
        assert!(t0.elapsed() < Duration::from_secs(60), "no welcome came back: {}", s.logs());
        serve();
        for (i, p) in players.iter_mut().enumerate() {
            if !confirmed[i] {
                let join = format!("JOIN e2e CAR {}\nPHRASE over the wire", p.car);
                if let Some(again) = p.try_confirmed_join(&join).unwrap() {
                    send(&p.address.clone(), &again);
                    confirmed[i] = true;
                }
            } else if p.token.is_none() {
                p.read_token().unwrap();
            }
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    // The poison mail is recorded, and the mail behind it was answered.
    let ledger =
        steward::judge::ledger::Ledger::open(&root.join("state"), steward::store::fsio::Durability::NoSync).unwrap();
    let poison = ledger.entries().unwrap().into_iter().find(|e| e.outcome.contains("sender address"));
    assert!(poison.is_some(), "the poison mail has its ledger entry");
    let t2 = players[1].token.clone().unwrap();
    send(&players[1].address.clone(), &format!("GAME e2e\nCAR 2\nTOKEN {t2}\nPOLICY BOT"));
    send(&moderator, "GAME e2e\nTOKEN referee-token\nSTART");
    let store = Store::new(root.join("games"));
    let mut bot = Bot::new();
    let mut last_progress = Instant::now();
    let mut last_turn = 0;
    loop {
        serve();
        let g = match store.load("e2e", None) {
            Ok(g) => g,
            Err(_) => {
                std::thread::sleep(Duration::from_millis(200));
                continue;
            }
        };
        if g.now.over {
            break;
        }
        if g.next_turn() != last_turn {
            last_turn = g.next_turn();
            last_progress = Instant::now();
        }
        assert!(
            last_progress.elapsed() < Duration::from_secs(60),
            "the race stalled at turn {last_turn}: {}",
            s.logs()
        );
        for p in &mut players {
            if let Some(r) = p.reply(&g, &mut bot, &steward).unwrap() {
                assert!(r.to.starts_with("steward+e2e."), "the report had a signed Reply-To: {}", r.to);
                let id = format!("e2e-reply-{}@players.test", replies.len());
                smtp.send(&p.address, std::slice::from_ref(&r.to), &r.raw(&p.address, &id)).unwrap();
                replies.insert(id);
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    serve();
    let g = store.load("e2e", None).unwrap();
    assert!(g.now.revealed.is_some());
    // The players' moves came by their bare replies to the tagged addresses.
    let by_reply = g
        .turns
        .iter()
        .filter(|t| t.source.as_ref().and_then(|s| s.message_id.as_ref()).is_some_and(|m| replies.contains(m)))
        .count();
    assert!(by_reply > 0, "no move came by a reply ({} sent)", replies.len());
    // Postfix took steward+<tag>@ for steward@ (`recipient_delimiter = +`) and Dovecot's LMTP
    // recorded the tagged address in Delivered-To.
    let mut delivered = Vec::new();
    for sub in ["cur", "new"] {
        for f in std::fs::read_dir(s.maildir("steward").join(sub)).unwrap() {
            let Ok(m) = steward::mail::message::Incoming::parse(&std::fs::read(f.unwrap().path()).unwrap()) else {
                continue; // the poison mail
            };
            if m.message_id.as_ref().is_some_and(|id| replies.contains(id)) {
                delivered.push(m.recipients.clone());
            }
        }
    }
    assert_eq!(delivered.len(), replies.len(), "every reply reached steward's mailbox");
    assert!(
        delivered.iter().all(|r| r.first().is_some_and(|a| a.starts_with("steward+e2e."))),
        "Delivered-To carries the tag: {:?}",
        delivered.first()
    );
    steward::store::verify::verify(&store.game_dir("e2e"), None).unwrap();
    // The final report reached the players over IMAP.
    let t0 = Instant::now();
    let mut saw_end = false;
    let mut inbox = ImapInbox::connect(s.imap("racer1")).unwrap();
    while !saw_end && t0.elapsed() < Duration::from_secs(30) {
        use steward::mail::transport::Inbox;
        for m in inbox.fetch(1000).unwrap() {
            saw_end |= String::from_utf8_lossy(&m.raw).contains("The race is over");
            inbox.mark_processed(&m.key).unwrap();
        }
        std::thread::sleep(Duration::from_millis(200));
    }
    assert!(saw_end, "racer1 got the final report");
}

/// A TCP relay to a server that a test can take down and bring back: down, it cuts every
/// connection it relays and hangs up on new ones at once, as a server restarting does.
struct Relay {
    port: u16,
    up: Arc<AtomicBool>,
    open: Arc<Mutex<Vec<TcpStream>>>,
}

impl Relay {
    fn to(port: u16) -> Relay {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let relay = Relay {
            port: listener.local_addr().unwrap().port(),
            up: Arc::new(AtomicBool::new(true)),
            open: Arc::new(Mutex::new(Vec::new())),
        };
        let (up, open) = (relay.up.clone(), relay.open.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { continue };
                if !up.load(Ordering::SeqCst) {
                    continue; // dropped: the client reads an end of stream
                }
                let Ok(server) = TcpStream::connect(("127.0.0.1", port)) else { continue };
                let mut open = open.lock().unwrap();
                open.extend([client.try_clone().unwrap(), server.try_clone().unwrap()]);
                for (mut from, mut to) in [(client.try_clone().unwrap(), server.try_clone().unwrap()), (server, client)]
                {
                    std::thread::spawn(move || {
                        let _ = std::io::copy(&mut from, &mut to);
                        let _ = to.shutdown(Shutdown::Both);
                    });
                }
            }
        });
        relay
    }

    fn down(&self) {
        self.up.store(false, Ordering::SeqCst);
        for c in self.open.lock().unwrap().drain(..) {
            let _ = c.shutdown(Shutdown::Both);
        }
    }

    fn up(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

/// Sends `HELP` from `from` to heidi through Postfix and waits until Dovecot holds it (Postfix
/// hands it on in its own time): one more mail in heidi's Maildir, read or not.
fn mail_heidi(s: &Servers, smtp: &mut SmtpSender, from: &str, n: u32) {
    let maildir = s.maildir("heidi");
    let held =
        || ["new", "cur"].iter().map(|d| std::fs::read_dir(maildir.join(d)).map_or(0, |d| d.count())).sum::<usize>();
    let before = held();
    smtp.send(from, &[s.address("heidi")], &letter(from, &s.address("heidi"), n, "HELP")).unwrap();
    let start = Instant::now();
    while held() == before {
        assert!(start.elapsed() < Duration::from_secs(60), "Postfix delivered nothing:\n{}", s.logs());
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `steward serve` (the long-running daemon, `daemon::serve`) outlives its IMAP server going
/// away: the mail that arrives meanwhile is handled, once, when the server is back.
#[test]
fn serve_waits_out_an_imap_server_that_goes_away() {
    let s = servers();
    let root = scratch("e2e-imap-outage");
    let relay = Relay::to(s.imap_port);
    let mut imap = s.imap("heidi");
    imap.port = relay.port;
    let mut cfg = ServeConfig::local(&root, &s.address("heidi"));
    cfg.poll_seconds = 1;
    let mut inbox = ImapInbox::connect(imap).unwrap();
    assert!(inbox.fetch(10).unwrap().is_empty(), "the mailbox starts empty");
    relay.down();
    let mut smtp = SmtpSender::new(s.smtp()).unwrap();
    let racer = "racer@elsewhere.test";
    mail_heidi(s, &mut smtp, racer, 900);
    let mut via = Via(MaildirSender::per_recipient(root.join("mail")));
    let mut waits = Vec::new();
    serve(
        &cfg,
        Durability::NoSync,
        &mut inbox,
        &mut via,
        |p| p.processed > 0,
        |d| {
            waits.push(d.as_secs());
            if waits.len() == 2 {
                relay.up(); // the server is back after the second wait
            }
        },
    )
    .unwrap_or_else(|e| panic!("the daemon gave up: {e}\n{}", s.logs()));
    assert_eq!(waits, [1, 2], "a wait after each failed pass, doubled");
    let replies = std::fs::read_dir(root.join("mail").join(racer).join("new")).unwrap().count();
    assert_eq!(replies, 1, "the mail was answered once");
    let ledger = steward::judge::ledger::Ledger::open(&cfg.state, Durability::NoSync).unwrap();
    assert_eq!(ledger.entries().unwrap().len(), 1);
    assert!(inbox.fetch(10).unwrap().is_empty(), "and marked processed on the server");

    // Started while the server is down (at boot, before it): `steward serve` takes an inbox
    // that connects on its first pass, and that pass is waited out like the others.
    relay.down();
    let mut imap = s.imap("heidi");
    imap.port = relay.port;
    assert!(ImapInbox::connect(imap.clone()).is_err_and(|e| e.is_transient()), "the server is down");
    let mut late = ImapInbox::unconnected(imap);
    mail_heidi(s, &mut smtp, racer, 901);
    let mut waits = Vec::new();
    serve(
        &cfg,
        Durability::NoSync,
        &mut late,
        &mut via,
        |p| p.processed > 0,
        |d| {
            waits.push(d.as_secs());
            relay.up();
        },
    )
    .unwrap_or_else(|e| panic!("the daemon gave up: {e}\n{}", s.logs()));
    assert_eq!(waits, [1]);
    assert_eq!(ledger.entries().unwrap().len(), 2, "the second mail handled, once");
}
