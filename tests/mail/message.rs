//! Real-world mails (tests/mail/fixtures/*.eml): what `Incoming::parse` extracts from each,
//! and which ones must never be answered.

use steward::engine::{Part, Tyres};
use steward::mail::message::{
    Incoming, LoopReason, MAX_MESSAGE_BYTES, MAX_RAW_BYTES, MessageError, check_size, clean_body, html_to_text, unflow,
};
use steward::orders::policy::Rule;
use steward::orders::{Order, Stop, parse};

use crate::support::root;

fn fixture(name: &str) -> Incoming {
    let raw = std::fs::read(root().join("tests/mail/fixtures").join(name)).unwrap();
    Incoming::parse(&raw).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The orders of a fixture, which must all be valid.
fn orders(m: &Incoming) -> Vec<Order> {
    let p = parse(&m.body);
    assert!(p.is_ok(), "{:#?}", p.lines);
    p.orders().into_iter().cloned().collect()
}

#[test]
fn gmail_top_posted_reply_keeps_the_orders_and_drops_the_quote() {
    let m = fixture("gmail_reply.eml");
    assert_eq!(m.from, "ann.player@gmail.com", "the address is lower-cased");
    assert_eq!(m.from_name.as_deref(), Some("Ann Player"));
    assert_eq!(m.message_id.as_deref(), Some("CAJx8s=abc123@mail.gmail.com"));
    assert_eq!(m.in_reply_to, ["turn-11.monaco-1@steward.example.org"]);
    assert_eq!(m.references, ["turn-11.monaco-1@steward.example.org"]);
    assert_eq!(m.subject, "Re: [monaco-1] Turn 12: car 3 to play");
    assert_eq!(m.date.as_deref(), Some("2026-11-03T11:14:51+01:00"));
    assert_eq!(m.body, "GAME monaco-1\nCAR 3\nTOKEN k7w2-x9qa\nTURN 12\nGEAR 4\n", "text/plain part, wrapped 'wrote:'");
    assert_eq!(m.loop_reason(), None);
    assert_eq!(
        orders(&m),
        [
            Order::Game("monaco-1".into()),
            Order::Car(3),
            Order::Token("k7w2-x9qa".into()),
            Order::Turn(12),
            Order::Gear(4)
        ]
    );
}

#[test]
fn gmail_html_only_reply_in_french_quotes_the_blockquote() {
    let m = fixture("gmail_html_only.eml");
    assert_eq!(m.body, "GAME monaco-1\nCAR 8\nTOKEN p-1\nGEAR 5\nHISTORY 2\n");
    assert!(m.full_body.contains("> GEAR 6"), "{}", m.full_body);
    assert_eq!(orders(&m)[3..], [Order::Gear(5), Order::History(2)]);
}

#[test]
fn thunderbird_bottom_post_reads_below_the_quote_and_stops_at_the_signature() {
    let m = fixture("thunderbird_bottom_post.eml");
    assert_eq!(m.from_name.as_deref(), Some("René Arnoux"), "RFC 2047 encoded name");
    assert_eq!(m.references.len(), 2);
    assert_eq!(m.body, "CHOIX A\n");
    assert_eq!(orders(&m), [Order::Choose("A".into())]);
}

#[test]
fn html_only_mail_becomes_lines() {
    let m = fixture("html_only.eml");
    assert_eq!(m.from, "bob@example.net");
    assert_eq!(m.from_name, None);
    let o = orders(&m);
    assert_eq!(
        o[3],
        Order::Pit { stop: Stop::Long, tyres: Some(Tyres::Soft), repairs: vec![(Part::Brakes, 2), (Part::Body, 1)] }
    );
    assert!(matches!(&o[4], Order::Policy(p) if p.rules == [Rule::FarthestFree, Rule::Safest]));
    assert_eq!(parse(&m.body).skipped, 1, "'Hi steward,' is prose before the first order");
}

#[test]
fn iso_8859_1_quoted_printable_in_french() {
    let m = fixture("latin1_qp.eml");
    assert_eq!(m.from, "francoise@example.fr");
    assert_eq!(m.from_name.as_deref(), Some("Françoise"));
    assert_eq!(m.subject, "Ordres du tour 12 à Monaco");
    assert!(m.body.contains("CONSIGNE LOIN-GRATUIT SINON SÛR\nVITESSE 3\nRÉVÉLER\n"), "{}", m.body);
    let o = orders(&m);
    assert!(matches!(&o[3], Order::Policy(p) if p.rules == [Rule::FarthestFree, Rule::Safest]));
    assert_eq!(o[4..], [Order::Gear(3), Order::Reveal]);
    let p = parse(&m.body);
    assert_eq!(p.skipped, 2, "'Bonjour,' before and 'Françoise' after the orders");
}

#[test]
fn base64_utf8_with_a_phone_footer() {
    let m = fixture("base64_utf8.eml");
    assert_eq!(m.from_name.as_deref(), Some("Zoé"));
    assert!(m.body.starts_with("PARTIE monaco-1\nVOITURE 4\n"));
    assert_eq!(orders(&m)[3..], [Order::Turn(12), Order::Gear(5)]);
}

#[test]
fn outlook_top_posting_stops_at_the_original_message() {
    let m = fixture("outlook_top.eml");
    assert_eq!(m.reply_to.as_deref(), Some("carl@home.example"));
    assert_eq!(m.reply_address(), "carl@home.example");
    assert_eq!(m.body, "GAME monaco-1\nCAR 6\nTOKEN carl-77\nCHOOSE B\n\nRegards – Carl\n", "windows-1252 dash");
    assert_eq!(orders(&m).last(), Some(&Order::Choose("B".into())), "the quoted CHOOSE A is not read");
}

#[test]
fn outlook_web_french_top_posting_stops_at_the_underscores() {
    let m = fixture("outlook_fr_top.eml");
    assert_eq!(m.body, "STAND RAPIDE PNEUS pluie\n");
    assert_eq!(orders(&m), [Order::Pit { stop: Stop::Quick, tyres: Some(Tyres::Rain), repairs: vec![] }]);
}

#[test]
fn a_join_with_prose_around_it() {
    let m = fixture("join.eml");
    let o = orders(&m);
    assert_eq!(
        o[0],
        Order::Join {
            game: "monaco-1".into(),
            car: Some(3),
            password: Some("letmein".into()),
            phrase: Some("the quick brown fox, 1987".into()),
            confirm: None,
        }
    );
    assert!(matches!(o[1], Order::Setup(w) if w.tyres == 6 && w.handling == 1 && w.total() == 20));
    assert_eq!(o[2..], [Order::Tyres { dry: Tyres::Soft, wet: None }, Order::Lang(steward::words::Lang::Fr)]);
}

#[test]
fn bounces_auto_replies_and_lists_are_never_answered() {
    let b = fixture("bounce.eml");
    assert_eq!(b.loop_reason(), Some(LoopReason::Report));
    let a = fixture("autoreply.eml");
    assert_eq!(a.loop_reason(), Some(LoopReason::AutoSubmitted("auto-replied (vacation)".into())));
    let l = fixture("list.eml");
    assert!(matches!(l.loop_reason(), Some(LoopReason::ListHeader(_))));
    for ok in ["gmail_reply.eml", "html_only.eml", "outlook_top.eml", "join.eml"] {
        assert_eq!(fixture(ok).loop_reason(), None, "{ok}");
    }
}

/// A plain mail with this subject (RFC 2047-encoded, as clients send accents).
fn subjected(subject: &str) -> Incoming {
    let encoded: String = subject.bytes().map(|b| format!("={b:02X}")).collect();
    let raw = format!(
        "From: a@x.org\r\nTo: steward@example.org\r\nSubject: =?utf-8?q?{encoded}?=\r\n\r\nJe suis absent.\r\n"
    );
    Incoming::parse(raw.as_bytes()).unwrap()
}

fn mail(headers: &str) -> Incoming {
    let raw = format!("{headers}\r\nTo: steward@example.org\r\nSubject: x\r\n\r\nGEAR 4\r\n");
    Incoming::parse(raw.as_bytes()).unwrap()
}

#[test]
fn each_loop_signal_alone() {
    type Check = fn(&LoopReason) -> bool;
    let cases: [(&str, Check); 9] = [
        ("From: MAILER-DAEMON@x.org", |r| matches!(r, LoopReason::DaemonSender(_))),
        ("From: postmaster@x.org", |r| matches!(r, LoopReason::DaemonSender(_))),
        ("From: a@x.org\r\nAuto-Submitted: auto-generated", |r| matches!(r, LoopReason::AutoSubmitted(_))),
        ("From: a@x.org\r\nPrecedence: junk", |r| matches!(r, LoopReason::Precedence(_))),
        ("From: a@x.org\r\nPrecedence: bulk", |r| matches!(r, LoopReason::Precedence(_))),
        ("From: a@x.org\r\nReturn-Path: <>", |r| *r == LoopReason::NullReturnPath),
        ("From: a@x.org\r\nList-Post: <mailto:l@x.org>", |r| matches!(r, LoopReason::ListHeader(_))),
        ("From: a@x.org\r\nX-Autoreply: yes", |r| matches!(r, LoopReason::AutoReplyHeader(_))),
        ("From: a@x.org\r\nX-Auto-Response-Suppress: All", |r| matches!(r, LoopReason::AutoReplyHeader(_))),
    ];
    for (h, ok) in cases {
        let r = mail(h).loop_reason();
        assert!(r.as_ref().is_some_and(ok), "{h}: {r:?}");
    }
    // Plain-text automatic replies with no header for it (issue 45, item 14): told by subject.
    for subject in [
        "Absence du bureau",
        "Réponse automatique : [g] turn 4",
        "Automatic reply: [g] turn 4",
        "Out of Office: Re: x",
        "AUTO: away",
    ] {
        let r = subjected(subject).loop_reason();
        assert!(matches!(r, Some(LoopReason::AutoReplySubject(_))), "{subject}: {r:?}");
    }
    for subject in ["Re: [g] turn 4", "GEAR 4", "my absence next week"] {
        assert_eq!(subjected(subject).loop_reason(), None, "{subject}");
    }
    for h in ["From: a@x.org\r\nAuto-Submitted: no", "From: a@x.org\r\nPrecedence: first-class", "From: a@x.org"] {
        assert_eq!(mail(h).loop_reason(), None, "{h}");
    }
}

#[test]
fn size_limit_and_unreadable_mail() {
    // The limit is on the text read (the daemon checks `text_bytes`); a mail over
    // MAX_RAW_BYTES in all has only its headers read.
    assert_eq!(
        check_size(MAX_MESSAGE_BYTES + 1, MAX_MESSAGE_BYTES),
        Err(MessageError::TooLarge { size: MAX_MESSAGE_BYTES + 1, max: MAX_MESSAGE_BYTES })
    );
    assert_eq!(check_size(MAX_MESSAGE_BYTES, MAX_MESSAGE_BYTES), Ok(()));
    let mut big = b"From: a@x.org\r\nSubject: big\r\n\r\nGEAR 4\r\n".to_vec();
    big.resize(MAX_RAW_BYTES + 1, b'a');
    let m = Incoming::parse(&big).unwrap();
    assert_eq!((m.from.as_str(), m.body.as_str(), m.text_bytes), ("a@x.org", "", MAX_RAW_BYTES + 1));
    assert_eq!(Incoming::parse(b""), Err(MessageError::Unreadable));
    assert_eq!(Incoming::parse(b"Subject: hi\r\n\r\nGEAR 4\r\n"), Err(MessageError::NoSender));
    assert!(MessageError::NoSender.to_string().contains("From"));
}

#[test]
fn cleaning_rules_one_by_one() {
    // Quoted lines go, the text around them stays.
    assert_eq!(clean_body("> GEAR 6\nGEAR 4\n> old\nCHOOSE A"), "GEAR 4\nCHOOSE A\n");
    // A signature separator with or without its trailing space.
    assert_eq!(clean_body("GEAR 4\n-- \nAnn\nGEAR 6"), "GEAR 4\n");
    assert_eq!(clean_body("GEAR 4\n--\nAnn"), "GEAR 4\n");
    // "On ... wrote:" followed by unmarked text (a converted quote): cut.
    assert_eq!(clean_body("GEAR 4\nOn Mon, Ann wrote:\nGEAR 6"), "GEAR 4\n");
    // Outlook's header block without the Original Message line.
    assert_eq!(clean_body("GEAR 4\n\nFrom: steward\nSent: today\nTo: me\n\nGEAR 6"), "GEAR 4\n");
    // A From: line that is not a header block stays (and will be refused as an order).
    assert_eq!(clean_body("From: me with love\nGEAR 4"), "From: me with love\nGEAR 4\n");
    // CR LF, non-breaking spaces, a byte-order mark.
    assert_eq!(clean_body("\u{feff}GEAR\u{a0}4\r\n"), "GEAR 4\n");
}

#[test]
fn html_conversion() {
    assert_eq!(html_to_text("<p>GEAR&nbsp;4</p><p>CHOOSE &lt;B&gt;</p>"), "GEAR 4\nCHOOSE <B>");
    assert_eq!(html_to_text("A<br>B<br/><br>C"), "A\nB\n\nC");
    assert_eq!(html_to_text("<style>p{}</style>X<blockquote>Y<div>Z</div></blockquote>W"), "X\n> Y\n> Z\nW");
    assert_eq!(html_to_text("R&#201;V&#xC9;LER &bogus; &amp"), "RÉVÉLER &bogus; &amp");
}

#[test]
fn format_flowed_lines_are_joined() {
    let m = fixture("thunderbird_flowed.eml");
    assert_eq!(
        m.body,
        "JOIN monaco-1 CAR 3 PASSWORD letmein PHRASE the quick brown fox jumps over the lazy dog, twice on Sundays\nGEAR 4\n"
    );
    let o = orders(&m);
    assert!(matches!(&o[0], Order::Join { phrase: Some(p), .. } if p.ends_with("twice on Sundays")));
    assert_eq!(unflow("a \r\nb\r\n> c \r\n> d\r\n-- \r\nsig", false), "a b\n> c d\n-- \nsig");
    assert_eq!(unflow("ab \nc", true), "abc");
}

#[test]
fn multi_byte_charsets_are_read() {
    let m = fixture("shift_jis.eml");
    assert_eq!(m.from_name.as_deref(), Some("山田"), "ISO-2022-JP encoded word");
    assert_eq!(m.subject, "注文", "Shift_JIS encoded word");
    assert_eq!(m.body, "こんにちは、ステュワードさん。\nGEAR 3\n");
    assert_eq!(orders(&m), [Order::Gear(3)]);
}
