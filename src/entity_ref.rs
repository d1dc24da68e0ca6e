//! A read-only view of one entity.

use crate::component::Component;
use crate::entity::{Entity, Location};
use crate::storage::downcast;
use crate::world::World;

/// A read-only view of a live entity, from [`World::entity`].
#[derive(Clone, Copy)]
pub struct EntityRef<'w> {
    world: &'w World,
    entity: Entity,
    location: Location,
}

impl<'w> EntityRef<'w> {
    pub(crate) fn new(world: &'w World, entity: Entity, location: Location) -> Self {
        EntityRef { world, entity, location }
    }

    /// The entity's handle.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Whether the entity has a component of type `T`.
    #[inline]
    pub fn has<T: Component>(&self) -> bool {
        self.world.components.id::<T>().is_some_and(|c| self.world.archetypes.get(self.location.archetype).has(c))
    }

    /// The entity's `T`, if it has one.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&'w T> {
        let table = self.world.archetypes.get(self.location.archetype);
        let column = table.column_index(self.world.components.id::<T>()?)?;
        Some(downcast::<T>(table.column(column)).get(self.location.row.index()))
    }

    /// The type names of the entity's components, in no particular order.
    pub fn component_names(&self) -> impl Iterator<Item = &'static str> + 'w {
        let components = &self.world.components;
        self.world.archetypes.get(self.location.archetype).components().iter().map(|&c| components.info(c).name)
    }
}

impl std::fmt::Debug for EntityRef<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntityRef")
            .field("entity", &self.entity)
            .field("components", &self.component_names().collect::<Vec<_>>())
            .finish()
    }
}
