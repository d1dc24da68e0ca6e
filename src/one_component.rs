//! One-component forms of insert and remove, taking the component itself instead of a
//! one-element tuple: `world.insert_one(e, Shield)` for `world.insert(e, (Shield,))`.

use crate::commands::Commands;
use crate::component::Component;
use crate::entity::Entity;
use crate::error::{ComponentError, NoSuchEntity};
use crate::world::World;

impl World {
    /// Adds `component` to `entity`, replacing (and dropping) the one it had: the
    /// one-component form of [`World::insert`].
    ///
    /// ```
    /// use ripple::World;
    /// struct Shield(u32);
    /// let mut world = World::new();
    /// let ship = world.spawn(());
    /// world.insert_one(ship, Shield(3)).unwrap();
    /// assert_eq!(world.remove_one::<Shield>(ship).unwrap().0, 3);
    /// ```
    ///
    /// # Errors
    /// [`NoSuchEntity`] if the entity is not alive; nothing changes and the component is
    /// dropped.
    #[inline]
    pub fn insert_one<T: Component>(&mut self, entity: Entity, component: T) -> Result<(), NoSuchEntity> {
        self.insert(entity, (component,))
    }

    /// Removes `entity`'s `T` and returns it: the one-component form of
    /// [`World::remove`].
    ///
    /// # Errors
    /// [`ComponentError::NoSuchEntity`] if the entity is not alive,
    /// [`ComponentError::MissingComponent`] if it has no `T`; nothing changes.
    #[inline]
    pub fn remove_one<T: Component>(&mut self, entity: Entity) -> Result<T, ComponentError> {
        self.remove::<(T,)>(entity).map(|(component,)| component)
    }
}

impl Commands<'_, '_> {
    /// Queues adding `component` to `entity`: the one-component form of
    /// [`Commands::insert`].
    pub fn insert_one<T: Component>(&mut self, entity: Entity, component: T) {
        self.insert(entity, (component,));
    }

    /// Queues removing `entity`'s `T` (its value is dropped): the one-component form of
    /// [`Commands::remove`].
    pub fn remove_one<T: Component>(&mut self, entity: Entity) {
        self.remove::<(T,)>(entity);
    }
}
