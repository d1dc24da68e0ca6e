//! [`QueryState`]: a query's resolved components, its cache of matched tables, and
//! its change-tracking memory (the tick of its last run).

use std::cell::Cell;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::change::{LEAF, Move, RunTicks, Tick};
use crate::entity::Entity;
use crate::error::{NoSuchEntity, QueryEntityError};
use crate::storage::{Archetype, ArchetypeId};
use crate::world::{World, WorldId};

use super::access::Access;
use super::change_filter::DirtyState;
use super::fetch::{QueryData, ReadOnlyQueryData};
use super::filter::QueryFilter;
use super::iter::QueryIter;
use super::parallel::SharedRows;

/// One matched table and what the query resolved for it.
pub(crate) struct Matched<QA, FA> {
    pub(crate) archetype: ArchetypeId,
    pub(crate) data: QA,
    pub(crate) filter: FA,
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
}

/// What kind of run is starting.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum RunKind {
    /// `for_each`-style: rows may be streamed; full-table writes defer summaries.
    Serial,
    /// An iterator: rows must be listed up front; writes mark as they go.
    Iterator,
    /// Threads share the rows out: rows listed up front; writes only stamp rows.
    Parallel,
}

/// Visits `rows` [`UNROLL`] at a time, so that the compiler sees the calls of `f` side
/// by side and can merge their loads and stores into vector instructions (which it
/// does when the items reach their columns through parameters it knows to be
/// distinct, see [`QueryData::with_rows`]). Eight rather than four: a loop the compiler
/// would vectorize on its own (a swap of two `f32` columns) otherwise pays its loop
/// overhead every four rows. Of the last rows, fewer than eight, the first four (if
/// there are four) go side by side too: a table of 20 rows then runs as two chunks and
/// one vector step with no row-at-a-time loop (frag_iter: 99 → 70 ns for 26 such
/// tables).
///
/// `fetch` gets each row with its slot, the row's offset from the start of its chunk
/// (below [`UNROLL`]); `after_chunk` gets each chunk's first row once the chunk's rows
/// are visited (the last chunk may be shorter). In the unrolled loop the slot is a
/// constant, so per-row bookkeeping keyed by slot (a bit per slot, one accumulator per
/// slot modulo [`LANES`]) costs the rows nothing when `f` writes unconditionally, and
/// does not make the side-by-side rows wait for each other when it does not.
#[inline(always)]
fn visit_unrolled<I>(
    rows: Range<usize>,
    mut fetch: impl FnMut(usize, usize) -> I,
    mut f: impl FnMut(usize, I),
    mut after_chunk: impl FnMut(usize),
) {
    let (mut row, end) = (rows.start, rows.end);
    while end - row >= UNROLL {
        for slot in 0..UNROLL {
            f(row + slot, fetch(row + slot, slot));
        }
        after_chunk(row);
        row += UNROLL;
    }
    if row < end {
        let chunk = row;
        if end - row >= UNROLL / 2 {
            for slot in 0..UNROLL / 2 {
                f(row + slot, fetch(row + slot, slot));
            }
            row += UNROLL / 2;
        }
        while row < end {
            f(row, fetch(row, row - chunk));
            row += 1;
        }
        after_chunk(chunk);
    }
}

/// Rows a table loop visits side by side (see [`visit_unrolled`]).
const UNROLL: usize = 8;
/// Accumulators of a tracked table loop (see [`visit_unrolled`]).
const LANES: usize = 4;

/// Splits sorted candidates into runs of one table each: `(matched index, rows)`.
fn table_groups(mut rest: &[Candidate]) -> impl Iterator<Item = (usize, &[Candidate])> {
    std::iter::from_fn(move || {
        let &(index, _) = rest.first()?;
        let count = rest.iter().take_while(|c| c.0 == index).count();
        let (group, tail) = rest.split_at(count);
        rest = tail;
        Some((index as usize, group))
    })
}

/// A query over entities that have what `Q` fetches and pass filter `F`.
///
/// Build one with [`World::query`] or [`World::query_filtered`] and keep it: it
/// remembers which archetype tables match and catches up with new ones
/// incrementally. It is also an *observer* of changes: every iteration (`iter`,
/// `iter_mut`, `for_each`, `for_each_mut`, `par_for_each`, `par_for_each_mut`,
/// `despawn_where`) is one run, and change filters ([`Changed`](crate::Changed),
/// [`Added`](crate::Added), [`Dirty`](crate::Dirty)) report what happened since this
/// state's previous run. `get` and `get_mut` are not runs.
///
/// ```
/// use ripple::{World, Without};
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
    data: Q::State,
    filter: F::State,
    pub(crate) matched: Vec<Matched<Q::ArchState, F::ArchState>>,
    /// Archetypes `0..seen` have been checked.
    seen: usize,
    /// The tick of the previous run, registered with the world so tick maintenance
    /// can clamp it (R12).
    last_run: Arc<AtomicU32>,
    /// Whether it has run: before the first run everything is new (R6).
    has_run: bool,
    /// Rows gathered for a `Candidates` run, sorted.
    pub(crate) candidates: Vec<Candidate>,
    /// Reused by [`QueryState::despawn_where`].
    doomed: Vec<Entity>,
    /// Every component the query's data and filter touch, once each, with whether it
    /// is written.
    pub(crate) access: Box<[(crate::ComponentId, bool, &'static str)]>,
}

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Resolves the query against `world`.
    ///
    /// # Panics
    /// If `Q` would alias a component (`&mut A` twice, or `&A` with `&mut A`), with a
    /// message naming the component; if `Dirty` is nested in `Or`.
    #[track_caller]
    pub fn new(world: &mut World) -> Self {
        let data = Q::init_state(world);
        let filter = F::init_state(world);
        let mut access = Access::default();
        Q::access(&data, &mut access);
        if let Some(conflict) = access.conflict() {
            panic!("query `{}` would alias: {conflict}", std::any::type_name::<Q>());
        }
        F::access(&filter, &mut access);
        let mut state = QueryState {
            world_id: world.id(),
            data,
            filter,
            matched: Vec::new(),
            seen: 0,
            last_run: world.register_observer(),
            has_run: false,
            candidates: Vec::new(),
            doomed: Vec::new(),
            access: access.merged().into(),
        };
        state.update_archetypes(world);
        state
    }

    /// Checks the archetypes created since the last call.
    ///
    /// # Panics
    /// If `world` is not the world this query was built for.
    #[track_caller]
    pub fn update_archetypes(&mut self, world: &World) {
        assert!(self.world_id == world.id(), "QueryState used with a World other than the one it was built for");
        let total = world.archetypes.len();
        for index in self.seen..total {
            let archetype = world.archetypes.get(ArchetypeId(index as u32));
            if let (Some(data), Some(filter)) =
                (Q::match_archetype(&self.data, archetype), F::match_archetype(&self.filter, archetype))
            {
                self.matched.push(Matched { archetype: archetype.id(), data, filter });
            }
        }
        self.seen = total;
    }

    /// Number of archetype tables this query matches (as of its last update).
    pub fn matched_archetypes(&self) -> usize {
        self.matched.len()
    }

    /// The tick of this state's last run, if it has run.
    pub fn last_run(&self) -> Option<Tick> {
        self.has_run.then(|| Tick(self.last_run.load(Ordering::Relaxed)))
    }

    /// Starts a run: catches up with new tables, takes a tick, gathers candidate rows
    /// if the filter drives iteration, and remembers the tick for the next run.
    #[track_caller]
    fn begin_run(&mut self, world: &World, kind: RunKind) -> (RunTicks, Mode) {
        self.update_archetypes(world);
        // Only an observer (a query with a change filter) needs a tick of its own; a
        // query without one stamps its writes with the current tick, like a write
        // outside any run, which is still newer than every observer's last run.
        let this_run = if F::IS_ARCHETYPAL { world.change_tick() } else { world.increment_change_tick() };
        // Tick maintenance keeps an idle observer's last run ordered against every
        // stored tick, however long it idles (R12).
        let last_run = self.last_run();
        let dirty = F::dirty_state(&self.filter);
        let mode = if F::IS_ARCHETYPAL {
            Mode::Tables
        } else if last_run.is_none() {
            if let Some(dirty) = dirty {
                // Everything is dirty on a first run; skip the log so far.
                world.moves.read(&dirty.cursor).for_each(drop);
            }
            Mode::FilteredTables
        } else if let Some(dirty) = dirty {
            let gather = RunTicks { last_run, this_run, defer: false };
            gather_dirty(&mut self.candidates, &self.matched, world, gather, dirty);
            Mode::Candidates
        } else if F::DRIVES && kind == RunKind::Serial && Q::IS_READ_ONLY {
            // Streaming walks the summary while the closure runs, so only a query that
            // cannot write (and so cannot mark that summary) may stream.
            Mode::Driven
        } else if F::DRIVES {
            self.gather_driven(world, RunTicks { last_run, this_run, defer: false });
            Mode::Candidates
        } else {
            Mode::FilteredTables
        };
        // Deferring pays when a run may write every row of a table, and is needed when
        // parallel participants write; a serial run over a few listed rows marks as it goes.
        let defer = match kind {
            RunKind::Parallel => true,
            RunKind::Iterator => false,
            RunKind::Serial => matches!(mode, Mode::Tables | Mode::FilteredTables),
        };
        let ticks = RunTicks { last_run, this_run, defer };
        self.last_run.store(this_run.0, Ordering::Relaxed);
        self.has_run = true;
        (ticks, mode)
    }

    /// Candidates from the driving change filter, table by table.
    fn gather_driven(&mut self, world: &World, ticks: RunTicks) {
        let candidates = &mut self.candidates;
        candidates.clear();
        for (index, matched) in self.matched.iter().enumerate() {
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; a filter only reads ticks.
            let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
            // SAFETY: `filter` was made for this table of `table.len()` rows.
            unsafe {
                F::for_each_candidate(&filter, table.len(), &mut |row| candidates.push((index as u32, row as u32)));
            }
        }
    }

    /// Iterates over the matching entities' items. One run.
    #[track_caller]
    pub fn iter<'w, 's>(&'s mut self, world: &'w World) -> QueryIter<'w, 's, Q, F>
    where
        Q: ReadOnlyQueryData,
    {
        let (ticks, mode) = self.begin_run(world, RunKind::Iterator);
        QueryIter::new(world, self, ticks, mode)
    }

    /// Iterates over the matching entities' items, with mutable access. One run.
    #[track_caller]
    pub fn iter_mut<'w, 's>(&'s mut self, world: &'w mut World) -> QueryIter<'w, 's, Q, F> {
        world.maintain_ticks();
        // Items may outlive any point the state controls, so writes mark as they go.
        let (ticks, mode) = self.begin_run(world, RunKind::Iterator);
        QueryIter::new(world, self, ticks, mode)
    }

    /// The items that satisfy `predicate` (the seed's `queryWhere`). One run.
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
    #[track_caller]
    pub fn for_each<'w>(&mut self, world: &'w World, mut f: impl FnMut(Q::Item<'w>))
    where
        Q: ReadOnlyQueryData,
    {
        let (ticks, mode) = self.begin_run(world, RunKind::Serial);
        // SAFETY: `Q` is read-only and `world` is shared for `'w`, so no one writes.
        unsafe { self.run_unchecked(world, ticks, mode, move |_, _, item| f(item)) }
    }

    /// Calls `f` with each matching entity's item, with mutable access. One run.
    ///
    /// Items cannot outlive the call to `f` that receives them: writes made through
    /// them are folded into the change summaries as the run leaves each table, so a
    /// write after the run would go unseen by observers.
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
        let (ticks, mode) = self.begin_run(world, RunKind::Serial);
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
        let (ticks, mode) = self.begin_run(world, RunKind::Parallel);
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
        let (ticks, mode) = self.begin_run(world, RunKind::Parallel);
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
    /// # Errors
    /// As [`get`](Self::get).
    #[track_caller]
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

    /// # Safety
    /// The caller holds the access `Q` declares on `world` for the call, and the
    /// archetype cache is up to date.
    unsafe fn for_each_of_unchecked<'w>(
        &self,
        world: &'w World,
        entities: &[Entity],
        mut f: impl for<'a> FnMut(Q::Item<'a>),
    ) -> usize {
        /// How far ahead the entity's slot is prefetched; its row's columns are
        /// prefetched half as far ahead, once the slot has arrived.
        const AHEAD: usize = 16;
        // Not a run: judged against the last run, writes stamped with the current tick.
        let ticks = RunTicks { last_run: self.last_run(), this_run: world.change_tick(), defer: false };
        // The table of the previous entity. Dropping it (when the next entity is in
        // another table, at the end, or while a panic unwinds) stamps what it recorded.
        let mut open: Option<OpenTable<'w, Q, F>> = None;
        let mut visited = 0;
        for (index, &entity) in entities.iter().enumerate() {
            if let Some(&ahead) = entities.get(index + AHEAD) {
                world.entities.prefetch(ahead);
            }
            if let (Some(&soon), Some(table)) = (entities.get(index + AHEAD / 2), open.as_ref()) {
                if let Some(location) = world.entities.get(soon) {
                    if location.archetype == table.archetype {
                        Q::prefetch(&table.fetch, location.row.index());
                    }
                }
            }
            let Some(location) = world.entities.get(entity) else { continue };
            if open.as_ref().is_none_or(|table| table.archetype != location.archetype) {
                let Ok(index) = self.matched.binary_search_by_key(&location.archetype, |m| m.archetype) else {
                    continue;
                };
                let matched = &self.matched[index];
                let table = world.archetypes.get(matched.archetype);
                // SAFETY: resolved for this table; access per the caller.
                let (fetch, filter) = unsafe {
                    (Q::fetch_archetype(matched.data, table, ticks), F::fetch_archetype(matched.filter, table, ticks))
                };
                // Replacing the previous table stamps its last leaf.
                open = Some(OpenTable::new(matched.archetype, table.len(), fetch, filter));
            }
            let Some(table) = open.as_ref() else { continue };
            let row = location.row.index();
            // SAFETY: `row` is the entity's live row; items are handed to `f` one at a
            // time and cannot outlive its call (`f` takes items of any lifetime), which
            // ends before `open` is replaced or dropped.
            unsafe {
                if F::IS_ARCHETYPAL || F::filter_row(&table.filter, row) {
                    f(table.fetch_row(row));
                    visited += 1;
                }
            }
        }
        drop(open);
        visited
    }

    /// Despawns every matching entity whose item satisfies `predicate` (the seed's
    /// `deleteWhere`) and returns how many were despawned. One run.
    #[track_caller]
    pub fn despawn_where(&mut self, world: &mut World, mut predicate: impl FnMut(Q::Item<'_>) -> bool) -> usize
    where
        Q: ReadOnlyQueryData,
    {
        let mut doomed = std::mem::take(&mut self.doomed);
        doomed.clear();
        {
            let shared: &World = world;
            let (ticks, mode) = self.begin_run(shared, RunKind::Serial);
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

    /// Visits the run's rows, passing the table and row with each item.
    ///
    /// # Safety
    /// The caller holds the access `Q` declares on `world` for `'w`; `ticks` and `mode`
    /// come from `begin_run` on this world.
    #[inline]
    unsafe fn run_unchecked<'w>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        mode: Mode,
        mut f: impl FnMut(&'w Archetype, usize, Q::Item<'w>),
    ) {
        // One function per mode, so that `f` has one call site in each and is inlined.
        match mode {
            // SAFETY: forwarded from the caller; the candidates were gathered for this run.
            Mode::Candidates => unsafe { self.run_candidates(world, ticks, &self.candidates, &mut f) },
            // SAFETY: forwarded from the caller, in `Driven` mode.
            Mode::Driven => unsafe { self.run_driven(world, ticks, f) },
            // SAFETY: forwarded from the caller, in a `Tables` mode.
            Mode::Tables | Mode::FilteredTables => unsafe { self.run_tables(world, ticks, mode, f) },
        }
    }

    /// Visits the rows the driving change filter lists, table by table.
    ///
    /// # Safety
    /// As `run_unchecked`, in `Driven` mode.
    #[inline]
    unsafe fn run_driven<'w>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        mut f: impl FnMut(&'w Archetype, usize, Q::Item<'w>),
    ) {
        for matched in &self.matched {
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; access per the caller.
            let fetch = unsafe { Q::fetch_archetype(matched.data, table, ticks) };
            // SAFETY: resolved for this table.
            let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
            // SAFETY: `filter` was made for this table; the driving filter lists each row
            // once, below the table's length, and writes through items mark as they go
            // (this run does not defer), so nothing is left to fold.
            unsafe {
                F::for_each_candidate(&filter, table.len(), &mut |row| {
                    if F::EXACT || F::filter_row(&filter, row) {
                        f(table, row, Q::fetch(&fetch, row));
                    }
                });
            }
        }
    }

    /// Visits every row of every matched table (tested by the filter in
    /// `FilteredTables` mode).
    ///
    /// # Safety
    /// As `run_unchecked`, in a `Tables` mode.
    #[inline]
    unsafe fn run_tables<'w>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        mode: Mode,
        mut f: impl FnMut(&'w Archetype, usize, Q::Item<'w>),
    ) {
        for matched in &self.matched {
            let table = world.archetypes.get(matched.archetype);
            let len = table.len();
            if len == 0 {
                continue;
            }
            // SAFETY: `matched.data` was resolved for this table; access per the caller.
            let fetch = unsafe { Q::fetch_archetype(matched.data, table, ticks) };
            // SAFETY: `matched.filter` was resolved for this table.
            let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
            let tracked_writes = Q::tracked_writes(&fetch);
            if Q::folds_leaves(&fetch) || (ticks.defer && tracked_writes == 1) {
                // SAFETY: forwarded from the caller, for this table.
                f = unsafe { self.run_table_folding(table, matched.data, fetch, &filter, ticks, mode, f) };
            } else if mode == Mode::Tables && tracked_writes == 0 {
                // The common loop of a query with no tracked writes: through the rows, a few
                // at a time, with items that need not look whether they are tracked.
                // `f` moves into the loop's function and back: what it captures is then
                // reached through that function's own parameter, which the compiler
                // knows no write in the loop touches, so captured counters and sums stay
                // in registers.
                let visit = move |fetch: &Q::Fetch<'w>| {
                    // SAFETY: `row < len`, each row fetched once; no tracked column is
                    // written.
                    let fetch_row = |row, _| unsafe { Q::fetch_untracked(fetch, row) };
                    visit_unrolled(0..len, fetch_row, |row, item| f(table, row, item), |_| {});
                    f
                };
                // SAFETY: `len` is the table's length; the table is reached only through
                // the remade fetch meanwhile.
                f = unsafe { Q::with_rows(&fetch, len, visit) };
            } else {
                for row in 0..len {
                    // SAFETY: `row < len`, each row fetched once.
                    if mode == Mode::Tables || unsafe { F::filter_row(&filter, row) } {
                        // SAFETY: as above.
                        f(table, row, unsafe { Q::fetch(&fetch, row) });
                    }
                }
            }
        }
    }

    /// One table of a deferring run that writes tracked columns: folds each leaf as
    /// the loop leaves it, while its ticks are in cache. Out of line, so that the
    /// common loop keeps its fetch in registers.
    ///
    /// # Safety
    /// As `run_tables`; `fetch` and `filter` were made for `table` in this run.
    #[inline(never)]
    #[allow(clippy::too_many_arguments, reason = "the state of one table's loop")]
    unsafe fn run_table_folding<'w, G>(
        &self,
        table: &'w Archetype,
        data: Q::ArchState,
        fetch: Q::Fetch<'w>,
        filter: &F::Fetch<'w>,
        ticks: RunTicks,
        mode: Mode,
        mut f: G,
    ) -> G
    where
        G: FnMut(&'w Archetype, usize, Q::Item<'w>),
    {
        let len = table.len();
        if Q::tracked_writes(&fetch) == 1 {
            // One tracked column: writes set a bit in a local accumulator (kept in a
            // register, one per lane of the unrolled loop so that the lanes' marks do
            // not wait for each other) and each leaf's rows are stamped and folded at
            // once. The guard stamps the leaf in progress if a closure panics (earlier
            // leaves are stamped already; a pending flag left set is cleared by the
            // column's next fold). All of
            // it runs inside `with_rows`, so that the accumulators are local to the
            // loop's own function; `f` moves in and back, as in `run_tables`.
            let visit_leaves = move |fetch: &Q::Fetch<'w>| {
                let written: [Cell<u64>; LANES] = Default::default();
                let guard = StampGuard::<Q> {
                    fetch,
                    len,
                    leaf: Cell::new(0),
                    leaf_rows: Cell::new(0),
                    chunk: Cell::new(0),
                    written: &written,
                };
                // The tracked column is the only one written: items need not look which
                // of their columns is tracked, so the loop has no branch on it.
                let only_write = Q::writes(fetch) == 1;
                for start in (0..len).step_by(LEAF) {
                    guard.leaf.set(start / LEAF);
                    let rows = start..(start + LEAF).min(len);
                    if mode == Mode::Tables && only_write {
                        // A write sets its slot's bit in its lane's accumulator: a
                        // constant per slot, so a loop whose rows are all written folds
                        // the marks away. Each chunk's bits join the leaf's at its offset.
                        // SAFETY: `row < len`, each row fetched once; `written` outlives
                        // the items; the fetch's one written column is the tracked one.
                        let fetch_row = |row, slot: usize| unsafe {
                            Q::fetch_accumulating::<true>(fetch, row, &written[slot % LANES], slot)
                        };
                        let after_chunk = |chunk: usize| {
                            guard.leaf_rows.set(guard.leaf_rows.get() | take_written(&written) << (chunk - start));
                            // The next chunk's offset (0 once the leaf is full: nothing
                            // is left to shift then).
                            guard.chunk.set((chunk + UNROLL - start) % LEAF);
                        };
                        visit_unrolled(rows, fetch_row, |row, item| f(table, row, item), after_chunk);
                    } else {
                        for row in rows {
                            // SAFETY: `row < len`, each row fetched once; `written`
                            // outlives the item.
                            unsafe {
                                if mode == Mode::Tables || F::filter_row(filter, row) {
                                    f(table, row, Q::fetch_accumulating::<false>(fetch, row, &written[0], row - start));
                                }
                            }
                        }
                    }
                    // SAFETY: the loop is done with this leaf's rows.
                    unsafe { Q::stamp_written(fetch, len, start / LEAF, guard.take_leaf()) };
                }
                drop(guard);
                f
            };
            // SAFETY: `len` is the table's length; the values are reached only through
            // the remade fetch meanwhile (the stamps reach ticks only).
            let f = unsafe { Q::with_rows(&fetch, len, visit_leaves) };
            // SAFETY: the table is done; clears the pending flag set when fetched.
            unsafe { Q::finish_table(&fetch, len, Some(&[])) };
            let _ = (data, ticks);
            return f;
        }
        // The guard folds everything if a closure panics; on the normal path it only
        // clears the pending flag.
        let mut finish = FinishTable::<Q> { data, table, ticks, rows: None };
        for start in (0..len).step_by(LEAF) {
            for row in start..(start + LEAF).min(len) {
                // SAFETY: `row < len`, each row fetched once.
                if mode == Mode::Tables || unsafe { F::filter_row(filter, row) } {
                    // SAFETY: as above.
                    f(table, row, unsafe { Q::fetch(&fetch, row) });
                }
            }
            // SAFETY: the loop is done with this leaf's rows.
            unsafe { Q::finish_leaf(&fetch, len, start / LEAF) };
        }
        finish.rows = Some(&[]);
        f
    }

    /// Visits `candidates` (sorted, distinct, all rows of matched tables).
    ///
    /// # Safety
    /// As `run_unchecked`.
    unsafe fn run_candidates<'w>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        candidates: &[Candidate],
        f: &mut impl FnMut(&'w Archetype, usize, Q::Item<'w>),
    ) {
        for (index, group) in table_groups(candidates) {
            let matched = &self.matched[index];
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; access per the caller.
            let fetch = unsafe { Q::fetch_archetype(matched.data, table, ticks) };
            // SAFETY: resolved for this table.
            let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
            for &(_, row) in group {
                let row = row as usize;
                debug_assert!(row < table.len());
                // SAFETY: candidates are rows of this table gathered in this run, with no
                // structural change since, and distinct, so each is fetched once.
                if F::EXACT || unsafe { F::filter_row(&filter, row) } {
                    // SAFETY: as above.
                    f(table, row, unsafe { Q::fetch(&fetch, row) });
                }
            }
        }
    }

    /// Shares the run's rows out to rayon's threads ([`SharedRows`]): the rows of
    /// every matched table one after another, or the gathered candidates. Returns how
    /// many it shared out.
    ///
    /// # Safety
    /// As `run_unchecked`; the items may be made on several threads at once, each row
    /// on exactly one.
    unsafe fn par_run_unchecked<'w, G>(&self, world: &'w World, ticks: RunTicks, mode: Mode, f: &G) -> usize
    where
        G: Fn(Q::Item<'w>) + Send + Sync,
    {
        // Folds what the participants stamped once they are all done, also if one
        // panicked.
        let _fold = FoldAfterParallel { state: self, world, ticks, mode };
        // The participants stamp rows only; the fold above writes the summaries.
        let ticks = RunTicks { defer: true, ..ticks };
        let threads = rayon::current_num_threads();
        if mode == Mode::Candidates {
            SharedRows::new(self.candidates.len(), threads).run(&|rows: &SharedRows| {
                while let Some(claim) = rows.claim() {
                    // SAFETY: forwarded from the caller; claims are disjoint.
                    unsafe { self.par_candidates(world, ticks, &self.candidates[claim], f) };
                }
            });
            return self.candidates.len();
        }
        let table = |index: usize| world.archetypes.get(self.matched[index].archetype);
        let len = self.matched_entities(world);
        SharedRows::new(len, threads).run(&|rows: &SharedRows| {
            // The table this participant is in, and the run's row where that table
            // starts: a participant's claims only move forward.
            let (mut index, mut table_start) = (0, 0);
            while let Some(claim) = rows.claim() {
                let mut start = claim.start;
                while start < claim.end {
                    let table_end = table_start + table(index).len();
                    if start >= table_end {
                        (index, table_start) = (index + 1, table_end);
                        continue;
                    }
                    let end = claim.end.min(table_end);
                    // SAFETY: forwarded from the caller; claims are disjoint, so these
                    // rows of this table are visited by this participant alone.
                    unsafe { self.par_rows(world, ticks, mode, index, start - table_start..end - table_start, f) };
                    start = end;
                }
            }
        });
        len
    }

    /// Visits `rows` of matched table `index` for one participant of a parallel run;
    /// summaries are folded by the caller.
    ///
    /// # Safety
    /// As `run_unchecked`; `rows` lie in the table, and no other participant visits
    /// them.
    unsafe fn par_rows<'w, G>(
        &self,
        world: &'w World,
        ticks: RunTicks,
        mode: Mode,
        index: usize,
        rows: Range<usize>,
        f: &G,
    ) where
        G: Fn(Q::Item<'w>) + Send + Sync,
    {
        let matched = &self.matched[index];
        let table = world.archetypes.get(matched.archetype);
        // SAFETY: resolved for this table; access per the caller. Pointers made here are
        // used only for these rows.
        let fetch = unsafe { Q::fetch_archetype(matched.data, table, ticks) };
        // SAFETY: resolved for this table.
        let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
        for row in rows {
            // SAFETY: `row < len`, visited by this participant alone, once.
            if mode == Mode::Tables || unsafe { F::filter_row(&filter, row) } {
                // SAFETY: as above.
                f(unsafe { Q::fetch(&fetch, row) });
            }
        }
    }

    /// Visits `candidates` for one participant of a parallel run; summaries are folded
    /// by the caller.
    ///
    /// # Safety
    /// As `run_candidates`; other participants get other candidates.
    unsafe fn par_candidates<'w, G>(&self, world: &'w World, ticks: RunTicks, candidates: &[Candidate], f: &G)
    where
        G: Fn(Q::Item<'w>) + Send + Sync,
    {
        for (index, group) in table_groups(candidates) {
            let matched = &self.matched[index];
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; access per the caller.
            let fetch = unsafe { Q::fetch_archetype(matched.data, table, ticks) };
            // SAFETY: resolved for this table.
            let filter = unsafe { F::fetch_archetype(matched.filter, table, ticks) };
            for &(_, row) in group {
                let row = row as usize;
                // SAFETY: distinct live rows of this table, one participant each.
                if F::EXACT || unsafe { F::filter_row(&filter, row) } {
                    // SAFETY: as above.
                    f(unsafe { Q::fetch(&fetch, row) });
                }
            }
        }
    }

    /// # Safety
    /// The caller holds the access `Q` declares on `world` for `'w`, and no other item
    /// for `entity` from this query is alive.
    unsafe fn get_unchecked<'w>(&self, world: &'w World, entity: Entity) -> Result<Q::Item<'w>, QueryEntityError> {
        let location = world.entities.get(entity).ok_or(NoSuchEntity(entity))?;
        let does_not_match = QueryEntityError::DoesNotMatch { entity, query: std::any::type_name::<Q>() };
        let index =
            self.matched.binary_search_by_key(&location.archetype, |m| m.archetype).map_err(|_| does_not_match)?;
        let matched = &self.matched[index];
        let table = world.archetypes.get(matched.archetype);
        let row = location.row.index();
        // Not a run: judged against the last run, writes stamped with the current tick.
        let ticks = RunTicks { last_run: self.last_run(), this_run: world.change_tick(), defer: false };
        // SAFETY: resolved for this table; `row` is the entity's live row.
        unsafe {
            if !F::IS_ARCHETYPAL && !F::filter_row(&F::fetch_archetype(matched.filter, table, ticks), row) {
                return Err(does_not_match);
            }
            Ok(Q::fetch(&Q::fetch_archetype(matched.data, table, ticks), row))
        }
    }
}

/// Entry points for [`Query`](crate::Query), the system parameter: the schedule, not
/// a `&mut World`, guarantees the declared access.
impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// One iterator run.
    ///
    /// # Safety
    /// The caller holds the access this state declares on `world` for `'w`.
    pub(crate) unsafe fn iter_unchecked<'w, 's>(&'s mut self, world: &'w World) -> QueryIter<'w, 's, Q, F> {
        let (ticks, mode) = self.begin_run(world, RunKind::Iterator);
        QueryIter::new(world, self, ticks, mode)
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
        let (ticks, mode) = self.begin_run(world, RunKind::Serial);
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
        let (ticks, mode) = self.begin_run(world, RunKind::Parallel);
        // SAFETY: per the caller.
        unsafe { self.par_run_unchecked(world, ticks, mode, f) }
    }

    /// The item of `entity`, not a run.
    ///
    /// # Safety
    /// As `iter_unchecked`, and no other item for `entity` from this state is alive.
    pub(crate) unsafe fn get_in<'w>(
        &mut self,
        world: &'w World,
        entity: Entity,
    ) -> Result<Q::Item<'w>, QueryEntityError> {
        self.update_archetypes(world);
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
    /// update), filters on rows aside.
    pub fn matched_entities(&self, world: &World) -> usize {
        self.matched.iter().map(|m| world.archetypes.get(m.archetype).len()).sum()
    }
}

/// Candidates for a `Dirty` run: rows whose listed components changed, plus
/// entities whose structural changes since the last run made them dirty.
fn gather_dirty<QA, FA>(
    candidates: &mut Vec<Candidate>,
    matched: &[Matched<QA, FA>],
    world: &World,
    ticks: RunTicks,
    dirty: &DirtyState,
) {
    candidates.clear();
    for (index, matched) in matched.iter().enumerate() {
        let table = world.archetypes.get(matched.archetype);
        for &component in dirty.components.iter() {
            let Some(column) = table.column_index(component) else { continue };
            let Some((changed, summary)) = table.column(column).change_ticks() else { continue };
            let Some(last_run) = ticks.last_run else { continue };
            // SAFETY: `changed` holds one tick per row of the table; the run reads the
            // listed columns' ticks while no writer of them runs (a `Dirty` query is a
            // reader of its listed components).
            unsafe {
                summary.for_each_new(changed, table.len(), last_run, ticks.this_run, &mut |row| {
                    candidates.push((index as u32, row as u32));
                });
            }
        }
    }
    let position = |archetype: ArchetypeId| matched.binary_search_by_key(&archetype, |m| m.archetype);
    let has =
        |archetype: Option<ArchetypeId>, component| archetype.is_some_and(|a| world.archetypes.get(a).has(component));
    for Move { entity, from, to } in world.moves.read(&dirty.cursor) {
        let Some(location) = world.entities.get(entity) else { continue };
        let started_matching = from.is_none_or(|from| position(from).is_err());
        let listed_changed = dirty.components.iter().any(|&c| has(from, c) != has(to, c));
        if started_matching || listed_changed {
            if let Ok(index) = position(location.archetype) {
                candidates.push((index as u32, location.row.0));
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
}

/// Ends a table of a deferring run: folds stamped rows into the summaries when
/// dropped, on the normal path and while unwinding from a panicking closure. It keeps
/// what it needs to fetch the table again rather than borrowing the loop's fetch,
/// which would pin that fetch to memory for the whole loop.
struct FinishTable<'a, Q: QueryData> {
    data: Q::ArchState,
    table: &'a Archetype,
    ticks: RunTicks,
    rows: Option<&'a [Candidate]>,
}

impl<Q: QueryData> Drop for FinishTable<'_, Q> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `data` was resolved for this table; the run is done with it (the guard
        // is dropped after the table's loop), so the run holds it alone.
        unsafe {
            let fetch = Q::fetch_archetype(self.data, self.table, self.ticks);
            Q::finish_table(&fetch, self.table.len(), self.rows);
        }
    }
}

/// Stamps the leaf an accumulating loop is in, when dropped (on unwinding from a
/// panicking closure; a no-op on the normal path, where the accumulator is empty).
struct StampGuard<'a, 'w, Q: QueryData> {
    fetch: &'a Q::Fetch<'w>,
    len: usize,
    /// The leaf in progress.
    leaf: Cell<usize>,
    /// Rows of the leaf marked in chunks already folded (bit `i` for the leaf's row `i`).
    leaf_rows: Cell<u64>,
    /// The offset in the leaf of the chunk whose marks are still in `written`.
    chunk: Cell<usize>,
    /// The accumulators: bit `i` for the chunk's row `i` (or, in the row-at-a-time
    /// loop, the leaf's row `i`, with `chunk` 0).
    written: &'a [Cell<u64>; LANES],
}

impl<Q: QueryData> StampGuard<'_, '_, Q> {
    /// The rows of the leaf in progress marked so far; clears the record.
    #[inline(always)]
    fn take_leaf(&self) -> u64 {
        self.leaf_rows.replace(0) | take_written(self.written) << self.chunk.replace(0)
    }
}

/// The bits marked in the lanes' accumulators; clears them.
#[inline(always)]
fn take_written(written: &[Cell<u64>; LANES]) -> u64 {
    written.iter().fold(0, |all, lane| all | lane.replace(0))
}

impl<Q: QueryData> Drop for StampGuard<'_, '_, Q> {
    fn drop(&mut self) {
        // SAFETY: no item of this leaf is in use any more (the loop is over or
        // unwinding), and the run holds the table alone.
        unsafe { Q::stamp_written(self.fetch, self.len, self.leaf.get(), self.take_leaf()) };
    }
}

/// The table a `for_each_of` loop is in. With one tracked column written, consecutive
/// writes to one leaf of it are recorded in an accumulator and stamped together (the
/// row ticks and the summary's leaf once) when the loop moves to another leaf or table,
/// ends, or unwinds: entities listed in row order then cost the summary one update per
/// leaf instead of one per write.
struct OpenTable<'w, Q: QueryData, F: QueryFilter> {
    archetype: ArchetypeId,
    len: usize,
    fetch: Q::Fetch<'w>,
    filter: F::Fetch<'w>,
    /// Whether writes accumulate (exactly one tracked column is written, and no per-row
    /// filter reads ticks before the leaf is stamped).
    accumulates: bool,
    /// The leaf whose rows `written` records (bit `i` for its row `i`).
    leaf: Cell<usize>,
    written: Cell<u64>,
}

impl<'w, Q: QueryData, F: QueryFilter> OpenTable<'w, Q, F> {
    fn new(archetype: ArchetypeId, len: usize, fetch: Q::Fetch<'w>, filter: F::Fetch<'w>) -> Self {
        // Only without a per-row filter, which could read the written column's ticks
        // before the leaf is stamped. (ripple's change filters would give the same
        // answers: a write can only make a row pass `Changed`, and a written row passed
        // already. A filter implemented elsewhere need not be so.)
        let accumulates = F::IS_ARCHETYPAL && Q::tracked_writes(&fetch) == 1;
        OpenTable { archetype, len, fetch, filter, accumulates, leaf: Cell::new(0), written: Cell::new(0) }
    }

    /// The item of `row`.
    ///
    /// # Safety
    /// As `QueryData::fetch`; no item of this table is alive (so none of the leaf whose
    /// writes are stamped here when `row` is in another), and the item is gone before
    /// `self` is moved or dropped (it records its write in `self.written`).
    #[inline]
    unsafe fn fetch_row(&self, row: usize) -> Q::Item<'w> {
        if !self.accumulates {
            // SAFETY: per the caller.
            return unsafe { Q::fetch(&self.fetch, row) };
        }
        if row / LEAF != self.leaf.get() {
            // SAFETY: no item is alive (caller).
            unsafe { self.stamp() };
            self.leaf.set(row / LEAF);
        }
        // SAFETY: per the caller; `written` outlives the item (caller).
        unsafe { Q::fetch_accumulating::<false>(&self.fetch, row, &self.written, row % LEAF) }
    }

    /// Stamps the rows recorded for the current leaf and clears the record.
    ///
    /// # Safety
    /// No item of this table is alive.
    #[inline]
    unsafe fn stamp(&self) {
        let written = self.written.replace(0);
        if written != 0 {
            // SAFETY: the recorded rows are below `len`, and no item uses them (caller).
            unsafe { Q::stamp_written(&self.fetch, self.len, self.leaf.get(), written) };
        }
    }
}

impl<Q: QueryData, F: QueryFilter> Drop for OpenTable<'_, Q, F> {
    fn drop(&mut self) {
        // SAFETY: items are gone before the table is (`fetch_row`'s contract).
        unsafe { self.stamp() };
    }
}

/// Folds every table a parallel run visited, after every participant is done.
struct FoldAfterParallel<'a, 'w, Q: QueryData, F: QueryFilter> {
    state: &'a QueryState<Q, F>,
    world: &'w World,
    ticks: RunTicks,
    mode: Mode,
}

impl<Q: QueryData, F: QueryFilter> Drop for FoldAfterParallel<'_, '_, Q, F> {
    fn drop(&mut self) {
        let ticks = RunTicks { defer: true, ..self.ticks };
        let fold = |index: usize, rows: Option<&[Candidate]>| {
            let matched = &self.state.matched[index];
            let table = self.world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; the participants are done (rayon joins them before
            // the parallel loop returns or unwinds), so the run holds the table alone.
            unsafe {
                let fetch = Q::fetch_archetype(matched.data, table, ticks);
                Q::finish_table(&fetch, table.len(), rows);
            }
        };
        if self.mode == Mode::Candidates {
            for (index, group) in table_groups(&self.state.candidates) {
                fold(index, Some(group));
            }
        } else {
            (0..self.state.matched.len()).for_each(|index| fold(index, None));
        }
    }
}
