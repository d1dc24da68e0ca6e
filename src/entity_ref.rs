//! A read-only view of one entity.

use crate::component::{Component, ComponentId};
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

    /// Whether the entity has component `id` (typed or registered at run time).
    #[inline]
    pub fn contains_id(&self, id: ComponentId) -> bool {
        match self.world.sparse.get(id) {
            Some(set) => set.contains(self.entity),
            None => self.world.archetypes.get(self.location.archetype).has(id),
        }
    }

    /// The entity's `T`, if it has one.
    #[inline]
    pub fn get<T: Component>(&self) -> Option<&'w T> {
        self.world.get::<T>(self.entity).ok()
    }

    /// Several of the entity's components at once, if it has them all: `R` is a tuple
    /// of component references, `(&A, &B)`, up to 12 (bevy_ecs's
    /// `EntityRef::get_components`).
    ///
    /// ```
    /// use ripple::World;
    /// struct Pos(f32);
    /// struct Vel(f32);
    /// let mut world = World::new();
    /// let e = world.spawn((Pos(1.0), Vel(2.0)));
    /// let (pos, vel) = world.entity(e).unwrap().get_components::<(&Pos, &Vel)>().unwrap();
    /// assert_eq!(pos.0 + vel.0, 3.0);
    /// ```
    pub fn get_components<R: ComponentRefs>(&self) -> Option<R::Item<'w>> {
        R::get_from(self)
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

/// References to components that [`EntityRef::get_components`] can hand out
/// together: `&T` for a component `T`, and tuples of them (up to 12).
pub trait ComponentRefs {
    /// The references, borrowed from the world for `'w`.
    type Item<'w>;
    /// The references into `entity`'s components, if it has them all.
    fn get_from<'w>(entity: &EntityRef<'w>) -> Option<Self::Item<'w>>;
}

impl<T: Component> ComponentRefs for &T {
    type Item<'w> = &'w T;
    #[inline]
    fn get_from<'w>(entity: &EntityRef<'w>) -> Option<&'w T> {
        entity.get::<T>()
    }
}

macro_rules! impl_component_refs {
    ($($name:ident),*) => {
        impl<$($name: ComponentRefs),*> ComponentRefs for ($($name,)*) {
            type Item<'w> = ($($name::Item<'w>,)*);
            #[inline]
            fn get_from<'w>(entity: &EntityRef<'w>) -> Option<Self::Item<'w>> {
                let _ = entity;
                Some(($($name::get_from(entity)?,)*))
            }
        }
    };
}

crate::util::tuples::for_each_tuple_prefix!(impl_component_refs; A, B, C, D, E, F, G, H, I, J, K, L);
