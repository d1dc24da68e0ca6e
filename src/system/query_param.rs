//! [`Query`]: a query as a system parameter, with its own [`QueryState`] — so its
//! change filters and dirty sets are relative to the system's own last run.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};

use crate::component::ComponentId;
use crate::entity::Entity;
use crate::error::QueryEntityError;
use crate::query::{
    ArchetypeFilter, Gathered, QueryData, QueryFilter, QueryIter, QueryMemory, QueryState, ReadOnlyQueryData,
};
use crate::storage::ArchetypeId;
use crate::world::World;

use super::param::{EntityCounts, SystemMeta, SystemParam};

/// What a [`Query`] parameter keeps between runs.
#[doc(hidden)]
pub struct QueryParamState<Q: QueryData, F: QueryFilter> {
    pub(super) query: QueryState<Q, F>,
    /// Items handed out since the profiler last counted.
    pub(super) processed: AtomicUsize,
    /// The query's memory when this run of the system first iterated it: every
    /// iteration of the run starts from it. `None` until the run's first iteration.
    /// Written only through `&mut self`, or by the thread holding `gate` at
    /// `GATHERING`; read through `&self` only while the gate is above zero.
    run_start: UnsafeCell<Option<QueryMemory>>,
    /// The rows gathered by iterations made through `&Query` (see [`Query::iter`]),
    /// under the same rule as `run_start`.
    shared_rows: UnsafeCell<Gathered>,
    /// `0`: no iteration through `&Query` is alive; `GATHERING`: one thread is
    /// beginning one and writes the cells; `n`: `n` are alive (or were forgotten, in
    /// this run), and the cells hold the rows gathered for this run's window. Back to
    /// `0` (with `run_start` at `None`) as each run begins.
    gate: AtomicU32,
    /// Whether a [`ParamSet`](super::ParamSet) holds the query: then it may be made
    /// several times in one run, and the run starts at `begin_shared_run`, not at
    /// each `get`.
    shared: bool,
    /// The matching entities a combination iteration walks, kept between runs so
    /// that steady runs allocate nothing.
    pub(super) combined: Vec<Entity>,
}

/// `QueryParamState::gate` while one thread begins an iteration through `&Query`.
const GATHERING: u32 = u32::MAX;

// SAFETY: the cells are written only through `&mut self`, or by the one thread that
// moved `gate` from 0 to `GATHERING` (no reader is then alive: readers hold the gate
// above 0 and leave it at 0 only when gone); they are read through `&self` only while
// the reader holds the gate above 0 (no writer then). The rest is `QueryState`'s.
unsafe impl<Q: QueryData, F: QueryFilter> Sync for QueryParamState<Q, F> where QueryState<Q, F>: Sync {}

impl<Q: QueryData, F: QueryFilter> QueryParamState<Q, F> {
    /// Starts an iteration through `&mut self` from the run's window (see
    /// `Query::same_window`).
    fn same_window_mut(&mut self) {
        enter_window(&self.query, self.run_start.get_mut());
    }

    /// A new run of the system (or of a `ParamSet`'s members): no iteration through
    /// `&Query` is alive, so the gate and the window start over.
    fn start_run(&mut self) {
        *self.run_start.get_mut() = None;
        *self.gate.get_mut() = 0;
        self.query.set_lookup_window(None);
    }
}

/// Starts an iteration from the run's window: from `run_start` if the run iterated
/// before, else from where the query is now, which becomes the run's start (and the
/// window its lookups judge against from then on).
fn enter_window<Q: QueryData, F: QueryFilter>(query: &QueryState<Q, F>, run_start: &mut Option<QueryMemory>) {
    match run_start {
        Some(start) => query.restore_memory(*start),
        None => {
            let memory = query.memory();
            *run_start = Some(memory);
            query.set_lookup_window(Some(memory));
        }
    }
}

/// Opens the gate again if a thread panics while it holds it at `GATHERING`.
struct GatherGuard<'a>(&'a AtomicU32);

impl Drop for GatherGuard<'_> {
    fn drop(&mut self) {
        self.0.store(0, Ordering::Release);
    }
}

/// The entities that have what `Q` fetches and pass filter `F` (a system parameter).
///
/// Its change filters count from *this system's* previous run: `Changed`, `Added` and
/// `Dirty` report what happened since then, in every iteration of one run of the
/// system alike (iterating a `Changed` query twice in a system yields the changed
/// entities both times, as in bevy_ecs; what the system wrote in the first iteration
/// counts as changed in the second). So a system that was disabled sees everything it
/// missed when it runs again, and a system added late sees every entity as changed on
/// its first run (see "A disabled observer catches up" and "A new observer sees
/// everything as new" in docs/design.md). A system that panics part-way through a run
/// sees what that run had not finished again on its next run.
///
/// ```
/// use ripple::World;
/// use ripple::schedule::Schedule;
/// use ripple::system::Query;
/// struct Pos(f32);
/// struct Vel(f32);
///
/// fn movement(mut movers: Query<(&Vel, &mut Pos)>) {
///     movers.for_each_mut(|(vel, mut pos)| pos.0 += vel.0);
/// }
///
/// let mut world = World::new();
/// let e = world.spawn((Pos(0.0), Vel(2.0)));
/// let mut schedule = Schedule::new();
/// schedule.add_system(&mut world, movement).unwrap();
/// schedule.run(&mut world);
/// assert_eq!(world.get::<Pos>(e).unwrap().0, 2.0);
/// ```
pub struct Query<'w, 's, Q: QueryData, F: QueryFilter = ()> {
    pub(super) world: &'w World,
    pub(super) state: &'s mut QueryParamState<Q, F>,
}

impl<'w, Q: QueryData, F: QueryFilter> Query<'w, '_, Q, F> {
    /// Iterates over the matching entities' items. Through `&self`, as in bevy_ecs:
    /// iterations may nest (`for a in query.iter() { for b in query.iter() { .. } }`)
    /// and run on several threads at once (inside another query's `par_for_each`);
    /// an iteration made while another of this query is alive visits the rows the
    /// first one gathered (the same ones: one system run has one change window), so
    /// it allocates nothing either.
    pub fn iter(&self) -> QueryParamIter<'_, 'w, Q, F>
    where
        Q: ReadOnlyQueryData,
    {
        let state: &QueryParamState<Q, F> = self.state;
        let query = &state.query;
        let gate = &state.gate;
        let begun = loop {
            let open = gate.load(Ordering::Acquire);
            if open == 0 {
                if gate.compare_exchange(0, GATHERING, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                    let guard = GatherGuard(gate);
                    // SAFETY: this thread holds the gate at `GATHERING`: it alone
                    // touches the cells (see `QueryParamState`'s `Sync`).
                    let (run_start, rows) = unsafe { (&mut *state.run_start.get(), &mut *state.shared_rows.get()) };
                    enter_window(query, run_start);
                    // SAFETY: the schedule holds the access this query declared, for
                    // `'w`; the state was updated when the system received the query.
                    let begun = unsafe { query.begin_iter_into(self.world, rows) };
                    std::mem::forget(guard);
                    gate.store(1, Ordering::Release);
                    break begun;
                }
            } else if open != GATHERING {
                if gate.compare_exchange(open, open + 1, Ordering::Acquire, Ordering::Relaxed).is_ok() {
                    // SAFETY: the gate is above 0 and held by this iterator: no writer.
                    // It was opened this run by an iteration that set the window start.
                    if let Some(start) = unsafe { *state.run_start.get() } {
                        query.restore_memory(start);
                    }
                    break query.begin_run_reusing(self.world);
                }
            } else {
                // Another thread is gathering the rows: a short wait.
                std::hint::spin_loop();
            }
        };
        // SAFETY: the schedule holds the access for `'w`; this iterator holds the gate
        // above 0, so the rows stay as they were gathered for this run's window, and no
        // structural change can happen while the system holds the world shared.
        let inner = unsafe { query.iter_with(self.world, &*state.shared_rows.get(), begun) };
        QueryParamIter { inner, counted: 0, processed: &state.processed, gate: Some(gate) }
    }

    /// Iterates with mutable access. Writes through items are recorded as
    /// they happen, so items may be kept until the iterator is dropped.
    pub fn iter_mut(&mut self) -> QueryParamIter<'_, '_, Q, F> {
        let state = &mut *self.state;
        state.same_window_mut();
        // SAFETY: the schedule holds the access this query declared, for `'w`, and the
        // items borrow `self` mutably, so no other run of this query overlaps them.
        let inner = unsafe { state.query.iter_unchecked(self.world) };
        QueryParamIter { inner, counted: 0, processed: &state.processed, gate: None }
    }

    /// Calls `f` with each matching entity's item.
    pub fn for_each(&mut self, f: impl FnMut(Q::Item<'w>))
    where
        Q: ReadOnlyQueryData,
    {
        self.state.same_window_mut();
        // SAFETY: the schedule holds the (read-only) access for `'w`.
        let visited = unsafe { self.state.query.for_each_shared(self.world, f) };
        self.state.processed.fetch_add(visited, Ordering::Relaxed);
    }

    /// Calls `f` with each matching entity's item, with mutable access.
    /// Items cannot outlive the call to `f`.
    pub fn for_each_mut(&mut self, f: impl for<'a> FnMut(Q::Item<'a>)) {
        self.state.same_window_mut();
        // SAFETY: the schedule holds the access this query declared, for `'w`.
        let visited = unsafe { self.state.query.for_each_unchecked(self.world, f) };
        self.state.processed.fetch_add(visited, Ordering::Relaxed);
    }

    /// Like [`for_each`](Self::for_each), spread over rayon's threads.
    pub fn par_for_each(&mut self, f: impl Fn(Q::Item<'w>) + Send + Sync)
    where
        Q: ReadOnlyQueryData,
    {
        self.state.same_window_mut();
        // SAFETY: the schedule holds the (read-only) access for `'w`.
        let visited = unsafe { self.state.query.par_for_each_unchecked(self.world, &f) };
        self.state.processed.fetch_add(visited, Ordering::Relaxed);
    }

    /// Like [`for_each_mut`](Self::for_each_mut), spread over rayon's threads; each row
    /// is visited by one thread.
    pub fn par_for_each_mut(&mut self, f: impl for<'a> Fn(Q::Item<'a>) + Send + Sync) {
        self.state.same_window_mut();
        // SAFETY: the schedule holds the access this query declared, for `'w`; each row
        // is claimed by one thread.
        let visited = unsafe { self.state.query.par_for_each_unchecked(self.world, &f) };
        self.state.processed.fetch_add(visited, Ordering::Relaxed);
    }

    /// The item of `entity`, if it matches. Not a run. Through `&self`, as in bevy_ecs,
    /// since a read-only item borrows the world, not the query.
    ///
    /// # Errors
    /// As [`QueryState::get`].
    pub fn get(&self, entity: Entity) -> Result<Q::Item<'w>, QueryEntityError>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: the schedule holds the (read-only) access for `'w`; the state was
        // updated when the system received the query, and the world has been shared
        // since.
        unsafe { self.state.query.get_in(self.world, entity) }
    }

    /// The item of `entity` with mutable access, if it matches. Not a run.
    ///
    /// # Errors
    /// As [`QueryState::get`].
    pub fn get_mut(&mut self, entity: Entity) -> Result<Q::Item<'_>, QueryEntityError> {
        // SAFETY: the schedule holds the access for `'w`; the item borrows `self`
        // mutably, so it is the only one alive; the state was updated when the system
        // received the query, and the world has been shared since.
        unsafe { self.state.query.get_in(self.world, entity) }
    }

    /// The items of `entities`, in order, if every one is alive and matches. Not a
    /// run.
    ///
    /// # Errors
    /// As [`QueryState::get_many`].
    pub fn get_many<const N: usize>(&self, entities: [Entity; N]) -> Result<[Q::Item<'w>; N], QueryEntityError>
    where
        Q: ReadOnlyQueryData,
    {
        // SAFETY: the schedule holds the (read-only) access for `'w`; shared items may
        // alias; the state was updated when the system received the query.
        unsafe { self.state.query.get_many_updated(self.world, entities, false) }
    }

    /// The items of `entities` with mutable access, if every one is alive, matches
    /// and is listed once. Not a run.
    ///
    /// # Errors
    /// As [`QueryState::get_many_mut`]: [`QueryEntityError::Duplicate`] for an entity
    /// listed twice.
    pub fn get_many_mut<const N: usize>(
        &mut self,
        entities: [Entity; N],
    ) -> Result<[Q::Item<'_>; N], QueryEntityError> {
        // SAFETY: the schedule holds the access for `'w`; duplicates are refused, and
        // the items borrow `self` mutably, so they are the only ones alive; the state
        // was updated when the system received the query.
        unsafe { self.state.query.get_many_updated(self.world, entities, true) }
    }

    /// Calls `f` with the item of each entity of `entities` that is alive and
    /// matches, in order; returns how many it visited. Not a run.
    pub fn for_each_of(&mut self, entities: &[Entity], f: impl for<'a> FnMut(Q::Item<'a>)) -> usize {
        // SAFETY: the schedule holds the access for `'w`; items cannot outlive `f`'s
        // call, so a repeated entity has one item alive at a time.
        let visited = unsafe { self.state.query.for_each_of_in(self.world, entities, f) };
        self.state.processed.fetch_add(visited, Ordering::Relaxed);
        visited
    }

    /// The number of entities in the tables this query matches: an upper bound on its
    /// items, as [`QueryState::matched_entities`] explains (sparse components do not
    /// split tables).
    pub fn matched_entities(&self) -> usize {
        self.state.query.matched_entities(self.world)
    }
}

// SAFETY: declares every component its data and filter touch (with writes), and only
// fetches those.
unsafe impl<Q: QueryData + 'static, F: QueryFilter + 'static> SystemParam for Query<'_, '_, Q, F>
where
    QueryState<Q, F>: Send,
{
    type State = QueryParamState<Q, F>;
    type Item<'w, 's> = Query<'w, 's, Q, F>;

    /// Only reads (or writes in place): nothing to apply at a sync point.
    const DEFERS: bool = false;
    fn init(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        let query = QueryState::new(world);
        if let Err(conflict) = meta.access.add_query(&query.access, std::any::type_name::<Self>()) {
            meta.refuse(conflict);
        }
        QueryParamState {
            query,
            processed: AtomicUsize::new(0),
            run_start: UnsafeCell::new(None),
            shared_rows: UnsafeCell::new(Gathered::default()),
            gate: AtomicU32::new(0),
            shared: false,
            combined: Vec::new(),
        }
    }
    unsafe fn get<'w, 's>(state: &'s mut Self::State, world: &'w World, _: &SystemMeta) -> Query<'w, 's, Q, F> {
        // Once per run: `get` and `get_mut` rely on it (`QueryState::get_in`), since
        // the run holds the world shared and no table can appear meanwhile.
        state.query.update_archetypes(world);
        if !state.shared {
            state.start_run();
        }
        Query { world, state }
    }
    fn begin_shared_run(state: &mut Self::State) {
        state.shared = true;
        state.start_run();
    }
    fn matches(
        state: &mut Self::State,
        world: &World,
        archetype: ArchetypeId,
        has_sparse: &dyn Fn(ComponentId) -> bool,
    ) -> bool {
        state.query.matches_entity_in(world, archetype, has_sparse)
    }
    fn count(state: &mut Self::State, world: &World, counts: &mut EntityCounts) {
        counts.matched += state.query.matched_entities(world);
        counts.processed += std::mem::take(state.processed.get_mut());
    }
}

/// `for item in &query`: [`Query::iter`], for a read-only query.
impl<'a, 'w, 's, Q: ReadOnlyQueryData, F: QueryFilter> IntoIterator for &'a Query<'w, 's, Q, F> {
    type Item = Q::Item<'w>;
    type IntoIter = QueryParamIter<'a, 'w, Q, F>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// `for item in &mut query`: [`Query::iter_mut`] (which, for a read-only query, gives
/// what [`Query::iter`] gives).
impl<'a, 'w, 's, Q: QueryData, F: QueryFilter> IntoIterator for &'a mut Query<'w, 's, Q, F> {
    type Item = Q::Item<'a>;
    type IntoIter = QueryParamIter<'a, 'a, Q, F>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

/// The iterator of [`Query::iter`] and [`Query::iter_mut`]; counts its items for the
/// profiler. Knows its length when the query's filter is decided per table
/// ([`ArchetypeFilter`]).
pub struct QueryParamIter<'s, 'w, Q: QueryData, F: QueryFilter> {
    inner: QueryIter<'w, 's, Q, F>,
    /// Items handed out, added to the profiler's count when dropped.
    counted: usize,
    processed: &'s AtomicUsize,
    /// For an iterator made through `&Query`: the gate it holds open, which it
    /// leaves when dropped.
    gate: Option<&'s AtomicU32>,
}

impl<Q: QueryData, F: QueryFilter> Drop for QueryParamIter<'_, '_, Q, F> {
    fn drop(&mut self) {
        self.processed.fetch_add(self.counted, Ordering::Relaxed);
        if let Some(gate) = self.gate {
            gate.fetch_sub(1, Ordering::Release);
        }
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Iterator for QueryParamIter<'_, 'w, Q, F> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        let item = self.inner.next()?;
        self.counted += 1;
        Some(item)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }

    /// Keeps the inner iterator's per-table loops (`for_each`, `sum`, `count`, ...),
    /// counting in a local and adding to the profiler's count once.
    #[inline]
    fn fold<Acc, G: FnMut(Acc, Self::Item) -> Acc>(mut self, init: Acc, mut g: G) -> Acc {
        let mut count = 0;
        let acc = (&mut self.inner).fold(init, |acc, item| {
            count += 1;
            g(acc, item)
        });
        self.counted += count;
        acc
    }
}

impl<Q: QueryData, F: ArchetypeFilter> ExactSizeIterator for QueryParamIter<'_, '_, Q, F> {}
