//! The test vectors of docs/dice.md: computed here from `steward::dice`, compared with the
//! ```vectors block of the document (`STEWARD_BLESS=1` rewrites it), and checked by the
//! independent Python verifier.

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use steward::dice::{LINE_START, commitment, commitment_v2, dice_key, dice_key_v2, face_index, line_step, roll_seed};
use steward::engine::Die;

use super::python;
use crate::support::root;

fn seq_seed() -> [u8; 32] {
    std::array::from_fn(|i| i as u8)
}

fn words(seed: [u8; 32], n: usize) -> Vec<u32> {
    let mut rng = ChaCha20Rng::from_seed(seed);
    (0..n).map(|_| rng.next_u32()).collect()
}

fn hexw(w: &[u32]) -> String {
    w.iter().map(|w| format!("{w:08x}")).collect::<Vec<_>>().join(" ")
}

/// The words a roll draws until one is accepted.
fn drawn(key: &[u8; 32], label: &str, faces: u64) -> Vec<u32> {
    let mut rng = ChaCha20Rng::from_seed(roll_seed(key, label));
    let zone = (1u64 << 32) - ((1u64 << 32) % faces);
    let mut v = Vec::new();
    loop {
        let w = rng.next_u32();
        v.push(w);
        if (w as u64) < zone {
            return v;
        }
    }
}

/// Contributions: car number and phrase.
type Phrases<'a> = &'a [(u8, &'a str)];

/// Every vector line, computed.
pub fn vectors() -> String {
    let mut out = String::new();
    out.push_str("# stream | ChaCha20 seed | first words of the stream\n");
    for seed in [[0u8; 32], seq_seed()] {
        out.push_str(&format!("stream | {} | {}\n", hex::encode(seed), hexw(&words(seed, 4))));
    }
    out.push_str("# commit | seed | SHA-256(seed)\n");
    for seed in [seq_seed(), [0xff; 32]] {
        out.push_str(&format!("commit | {} | {}\n", hex::encode(seed), hex::encode(commitment(&seed))));
    }
    out.push_str("# key | seed | contributions [car, phrase] in grid order | key\n");
    let seed = seq_seed();
    let sets: [&[(u8, &str)]; 4] =
        [&[], &[(1, "")], &[(1, "hello world"), (7, "")], &[(3, "élan ✓"), (12, "Ayrton"), (5, "")]];
    for c in sets {
        let json: Vec<serde_json::Value> = c.iter().map(|(n, p)| serde_json::json!([n, p])).collect();
        out.push_str(&format!(
            "key | {} | {} | {}\n",
            hex::encode(seed),
            serde_json::to_string(&json).unwrap(),
            hex::encode(dice_key(&seed, c))
        ));
    }
    out.push_str("# commit2 | game id | seed | steward-dice-v2 commitment\n");
    for (game, seed) in [("cup", seq_seed()), ("cup-2", seq_seed()), ("cup", [0xff; 32])] {
        out.push_str(&format!(
            "commit2 | {game} | {} | {}\n",
            hex::encode(seed),
            hex::encode(commitment_v2(game, &seed))
        ));
    }
    out.push_str("# key2 | game id | seed | beacon | contributions [car, phrase] in any order | steward-dice-v2 key\n");
    let sets2: [(&str, &str, Phrases); 4] = [
        ("cup", "", &[]),
        ("cup", "", &[(3, "élan ✓"), (12, "Ayrton"), (5, "")]),
        ("cup", "", &[(12, "Ayrton"), (5, ""), (3, "élan ✓")]),
        ("cup", "NIST beacon 2026-12-01T12:00Z 9f86d081", &[(1, "hello world"), (7, "")]),
    ];
    for (game, beacon, c) in sets2 {
        let json: Vec<serde_json::Value> = c.iter().map(|(n, p)| serde_json::json!([n, p])).collect();
        out.push_str(&format!(
            "key2 | {game} | {} | {beacon} | {} | {}\n",
            hex::encode(seed),
            serde_json::to_string(&json).unwrap(),
            hex::encode(dice_key_v2(game, &seed, beacon, c))
        ));
    }
    out.push_str("# line | line | decision | the line after it (steward-dice-v3, section 3a)\n");
    let mut line = LINE_START;
    for d in [
        "1 gear 1",
        "1 choose A",
        "2 gear 2",
        "2 reroll",
        "2 choose B pit long soft body=1 brakes=2",
        "3 retire",
        "4 join",
    ] {
        let next = line_step(&line, d);
        out.push_str(&format!("line | {} | {d} | {}\n", hex::encode(line), hex::encode(next)));
        line = next;
    }
    out.push_str("# roll | key | label | die | roll seed | face index | value\n");
    let key = dice_key(&seed, &[(1, "hello world"), (7, "")]);
    let rolls = [
        ("1/0/move/0", Die::Gear(1)),
        ("2/1/move/0", Die::Gear(2)),
        ("17/1/move/0", Die::Gear(3)),
        ("40/0/move/0", Die::Gear(4)),
        ("41/1/move/0", Die::Gear(5)),
        ("42/0/move/0", Die::Gear(6)),
        ("42/0/handling/1", Die::Black),
        ("0/-/weather/0", Die::Black),
    ];
    for (label, die) in rolls {
        let f = face_index(&key, label, die.faces().len());
        out.push_str(&format!(
            "roll | {} | {label} | {} | {} | {f} | {}\n",
            hex::encode(key),
            die.name(),
            hex::encode(roll_seed(&key, label)),
            die.faces()[f]
        ));
    }
    out.push_str("# index | key | label | faces | every word drawn | face index (rejection sampling)\n");
    for faces in [30u64, 3 << 30, (1 << 31) + 1] {
        // The first label whose roll rejects at least one word when rejection is likely.
        let label =
            (0..).map(|i| format!("rejection/{i}")).find(|l| faces == 30 || drawn(&key, l, faces).len() >= 2).unwrap();
        let w = drawn(&key, &label, faces);
        let f = face_index(&key, &label, faces as usize);
        out.push_str(&format!("index | {} | {label} | {faces} | {} | {f}\n", hex::encode(key), hexw(&w)));
    }
    out
}

fn doc_block(doc: &str) -> Option<(usize, usize)> {
    let start = doc.find("```vectors\n")? + "```vectors\n".len();
    let end = start + doc[start..].find("```")?;
    Some((start, end))
}

#[test]
fn the_vectors_of_docs_dice_md_hold_in_rust() {
    let path = root().join("docs/dice.md");
    let doc = std::fs::read_to_string(&path).expect("docs/dice.md exists");
    let (start, end) = doc_block(&doc).expect("docs/dice.md has a ```vectors block");
    let want = vectors();
    if std::env::var_os("STEWARD_BLESS").is_some_and(|v| v == "1") {
        let new = format!("{}{want}{}", &doc[..start], &doc[end..]);
        std::fs::write(&path, new).unwrap();
        return;
    }
    assert_eq!(&doc[start..end], want, "docs/dice.md vectors are stale: STEWARD_BLESS=1 cargo test rewrites them");
    // The zero-key ChaCha20 keystream of RFC 8439 (A.1, test vector 1) starts 76 b8 e0 ad ...
    assert!(
        want.contains("stream | 0000000000000000000000000000000000000000000000000000000000000000 | ade0b876 903df1a0")
    );
    // At least one vector rejects a word.
    assert!(want.lines().any(|l| l.starts_with("index") && l.split(" | ").nth(4).unwrap().contains(' ')));
}

#[test]
fn the_vectors_of_docs_dice_md_hold_in_the_independent_verifier() {
    let out = python(&["tools/verify_game.py", "--vectors", "docs/dice.md"]);
    assert!(out.status.success(), "{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("test vectors of docs/dice.md pass"));
}
