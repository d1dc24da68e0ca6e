//! Relation changes as deferred commands. A refused change is recorded as a failed
//! command ([`World::failed_commands`]) and changes nothing.

use crate::bundle::Bundle;
use crate::commands::{Commands, EntityCommands};
use crate::entity::Entity;
use crate::entity_mut::EntityMut;
use crate::error::{CommandError, CommandFailure};
use crate::relation::{ChildSpawner, ChildSpawnerCommands, QueueLink, WorldLink};
use crate::world::World;

use super::HierarchyError;

fn record(world: &mut World, command: &'static str, error: HierarchyError) {
    world.record_failed_command(CommandError { command, error: CommandFailure::Hierarchy(error) });
}

impl Commands<'_, '_> {
    /// Queues [`World::set_parent`].
    pub fn set_parent(&mut self, child: Entity, parent: Entity) {
        self.add(move |world: &mut World| {
            if let Err(error) = world.set_parent(child, parent) {
                record(world, "set_parent", error);
            }
        });
    }

    /// Queues [`World::remove_parent`].
    pub fn remove_parent(&mut self, child: Entity) {
        self.add(move |world: &mut World| {
            if let Err(error) = world.remove_parent(child) {
                record(world, "remove_parent", error);
            }
        });
    }

    /// Queues [`World::detach_children`].
    pub fn detach_children(&mut self, parent: Entity) {
        self.add(move |world: &mut World| {
            if let Err(error) = world.detach_children(parent) {
                record(world, "detach_children", error);
            }
        });
    }

    /// Queues spawning an entity with `bundle` as the last child of `parent`, and
    /// returns its handle, reserved now. If `parent` is gone when the command applies,
    /// the entity is spawned as a root and the refusal is recorded.
    pub fn spawn_child<B: Bundle>(&mut self, parent: Entity, bundle: B) -> Entity {
        let child = self.spawn(bundle);
        self.set_parent(child, parent);
        child
    }
}

impl EntityCommands<'_, '_, '_> {
    /// Queues attaching the entity to `parent` ([`World::set_parent`]).
    pub fn set_parent(&mut self, parent: Entity) -> &mut Self {
        let child = self.id();
        self.commands().set_parent(child, parent);
        self
    }

    /// Queues detaching the entity from its parent ([`World::remove_parent`]).
    pub fn remove_parent(&mut self) -> &mut Self {
        let child = self.id();
        self.commands().remove_parent(child);
        self
    }

    /// Queues detaching the entity's children ([`World::detach_children`]).
    pub fn detach_children(&mut self) -> &mut Self {
        let parent = self.id();
        self.commands().detach_children(parent);
        self
    }
}

/// bevy_ecs's builders for children, on the same spawner as `with_related`.
impl EntityCommands<'_, '_, '_> {
    /// Queues spawning the children `spawn` asks for, each the last child of this
    /// entity when its command applies (as [`Commands::spawn_child`]).
    ///
    /// ```
    /// use ripple::{CommandQueue, World};
    /// struct Ship;
    /// struct Gun(u32);
    /// let mut world = World::new();
    /// let mut queue = CommandQueue::default();
    /// let mut commands = queue.commands(&world);
    /// let ship = commands.spawn((Ship,));
    /// commands.entity(ship).with_children(|parent| {
    ///     parent.spawn((Gun(1),));
    ///     parent.spawn((Gun(2),));
    /// });
    /// queue.apply(&mut world);
    /// assert_eq!(world.children(ship).unwrap().len(), 2);
    /// ```
    pub fn with_children(&mut self, spawn: impl FnOnce(&mut ChildSpawnerCommands<'_, '_, '_>)) -> &mut Self {
        let parent = self.id();
        spawn(&mut ChildSpawnerCommands::new(self.commands(), parent, queue_set_parent as QueueLink));
        self
    }

    /// Queues making `child` the last child of this entity (bevy_ecs's `add_child`;
    /// [`Commands::set_parent`] from the child).
    pub fn add_child(&mut self, child: Entity) -> &mut Self {
        let parent = self.id();
        self.commands().set_parent(child, parent);
        self
    }

    /// Queues making `children` the last children of this entity, in order
    /// ([`World::add_children`]; all or nothing, a refusal is a failed command).
    pub fn add_children(&mut self, children: &[Entity]) -> &mut Self {
        let parent = self.id();
        let children = children.to_vec();
        self.commands().add(move |world: &mut World| {
            if let Err(error) = world.add_children(parent, &children) {
                record(world, "add_children", error);
            }
        });
        self
    }

    /// Queues spawning one child with `bundle` (as [`Commands::spawn_child`]).
    pub fn with_child<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        let parent = self.id();
        self.commands().spawn_child(parent, bundle);
        self
    }
}

fn queue_set_parent(commands: &mut Commands<'_, '_>, child: Entity, parent: Entity) {
    commands.set_parent(child, parent);
}

fn set_parent_now(world: &mut World, child: Entity, parent: Entity) {
    if let Err(error) = world.set_parent(child, parent) {
        record(world, "with_children", error);
    }
}

/// bevy_ecs's builders for children on a world's entity view.
impl EntityMut<'_> {
    /// Spawns the children `spawn` asks for, each the last child of this entity.
    ///
    /// ```
    /// use ripple::World;
    /// struct Ship;
    /// struct Gun(u32);
    /// let mut world = World::new();
    /// let ship = world.spawn((Ship,));
    /// world.entity_mut(ship).unwrap().with_children(|parent| {
    ///     let gun = parent.spawn((Gun(1),)).id();
    ///     assert_eq!(parent.target_entity(), ship);
    ///     # let _ = gun;
    /// });
    /// assert_eq!(world.children(ship).unwrap().len(), 1);
    /// ```
    pub fn with_children(&mut self, spawn: impl FnOnce(&mut ChildSpawner<'_>)) -> &mut Self {
        let parent = self.id();
        spawn(&mut ChildSpawner::new(self.world(), parent, set_parent_now as WorldLink));
        self
    }

    /// Spawns one child with `bundle`, the last child of this entity.
    pub fn with_child<B: Bundle>(&mut self, bundle: B) -> &mut Self {
        let parent = self.id();
        ChildSpawner::new(self.world(), parent, set_parent_now as WorldLink).spawn(bundle);
        self
    }
}
