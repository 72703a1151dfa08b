//! The daemon against hostile or odd mail (issue 13): a message that cannot be handled never
//! stops a pass, replies stay small whatever was sent, the rate limit survives `serve --once`,
//! attachments do not hide the orders, a list copy does not hide the direct copy, and `TRACK`
//! opens no file of the sender's choosing.

use std::time::Duration;

use steward::judge::config::{ServeConfig, moderator_token_hash};
use steward::judge::daemon::serve;
use steward::judge::outbox::Via;
use steward::mail::limits::{MAX_REPLY_BYTES, STRANGER_TEXT};
use steward::mail::message::{Incoming, MessageError, is_mailable};
use steward::mail::transport::{Fetched, Inbox, MaildirInbox, MaildirSender, TransportError, deliver};
use steward::store::fsio::Durability;
use steward::store::{Join, Meta, NewGame, Store};

use super::desk::Desk;
use super::scratch;

use super::daemon::{MOD, MOD_TOKEN, STEWARD, mail};

struct World {
    desk: Desk,
}

on_a_desk!(World);

impl World {
    fn new(name: &str, edit: impl FnOnce(&mut ServeConfig)) -> World {
        World { desk: Desk::new(&format!("hostile-{name}"), edit) }
    }

    /// A daemon on `root`'s state, as a new `serve --once` run would start.
    fn open(root: std::path::PathBuf, cfg: ServeConfig) -> World {
        World { desk: Desk::open(root, cfg) }
    }

    /// The raw mails `address` received, marked read.
    fn raw(&self, address: &str) -> Vec<Vec<u8>> {
        self.desk.received(address)
    }

    fn text(&self, address: &str) -> String {
        self.raw(address).iter().map(|r| Incoming::parse(r).unwrap().full_body).collect::<Vec<_>>().join("\n=====\n")
    }

    fn outcome(&self, id: &str) -> String {
        let e = self.daemon.ledger().by_message_id(&format!("{id}@test.invalid")).unwrap();
        let e = e.or_else(|| {
            self.daemon
                .ledger()
                .entries()
                .unwrap()
                .into_iter()
                .find(|e| e.message_id.as_deref() == Some(&format!("{id}@test.invalid")))
        });
        e.map(|e| e.outcome).unwrap_or_else(|| "no ledger entry".into())
    }

    /// A started game `g` on sprint whose car 1 belongs to `first` (token `t1`) and car 2 to
    /// p2@test.invalid (token `t2`), made through the store as an older daemon would have.
    fn game(&self, g: &str, first: &str) {
        let store = Store::new(self.root.join("games"));
        let mut h = store.create(&NewGame::plain(g, "sprint", 1), [7; 32], Meta::now()).unwrap();
        h.join(&Join::plain(first, "t1", 1), Meta::now()).unwrap();
        h.join(&Join::plain("p2@test.invalid", "t2", 2), Meta::now()).unwrap();
        h.start(Meta::now()).unwrap();
    }
}

#[test]
fn addresses_are_checked_when_the_mail_is_read() {
    for bad in [
        "a@example.com.",
        "a@.example.com",
        "a@exa..mple.com",
        "a b@example.com",
        "a@exam ple.com",
        "@example.com",
        "\"a b\"@example.com",
        &*format!("{}@example.com", "a".repeat(65)),
    ] {
        assert!(!is_mailable(bad), "{bad}");
    }
    for good in ["a@example.com", "first.last+tag@sub.example.org", "x@localhost"] {
        assert!(is_mailable(good), "{good}");
    }
    let raw = b"From: <racer@example.com.>\r\nMessage-ID: <x@y>\r\n\r\nJOIN g CAR 1\r\n";
    assert!(matches!(Incoming::parse(raw), Err(MessageError::BadSender(_))), "{:?}", Incoming::parse(raw));
    // A Reply-To no mail can go to is dropped: the reply goes to From.
    let raw = b"From: racer@example.com\r\nReply-To: <x@example.com.>\r\n\r\nHELP\r\n";
    let m = Incoming::parse(raw).unwrap();
    assert_eq!((m.reply_to.as_deref(), m.reply_address()), (None, "racer@example.com"));
}

/// Issue 13, 1: a From (or Reply-To) the mail builder cannot use made `serve` exit before the
/// message was recorded, so every later mail waited behind it for ever.
#[test]
fn a_poison_address_does_not_stop_the_pass() {
    let mut w = World::new("poison", |_| {});
    w.deliver(&mail("racer@example.com.", "poison1", "HELP"));
    w.deliver(
        b"From: racer@example.com\r\nReply-To: <x@example.com.>\r\nMessage-ID: <poison2@test.invalid>\r\n\r\nHELP\r\n",
    );
    w.deliver(&mail("ok@test.invalid", "behind", "HELP"));
    let p = w.pass();
    assert_eq!(p.processed, 3);
    let entries = w.daemon.ledger().entries().unwrap();
    assert_eq!(entries.len(), 3);
    assert!(entries.iter().any(|e| e.outcome.starts_with("ignored: the sender address")), "{entries:?}");
    assert_eq!(w.outcome("poison2"), "answered");
    assert_eq!(w.outcome("behind"), "answered");
    assert!(w.text("ok@test.invalid").contains("HELP"), "the mail behind the poison is answered");
    assert!(!w.text("racer@example.com").is_empty(), "the bad Reply-To is not used; From is");
}

/// Issue 13, 1: a player whose address cannot be mailed (joined before addresses were checked)
/// made every later report of the game crash the daemon. Now that reply is a failed outbox
/// entry and the others go out.
#[test]
fn a_player_with_an_unmailable_address_does_not_stop_reports() {
    let mut w = World::new("unmailable-player", |_| {});
    w.game("g", "bad@example.com.");
    w.deliver(&mail(MOD, "pause", &format!("GAME g\nTOKEN {MOD_TOKEN}\nPAUSE")));
    w.deliver(&mail("ok@test.invalid", "behind", "HELP"));
    let p = w.pass();
    assert_eq!(p.processed, 2);
    assert_eq!(w.outcome("pause"), "applied");
    assert_eq!(w.outcome("behind"), "answered");
    let failed = w.daemon.outbox().failed().unwrap();
    assert_eq!(failed.len(), 1, "the report to the bad address is a failed outbox entry: {failed:?}");
    assert!(w.text("p2@test.invalid").to_lowercase().contains("pause"), "the other player got the report");
}

/// Issue 13, 1: any failure while handling one message (here a template that fails for it)
/// becomes its outcome, the moderators are told, and the mail behind it is handled.
#[test]
fn a_failure_while_handling_is_recorded_and_the_pass_goes_on() {
    let root = scratch("hostile-failure");
    let templates = root.join("templates").join("en");
    std::fs::create_dir_all(&templates).unwrap();
    std::fs::write(
        templates.join("receipt.txt"),
        "{{ receipt }}{% if 'GEAR 5' in receipt %}{{ no_such_function() }}{% endif %}\n",
    )
    .unwrap();
    let mut cfg = Desk::config(&root);
    cfg.templates = Some(root.join("templates"));
    let mut w = World::open(root, cfg);
    w.deliver(&mail("racer@test.invalid", "boom", "GEAR 5"));
    w.deliver(&mail("ok@test.invalid", "behind", "HELP"));
    let p = w.pass();
    assert_eq!(p.processed, 2);
    assert!(w.outcome("boom").starts_with("failed: "), "{}", w.outcome("boom"));
    assert_eq!(w.outcome("behind"), "answered");
    let note = w.text(MOD);
    assert!(note.contains("could not be handled") && note.contains("racer@test.invalid"), "{note}");
    assert!(w.text("racer@test.invalid").contains("could not be handled"), "the sender is told");
    // Read again, it is not handled twice.
    assert_eq!(w.pass().processed, 0);
}

/// Issue 13, 2: a 50,000-line mail drew a 10.5 MB receipt. Every reply is now under the cap,
/// with the lines not shown counted; a stranger gets a short reply.
#[test]
fn replies_are_capped_whatever_was_sent() {
    let mut w = World::new("caps", |c| c.max_message_bytes = 1 << 20);
    w.game("g", "p1@test.invalid");
    let lines: String = (0..50_000).map(|i| format!("GEAR {}\n", 1 + i % 6)).collect();
    w.deliver(&mail("p1@test.invalid", "big", &format!("GAME g\nCAR 1\nTOKEN t1\n{lines}")));
    let short: String = (0..20_000).map(|i| format!("GEAR {}\n", 7 + i % 3)).collect();
    w.deliver(&mail("victim@test.invalid", "spoofed", &short));
    assert_eq!(w.pass().processed, 2);
    let stranger = w.raw("victim@test.invalid");
    assert_eq!(stranger.len(), 1);
    let text = Incoming::parse(&stranger[0]).unwrap().full_body;
    assert!(text.len() <= STRANGER_TEXT, "{} bytes of text to a stranger", text.len());
    assert!(stranger[0].len() < 4 * STRANGER_TEXT, "{} bytes to a stranger", stranger[0].len());
    let player = w.raw("p1@test.invalid");
    assert_eq!(player.len(), 1);
    assert!(player[0].len() <= MAX_REPLY_BYTES, "{} bytes", player[0].len());
    let text = Incoming::parse(&player[0]).unwrap().full_body;
    assert!(text.contains("more lines not shown"), "{}", &text[..2000.min(text.len())]);
    assert!(text.contains("at most 100"), "50,000 orders are refused whole");
    let echoed = text.lines().filter(|l| l.contains("GEAR")).count();
    assert!(echoed > 100, "a player's receipt is not cut to a stranger's: {echoed} lines");
}

/// Issue 13, 2: the hourly rate limit lived in memory, so each `serve --once` started afresh.
#[test]
fn the_rate_limit_holds_across_runs() {
    let root = scratch("hostile-rate");
    let mut cfg = Desk::config(&root);
    cfg.rate_per_hour = 2;
    for i in 0..3 {
        let mut w = World::open(root.clone(), cfg.clone());
        w.deliver(&mail("chatty@test.invalid", &format!("r{i}"), "HELP"));
        assert_eq!(w.pass().processed, 1);
    }
    let w = World::open(root, cfg);
    assert_eq!(w.outcome("r1"), "answered");
    assert!(w.outcome("r2").starts_with("ignored: more than 2 messages"), "{}", w.outcome("r2"));
}

/// Issue 45, item 5: 60 mails forged "from" a player spent the player's hourly allowance, and
/// their real, signed order was then ignored without a reply. A mail counts in the allowance of
/// what it proves (its car's token), not of what its From claims.
#[test]
fn forged_mails_do_not_spend_a_players_allowance() {
    let mut w = World::new("hostile-forged-rate", |c| c.rate_per_hour = 5);
    w.game("g", "p1@test.invalid");
    for i in 0..60 {
        w.deliver(&mail("p1@test.invalid", &format!("forged{i}"), "GAME g\nCAR 1\nTOKEN wrong\nPOLICY BOT"));
    }
    w.deliver(&mail("p1@test.invalid", "real", "GAME g\nCAR 1\nTOKEN t1\nPOLICY SAFEST"));
    assert_eq!(w.pass().processed, 61);
    assert!(w.outcome("forged59").starts_with("ignored: more than 5 messages"), "{}", w.outcome("forged59"));
    assert_eq!(w.outcome("real"), "applied", "the signed order goes through");
    // The car's own allowance still holds: a player who floods with their token is limited too.
    for i in 0..6 {
        w.deliver(&mail("p1@test.invalid", &format!("mine{i}"), "GAME g\nCAR 1\nTOKEN t1\nPOLICY SAFEST"));
    }
    w.pass();
    assert!(w.outcome("mine5").starts_with("ignored: more than 5 messages"), "{}", w.outcome("mine5"));
}

fn with_attachment(from: &str, id: &str, text: &str, attachment: usize) -> Vec<u8> {
    let photo: String = (0..attachment / 76).map(|i| format!("{:0>76}\r\n", i % 997)).collect();
    format!(
        "From: {from}\r\nTo: {STEWARD}\r\nSubject: orders\r\nMessage-ID: <{id}@test.invalid>\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"b1\"\r\n\r\n--b1\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n{text}\r\n\
         --b1\r\nContent-Type: image/jpeg; name=\"photo.jpg\"\r\nContent-Disposition: attachment; filename=\"photo.jpg\"\r\n\
         Content-Transfer-Encoding: base64\r\n\r\n{photo}--b1--\r\n"
    )
    .into_bytes()
}

/// Issue 13, 3: an order mail carrying a 300 KB photo was dropped without a word.
#[test]
fn attachments_are_ignored_and_the_text_read() {
    let mut w = World::new("attachment", |_| {});
    w.game("g", "p1@test.invalid");
    w.deliver(&with_attachment("p1@test.invalid", "photo", "GAME g\nCAR 1\nTOKEN t1\nPOLICY SAFEST", 300 * 1024));
    assert_eq!(w.pass().processed, 1);
    assert_eq!(w.outcome("photo"), "applied");
    assert!(w.text("p1@test.invalid").contains("POLICY SAFEST"));
}

/// Issue 13, 3: a mail whose text is over the limit gets a reply saying so.
#[test]
fn a_text_over_the_limit_gets_a_short_reply() {
    let mut w = World::new("too-long", |c| c.max_message_bytes = 10_000);
    let text: String = (0..2_000).map(|i| format!("line {i}\n")).collect();
    w.deliver(&mail("p1@test.invalid", "long", &text));
    assert_eq!(w.pass().processed, 1);
    assert!(w.outcome("long").starts_with("refused: the mail is"), "{}", w.outcome("long"));
    let reply = w.raw("p1@test.invalid");
    assert_eq!(reply.len(), 1);
    let body = Incoming::parse(&reply[0]).unwrap().full_body;
    assert!(body.contains("the most read is 10000"), "{body}");
    assert!(reply[0].len() < 4 * STRANGER_TEXT, "{} bytes", reply[0].len());
}

/// Issue 13, 3: an order copied to a mailing list whose copy arrived first was dropped as "a
/// second copy" when the direct copy came.
#[test]
fn a_list_copy_does_not_hide_the_direct_copy() {
    let mut w = World::new("list-copy", |_| {});
    let direct = mail("p1@test.invalid", "both", "HELP");
    let mut list = b"List-Id: <racing.lists.test.invalid>\r\n".to_vec();
    list.extend_from_slice(&direct);
    w.deliver(&list);
    assert_eq!(w.pass().processed, 1);
    w.deliver(&direct);
    assert_eq!(w.pass().processed, 1);
    let entries = w.daemon.ledger().entries().unwrap();
    let mut outcomes: Vec<&str> = entries.iter().map(|e| e.outcome.as_str()).collect();
    outcomes.sort();
    assert_eq!(outcomes[0], "answered", "{outcomes:?}");
    assert!(outcomes[1].starts_with("ignored: not answered (mailing-list"), "{outcomes:?}");
    assert!(w.text("p1@test.invalid").contains("HELP"));
    // A third copy is a second copy of the answered one.
    w.deliver(&direct);
    w.pass();
    assert_eq!(w.daemon.ledger().entries().unwrap().iter().filter(|e| e.outcome.contains("second copy")).count(), 1);
}

/// Issue 13, 8: `CREATE ... TRACK name` opened any file relative to the daemon's working
/// directory. `steward serve --once` runs here in a directory holding a valid track file.
#[test]
fn track_takes_a_shipped_name_or_a_file_of_the_tracks_folder() {
    let root = scratch("hostile-tracks");
    let folder = root.join("league-tracks");
    std::fs::create_dir_all(&folder).unwrap();
    let sprint = crate::support::root().join("tracks/sprint.toml");
    std::fs::copy(&sprint, folder.join("club.toml")).unwrap();
    std::fs::copy(&sprint, root.join("outside.toml")).unwrap();
    std::os::unix::fs::symlink(root.join("outside.toml"), folder.join("link.toml")).unwrap();
    std::fs::write(
        root.join("steward.toml"),
        format!(
            "address = \"{STEWARD}\"\ngames = \"games\"\nstate = \"state\"\ntracks = \"league-tracks\"\n\
             [inbox]\nkind = \"maildir\"\ndir = \"mail/{STEWARD}\"\n[send]\nkind = \"maildir\"\ndir = \"mail\"\n\
             [[moderator]]\naddress = \"{MOD}\"\ntoken_sha256 = \"{}\"\n",
            moderator_token_hash(MOD_TOKEN)
        ),
    )
    .unwrap();
    let create = |g: &str, track: &str| format!("TOKEN {MOD_TOKEN}\nCREATE {g} TRACK {track} LAPS 1 CARS 2");
    let inbox = root.join("mail").join(STEWARD);
    let refused = ["outside.toml", "outside", "link", "link.toml", "..", "steward.toml"];
    for (i, t) in refused.iter().enumerate() {
        deliver(&inbox, &mail(MOD, &format!("bad{i}"), &create(&format!("bad{i}"), t))).unwrap();
    }
    for (g, t) in [("shipped", "sprint"), ("club", "club"), ("clubfile", "club.toml")] {
        deliver(&inbox, &mail(MOD, g, &create(g, t))).unwrap();
    }
    // More cars than the track's grid holds (issue 48: the limit is the grid's, not 99's).
    deliver(&inbox, &mail(MOD, "crowded", &format!("TOKEN {MOD_TOKEN}\nCREATE crowded TRACK sprint LAPS 1 CARS 40")))
        .unwrap();
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_steward"))
        .current_dir(&root)
        .args(["serve", "--once", "--config", "steward.toml"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let store = Store::new(root.join("games"));
    for (i, t) in refused.iter().enumerate() {
        assert!(store.load(&format!("bad{i}"), None).is_err(), "TRACK {t} was opened");
    }
    for g in ["shipped", "club", "clubfile"] {
        assert!(store.load(g, None).is_ok(), "{g}");
    }
    let mut ib = MaildirInbox::open(root.join("mail").join(MOD)).unwrap();
    let replies: String = ib.fetch(100).unwrap().iter().map(|m| Incoming::parse(&m.raw).unwrap().full_body).collect();
    assert!(replies.contains("there is no track `outside.toml`"), "{replies}");
    // A refused order is never acknowledged as without error: the receipt says it was read,
    // then that nothing was applied and why.
    let replies = replies.replace("\r\n", "\n");
    assert!(!replies.contains("no error"), "{replies}");
    assert!(replies.contains("2 lines read.\n\nNothing of this mail was applied:\n\n* there is no track"), "{replies}");
    assert!(store.load("crowded", None).is_err(), "40 cars on sprint");
    assert!(replies.contains("CARS 40: the grid of Sprint"), "{replies}");
}

/// A damaged game is the system's failure, not the order's: the player is not told that their
/// order was wrong (nor shown the file's trouble), the moderators are told what failed, and
/// nothing is applied.
#[test]
fn a_damaged_game_is_reported_as_a_failure_not_as_the_orders_fault() {
    let mut w = World::new("damaged", |_| {});
    w.game("g", "p1@test.invalid");
    let store = Store::new(w.root.join("games"));
    let g = store.load("g", None).unwrap();
    let (car, _) = g.awaited_cars()[0];
    // Where the next turn must be written, a directory: the store cannot write it.
    let next = w.root.join("games").join("g").join("turns").join(format!("{:04}.toml", g.next_turn()));
    std::fs::create_dir_all(&next).unwrap();
    let from = if car == 1 { "p1@test.invalid" } else { "p2@test.invalid" };
    w.deliver(&mail(from, "dmg", &format!("GAME g\nCAR {car}\nTOKEN t{car}\nGEAR 1")));
    assert_eq!(w.pass().processed, 1);
    let file = format!("{:04}.toml", g.next_turn());
    let outcome = w.outcome("dmg");
    assert!(outcome.starts_with("failed: game g: ") && outcome.contains(&file), "{outcome}");
    let player = w.text(from);
    assert!(player.contains("could not be handled"), "the sender is told: {player}");
    assert!(!player.contains(&file), "the file's trouble is not the sender's: {player}");
    let note = w.text(MOD);
    assert!(note.contains("could not be handled") && note.contains(&file), "{note}");
    std::fs::remove_dir(&next).unwrap();
    assert_eq!(store.load("g", None).unwrap().next_turn(), g.next_turn(), "nothing applied");
}

/// An inbox whose first `fail` fetches fail as a mailbox server going away does.
struct Flaky {
    inner: MaildirInbox,
    fail: usize,
    transient: bool,
}

impl Inbox for Flaky {
    fn fetch(&mut self, limit: usize) -> Result<Vec<Fetched>, TransportError> {
        if self.fail > 0 {
            self.fail -= 1;
            return Err(if self.transient {
                TransportError::Connection { server: "imap.test.invalid:993".into(), detail: "reset by peer".into() }
            } else {
                TransportError::Login {
                    server: "imap.test.invalid:993".into(),
                    user: "steward".into(),
                    detail: "no".into(),
                }
            });
        }
        self.inner.fetch(limit)
    }
    fn mark_processed(&mut self, key: &str) -> Result<(), TransportError> {
        self.inner.mark_processed(key)
    }
    fn wait(&mut self, _: Duration) -> Result<(), TransportError> {
        Ok(())
    }
}

/// The long-running daemon (`serve`) outlives a mailbox server that goes away: it waits the
/// poll interval, doubled at each failure in a row, starts again from its files and handles
/// the mail once the server is back; a failure that will not clear up by itself (a refused
/// login) still ends it.
#[test]
fn serve_waits_out_a_mailbox_that_goes_away_and_stops_on_one_that_refuses() {
    let root = scratch("hostile-flaky");
    let mut cfg = Desk::config(&root);
    cfg.poll_seconds = 2;
    let address = cfg.address.clone();
    deliver(&root.join("mail").join(&address), &mail("racer@test.invalid", "while-down", "HELP")).unwrap();
    let inner = MaildirInbox::open(root.join("mail").join(&address)).unwrap();
    let mut inbox = Flaky { inner, fail: 3, transient: true };
    let mut via = Via(MaildirSender::per_recipient(root.join("mail")));
    let mut waits = Vec::new();
    let mut passes = 0;
    serve(
        &cfg,
        Durability::NoSync,
        &mut inbox,
        &mut via,
        |p| {
            passes += 1;
            p.processed > 0
        },
        |d| waits.push(d.as_secs()),
    )
    .expect("a server that comes back is waited for");
    assert_eq!(waits, [2, 4, 8], "the poll interval, doubled at each failure in a row");
    assert_eq!(passes, 1, "the first pass that went through handled the mail");
    let w = World::open(root.clone(), cfg.clone());
    assert_eq!(w.outcome("while-down"), "answered");
    assert_eq!(w.raw("racer@test.invalid").len(), 1, "answered once");

    let inner = MaildirInbox::open(root.join("mail").join(&address)).unwrap();
    let mut refusing = Flaky { inner, fail: 1, transient: false };
    let mut waited = 0;
    let e = serve(&cfg, Durability::NoSync, &mut refusing, &mut via, |_| true, |_| waited += 1)
        .expect_err("a refused login ends the daemon");
    assert!(!e.is_transient() && e.to_string().contains("refused the login"), "{e}");
    assert_eq!(waited, 0);
}

/// A damaged standing-orders file is not read as empty and then overwritten (the car's policy
/// and gear sent ahead silently lost): the mail is not handled, the moderators are told, and
/// the file is left for them to mend.
#[test]
fn damaged_standing_orders_are_not_overwritten() {
    let mut w = World::new("standing", |_| {});
    w.game("g", "p1@test.invalid");
    let g = Store::new(w.root.join("games")).load("g", None).unwrap();
    let waiting = if g.awaited_cars()[0].0 == 1 { 2 } else { 1 };
    let from = if waiting == 1 { "p1@test.invalid" } else { "p2@test.invalid" };
    let file = w.root.join("mail-state").join("games").join("g").join(format!("car-{waiting}.toml"));
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "policy = [").unwrap();
    w.deliver(&mail(from, "ahead", &format!("GAME g\nCAR {waiting}\nTOKEN t{waiting}\nGEAR 3")));
    assert_eq!(w.pass().processed, 1);
    assert!(w.outcome("ahead").starts_with("failed: reading standing orders"), "{}", w.outcome("ahead"));
    assert!(w.text(from).contains("could not be handled"));
    assert!(w.text(MOD).contains("reading standing orders"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "policy = [", "left for the moderators");
}

/// The same for a game's judge state (its observers and absences): a damaged `judge.toml` is
/// not read as empty and overwritten by a WATCH.
#[test]
fn a_damaged_judge_state_is_not_overwritten() {
    let mut w = World::new("judge-state", |_| {});
    w.game("g", "p1@test.invalid");
    let file = w.root.join("mail-state").join("games").join("g").join("judge.toml");
    std::fs::create_dir_all(file.parent().unwrap()).unwrap();
    std::fs::write(&file, "observers = [").unwrap();
    w.deliver(&mail("fan@test.invalid", "watch", "WATCH g"));
    assert_eq!(w.pass().processed, 1);
    assert!(w.outcome("watch").starts_with("failed: reading the game's judge state"), "{}", w.outcome("watch"));
    assert!(w.text("fan@test.invalid").contains("could not be handled"));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), "observers = [", "left for the moderators");
}
