//! Which entity lives in each slot, as of the newest checkpoint, and per checkpoint
//! the slots whose occupant changed (spawns and despawns).
//!
//! A slot's state is the generation of its live entity, or 0 when it is free, so the
//! shadow costs 4 bytes per slot and a record 8 bytes per spawn or despawn.

use std::num::NonZeroU32;

use crate::change::log::Cursor;
use crate::entity::Entity;
use crate::storage::ArchetypeId;
use crate::world::World;

use super::ring::Ring;
use super::track::{Moved, Touched};

/// Swaps `record`'s generations into `shadow`, writing those they replaced into
/// `replaced` and listing the slots in `touched`.
fn swap_in(shadow: &mut [u32], touched: &mut Touched, record: &mut [(u32, u32)], replaced: &mut Vec<(u32, u32)>) {
    for &(slot, generation) in record.iter() {
        replaced.push((slot, std::mem::replace(&mut shadow[slot as usize], generation)));
        touched.add(slot);
    }
}

/// The existence of entities, tracked by slot.
pub(crate) struct Existence {
    /// The world's structural log, read at each capture (an exact reader: it keeps
    /// every entry until read).
    cursor: Cursor,
    /// Per slot, the generation of its entity as of the newest checkpoint (0: none).
    shadow: Vec<u32>,
    /// One record per kept frame: `(slot, generation before)`.
    ring: Ring<Vec<(u32, u32)>>,
    /// Slots the last unwind touched.
    touched: Touched,
    /// Whether the last unwind or redo touched a slot.
    moved: bool,
    /// The tables that lost rows since the capture before the last.
    shrunk: Vec<ArchetypeId>,
}

/// What writing the existence of a frame back did.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Respawned {
    pub(crate) despawned: usize,
    pub(crate) revived: usize,
    pub(crate) lost: usize,
}

impl Existence {
    /// The world's entities as they are now. O(slots).
    pub(crate) fn new(world: &mut World) -> Existence {
        world.flush();
        let cursor = world.moves.register_exact();
        let mut shadow = vec![0; world.entities.slots()];
        for (entity, _) in world.entities.iter_alive() {
            shadow[entity.index() as usize] = entity.generation();
        }
        Existence {
            cursor,
            shadow,
            ring: Ring::default(),
            touched: Touched::default(),
            moved: false,
            shrunk: Vec::new(),
        }
    }

    /// The entity slot `slot` held as of the newest checkpoint (after an unwind: as of
    /// the frame unwound to).
    #[inline]
    pub(crate) fn desired(&self, slot: u32) -> Option<Entity> {
        let generation = NonZeroU32::new(*self.shadow.get(slot as usize)?)?;
        Some(Entity::new(slot, generation))
    }

    /// Bytes of the shadow.
    pub(crate) fn shadow_bytes(&self) -> usize {
        self.shadow.capacity() * 4
    }

    /// Reads the spawns and despawns since the last capture into a new record.
    /// O(structural changes since then).
    pub(crate) fn capture(&mut self, world: &World) {
        let mut record = self.ring.fresh();
        self.shrunk.clear();
        let read = world.moves.read(&self.cursor);
        debug_assert_eq!(read.missed, 0, "an exact reader misses nothing");
        for mv in read.entries {
            if mv.sparse_component().is_some() {
                continue;
            }
            if let Some(from) = mv.from
                && !self.shrunk.contains(&from)
            {
                self.shrunk.push(from);
            }
            if mv.from.is_some() && mv.to.is_some() {
                continue;
            }
            let slot = mv.entity.index();
            let now = world.entity_in_slot(slot).map_or(0, Entity::generation);
            if slot as usize >= self.shadow.len() {
                self.shadow.resize(slot as usize + 1, 0);
            }
            let before = std::mem::replace(&mut self.shadow[slot as usize], now);
            if before != now {
                record.push((slot, before));
            }
        }
        self.ring.push(record);
    }

    /// What the last capture found: the slots whose entity changed, with the
    /// generation before, and the tables that lost rows.
    pub(crate) fn moved(&self) -> Moved<'_> {
        Moved { reoccupied: self.ring.newest().map_or(&[], Vec::as_slice), shrunk: &self.shrunk }
    }

    pub(crate) fn newest_is_empty(&self) -> bool {
        self.ring.newest_is_empty()
    }

    /// See [`Track::unwind`](super::track::Track::unwind).
    pub(crate) fn unwind(&mut self, n: usize, keep: bool) {
        self.moved = self.ring.newest_n(n).any(|record| !record.is_empty());
        let (shadow, touched) = (&mut self.shadow, &mut self.touched);
        if keep {
            self.ring.undo_kept(n, |record, replaced| swap_in(shadow, touched, record, replaced));
            return;
        }
        // Oldest record first: a slot's entity as of the frame returned to is the one the
        // oldest record holding the slot kept.
        for record in self.ring.newest_mut(n) {
            for &(slot, generation) in record.iter() {
                if touched.add(slot) {
                    shadow[slot as usize] = generation;
                }
            }
        }
        self.ring.drop_newest(n);
    }

    /// The entity slot `slot` held as of the frame the last unwind or redo returned to,
    /// once the despawns and revivals are done: read from the world where no entity
    /// was spawned or despawned since that frame (the world's entity list is loaded
    /// anyway by whoever writes the slot's values), else from the shadow.
    #[inline]
    pub(crate) fn restored(&self, world: &World, slot: u32) -> Option<Entity> {
        if self.moved { self.desired(slot) } else { world.entity_in_slot(slot) }
    }

    /// See [`Track::redo`](super::track::Track::redo).
    pub(crate) fn redo(&mut self) {
        self.moved = self.ring.next_redo().is_some_and(|record| !record.is_empty());
        let (shadow, touched) = (&mut self.shadow, &mut self.touched);
        self.ring.redo(|record, replaced| swap_in(shadow, touched, record, replaced));
    }

    pub(crate) fn clear_redo(&mut self) {
        self.ring.clear_redo();
    }

    pub(crate) fn forget_oldest(&mut self) {
        self.ring.forget_oldest();
    }

    /// Despawns the entities alive in touched slots that the shadow does not hold.
    /// Runs after relations that differ were taken off, so that no despawn reaches an
    /// entity the frame keeps through a relation's despawn policy.
    pub(crate) fn despawn_extra(&mut self, world: &mut World, done: &mut Respawned) {
        for &slot in self.touched.slots() {
            if let Some(now) = world.entity_in_slot(slot)
                && self.desired(slot) != Some(now)
                && world.despawn(now).is_ok()
            {
                done.despawned += 1;
            }
        }
    }

    /// Brings back, under their own handles and with no components yet, the entities
    /// the shadow holds in touched slots that are not alive; then forgets the touched
    /// slots.
    pub(crate) fn revive_missing(&mut self, world: &mut World, done: &mut Respawned) {
        for &slot in self.touched.slots() {
            let Some(wanted) = NonZeroU32::new(self.shadow[slot as usize]).map(|g| Entity::new(slot, g)) else {
                continue;
            };
            if world.entity_in_slot(slot) == Some(wanted) {
                continue;
            }
            if world.revive(wanted) {
                done.revived += 1;
            } else {
                done.lost += 1;
            }
        }
        self.touched.clear();
    }

    /// Bytes held by records in use, and by every record buffer.
    pub(crate) fn record_bytes(&self) -> (usize, usize) {
        let entry = size_of::<(u32, u32)>();
        let recorded = self.ring.in_use().map(|r| r.len() * entry).sum();
        let reserved = self.ring.all().map(|r| r.capacity() * entry).sum();
        (recorded, reserved)
    }
}
