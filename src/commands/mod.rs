//! Deferred commands: [`Commands`] queues structural changes (spawn, despawn, insert,
//! remove, closures over the world) that are applied in order at a sync point.
//!
//! A [`CommandQueue`] stores commands of any type back to back in one byte buffer,
//! each with the function that applies it, so a queue whose capacity has grown to a
//! frame's worth of commands never allocates again.

use std::mem::MaybeUninit;

use crate::bundle::Bundle;
use crate::entity::Entity;
use crate::error::CommandError;
use crate::world::World;

mod entity_commands;

pub use entity_commands::EntityCommands;

/// A change to the world, applied later with exclusive access.
///
/// Safe to implement: a command gets the world as `&mut World` at a sync point, when
/// no system runs, so nothing it does can race with anything, and the schedule
/// trusts nothing a command declares.
///
/// If `apply` panics, the commands queued after it are dropped unapplied (entities
/// their spawns reserved are freed) and the panic goes on to the caller of the sync
/// point; what the command changed before panicking stays, seen by observers as any
/// change.
pub trait Command: Send + 'static {
    /// Applies the command. Failures should be recorded with
    /// [`World::record_failed_command`] rather than panicking, as ripple's own
    /// commands record those they can detect (a stale entity, a missing component);
    /// what an operation documents as a panic (a bundle naming a type twice, a
    /// panicking hook or `Drop`) still panics.
    fn apply(self, world: &mut World);
}

impl<F: FnOnce(&mut World) + Send + 'static> Command for F {
    fn apply(self, world: &mut World) {
        self(world);
    }
}

/// Where one command lives in the byte buffer, and how to consume it.
#[derive(Clone, Copy)]
struct Entry {
    /// Reads the command at the pointer and applies it (`Some`) or drops it (`None`).
    consume: unsafe fn(*mut MaybeUninit<u8>, Option<&mut World>),
    offset: usize,
}

/// # Safety
/// `at` holds a `C` written by `CommandQueue::push` and not yet consumed.
unsafe fn consume<C: Command>(at: *mut MaybeUninit<u8>, world: Option<&mut World>) {
    // SAFETY: per the caller; the buffer has no alignment, hence the unaligned read.
    let command = unsafe { std::ptr::read_unaligned(at.cast::<C>()) };
    match world {
        Some(world) => command.apply(world),
        None => drop(command),
    }
}

/// [`Commands::spawn`]'s command: inserts the bundle into the reserved entity, or, if
/// dropped unapplied, hands the entity back to the world to free.
struct SpawnCommand<B: Bundle> {
    entity: Entity,
    /// `None` once applied.
    bundle: Option<B>,
    abandoned: crate::abandoned_spawns::AbandonedSpawns,
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

/// A queue of commands of any types, applied in the order they were pushed.
#[derive(Default)]
pub struct CommandQueue {
    /// The commands' bytes, back to back, unaligned.
    bytes: Vec<MaybeUninit<u8>>,
    entries: Vec<Entry>,
}

// SAFETY: every command stored is `Send` (the `Command` bound), and the queue only
// hands them out by value.
unsafe impl Send for CommandQueue {}
// SAFETY: `&CommandQueue` gives no access to the commands.
unsafe impl Sync for CommandQueue {}

impl std::fmt::Debug for CommandQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CommandQueue").field("len", &self.entries.len()).finish()
    }
}

impl CommandQueue {
    /// Number of commands waiting.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no command is waiting.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Queues `command`.
    pub fn push<C: Command>(&mut self, command: C) {
        let offset = self.bytes.len();
        let size = std::mem::size_of::<C>();
        self.bytes.reserve(size);
        // SAFETY: `reserve` made room for `size` bytes past `offset`; the write is
        // unaligned because the buffer is; the bytes become part of the buffer's
        // length only once written.
        unsafe {
            std::ptr::write_unaligned(self.bytes.as_mut_ptr().add(offset).cast::<C>(), command);
            self.bytes.set_len(offset + size);
        }
        self.entries.push(Entry { consume: consume::<C>, offset });
    }

    /// A [`Commands`] that queues here, reserving spawned entities in `world`.
    pub fn commands<'a>(&'a mut self, world: &'a World) -> Commands<'a, 'a> {
        Commands { queue: self, world }
    }

    /// Moves every command of `other` to the end of this queue, in order, leaving
    /// `other` empty (with its capacity).
    pub fn append(&mut self, other: &mut CommandQueue) {
        if other.entries.is_empty() {
            return;
        }
        let shift = self.bytes.len();
        // The bytes move as they are: a command is moved, not copied, because `other`
        // forgets it below (its lengths are zeroed, and `MaybeUninit` bytes and `Entry`
        // values drop nothing).
        self.bytes.extend_from_slice(&other.bytes);
        self.entries.extend(other.entries.iter().map(|entry| Entry { offset: entry.offset + shift, ..*entry }));
        other.bytes.clear();
        other.entries.clear();
    }

    /// Drops every queued command unapplied, keeping the queue's capacity.
    pub fn clear(&mut self) {
        self.consume_all(None);
    }

    /// Applies every queued command to `world`, in order, and empties the queue
    /// (keeping its capacity). If a command panics, the ones after it are dropped
    /// unapplied (entities reserved by dropped spawns are freed) and the panic
    /// continues.
    pub fn apply(&mut self, world: &mut World) {
        world.flush_reserved();
        self.consume_all(Some(world));
    }

    fn consume_all(&mut self, world: Option<&mut World>) {
        /// Drops the commands after the one being applied if it panics, then lets the
        /// world free the entities reserved for spawns among them.
        struct Rest<'a, 'w> {
            queue: &'a mut CommandQueue,
            world: Option<&'w mut World>,
            next: usize,
            len: usize,
        }
        impl Drop for Rest<'_, '_> {
            fn drop(&mut self) {
                let bytes = self.queue.bytes.as_mut_ptr();
                let unapplied = self.next < self.len;
                for i in self.next..self.len {
                    // SAFETY: entries `next..len` are still unconsumed (the lengths
                    // were zeroed, so nothing else will consume them).
                    unsafe {
                        let entry = *self.queue.entries.as_ptr().add(i);
                        (entry.consume)(bytes.add(entry.offset), None);
                    }
                }
                if let Some(world) = self.world.as_deref_mut()
                    && unapplied
                {
                    // Frees the abandoned entities, which have no components: no hook runs.
                    world.flush_reserved();
                }
            }
        }
        let len = self.entries.len();
        // Zero the lengths first: whatever happens below, each command is consumed
        // exactly once, by this loop or by the guard.
        // SAFETY: `Entry` is `Copy` and the bytes are `MaybeUninit`: shortening the
        // vectors drops nothing, and the memory stays allocated for the reads below.
        unsafe {
            self.entries.set_len(0);
            self.bytes.set_len(0);
        }
        let mut rest = Rest { queue: self, world, next: 0, len };
        while rest.next < rest.len {
            // SAFETY: entry `next` is unconsumed; its bytes hold the command it names.
            unsafe {
                let entry = *rest.queue.entries.as_ptr().add(rest.next);
                rest.next += 1;
                (entry.consume)(rest.queue.bytes.as_mut_ptr().add(entry.offset), rest.world.as_deref_mut());
            }
        }
    }
}

impl Drop for CommandQueue {
    fn drop(&mut self) {
        self.consume_all(None);
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
/// fn count(mut hp: Query<&Hp>, mut counts: ResMut<Counts>) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    struct Counted(Arc<AtomicUsize>, [u8; 3]);
    impl Drop for Counted {
        fn drop(&mut self) {
            self.0.fetch_add(1, Ordering::Relaxed);
        }
    }

    #[test]
    fn commands_apply_in_order_and_unapplied_ones_drop_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut world = World::new();
        let mut queue = CommandQueue::default();
        let order = Arc::new(std::sync::Mutex::new(Vec::new()));
        for i in 0..5u8 {
            let order = order.clone();
            let counted = Counted(drops.clone(), [i; 3]);
            queue.push(move |_: &mut World| order.lock().unwrap().push(counted.1[0]));
        }
        queue.apply(&mut world);
        assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3, 4]);
        assert_eq!(drops.load(Ordering::Relaxed), 5);
        let counted = Counted(drops.clone(), [9; 3]);
        queue.push(move |_: &mut World| drop(counted));
        drop(queue);
        assert_eq!(drops.load(Ordering::Relaxed), 6);
    }

    #[test]
    fn an_appended_queue_moves_its_commands_behind_the_others_and_each_drops_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let order = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (mut first, mut second) = (CommandQueue::default(), CommandQueue::default());
        for (queue, range) in [(&mut first, 0..2u8), (&mut second, 2..5u8)] {
            for i in range {
                let (order, counted) = (order.clone(), Counted(drops.clone(), [i; 3]));
                queue.push(move |_: &mut World| {
                    let counted = counted; // the whole value, not the copied field
                    order.lock().unwrap().push(counted.1[0]);
                });
            }
        }
        first.append(&mut second);
        assert_eq!((first.len(), second.len()), (5, 0));
        drop(second);
        assert_eq!(drops.load(Ordering::Relaxed), 0, "the moved commands belong to `first` now");
        first.apply(&mut World::new());
        assert_eq!(*order.lock().unwrap(), [0, 1, 2, 3, 4]);
        assert_eq!(drops.load(Ordering::Relaxed), 5);
    }

    #[test]
    fn a_panicking_command_drops_the_rest_once() {
        let drops = Arc::new(AtomicUsize::new(0));
        let mut world = World::new();
        let mut queue = CommandQueue::default();
        queue.push(|_: &mut World| panic!("boom"));
        for _ in 0..3 {
            let counted = Counted(drops.clone(), [0; 3]);
            queue.push(move |_: &mut World| drop(counted));
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| queue.apply(&mut world)));
        assert!(result.is_err());
        assert_eq!(drops.load(Ordering::Relaxed), 3);
        assert!(queue.is_empty());
        drop(queue);
        assert_eq!(drops.load(Ordering::Relaxed), 3);
    }
}
