//! The [`World`]: entities, their components in archetype tables, and resources.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use crate::bundle::Bundles;
use crate::change::{CHECK_TICK_THRESHOLD, ChangeLog, Move, Remap, Tick};
use crate::commands::CommandQueue;
use crate::component::{ComponentId, Components};
use crate::entity::{Entities, Entity};
use crate::hook::{HookFlags, HookTable};
use crate::resource::Resources;
use crate::storage::{Archetypes, SparseSets, Transitions};

mod access;
mod clear;
mod entities;
pub(crate) mod extension;
mod failed_commands;
pub(crate) mod inspect;
pub(crate) mod memory;
mod structural;
mod tracking;

use extension::Extension;

/// Identifies a world, so a [`QueryState`] is never used with another one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct WorldId(u64);

impl WorldId {
    fn next() -> WorldId {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        WorldId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

/// A container of entities, their components, and resources.
///
/// Entities with the same set of component types share an archetype table; adding or
/// removing a component moves the entity's row to the neighbouring table.
///
/// ```
/// use ripple::World;
/// #[derive(Debug, PartialEq)]
/// struct Health(u32);
/// struct Poisoned;
///
/// let mut world = World::new();
/// let hero = world.spawn((Health(10),));
/// world.insert(hero, (Poisoned,)).unwrap();
/// world.get_mut::<Health>(hero).unwrap().0 -= 2;
/// assert_eq!(world.get::<Health>(hero), Ok(&Health(8)));
/// assert!(world.entity(hero).unwrap().has::<Poisoned>());
/// ```
pub struct World {
    id: WorldId,
    pub(crate) entities: Entities,
    pub(crate) components: Components,
    pub(crate) bundles: Bundles,
    pub(crate) archetypes: Archetypes,
    /// The components stored in sparse sets, by component id.
    pub(crate) sparse: SparseSets,
    /// Which kinds of hook some sparse component has.
    pub(crate) sparse_hooks: HookFlags,
    /// Every component type's hooks (the component registry keeps only their flags).
    pub(crate) hooks: HookTable,
    /// Reused to list an entity's sparse components when it is despawned.
    pub(crate) sparse_scratch: Vec<ComponentId>,
    /// Cached insert and remove transitions between archetypes.
    pub(crate) transitions: Transitions,
    pub(crate) resources: Resources,
    /// Advances once per reader run; writes outside runs are stamped with it.
    change_tick: AtomicU32,
    /// When stored ticks were last clamped.
    last_check_tick: Tick,
    /// Structural changes, for `Dirty` readers.
    pub(crate) moves: ChangeLog<Move>,
    /// Per component id: the removal stream.
    pub(crate) removals: Vec<ChangeLog<(Entity, Tick)>>,
    /// Last-run ticks of live change readers (queries with change filters, `Ref`,
    /// resource readers, `OnChange` observers), clamped with the stored ticks.
    change_readers: Vec<Weak<AtomicU32>>,
    /// The tick of the last [`clear_trackers`](World::clear_trackers), once called: what
    /// [`is_resource_changed`](World::is_resource_changed) compares with.
    pub(crate) trackers_cleared: Option<Arc<AtomicU32>>,
    /// Deferred commands that failed, the most recent until drained, and their count.
    pub(crate) failed_commands: failed_commands::FailedCommands,
    /// One queue per message type: the message floor's `Messages`, installed by `World::new`.
    pub(crate) messages: Extension,
    /// Commands queued by hooks, applied when the operation that ran them completes.
    pub(crate) hook_queue: CommandQueue,
    /// Entities reserved for spawn commands that were dropped unapplied; freed at the
    /// next structural operation.
    pub(crate) abandoned_spawns: crate::entity::abandoned_spawns::AbandonedSpawns,
    /// The other half of `hook_queue`'s double buffer, so applying allocates nothing.
    pub(crate) hook_spare: CommandQueue,
    /// Set while hook commands are being applied: nested operations leave theirs to
    /// the running loop instead of recursing.
    pub(crate) applying_hook_commands: bool,
    /// Systems registered to run on demand: the systems floor's `OneShotSystems`,
    /// installed by `World::new`.
    pub(crate) one_shot: Extension,
    /// The link tables of relations (the hierarchy's and the user's): which target's
    /// list holds each source.
    pub(crate) relation_tables: crate::relation_registry::RelationTables,
    /// The module reacting to structural changes and sync points, if any.
    pub(crate) reactor: crate::reactor::ReactorSlot,
}

impl std::fmt::Debug for World {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("World")
            .field("entities", &self.len())
            .field("archetypes", &self.archetype_count())
            .finish_non_exhaustive()
    }
}

impl World {
    /// An empty world with nothing registered: what [`World::new`] starts from before
    /// it installs the built-in relations.
    pub(crate) fn bare() -> World {
        World {
            id: WorldId::next(),
            entities: Entities::default(),
            components: Components::default(),
            bundles: Bundles::default(),
            archetypes: Archetypes::default(),
            sparse: SparseSets::default(),
            sparse_hooks: HookFlags::NONE,
            hooks: HookTable::default(),
            sparse_scratch: Vec::new(),
            transitions: Transitions::default(),
            resources: Resources::default(),
            change_tick: AtomicU32::new(1),
            last_check_tick: Tick(1),
            moves: ChangeLog::default(),
            removals: Vec::new(),
            change_readers: Vec::new(),
            trackers_cleared: None,
            failed_commands: Default::default(),
            messages: Extension::empty(),
            hook_queue: CommandQueue::default(),
            abandoned_spawns: Default::default(),
            hook_spare: CommandQueue::default(),
            applying_hook_commands: false,
            one_shot: Extension::empty(),
            relation_tables: Default::default(),
            reactor: Default::default(),
        }
    }

    /// Registers a change reader's last-run tick so tick maintenance can clamp it.
    pub(crate) fn register_change_reader(&mut self) -> Arc<AtomicU32> {
        if self.change_readers.len() == self.change_readers.capacity() {
            self.change_readers.retain(|reader| reader.strong_count() > 0);
        }
        let tick = Arc::new(AtomicU32::new(self.change_tick().0));
        self.change_readers.push(Arc::downgrade(&tick));
        tick
    }

    /// The current change tick: writes made now, outside any query run, are stamped
    /// with it.
    #[inline]
    pub fn change_tick(&self) -> Tick {
        Tick(self.change_tick.load(Ordering::Relaxed))
    }

    /// A tick for a resource write: advances the world's tick and returns the new
    /// value, so the write is newer than every resource reader's last look (readers
    /// take the current tick without advancing it).
    #[inline]
    pub(crate) fn fresh_tick(&self) -> Tick {
        Tick(self.change_tick.fetch_add(1, Ordering::Relaxed).wrapping_add(1))
    }

    /// Starts a reader run: returns the run's tick and advances the world's, so
    /// that later writes are newer than the run.
    #[inline]
    pub(crate) fn increment_change_tick(&self) -> Tick {
        Tick(self.change_tick.fetch_add(1, Ordering::Relaxed))
    }

    /// Clamps stored ticks when the world tick has advanced a threshold since the last
    /// check, so that no tick ever grows ambiguously old ("Ticks never grow ambiguously
    /// old" in docs/design.md).
    #[inline]
    pub(crate) fn maintain_ticks(&mut self) {
        let now = self.change_tick();
        if self.last_check_tick.age(now) >= CHECK_TICK_THRESHOLD {
            self.clamp_ticks(now);
        }
    }

    /// Compresses ticks older than [`Tick::MAX_AGE`] into a narrow band, keeping their
    /// order relative to every live change reader's last run, so comparisons stay exact.
    #[cold]
    fn clamp_ticks(&mut self, now: Tick) {
        self.change_readers.retain(|reader| reader.strong_count() > 0);
        let anchors = self
            .change_readers
            .iter()
            .filter_map(Weak::upgrade)
            .map(|reader| Tick(reader.load(Ordering::Relaxed)).age(now))
            .collect();
        let remap = Remap::new(now, anchors);
        for table in self.archetypes.iter_mut() {
            for column in table.columns.iter_mut() {
                column.remap_ticks(&remap);
            }
        }
        for set in self.sparse.iter_mut() {
            set.remap_ticks(&remap);
        }
        for log in &mut self.removals {
            log.for_each_mut(|(_, tick)| *tick = remap.apply(*tick));
        }
        self.resources.remap_ticks(&remap);
        for observer in self.change_readers.iter().filter_map(Weak::upgrade) {
            let last = Tick(observer.load(Ordering::Relaxed));
            observer.store(remap.apply(last).0, Ordering::Relaxed);
        }
        self.last_check_tick = now;
    }

    /// Advances the change tick by `by` as if that many reader runs had happened,
    /// running tick maintenance on the way. For ripple's own tests of tick wraparound
    /// (the internal `internal-test-support` feature; not part of the API).
    #[cfg(feature = "internal-test-support")]
    #[doc(hidden)]
    pub fn advance_change_tick_for_tests(&mut self, mut by: u32) {
        while by > 0 {
            let step = by.min(CHECK_TICK_THRESHOLD / 2);
            self.change_tick.fetch_add(step, Ordering::Relaxed);
            by -= step;
            self.maintain_ticks();
        }
    }
}
