//! The hash a merge policy looks its keys up by.
//!
//! A policy starts with Fibonacci hashing (each word xor-ed into the rotated state,
//! times the golden-ratio constant), which spreads ordinary keys best: the key table
//! homes a key at the hash's top bits, and consecutive ids land in distinct slots. That
//! hash is public, and merge keys may come from data (a network message, a mod, a level
//! file), so keys can be chosen to crowd it (`i` times the constant's inverse all share
//! one home): the key table counts inserts that probe long, and when they pass what
//! spread keys make, the policy draws a random [`Salt`] and rehashes. A salted hash
//! starts from a random state, mixes each word with a folded multiply (the 128-bit
//! product's halves xor-ed, which spreads every bit of the word nonlinearly over the
//! whole state), and ends with a second folded multiply by a random odd number, so its
//! top bits follow no structure an attacker could line keys up on without the salt.

use std::hash::{BuildHasher, BuildHasherDefault, Hash, Hasher, RandomState};

use crate::util::hash::{GOLDEN, IdHasher};

/// A policy's random hash salt (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Salt {
    start: u64,
    mix: u64,
    /// Odd.
    multiplier: u64,
}

impl Salt {
    /// A new random salt.
    pub(crate) fn random() -> Salt {
        // `RandomState` takes its keys from the system's randomness once per thread and
        // advances them for each new one: distinct, unpredictable salts without a
        // dependency.
        let state = RandomState::new();
        Salt { start: state.hash_one(1u8), mix: state.hash_one(2u8), multiplier: state.hash_one(3u8) | 1 }
    }
}

/// `a · b` as a 128-bit product, its halves xor-ed.
#[inline(always)]
fn folded_multiply(a: u64, b: u64) -> u64 {
    let product = u128::from(a) * u128::from(b);
    (product as u64) ^ ((product >> 64) as u64)
}

/// The salted hasher's rounds (see the module docs): the state so far.
struct KeyHasher(u64);

impl Hasher for KeyHasher {
    #[inline(always)]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        crate::util::hash::for_each_word(bytes, |word| self.write_u64(word));
    }

    #[inline(always)]
    fn write_u8(&mut self, n: u8) {
        self.write_u64(u64::from(n));
    }

    #[inline(always)]
    fn write_u16(&mut self, n: u16) {
        self.write_u64(u64::from(n));
    }

    #[inline(always)]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    #[inline(always)]
    fn write_u64(&mut self, n: u64) {
        self.0 = folded_multiply(self.0 ^ n, GOLDEN);
    }

    #[inline(always)]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// The hash of `key`: unsalted (`None`) or with `salt`.
#[inline(always)]
pub(crate) fn hash_key(key: impl Hash, salt: &Option<Salt>) -> u64 {
    match salt {
        // Fibonacci hashing, as ripple hashes ids elsewhere.
        None => BuildHasherDefault::<IdHasher>::default().hash_one(key),
        Some(salt) => {
            let mut hasher = KeyHasher(salt.start);
            key.hash(&mut hasher);
            folded_multiply(hasher.finish() ^ salt.mix, salt.multiplier)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many distinct home slots of a table of `2^bits` slots the keys fall in (the
    /// key table homes a key at its hash's top bits).
    fn distinct_homes(keys: impl Iterator<Item = u64>, salt: Option<Salt>, bits: u32) -> usize {
        let mut homes: Vec<u64> = keys.map(|key| hash_key(key, &salt) >> (64 - bits)).collect();
        homes.sort_unstable();
        homes.dedup();
        homes.len()
    }

    #[test]
    fn consecutive_keys_get_fibonacci_homes_unsalted() {
        let fibonacci = |key: u64| key.wrapping_mul(GOLDEN) >> 48;
        assert!((0..20_000u64).all(|key| hash_key(key, &None) >> 48 == fibonacci(key)));
        assert_eq!(distinct_homes(0..20_000u64, None, 16), 20_000, "no two share a home");
    }

    #[test]
    fn salted_hashes_spread_keys_crafted_against_the_unsalted_one() {
        // `i · 0xf1de83e19937733d` undoes the golden-ratio multiplier: unsalted, all
        // 20,000 keys share one home slot.
        let crafted = (0..20_000u64).map(|i| i.wrapping_mul(0xf1de_83e1_9937_733d));
        assert_eq!(distinct_homes(crafted.clone(), None, 16), 1, "the attack a salt answers");
        for salt in [Some(Salt::random()), Some(Salt::random())] {
            // Random homes for 20,000 keys in 65,536 slots: about 17,300 distinct.
            assert!(distinct_homes(crafted.clone(), salt, 16) > 16_000, "{salt:?}");
            assert!(distinct_homes(0..20_000u64, salt, 16) > 16_000, "{salt:?}");
        }
    }

    #[test]
    fn salts_differ_and_hashes_follow_them() {
        let (a, b) = (Salt::random(), Salt::random());
        assert_ne!(a, b);
        assert!(a.multiplier % 2 == 1);
        assert_ne!(hash_key(7u64, &Some(a)), hash_key(7u64, &Some(b)));
        assert_eq!(hash_key(7u64, &Some(a)), hash_key(7u64, &Some(a)));
    }
}
