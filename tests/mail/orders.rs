//! The order language: every order in English and French, every error with what to write
//! instead, receipts, and standing-order policies over priced options.

use steward::engine::{Elimination, Fate, MoveOption, Part, Tyres, Wear};
use steward::orders::policy::{Decision, Policy, Rule, decide};
use steward::orders::{Arg, Kw, Order, OrderError, RECEIPT_WIDTH, Stop, parse, receipt};
use steward::track::SpaceIdx;
use steward::words::Lang;

/// The one order of a one-line text.
fn one(text: &str) -> Order {
    let p = parse(text);
    assert_eq!(p.lines.len(), 1, "{text}: {:#?}", p.lines);
    p.lines[0].result.clone().unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The error of a one-line text.
fn err(text: &str) -> OrderError {
    let p = parse(text);
    assert_eq!(p.lines.len(), 1, "{text}: {:#?}", p.lines);
    p.lines[0].result.clone().expect_err(text)
}

#[test]
fn header_orders_in_both_languages() {
    for (en, fr, want) in [
        ("GAME monaco-1", "PARTIE monaco-1", Order::Game("monaco-1".into())),
        ("CAR 3", "VOITURE 3", Order::Car(3)),
        ("TOKEN k7w2", "JETON k7w2", Order::Token("k7w2".into())),
        ("password k7w2", "Mot-de-passe k7w2", Order::Token("k7w2".into())),
        ("TURN 12", "TOUR 12", Order::Turn(12)),
    ] {
        assert_eq!(one(en), want, "{en}");
        assert_eq!(one(fr), want, "{fr}");
        assert_eq!(one(&en.to_lowercase()), want, "case-insensitive");
        assert!(want.is_header());
    }
}

#[test]
fn join_setup_and_tyres() {
    assert_eq!(
        one("JOIN monaco-1"),
        Order::Join { game: "monaco-1".into(), car: None, password: None, phrase: None, confirm: None }
    );
    assert_eq!(
        one("rejoindre monaco-1 voiture 4 motdepasse bleu phrase Il était   une fois"),
        Order::Join {
            game: "monaco-1".into(),
            car: Some(4),
            password: Some("bleu".into()),
            phrase: Some("Il était   une fois".into()),
            confirm: None,
        }
    );
    assert_eq!(
        one("INSCRIPTION m PHRASE car 5").clone(),
        Order::Join { game: "m".into(), car: None, password: None, phrase: Some("car 5".into()), confirm: None }
    );
    // The code steward mailed, before the PHRASE (which takes the rest of the line).
    assert_eq!(
        one("REJOINDRE m CONFIRMER 1A2B3C4D VOITURE 2 PHRASE x"),
        Order::Join {
            game: "m".into(),
            car: Some(2),
            password: None,
            phrase: Some("x".into()),
            confirm: Some("1a2b3c4d".into())
        }
    );
    let w = Wear::standard();
    assert_eq!(one("SETUP tyres=6 brakes=4 gas=3 body=3 engine=3 handling=1"), Order::Setup(w));
    assert_eq!(one("CONFIG pneus 6, freins 4, conso 3, carrosserie 3, moteur 3, tenue 1"), Order::Setup(w));
    assert_eq!(one("configuration pneus:6 freins:4 boîte:3 carrosserie:3 moteur:3 tenue-de-route:1"), Order::Setup(w));
    assert_eq!(one("TYRES hard"), Order::Tyres { dry: Tyres::Hard, wet: None });
    assert_eq!(one("PNEUS tendres"), Order::Tyres { dry: Tyres::Soft, wet: None });
    assert_eq!(one("pneus PLUIE"), Order::Tyres { dry: Tyres::Rain, wet: None });
    // Tyres for a track wet at the start, since the weather is drawn at the start (ruling 30).
    assert_eq!(one("TYRES soft WET rain"), Order::Tyres { dry: Tyres::Soft, wet: Some(Tyres::Rain) });
    assert_eq!(one("pneus tendres mouillée pluie"), Order::Tyres { dry: Tyres::Soft, wet: Some(Tyres::Rain) });
    assert!(matches!(err("TYRES soft WET"), OrderError::Missing { .. }), "WET needs its tyres");
    assert!(matches!(err("TYRES soft WET rain hard"), OrderError::Unexpected { .. }), "nothing after");
}

#[test]
fn a_gear_line_copied_from_its_prompt_is_the_gear() {
    // Issue 47: players copy `GEAR <1>  (no cost)` as the prompt wrote it.
    assert_eq!(one("GEAR <1>  (no cost)"), Order::Gear(1));
    assert_eq!(one("GEAR 4  (4, 5: no cost; 3: 1 gas point; 13-1)"), Order::Gear(4));
    assert_eq!(one("VITESSE <3>"), Order::Gear(3));
    // The list of gears offered still asks for one.
    let _ = err("GEAR <2|3|4>");
    let _ = err("GEAR 4 please");
}

#[test]
fn moves_pits_and_policies() {
    assert_eq!(one("GEAR 4"), Order::Gear(4));
    assert_eq!(one("vitesse 6"), Order::Gear(6));
    assert_eq!(one("RAPPORT 1"), Order::Gear(1));
    assert_eq!(one("CHOOSE b"), Order::Choose("b".into()));
    assert_eq!(one("CHOIX s12-3"), Order::Choose("s12-3".into()));
    assert_eq!(one("REROLL"), Order::Reroll);
    assert_eq!(one("relancer"), Order::Reroll);
    assert!(matches!(err("REROLL B"), OrderError::Unexpected { .. }));
    assert_eq!(one("PIT QUICK"), Order::Pit { stop: Stop::Quick, tyres: None, repairs: vec![] });
    assert_eq!(
        one("STAND LONG PNEUS durs RÉPARER freins 2 carrosserie 1"),
        Order::Pit { stop: Stop::Long, tyres: Some(Tyres::Hard), repairs: vec![(Part::Brakes, 2), (Part::Body, 1)] }
    );
    assert_eq!(
        one("PIT LONG REPAIR tyres 2 brakes=1 TYRES rain"),
        Order::Pit { stop: Stop::Long, tyres: Some(Tyres::Rain), repairs: vec![(Part::Tyres, 2), (Part::Brakes, 1)] }
    );
    let pol = |rules: &[Rule]| Order::Policy(Policy::of(rules));
    assert_eq!(one("POLICY FARTHEST-FREE ELSE SAFEST"), pol(&[Rule::FarthestFree, Rule::Safest]));
    assert_eq!(
        one("policy farthest free else farthest else bot"),
        pol(&[Rule::FarthestFree, Rule::Farthest, Rule::Bot])
    );
    assert_eq!(one("CONSIGNE LOIN-GRATUIT SINON SÛR"), pol(&[Rule::FarthestFree, Rule::Safest]));
    assert_eq!(one("consigne plus loin sinon robot"), pol(&[Rule::Farthest, Rule::Bot]));
    assert_eq!(one("POLICY NONE"), pol(&[]));
    assert_eq!(one("CONSIGNE AUCUNE"), pol(&[]));
}

#[test]
fn requests_and_moderator_commands() {
    for (en, fr, want) in [
        ("BOARD", "PLATEAU", Order::Board),
        ("HISTORY 3", "HISTORIQUE 3", Order::History(3)),
        ("HISTORY", "HISTORIQUE", Order::History(1)),
        ("HELP", "AIDE", Order::Help),
        ("STANDINGS", "CLASSEMENT", Order::Standings),
        ("LANG fr", "LANGUE français", Order::Lang(Lang::Fr)),
        ("START", "DÉMARRER", Order::Start(None)),
        (
            &format!("START BEACON {}", "AB".repeat(32)),
            &format!("DÉMARRER BALISE {}", "ab".repeat(32)),
            Order::Start(Some("ab".repeat(32))),
        ),
        ("PAUSE", "pause", Order::Pause),
        ("RESUME", "REPRENDRE", Order::Resume),
        ("DEADLINE 48", "DÉLAI 48", Order::Deadline(48)),
        (
            "REPLACE CAR 3 Ann@Example.org",
            "REMPLACER VOITURE 3 <ann@example.org>",
            Order::Replace { car: 3, address: "ann@example.org".into() },
        ),
        ("FORCE CAR 2", "FORCER VOITURE 2", Order::Force { car: 2 }),
        ("REVEAL", "REVELER", Order::Reveal),
    ] {
        assert_eq!(one(en), want, "{en}");
        assert_eq!(one(fr), want, "{fr}");
    }
    assert!(one("REVEAL").is_moderator() && !one("GEAR 3").is_moderator());
    // A beacon named at the creation: drand's round 5700000 is public 30 s a round after round 1.
    let Order::Create { beacon: Some(b), .. } = one("CREATE m TRACK monaco LAPS 1 BEACON drand 5700000") else {
        panic!("a beacon")
    };
    assert_eq!(b.at.0, 1_595_431_050 + 5_699_999 * 30);
    assert!(b.source.starts_with("drand mainnet round 5700000"), "{}", b.source);
    assert_eq!(
        one("CRÉER m CIRCUIT monaco TOURS 1 BALISE nist 2027-01-01T20:00:00Z"),
        one("CREATE m TRACK monaco LAPS 1 BEACON NIST 2027-01-01T20:00:00Z")
    );
    for bad in [
        "CREATE m TRACK monaco LAPS 1 BEACON drand soon",
        "CREATE m TRACK monaco LAPS 1 BEACON nist 2027-01-01T20:00:30Z",
        "CREATE m TRACK monaco LAPS 1 BEACON lottery 5",
        "START BEACON 12ab",
    ] {
        assert!(matches!(err(bad), OrderError::Invalid { .. }), "{bad}");
    }
    assert_eq!(
        one("CREATE monaco-1 TRACK monaco LAPS 3 CARS 6 HOURS 24 PROFILE competition-2004"),
        Order::Create {
            game: "monaco-1".into(),
            track: "monaco".into(),
            laps: 3,
            cars: Some(6),
            hours: Some(24),
            profile: Some("competition-2004".into()),
            weather: None,
            grid: None,
            lap_thirds: false,
            late: false,
            pits: None,
            backmarkers: false,
            round_pace: false,
            schedule: None,
            beacon: None,
        }
    );
    assert_eq!(
        one("CRÉER monaco-1 CIRCUIT monaco TOURS 2"),
        Order::Create {
            game: "monaco-1".into(),
            track: "monaco".into(),
            laps: 2,
            cars: None,
            hours: None,
            profile: None,
            weather: None,
            grid: None,
            lap_thirds: false,
            late: false,
            pits: None,
            backmarkers: false,
            round_pace: false,
            schedule: None,
            beacon: None,
        }
    );
    // A schedule, in English and in French (`À 20h`, `FUSEAU`, `WEEKENDS NON`).
    let scheduled = one("CREATE m TRACK monaco LAPS 1 AT 20:00 ZONE europe/paris WEEKENDS NO GRACE 30");
    assert_eq!(scheduled, one("CRÉER m CIRCUIT monaco TOURS 1 À 20h FUSEAU Europe/Paris WEEKENDS NON GRACE 30"));
    let Order::Create { schedule: Some(s), round_pace: true, .. } = scheduled else { panic!("{scheduled:?}") };
    assert_eq!(
        s,
        steward::store::Schedule {
            at: "20:00".into(),
            zone: "Europe/Paris".into(),
            skip_weekends: true,
            notice_hours: 12,
            grace_minutes: 30
        }
    );
    for bad in ["CREATE m TRACK monaco LAPS 1 AT 25:00", "CREATE m TRACK monaco LAPS 1 AT 20:00 ZONE Mars/Olympus"] {
        assert!(matches!(err(bad), OrderError::Invalid { .. }), "{bad}");
    }
    assert!(matches!(err("CREATE m TRACK monaco LAPS 1 GRACE 30"), OrderError::Missing { .. }), "GRACE needs AT");
    assert_eq!(
        one("CREATE m TRACK monaco LAPS 1 WEATHER changeable"),
        one("CRÉER m CIRCUIT monaco TOURS 1 MÉTÉO variable")
    );
    assert!(
        matches!(one("CREATE m TRACK monaco LAPS 1 WEATHER rain"), Order::Create { weather: Some(w), .. } if w.name() == "rain")
    );
    assert!(matches!(err("CREATE m TRACK monaco LAPS 1 WEATHER snow"), OrderError::Invalid { .. }));
    assert!(matches!(
        one("CREATE m TRACK monaco LAPS 1 PROFILE Eurogames-Advanced:tyres+weather"),
        Order::Create { profile: Some(p), .. } if p == "eurogames-advanced:tyres,weather"
    ));
    assert!(
        matches!(one("CREATE m TRACK monaco LAPS 1 GRID essais"), Order::Create { grid: Some(g), .. } if g.name() == "qualifying")
    );
    // 002's three weather checks a lap (ruling 46).
    assert!(matches!(one("CREATE m TRACK monaco LAPS 1 CHECKS lap-thirds"), Order::Create { lap_thirds: true, .. }));
    assert!(matches!(one("CRÉER m CIRCUIT monaco TOURS 1 CONTRÔLES tiers"), Order::Create { lap_thirds: true, .. }));
    assert!(matches!(err("CREATE m TRACK monaco LAPS 1 CHECKS often"), OrderError::Invalid { .. }));
    assert!(matches!(one("CREATE m TRACK monaco LAPS 1 LATE yes"), Order::Create { late: true, .. }));
    assert!(matches!(one("CRÉER m CIRCUIT monaco TOURS 1 RETARD oui"), Order::Create { late: true, .. }));
    // 002: the boxes chosen from the back of the grid (ruling 48), and a player's wishes.
    let reverse = Some(steward::engine::pits::PitChoice::ReverseGrid);
    assert!(
        matches!(one("CREATE m TRACK monaco LAPS 1 PITS reverse-grid"), Order::Create { pits, .. } if pits == reverse)
    );
    assert!(
        matches!(one("CRÉER m CIRCUIT monaco TOURS 1 STANDS grille-inverse"), Order::Create { pits, .. } if pits == reverse)
    );
    assert!(matches!(err("CREATE m TRACK monaco LAPS 1 PITS random"), OrderError::Invalid { .. }));
    // 002's backmarkers (ruling 49).
    assert!(matches!(one("CREATE m TRACK monaco LAPS 2 BACKMARKERS yes"), Order::Create { backmarkers: true, .. }));
    assert!(matches!(one("CRÉER m CIRCUIT monaco TOURS 2 RETARDATAIRES oui"), Order::Create { backmarkers: true, .. }));
    assert!(matches!(err("CREATE m TRACK monaco LAPS 2 BACKMARKERS maybe"), OrderError::Invalid { .. }));
    assert_eq!(one("BOXES 3 1 2"), Order::Boxes(vec![3, 1, 2]));
    assert!(matches!(err("BOXES"), OrderError::Missing { .. }));
    assert!(matches!(err("BOXES 0"), OrderError::Range { .. }));
    assert!(matches!(err("CREATE m TRACK monaco LAPS 1 LATE maybe"), OrderError::Invalid { .. }));
}

#[test]
fn errors_say_what_to_write() {
    let cases: &[(&str, &str)] = &[
        ("GEAR 9", "GEAR takes a gear from 1 to 6, not '9': write GEAR 4"),
        ("GEAR four", "GEAR takes a gear from 1 to 6, not 'four': write GEAR 4"),
        ("GEAR", "GEAR needs a gear: write GEAR 4"),
        ("GEAR 4 please", "GEAR does not take 'please': write GEAR 4"),
        ("GEER 4", "'GEER' is not an order; did you mean GEAR? write GEAR 4"),
        ("TYRES slicks", "TYRES: 'slicks' is not a tyre type (HARD, SOFT or RAIN): write TYRES soft WET rain"),
        ("CAR 0", "CAR takes a car number from 1 to 99, not '0': write CAR 3"),
        ("GAME mon/aco", "GAME: 'mon/aco' is not a game name: write GAME monaco-1"),
        ("SETUP tyres=6", "SETUP needs all six parts (5-0-1), missing brakes, gas, body, engine, handling"),
        ("SETUP tyres=6 wings=2", "SETUP: 'wings' is not a part (tyres, brakes, gas, body, engine, handling)"),
        ("SETUP tyres=6 tyres=2", "tyres is given twice"),
        (
            "SETUP tyres=6 brakes=4 gas=3 body=3 engine=3 handling=0",
            "SETUP takes a number of points from 1 to 22, not '0'",
        ),
        ("SETUP tyres=10 brakes=4 gas=3 body=3 engine=3 handling=1", "the car carries 24 points"),
        ("SETUP tyres=5 brakes=4 gas=3 body=3 engine=3 handling=1", "the car carries 19 points"),
        ("PIT QUICK REPAIR brakes 2", "a quick stop only changes tyres (19-3-1): write PIT LONG REPAIR brakes 2"),
        ("PIT SLOW", "PIT: 'SLOW' is not QUICK or LONG"),
        ("PIT LONG REPAIR", "PIT needs a part"),
        ("POLICY FASTEST", "POLICY: 'FASTEST' is not a rule (FARTHEST-FREE, FARTHEST, SAFEST, BOT, PIT, ASK or NONE)"),
        ("POLICY SAFEST ELSE", "POLICY needs a rule"),
        ("POLICY NONE ELSE SAFEST", "NONE clears the policy and stands alone: write POLICY NONE"),
        ("LANG de", "LANG: 'de' is not a language (en, fr): write LANG fr"),
        ("HISTORY 0", "HISTORY takes a count from 1 to 100"),
        ("BOARD now", "BOARD does not take 'now': write BOARD"),
        ("CREATE g LAPS 3", "CREATE needs a track: write CREATE monaco-1 TRACK monaco LAPS 3"),
        ("CREATE g TRACK monaco", "CREATE needs a number of laps"),
        ("REPLACE CAR 3 nobody", "REPLACE: 'nobody' is not a mail address"),
        ("REPLACE 3 a@b.org", "REPLACE does not take '3': write REPLACE CAR 3 ann@example.org"),
        ("FORCE CAR", "FORCE needs a car number"),
        ("JOIN", "JOIN needs a game name"),
        ("JOIN g COLOUR red", "JOIN does not take 'COLOUR'"),
        ("JOIN g PHRASE", "JOIN needs some words"),
        ("DEADLINE soon", "DEADLINE takes a number of hours from 1 to 1440, not 'soon'"),
        ("END now", "END does not take 'now'"),
    ];
    for (text, want) in cases {
        let e = err(text).message(Lang::En);
        assert!(e.contains(want), "{text}: got {e:?}, want {want:?}");
        assert_eq!(err(text).to_string(), e, "Display is the English message");
    }
}

#[test]
fn errors_in_french() {
    let cases: &[(&str, &str)] = &[
        ("VITESSE 9", "VITESSE : une vitesse de 1 à 6, pas « 9 » : écrivez VITESSE 4"),
        ("VITESE 4", "vouliez-vous dire VITESSE ? écrivez VITESSE 4"),
        ("PNEUS slicks", "n'est pas un type de pneus (DURS, TENDRES ou PLUIE) : écrivez PNEUS tendres"),
        ("STAND RAPIDE REPARER freins 1", "un arrêt rapide ne change que les pneus (19-3-1)"),
        ("CONFIG pneus=6", "il manque brakes, gas, body, engine, handling"),
        ("CONFIG pneus=10 freins=4 conso=3 carrosserie=3 moteur=3 tenue=1", "24 points, c'est trop"),
        ("CONSIGNE AUCUNE SINON SUR", "écrivez CONSIGNE AUCUNE"),
    ];
    for (text, want) in cases {
        let e = err(text).message(Lang::Fr);
        assert!(e.contains(want), "{text}: got {e:?}, want {want:?}");
    }
    assert_eq!(err("GEAR 9"), OrderError::Range { order: Kw::Gear, what: Arg::Gear, got: "9".into(), min: 1, max: 6 });
}

#[test]
fn prose_before_and_after_is_skipped_but_not_between_orders() {
    let p = parse("Hi there,\n\nhere are my orders.\nGEAR 4\n\nCHOOSE A\n\nCheers\nAnn\n");
    assert!(p.is_ok(), "{:#?}", p.lines);
    assert_eq!(p.skipped, 4);
    assert_eq!(p.lines.iter().map(|l| l.number).collect::<Vec<_>>(), [4, 6], "line numbers are kept");
    assert_eq!(p.orders(), [&Order::Gear(4), &Order::Choose("A".into())]);

    let p = parse("GEAR 4\nplease be kind\nCHOOSE A");
    assert!(!p.is_ok());
    assert!(p.orders().is_empty(), "a message with an error applies nothing");
    let (line, e) = p.errors().next().unwrap();
    assert_eq!((line.number, line.text.as_str()), (2, "please be kind"));
    assert!(e.to_string().contains("or END after your last order"));

    // A misspelt keyword before the first order is reported, not skipped; prose that happens
    // to start with a word near a keyword is skipped.
    let p = parse("Gaer 4\n");
    assert!(!p.is_ok());
    let p = parse("Pour le tour 12, voici mes ordres :\nVITESSE 4\nAnd thanks again\nFine.");
    assert!(p.is_ok(), "{:#?}", p.lines);
    assert_eq!(p.skipped, 3);
    // END stops the reading.
    let p = parse("GEAR 4\nEND\nanything at all 42\nGEAR 9");
    assert!(p.is_ok() && p.ended);
    assert_eq!(p.lines.len(), 1);
    // Nothing at all.
    let p = parse("\n\n");
    assert!(p.is_ok() && p.lines.is_empty());
}

#[test]
fn receipts_mark_errors_on_their_line() {
    let p = parse("GAME monaco-1\nGEAR 9\nCHOOSE B");
    let en = receipt(&p, Lang::En);
    let want = "Orders read:\n   1  GAME monaco-1\n   2  GEAR 9\n      ERROR: GEAR takes a gear from 1 to 6, not '9': write GEAR 4\n   3  CHOOSE B\n\n1 error: nothing was applied. Correct the lines marked ERROR and send all your\norders again.\n";
    assert_eq!(en, want);
    let fr = receipt(&parse("VITESSE 4\nCHOIX"), Lang::Fr);
    assert!(fr.starts_with("Ordres lus :\n   1  VITESSE 4\n   2  CHOIX\n      ERREUR : CHOIX attend"), "{fr}");
    assert!(fr.contains("1 erreur : rien n'a été appliqué."), "{fr}");
    let ok = receipt(&parse("Bonjour\nVITESSE 4"), Lang::Fr);
    assert!(ok.contains("1 ligne lue.") && ok.contains("(1 ligne de texte ignorée : 1 \"Bonjour\".)"), "{ok}");
    assert!(receipt(&parse("hello"), Lang::En).starts_with("No order found"));
    let long = format!("JOIN g PHRASE {}", "très longue phrase ".repeat(10));
    for r in
        [receipt(&parse(&long), Lang::En), receipt(&parse(&format!("{long}\nGEAR 12 {}", "x".repeat(90))), Lang::Fr)]
    {
        assert!(r.lines().all(|l| l.chars().count() <= RECEIPT_WIDTH), "{r}");
    }
}

pub(super) fn option(spaces: u8, brakes: u8, tyres: u8, dangerous: usize, fate: Fate) -> MoveOption {
    MoveOption {
        end: SpaceIdx(spaces as u16),
        path: Vec::new(),
        spaces,
        brakes,
        blocked: 0,
        blocking_brakes: 0,
        blocking_tyres: 0,
        overshoot: None,
        overshoot_tyres: tyres,
        missed: None,
        dangerous: (0..dangerous).map(|i| SpaceIdx(i as u16)).collect(),
        stops: None,
        crossings: 0,
        fate,
        slip: None,
        bonus: false,
        slide: 0,
        wall: 0,
    }
}

fn label(d: Option<Decision>) -> Option<String> {
    match d {
        Some(Decision::Take { label, .. }) => Some(label),
        Some(Decision::AskBot) => Some("bot".into()),
        Some(Decision::Stop { label, .. }) => Some(format!("stop {label}")),
        Some(Decision::Ask) => Some("ask".into()),
        None => None,
    }
}

#[test]
fn policies_pick_from_the_engine_options() {
    let out = Fate::Eliminated(Elimination::Overshoot);
    // Farthest first, as the engine lists them.
    let opts = [
        option(9, 0, 0, 0, out),             // A: off the road
        option(8, 0, 2, 0, Fate::Continues), // B: 2 tyre points
        option(7, 0, 0, 1, Fate::Continues), // C: free but a dangerous space
        option(6, 1, 0, 0, Fate::Continues), // D: 1 brake point
        option(5, 0, 0, 0, Fate::Continues), // E: free
        option(4, 0, 1, 0, Fate::SpinOut),   // F: spins
    ];
    let p = |r: &[Rule]| Policy::of(r);
    assert_eq!(label(decide(&p(&[Rule::FarthestFree]), &opts)).as_deref(), Some("E"));
    assert_eq!(label(decide(&p(&[Rule::Farthest]), &opts)).as_deref(), Some("B"), "never drives off the road");
    assert_eq!(label(decide(&p(&[Rule::Safest]), &opts)).as_deref(), Some("E"), "0 points, no test");
    assert_eq!(label(decide(&p(&[Rule::Bot]), &opts)).as_deref(), Some("bot"));
    assert_eq!(label(decide(&p(&[]), &opts)), None, "no policy: the player is asked");
    // PIT: the cheapest option that ends at the box and keeps the car going (19-2-5), else the
    // next rule; without box knowledge it never decides.
    use steward::orders::policy::decide_at;
    let boxes = [true, true, false, true, false, true];
    assert_eq!(label(decide_at(&p(&[Rule::Pit]), &opts, &boxes)).as_deref(), Some("stop D"));
    assert_eq!(label(decide_at(&p(&[Rule::Pit, Rule::Safest]), &opts, &[false; 6])).as_deref(), Some("E"));
    assert_eq!(label(decide(&p(&[Rule::Pit]), &opts)), None);
    let pol = |rules: &[Rule]| Order::Policy(Policy::of(rules));
    assert_eq!(one("POLICY PIT ELSE BOT"), pol(&[Rule::Pit, Rule::Bot]));
    assert_eq!(one("consigne stand sinon sur"), pol(&[Rule::Pit, Rule::Safest]));
    // Nothing free: the next rule decides.
    let costly = [option(8, 0, 2, 0, Fate::Continues), option(7, 1, 0, 0, Fate::Continues)];
    assert_eq!(label(decide(&p(&[Rule::FarthestFree, Rule::Safest]), &costly)).as_deref(), Some("B"));
    assert_eq!(label(decide(&p(&[Rule::FarthestFree]), &costly)), None);
    // Only eliminating options: no rule but BOT decides.
    let doomed = [option(9, 0, 0, 0, out)];
    assert_eq!(label(decide(&p(&[Rule::FarthestFree, Rule::Farthest, Rule::Safest]), &doomed)), None);
    assert_eq!(label(decide(&p(&[Rule::Safest, Rule::Bot]), &doomed)).as_deref(), Some("bot"));
    // Ties in SAFEST go to fewer dangerous spaces, then to the farthest.
    let ties =
        [option(8, 1, 0, 1, Fate::Continues), option(7, 1, 0, 0, Fate::Continues), option(6, 1, 0, 0, Fate::Continues)];
    assert_eq!(label(decide(&p(&[Rule::Safest]), &ties)).as_deref(), Some("B"));
}

#[test]
fn game_ids_are_lower_cased_like_the_store_keeps_them() {
    assert_eq!(one("GAME Monaco-1"), Order::Game("monaco-1".into()));
    assert!(matches!(err("GAME -x"), OrderError::Invalid { what: Arg::GameId, .. }));
}

/// docs/orders.md names every keyword in both languages, and its receipts are the real ones.
#[test]
fn docs_agree_with_the_parser() {
    let doc = std::fs::read_to_string(crate::support::root().join("docs/orders.md")).unwrap();
    for k in Kw::ALL {
        for lang in [Lang::En, Lang::Fr] {
            assert!(doc.contains(&format!("`{}", k.word(lang))), "docs/orders.md lacks {}", k.word(lang));
            let ex = k.example(lang);
            assert!(parse(ex).is_ok() || k == Kw::End, "the example {ex} must parse");
        }
    }
    for (text, lang) in [("GAME monaco-1\nGEAR 9\nCHOOSE B", Lang::En), ("VITESSE 4\nCHOIX", Lang::Fr)] {
        let r = receipt(&parse(text), lang);
        assert!(doc.contains(&format!("```\n{r}```")), "docs/orders.md should show this receipt:\n{r}");
    }
}

#[test]
fn one_game_car_token_and_turn_per_mail() {
    let p = parse("GAME g\nCAR 3\nTOKEN t\nTURN 4\nGEAR 2\nCAR 3");
    assert!(p.is_ok(), "the same value again is harmless");
    let h = p.headers();
    assert_eq!((h.game.as_deref(), h.car, h.token.as_deref(), h.turn), (Some("g"), Some(3), Some("t"), Some(4)));
    let p = parse("CAR 3\nGEAR 2\nVOITURE 5");
    let (line, e) = p.errors().next().unwrap();
    assert_eq!(line.number, 3);
    assert_eq!(*e, OrderError::Conflict { order: Kw::Car, line: 1 });
    assert_eq!(e.to_string(), "CAR is already given on line 1 with another value: keep one CAR line");
    assert!(e.message(Lang::Fr).contains("gardez une seule ligne VOITURE"));
    assert_eq!(parse("GEAR 4").headers(), Default::default());
}

#[test]
fn receipts_never_echo_a_secret() {
    let r = receipt(&parse("GAME g\nTOKEN k7w2-x9qa\nJOIN g PASSWORD letmein PHRASE my words\nGEAR 9"), Lang::En);
    assert!(!r.contains("k7w2") && !r.contains("letmein"), "{r}");
    assert!(r.contains("TOKEN ********") && r.contains("PASSWORD ******** PHRASE my words"), "{r}");
}

#[test]
fn greetings_sign_offs_and_french_typography_do_not_refuse_a_mail() {
    // Issue 13, item 4: each of these mails was refused whole.
    let p = parse("Dear Steward,\n\nGAME gp1\nCAR 1\nTURN 8\nGEAR 4\n\nThanks,\nAnn\n");
    assert!(p.is_ok(), "{:#?}", p.lines);
    assert_eq!(p.orders(), [&Order::Game("gp1".into()), &Order::Car(1), &Order::Turn(8), &Order::Gear(4)]);
    let ignored: Vec<(usize, &str)> = p.ignored.iter().map(|(n, t)| (*n, t.as_str())).collect();
    assert_eq!(ignored, [(1, "Dear Steward,"), (8, "Thanks,"), (9, "Ann")]);
    let p = parse(
        "Bonjour,\nPARTIE : gp1\nVOITURE\u{a0}: 1\nJETON\u{202f}: k7w2\nTOUR : 8.\nVITESSE 4.\nCordialement,\nPierre",
    );
    assert!(p.is_ok(), "{:#?}", p.lines);
    assert_eq!(
        p.orders(),
        [&Order::Game("gp1".into()), &Order::Car(1), &Order::Token("k7w2".into()), &Order::Turn(8), &Order::Gear(4)]
    );
    let p = parse("Game: gp1.\nTurn: 8.\nGAME:gp1\nCHOOSE B!\nCheers\nLane");
    assert!(p.is_ok(), "{:#?}", p.lines);
    assert_eq!(p.orders().len(), 4);
    // A line that looks like a misspelt keyword still refuses the mail.
    for text in
        ["Dear 4\nGEAR 4", "GEAR 4\nGEER 4", "GAME gp1\nGEAR 4\nGEER", "Geer 4\nGEAR 4", "GEAR 4\nThanks\nCHOOSE B"]
    {
        assert!(!parse(text).is_ok(), "{text:?} is accepted");
    }
    // The receipt lists the lines it ignored.
    let r = receipt(&parse("Dear Steward,\nGEAR 4\nThanks,"), Lang::En);
    assert!(r.contains("1 \"Dear Steward,\"") && r.contains("3 \"Thanks,\""), "{r}");
}

/// A PHRASE typed on the line under the JOIN (as an iPhone mail wraps it) is that JOIN's phrase,
/// not prose skipped unseen (it was); a PHRASE line anywhere else is refused with the JOIN example.
#[test]
fn a_phrase_on_the_line_under_a_join_is_its_phrase_and_elsewhere_an_error() {
    let p = parse("Bonjour,\n\nREJOINDRE gp1\nPHRASE ma phrase à moi.\n\nMerci !\nAmélie\n\nEnvoyé de mon iPhone");
    assert_eq!(p.errors().count(), 0);
    let joins: Vec<_> = p.lines.iter().filter_map(|l| l.result.as_ref().ok()).collect();
    assert!(matches!(joins[..], [Order::Join { phrase: Some(ph), .. }] if ph == "ma phrase à moi."), "{joins:?}");
    assert!(!p.ignored.iter().any(|(n, _)| *n == 4), "not listed as skipped prose");

    let p = parse("GAME gp1\nCAR 1\nPHRASE lost words");
    let errors: Vec<_> = p.errors().map(|(l, e)| (l.number, e.message(Lang::En))).collect();
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].0, 3);
    assert!(errors[0].1.contains("JOIN") && errors[0].1.contains("PHRASE"), "{}", errors[0].1);
}
