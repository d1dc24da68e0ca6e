//! Entity handles and the allocator that hands them out.
//!
//! An [`Entity`] is a slot index plus a generation. The allocator keeps one
//! [`EntityMeta`] per slot: the slot's current generation and, while the entity is
//! alive, where its row lives. Despawning bumps the generation and puts the slot on a
//! free list, so a stale handle (old generation) is detected instead of reaching the
//! entity that reused the slot. A slot whose generation would overflow is retired
//! rather than reused, so generations never wrap into a false match.

use std::fmt;
use std::num::NonZeroU32;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::storage::{ArchetypeId, Row};
use crate::util::hash::IdMap;

pub(crate) mod abandoned_spawns;
mod builder_spellings;
#[cfg(feature = "persistence")]
pub(crate) mod upcoming;

/// A handle to an entity: a slot index and the generation of that slot.
///
/// Handles are cheap to copy and compare. A handle stays valid until its entity is
/// despawned; afterwards every lookup through it reports [`NoSuchEntity`](crate::NoSuchEntity),
/// even when the slot has been reused by a newer entity.
///
/// ```
/// use ripple::World;
/// let mut world = World::new();
/// let e = world.spawn((1u32,));
/// world.despawn(e).unwrap();
/// let reused = world.spawn((2u32,));
/// assert_eq!(e.index(), reused.index()); // same slot...
/// assert!(!world.contains(e));           // ...but the old handle is stale
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Entity {
    // Field order gives `Ord` by generation then index; only equality matters to users.
    generation: NonZeroU32,
    index: u32,
}

impl Entity {
    /// The slot index of this entity. Slots are reused after despawn.
    #[inline]
    pub const fn index(self) -> u32 {
        self.index
    }

    /// The generation of the slot when this handle was issued.
    #[inline]
    pub const fn generation(self) -> u32 {
        self.generation.get()
    }

    /// Packs the handle into 64 bits: generation in the high half, index in the low half.
    #[inline]
    pub const fn to_bits(self) -> u64 {
        ((self.generation.get() as u64) << 32) | self.index as u64
    }

    /// Rebuilds a handle from [`Entity::to_bits`]. Returns `None` for bits that no
    /// handle can have (a zero generation).
    #[inline]
    pub const fn from_bits(bits: u64) -> Option<Entity> {
        match NonZeroU32::new((bits >> 32) as u32) {
            Some(generation) => Some(Entity { generation, index: bits as u32 }),
            None => None,
        }
    }

    #[inline]
    pub(crate) const fn new(index: u32, generation: NonZeroU32) -> Entity {
        Entity { generation, index }
    }
}

impl fmt::Debug for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}v{}", self.index, self.generation)
    }
}

impl fmt::Display for Entity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self, f)
    }
}

/// Where a live entity's components are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Location {
    pub(crate) archetype: ArchetypeId,
    pub(crate) row: Row,
}

impl Location {
    /// The location of a free slot; never read for a live entity.
    pub(crate) const FREE: Location = Location { archetype: ArchetypeId::INVALID, row: Row(u32::MAX) };
}

#[derive(Clone, Copy, Debug)]
struct EntityMeta {
    generation: NonZeroU32,
    /// `Location::FREE` while the slot is free.
    location: Location,
}

/// The entity allocator and the entity → location map.
#[derive(Default)]
pub(crate) struct Entities {
    meta: Vec<EntityMeta>,
    /// Free slots, reused last-in first-out.
    free: Vec<u32>,
    live: u32,
    /// Handles handed out by `reserve_entity` since the last flush: the first ones
    /// are the free list's last slots (in the order `alloc` pops them), the rest fresh
    /// indices past `meta`. Neither list changes until `flush_reserved`, which every
    /// structural operation runs first.
    reserved: AtomicU32,
    /// Slots whose entity was brought back by [`Entities::revive`] under an older
    /// generation than the slot had reached, with the generation the slot must issue
    /// next once that entity is freed again: every handle of the slot issued before
    /// the revival stays stale. Empty unless a rollback revived entities.
    revived: IdMap<u32, NonZeroU32>,
}

impl Entities {
    /// Number of live entities.
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.live
    }

    /// Number of slots, live or free: every live entity's index is below it.
    #[inline]
    pub(crate) fn slots(&self) -> usize {
        self.meta.len()
    }

    /// Heap bytes reserved for the slot records and the free list.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.meta.capacity() * size_of::<EntityMeta>() + self.free.capacity() * size_of::<u32>()
    }

    /// Makes room for `additional` more entities without reallocating.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let fresh = additional.saturating_sub(self.free.len());
        self.meta.reserve(fresh);
    }

    /// Issues a handle for a new entity at `location`.
    ///
    /// # Panics
    /// When all 2^32 slots are in use.
    #[inline]
    pub(crate) fn alloc(&mut self, location: Location) -> Entity {
        self.live += 1;
        if let Some(index) = self.free.pop() {
            let meta = &mut self.meta[index as usize];
            meta.location = location;
            Entity::new(index, meta.generation)
        } else {
            let index = u32::try_from(self.meta.len()).expect("ripple: more than 2^32 entities");
            assert!(index != u32::MAX, "ripple: more than 2^32 - 1 entities");
            self.meta.push(EntityMeta { generation: NonZeroU32::MIN, location });
            Entity::new(index, NonZeroU32::MIN)
        }
    }

    /// Hands out a handle for an entity to be spawned later (by a command), through a
    /// shared reference: safe to call from several threads at once. The handle is not
    /// alive until `flush_reserved` makes it so.
    pub(crate) fn reserve_entity(&self) -> Entity {
        let n = self.reserved.fetch_add(1, Ordering::Relaxed) as usize;
        if let Some(slot) = self.free.len().checked_sub(n + 1) {
            let index = self.free[slot];
            Entity::new(index, self.meta[index as usize].generation)
        } else {
            let index = (self.meta.len() + n - self.free.len()) as u64;
            assert!(index < u64::from(u32::MAX), "ripple: more than 2^32 - 1 entities");
            Entity::new(index as u32, NonZeroU32::MIN)
        }
    }

    /// Whether any reserved handle waits for `flush_reserved`.
    #[inline]
    pub(crate) fn has_reserved(&self) -> bool {
        self.reserved.load(Ordering::Relaxed) != 0
    }

    /// Makes every reserved handle alive, in reservation order, at the location
    /// `place` gives it.
    pub(crate) fn flush_reserved(&mut self, mut place: impl FnMut(Entity) -> Location) {
        let count = std::mem::take(self.reserved.get_mut());
        for _ in 0..count {
            let entity = self.alloc(Location::FREE);
            let location = place(entity);
            self.set_location(entity.index, location);
        }
    }

    /// The location of `entity`, or `None` if it is not alive.
    #[inline]
    pub(crate) fn get(&self, entity: Entity) -> Option<Location> {
        let meta = self.meta.get(entity.index as usize)?;
        if meta.generation == entity.generation && meta.location.archetype != ArchetypeId::INVALID {
            Some(meta.location)
        } else {
            None
        }
    }

    #[cfg_attr(
        not(feature = "persistence"),
        allow(dead_code, reason = "used by scenes, data commands and replication")
    )]
    /// Every live entity with its location, by ascending index.
    pub(crate) fn iter_alive(&self) -> impl Iterator<Item = (Entity, Location)> + '_ {
        self.meta
            .iter()
            .enumerate()
            .filter(|(_, meta)| meta.location.archetype != ArchetypeId::INVALID)
            .map(|(index, meta)| (Entity::new(index as u32, meta.generation), meta.location))
    }

    #[cfg(feature = "persistence")]
    /// The handles the next allocations will give, in order, once reserved ones are
    /// flushed (none may be waiting): at most `recycled` from the free list, then
    /// fresh indices.
    pub(crate) fn upcoming(&self, recycled: usize) -> crate::entity::upcoming::Upcoming {
        debug_assert!(!self.has_reserved(), "ripple: flush reserved entities first");
        let recycled = self
            .free
            .iter()
            .rev()
            .take(recycled)
            .map(|&index| Entity::new(index, self.meta[index as usize].generation))
            .collect::<Vec<_>>();
        let fresh_from = if recycled.len() < self.free.len() {
            // Not all recycled slots were asked for: the caller never gets this far.
            u32::MAX
        } else {
            self.meta.len() as u32
        };
        crate::entity::upcoming::Upcoming::new(recycled, fresh_from)
    }

    /// Hints the processor to load `entity`'s slot.
    #[inline]
    pub(crate) fn prefetch(&self, entity: Entity) {
        crate::util::hint::prefetch(self.meta.as_ptr().wrapping_add(entity.index as usize));
    }

    /// Records a new location for a live entity (after a row move).
    #[inline]
    pub(crate) fn set_location(&mut self, index: u32, location: Location) {
        self.meta[index as usize].location = location;
    }

    /// Frees the slot of a live entity; its handle becomes stale.
    #[inline]
    pub(crate) fn free(&mut self, entity: Entity) {
        let meta = &mut self.meta[entity.index as usize];
        debug_assert_eq!(meta.generation, entity.generation);
        meta.location = Location::FREE;
        self.live -= 1;
        // A slot whose generation would overflow is retired instead of reused, so an
        // old handle can never match a new entity.
        let mut next = meta.generation.checked_add(1);
        if !self.revived.is_empty()
            && let Some(issued) = self.revived.remove(&entity.index)
        {
            next = next.map(|next| next.max(issued));
        }
        if let Some(next) = next {
            meta.generation = next;
            self.free.push(entity.index);
        }
    }

    /// The live entity in slot `index`, if any.
    #[inline]
    pub(crate) fn in_slot(&self, index: u32) -> Option<Entity> {
        let meta = self.meta.get(index as usize)?;
        (meta.location.archetype != ArchetypeId::INVALID).then(|| Entity::new(index, meta.generation))
    }

    /// Makes `entity`, freed earlier, alive again under its own handle at `location`,
    /// or returns `false` (changing nothing) if its slot is taken or retired, or the
    /// handle was never issued. Handles the slot issued after `entity` stay stale for good: the
    /// slot's next generation, once `entity` is freed again, is past all of them.
    ///
    /// O(slots freed since `entity` was): the slot is looked for from the free
    /// list's end, where the slots freed last are. Reserved handles must be flushed.
    pub(crate) fn revive(&mut self, entity: Entity, location: Location) -> bool {
        debug_assert!(!self.has_reserved(), "ripple: flush reserved entities first");
        let Some(meta) = self.meta.get(entity.index as usize) else { return false };
        if meta.location.archetype != ArchetypeId::INVALID || meta.generation <= entity.generation {
            return false;
        }
        let issued = meta.generation;
        // A retired slot is on no free list, and stays retired.
        let Some(at) = self.free.iter().rposition(|&index| index == entity.index) else { return false };
        self.free.remove(at);
        let meta = &mut self.meta[entity.index as usize];
        meta.generation = entity.generation;
        meta.location = location;
        self.live += 1;
        let entry = self.revived.entry(entity.index).or_insert(issued);
        *entry = (*entry).max(issued);
        true
    }

    /// Test hook: jumps a free slot's generation so retirement can be tested without
    /// 2^32 spawns.
    #[cfg(test)]
    pub(crate) fn set_generation_for_test(&mut self, index: u32, generation: NonZeroU32) {
        self.meta[index as usize].generation = generation;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn here() -> Location {
        Location { archetype: ArchetypeId::EMPTY, row: Row(0) }
    }

    #[test]
    fn bits_round_trip() {
        let e = Entity::new(7, NonZeroU32::new(3).unwrap());
        assert_eq!(Entity::from_bits(e.to_bits()), Some(e));
        assert_eq!(Entity::from_bits(7), None);
        assert_eq!(format!("{e}"), "7v3");
    }

    #[test]
    fn freed_slot_is_reused_with_new_generation() {
        let mut entities = Entities::default();
        let a = entities.alloc(here());
        entities.free(a);
        assert_eq!(entities.get(a), None);
        let b = entities.alloc(here());
        assert_eq!(a.index(), b.index());
        assert_ne!(a.generation(), b.generation());
        assert!(entities.get(b).is_some());
        assert_eq!(entities.len(), 1);
    }

    #[test]
    fn exhausted_generation_retires_slot() {
        let mut entities = Entities::default();
        let a = entities.alloc(here());
        entities.free(a);
        entities.set_generation_for_test(a.index(), NonZeroU32::MAX);
        let b = entities.alloc(here());
        assert_eq!(b.generation(), u32::MAX);
        entities.free(b);
        let c = entities.alloc(here());
        assert_ne!(c.index(), b.index(), "a slot at the last generation must not be reused");
        assert_eq!(entities.get(b), None);
    }

    #[test]
    fn reserved_handles_reuse_free_slots_then_fresh_ones_and_come_alive_on_flush() {
        let mut entities = Entities::default();
        let a = entities.alloc(here());
        let b = entities.alloc(here());
        entities.free(a);
        entities.free(b);
        // Free list is [a, b]: `alloc` would pop b first, so reservations take b, a,
        // then fresh slots.
        let reserved: Vec<Entity> = (0..4).map(|_| entities.reserve_entity()).collect();
        assert_eq!(reserved[0].index(), b.index());
        assert_eq!(reserved[1].index(), a.index());
        assert_ne!(reserved[0], b, "a reused slot gets the next generation");
        assert_eq!((reserved[2].index(), reserved[3].index()), (2, 3));
        assert!(reserved.iter().all(|&e| entities.get(e).is_none()), "not alive before the flush");
        let mut placed = Vec::new();
        entities.flush_reserved(|e| {
            placed.push(e);
            here()
        });
        assert_eq!(placed, reserved, "flushed in reservation order, as the same handles");
        assert!(reserved.iter().all(|&e| entities.get(e) == Some(here())));
        assert_eq!(entities.len(), 4);
        assert!(!entities.has_reserved());
    }
}
