//! The [`World`]: entities, their components in archetype tables, and resources.

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::{Arc, Weak};

use crate::bundle::{Bundle, BundleId, BundleRow, Bundles, SPARSE_COLUMN, SpawnTarget};
use crate::change::{CHECK_TICK_THRESHOLD, EventLog, Move, Mut, Remap, RemovedReader, Tick};
use crate::commands::CommandQueue;
use crate::component::{Component, ComponentId, Components};
use crate::entity::{Entities, Entity, Location};
use crate::entity_ref::EntityRef;
use crate::error::{ComponentError, MissingComponent, NoSuchEntity};
use crate::hook::{HookFlags, HookKind, RemovedIds};
use crate::query::{QueryData, QueryFilter, QueryState};
use crate::resource::Resources;
use crate::spawn_batch::SpawnBatch;
use crate::storage::{
    Archetype, ArchetypeId, Archetypes, Registries, RemoveEdge, Row, SparseSets, Transitions, TypedColumn, downcast,
    downcast_mut,
};
use crate::world_extension::Extension;

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
    /// Reused to list an entity's sparse components when it is despawned.
    pub(crate) sparse_scratch: Vec<ComponentId>,
    /// Cached insert and remove transitions between archetypes.
    pub(crate) transitions: Transitions,
    pub(crate) resources: Resources,
    /// Advances once per observer run; writes outside runs are stamped with it.
    change_tick: AtomicU32,
    /// When stored ticks were last clamped.
    last_check_tick: Tick,
    /// Structural changes, for `Dirty` observers.
    pub(crate) moves: EventLog<Move>,
    /// Per component id: the removal stream.
    pub(crate) removals: Vec<EventLog<(Entity, Tick)>>,
    /// Last-run ticks of live observers, clamped with the stored ticks.
    observers: Vec<Weak<AtomicU32>>,
    /// The tick of the last [`clear_trackers`](World::clear_trackers), once called: what
    /// [`is_resource_changed`](World::is_resource_changed) compares with.
    pub(crate) trackers_cleared: Option<Arc<AtomicU32>>,
    /// Deferred commands that failed, the most recent until drained, and their count.
    pub(crate) failed_commands: crate::world_memory::FailedCommands,
    /// One queue per event type: the event floor's `Events`, installed by `World::new`.
    pub(crate) events: Extension,
    /// Commands queued by hooks, applied when the operation that ran them completes.
    pub(crate) hook_queue: CommandQueue,
    /// Entities reserved for spawn commands that were dropped unapplied; freed at the
    /// next structural operation.
    pub(crate) abandoned_spawns: crate::abandoned_spawns::AbandonedSpawns,
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
            sparse_scratch: Vec::new(),
            transitions: Transitions::default(),
            resources: Resources::default(),
            change_tick: AtomicU32::new(1),
            last_check_tick: Tick(1),
            moves: EventLog::default(),
            removals: Vec::new(),
            observers: Vec::new(),
            trackers_cleared: None,
            failed_commands: Default::default(),
            events: Extension::empty(),
            hook_queue: CommandQueue::default(),
            abandoned_spawns: Default::default(),
            hook_spare: CommandQueue::default(),
            applying_hook_commands: false,
            one_shot: Extension::empty(),
            relation_tables: Default::default(),
            reactor: Default::default(),
        }
    }

    /// Registers an observer's last-run tick so tick maintenance can clamp it.
    pub(crate) fn register_observer(&mut self) -> Arc<AtomicU32> {
        if self.observers.len() == self.observers.capacity() {
            self.observers.retain(|o| o.strong_count() > 0);
        }
        let tick = Arc::new(AtomicU32::new(self.change_tick().0));
        self.observers.push(Arc::downgrade(&tick));
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

    /// Starts an observer run: returns the run's tick and advances the world's, so
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
    /// order relative to every live observer's last run, so comparisons stay exact.
    #[cold]
    fn clamp_ticks(&mut self, now: Tick) {
        self.observers.retain(|observer| observer.strong_count() > 0);
        let anchors = self
            .observers
            .iter()
            .filter_map(Weak::upgrade)
            .map(|observer| Tick(observer.load(Ordering::Relaxed)).age(now))
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
        for observer in self.observers.iter().filter_map(Weak::upgrade) {
            let last = Tick(observer.load(Ordering::Relaxed));
            observer.store(remap.apply(last).0, Ordering::Relaxed);
        }
        self.last_check_tick = now;
    }

    /// Advances the change tick by `by` as if that many observer runs had happened,
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

    /// Starts recording changes to component `T` (tracking is opt-in per type). Queries
    /// with [`Changed`](crate::Changed), [`Added`](crate::Added) or
    /// [`Dirty`](crate::Dirty) call this for the types they ask about. Existing `T`s
    /// count as added and changed now. Calling it again does nothing.
    pub fn track<T: Component>(&mut self) {
        let id = self.components.id_or_register::<T>();
        self.track_id(id);
    }

    pub(crate) fn track_id(&mut self, id: ComponentId) {
        if self.components.info(id).tracked {
            return;
        }
        self.components.info_mut(id).tracked = true;
        let now = self.change_tick();
        self.for_each_column_of(id, |column| column.enable_tracking(now));
    }

    /// Applies `f` to the column of component `id` in every table that has one, or to
    /// its sparse set's values.
    fn for_each_column_of(&mut self, id: ComponentId, mut f: impl FnMut(&mut dyn crate::storage::Column)) {
        if let Some(set) = self.sparse.get_mut(id) {
            return f(&mut *set.values);
        }
        for table in self.archetypes.iter_mut() {
            if let Some(column) = table.column_index(id) {
                f(&mut *table.columns[column]);
            }
        }
    }

    /// Starts maintaining change summaries for component `id` (tracking it first):
    /// called when an observer of it (a change filter) is created. Until then tracked
    /// writes only stamp row ticks; the summaries are built from them here.
    pub(crate) fn observe_id(&mut self, id: ComponentId) {
        self.track_id(id);
        if self.components.info(id).observed {
            return;
        }
        self.components.info_mut(id).observed = true;
        let now = self.change_tick();
        self.for_each_column_of(id, |column| column.observe(now));
    }

    /// Whether changes to `T` are being recorded.
    pub fn is_tracked<T: Component>(&self) -> bool {
        self.components.id::<T>().is_some_and(|id| self.components.info(id).tracked)
    }

    /// Heap bytes used by change tracking: per-row ticks and summaries of every
    /// tracked column.
    pub fn tracking_bytes(&self) -> usize {
        let tables: usize = self.archetypes.iter().flat_map(|t| t.columns.iter()).map(|c| c.tracking_bytes()).sum();
        tables + self.sparse.iter().map(|set| set.tracking_bytes()).sum::<usize>()
    }

    /// Marks `entity`'s `T` changed now, without writing it (a manual "dirty" flag).
    /// Does nothing visible if `T` is not tracked.
    ///
    /// # Errors
    /// [`ComponentError`] if the entity is not alive or lacks `T`.
    pub fn mark_changed<T: Component>(&mut self, entity: Entity) -> Result<(), ComponentError> {
        let now = self.change_tick();
        let (column, row) = self.value_place_mut::<T>(entity)?;
        column.mark_changed(row, now);
        Ok(())
    }

    /// A reader of `T`'s removal stream; it sees removals made from now on, each once
    /// ("Removal streams" in docs/design.md).
    pub fn removal_reader<T: Component>(&mut self) -> RemovedReader<T> {
        let id = self.components.id_or_register::<T>();
        let cursor = self.removal_cursor(id);
        RemovedReader::new(self.id, id, cursor)
    }

    /// A cursor into component `id`'s removal log that sees removals made from now on.
    pub(crate) fn removal_cursor(&mut self, id: ComponentId) -> crate::change::log::Cursor {
        if self.removals.len() <= id.index() {
            // The structural-change log holds the world's limit for all logs.
            let limit = self.moves.limit();
            self.removals.resize_with(self.components.len(), || EventLog::with_limit(limit));
        }
        self.removals[id.index()].register()
    }

    pub(crate) fn removal_log(&self, id: ComponentId) -> &EventLog<(Entity, Tick)> {
        &self.removals[id.index()]
    }

    /// Moves `entity`'s handle from its row of `from` (at `location`) to a new last
    /// row of `to`, whose values the caller moves alongside, and updates its location
    /// and that of the entity swapped into its old row. Returns the new row.
    #[inline]
    pub(crate) fn move_handle(
        entities: &mut Entities,
        entity: Entity,
        location: Location,
        from: &mut Archetype,
        to: &mut Archetype,
    ) -> usize {
        if let Some(moved) = from.swap_remove_entity(location.row.index()) {
            entities.set_location(moved.index(), location);
        }
        let new_row = to.len();
        to.entities.push(entity);
        entities.set_location(entity.index(), Location { archetype: to.id(), row: Row(new_row as u32) });
        new_row
    }

    /// Records that `entity` lost the components `ids` at `now`, for readers.
    #[inline]
    pub(crate) fn record_removals(
        removals: &mut [EventLog<(Entity, Tick)>],
        ids: &[ComponentId],
        entity: Entity,
        now: Tick,
    ) {
        for id in ids {
            if let Some(log) = removals.get_mut(id.index()) {
                log.push((entity, now));
            }
        }
    }

    #[inline]
    pub(crate) fn id(&self) -> WorldId {
        self.id
    }

    /// Number of live entities.
    #[inline]
    pub fn len(&self) -> usize {
        self.entities.len() as usize
    }

    /// Whether the world has no entities.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of archetype tables created so far (they are pooled, never freed),
    /// including the table of entities with no components.
    #[inline]
    pub fn archetype_count(&self) -> usize {
        self.archetypes.len()
    }

    /// Whether `entity` is alive in this world.
    #[inline]
    pub fn contains(&self, entity: Entity) -> bool {
        self.entities.get(entity).is_some()
    }

    #[inline]
    pub(crate) fn locate(&self, entity: Entity) -> Result<Location, NoSuchEntity> {
        self.entities.get(entity).ok_or(NoSuchEntity(entity))
    }

    /// Hands out the handle of an entity that a command will spawn later; safe through
    /// a shared world. The entity is alive, with no components, from the next
    /// structural operation (or [`World::flush`]) on.
    pub fn reserve_entity(&self) -> Entity {
        self.entities.reserve_entity()
    }

    /// A sync point outside a schedule: makes every entity reserved with
    /// [`World::reserve_entity`] alive, with no components (every structural operation
    /// does this part first), then delivers what observers of changes are waiting for
    /// (see [`World::observe`]). A schedule's phases end with it, after their commands.
    pub fn flush(&mut self) {
        self.flush_reserved();
        self.react_at_sync_point();
    }

    /// Makes reserved entities alive (see [`World::reserve_entity`]); inlined, as every
    /// structural operation asks and almost always finds none.
    #[inline(always)]
    pub(crate) fn flush_reserved(&mut self) {
        self.flush_reserved_entities();
        if self.abandoned_spawns.any() {
            self.free_abandoned_spawns();
        }
    }

    /// Only the first half of [`flush_reserved`](Self::flush_reserved): for the middle
    /// of an operation (after its hooks ran), where freeing abandoned spawns would
    /// despawn inside it and reuse its scratch lists.
    #[inline(always)]
    pub(crate) fn flush_reserved_entities(&mut self) {
        if self.entities.has_reserved() {
            self.flush_reserved_now();
        }
    }

    /// Despawns the entities whose spawn commands were dropped unapplied (alive with
    /// no components once flushed): their handles go stale, as if never spawned.
    #[cold]
    fn free_abandoned_spawns(&mut self) {
        let mut abandoned = Vec::new();
        self.abandoned_spawns.take(&mut abandoned);
        for entity in abandoned {
            // Gone already if a command despawned it; and an entity that got components
            // some other way (its handle used directly) is no ghost.
            let empty = self.entity(entity).is_ok_and(|e| e.component_names().next().is_none());
            if empty {
                let _ = self.despawn(entity);
            }
        }
    }

    /// Puts every reserved entity into the empty table.
    #[cold]
    fn flush_reserved_now(&mut self) {
        let table = self.archetypes.get_mut(ArchetypeId::EMPTY);
        let moves = &mut self.moves;
        self.entities.flush_reserved(|entity| {
            let row = table.len();
            table.entities.push(entity);
            moves.push(Move::between(entity, None, Some(ArchetypeId::EMPTY)));
            Location { archetype: ArchetypeId::EMPTY, row: Row(row as u32) }
        });
    }

    /// The archetype a bundle spawns into, and the column of each element.
    #[inline]
    #[track_caller]
    fn spawn_target<B: Bundle>(&mut self) -> (BundleId, ArchetypeId) {
        let bundle = self.bundles.id_or_register::<B>(&mut self.components);
        let info = self.bundles.info(bundle);
        if let Some(target) = &info.spawn {
            return (bundle, target.archetype);
        }
        let archetype = self.archetypes.get_or_create(&info.sorted.clone(), &self.components, self.change_tick());
        let table = self.archetypes.get(archetype);
        let column = |c| match table.column_index(c) {
            Some(column) => column,
            None => {
                debug_assert!(self.components.is_sparse(c), "bundle column exists");
                SPARSE_COLUMN
            }
        };
        let columns = info.ids.iter().map(|&c| column(c)).collect();
        self.bundles.info_mut(bundle).spawn = Some(SpawnTarget { archetype, columns });
        (bundle, archetype)
    }

    /// Creates an entity with the components of `bundle` and returns its handle.
    ///
    /// # Panics
    /// If the bundle names a component type twice.
    ///
    /// ```
    /// # use ripple::World;
    /// let mut world = World::new();
    /// let e = world.spawn((1u8, "name"));
    /// assert_eq!(world.get::<&str>(e), Ok(&"name"));
    /// ```
    #[track_caller]
    pub fn spawn<B: Bundle>(&mut self, bundle: B) -> Entity {
        self.flush_reserved();
        let (bundle_id, archetype) = self.spawn_target::<B>();
        let columns = &self.bundles.info(bundle_id).spawn.as_ref().expect("spawn target cached").columns;
        let now = self.change_tick();
        let table = self.archetypes.get_mut(archetype);
        let row = table.len();
        let entity = self.entities.alloc(Location { archetype, row: Row(row as u32) });
        table.entities.push(entity);
        let info = self.bundles.info(bundle_id);
        let mut hooks = table.hooks;
        if info.has_sparse {
            hooks = hooks.union(self.sparse_hooks);
        }
        let place = BundleRow::new(&mut table.columns, row, columns, info, &mut self.sparse, entity);
        // SAFETY: `columns` is the spawn target's column list for this bundle, in tuple
        // order, `SPARSE_COLUMN` for the sparse elements.
        let added_sparse = unsafe { place.write(bundle, now) };
        self.moves.push(Move::between(entity, None, Some(archetype)));
        if hooks.adds_or_inserts() {
            self.hooks_after_write(bundle_id, entity, ArchetypeId::EMPTY, added_sparse);
        }
        entity
    }

    /// Spawns one entity per bundle of `bundles`, reserving room for all of them once.
    ///
    /// Returns an iterator over the new handles; entities are spawned as it advances,
    /// and any not yet spawned are spawned when it is dropped, so
    /// `world.spawn_batch(iter);` on its own spawns everything.
    ///
    /// # Panics
    /// If the bundle names a component type twice.
    ///
    /// ```
    /// # use ripple::World;
    /// let mut world = World::new();
    /// let ids: Vec<_> = world.spawn_batch((0..3).map(|i| (i as u32,))).collect();
    /// assert_eq!(ids.len(), 3);
    /// world.spawn_batch((0..5).map(|i| (i as u32,)));
    /// assert_eq!(world.len(), 8);
    /// ```
    #[track_caller]
    pub fn spawn_batch<B, I>(&mut self, bundles: I) -> SpawnBatch<'_, B, I::IntoIter>
    where
        B: Bundle,
        I: IntoIterator<Item = B>,
    {
        let bundles = bundles.into_iter();
        self.flush_reserved();
        let (bundle_id, archetype) = self.spawn_target::<B>();
        // One at a time where hooks run, or where values go to sparse sets.
        if self.archetypes.get(archetype).hooks.adds_or_inserts() || self.bundles.info(bundle_id).has_sparse {
            return SpawnBatch::hooked(self, bundles);
        }
        let additional = bundles.size_hint().0;
        let now = self.change_tick();
        self.entities.reserve(additional);
        self.moves.reserve(additional);
        let table = self.archetypes.get_mut(archetype);
        table.reserve(additional);
        let columns = &self.bundles.info(bundle_id).spawn.as_ref().expect("spawn target cached").columns;
        let Archetype { columns: table_columns, entities: table_entities, .. } = table;
        // SAFETY: `columns` is the spawn target's column list for this bundle, built
        // from the bundle's component ids in tuple order.
        let writer = unsafe { B::writer(table_columns, columns) };
        SpawnBatch::new(bundles, writer, table_entities, &mut self.entities, &mut self.moves, archetype, now)
    }

    /// Despawns `entity`, dropping its components.
    ///
    /// # Errors
    /// [`NoSuchEntity`] if the entity is not alive.
    pub fn despawn(&mut self, entity: Entity) -> Result<(), NoSuchEntity> {
        self.flush_reserved();
        let location = self.locate(entity)?;
        self.maintain_ticks();
        self.sparse.components_of(entity, &mut self.sparse_scratch);
        let hooked = self.archetypes.get(location.archetype).hooks.has(HookKind::Remove)
            || (self.sparse_hooks.has(HookKind::Remove) && !self.sparse_scratch.is_empty())
            || self.reactor.despawns;
        if hooked {
            self.hooks_before_removal(entity, RemovedIds::Table(location.archetype));
            // Entities the hooks reserved come from the free list: make them alive
            // before this slot joins that list, so their handles stay right.
            self.flush_reserved_entities();
        }
        let now = self.change_tick();
        let table = self.archetypes.get_mut(location.archetype);
        let row = location.row.index();
        // Bookkeeping first, so the world is consistent before any user `Drop` runs.
        let moved = table.swap_remove_entity(row);
        if let Some(moved) = moved {
            self.entities.set_location(moved.index(), location);
        }
        self.entities.free(entity);
        Self::record_removals(&mut self.removals, table.components(), entity, now);
        Self::record_removals(&mut self.removals, &self.sparse_scratch, entity, now);
        self.moves.push(Move::between(entity, Some(location.archetype), None));
        // The sparse components it loses are logged too: an observer replaying the
        // entity's moves needs them to know what it had before.
        self.moves.push_sparse(entity, self.sparse_scratch.iter().copied(), true);
        if self.sparse_scratch.is_empty() {
            table.drop_row_values(row, now);
        } else {
            // Every set forgets the entity even if a value's `Drop` panics; then the row.
            let sets = &mut self.sparse;
            let doomed = &self.sparse_scratch;
            let finish =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| sets.remove_all(entity, doomed, now)));
            table.drop_row_values(row, now);
            if let Err(panic) = finish {
                std::panic::resume_unwind(panic);
            }
        }
        if hooked {
            self.apply_hook_commands();
        }
        Ok(())
    }

    /// Adds the components of `bundle` to `entity`, replacing (and dropping) values of
    /// types it already has.
    ///
    /// # Errors
    /// [`NoSuchEntity`] if the entity is not alive; nothing is changed and the bundle is
    /// dropped.
    ///
    /// # Panics
    /// If the bundle names a component type twice.
    #[track_caller]
    pub fn insert<B: Bundle>(&mut self, entity: Entity, bundle: B) -> Result<(), NoSuchEntity> {
        self.flush_reserved();
        let location = self.locate(entity)?;
        self.maintain_ticks();
        if self.reactor.replaces && self.replacing::<B>(entity, location) {
            // Observers of the values about to be overwritten ran; the row has not
            // moved (they cannot change the world's structure), and their commands
            // apply once the insert is done.
            let inserted = self.insert_located(entity, location, bundle);
            self.apply_hook_commands();
            return inserted;
        }
        self.insert_located(entity, location, bundle)
    }

    /// Reports the values of `B`'s components that `entity` has and an insert is about
    /// to overwrite, if some observer watches them. Whether it reported any.
    #[cold]
    fn replacing<B: Bundle>(&mut self, entity: Entity, location: Location) -> bool {
        let bundle = self.bundles.id_or_register::<B>(&mut self.components);
        self.replacing_bundle(bundle, entity, location)
    }

    /// [`replacing`](Self::replacing) for a registered bundle.
    #[cold]
    pub(crate) fn replacing_bundle(&mut self, bundle: BundleId, entity: Entity, location: Location) -> bool {
        if !self.bundles.info(bundle).hooks.has(HookKind::Replace) {
            return false;
        }
        let mut reported = false;
        self.react_listed(HookKind::Replace, entity, |world, ids| {
            let table = world.archetypes.get(location.archetype);
            ids.extend(world.bundles.info(bundle).ids.iter().copied().filter(|&c| {
                if world.components.is_sparse(c) {
                    world.sparse.get(c).is_some_and(|set| set.contains(entity))
                } else {
                    table.has(c)
                }
            }));
            reported = !ids.is_empty();
        });
        reported
    }

    /// [`insert`](Self::insert) once the entity is found.
    #[track_caller]
    fn insert_located<B: Bundle>(&mut self, entity: Entity, location: Location, bundle: B) -> Result<(), NoSuchEntity> {
        let now = self.change_tick();
        let source = location.archetype;
        let row = location.row.index();
        let registries = Registries {
            archetypes: &mut self.archetypes,
            bundles: &mut self.bundles,
            components: &mut self.components,
            now,
        };
        let edge = self.transitions.insert_edge::<B>(source, registries);
        let (target, bundle_id, has_sparse) = (edge.target, edge.bundle, edge.has_sparse);
        let (to, row) = if target == source {
            (self.archetypes.get_mut(source), row)
        } else {
            let [from, to] = self.archetypes.get_two_mut(source, target);
            for (column, &dst) in from.columns.iter_mut().zip(edge.moves.iter()) {
                column.swap_remove_into(row, &mut *to.columns[dst], now);
            }
            let new_row = Self::move_handle(&mut self.entities, entity, location, from, to);
            self.moves.push(Move::between(entity, Some(source), Some(target)));
            (to, new_row)
        };
        if !has_sparse {
            // SAFETY: the edge's `bundle_columns` hold the target column of each bundle
            // element's component id, in tuple order, all in the table.
            unsafe { bundle.write_at(&mut to.columns, &edge.bundle_columns, row, now) };
            // Only the bundle's own hooks run: a hooked component elsewhere in the
            // table (a `ChildOf`, say) costs this insert nothing.
            if self.bundles.info(bundle_id).hooks.adds_or_inserts() {
                self.hooks_after_write(bundle_id, entity, source, 0);
            }
            return Ok(());
        }
        let info = self.bundles.info(bundle_id);
        let hooks = info.hooks;
        let place = BundleRow::new(&mut to.columns, row, &edge.bundle_columns, info, &mut self.sparse, entity)
            .logging(&mut self.moves, target != source);
        // SAFETY: the edge's `bundle_columns` hold the target column of each bundle
        // element's component id, in tuple order, `SPARSE_COLUMN` for sparse ones.
        let added_sparse = unsafe { place.write(bundle, now) };
        if hooks.adds_or_inserts() {
            self.hooks_after_write(bundle_id, entity, source, added_sparse);
        }
        Ok(())
    }

    /// Removes the components of bundle `B` from `entity` and returns them.
    ///
    /// # Errors
    /// [`ComponentError::NoSuchEntity`] if the entity is not alive;
    /// [`ComponentError::MissingComponent`] (naming the first missing type) if it lacks
    /// any of `B`'s components. On error nothing is changed.
    ///
    /// # Panics
    /// If the bundle names a component type twice.
    #[track_caller]
    pub fn remove<B: Bundle>(&mut self, entity: Entity) -> Result<B, ComponentError> {
        self.flush_reserved();
        let location = self.locate(entity)?;
        self.maintain_ticks();
        let now = self.change_tick();
        let source = location.archetype;
        let row = location.row.index();
        let registries = Registries {
            archetypes: &mut self.archetypes,
            bundles: &mut self.bundles,
            components: &mut self.components,
            now,
        };
        let edge = self.transitions.remove_edge::<B>(source, registries);
        let (bundle_id, target, has_sparse) = match edge {
            RemoveEdge::Valid { bundle, target, has_sparse, .. } => (*bundle, *target, *has_sparse),
            RemoveEdge::Missing(component) => {
                let component = *component;
                return Err(self.missing_for_removal::<B>(entity, source, component));
            }
        };
        if has_sparse
            && let Some(error) = Self::lacking_sparse(&self.bundles, &self.components, &self.sparse, bundle_id, entity)
        {
            return Err(error);
        }
        // Only the bundle's own `on_remove` hooks run (see `insert`).
        let hooked = self.bundles.info(bundle_id).hooks.has(HookKind::Remove);
        let edge = if hooked {
            self.hooks_before_removal(entity, RemovedIds::Bundle(bundle_id));
            // Looked up again only because the hooks borrow the world; they see it
            // shared and defer their structural changes, so it is the edge found above.
            let registries = Registries {
                archetypes: &mut self.archetypes,
                bundles: &mut self.bundles,
                components: &mut self.components,
                now,
            };
            self.transitions.remove_edge::<B>(source, registries)
        } else {
            edge
        };
        let RemoveEdge::Valid { bundle_columns, moves, .. } = edge else { unreachable!("checked above") };
        let info = self.bundles.info(bundle_id);
        // The bundle first, from the source row; then the rest of the row moves.
        let table = &mut self.archetypes.get_mut(source).columns;
        let removed = if has_sparse {
            let place = BundleRow::new(table, row, bundle_columns, info, &mut self.sparse, entity);
            // SAFETY: the edge's `bundle_columns` hold the source column of each bundle
            // element's component id, in tuple order, `SPARSE_COLUMN` for sparse ones,
            // which the entity was checked to have.
            unsafe { place.take::<B>(now) }
        } else {
            // SAFETY: as above, every element in the table.
            unsafe { B::take(table, bundle_columns, row, now) }
        };
        if target != source {
            // Otherwise only sparse elements (or none) left: the row stays put.
            let [from, to] = self.archetypes.get_two_mut(source, target);
            for (column, dst) in from.columns.iter_mut().zip(moves.iter()) {
                if let Some(dst) = *dst {
                    column.swap_remove_into(row, &mut *to.columns[dst], now);
                }
            }
            Self::move_handle(&mut self.entities, entity, location, from, to);
            self.moves.push(Move::between(entity, Some(source), Some(target)));
        }
        Self::record_removals(&mut self.removals, &info.ids, entity, now);
        if has_sparse {
            let sparse = info.ids.iter().copied().filter(|&c| self.components.is_sparse(c));
            self.moves.push_sparse(entity, sparse, target != source);
        }
        if hooked {
            self.apply_hook_commands();
        }
        Ok(removed)
    }

    /// Why `entity`, in table `source` which lacks `component` of bundle `B`, cannot
    /// have `B` removed: the first element it lacks, in tuple order, table or sparse.
    #[cold]
    fn missing_for_removal<B: Bundle>(
        &mut self,
        entity: Entity,
        source: ArchetypeId,
        component: ComponentId,
    ) -> ComponentError {
        let bundle = self.bundles.id_or_register::<B>(&mut self.components);
        let table = self.archetypes.get(source);
        let lacks = |&c: &ComponentId| match self.sparse.get(c) {
            Some(set) => !set.contains(entity),
            None => !table.has(c),
        };
        let component = *self.bundles.info(bundle).ids.iter().find(|c| lacks(c)).unwrap_or(&component);
        MissingComponent { entity, component: self.components.info(component).name }.into()
    }

    /// The first sparse element of `bundle` that `entity` lacks, as an error.
    fn lacking_sparse(
        bundles: &Bundles,
        components: &Components,
        sets: &SparseSets,
        bundle: BundleId,
        entity: Entity,
    ) -> Option<ComponentError> {
        let lacking = bundles
            .info(bundle)
            .ids
            .iter()
            .find(|&&c| components.is_sparse(c) && !sets.get(c).is_some_and(|set| set.contains(entity)))?;
        Some(MissingComponent { entity, component: components.info(*lacking).name }.into())
    }

    /// Shared access to `entity`'s component `T`.
    ///
    /// # Errors
    /// [`ComponentError`] if the entity is not alive or lacks `T`.
    #[inline]
    pub fn get<T: Component>(&self, entity: Entity) -> Result<&T, ComponentError> {
        let location = self.locate(entity)?;
        let missing = MissingComponent { entity, component: std::any::type_name::<T>() };
        let id = self.components.id::<T>().ok_or(missing)?;
        if let Some(set) = self.sparse.get(id) {
            let dense = set.dense(entity).ok_or(missing)?;
            return Ok(downcast::<T>(&*set.values).get(dense));
        }
        let table = self.archetypes.get(location.archetype);
        let column = table.column_index(id).ok_or(missing)?;
        Ok(downcast::<T>(table.column(column)).get(location.row.index()))
    }

    /// Exclusive access to `entity`'s component `T`. Writing through the returned
    /// [`Mut`] marks the component changed if `T` is tracked.
    ///
    /// # Errors
    /// [`ComponentError`] if the entity is not alive or lacks `T`.
    #[inline]
    ///
    /// # Panics
    /// For a component only the world writes (a relation's: [`ChildOf`](crate::ChildOf),
    /// [`Children`](crate::Children), a [`Relation`](crate::Relation) and its
    /// [`Related`](crate::Related) list): change those through the relation's calls.
    #[track_caller]
    pub fn get_mut<T: Component>(&mut self, entity: Entity) -> Result<Mut<'_, T>, ComponentError> {
        self.maintain_ticks();
        let now = self.change_tick();
        let location = self.locate(entity)?;
        let missing = MissingComponent { entity, component: std::any::type_name::<T>() };
        let id = self.components.id::<T>().ok_or(missing)?;
        if let Some(refusal) = self.components.kept_refusal(id) {
            panic!("{refusal}");
        }
        let (column, row) = self.value_place_at::<T>(entity, location, id)?;
        Ok(column.get_mut(row, now))
    }

    /// The column holding `entity`'s `T` (its table's, or `T`'s sparse set's values)
    /// and the row of the value in it.
    ///
    /// # Errors
    /// [`ComponentError`] if the entity is not alive or lacks `T`.
    #[inline]
    pub(crate) fn value_place_mut<T: Component>(
        &mut self,
        entity: Entity,
    ) -> Result<(&mut TypedColumn<T>, usize), ComponentError> {
        let location = self.locate(entity)?;
        let missing = MissingComponent { entity, component: std::any::type_name::<T>() };
        let id = self.components.id::<T>().ok_or(missing)?;
        self.value_place_at::<T>(entity, location, id)
    }

    /// [`value_place_mut`](Self::value_place_mut) once the entity is found and `T`'s
    /// id known.
    #[inline]
    fn value_place_at<T: Component>(
        &mut self,
        entity: Entity,
        location: Location,
        id: ComponentId,
    ) -> Result<(&mut TypedColumn<T>, usize), ComponentError> {
        let missing = MissingComponent { entity, component: std::any::type_name::<T>() };
        if let Some(set) = self.sparse.get_mut(id) {
            let dense = set.dense(entity).ok_or(missing)?;
            return Ok((downcast_mut::<T>(&mut *set.values), dense));
        }
        let table = self.archetypes.get_mut(location.archetype);
        let index = table.column_index(id).ok_or(missing)?;
        Ok((downcast_mut::<T>(&mut *table.columns[index]), location.row.index()))
    }

    /// The column holding `entity`'s component `id` (its table's, or the sparse set's
    /// values) and the row of the value in it; `None` if it has none. `location` is
    /// the entity's.
    #[inline]
    pub(crate) fn column_place(
        &self,
        entity: Entity,
        location: Location,
        id: ComponentId,
    ) -> Option<(&dyn crate::storage::Column, usize)> {
        if let Some(set) = self.sparse.get(id) {
            return Some((&*set.values, set.dense(entity)?));
        }
        let table = self.archetypes.get(location.archetype);
        Some((table.column(table.column_index(id)?), location.row.index()))
    }

    /// A read-only view of `entity`, for asking which components it has.
    ///
    /// # Errors
    /// [`NoSuchEntity`] if the entity is not alive.
    #[inline]
    pub fn entity(&self, entity: Entity) -> Result<EntityRef<'_>, NoSuchEntity> {
        let location = self.locate(entity)?;
        Ok(EntityRef::new(self, entity, location))
    }

    /// A cached query over entities with the components `Q` fetches. See [`QueryState`].
    ///
    /// # Panics
    /// If `Q` would alias a component (`&mut A` twice, or `&A` with `&mut A`).
    #[track_caller]
    pub fn query<Q: QueryData>(&mut self) -> QueryState<Q, ()> {
        QueryState::new(self)
    }

    /// A cached query with a filter `F` such as `With<T>`, `Without<T>` or `Or<(..)>`.
    ///
    /// # Panics
    /// If `Q` would alias a component.
    #[track_caller]
    pub fn query_filtered<Q: QueryData, F: QueryFilter>(&mut self) -> QueryState<Q, F> {
        QueryState::new(self)
    }
}
