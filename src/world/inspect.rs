//! What a tool sees of a world without knowing its types: the component types with
//! their storage, tracking and counts, the tables with their rows, and the memory the
//! world holds. Read-only; an inspector, a debugger or a metrics exporter builds on it.

use crate::component::{ComponentId, Storage};
use crate::entity::Entity;
use crate::storage::ArchetypeId;
use crate::world::World;
use crate::world::memory::BacklogMemory;

/// One component type of a world ([`World::component_summaries`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ComponentSummary {
    /// Its id in this world.
    pub id: ComponentId,
    /// Its type's name (a runtime component's own name).
    pub name: &'static str,
    /// Where its values live.
    pub storage: Storage,
    /// Whether its changes are recorded ([`World::track`]).
    pub tracked: bool,
    /// The size of one value in bytes.
    pub size: usize,
    /// How many entities have it now.
    pub entities: usize,
}

/// One table of a world: the entities with exactly one set of table components
/// ([`World::tables`]).
#[derive(Clone, Copy, Debug)]
pub struct TableSummary<'w> {
    /// The table's id.
    pub id: ArchetypeId,
    /// Its rows: the entities in it.
    pub rows: usize,
    /// The table components its entities have, in id order.
    pub components: &'w [ComponentId],
    /// Its entities, in row order.
    pub entities: &'w [Entity],
}

/// Bytes a world holds, by what they hold ([`World::memory`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WorldMemory {
    /// Component values: one value's size times the entities with it, per component
    /// (what the values take, not what the columns reserve).
    pub values: usize,
    /// Change tracking: per-row ticks and change summaries ([`World::tracking_bytes`]).
    pub tracking: usize,
    /// The entity records and free list (reserved).
    pub entities: usize,
    /// What the world keeps for change readers that have not caught up, and
    /// for failed commands ([`World::backlog_memory`]).
    pub backlog: BacklogMemory,
}

impl WorldMemory {
    /// All of it.
    pub fn total(&self) -> usize {
        self.values + self.tracking + self.entities + self.backlog.bytes()
    }
}

impl World {
    /// Every component type registered here, in id order.
    ///
    /// O(component types · tables): each count sums the tables holding the type.
    pub fn component_summaries(&self) -> impl Iterator<Item = ComponentSummary> + '_ {
        (0..self.components.len()).map(move |index| {
            let id = ComponentId(index as u32);
            let info = self.components.info(id);
            let entities = match info.storage {
                Storage::Table => self.archetypes.iter().filter(|t| t.has(id)).map(|t| t.len()).sum(),
                Storage::SparseSet => self.sparse.get(id).map_or(0, |set| set.len()),
            };
            ComponentSummary {
                id,
                name: info.name,
                storage: info.storage,
                tracked: info.tracked,
                size: info.size,
                entities,
            }
        })
    }

    /// Every table, empty ones included (tables are pooled, never freed), in id order.
    pub fn tables(&self) -> impl Iterator<Item = TableSummary<'_>> + '_ {
        self.archetypes.iter().map(|table| TableSummary {
            id: table.id(),
            rows: table.len(),
            components: table.components(),
            entities: table.entities(),
        })
    }

    /// The bytes this world holds, by what they hold.
    ///
    /// O(component types · tables + tracked columns).
    pub fn memory(&self) -> WorldMemory {
        WorldMemory {
            values: self.component_summaries().map(|c| c.size * c.entities).sum(),
            tracking: self.tracking_bytes(),
            entities: self.entities.heap_bytes(),
            backlog: self.backlog_memory(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::{Storage, World};

    struct Position(#[allow(dead_code, reason = "only its size matters")] [f32; 2]);
    struct Tag;

    #[test]
    fn summaries_count_what_the_world_holds() {
        let mut world = World::new();
        world.set_storage::<Tag>(Storage::SparseSet).unwrap();
        world.track::<Position>();
        for i in 0..10 {
            let e = world.spawn((Position([i as f32, 0.0]),));
            if i % 2 == 0 {
                world.insert(e, (Tag,)).unwrap();
            }
        }
        let position = world.component_summaries().find(|c| c.name.ends_with("Position")).unwrap();
        assert_eq!((position.entities, position.size, position.tracked), (10, 8, true));
        let tag = world.component_summaries().find(|c| c.name.ends_with("Tag")).unwrap();
        assert_eq!((tag.entities, tag.storage, tag.tracked), (5, Storage::SparseSet, false));
        let rows: usize = world.tables().map(|t| t.rows).sum();
        assert_eq!(rows, 10);
        let memory = world.memory();
        assert_eq!(memory.values, 80);
        assert!(memory.tracking > 0 && memory.entities >= 10 * 8);
        assert_eq!(memory.total(), memory.values + memory.tracking + memory.entities + memory.backlog.bytes());
    }
}
