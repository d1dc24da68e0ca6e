//! The inspector's access token: 128 random bits, in hex, put in the URL the game
//! prints, so that another local user or a web page the developer visits cannot
//! reach the inspector without reading that line.

use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};

/// A new token. Its bits come from the standard library's hash keys, which are seeded
/// from the operating system's random source once per process and stepped per use;
/// hashing them with the time and the process id adds nothing an attacker could
/// guess but keeps two inspectors in one process apart.
pub(crate) fn new_token() -> String {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    (0..2u8)
        .map(|half| {
            let mut hasher = RandomState::new().build_hasher();
            hasher.write_u128(nanos);
            hasher.write_u32(std::process::id());
            hasher.write_u8(half);
            format!("{:016x}", hasher.finish())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_are_32_hex_digits_and_differ() {
        let (a, b) = (super::new_token(), super::new_token());
        assert_eq!(a.len(), 32);
        assert!(a.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a, b);
    }
}
