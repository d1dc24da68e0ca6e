//! [`Upcoming`]: the handles a world's next allocations will give, in order. The
//! allocator hands out slots in a fixed order (its free list, last in first out, then
//! fresh indices), so a load can name the entities it will create before it creates
//! any (see `Entities::upcoming`).

use std::cell::OnceCell;

use crate::entity::Entity;
use crate::util::hash::IdMap;

/// The handles a world's next allocations will give, in order.
pub(crate) struct Upcoming {
    /// Recycled slots first, in the order the allocator pops them.
    recycled: Vec<Entity>,
    /// Then fresh indices from this one on, at generation 1.
    fresh_from: u32,
    /// Position in `recycled` by slot index, made on the first [`position`](Self::position).
    recycled_at: OnceCell<IdMap<u32, u32>>,
}

impl Upcoming {
    /// No handles (what a finished load leaves behind).
    pub(crate) fn none() -> Upcoming {
        Upcoming::new(Vec::new(), u32::MAX)
    }

    /// `recycled` handles first, then fresh indices from `fresh_from` on.
    pub(crate) const fn new(recycled: Vec<Entity>, fresh_from: u32) -> Upcoming {
        Upcoming { recycled, fresh_from, recycled_at: OnceCell::new() }
    }

    /// Which allocation gives `entity`, if one does: the inverse of [`get`](Self::get).
    pub(crate) fn position(&self, entity: Entity) -> Option<usize> {
        if entity.index() >= self.fresh_from {
            let k = self.recycled.len() + (entity.index() - self.fresh_from) as usize;
            return (entity.generation() == 1).then_some(k);
        }
        let recycled_at = self
            .recycled_at
            .get_or_init(|| self.recycled.iter().enumerate().map(|(k, entity)| (entity.index(), k as u32)).collect());
        let k = *recycled_at.get(&entity.index())? as usize;
        (self.recycled[k] == entity).then_some(k)
    }

    /// The handle of the `k`-th allocation.
    pub(crate) fn get(&self, k: usize) -> Entity {
        match self.recycled.get(k) {
            Some(&entity) => entity,
            None => {
                let index = u64::from(self.fresh_from) + (k - self.recycled.len()) as u64;
                // Past 2^32 slots the allocator panics before handing this out.
                Entity::from_bits((1u64 << 32) | (index & u64::from(u32::MAX))).expect("generation 1")
            }
        }
    }
}
