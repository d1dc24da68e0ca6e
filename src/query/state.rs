//! [`QueryState`]: a query's resolved components, its cache of matched tables, and
//! its change-tracking memory (the tick of its last run).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use crate::change::WorldPtr;
use crate::change::{RunTicks, Tick};
use crate::entity::Entity;
use crate::error::{NoSuchEntity, QueryEntityError};
use crate::storage::ArchetypeId;
use crate::world::{World, WorldId};

use super::access::{Access, QueryAccess};
use super::fetch::{QueryData, ReadOnlyQueryData};
use super::filter::QueryFilter;
use super::iter::QueryIter;
use super::run_end::{PendingRun, RunEnd};
use super::run_plan::RunKind;

/// One matched table and what the query resolved for it.
pub(crate) struct Matched<QA, FA> {
    pub(crate) archetype: ArchetypeId,
    pub(crate) data: QA,
    pub(crate) filter: FA,
}

/// [`QueryState::matched_position`]'s mark for an archetype the query does not match.
const UNMATCHED: u32 = u32::MAX;

/// The index in a query's matched tables of `archetype`'s entry, from the query's
/// `position` table (see [`QueryState::matched_position`]).
#[inline]
pub(super) fn matched_index(position: &[u32], archetype: ArchetypeId) -> Option<usize> {
    match position.get(archetype.0 as usize) {
        Some(&index) if index != UNMATCHED => Some(index as usize),
        _ => None,
    }
}

/// A row to visit: (index into the matched list, row).
pub(crate) type Candidate = (u32, u32);

/// How a run visits rows.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mode {
    /// Every row of every matched table; the filter decides per table only.
    Tables,
    /// Every row of every matched table, each tested by the filter.
    FilteredTables,
    /// Only the gathered candidate rows, each tested by the filter.
    Candidates,
    /// Only the rows the driving change filter lists, streamed table by table (for
    /// read-only queries: a writer would mark the summary being walked).
    Driven,
    /// The gathered candidate rows, entity by entity: the query reaches components
    /// stored in sparse sets (`sparse_run.rs`).
    Sparse,
}

/// What kind of run is starting. Each records its writes to tracked columns one way:
/// a serial run batches them per leaf (`stamper.rs`), a parallel one stamps rows and
/// folds the summaries when its participants are done (`parallel_run.rs`), and an
/// iterator's items stamp their rows as they are written (their items may outlive any
/// point the run controls).
/// `lookup_window`: lookups judge against the state's own last run.
const NO_WINDOW: u64 = u64::MAX;
/// `lookup_window`: lookups judge as if the state had never run.
const NEVER_RAN: u64 = u64::MAX - 1;

/// A [`QueryState`]'s memory of its runs, saved by `memory` and put back by
/// `restore_memory`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct QueryMemory {
    last_run: u32,
    has_run: bool,
    dirty_cursor: Option<u64>,
}

/// A query over entities that have what `Q` fetches and pass filter `F`.
///
/// Build one with [`World::query`] or [`World::query_filtered`] and keep it: it
/// remembers which archetype tables match and catches up with new ones
/// incrementally. It is also a *reader* of changes: every iteration (`iter`,
/// `iter_mut`, `for_each`, `for_each_mut`, `par_for_each`, `par_for_each_mut`,
/// `despawn_where`) is one run, and change filters ([`Changed`](crate::query::Changed),
/// [`Added`](crate::query::Added), [`Dirty`](crate::query::Dirty)) report what happened since this
/// state's previous run. `get` and `get_mut` are not runs. A run counts once it
/// completes (an iterator's when the iterator is dropped): if it panics part-way, the
/// state keeps its memory from before the run, and the next run reports again what
/// this one did not finish (at least once across a panic, exactly once otherwise).
///
/// ```
/// use ripple::World;
/// use ripple::query::Without;
/// struct Pos(f32);
/// struct Vel(f32);
/// struct Frozen;
///
/// let mut world = World::new();
/// world.spawn((Pos(0.0), Vel(1.0)));
/// world.spawn((Pos(0.0), Vel(1.0), Frozen));
///
/// let mut movers = world.query_filtered::<(&Vel, &mut Pos), Without<Frozen>>();
/// movers.for_each_mut(&mut world, |(vel, mut pos)| pos.0 += vel.0);
///
/// let mut positions = world.query::<&Pos>();
/// let mut moved: Vec<f32> = positions.iter(&world).map(|p| p.0).collect();
/// moved.sort_by(f32::total_cmp);
/// assert_eq!(moved, [0.0, 1.0]);
/// ```
pub struct QueryState<Q: QueryData, F: QueryFilter = ()> {
    world_id: WorldId,
    pub(super) data: Q::State,
    pub(super) filter: F::State,
    pub(crate) matched: Vec<Matched<Q::ArchState, F::ArchState>>,
    /// Per archetype id below `seen`, its index in `matched`, or `UNMATCHED` (read
    /// through [`matched_index`]).
    pub(super) position: Vec<u32>,
    /// Archetypes `0..seen` have been checked.
    seen: usize,
    /// The tick of the previous run, registered with the world so tick maintenance
    /// can clamp it ("Ticks never grow ambiguously old" in docs/design.md).
    last_run: Arc<AtomicU32>,
    /// Whether it has run: before the first run everything is new.
    has_run: AtomicBool,
    /// The last run lookups judge changes against while a system runs, if not the
    /// state's own (see `set_lookup_window`): a `u32` tick, or `NO_WINDOW`, `NEVER_RAN`.
    lookup_window: AtomicU64,
    /// Rows gathered for a `Candidates` or `Sparse` run, each once: for a `Dirty`
    /// filter sorted, for a driving change filter grouped by table, from a sparse set in
    /// the set's order.
    pub(crate) gathered: super::gather::Gathered,
    /// Reused by [`QueryState::despawn_where`].
    doomed: Vec<Entity>,
    /// Every component the query's data and filter touch, once each, with whether it
    /// is written, and the table components that decide a match.
    pub(crate) access: QueryAccess,
    /// Whether the query reaches a sparse component: then every run visits entity by
    /// entity (`Mode::Sparse`).
    pub(crate) sparse: bool,
    /// Tables with this component are skipped ([`Disabled`](crate::Disabled), unless
    /// the query names it).
    hidden: Option<crate::ComponentId>,
    /// The sparse components every match has: a run starts from the smallest set.
    pub(crate) required_sparse: Box<[crate::ComponentId]>,
    /// The sparse components whose presence decides a match (for `Dirty`).
    pub(crate) deciding_sparse: Box<[crate::ComponentId]>,
    /// The query's only sparse condition is one required component, so a sparse run
    /// starting from its set needs no test per entity (the rest is the tables'), and
    /// the fetch has no sparse part.
    pub(crate) presence_known: bool,
}

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Resolves the query against `world`.
    ///
    /// # Panics
    /// If `Q` would alias a component (`&mut A` twice, or `&A` with `&mut A`), with a
    /// message naming the component; if `Dirty` is nested in `Or`.
    #[track_caller]
    pub fn new(world: &mut World) -> Self {
        Self::build(world, true)
    }

    /// A query that also reaches [`Disabled`](crate::Disabled) entities without naming
    /// `Disabled`: for the world's own followers of changes (observers' change
    /// sources, replication, propagation), which must not lose what changes while an
    /// entity is disabled.
    #[track_caller]
    pub(crate) fn including_disabled(world: &mut World) -> Self {
        Self::build(world, false)
    }

    #[track_caller]
    fn build(world: &mut World, hide_disabled: bool) -> Self {
        let data = Q::init_state(world);
        let filter = F::init_state(world);
        let mut access = Access::default();
        Q::access(&data, &mut access);
        if let Some(conflict) = access.conflict() {
            panic!("query `{}` would alias: {conflict}", std::any::type_name::<Q>());
        }
        access.refuse_kept(|id| world.components.kept_refusal(id));
        if let Some(refusal) = access.conflict() {
            panic!("query `{}` may not write: {refusal}", std::any::type_name::<Q>());
        }
        F::access(&filter, &mut access);
        let hidden = crate::disabled::hidden_by_default(world, |id| access.names(id)).filter(|_| hide_disabled);
        let (mut required, mut deciding) = (Vec::new(), Vec::new());
        Q::sparse_ids(&data, &mut required, &mut deciding);
        F::sparse_ids(&filter, &mut required, &mut deciding);
        let sparse = Q::has_sparse(&data) || F::has_sparse(&filter);
        // `With<S>` alone lists `S` once as required and once as deciding; a fetch,
        // change filter or `Or` naming `S` lists it again or differently.
        let presence_known = F::IS_ARCHETYPAL && !Q::has_sparse(&data) && required.len() == 1 && deciding == required;
        let access = access.finish(|id| world.components.is_sparse(id));
        let mut state = QueryState {
            world_id: world.id(),
            data,
            filter,
            matched: Vec::new(),
            position: Vec::new(),
            seen: 0,
            last_run: world.register_change_reader(),
            has_run: AtomicBool::new(false),
            lookup_window: AtomicU64::new(NO_WINDOW),
            gathered: Default::default(),
            doomed: Vec::new(),
            access,
            sparse,
            required_sparse: required.into(),
            deciding_sparse: deciding.into(),
            presence_known,
            hidden,
        };
        state.update_archetypes(world);
        state
    }

    /// Checks the archetypes created since the last call.
    ///
    /// # Panics
    /// If `world` is not the world this query was built for.
    #[track_caller]
    #[inline]
    pub fn update_archetypes(&mut self, world: &World) {
        assert!(self.world_id == world.id(), "QueryState used with a World other than the one it was built for");
        // Inlined, this test is all a call costs when no table is new: `get_mut` calls it
        // once per entity.
        if self.seen != world.archetypes.len() {
            self.match_new_archetypes(world);
        }
    }

    /// Checks the archetypes `seen..` of `world`.
    #[cold]
    #[inline(never)]
    fn match_new_archetypes(&mut self, world: &World) {
        let total = world.archetypes.len();
        self.position.resize(total, UNMATCHED);
        for index in self.seen..total {
            let archetype = world.archetypes.get(ArchetypeId(index as u32));
            if self.hidden.is_some_and(|hidden| archetype.has(hidden)) {
                continue;
            }
            if let (Some(data), Some(filter)) =
                (Q::match_archetype(&self.data, archetype), F::match_archetype(&self.filter, archetype))
            {
                self.position[index] = self.matched.len() as u32;
                self.matched.push(Matched { archetype: archetype.id(), data, filter });
            }
        }
        self.seen = total;
    }

    /// The index in `matched` of `archetype`'s entry, if it matches (as of the last
    /// update): one load, where a search of `matched` would cost a step per halving.
    #[inline]
    pub(crate) fn matched_position(&self, archetype: ArchetypeId) -> Option<usize> {
        matched_index(&self.position, archetype)
    }

    /// Number of archetype tables this query matches (as of its last update).
    pub fn matched_archetypes(&self) -> usize {
        self.matched.len()
    }

    /// Makes the state as if it had just run, seeing nothing: its change filters
    /// report only changes made from now on (not, as on a first run, everything).
    pub(crate) fn skip_to_now(&mut self, world: &World) {
        self.update_archetypes(world);
        let now = world.increment_change_tick();
        self.last_run.store(now.0, Ordering::Relaxed);
        self.has_run.store(true, Ordering::Relaxed);
    }

    /// Sets the tick of the state's last run back to `tick` (one it had), so that
    /// the changes its runs since then reported are reported again.
    pub(crate) fn rewind_to(&self, tick: Tick) {
        self.last_run.store(tick.0, Ordering::Relaxed);
    }

    /// What the state remembers of its runs (last run, and where a `Dirty` filter
    /// reads the log), to [`restore`](Self::restore_memory) after a run that should not
    /// count (a [`Single`](crate::system::Single) that found no entity, say).
    pub(crate) fn memory(&self) -> QueryMemory {
        QueryMemory {
            last_run: self.last_run.load(Ordering::Relaxed),
            has_run: self.has_run.load(Ordering::Relaxed),
            dirty_cursor: F::dirty_state(&self.filter).map(|dirty| dirty.cursor.load(Ordering::Relaxed)),
        }
    }

    /// Puts the state's memory back to `memory`, taken from this state since no
    /// maintenance of the world's ticks or log (a frame's start, a sync point) ran:
    /// the runs since report their changes again.
    pub(crate) fn restore_memory(&self, memory: QueryMemory) {
        self.last_run.store(memory.last_run, Ordering::Relaxed);
        self.has_run.store(memory.has_run, Ordering::Relaxed);
        if let (Some(dirty), Some(cursor)) = (F::dirty_state(&self.filter), memory.dirty_cursor) {
            dirty.cursor.store(cursor, Ordering::Relaxed);
        }
    }

    /// The tick of this state's last run, if it has run.
    pub fn last_run(&self) -> Option<Tick> {
        self.has_run.load(Ordering::Relaxed).then(|| Tick(self.last_run.load(Ordering::Relaxed)))
    }

    /// Makes lookups (`get`, `get_many`, `for_each_of`) judge changes against
    /// `memory`'s last run instead of the state's: a system's query sets the memory its
    /// run started from, so that a lookup after an iteration in the same run sees the
    /// run's window, as the iterations do; `None` goes back to the state's last run.
    /// Only within one system run (no tick maintenance runs meanwhile).
    pub(crate) fn set_lookup_window(&self, memory: Option<QueryMemory>) {
        let window = match memory {
            None => NO_WINDOW,
            Some(QueryMemory { has_run: false, .. }) => NEVER_RAN,
            Some(QueryMemory { last_run, .. }) => u64::from(last_run),
        };
        self.lookup_window.store(window, Ordering::Relaxed);
    }

    /// The last run a lookup judges changes against (see `set_lookup_window`).
    #[inline]
    pub(crate) fn lookup_last_run(&self) -> Option<Tick> {
        match self.lookup_window.load(Ordering::Relaxed) {
            NO_WINDOW => self.last_run(),
            NEVER_RAN => None,
            // Set from a `u32` tick.
            window => Some(Tick(window as u32)),
        }
    }

    /// The end of a run begun with `pending` (see [`RunEnd`]).
    pub(super) fn end_of(&self, pending: PendingRun) -> RunEnd<'_> {
        RunEnd {
            last_run: &self.last_run,
            has_run: &self.has_run,
            dirty_cursor: F::dirty_state(&self.filter).map(|dirty| &*dirty.cursor),
            pending,
        }
    }

    /// Iterates over the matching entities' items. One run.
    ///
    /// With a change filter (`Changed<T>`, `Added<T>`), an iterator first gathers the
    /// changed rows into the state's list, then hands them out; [`for_each`](Self::for_each)
    /// walks the change records while it calls its closure, without the list, and is
    /// the cheaper of the two where nothing needs the iterator.
    #[track_caller]
    pub fn iter<'w, 's>(&'s mut self, world: &'w World) -> QueryIter<'w, 's, Q, F>
    where
        Q: ReadOnlyQueryData,
    {
        let (ticks, mode, pending) = self.begin_run(world, RunKind::Iterator);
        QueryIter::new(world, self, &self.gathered.candidates, ticks, mode, pending)
    }

    /// Iterates over the matching entities' items, with mutable access. One run.
    #[track_caller]
    pub fn iter_mut<'w, 's>(&'s mut self, world: &'w mut World) -> QueryIter<'w, 's, Q, F> {
        world.maintain_ticks();
        // Items may outlive any point the state controls, so writes mark as they go.
        let (ticks, mode, pending) = self.begin_run(world, RunKind::Iterator);
        QueryIter::new(world, self, &self.gathered.candidates, ticks, mode, pending)
    }

    /// The items that satisfy `predicate` (a "query where"). One run.
    #[track_caller]
    pub fn iter_where<'w, 's, P>(
        &'s mut self,
        world: &'w World,
        predicate: P,
    ) -> std::iter::Filter<QueryIter<'w, 's, Q, F>, P>
    where
        Q: ReadOnlyQueryData,
        P: FnMut(&Q::Item<'w>) -> bool,
    {
        self.iter(world).filter(predicate)
    }

    /// Calls `f` with each matching entity's item. One run.
    ///
    /// With a change filter this walks the change records as it goes (see
    /// [`iter`](Self::iter), which gathers them first).
    #[track_caller]
    pub fn for_each<'w>(&mut self, world: &'w World, mut f: impl FnMut(Q::Item<'w>))
    where
        Q: ReadOnlyQueryData,
    {
        let (ticks, mode, pending) = self.begin_run(world, RunKind::Serial);
        let _end = self.end_of(pending);
        // SAFETY: `Q` is read-only and `world` is shared for `'w`, so no one writes.
        unsafe { self.run_unchecked(world, ticks, mode, move |_, _, item| f(item)) }
    }

    /// Calls `f` with each matching entity's item, with mutable access. One run.
    ///
    /// Items cannot outlive the call to `f` that receives them: writes made through
    /// them are folded into the change summaries as the run leaves each table, so a
    /// write after the run would go unseen by readers.
    ///
    /// ```compile_fail
    /// # use ripple::{Mut, World};
    /// let mut world = World::new();
    /// world.spawn((1u32,));
    /// let mut query = world.query::<&mut u32>();
    /// let mut kept: Vec<Mut<'_, u32>> = Vec::new();
    /// query.for_each_mut(&mut world, |item| kept.push(item)); // error: `item` escapes
    /// ```
    #[track_caller]
    pub fn for_each_mut(&mut self, world: &mut World, mut f: impl for<'a> FnMut(Q::Item<'a>)) {
        world.maintain_ticks();
        let (ticks, mode, pending) = self.begin_run(world, RunKind::Serial);
        let _end = self.end_of(pending);
        // SAFETY: `world` is borrowed exclusively for `'w`, and `Q` was checked not to
        // alias when this state was built.
        unsafe { self.run_unchecked(world, ticks, mode, move |_, _, item| f(item)) }
    }

    /// Like [`for_each`](Self::for_each), spread over rayon's threads. One run.
    #[track_caller]
    pub fn par_for_each<'w>(&mut self, world: &'w World, f: impl Fn(Q::Item<'w>) + Send + Sync)
    where
        Q: ReadOnlyQueryData,
    {
        let (ticks, mode, pending) = self.begin_run(world, RunKind::Parallel);
        let _end = self.end_of(pending);
        // SAFETY: `Q` is read-only and `world` is shared for `'w`, so no one writes.
        unsafe { self.par_run_unchecked(world, ticks, mode, &f) };
    }

    /// Like [`for_each_mut`](Self::for_each_mut), spread over rayon's threads: each
    /// thread takes chunks of rows from one shared counter until none are left, the
    /// chunks shrinking as the rows run out so that the threads finish together; each
    /// row is visited by exactly one thread. One run.
    /// As there, items cannot outlive the call that receives them.
    #[track_caller]
    pub fn par_for_each_mut(&mut self, world: &mut World, f: impl for<'a> Fn(Q::Item<'a>) + Send + Sync) {
        world.maintain_ticks();
        // Parallel writers only stamp rows (no shared summary entries are written
        // concurrently); the summaries are folded once every participant is done.
        let (ticks, mode, pending) = self.begin_run(world, RunKind::Parallel);
        let _end = self.end_of(pending);
        // SAFETY: `world` is borrowed exclusively for `'w` and `Q` does not alias; the
        // participants claim disjoint rows.
        unsafe { self.par_run_unchecked(world, ticks, mode, &f) };
    }

    /// The item of `entity`, if it matches. Change filters are judged against this
    /// state's last run; `Dirty` is not consulted. Not a run.
    ///
    /// # Errors
    /// [`QueryEntityError::NoSuchEntity`] for a dead entity;
    /// [`QueryEntityError::DoesNotMatch`] if it does not match the query.
    #[track_caller]
    #[inline]
    pub fn get<'w>(&mut self, world: &'w World, entity: Entity) -> Result<Q::Item<'w>, QueryEntityError>
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        // SAFETY: `Q` is read-only and `world` is shared for `'w`.
        unsafe { self.get_unchecked(world, entity) }
    }

    /// The item of `entity` with mutable access, if it matches; writes through it are
    /// stamped with the world's current tick. Not a run.
    ///
    /// To write a known list of entities, [`for_each_of_mut`](Self::for_each_of_mut)
    /// does the same work with the entity lookups loaded ahead and one table lookup
    /// per run of entities in the same table: a loop of `get_mut` calls waits for
    /// each entity's memory in turn.
    ///
    /// # Errors
    /// As [`get`](Self::get).
    #[track_caller]
    #[inline(always)]
    pub fn get_mut<'w>(&mut self, world: &'w mut World, entity: Entity) -> Result<Q::Item<'w>, QueryEntityError> {
        world.maintain_ticks();
        self.update_archetypes(world);
        // SAFETY: `world` is borrowed exclusively for `'w`; one item is made.
        unsafe { self.get_unchecked(world, entity) }
    }

    /// Calls `f` with the item of each entity of `entities` that is alive and matches,
    /// in the order given, and returns how many it visited; the others are skipped.
    /// Like [`get`](Self::get) (not a run), but the table lookup is shared by
    /// consecutive entities of one table.
    ///
    /// ```
    /// use ripple::World;
    /// struct Pos(f32);
    /// let mut world = World::new();
    /// let ids: Vec<_> = world.spawn_batch((0..10).map(|i| (Pos(i as f32),))).collect();
    /// let mut query = world.query::<&Pos>();
    /// let mut sum = 0.0;
    /// assert_eq!(query.for_each_of(&world, &ids[..3], |p| sum += p.0), 3);
    /// assert_eq!(sum, 3.0);
    /// ```
    #[track_caller]
    pub fn for_each_of(&mut self, world: &World, entities: &[Entity], f: impl for<'a> FnMut(Q::Item<'a>)) -> usize
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        // SAFETY: `Q` is read-only and `world` is shared, so no one writes.
        unsafe { self.for_each_of_unchecked(world, entities, f) }
    }

    /// Mutable form of [`for_each_of`](Self::for_each_of): writes are stamped with the
    /// world's current tick. An entity listed twice is visited twice, one item at a
    /// time (items cannot outlive the call to `f`).
    ///
    /// ```
    /// use ripple::World;
    /// struct Pos(f32);
    /// let mut world = World::new();
    /// let ids: Vec<_> = world.spawn_batch((0..10).map(|i| (Pos(i as f32),))).collect();
    /// let movers = [ids[2], ids[7], ids[2]];
    /// let mut query = world.query::<&mut Pos>();
    /// query.for_each_of_mut(&mut world, &movers, |mut p| p.0 += 1.0);
    /// assert_eq!(world.get::<Pos>(ids[2]).unwrap().0, 4.0);
    /// ```
    #[track_caller]
    pub fn for_each_of_mut(
        &mut self,
        world: &mut World,
        entities: &[Entity],
        f: impl for<'a> FnMut(Q::Item<'a>),
    ) -> usize {
        world.maintain_ticks();
        self.update_archetypes(world);
        // SAFETY: `world` is borrowed exclusively and `Q` does not alias; `f` cannot keep
        // an item past its call, so even a repeated entity has one item alive at a time.
        unsafe { self.for_each_of_unchecked(world, entities, f) }
    }

    /// Despawns every matching entity whose item satisfies `predicate` (a "delete
    /// where") and returns how many were despawned. One run.
    #[track_caller]
    pub fn despawn_where(&mut self, world: &mut World, mut predicate: impl FnMut(Q::Item<'_>) -> bool) -> usize
    where
        Q: ReadOnlyQueryData,
    {
        let mut doomed = std::mem::take(&mut self.doomed);
        doomed.clear();
        {
            let shared: &World = world;
            let (ticks, mode, pending) = self.begin_run(shared, RunKind::Serial);
            let _end = self.end_of(pending);
            // SAFETY: `Q` is read-only and `shared` is not written while it lives.
            unsafe {
                self.run_unchecked(shared, ticks, mode, |table, row, item| {
                    if predicate(item) {
                        doomed.push(table.entities()[row]);
                    }
                });
            }
        }
        // An `on_remove` hook may already have despawned a later one of them.
        let count = doomed.drain(..).filter(|&entity| world.despawn(entity).is_ok()).count();
        self.doomed = doomed;
        count
    }

    /// `entity`'s matched table and row, if it is alive and its table matches (the
    /// filter's row test and sparse components not yet tested).
    #[inline]
    pub(super) fn matched_row<'w>(
        &self,
        world: &'w World,
        entity: Entity,
    ) -> Result<MatchedRow<'_, 'w, Q, F>, QueryEntityError> {
        let location = world.entities.get(entity).ok_or(NoSuchEntity(entity))?;
        let does_not_match = QueryEntityError::DoesNotMatch { entity, query: std::any::type_name::<Q>() };
        let index = self.matched_position(location.archetype).ok_or(does_not_match)?;
        debug_assert!(index < self.matched.len() && self.matched[index].archetype == location.archetype);
        // SAFETY: the position table names entries of `matched` (`match_new_archetypes`
        // writes each index as it pushes the entry).
        let matched = unsafe { self.matched.get_unchecked(index) };
        // SAFETY: a live entity's table exists (tables are never removed).
        let table = unsafe { world.archetypes.get_unchecked(location.archetype) };
        Ok((matched, table, location.row.index()))
    }

    /// # Safety
    /// The caller holds the access `Q` declares on `world` for `'w`, and no other item
    /// for `entity` from this query is alive.
    #[inline(always)]
    pub(super) unsafe fn get_unchecked<'w>(
        &self,
        world: &'w World,
        entity: Entity,
    ) -> Result<Q::Item<'w>, QueryEntityError> {
        // Not a run: judged against the last run, writes stamped with the current tick.
        // Only a query that compares ticks reads its last run (two loads per call that a
        // plain `&mut T` would pay for nothing).
        let last_run = if F::IS_ARCHETYPAL && !Q::OBSERVES { None } else { self.lookup_last_run() };
        let ticks = RunTicks { last_run, this_run: world.change_tick(), world: WorldPtr(world) };
        // One path for table and sparse components, inlined whole: a call to a separate
        // sparse path would return the item through memory, which every caller of
        // `get_mut` would then pay for.
        // SAFETY: forwarded from the caller.
        unsafe { self.item_of(world, entity, ticks) }
    }

    /// The item of `entity` if it matches (`get` and `get_mut`), for a query with or
    /// without sparse components: a component's sparse part is `None` when it is
    /// stored in tables. Not a run: `ticks` judges against the state's last run and
    /// stamps writes with the current tick.
    ///
    /// # Safety
    /// The caller holds the access `Q` declares on `world` for `'w`, and no other item
    /// for `entity` from this state is alive.
    #[inline(always)]
    pub(super) unsafe fn item_of<'w>(
        &self,
        world: &'w World,
        entity: Entity,
        ticks: RunTicks,
    ) -> Result<Q::Item<'w>, QueryEntityError> {
        let (matched, table, row) = self.matched_row(world, entity)?;
        if !self.sparse && F::IS_ARCHETYPAL {
            // The common case, on a path of its own: the table says everything, and the
            // sparse parts' tests and fetches (which would be `None` here, but tested at
            // run time on every call) drop out of the code.
            // SAFETY: resolved for this table, which holds every component the query
            // reaches (none is sparse); `row` is the entity's live row; access and
            // uniqueness per the caller.
            return Ok(unsafe { Q::fetch(&Q::fetch_archetype(matched.data, table, ticks), row) });
        }
        let does_not_match = QueryEntityError::DoesNotMatch { entity, query: std::any::type_name::<Q>() };
        // SAFETY: resolved for this table; `row` is the entity's live row; access and
        // uniqueness per the caller.
        unsafe {
            let data_sets = Q::fetch_sparse(&self.data, world, ticks);
            let filter_sets = F::fetch_sparse(&self.filter, world, ticks);
            let filter = F::fetch_archetype(matched.filter, table, ticks);
            if !Q::sparse_matches(&data_sets, entity) || !F::filter_entity(&filter, &filter_sets, entity, row) {
                return Err(does_not_match);
            }
            Ok(Q::fetch_entity(&Q::fetch_archetype(matched.data, table, ticks), &data_sets, entity, row))
        }
    }
}

/// An entity's place for a query: its matched table's entry, the table, and the row.
type MatchedRow<'s, 'w, Q, F> =
    (&'s Matched<<Q as QueryData>::ArchState, <F as QueryFilter>::ArchState>, &'w crate::storage::Archetype, usize);

/// Entry points for [`Query`](crate::system::Query), the system parameter: the schedule, not
/// a `&mut World`, guarantees the declared access.
impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// One iterator run.
    ///
    /// # Safety
    /// The caller holds the access this state declares on `world` for `'w`.
    pub(crate) unsafe fn iter_unchecked<'w, 's>(&'s mut self, world: &'w World) -> QueryIter<'w, 's, Q, F> {
        let (ticks, mode, pending) = self.begin_run(world, RunKind::Iterator);
        QueryIter::new(world, self, &self.gathered.candidates, ticks, mode, pending)
    }

    /// One serial run; returns the number of items handed to `f`.
    ///
    /// # Safety
    /// As `iter_unchecked`.
    pub(crate) unsafe fn for_each_unchecked(&mut self, world: &World, f: impl for<'a> FnMut(Q::Item<'a>)) -> usize {
        // SAFETY: per the caller; items cannot outlive the call to `f`.
        unsafe { self.run_counted(world, f) }
    }

    /// One serial run of a read-only query whose items may outlive the call to `f`.
    ///
    /// # Safety
    /// As `iter_unchecked`.
    pub(crate) unsafe fn for_each_shared<'w>(&mut self, world: &'w World, f: impl FnMut(Q::Item<'w>)) -> usize
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: per the caller; `Q` only reads, so items may outlive `f`'s call.
        unsafe { self.run_counted(world, f) }
    }

    /// One serial run handing items of lifetime `'w` to `f`; returns how many.
    ///
    /// # Safety
    /// As `iter_unchecked`; if `Q` writes, items must not outlive `f`'s call (the
    /// callers' bounds see to it).
    unsafe fn run_counted<'w>(&mut self, world: &'w World, mut f: impl FnMut(Q::Item<'w>)) -> usize {
        let (ticks, mode, pending) = self.begin_run(world, RunKind::Serial);
        let _end = self.end_of(pending);
        let mut visited = 0;
        let counter = &mut visited;
        // SAFETY: per the caller.
        unsafe {
            self.run_unchecked(world, ticks, mode, move |_, _, item| {
                *counter += 1;
                f(item)
            })
        };
        visited
    }

    /// One parallel run; returns the number of rows it examined.
    ///
    /// # Safety
    /// As `iter_unchecked`.
    pub(crate) unsafe fn par_for_each_unchecked<'w, G>(&mut self, world: &'w World, f: &G) -> usize
    where
        G: Fn(Q::Item<'w>) + Send + Sync,
    {
        let (ticks, mode, pending) = self.begin_run(world, RunKind::Parallel);
        let _end = self.end_of(pending);
        // SAFETY: per the caller.
        unsafe { self.par_run_unchecked(world, ticks, mode, f) }
    }

    /// The item of `entity`, not a run, for a state already [updated](Self::update_archetypes)
    /// against `world`: a system's query is updated once per run, when the system
    /// receives it, and no table can appear while the run holds the world shared, so
    /// each call skips the world's identity and table count checks.
    ///
    /// # Safety
    /// As `iter_unchecked`; no other item for `entity` from this state is alive; the
    /// state was updated against `world`, which gained no table since.
    pub(crate) unsafe fn get_in<'w>(&self, world: &'w World, entity: Entity) -> Result<Q::Item<'w>, QueryEntityError> {
        debug_assert!(self.world_id == world.id() && self.seen == world.archetypes.len());
        // SAFETY: per the caller.
        unsafe { self.get_unchecked(world, entity) }
    }

    /// Visits the items of `entities`, not a run.
    ///
    /// # Safety
    /// As `iter_unchecked`.
    pub(crate) unsafe fn for_each_of_in(
        &mut self,
        world: &World,
        entities: &[Entity],
        f: impl for<'a> FnMut(Q::Item<'a>),
    ) -> usize {
        self.update_archetypes(world);
        // SAFETY: per the caller; items cannot outlive the call to `f`.
        unsafe { self.for_each_of_unchecked(world, entities, f) }
    }

    /// The number of entities in the tables this query matches (as of its last
    /// update), filters on rows aside: an upper bound on its items, exact for a query
    /// without change filters or sparse components. Sparse components do not split
    /// tables, so a query naming one (`With<S>`, `&S`, `Without<S>`) counts every entity
    /// of the tables its table components match, with or without `S`; count the items
    /// (its iterator's `len()`) for the exact number.
    pub fn matched_entities(&self, world: &World) -> usize {
        self.matched.iter().map(|m| world.archetypes.get(m.archetype).len()).sum()
    }
}
