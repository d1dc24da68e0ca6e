//! [`EntityMut`]: a mutable view of one entity, from [`World::entity_mut`].

use crate::bundle::Bundle;
use crate::change::Mut;
use crate::component::Component;
use crate::entity::Entity;
use crate::entity_ref::EntityRef;
use crate::error::{ComponentError, NoSuchEntity};
use crate::world::World;

/// A mutable view of one entity: read, write, add and remove its components without
/// repeating its handle.
///
/// Each call looks the entity up again, since a hook run by an insert or remove may
/// despawn it: calls on an entity that is gone return [`NoSuchEntity`] (inside
/// [`ComponentError`] where a component is also asked for) and change nothing.
///
/// ```
/// use ripple::World;
/// struct Hp(u32);
/// struct Shield;
/// let mut world = World::new();
/// let hero = world.spawn((Hp(10),));
/// let mut view = world.entity_mut(hero).unwrap();
/// view.insert_one(Shield)?.get_mut::<Hp>()?.0 -= 3;
/// assert!(view.has::<Shield>());
/// view.remove_one::<Shield>()?;
/// assert_eq!(view.get::<Hp>()?.0, 7);
/// view.despawn()?;
/// assert!(!world.contains(hero));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct EntityMut<'w> {
    world: &'w mut World,
    entity: Entity,
}

impl<'w> EntityMut<'w> {
    pub(crate) fn new(world: &'w mut World, entity: Entity) -> Self {
        EntityMut { world, entity }
    }

    /// The entity's handle.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// Whether the entity is still alive (a hook may have despawned it).
    pub fn is_alive(&self) -> bool {
        self.world.contains(self.entity)
    }

    /// Whether the entity is alive and has a `T`.
    pub fn has<T: Component>(&self) -> bool {
        self.world.entity(self.entity).is_ok_and(|entity| entity.has::<T>())
    }

    /// The entity's `T`.
    ///
    /// # Errors
    /// As [`World::get`].
    pub fn get<T: Component>(&self) -> Result<&T, ComponentError> {
        self.world.get::<T>(self.entity)
    }

    /// The entity's `T`, mutably; a write marks it changed if `T` is tracked.
    ///
    /// # Errors
    /// As [`World::get_mut`].
    pub fn get_mut<T: Component>(&mut self) -> Result<Mut<'_, T>, ComponentError> {
        self.world.get_mut::<T>(self.entity)
    }

    /// A read-only view of the entity.
    ///
    /// # Errors
    /// [`NoSuchEntity`] if it is gone.
    pub fn as_readonly(&self) -> Result<EntityRef<'_>, NoSuchEntity> {
        self.world.entity(self.entity)
    }

    /// Adds `bundle`'s components, replacing those it already has ([`World::insert`]).
    ///
    /// # Errors
    /// [`NoSuchEntity`] if it is gone; nothing changes and the bundle is dropped.
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> Result<&mut Self, NoSuchEntity> {
        self.world.insert(self.entity, bundle)?;
        Ok(self)
    }

    /// Adds one component, replacing the one it had ([`World::insert_one`]).
    ///
    /// # Errors
    /// As [`insert`](Self::insert).
    pub fn insert_one<T: Component>(&mut self, component: T) -> Result<&mut Self, NoSuchEntity> {
        self.world.insert_one(self.entity, component)?;
        Ok(self)
    }

    /// Removes `B`'s components and returns them ([`World::remove`]).
    ///
    /// # Errors
    /// As [`World::remove`]; nothing changes.
    pub fn remove<B: Bundle>(&mut self) -> Result<B, ComponentError> {
        self.world.remove::<B>(self.entity)
    }

    /// Removes the entity's `T` and returns it ([`World::remove_one`]).
    ///
    /// # Errors
    /// As [`World::remove_one`]; nothing changes.
    pub fn remove_one<T: Component>(&mut self) -> Result<T, ComponentError> {
        self.world.remove_one::<T>(self.entity)
    }

    /// Despawns the entity ([`World::despawn`]).
    ///
    /// # Errors
    /// [`NoSuchEntity`] if it is already gone.
    pub fn despawn(self) -> Result<(), NoSuchEntity> {
        self.world.despawn(self.entity)
    }

    /// The world, for what the view does not cover; the view's entity may not survive
    /// what is done with it.
    pub fn world(&mut self) -> &mut World {
        self.world
    }
}

impl std::fmt::Debug for EntityMut<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.world.entity(self.entity) {
            Ok(entity) => entity.fmt(f),
            Err(_) => f.debug_struct("EntityMut").field("entity", &self.entity).field("alive", &false).finish(),
        }
    }
}

impl World {
    /// A mutable view of `entity` (see [`EntityMut`]).
    ///
    /// # Errors
    /// [`NoSuchEntity`] if the entity is not alive.
    pub fn entity_mut(&mut self, entity: Entity) -> Result<EntityMut<'_>, NoSuchEntity> {
        self.flush_reserved();
        self.locate(entity)?;
        Ok(EntityMut::new(self, entity))
    }
}
