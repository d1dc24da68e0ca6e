//! [`Commands`]: queues structural changes (spawn, despawn, insert, remove, closures
//! over the world) to apply at the next sync point.

use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::entity::abandoned_spawns::AbandonedSpawns;
use crate::error::CommandError;
use crate::world::World;

use super::queue::{Command, CommandQueue};

/// [`Commands::spawn`]'s command: inserts the bundle into the reserved entity, or, if
/// dropped unapplied, hands the entity back to the world to free.
struct SpawnCommand<B: Bundle> {
    entity: Entity,
    /// `None` once applied.
    bundle: Option<B>,
    abandoned: AbandonedSpawns,
}

impl<B: Bundle> Command for SpawnCommand<B> {
    fn apply(mut self, world: &mut World) {
        let Some(bundle) = self.bundle.take() else { return };
        if let Err(error) = world.insert(self.entity, bundle) {
            world.record_failed_command(CommandError { command: "spawn", error: error.into() });
        }
    }
}

impl<B: Bundle> Drop for SpawnCommand<B> {
    fn drop(&mut self) {
        if self.bundle.is_some() {
            self.abandoned.abandon(self.entity);
        }
    }
}

/// Queues structural changes to apply at the next sync point (a system parameter).
///
/// Spawned entities get their handle at once, so later commands in the same queue
/// (and the rest of the system) can use it; the entity exists, with its components,
/// once the queue is applied. A command aimed at an entity that no longer exists then
/// is recorded as a [`CommandError`] (see [`World::failed_commands`]), never a panic.
///
/// # When commands apply
/// At the sync point that ends the system's phase, and nowhere else: a later system of
/// the same phase does not see them, **even one ordered `.after()` the system that
/// queued them**. A system that must see them belongs in a later phase (say
/// [`POST_UPDATE`](crate::schedule::POST_UPDATE)). This differs from bevy_ecs, which inserts a
/// sync point between two ordered systems when the first has commands. ripple keeps
/// sync points at fixed places because the systems of a phase share the world in
/// parallel stages while a structural change needs all of it: what a system sees then
/// depends on its phase alone, not on how the phase was split into stages, and the
/// schedule plans each phase once instead of cutting it wherever commands may wait.
///
/// ```
/// use ripple::{Commands, World};
/// use ripple::schedule::{IntoSystemConfig, POST_UPDATE, Schedule};
/// use ripple::system::{Query, ResMut};
/// struct Hp(u32);
/// struct Counts(Vec<usize>);
///
/// fn spawner(mut commands: Commands) {
///     commands.spawn((Hp(1),));
/// }
/// fn count(hp: Query<&Hp>, mut counts: ResMut<Counts>) {
///     counts.0.push(hp.iter().count());
/// }
///
/// let mut world = World::new();
/// world.insert_resource(Counts(Vec::new()));
/// let mut schedule = Schedule::new();
/// schedule.add_system(&mut world, spawner).unwrap();
/// // Ordered after the spawner in the same phase: the spawn is not applied yet.
/// schedule.add_system(&mut world, count.named("same_phase").after("spawner")).unwrap();
/// // A later phase runs after the sync point: it is.
/// schedule.add_system(&mut world, count.named("next_phase").in_phase(POST_UPDATE)).unwrap();
/// schedule.run(&mut world);
/// assert_eq!(world.resource::<Counts>().unwrap().0, [0, 1]);
/// ```
///
/// ```
/// use ripple::{CommandQueue, World};
/// struct Hp(u32);
/// let mut world = World::new();
/// let mut queue = CommandQueue::default();
/// let mut commands = queue.commands(&world);
/// let hero = commands.spawn((Hp(10),));
/// commands.insert(hero, ("hero",));
/// commands.despawn(hero);
/// commands.despawn(hero); // already gone by then: recorded, not a panic
/// queue.apply(&mut world);
/// assert!(!world.contains(hero));
/// assert_eq!(world.failed_commands().len(), 1);
/// ```
pub struct Commands<'w, 's> {
    pub(crate) queue: &'s mut CommandQueue,
    pub(crate) world: &'w World,
}

impl Commands<'_, '_> {
    /// Queues spawning an entity with `bundle`; returns its handle, reserved now. If
    /// the command is dropped unapplied (a command before it panicked, or the hook that
    /// queued it did), the world frees the reserved entity at its next structural
    /// operation: the handle goes stale, as if the entity had been spawned and
    /// despawned, never an entity without its components.
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Entity {
        let entity = self.world.reserve_entity();
        let abandoned = self.world.abandoned_spawns.clone();
        self.queue.push(SpawnCommand { entity, bundle: Some(bundle), abandoned });
        entity
    }

    /// Queues spawning an entity with no components; returns its handle, reserved now
    /// (bevy_ecs's `spawn_empty`; the same as `spawn(())`).
    pub fn spawn_empty(&mut self) -> Entity {
        self.spawn(())
    }

    /// Queues spawning one entity per bundle of `bundles` ([`World::spawn_batch`]),
    /// as bevy_ecs's `Commands::spawn_batch`: the bundles are collected now and spawned
    /// when the command applies; their handles are not returned (spawn them one by one
    /// with [`spawn`](Self::spawn) to keep them).
    pub fn spawn_batch<B: Bundle>(&mut self, bundles: impl IntoIterator<Item = B>) {
        let bundles: Vec<B> = bundles.into_iter().collect();
        self.queue.push(move |world: &mut World| {
            world.spawn_batch(bundles);
        });
    }

    /// Queues despawning `entity`.
    pub fn despawn(&mut self, entity: Entity) {
        self.queue.push(move |world: &mut World| {
            if let Err(error) = world.despawn(entity) {
                world.record_failed_command(CommandError { command: "despawn", error: error.into() });
            }
        });
    }

    /// Queues adding `bundle`'s components to `entity`.
    pub fn insert<B: Bundle>(&mut self, entity: Entity, bundle: B) {
        self.queue.push(move |world: &mut World| {
            if let Err(error) = world.insert(entity, bundle) {
                world.record_failed_command(CommandError { command: "insert", error: error.into() });
            }
        });
    }

    /// Queues removing `B`'s components from `entity` (their values are dropped).
    pub fn remove<B: Bundle>(&mut self, entity: Entity) {
        self.queue.push(move |world: &mut World| {
            if let Err(error) = world.remove::<B>(entity) {
                world.record_failed_command(CommandError { command: "remove", error: error.into() });
            }
        });
    }

    /// Queues a closure over the whole world.
    pub fn add(&mut self, command: impl FnOnce(&mut World) + Send + 'static) {
        self.queue.push(command);
    }

    /// Queues any [`Command`].
    pub fn push<C: Command>(&mut self, command: C) {
        self.queue.push(command);
    }
}

impl CommandQueue {
    /// A [`Commands`] that queues here, reserving spawned entities in `world`.
    pub fn commands<'a>(&'a mut self, world: &'a World) -> Commands<'a, 'a> {
        Commands { queue: self, world }
    }
}
