//! The hashes the store writes: hex of 32-byte values, SHA-256 of a file or a state's text, and
//! a player's token as stored (the token itself never is, docs/store.md).

use sha2::{Digest, Sha256};

/// Hex of a 32-byte value. Written into a fixed buffer: `hex::encode` pushes one `char` at a
/// time, and `verify` writes a few of these per turn (the state digest, the file hashes).
pub fn hex32(b: &[u8; 32]) -> String {
    let mut out = [0u8; 64];
    hex::encode_to_slice(b, &mut out).expect("64 digits for 32 bytes");
    String::from_utf8(out.to_vec()).expect("hex digits are ASCII")
}

/// Parses 64 hex digits.
pub fn parse_hex32(s: &str) -> Option<[u8; 32]> {
    let v = hex::decode(s.trim()).ok()?;
    v.try_into().ok()
}

/// SHA-256 of bytes, in hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex32(&Sha256::digest(bytes).into())
}

/// The stored hash of a player's token (docs/store.md): the token itself is never written.
pub fn token_hash(game: &str, token: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"steward-token-v1");
    h.update([0u8]);
    h.update(game.as_bytes());
    h.update([0u8]);
    h.update(token.as_bytes());
    hex32(&h.finalize().into())
}

#[cfg(test)]
mod tests {
    use super::{hex32, parse_hex32};

    /// The buffered hex is `hex::encode`'s, digit for digit, and reads back.
    #[test]
    fn hex32_is_hex_encode() {
        for first in (0..=255u8).step_by(32) {
            let b: [u8; 32] = std::array::from_fn(|i| first.wrapping_add(i as u8));
            assert_eq!(hex32(&b), hex::encode(b));
            assert_eq!(parse_hex32(&hex32(&b)), Some(b));
        }
    }
}
