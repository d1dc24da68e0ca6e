//! The key table of a merge policy: for each key waiting for the sync point, its
//! *ordinal*, the order in which it was first sent (its message's place among the
//! policy's waiting messages).
//!
//! Open addressing with linear probing over a power-of-two array of 4-byte slots, kept
//! at most half full. A slot of a table of `2^bits` slots holds `ordinal + 1` in its
//! low `bits` bits (0: empty) and, in the bits left over, a tag of the key's hash, so
//! that most other keys are skipped without looking at their messages: 28 tag bits in a
//! table of 16 slots, 11 in one of two million. The small slot is what keeps a million
//! keys' table within the caches that a table of wider slots outgrows (8 MiB instead
//! of 16).
//!
//! Clearing zeroes the slots in use, which costs what the keys of the round cost to
//! insert; a table that held many more keys than a round sends is cut down first, so
//! the clearing cost follows the keys, not the largest round ever seen. The array keeps
//! its allocation, so steady frames allocate nothing.

use crate::util::hint::prefetch;

/// The fewest bits a table that holds a key has (16 slots).
const MIN_BITS: u32 = 4;
/// The most: ordinals and tags share 32 bits.
const MAX_BITS: u32 = 32;
/// Probes past home at which an insert counts as long. With keys that their hash
/// spreads, at most half full, so long a run is rare (well under one insert in a
/// hundred); keys crowded into a few chains make nearly every insert one.
const LONG_PROBE: usize = 16;

/// Key hashes → ordinals. It never sees keys: whether the message of an ordinal has the
/// key being looked up is the caller's to say.
#[derive(Default)]
pub(crate) struct KeyTable {
    /// `1 << bits` slots once anything was inserted; its capacity may be larger.
    slots: Vec<u32>,
    bits: u32,
    /// Keys held: the ordinal the next new key gets.
    len: usize,
    /// Inserts since the table was last cleared or rebuilt that probed [`LONG_PROBE`]
    /// slots past their home.
    long_probes: usize,
    /// Set when `long_probes` passes what keys spread by their hash make
    /// ([`is_crowded`](Self::is_crowded)).
    crowded: bool,
}

impl KeyTable {
    /// Keys held.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Whether one more key would fill the table past half: then the caller
    /// [`rebuild`](Self::rebuild)s it, twice as large, before inserting.
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        2 * (self.len + 1) > self.slots.len()
    }

    /// The first slot probed for `hash`: its top bits (see `key_hash.rs`).
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        // `bits` is at least MIN_BITS here: only called on a table with slots.
        (hash >> (64 - self.bits)) as usize
    }

    /// The low bits of a slot, which hold `ordinal + 1`.
    #[inline(always)]
    fn ordinal_mask(&self) -> u32 {
        u32::MAX >> (MAX_BITS - self.bits)
    }

    /// The hash bits right below the ones [`home`](Self::home) uses, in the slot's
    /// high bits.
    #[inline(always)]
    fn tag(&self, hash: u64) -> u32 {
        ((hash << self.bits) >> 32) as u32 & !self.ordinal_mask()
    }

    /// The ordinal of the key with `hash` for which `is_key` holds; if there is none,
    /// inserts it with the next ordinal ([`len`](Self::len) before the call) and
    /// returns `None`. The table must not be [full](Self::is_full).
    #[inline]
    pub(crate) fn find_or_insert(&mut self, hash: u64, is_key: impl Fn(u32) -> bool) -> Option<u32> {
        debug_assert!(!self.is_full());
        let (tag, ordinals) = (self.tag(hash), self.ordinal_mask());
        let mask = self.slots.len() - 1;
        let mut at = self.home(hash);
        let mut steps = 0;
        loop {
            let slot = self.slots[at];
            if slot == 0 {
                // Fits the ordinal bits: `len` is under half the slot count.
                self.slots[at] = tag | (self.len as u32 + 1);
                self.len += 1;
                // Counted on inserts only, which make the chains that hits walk again
                // (a check inside the loop cost every lookup more).
                if steps >= LONG_PROBE {
                    self.count_long_probe();
                }
                return None;
            }
            if slot & !ordinals == tag && is_key((slot & ordinals) - 1) {
                return Some((slot & ordinals) - 1);
            }
            at = (at + 1) & mask;
            steps += 1;
        }
    }

    /// Counts an insert that probed long, and notes crowding once such inserts are more
    /// than keys spread by their hash make: one in 64 keys held, after a slack of 32
    /// that lets a small table be unlucky.
    #[cold]
    fn count_long_probe(&mut self) {
        self.long_probes += 1;
        self.crowded = self.long_probes > 32 + self.len / 64;
    }

    /// Whether, since the last clear or rebuild, inserts probed long far more often
    /// than keys that their hash spreads make them: keys that crowd into a few probe
    /// chains, chosen to or not.
    #[inline(always)]
    pub(crate) fn is_crowded(&self) -> bool {
        self.crowded
    }

    /// Starts loading the slot `hash` is looked up in first, for a lookup soon.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        if !self.slots.is_empty() {
            prefetch(self.slots.as_ptr().wrapping_add(self.home(hash)));
        }
    }

    /// The ordinal in the first slot `hash` is looked up in, if that slot holds a key
    /// with the same tag: most likely the key's own, whose message is worth loading
    /// ahead. Otherwise 0, which is as good a guess as any.
    #[inline(always)]
    pub(crate) fn likely_ordinal(&self, hash: u64) -> u32 {
        if self.slots.is_empty() {
            return 0;
        }
        let slot = self.slots[self.home(hash)];
        let ordinals = self.ordinal_mask();
        // A mask, not a branch: whether a send's key was sent before is as likely as
        // not, and a mispredicted branch would wait for the slot to arrive from memory.
        let same_tag = (slot != 0) & (slot & !ordinals == self.tag(hash));
        (slot & ordinals).wrapping_sub(1) & 0u32.wrapping_sub(u32::from(same_tag))
    }

    /// Empties the table, sizes it for `keys` keys (at most half full), then holds the
    /// first `keys - 1` of them: their hashes, in ordinal order, are `held`. Used to grow
    /// the table by one key, with every key it held.
    ///
    /// If `held` panics, the table is left short of the keys it did not yield, but
    /// [`len`](Self::len) and the next ordinal stay right: a lost key is never merged
    /// again, and never merged wrongly.
    pub(crate) fn rebuild(&mut self, keys: usize, held: impl IntoIterator<Item = u64>) {
        self.rebuild_at_least(MIN_BITS, keys, held);
    }

    /// As [`rebuild`](Self::rebuild), keeping the table's size if it is larger than
    /// `keys` need: for a round that starts with a few keys and will likely send as many
    /// as the round before, whose size [`clear`](Self::clear) kept.
    pub(crate) fn refill(&mut self, keys: usize, held: impl IntoIterator<Item = u64>) {
        self.rebuild_at_least(self.bits.max(MIN_BITS), keys, held);
    }

    fn rebuild_at_least(&mut self, min_bits: u32, keys: usize, held: impl IntoIterator<Item = u64>) {
        let bits = (2 * keys.max(1)).next_power_of_two().trailing_zeros().max(min_bits);
        assert!(bits <= MAX_BITS, "a merge policy holds fewer than 2^31 keys per sync point");
        // An empty table of this size is all zeroes already (`clear` zeroed what it
        // used): a round that refills it does not zero it twice.
        if self.len != 0 || self.slots.len() != 1 << bits {
            self.slots.clear();
            self.slots.resize(1 << bits, 0);
        }
        (self.bits, self.len) = (bits, keys - 1);
        (self.long_probes, self.crowded) = (0, false);
        let (mask, ordinals) = (self.slots.len() - 1, self.ordinal_mask());
        for (ordinal, hash) in (1..keys as u32).zip(held) {
            let mut at = self.home(hash);
            while self.slots[at] != 0 {
                at = (at + 1) & mask;
            }
            self.slots[at] = self.tag(hash) | (ordinal & ordinals);
        }
    }

    /// Forgets every key, keeping the slots' memory. Zeroes the slots in use, after
    /// cutting a table of more than eight slots per key it held down to four to eight,
    /// so that rounds after a large one do not pay for clearing slots they never fill.
    pub(crate) fn clear(&mut self) {
        if self.len == 0 {
            (self.long_probes, self.crowded) = (0, false);
            return;
        }
        let bits = (4 * self.len).next_power_of_two().trailing_zeros().max(MIN_BITS);
        if bits + 1 < self.bits {
            self.slots.truncate(1 << bits);
            self.bits = bits;
        }
        self.slots.fill(0);
        self.len = 0;
        (self.long_probes, self.crowded) = (0, false);
    }

    /// Slots in use (for tests).
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sends `new` through `table`, the key of ordinal `o` being `keys[o]`, with the
    /// hashes `hash` gives, growing the table as a merge policy does. Returns the
    /// ordinals found.
    fn insert_all(table: &mut KeyTable, keys: &mut Vec<u64>, new: &[u64], hash: impl Fn(u64) -> u64) -> Vec<u32> {
        let mut found = Vec::new();
        for &key in new {
            if table.is_full() {
                table.rebuild(keys.len() + 1, keys.iter().map(|&k| hash(k)));
            }
            assert_eq!(table.len(), keys.len(), "the next ordinal is the next key's place");
            match table.find_or_insert(hash(key), |o| keys[o as usize] == key) {
                Some(o) => found.push(o),
                None => keys.push(key),
            }
        }
        found
    }

    const SPREAD: fn(u64) -> u64 = |k| k.wrapping_mul(0x9E37_79B9_7F4A_7C15);

    #[test]
    fn finds_each_key_once_through_growth_and_colliding_hashes() {
        // Keys 0..5000 share eight hashes: the tags match, ordinals tell them apart.
        let colliding = |k: u64| SPREAD(k % 8);
        // Hashes that differ only in their lowest bits: the same home and the same tag.
        let low_bits = |k: u64| k;
        for hash in [&SPREAD as &dyn Fn(u64) -> u64, &colliding, &low_bits] {
            let mut table = KeyTable::default();
            let mut keys = Vec::new();
            let first: Vec<u64> = (0..5_000).collect();
            assert!(insert_all(&mut table, &mut keys, &first, hash).is_empty(), "new keys are inserted");
            assert_eq!((keys.len(), table.len()), (5_000, 5_000));
            assert!(table.capacity() >= 10_000, "at most half full");
            let again: Vec<u64> = (0..5_000).rev().collect();
            let found = insert_all(&mut table, &mut keys, &again, hash);
            assert_eq!(found, (0..5_000).rev().collect::<Vec<u32>>(), "each key finds its own ordinal");
            assert_eq!(keys.len(), 5_000);
        }
    }

    #[test]
    fn tags_tell_keys_apart_without_asking_in_small_and_large_tables() {
        for count in [3u64, 300_000] {
            let mut table = KeyTable::default();
            let mut keys = Vec::new();
            let all: Vec<u64> = (0..count).collect();
            insert_all(&mut table, &mut keys, &all, SPREAD);
            // A key that is not there, looked up with every key's message at hand: the
            // tag skips nearly all of them before `is_key` is asked.
            let asked = std::cell::Cell::new(0);
            let absent = count + 1;
            let _ = table.find_or_insert(SPREAD(absent), |o| {
                asked.set(asked.get() + 1);
                keys[o as usize] == absent
            });
            assert!(asked.get() <= 1, "{count} keys: asked {} times", asked.get());
        }
    }

    #[test]
    fn clearing_forgets_every_key_and_keeps_the_slots_a_round_needs() {
        let mut table = KeyTable::default();
        let mut keys = Vec::new();
        insert_all(&mut table, &mut keys, &[1, 2, 3], SPREAD);
        let capacity = table.capacity();
        for round in 0..100u64 {
            table.clear();
            keys.clear();
            assert_eq!(table.len(), 0);
            let round_keys = [10 + round % 5, 20, 30];
            assert!(insert_all(&mut table, &mut keys, &round_keys, SPREAD).is_empty(), "round {round}: forgotten");
            assert_eq!(insert_all(&mut table, &mut keys, &round_keys, SPREAD), [0, 1, 2], "round {round}: found");
        }
        assert_eq!(table.capacity(), capacity, "same-sized rounds keep the table's size");
    }

    #[test]
    fn a_round_after_a_large_one_clears_a_table_cut_to_its_size() {
        let mut table = KeyTable::default();
        let mut keys = Vec::new();
        let many: Vec<u64> = (0..10_000).collect();
        insert_all(&mut table, &mut keys, &many, SPREAD);
        assert_eq!(table.capacity(), 32_768);
        table.clear();
        keys.clear();
        insert_all(&mut table, &mut keys, &[7, 8], SPREAD);
        assert_eq!(table.capacity(), 32_768, "cut down when cleared, not before");
        table.clear();
        assert_eq!(table.capacity(), 16, "two keys: cut down to at most eight slots a key");
        keys.clear();
        // Growing again past the cut reuses the memory and still finds every key.
        assert!(insert_all(&mut table, &mut keys, &many, SPREAD).is_empty());
        assert_eq!(insert_all(&mut table, &mut keys, &many, SPREAD), (0..10_000).collect::<Vec<u32>>());
    }

    #[test]
    fn the_likely_ordinal_is_the_keys_own_when_its_home_slot_holds_it() {
        let mut table = KeyTable::default();
        assert_eq!(table.likely_ordinal(SPREAD(1)), 0, "an empty table");
        table.prefetch(SPREAD(1)); // no slots: nothing to do, and no fault
        let mut keys = Vec::new();
        insert_all(&mut table, &mut keys, &[1, 2, 3], SPREAD);
        for key in [1, 2, 3] {
            assert_eq!(table.likely_ordinal(SPREAD(key)), key as u32 - 1);
        }
    }

    #[test]
    fn a_rebuild_cut_short_keeps_the_next_ordinal_right() {
        let mut table = KeyTable::default();
        // Three keys held, but the hashes stop after the first: the others are lost.
        table.rebuild(4, [SPREAD(10)]);
        assert_eq!(table.len(), 3);
        assert_eq!(table.find_or_insert(SPREAD(10), |o| o == 0), Some(0));
        assert_eq!(table.find_or_insert(SPREAD(11), |_| false), None, "a lost key is new again");
        assert_eq!(table.len(), 4, "and gets the ordinal after the three held");
    }
}
