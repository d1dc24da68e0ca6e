//! The dense path of a merge policy: keys that are small integers or entities index
//! an array of ordinals directly, with no hash and no probing.
//!
//! Most merge keys are an entity (twenty hits on one enemy) or a small integer id, and
//! for those an array indexed by the key (by the entity's slot index) finds the waiting
//! message in one load, as a hand-rolled `totals[target] += amount` does. Each array
//! slot holds the round it was written in beside the ordinal, so forgetting a round's
//! keys at the sync point is one increment, whatever the keys were.
//!
//! The array grows only as far as the round's sends justify: up to 65,536 slots
//! whatever the round sends, beyond that at most eight slots per key waiting or per
//! message of the batch being sent, so keys from data (a huge id, chosen or not) cannot
//! make it allocate more than the sends they come with. A key the array cannot take (an index past that bound, a negative
//! integer, or an entity whose slot index another generation's entity already holds
//! this round) sends the policy to its hash table for the rest of the round.

use std::any::{Any, TypeId};

use crate::entity::Entity;

/// Indexes the array may reach however few keys are waiting.
const FREE_INDEXES: usize = 1 << 16;
/// Beyond [`FREE_INDEXES`], array slots allowed per waiting key or message in hand.
const SLOTS_PER_KEY: usize = 8;

/// Whether keys of type `K` take the dense path: the unsigned and signed integers and
/// [`Entity`]. Decided per type when the policy is made; the check folds away.
#[inline(always)]
pub(crate) fn is_dense_type<K: 'static>() -> bool {
    let id = TypeId::of::<K>();
    [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
        TypeId::of::<i8>(),
        TypeId::of::<i16>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
        TypeId::of::<isize>(),
        TypeId::of::<Entity>(),
    ]
    .contains(&id)
}

/// Whether a key of type `K` is its index ([`dense_index`] is one to one): true of
/// the integers, whose keys need no comparing once the array finds their index; false
/// of entities, whose generations share a slot index. Folds away.
#[inline(always)]
pub(crate) fn index_is_key<K: 'static>() -> bool {
    is_dense_type::<K>() && TypeId::of::<K>() != TypeId::of::<Entity>()
}

/// The array index of `key`: the integer itself if it is not negative, an entity's slot
/// index. `None` for a negative integer, or a key of any other type. O(1); after
/// monomorphization one conversion.
#[inline(always)]
pub(crate) fn dense_index<K: 'static>(key: &K) -> Option<usize> {
    let key = key as &dyn Any;
    macro_rules! integers {
        ($($t:ty),*) => {
            $(if let Some(&k) = key.downcast_ref::<$t>() {
                return usize::try_from(k).ok();
            })*
        };
    }
    integers!(u32, u64, usize, u16, u8, i32, i64, isize, i16, i8);
    key.downcast_ref::<Entity>().map(|e| e.index() as usize)
}

/// Key indexes → ordinals, for one round (one sync point's sends) at a time.
pub(crate) struct DenseKeys {
    /// Per index: the round that wrote it and the ordinal it holds then. A slot of an
    /// earlier round is empty.
    slots: Vec<(u32, u32)>,
    /// The current round, never 0 (0 marks a slot never written).
    round: u32,
    /// Keys held this round: the ordinal the next new key gets.
    len: usize,
}

impl Default for DenseKeys {
    fn default() -> Self {
        DenseKeys { slots: Vec::new(), round: 1, len: 0 }
    }
}

impl DenseKeys {
    /// Keys held this round.
    #[inline(always)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The array and the current round, for a run of lookups that insert nothing: an
    /// index holds an ordinal this round if its slot's round is the current one.
    #[inline(always)]
    pub(crate) fn view(&self) -> (&[(u32, u32)], u32) {
        (&self.slots, self.round)
    }

    /// The ordinal held at `index` this round. O(1).
    #[inline(always)]
    pub(crate) fn find(&self, index: usize) -> Option<u32> {
        match self.slots.get(index) {
            Some(&(round, ordinal)) if round == self.round => Some(ordinal),
            _ => None,
        }
    }

    /// Holds the next ordinal at `index` (empty this round), growing the array if the
    /// keys waiting and the `pending` messages of the batch in hand (this one included)
    /// allow it; `false`, holding nothing, if they do not. O(1) amortized.
    #[inline]
    pub(crate) fn insert(&mut self, index: usize, pending: usize) -> bool {
        if index >= self.slots.len() && !self.grow(index, pending) {
            return false;
        }
        self.slots[index] = (self.round, self.len as u32);
        self.len += 1;
        true
    }

    /// Grows the array to reach `index`, if the bound allows it.
    #[cold]
    fn grow(&mut self, index: usize, pending: usize) -> bool {
        let allowed = FREE_INDEXES.max(SLOTS_PER_KEY.saturating_mul(self.len.saturating_add(pending)));
        if index >= allowed || u32::try_from(self.len).is_err() {
            return false;
        }
        let size = (index + 1).next_power_of_two().min(allowed.next_power_of_two());
        self.slots.resize(size.max(index + 1), (0, 0));
        true
    }

    /// Forgets this round's keys, keeping the array. O(1), but for one pass over the
    /// array every 2^32 rounds.
    pub(crate) fn clear(&mut self) {
        self.len = 0;
        if self.round == u32::MAX {
            self.slots.fill((0, 0));
            self.round = 0;
        }
        self.round += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_and_entities_index_other_keys_do_not() {
        assert_eq!(dense_index(&7u32), Some(7));
        assert_eq!(dense_index(&7u8), Some(7));
        assert_eq!(dense_index(&-1i32), None);
        assert_eq!(dense_index(&3i64), Some(3));
        assert_eq!(dense_index(&"seven"), None);
        assert_eq!(dense_index(&(1u32, 2u32)), None);
        assert!(is_dense_type::<u64>() && is_dense_type::<Entity>() && !is_dense_type::<(u32, u32)>());
    }

    #[test]
    fn a_round_forgets_its_keys_and_huge_indexes_are_refused() {
        let mut keys = DenseKeys::default();
        assert!(keys.insert(5, 1) && keys.insert(2, 1));
        assert_eq!((keys.find(5), keys.find(2), keys.find(3)), (Some(0), Some(1), None));
        keys.clear();
        assert_eq!((keys.find(5), keys.len()), (None, 0));
        assert!(!keys.insert(FREE_INDEXES, 1), "one message cannot reach past the free indexes");
        assert!(keys.insert(FREE_INDEXES, FREE_INDEXES / SLOTS_PER_KEY + 1), "a batch of as many messages may");
        keys.clear();
        assert!(keys.insert(FREE_INDEXES - 1, 1));
        assert!(keys.slots.len() <= 2 * FREE_INDEXES);
        // The round counter wrapping empties the array.
        keys.round = u32::MAX;
        keys.clear();
        assert_eq!((keys.round, keys.find(FREE_INDEXES - 1)), (1, None));
    }
}
