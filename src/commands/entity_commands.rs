//! [`EntityCommands`]: [`Commands`] for one entity, from [`Commands::entity`].

use crate::bundle::Bundle;
use crate::component::Component;
use crate::entity::Entity;

use super::Commands;

/// Queues commands for one entity without repeating its handle; each applies (or is
/// recorded as failed) exactly as the [`Commands`] call it stands for.
///
/// ```
/// use ripple::{CommandQueue, World};
/// struct Hp(u32);
/// struct Stunned;
/// let mut world = World::new();
/// let mut queue = CommandQueue::default();
/// let mut commands = queue.commands(&world);
/// let hero = commands.spawn((Hp(10),));
/// commands.entity(hero).insert_one(Stunned).insert((Hp(9),)).remove_one::<Stunned>();
/// queue.apply(&mut world);
/// assert_eq!(world.get::<Hp>(hero).unwrap().0, 9);
/// assert!(world.get::<Stunned>(hero).is_err());
/// ```
pub struct EntityCommands<'c, 'w, 's> {
    commands: &'c mut Commands<'w, 's>,
    entity: Entity,
}

impl<'w, 's> EntityCommands<'_, 'w, 's> {
    /// The entity's handle.
    #[inline]
    pub fn id(&self) -> Entity {
        self.entity
    }

    /// The queue these commands go to.
    pub(crate) fn commands(&mut self) -> &mut Commands<'w, 's> {
        self.commands
    }

    /// Queues adding `bundle`'s components ([`Commands::insert`]).
    pub fn insert<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        self.commands.insert(self.entity, bundle);
        self
    }

    /// Queues adding one component ([`Commands::insert_one`]).
    pub fn insert_one<T: Component>(&mut self, component: T) -> &mut Self {
        self.commands.insert_one(self.entity, component);
        self
    }

    /// Queues removing `B`'s components ([`Commands::remove`]).
    pub fn remove<B: Bundle>(&mut self) -> &mut Self {
        self.commands.remove::<B>(self.entity);
        self
    }

    /// Queues removing the entity's `T` ([`Commands::remove_one`]).
    pub fn remove_one<T: Component>(&mut self) -> &mut Self {
        self.commands.remove_one::<T>(self.entity);
        self
    }

    /// Queues despawning the entity ([`Commands::despawn`]).
    pub fn despawn(&mut self) {
        self.commands.despawn(self.entity);
    }
}

impl<'w, 's> Commands<'w, 's> {
    /// Commands for `entity` (see [`EntityCommands`]). Whether it is alive is checked
    /// when each command applies.
    pub fn entity(&mut self, entity: Entity) -> EntityCommands<'_, 'w, 's> {
        EntityCommands { commands: self, entity }
    }
}
