//! The world's entities as a set: counting them, finding them, reserving handles, and
//! flushing reserved ones.

use crate::change::Move;
use crate::entity::{Entity, Location};
use crate::error::NoSuchEntity;
use crate::storage::{ArchetypeId, Row};

use super::{World, WorldId};

impl World {
    #[inline]
    pub(crate) fn id(&self) -> WorldId {
        self.id
    }

    /// Number of live entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len() as usize
    }

    /// Whether the world has no entities.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of archetype tables created so far (they are pooled, never freed),
    /// including the table of entities with no components.
    #[inline]
    pub fn archetype_count(&self) -> usize {
        self.archetypes.len()
    }

    /// Whether `entity` is alive in this world.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.entities.get(entity).is_some()
    }

    #[inline]
    pub(crate) fn locate(&self, entity: Entity) -> Result<Location, NoSuchEntity> {
        self.entities.get(entity).ok_or(NoSuchEntity(entity))
    }

    /// The live entity in slot `index`, if any.
    pub(crate) fn entity_in_slot(&self, index: u32) -> Option<Entity> {
        self.entities.in_slot(index)
    }

    /// Brings `entity`, despawned earlier, back alive under its own handle with no
    /// components (logged as a spawn), or returns `false` if its slot is taken or
    /// retired. Handles its slot issued after it stay stale.
    pub(crate) fn revive(&mut self, entity: Entity) -> bool {
        self.flush_reserved();
        let table = self.archetypes.get_mut(ArchetypeId::EMPTY);
        let location = Location { archetype: ArchetypeId::EMPTY, row: Row(table.len() as u32) };
        if !self.entities.revive(entity, location) {
            return false;
        }
        table.entities.push(entity);
        self.moves.push(Move::between(entity, None, Some(ArchetypeId::EMPTY)));
        true
    }

    /// Hands out the handle of an entity that a command will spawn later; safe through
    /// a shared world. The entity is alive, with no components, from the next
    /// structural operation (or [`World::flush`]) on.
    pub fn reserve_entity(&self) -> Entity {
        self.entities.reserve_entity()
    }

    /// A sync point outside a schedule: makes every entity reserved with
    /// [`World::reserve_entity`] alive, with no components (every structural operation
    /// does this part first), then delivers what observers of changes are waiting for
    /// (see [`World::observe`]). A schedule's phases end with it, after their commands.
    pub fn flush(&mut self) {
        self.flush_reserved();
        self.react_at_sync_point();
    }

    /// Makes reserved entities alive (see [`World::reserve_entity`]); inlined, as every
    /// structural operation asks and almost always finds none.
    #[inline(always)]
    pub(crate) fn flush_reserved(&mut self) {
        self.flush_reserved_entities();
        if self.abandoned_spawns.any() {
            self.free_abandoned_spawns();
        }
    }

    /// Only the first half of [`flush_reserved`](Self::flush_reserved): for the middle
    /// of an operation (after its hooks ran), where freeing abandoned spawns would
    /// despawn inside it and reuse its scratch lists.
    #[inline(always)]
    pub(crate) fn flush_reserved_entities(&mut self) {
        if self.entities.has_reserved() {
            self.flush_reserved_now();
        }
    }

    /// Despawns the entities whose spawn commands were dropped unapplied (alive with
    /// no components once flushed): their handles go stale, as if never spawned.
    #[cold]
    fn free_abandoned_spawns(&mut self) {
        let mut abandoned = Vec::new();
        self.abandoned_spawns.take(&mut abandoned);
        for entity in abandoned {
            // Gone already if a command despawned it; and an entity that got components
            // some other way (its handle used directly) is no ghost.
            let empty = self.entity(entity).is_ok_and(|e| e.component_names().next().is_none());
            if empty {
                let _ = self.despawn(entity);
            }
        }
    }

    /// Puts every reserved entity into the empty table.
    #[cold]
    fn flush_reserved_now(&mut self) {
        let table = self.archetypes.get_mut(ArchetypeId::EMPTY);
        let moves = &mut self.moves;
        self.entities.flush_reserved(|entity| {
            let row = table.len();
            table.entities.push(entity);
            moves.push(Move::between(entity, None, Some(ArchetypeId::EMPTY)));
            Location { archetype: ArchetypeId::EMPTY, row: Row(row as u32) }
        });
    }
}
