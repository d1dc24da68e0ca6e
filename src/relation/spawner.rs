//! Builders that spawn entities already related to one target, bevy_ecs's spelling:
//! `with_related::<R>(bundle)` and `with_related_entities::<R>(|spawner| ..)` on
//! [`EntityCommands`] (queued) and on [`EntityMut`] (at once). The hierarchy's
//! `with_children` is the same builder with its own link.

use crate::bundle::Bundle;
use crate::commands::{Commands, EntityCommands};
use crate::entity::Entity;
use crate::entity_mut::EntityMut;
use crate::error::{CommandError, CommandFailure};
use crate::world::World;

use super::Relation;

/// How a queued spawner links a new entity to its target: queues the command.
pub(crate) type QueueLink = fn(&mut Commands<'_, '_>, Entity, Entity);
/// How a world spawner links a new entity to its target: at once, recording a refusal
/// as a failed command.
pub(crate) type WorldLink = fn(&mut World, Entity, Entity);

/// Spawns entities related to one target from commands, handed to the closure of
/// [`EntityCommands::with_related_entities`] (and, as [`ChildSpawnerCommands`], of
/// `with_children`). Each spawn is queued with its link; a link the world refuses when
/// it applies (the target despawned meanwhile) is a failed command.
pub struct RelatedSpawnerCommands<'c, 'w, 's> {
    commands: &'c mut Commands<'w, 's>,
    target: Entity,
    link: QueueLink,
}

/// bevy_ecs's name for the spawner `with_children` hands its closure.
pub type ChildSpawnerCommands<'c, 'w, 's> = RelatedSpawnerCommands<'c, 'w, 's>;

impl<'w, 's> RelatedSpawnerCommands<'_, 'w, 's> {
    pub(crate) fn new<'c>(
        commands: &'c mut Commands<'w, 's>,
        target: Entity,
        link: QueueLink,
    ) -> RelatedSpawnerCommands<'c, 'w, 's> {
        RelatedSpawnerCommands { commands, target, link }
    }

    /// Queues spawning an entity with `bundle`, related to the target; returns its
    /// commands (its handle is reserved now: `.id()`).
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityCommands<'_, 'w, 's> {
        let entity = self.commands.spawn(bundle);
        (self.link)(self.commands, entity, self.target);
        self.commands.entity(entity)
    }

    /// The entity the spawned ones are related to.
    pub fn target_entity(&self) -> Entity {
        self.target
    }

    /// The command queue, for other commands.
    pub fn commands(&mut self) -> &mut Commands<'w, 's> {
        self.commands
    }
}

/// Spawns entities related to one target at once, handed to the closure of
/// [`EntityMut::with_related_entities`] (and, as [`ChildSpawner`], of `with_children`).
pub struct RelatedSpawner<'w> {
    world: &'w mut World,
    target: Entity,
    link: WorldLink,
}

/// bevy_ecs's name for the spawner `EntityMut::with_children` hands its closure.
pub type ChildSpawner<'w> = RelatedSpawner<'w>;

impl RelatedSpawner<'_> {
    pub(crate) fn new(world: &mut World, target: Entity, link: WorldLink) -> RelatedSpawner<'_> {
        RelatedSpawner { world, target, link }
    }

    /// Spawns an entity with `bundle`, related to the target; returns a view of it
    /// (`.id()` for its handle).
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> EntityMut<'_> {
        let entity = self.world.spawn(bundle);
        (self.link)(self.world, entity, self.target);
        // A hook's command may have despawned it already: the view says so
        // (`is_alive`) and refuses what needs it.
        EntityMut::new(self.world, entity)
    }

    /// The entity the spawned ones are related to.
    pub fn target_entity(&self) -> Entity {
        self.target
    }

    /// The world, for anything else.
    pub fn world_mut(&mut self) -> &mut World {
        self.world
    }
}

fn queue_relate<R: Relation>(commands: &mut Commands<'_, '_>, source: Entity, target: Entity) {
    commands.add(move |world: &mut World| relate_now::<R>(world, source, target));
}

fn relate_now<R: Relation>(world: &mut World, source: Entity, target: Entity) {
    if let Err(error) = world.relate(source, R::to(target)) {
        world.record_failed_command(CommandError { command: "with_related", error: CommandFailure::Relation(error) });
    }
}

impl EntityCommands<'_, '_, '_> {
    /// Queues spawning an entity with `bundle` related by `R` to this entity
    /// ([`World::spawn_related`]).
    pub fn with_related<R: Relation>(&mut self, bundle: impl Bundle) -> &mut Self {
        let target = self.id();
        RelatedSpawnerCommands::new(self.commands(), target, queue_relate::<R>).spawn(bundle);
        self
    }

    /// Queues spawning the entities `spawn` asks for, each related by `R` to this
    /// entity.
    pub fn with_related_entities<R: Relation>(
        &mut self,
        spawn: impl FnOnce(&mut RelatedSpawnerCommands<'_, '_, '_>),
    ) -> &mut Self {
        let target = self.id();
        spawn(&mut RelatedSpawnerCommands::new(self.commands(), target, queue_relate::<R>));
        self
    }
}

impl EntityMut<'_> {
    /// Spawns an entity with `bundle` related by `R` to this entity
    /// ([`World::spawn_related`]); a refusal is a failed command
    /// ([`World::failed_commands`]).
    pub fn with_related<R: Relation>(&mut self, bundle: impl Bundle) -> &mut Self {
        let target = self.id();
        RelatedSpawner::new(self.world(), target, relate_now::<R>).spawn(bundle);
        self
    }

    /// Spawns the entities `spawn` asks for, each related by `R` to this entity.
    pub fn with_related_entities<R: Relation>(&mut self, spawn: impl FnOnce(&mut RelatedSpawner<'_>)) -> &mut Self {
        let target = self.id();
        spawn(&mut RelatedSpawner::new(self.world(), target, relate_now::<R>));
        self
    }
}
