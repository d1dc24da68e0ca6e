//! Merge policies: coalescing events that share a key while they wait for the next
//! sync point (the seed's twenty hits on one enemy become one damage event).

use std::hash::Hash;

use crate::hash::IdMap;

/// Coalesces a sent event into the events already waiting, or appends it.
pub(crate) trait Merge<E>: Send + Sync {
    /// Sends `event` into `waiting`: combined with the waiting event of the same key,
    /// or appended. O(1).
    fn send(&mut self, waiting: &mut Vec<E>, event: E);

    /// Forgets the keys of the waiting events (they were delivered). Keeps capacity.
    fn clear(&mut self);
}

/// Merges by a key: `key` names the event's key, `combine` folds a new event into the
/// waiting one with the same key. A map from key to position keeps each send O(1).
pub(crate) struct MergeBy<K, FK, FC> {
    key: FK,
    combine: FC,
    positions: IdMap<K, u32>,
}

impl<K, FK, FC> MergeBy<K, FK, FC> {
    pub(crate) fn new(key: FK, combine: FC) -> Self {
        MergeBy { key, combine, positions: IdMap::default() }
    }
}

impl<E, K, FK, FC> Merge<E> for MergeBy<K, FK, FC>
where
    K: Hash + Eq + Send + Sync,
    FK: Fn(&E) -> K + Send + Sync,
    FC: Fn(&mut E, E) + Send + Sync,
{
    #[inline]
    fn send(&mut self, waiting: &mut Vec<E>, event: E) {
        let key = (self.key)(&event);
        let next = waiting.len() as u32;
        let position = *self.positions.entry(key).or_insert(next);
        if position == next {
            waiting.push(event);
        } else {
            (self.combine)(&mut waiting[position as usize], event);
        }
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
            merge.send(&mut waiting, event);
        }
        assert_eq!(waiting, [(1, 10), (2, 3), (3, 7)]);
        merge.clear();
        waiting.clear();
        merge.send(&mut waiting, (3, 1));
        assert_eq!(waiting, [(3, 1)]);
    }
}
