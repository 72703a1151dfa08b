//! Committed-seed dice: every roll derived independently from a secret key and a published label.
//!
//! `seed = SHA-256("steward-dice-v1" || 0x00 || key || label)`, then a ChaCha20 stream seeded
//! with it yields 32-bit words; the first word below the largest multiple of the die's face
//! count (rejection sampling, no modulo bias) picks the face index. The label names the roll
//! (`<turn>/<car>/<purpose>/<index>`), so a replay derives the same dice and no roll can be
//! re-drawn. `docs/dice.md` specifies this with test vectors.
//!
//! A game's key is itself derived: `key = SHA-256("steward-key-v1" || 0x00 || seed ||
//! u32be(n) || for each car: u8 number || u32be(len) || phrase)`, from the secret seed the game
//! committed to (`commitment = SHA-256(seed)`) and every player's entropy phrase, so neither the
//! operator (who committed before the phrases arrived) nor any player chooses the dice.

use rand_chacha::ChaCha20Rng;
use rand_core::{Rng, SeedableRng};
use sha2::{Digest, Sha256};

use crate::engine::{CarId, Dice, Die, Purpose};

/// Domain separation prefix of the derivation (bump it to change the scheme).
pub const DOMAIN: &[u8] = b"steward-dice-v1";

/// The scheme's name, as game files record it.
pub const SCHEME: &str = "steward-dice-v1";

/// Domain separation prefix of the key derivation.
pub const KEY_DOMAIN: &[u8] = b"steward-key-v1";

/// The name of the v2 scheme, as game files record it.
pub const SCHEME_V2: &str = "steward-dice-v2";

/// Domain separation prefix of the v2 commitment.
pub const COMMIT_DOMAIN_V2: &[u8] = b"steward-commit-v2";

/// Domain separation prefix of the v2 key derivation.
pub const KEY_DOMAIN_V2: &[u8] = b"steward-key-v2";

/// The name of the v3 scheme, as game files record it: v2's commitment and key, and roll labels
/// that carry the line of decisions they follow, so that a rollback never re-rolls.
pub const SCHEME_V3: &str = "steward-dice-v3";

/// Domain separation prefix of the v3 line of decisions.
pub const LINE_DOMAIN_V3: &[u8] = b"steward-line-v3";

/// A game's dice scheme: how its commitment and its key are made (rolls are derived from the key
/// the same way in both).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Default)]
pub enum Scheme {
    /// `steward-dice-v1`: `SHA-256(seed)`; the phrases in grid order.
    V1,
    /// `steward-dice-v2`: the game id bound into the commitment; the phrases in car-number order;
    /// an optional beacon.
    V2,
    /// `steward-dice-v3`: v2's commitment and key; every roll label ends with `@` and the line
    /// of decisions made since the start, so that the same decisions give the same dice
    /// whatever was rolled back, and a changed decision gives rolls nobody has seen.
    #[default]
    V3,
}

impl Scheme {
    /// The scheme a game file names.
    pub fn parse(name: &str) -> Option<Scheme> {
        match name {
            SCHEME => Some(Scheme::V1),
            SCHEME_V2 => Some(Scheme::V2),
            SCHEME_V3 => Some(Scheme::V3),
            _ => None,
        }
    }

    /// Its name in game files and mails.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::V1 => SCHEME,
            Scheme::V2 => SCHEME_V2,
            Scheme::V3 => SCHEME_V3,
        }
    }

    /// Every scheme's name, oldest first (for messages).
    pub fn names() -> String {
        [SCHEME, SCHEME_V2, SCHEME_V3].join(", ")
    }

    /// True when the contributions are taken in car-number order (v2 and v3), not grid order.
    pub fn by_car_number(self) -> bool {
        self != Scheme::V1
    }

    /// True when roll labels carry the line of decisions (v3).
    pub fn has_line(self) -> bool {
        self == Scheme::V3
    }

    /// The commitment of game `game` to `seed`.
    pub fn commit(self, game: &str, seed: &[u8; 32]) -> [u8; 32] {
        match self {
            Scheme::V1 => commitment(seed),
            Scheme::V2 | Scheme::V3 => commitment_v2(game, seed),
        }
    }

    /// The dice key of game `game`: v1 takes `contributions` as given (grid order) and ignores
    /// the game id and the beacon; v2 sorts them by car number.
    pub fn key(self, game: &str, seed: &[u8; 32], beacon: &str, contributions: &[(u8, &str)]) -> [u8; 32] {
        match self {
            Scheme::V1 => dice_key(seed, contributions),
            Scheme::V2 | Scheme::V3 => dice_key_v2(game, seed, beacon, contributions),
        }
    }
}

/// The line of decisions before the first decision of a v3 race: 32 zero bytes.
pub const LINE_START: [u8; 32] = [0u8; 32];

/// The line after one more decision: `SHA-256("steward-line-v3" || 0x00 || line ||
/// lp(decision))`, the decision written as the store's
/// `decision_text` gives it (docs/dice.md, section 3a).
pub fn line_step(line: &[u8; 32], decision: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(LINE_DOMAIN_V3);
    h.update([0u8]);
    h.update(line);
    update_len_prefixed(&mut h, decision.as_bytes());
    h.finalize().into()
}

/// The suffix a v3 label carries: `@` and the first 8 bytes of the line, in hex.
pub fn line_suffix(line: &[u8; 32]) -> String {
    let mut s = String::with_capacity(17);
    s.push('@');
    for b in &line[..8] {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

fn update_len_prefixed(h: &mut Sha256, bytes: &[u8]) {
    h.update((bytes.len() as u32).to_be_bytes());
    h.update(bytes);
}

/// The v2 commitment: `SHA-256("steward-commit-v2" || 0x00 || u32be(len id) || id || seed)`.
pub fn commitment_v2(game: &str, seed: &[u8; 32]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(COMMIT_DOMAIN_V2);
    h.update([0u8]);
    update_len_prefixed(&mut h, game.as_bytes());
    h.update(seed);
    h.finalize().into()
}

/// The v2 key: `SHA-256("steward-key-v2" || 0x00 || seed || u32be(len id) || id ||
/// u32be(len beacon) || beacon || u32be(n) || for each car by number: u8 number || u32be(len) ||
/// phrase)`. The order the contributions come in does not matter.
pub fn dice_key_v2(game: &str, seed: &[u8; 32], beacon: &str, contributions: &[(u8, &str)]) -> [u8; 32] {
    let mut sorted = contributions.to_vec();
    sorted.sort_by_key(|(car, _)| *car);
    let mut h = Sha256::new();
    h.update(KEY_DOMAIN_V2);
    h.update([0u8]);
    h.update(seed);
    update_len_prefixed(&mut h, game.as_bytes());
    update_len_prefixed(&mut h, beacon.as_bytes());
    h.update((sorted.len() as u32).to_be_bytes());
    for (car, phrase) in sorted {
        h.update([car]);
        update_len_prefixed(&mut h, phrase.as_bytes());
    }
    h.finalize().into()
}

/// The public commitment to a secret seed: `SHA-256(seed)`.
pub fn commitment(seed: &[u8; 32]) -> [u8; 32] {
    Sha256::digest(seed).into()
}

/// The dice key of a game: its committed `seed` and every car's entropy phrase (car number,
/// phrase; an empty phrase when the player gave none), in grid order.
pub fn dice_key(seed: &[u8; 32], contributions: &[(u8, &str)]) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(KEY_DOMAIN);
    h.update([0u8]);
    h.update(seed);
    h.update((contributions.len() as u32).to_be_bytes());
    for (car, phrase) in contributions {
        h.update([*car]);
        h.update((phrase.len() as u32).to_be_bytes());
        h.update(phrase.as_bytes());
    }
    h.finalize().into()
}

/// The ChaCha20 seed of one roll: `SHA-256(DOMAIN || 0x00 || key || label)`.
pub fn roll_seed(key: &[u8; 32], label: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(DOMAIN);
    h.update([0u8]);
    h.update(key);
    h.update(label.as_bytes());
    h.finalize().into()
}

/// The published label of a roll: `<turn>/<car>/<purpose>/<index>`, the car being its index in
/// the grid order (0-based) or `-`.
pub fn roll_label(turn: &str, car: Option<CarId>, purpose: Purpose, index: u32) -> String {
    let car = car.map_or_else(|| "-".to_string(), |c| c.0.to_string());
    format!("{turn}/{car}/{}/{index}", purpose.name())
}

/// Derives the face index (0-based) of a roll of a die with `faces` faces under `key` and `label`.
pub fn face_index(key: &[u8; 32], label: &str, faces: usize) -> usize {
    let mut rng = ChaCha20Rng::from_seed(roll_seed(key, label));
    let n = faces as u64;
    let zone = (1u64 << 32) - ((1u64 << 32) % n);
    loop {
        let x = rng.next_u32() as u64;
        if x < zone {
            return (x % n) as usize;
        }
    }
}

/// The value of a roll of `die` under `key` and `label`.
pub fn derive(key: &[u8; 32], label: &str, die: Die) -> u8 {
    let faces = die.faces();
    faces[face_index(key, label, faces.len())]
}

/// One logged roll.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoggedRoll {
    /// The published label.
    pub label: String,
    /// The die.
    pub die: Die,
    /// The result.
    pub value: u8,
}

/// Dice derived from a key; the caller names the turn, each roll gets the next index.
#[derive(Clone, Debug)]
pub struct LabelledDice {
    key: [u8; 32],
    turn: String,
    suffix: String,
    index: u32,
    /// Rolls made so far.
    pub log: Vec<LoggedRoll>,
}

impl LabelledDice {
    /// Dice for `key`, starting at turn `turn`.
    pub fn new(key: [u8; 32], turn: &str) -> Self {
        LabelledDice { key, turn: turn.into(), suffix: String::new(), index: 0, log: Vec::new() }
    }

    /// Dice whose labels end with `suffix` (a v3 line, [`line_suffix`]), from roll index `index`.
    pub fn with_suffix(key: [u8; 32], turn: &str, suffix: String, index: u32) -> Self {
        LabelledDice { key, turn: turn.into(), suffix, index, log: Vec::new() }
    }

    /// Starts a new turn: labels now read `<turn>/...`, indices restart at 0.
    pub fn set_turn(&mut self, turn: &str) {
        self.turn = turn.into();
        self.index = 0;
    }

    /// The label the next roll for `car` and `purpose` will carry.
    pub fn label(&self, car: Option<CarId>, purpose: Purpose) -> String {
        let mut l = roll_label(&self.turn, car, purpose, self.index);
        l.push_str(&self.suffix);
        l
    }
}

impl Dice for LabelledDice {
    fn roll(&mut self, die: Die, car: Option<CarId>, purpose: Purpose) -> u8 {
        let label = self.label(car, purpose);
        let value = derive(&self.key, &label, die);
        self.index += 1;
        self.log.push(LoggedRoll { label, die, value });
        value
    }
}

/// A key derived from a plain seed and a name, for simulations (not for real games, whose key
/// comes from the operating system's RNG and the players' entropy).
pub fn sim_key(seed: u64, name: &str) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"steward-sim-key");
    h.update(seed.to_be_bytes());
    h.update(name.as_bytes());
    h.finalize().into()
}

/// The dice key of simulated race `race` on `track` with `cars` cars: the key of the game whose
/// committed seed is `sim_key(seed, "<track>/<race>")` and whose cars, numbered 1 to `cars`,
/// gave no phrase. `steward sim --keep` writes exactly that game.
pub fn sim_race_key(seed: u64, track: &str, race: u32, cars: usize) -> [u8; 32] {
    let contributions: Vec<(u8, &str)> = (1..=cars).map(|n| (n as u8, "")).collect();
    dice_key(&sim_key(seed, &format!("{track}/{race}")), &contributions)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolls_are_faces_and_depend_only_on_key_and_label() {
        let key = sim_key(7, "t");
        for g in 1..=6 {
            let v = derive(&key, "1/0/move/0", Die::Gear(g));
            assert!(Die::Gear(g).faces().contains(&v));
            assert_eq!(v, derive(&key, "1/0/move/0", Die::Gear(g)));
        }
        let a: Vec<u8> = (0..50).map(|i| derive(&key, &format!("x/{i}"), Die::Black)).collect();
        let b: Vec<u8> = (0..50).map(|i| derive(&sim_key(8, "t"), &format!("x/{i}"), Die::Black)).collect();
        assert_ne!(a, b, "another key gives other dice");
    }

    #[test]
    fn faces_are_roughly_uniform() {
        let key = sim_key(1, "uniform");
        let mut counts = [0u32; 30];
        for i in 0..30_000 {
            counts[face_index(&key, &i.to_string(), 30)] += 1;
        }
        // Each face expects 1000; 6 standard deviations is about 190.
        assert!(counts.iter().all(|&c| (810..=1190).contains(&c)), "{counts:?}");
    }
}
