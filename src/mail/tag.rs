//! Signed reply addresses (docs/daemon.md, "Reply addresses"): every prompt (a report that asks
//! a car for its gear or its choice, a reminder) is sent with `Reply-To: steward+<tag>@domain`,
//! where the tag names the game, the car and the turn asked and carries a MAC over them with the
//! daemon's reply key. A mail sent to that address is that car's answer to that turn: hitting
//! Reply and writing `B` or `GEAR 4` is enough, with no GAME, CAR, TOKEN or TURN line.
//!
//! The tag is `<game>.<car>.<turn>.<mac>`: the game id as it is when the whole local part fits in
//! the 64 characters RFC 5321 allows (and the id neither has `..` nor ends with a dot), else `_` and 10 base32 letters of
//! the id's SHA-256 (looked up among the games of the store: ids start with a letter or digit,
//! so `_` cannot be an id's first character); the car and the turn in decimal; the MAC the first
//! 80 bits of HMAC-SHA256 over a canonical encoding of (game, car, turn), in 16 lower-case base32
//! letters. Only lower-case letters, digits, `-`, `_` and `.` are used, and the tag is read case
//! blind (some servers fold local parts to lower case). Pure but for [`TagKey::load`].

use std::fmt;
use std::path::Path;

use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};

use crate::orders::{self, Line, Order, Parsed};
use crate::store::fsio::Durability;

/// Bytes of the MAC kept in a tag (80 bits: 16 base32 letters).
const MAC_BYTES: usize = 10;
/// Letters of the game's hash when the id itself does not fit.
const HASH_LETTERS: usize = 10;
/// The most characters of an address's local part (RFC 5321, 4.5.3.1.1).
const MAX_LOCAL: usize = 64;
/// The file of the generated key under the daemon's state directory.
pub const KEY_FILE: &str = "reply-key";

/// The key reply tags are signed with. Its `Debug` never prints it.
#[derive(Clone)]
pub struct TagKey([u8; 32]);

impl fmt::Debug for TagKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("TagKey(***)")
    }
}

/// Who and what a verified tag answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReplyTag {
    /// The game.
    pub game: String,
    /// The car.
    pub car: u8,
    /// The turn the prompt was sent at.
    pub turn: u32,
}

/// Why a tagged address is refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TagError {
    /// Not of the tag's shape.
    #[error("the reply address `{0}` is not one steward made (it is not of the form game.car.turn.code)")]
    Malformed(String),
    /// The MAC does not match (altered, forged, or made with another key).
    #[error("the reply address `{0}` does not carry a valid code: it was altered or is not from this steward")]
    BadMac(String),
}

/// The parts of a tag as written, not verified (what a player's program may read).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagParts {
    /// The game id, or `_` and its hash's letters.
    pub game_ref: String,
    /// The car.
    pub car: u8,
    /// The turn.
    pub turn: u32,
    /// The MAC's letters.
    pub mac: String,
}

const BASE32: &[u8; 32] = b"abcdefghijklmnopqrstuvwxyz234567";

fn base32(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len() * 8 / 5 + 1);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &b in bytes {
        acc = (acc << 8) | u32::from(b);
        bits += 8;
        while bits >= 5 {
            bits -= 5;
            out.push(BASE32[((acc >> bits) & 31) as usize] as char);
        }
    }
    if bits > 0 {
        out.push(BASE32[((acc << (5 - bits)) & 31) as usize] as char);
    }
    out
}

fn unbase32(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::with_capacity(text.len() * 5 / 8);
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes() {
        let v = BASE32.iter().position(|&x| x == c.to_ascii_lowercase())? as u32;
        acc = (acc << 5) | v;
        bits += 5;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// `_` and the first letters of the base32 SHA-256 of `game`: the tag's name of a game whose id
/// does not fit.
pub fn game_hash_ref(game: &str) -> String {
    let h = Sha256::digest(game.as_bytes());
    let mut s = base32(&h);
    s.truncate(HASH_LETTERS);
    format!("_{s}")
}

/// The tag inside `address` if it is `base`'s local part, `+`, a tag, at `base`'s domain
/// (case blind); lower case.
pub fn tag_in(base: &str, address: &str) -> Option<String> {
    let (base_local, base_domain) = base.rsplit_once('@')?;
    let (local, domain) = address.trim().trim_matches(['<', '>']).rsplit_once('@')?;
    if !domain.eq_ignore_ascii_case(base_domain) {
        return None;
    }
    let (who, tag) = local.split_once('+')?;
    (who.eq_ignore_ascii_case(base_local) && !tag.is_empty()).then(|| tag.to_ascii_lowercase())
}

/// Reads a tag's parts without checking its MAC.
pub fn parse(tag: &str) -> Option<TagParts> {
    let tag = tag.to_ascii_lowercase();
    let mut it = tag.rsplitn(4, '.');
    let mac = it.next()?.to_string();
    let turn = it.next()?.parse().ok()?;
    let car = it.next()?.parse().ok()?;
    let game_ref = it.next()?.to_string();
    if game_ref.is_empty() || mac.len() != MAC_BYTES * 8 / 5 {
        return None;
    }
    Some(TagParts { game_ref, car, turn, mac })
}

impl TagKey {
    /// A key of these bytes.
    pub fn new(bytes: [u8; 32]) -> TagKey {
        TagKey(bytes)
    }

    /// The key from a configured secret text (`reply_key = "env:..."` or `"file:..."`): its
    /// SHA-256 with the tag's domain.
    pub fn from_text(text: &str) -> TagKey {
        let mut h = Sha256::new();
        h.update(b"steward-reply-key-v1\0");
        h.update(text.trim().as_bytes());
        TagKey(h.finalize().into())
    }

    /// The key of `<state>/reply-key` (64 hex digits), made from the system's randomness and
    /// written with mode 0600 the first time. Deleting the file changes the key: every tag sent
    /// before is refused from then on.
    pub fn load(state: &Path, durability: Durability) -> std::io::Result<TagKey> {
        let path = state.join(KEY_FILE);
        match std::fs::read_to_string(&path) {
            Ok(text) => {
                let v = hex::decode(text.trim())
                    .ok()
                    .and_then(|v| <[u8; 32]>::try_from(v).ok())
                    .ok_or_else(|| std::io::Error::other(format!("{}: not 64 hex digits", path.display())))?;
                Ok(TagKey(v))
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let k = crate::store::driver::os_random().map_err(std::io::Error::other)?;
                std::fs::create_dir_all(state)?;
                crate::store::fsio::write_atomic(&path, format!("{}\n", hex::encode(k)).as_bytes(), durability, true)?;
                Ok(TagKey(k))
            }
            Err(e) => Err(e),
        }
    }

    fn mac(&self, game: &str, car: u8, turn: u32) -> Hmac<Sha256> {
        let mut m = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.0).expect("HMAC takes any key length");
        m.update(b"steward-reply-tag-v1\0");
        m.update(&(game.len() as u32).to_be_bytes());
        m.update(game.as_bytes());
        m.update(&[car]);
        m.update(&turn.to_be_bytes());
        m
    }

    /// The tag of (game, car, turn) for an address whose local part is `base_local` characters
    /// long, or `None` when even the hashed form would pass 64 characters.
    pub fn tag(&self, base_local: usize, game: &str, car: u8, turn: u32) -> Option<String> {
        let code = base32(&self.mac(game, car, turn).finalize().into_bytes()[..MAC_BYTES]);
        let rest = format!(".{car}.{turn}.{code}");
        let fits = |g: &str| base_local + 1 + g.len() + rest.len() <= MAX_LOCAL;
        // A dot-atom: no `..`, and the id's last character is followed by a dot.
        let literal = game.to_ascii_lowercase() == game
            && !game.contains("..")
            && !game.ends_with('.')
            && !game.starts_with('_')
            && game.bytes().all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c));
        let game_ref = if literal && fits(game) { game.to_string() } else { game_hash_ref(game) };
        fits(&game_ref).then(|| format!("{game_ref}{rest}"))
    }

    /// The signed reply address of (game, car, turn) for the daemon's address `base`
    /// (`steward@x` gives `steward+<tag>@x`), if it fits.
    pub fn address(&self, base: &str, game: &str, car: u8, turn: u32) -> Option<String> {
        let (local, domain) = base.rsplit_once('@')?;
        let tag = self.tag(local.len(), game, car, turn)?;
        Some(format!("{local}+{tag}@{domain}"))
    }

    /// Checks `tag` (case blind, the MAC in constant time). A hashed game reference is looked
    /// up among `games` (the store's ids).
    pub fn verify(&self, tag: &str, games: &[String]) -> Result<ReplyTag, TagError> {
        let p = parse(tag).ok_or_else(|| TagError::Malformed(tag.to_string()))?;
        let code = unbase32(&p.mac).filter(|c| c.len() == MAC_BYTES).ok_or_else(|| TagError::Malformed(tag.into()))?;
        let candidates: Vec<&str> = if p.game_ref.starts_with('_') {
            games.iter().map(String::as_str).filter(|g| game_hash_ref(g) == p.game_ref).collect()
        } else {
            vec![p.game_ref.as_str()]
        };
        for game in candidates {
            if self.mac(game, p.car, p.turn).verify_truncated_left(&code).is_ok() {
                return Ok(ReplyTag { game: game.to_string(), car: p.car, turn: p.turn });
            }
        }
        Err(TagError::BadMac(tag.to_string()))
    }
}

/// The order a bare answer stands for: a line that is only an option's letters (`B`, `b`,
/// `B.`, `AB`) is `CHOOSE`, a line that is only a gear (`4`) is `GEAR`. Trailing `.`, `!` and
/// spaces are dropped.
pub fn bare_order(line: &str) -> Option<String> {
    let t = line.trim().trim_end_matches(['.', '!', ' ']).trim();
    if !t.is_empty() && t.len() <= 2 && t.bytes().all(|c| c.is_ascii_alphabetic()) {
        return Some(format!("CHOOSE {}", t.to_ascii_uppercase()));
    }
    if t.len() == 1 && t.bytes().all(|c| (b'1'..=b'6').contains(&c)) {
        return Some(format!("GEAR {t}"));
    }
    None
}

/// For a mail sent to a valid reply address: when exactly one line of its prose (the lines
/// the order reader skipped) is a bare answer ([`bare_order`]) and no order of the mail answers
/// the same way (`CHOOSE`, `PIT` or `REROLL` for a letter, `GEAR` for a gear), that line becomes
/// the order it stands for, in its place (its receipt echoes it as written).
pub fn read_bare(parsed: &mut Parsed) {
    let mut bare = parsed.ignored.iter().enumerate().filter_map(|(i, (_, l))| bare_order(l).map(|o| (i, o)));
    let (Some((i, order)), None) = (bare.next(), bare.next()) else { return };
    let choice = order.starts_with("CHOOSE");
    let answered = parsed.lines.iter().any(|l| match &l.result {
        Ok(Order::Choose(_) | Order::Pit { .. } | Order::Reroll) => choice,
        Ok(Order::Gear(_)) => !choice,
        _ => false,
    });
    if answered {
        return;
    }
    let Some(result) = orders::parse(&order).lines.into_iter().next().map(|l| l.result) else { return };
    let (number, text) = parsed.ignored.remove(i);
    parsed.skipped = parsed.skipped.saturating_sub(1);
    let at = parsed.lines.iter().position(|l| l.number > number).unwrap_or(parsed.lines.len());
    parsed.lines.insert(at, Line { number, text, result });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(b: u8) -> TagKey {
        TagKey::new([b; 32])
    }

    #[test]
    fn bare_answers_are_read_only_alone() {
        let read = |body: &str| {
            let mut p = orders::parse(body);
            read_bare(&mut p);
            p.orders().into_iter().cloned().collect::<Vec<_>>()
        };
        assert_eq!(read("B\n"), vec![Order::Choose("B".into())]);
        assert_eq!(read("b.\n"), vec![Order::Choose("B".into())]);
        assert_eq!(read("Hi,\n\nc\n\nSent from my iPhone\n"), vec![Order::Choose("C".into())]);
        assert_eq!(read("4\n"), vec![Order::Gear(4)]);
        assert_eq!(read("GEAR 4\n"), vec![Order::Gear(4)]);
        assert_eq!(read("VITESSE 3\n"), vec![Order::Gear(3)]);
        // Two bare lines, a 7th gear, prose: nothing read.
        assert!(read("B\nC\n").is_empty());
        assert!(read("7\n").is_empty());
        assert!(read("I will take the inside line\n").is_empty());
        // With other orders: read in its place, unless the mail answers the same way.
        assert_eq!(read("B\nGEAR 4\n"), vec![Order::Choose("B".into()), Order::Gear(4)]);
        assert_eq!(read("B\nCHOOSE C\n"), vec![Order::Choose("C".into())]);
        assert_eq!(read("GEAR 3\n\n4\n"), vec![Order::Gear(3)]);
    }

    #[test]
    fn base32_round_trips() {
        for n in 0..24u8 {
            let bytes: Vec<u8> = (0..n).map(|i| i.wrapping_mul(37).wrapping_add(n)).collect();
            let s = base32(&bytes);
            assert_eq!(unbase32(&s).unwrap()[..bytes.len()], bytes[..]);
        }
        assert_eq!(base32(b"foobar"), "mzxw6ytboi");
    }

    #[test]
    fn a_tag_round_trips_and_fits() {
        let k = key(7);
        let a = k.address("steward@example.org", "monza-2026", 3, 12).unwrap();
        assert!(a.starts_with("steward+monza-2026.3.12."), "{a}");
        let local = a.split('@').next().unwrap();
        assert!(local.len() <= 64);
        assert!(local.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "+-._".contains(c)), "{a}");
        let tag = tag_in("steward@example.org", &a).unwrap();
        assert_eq!(k.verify(&tag, &[]).unwrap(), ReplyTag { game: "monza-2026".into(), car: 3, turn: 12 });
    }

    #[test]
    fn a_case_folded_tag_still_verifies() {
        let k = key(7);
        let a = k.address("Steward@Example.org", "g.1", 10, 400).unwrap();
        let upper = a.to_uppercase();
        let tag = tag_in("steward@example.org", &upper).unwrap();
        assert_eq!(k.verify(&tag, &[]).unwrap(), ReplyTag { game: "g.1".into(), car: 10, turn: 400 });
    }

    #[test]
    fn another_key_or_a_tampered_tag_is_refused() {
        let k = key(7);
        let tag = k.tag(7, "monza", 3, 12).unwrap();
        assert!(matches!(key(8).verify(&tag, &[]), Err(TagError::BadMac(_))));
        // Another turn, car or game with the same code.
        for t in [tag.replace(".3.12.", ".3.13."), tag.replace(".3.12.", ".4.12."), tag.replace("monza.", "imola.")] {
            assert!(matches!(k.verify(&t, &[]), Err(TagError::BadMac(_))), "{t}");
        }
        // One letter of the code changed.
        let mut bytes = tag.clone().into_bytes();
        let last = bytes.len() - 1;
        bytes[last] = if bytes[last] == b'a' { b'b' } else { b'a' };
        let t = String::from_utf8(bytes).unwrap();
        assert!(matches!(k.verify(&t, &[]), Err(TagError::BadMac(_))));
        for bad in [
            "",
            "monza",
            "monza.3.12",
            "monza.x.12.aaaaaaaaaaaaaaaa",
            "monza.3.12.short",
            "monza.3.12.!!!!!!!!!!!!!!!!",
        ] {
            assert!(matches!(k.verify(bad, &[]), Err(TagError::Malformed(_))), "{bad}");
        }
    }

    #[test]
    fn a_long_game_id_is_named_by_its_hash() {
        let k = key(1);
        let game = "the-very-long-name-of-a-league-race-that-does-not-fit";
        let a = k.address("steward@example.org", game, 12, 3456).unwrap();
        let local = a.split('@').next().unwrap();
        assert!(local.len() <= 64, "{a}");
        assert!(local.starts_with("steward+_"), "{a}");
        let tag = tag_in("steward@example.org", &a).unwrap();
        let games = vec!["other".to_string(), game.to_string()];
        assert_eq!(k.verify(&tag, &games).unwrap().game, game);
        // Unknown among the store's games: refused.
        assert!(k.verify(&tag, &games[..1]).is_err());
        // A base address too long for any tag: none.
        assert_eq!(k.address(&format!("{}@example.org", "s".repeat(40)), game, 1, 1), None);
    }

    #[test]
    fn only_the_daemons_own_address_carries_a_tag() {
        assert_eq!(tag_in("steward@x.org", "steward+abc@x.org").as_deref(), Some("abc"));
        assert_eq!(tag_in("steward@x.org", "<STEWARD+ABC@X.ORG>").as_deref(), Some("abc"));
        assert_eq!(tag_in("steward@x.org", "steward+abc@y.org"), None);
        assert_eq!(tag_in("steward@x.org", "other+abc@x.org"), None);
        assert_eq!(tag_in("steward@x.org", "steward@x.org"), None);
        assert_eq!(tag_in("steward@x.org", "steward+@x.org"), None);
    }

    #[test]
    fn the_key_is_made_once_and_kept_private() {
        let dir = std::env::temp_dir().join(format!("steward-tag-key-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let a = TagKey::load(&dir, Durability::NoSync).unwrap();
        let b = TagKey::load(&dir, Durability::NoSync).unwrap();
        assert_eq!(a.0, b.0);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(dir.join(KEY_FILE)).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(format!("{a:?}"), "TagKey(***)");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
