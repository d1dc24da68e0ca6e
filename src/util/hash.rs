//! A small, fast hasher for the keys ripple hashes: `TypeId`s and dense integer ids.
//!
//! `TypeId`s are already high-quality hashes, and ids are small integers; neither
//! needs SipHash's protection against adversarial keys. The hasher multiplies by a
//! 64-bit odd constant (Fibonacci hashing) so small ids spread over the top bits that
//! hashbrown's control bytes use.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// Map keyed by `TypeId` or a dense id, with [`IdHasher`].
pub(crate) type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// 2^64 divided by the golden ratio, made odd: Fibonacci hashing's multiplier.
pub(crate) const GOLDEN: u64 = 0x9E37_79B9_7F4A_7C15;

/// Multiplicative hasher for already-random or small integer keys.
#[derive(Default, Clone, Copy)]
pub(crate) struct IdHasher(u64);

impl Hasher for IdHasher {
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for_each_word(bytes, |word| self.write_u64(word));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(GOLDEN);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }
}

/// Calls `f` with `bytes` as little-endian 64-bit words, the last one zero-padded: how
/// ripple's word-at-a-time hashers take bytes.
#[inline]
pub(crate) fn for_each_word(bytes: &[u8], mut f: impl FnMut(u64)) {
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        f(u64::from_le_bytes(word));
    }
}
