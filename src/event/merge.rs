//! Merge policies: coalescing events that share a key while they wait for the next
//! sync point (the seed's twenty hits on one enemy become one damage event).

use std::collections::hash_map::Entry;
use std::hash::Hash;

use super::coalesce::Coalescer;
use crate::hash::IdMap;

/// Distinct keys a merge policy looks up on send before it switches to appending and
/// coalescing at the sync point: the key map stays small enough for the caches.
pub(crate) const HASHED_KEYS: usize = 1 << 14;

/// Coalesces a sent event into the events already waiting, or appends it.
pub(crate) trait Merge<E>: Send + Sync {
    /// Sends `event` into `waiting`: combined with the waiting event of the same key,
    /// or appended. O(1). Returns `true` once the policy has too many keys to look
    /// them up on send: the caller then appends every further send itself, until the
    /// sync point, and has [`settle`](Merge::settle) combine them before delivery.
    fn send(&mut self, waiting: &mut Vec<E>, event: E) -> bool;

    /// Leaves `waiting`, whose later events were appended unmerged, with one event per
    /// key, as if every send had been combined on the spot. Linear in the events
    /// waiting: O(1) per send, amortized.
    fn settle(&mut self, waiting: &mut Vec<E>);

    /// Forgets the keys of the waiting events (they were delivered). Keeps capacity.
    fn clear(&mut self);
}

/// Merges by a key: `key` names the event's key, `combine` folds a new event into the
/// waiting one with the same key.
///
/// Up to `hashed_keys` distinct keys, a map from key to position combines each send
/// on the spot. Past that, a map lookup would miss the cache on most sends, so sends
/// are appended and [`Coalescer`] combines them at the sync point: either way a send
/// costs O(1) (amortized), and at a million keys a few times what it costs at a
/// thousand, where a map lookup costs over ten times as much.
pub(crate) struct MergeBy<E, K, FK, FC> {
    key: FK,
    combine: FC,
    positions: IdMap<K, u32>,
    hashed_keys: usize,
    coalescer: Coalescer<E>,
}

impl<E, K, FK, FC> MergeBy<E, K, FK, FC> {
    pub(crate) fn new(key: FK, combine: FC) -> Self {
        Self::with_hashed_keys(key, combine, HASHED_KEYS)
    }

    /// A policy that looks up at most `hashed_keys` keys on send.
    pub(crate) fn with_hashed_keys(key: FK, combine: FC, hashed_keys: usize) -> Self {
        MergeBy { key, combine, positions: IdMap::default(), hashed_keys, coalescer: Coalescer::default() }
    }
}

impl<E, K, FK, FC> Merge<E> for MergeBy<E, K, FK, FC>
where
    E: Send + Sync,
    K: Hash + Eq + Send + Sync,
    FK: Fn(&E) -> K + Send + Sync,
    FC: Fn(&mut E, E) + Send + Sync,
{
    #[inline]
    fn send(&mut self, waiting: &mut Vec<E>, event: E) -> bool {
        let full = self.positions.len() >= self.hashed_keys;
        match self.positions.entry((self.key)(&event)) {
            Entry::Occupied(position) => (self.combine)(&mut waiting[*position.get() as usize], event),
            Entry::Vacant(_) if full => {
                waiting.push(event);
                return true;
            }
            Entry::Vacant(position) => {
                position.insert(waiting.len() as u32);
                waiting.push(event);
            }
        }
        false
    }

    fn settle(&mut self, waiting: &mut Vec<E>) {
        // The map's positions are stale from here on; sends are appended until `clear`.
        self.coalescer.coalesce(waiting, &self.key, &self.combine);
    }

    fn clear(&mut self) {
        self.positions.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_keys_combine_in_place_and_new_keys_append_in_order() {
        let mut merge = MergeBy::new(|e: &(u32, u32)| e.0, |acc: &mut (u32, u32), e: (u32, u32)| acc.1 += e.1);
        let mut waiting = Vec::new();
        for event in [(1, 5), (2, 1), (1, 5), (3, 7), (2, 2)] {
            assert!(!merge.send(&mut waiting, event), "under the key limit, sends combine on the spot");
        }
        assert_eq!(waiting, [(1, 10), (2, 3), (3, 7)]);
        merge.clear();
        waiting.clear();
        merge.send(&mut waiting, (3, 1));
        assert_eq!(waiting, [(3, 1)]);
    }

    #[test]
    fn past_the_hashed_keys_sends_append_and_settle_combines_them() {
        let mut merge =
            MergeBy::with_hashed_keys(|e: &(u32, u32)| e.0, |acc: &mut (u32, u32), e: (u32, u32)| acc.1 += e.1, 2);
        let mut waiting = Vec::new();
        let appending: Vec<bool> =
            [(1, 5), (2, 1), (1, 5), (3, 7)].into_iter().map(|event| merge.send(&mut waiting, event)).collect();
        assert_eq!(appending, [false, false, false, true], "a third key switches to appending");
        assert_eq!(waiting, [(1, 10), (2, 1), (3, 7)]);
        // The outbox appends the rest itself.
        waiting.extend([(2, 2), (1, 1), (3, 1), (4, 4)]);
        merge.settle(&mut waiting);
        assert_eq!(waiting, [(1, 11), (2, 3), (3, 8), (4, 4)], "first-send order, combined in send order");
        waiting.push((2, 10));
        merge.settle(&mut waiting);
        assert_eq!(waiting, [(1, 11), (2, 13), (3, 8), (4, 4)], "a settle may come more than once before delivery");
        merge.clear();
        waiting.clear();
        assert!(!merge.send(&mut waiting, (5, 1)) && !merge.send(&mut waiting, (5, 1)));
        assert_eq!(waiting, [(5, 2)], "after delivery, sends combine on the spot again");
    }
}
