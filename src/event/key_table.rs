//! The key table of a merge policy: for each key waiting for the sync point, the
//! position of its event in the outbox.
//!
//! Open addressing with linear probing over a power-of-two array of 8-byte slots,
//! kept at most half full. A slot holds the event's position and a tag: 16 bits of
//! the key's hash, to skip most other keys without looking at their events, and the
//! table's *epoch*, so that forgetting every key after a delivery is one increment
//! instead of a pass over the slots (a slot of an older epoch is empty). The array
//! keeps its size from one sync point to the next, so a steady frame allocates
//! nothing.

use crate::hint::prefetch;

/// One slot: `tag` 0 (epoch 0 never occurs) or of an older epoch is empty.
#[derive(Clone, Copy, Default)]
struct Slot {
    /// `epoch << 16 | 16 bits of the key's hash`.
    tag: u32,
    /// The position of the key's event in the outbox.
    position: u32,
}

/// The fewest slots a table that holds a key has.
const MIN_BITS: u32 = 4;
/// Epochs run from 1 to this, then the slots are cleared and they start again.
const LAST_EPOCH: u32 = 0xFFFF;

/// Key hashes → outbox positions. It never sees keys: whether the event at a position
/// has the key being looked up is the caller's to say.
pub(crate) struct KeyTable {
    slots: Vec<Slot>,
    /// `slots.len() == 1 << bits` once anything was inserted.
    bits: u32,
    epoch: u32,
    /// Keys in the current epoch.
    len: usize,
}

impl Default for KeyTable {
    fn default() -> Self {
        KeyTable { slots: Vec::new(), bits: 0, epoch: 1, len: 0 }
    }
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

    /// The first slot probed for `hash`: the top bits (the best of a multiplicative
    /// hash).
    #[inline(always)]
    fn home(&self, hash: u64) -> usize {
        // `bits` is at least MIN_BITS here: only called on a table with slots.
        (hash >> (64 - self.bits)) as usize
    }

    #[inline(always)]
    fn tag(&self, hash: u64) -> u32 {
        // Bits 16..32: apart from the top bits that pick the slot, for tables of up to
        // 2^32 slots.
        self.epoch << 16 | ((hash >> 16) & 0xFFFF) as u32
    }

    #[inline(always)]
    fn is_live(&self, slot: Slot) -> bool {
        slot.tag >> 16 == self.epoch
    }

    /// The position of the key with `hash` for which `is_key` holds; if there is none,
    /// records `new_position` for it and returns `None`. The table must not be
    /// [full](Self::is_full).
    #[inline]
    pub(crate) fn find_or_insert(&mut self, hash: u64, new_position: u32, is_key: impl Fn(u32) -> bool) -> Option<u32> {
        debug_assert!(!self.is_full());
        let tag = self.tag(hash);
        let mask = self.slots.len() - 1;
        let mut at = self.home(hash);
        loop {
            let slot = self.slots[at];
            if !self.is_live(slot) {
                self.slots[at] = Slot { tag, position: new_position };
                self.len += 1;
                return None;
            }
            if slot.tag == tag && is_key(slot.position) {
                return Some(slot.position);
            }
            at = (at + 1) & mask;
        }
    }

    /// Starts loading the slot `hash` is looked up in first, for a lookup soon.
    #[inline(always)]
    pub(crate) fn prefetch(&self, hash: u64) {
        if !self.slots.is_empty() {
            prefetch(self.slots.as_ptr().wrapping_add(self.home(hash)));
        }
    }

    /// The position in the first slot `hash` is looked up in, if that slot holds a key
    /// with the same tag: most likely the key's own event, worth loading ahead.
    #[inline(always)]
    pub(crate) fn likely_position(&self, hash: u64) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let slot = self.slots[self.home(hash)];
        (slot.tag == self.tag(hash)).then_some(slot.position)
    }

    /// Empties the table and makes it large enough for `keys` keys (at most half
    /// full), then records each `(hash, position)` of `entries`, whose keys must be
    /// distinct. Used to grow the table, with every key it held.
    pub(crate) fn rebuild(&mut self, keys: usize, entries: impl IntoIterator<Item = (u64, u32)>) {
        let bits = (2 * keys.max(1)).next_power_of_two().trailing_zeros().max(MIN_BITS);
        assert!(bits <= 32, "a merge policy holds fewer than 2^31 keys per sync point");
        self.slots.clear();
        self.slots.resize(1 << bits, Slot::default());
        (self.bits, self.epoch, self.len) = (bits, 1, 0);
        let mask = self.slots.len() - 1;
        for (hash, position) in entries {
            let mut at = self.home(hash);
            while self.is_live(self.slots[at]) {
                at = (at + 1) & mask;
            }
            self.slots[at] = Slot { tag: self.tag(hash), position };
            self.len += 1;
        }
    }

    /// Forgets every key, keeping the slots' memory: O(1), but once every 65,535
    /// calls, when the epochs run out and the slots are cleared.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        if self.epoch == LAST_EPOCH {
            self.slots.fill(Slot::default());
            self.epoch = 1;
        } else {
            self.epoch += 1;
        }
    }

    /// Slots allocated (for tests).
    #[cfg(test)]
    pub(crate) fn capacity(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table over `keys`, the key of position `p` being `keys[p]`, with the hashes
    /// `hash` gives.
    fn insert_all(table: &mut KeyTable, keys: &mut Vec<u64>, new: &[u64], hash: impl Fn(u64) -> u64) -> Vec<u32> {
        let mut found = Vec::new();
        for &key in new {
            if table.is_full() {
                let entries: Vec<(u64, u32)> = keys.iter().enumerate().map(|(p, &k)| (hash(k), p as u32)).collect();
                table.rebuild(keys.len() + 1, entries);
            }
            let position = keys.len() as u32;
            match table.find_or_insert(hash(key), position, |p| keys[p as usize] == key) {
                Some(p) => found.push(p),
                None => keys.push(key),
            }
        }
        found
    }

    #[test]
    fn finds_each_key_once_through_growth_and_colliding_hashes() {
        let spread = |k: u64| k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        // Keys 0..5000 share eight hashes: the tags match, positions tell them apart.
        let colliding = |k: u64| (k % 8).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for hash in [&spread as &dyn Fn(u64) -> u64, &colliding] {
            let mut table = KeyTable::default();
            let mut keys = Vec::new();
            let first: Vec<u64> = (0..5_000).collect();
            assert!(insert_all(&mut table, &mut keys, &first, hash).is_empty(), "new keys are inserted");
            assert_eq!((keys.len(), table.len()), (5_000, 5_000));
            assert!(table.capacity() >= 10_000, "at most half full");
            let again: Vec<u64> = (0..5_000).rev().collect();
            let found = insert_all(&mut table, &mut keys, &again, hash);
            assert_eq!(found, (0..5_000).rev().collect::<Vec<u32>>(), "each key finds its own position");
            assert_eq!(keys.len(), 5_000);
        }
    }

    #[test]
    fn clearing_forgets_every_key_and_keeps_the_slots() {
        let hash = |k: u64| k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut table = KeyTable::default();
        let mut keys = Vec::new();
        insert_all(&mut table, &mut keys, &[1, 2, 3], hash);
        let capacity = table.capacity();
        // Through more clears than there are epochs: the slots are wiped when they run
        // out, and no key of an earlier round is ever found.
        for round in 0..(LAST_EPOCH as u64 + 3) {
            table.clear();
            keys.clear();
            assert_eq!(table.len(), 0);
            let key = 10 + round % 5;
            assert!(insert_all(&mut table, &mut keys, &[key], hash).is_empty(), "round {round}: forgotten");
            assert_eq!(insert_all(&mut table, &mut keys, &[key], hash), [0], "round {round}: found again");
        }
        assert_eq!(table.capacity(), capacity);
    }

    #[test]
    fn the_likely_position_is_the_keys_own_when_its_home_slot_holds_it() {
        let hash = |k: u64| k.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut table = KeyTable::default();
        assert_eq!(table.likely_position(hash(1)), None, "an empty table");
        table.prefetch(hash(1)); // no slots: nothing to do, and no fault
        let mut keys = Vec::new();
        insert_all(&mut table, &mut keys, &[1, 2, 3], hash);
        for key in [1, 2, 3] {
            assert_eq!(table.likely_position(hash(key)), Some(key as u32 - 1));
        }
    }
}
