//! Relation changes as deferred commands. A refused change is recorded as a failed
//! command ([`World::failed_commands`]) and changes nothing.

use crate::bundle::Bundle;
use crate::commands::{Commands, EntityCommands};
use crate::entity::Entity;
use crate::error::{CommandError, CommandFailure};
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
