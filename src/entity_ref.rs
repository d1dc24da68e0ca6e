//! A read-only view of one entity.

use crate::component::Component;
use crate::entity::{Entity, Location};
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
        let Some(c) = self.world.components.id::<T>() else { return false };
        match self.world.sparse.get(c) {
            Some(set) => set.contains(self.entity),
            None => self.world.archetypes.get(self.location.archetype).has(c),
        }
    }

    /// The entity's `T`, if it has one.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&'w T> {
        self.world.get::<T>(self.entity).ok()
    }

    /// The type names of the entity's components, in no particular order.
    pub fn component_names(&self) -> impl Iterator<Item = &'static str> + 'w {
        let world = self.world;
        let entity = self.entity;
        let table = world.archetypes.get(self.location.archetype).components().iter().copied();
        let sparse = world
            .sparse
            .ids()
            .iter()
            .copied()
            .filter(move |&c| world.sparse.get(c).is_some_and(|s| s.contains(entity)));
        table.chain(sparse).map(|c| world.components.info(c).name)
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
