//! Peer handles: the names a peer knows entities by.
//!
//! A peer never sees the sending world's entity handles: their slot indices would tell
//! it how many entities exist, and their generations how often slots were reused. Each
//! peer gets handles of its own instead, given out as it first hears of an entity (a
//! record about it, or a value in view that refers to it): slot indices from 0 up, at
//! generation 1, so a peer handle tells the peer only how many entities it was told
//! of. A slot is reused, at the next generation, once the peer acknowledged a delta
//! that told it the entity is gone; until then the entity keeps its handle, out of
//! view or not, so it comes back to the peer as the same entity.
//!
//! Memory is O(entities the peer holds or was told of and has not yet heard the end
//! of): [`sweep`](PeerHandles::sweep) finds, a few slots per delta, the despawned
//! entities no journal touch reported (those only ever referred to), so they are sent
//! as gone and their slots come back.

use std::num::NonZeroU32;

use crate::entity::Entity;
use crate::entity_serde::rename::Rename;
use crate::scene::EntityMap;
use crate::world::World;

/// One peer handle slot.
#[derive(Clone, Copy)]
struct Slot {
    /// The generation of the slot's current (or next) handle.
    generation: NonZeroU32,
    /// The sending world's entity the handle names, if the slot is in use.
    entity: Option<Entity>,
    /// Found despawned by a sweep, and listed to be sent as gone.
    listed_dead: bool,
    /// The peer was sent the entity whole at least once (it may hold a replica, not
    /// only a stand-in).
    sent_whole: bool,
}

/// The handles one peer knows entities by, both ways.
#[derive(Default)]
pub(crate) struct PeerHandles {
    /// The sending world's entity → its peer handle.
    forward: EntityMap,
    /// Per peer handle slot index.
    slots: Vec<Slot>,
    /// Slot indices free for reuse.
    free: Vec<u32>,
    /// Where the next sweep starts.
    sweep_at: usize,
}

impl PeerHandles {
    /// The handle `entity` has, if it has one.
    #[inline]
    pub(crate) fn get(&self, entity: Entity) -> Option<Entity> {
        self.forward.get(entity)
    }

    /// The handle `entity` has, given one if it has none.
    pub(crate) fn get_or_assign(&mut self, entity: Entity) -> Entity {
        if let Some(handle) = self.forward.get(entity) {
            return handle;
        }
        let index = match self.free.pop() {
            Some(index) => index,
            None => {
                let index = u32::try_from(self.slots.len()).expect("ripple: more than 2^32 peer handles");
                self.slots.push(Slot {
                    generation: NonZeroU32::MIN,
                    entity: None,
                    listed_dead: false,
                    sent_whole: false,
                });
                index
            }
        };
        let slot = &mut self.slots[index as usize];
        slot.entity = Some(entity);
        slot.listed_dead = false;
        slot.sent_whole = false;
        let handle = Entity::new(index, slot.generation);
        self.forward.insert(entity, handle);
        handle
    }

    /// Records that `entity` (which has a handle) was sent whole.
    pub(crate) fn mark_sent_whole(&mut self, handle: Entity) {
        if let Some(slot) = self.slots.get_mut(handle.index() as usize) {
            slot.sent_whole = true;
        }
    }

    /// Whether `entity` has a handle and was sent whole at least once.
    pub(crate) fn sent_whole(&self, entity: Entity) -> bool {
        self.forward.get(entity).is_some_and(|handle| self.slots[handle.index() as usize].sent_whole)
    }

    /// The sending world's entity that `handle` names, if it names one now.
    pub(crate) fn entity_of(&self, handle: Entity) -> Option<Entity> {
        let slot = self.slots.get(handle.index() as usize)?;
        (slot.generation.get() == handle.generation()).then_some(slot.entity).flatten()
    }

    /// Frees `entity`'s handle (the peer acknowledged that it is gone); its slot is
    /// reused at the next generation.
    pub(crate) fn release(&mut self, entity: Entity) {
        let Some(handle) = self.forward.remove(entity) else { return };
        let slot = &mut self.slots[handle.index() as usize];
        slot.entity = None;
        slot.listed_dead = false;
        // A slot whose generations are spent is never reused.
        if let Some(next) = slot.generation.checked_add(1) {
            slot.generation = next;
            self.free.push(handle.index());
        }
    }

    /// Looks at up to `budget` slots, from where the last sweep stopped, for entities
    /// despawned in `world`; appends each one found to `dead` (once).
    pub(crate) fn sweep(&mut self, world: &World, budget: usize, dead: &mut Vec<Entity>) {
        let len = self.slots.len();
        if len == 0 {
            return;
        }
        for _ in 0..budget.min(len) {
            if self.sweep_at >= len {
                self.sweep_at = 0;
            }
            let slot = &mut self.slots[self.sweep_at];
            self.sweep_at += 1;
            if let Some(entity) = slot.entity
                && !slot.listed_dead
                && !world.contains(entity)
            {
                slot.listed_dead = true;
                dead.push(entity);
            }
        }
    }

    /// Slots in use.
    pub(crate) fn len(&self) -> usize {
        self.forward.len()
    }

    /// Bytes held.
    pub(crate) fn bytes(&self) -> usize {
        self.slots.capacity() * size_of::<Slot>() + self.free.capacity() * 4 + self.forward.bytes()
    }
}

impl Rename for PeerHandles {
    fn rename(&mut self, entity: Entity) -> Entity {
        self.get_or_assign(entity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn handles_count_from_zero_and_reuse_slots_at_the_next_generation() {
        let mut world = World::new();
        let a = world.spawn(());
        for _ in 0..10 {
            world.spawn(());
        }
        let b = world.spawn(());
        let mut handles = PeerHandles::default();
        let ha = handles.get_or_assign(a);
        let hb = handles.get_or_assign(b);
        assert_eq!((ha.index(), ha.generation(), hb.index()), (0, 1, 1), "the peer's own numbering");
        assert_eq!(handles.get_or_assign(b), hb);
        assert_eq!(handles.entity_of(hb), Some(b));
        world.despawn(a).unwrap();
        let mut dead = Vec::new();
        handles.sweep(&world, 10, &mut dead);
        handles.sweep(&world, 10, &mut dead);
        assert_eq!(dead, vec![a], "listed once");
        handles.release(a);
        assert_eq!(handles.entity_of(ha), None, "a released handle names nothing");
        let c = world.spawn(());
        let hc = handles.get_or_assign(c);
        assert_eq!((hc.index(), hc.generation()), (0, 2));
        assert_eq!(handles.entity_of(ha), None, "the old generation stays dead");
        assert_eq!(handles.len(), 2);
    }
}
