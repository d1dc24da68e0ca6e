//! [`EntityMap`]: the local handle of each entity another world named.

use crate::entity::Entity;
use crate::util::hash::IdMap;

/// Maps the handles of another world's entities (a server's, a file's) to the local
/// entities that stand for them.
///
/// Lookups are O(1): a table indexed by the foreign handle's slot index, which grows
/// with the map's length (at most four times the most entries it held plus 4,096
/// slots, so a hostile index cannot make it large; it never shrinks), and a hash map
/// for the handles past it or sharing a slot index with another generation.
/// [`iter`](Self::iter) and [`clear`](Self::clear) cost the table's size.
///
/// ```
/// use ripple::World;
/// use ripple::scene::EntityMap;
/// let mut server = World::new();
/// let mut client = World::new();
/// let remote = server.spawn(());
/// let local = client.spawn(());
/// let mut map = EntityMap::new();
/// map.insert(remote, local);
/// assert_eq!(map.get(remote), Some(local));
/// assert_eq!(map.remove(remote), Some(local));
/// assert!(map.is_empty());
/// ```
#[derive(Clone, Debug, Default)]
pub struct EntityMap {
    /// Per foreign slot index: the foreign handle and its local one.
    dense: Vec<Option<(Entity, Entity)>>,
    overflow: IdMap<u64, Entity>,
    len: usize,
}

/// The least the table may grow to, whatever the map's length.
const MIN_DENSE: usize = 4096;

impl EntityMap {
    /// An empty map.
    pub fn new() -> Self {
        EntityMap::default()
    }

    /// How many foreign entities are mapped.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no entity is mapped.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The local entity that stands for `foreign`, if one does.
    #[inline]
    pub fn get(&self, foreign: Entity) -> Option<Entity> {
        if let Some(Some((id, local))) = self.dense.get(foreign.index() as usize)
            && *id == foreign
        {
            return Some(*local);
        }
        if self.overflow.is_empty() {
            return None;
        }
        self.overflow.get(&foreign.to_bits()).copied()
    }

    /// Maps `foreign` to `local`; returns the local entity it was mapped to before.
    pub fn insert(&mut self, foreign: Entity, local: Entity) -> Option<Entity> {
        let index = foreign.index() as usize;
        let limit = self.len.saturating_mul(4).max(MIN_DENSE);
        if index < self.dense.len() || index < limit {
            if index >= self.dense.len() {
                let len = (index + 1).next_power_of_two().clamp(64, limit.max(index + 1));
                self.dense.resize(len, None);
            }
            match self.dense[index] {
                Some((id, old)) if id == foreign => {
                    self.dense[index] = Some((foreign, local));
                    return Some(old);
                }
                None if !self.overflow.contains_key(&foreign.to_bits()) => {
                    self.dense[index] = Some((foreign, local));
                    self.len += 1;
                    return None;
                }
                // Another generation holds the slot, or the handle went to the hash
                // map while the table was shorter: the hash map keeps it.
                _ => {}
            }
        }
        let old = self.overflow.insert(foreign.to_bits(), local);
        if old.is_none() {
            self.len += 1;
        }
        old
    }

    /// Forgets `foreign`; returns the local entity it was mapped to.
    pub fn remove(&mut self, foreign: Entity) -> Option<Entity> {
        if let Some(slot) = self.dense.get_mut(foreign.index() as usize)
            && let Some((id, local)) = *slot
            && id == foreign
        {
            *slot = None;
            self.len -= 1;
            return Some(local);
        }
        let old = self.overflow.remove(&foreign.to_bits());
        if old.is_some() {
            self.len -= 1;
        }
        old
    }

    /// Every mapped pair, `(foreign, local)`, in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (Entity, Entity)> + '_ {
        let dense = self.dense.iter().filter_map(|slot| *slot);
        let overflow = self.overflow.iter().filter_map(|(&bits, &local)| Some((Entity::from_bits(bits)?, local)));
        dense.chain(overflow)
    }

    /// Bytes the map holds (its table and hash map, roughly).
    pub(crate) fn bytes(&self) -> usize {
        self.dense.capacity() * size_of::<Option<(Entity, Entity)>>() + self.overflow.capacity() * 24
    }

    /// Forgets every entity (keeping the memory).
    pub fn clear(&mut self) {
        self.dense.iter_mut().for_each(|slot| *slot = None);
        self.overflow.clear();
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(index: u32, generation: u32) -> Entity {
        Entity::from_bits((u64::from(generation) << 32) | u64::from(index)).unwrap()
    }

    #[test]
    fn handles_sharing_a_slot_or_far_away_keep_their_own_entries() {
        let mut map = EntityMap::new();
        let ids = [entity(3, 1), entity(3, 2), entity(u32::MAX - 1, 1), entity(7, 1)];
        for (k, &id) in ids.iter().enumerate() {
            assert_eq!(map.insert(id, entity(k as u32, 9)), None);
        }
        assert_eq!(map.len(), 4);
        for (k, &id) in ids.iter().enumerate() {
            assert_eq!(map.get(id), Some(entity(k as u32, 9)));
        }
        assert!(map.dense.len() <= MIN_DENSE, "a far index does not grow the table");
        assert_eq!(map.get(entity(3, 3)), None);
        assert_eq!(map.insert(entity(3, 2), entity(0, 1)), Some(entity(1, 9)));
        assert_eq!(map.remove(entity(3, 1)), Some(entity(0, 9)));
        assert_eq!(map.remove(entity(3, 1)), None);
        assert_eq!(map.len(), 3);
        assert_eq!(map.iter().count(), 3);
        map.clear();
        assert!(map.is_empty() && map.get(entity(7, 1)).is_none());
    }
}
