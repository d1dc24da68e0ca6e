//! [`Query`]: a query as a system parameter, with its own [`QueryState`] — so its
//! change filters and dirty sets are relative to the system's own last run.

use std::cell::{Cell, UnsafeCell};

use crate::component::ComponentId;
use crate::entity::Entity;
use crate::error::QueryEntityError;
use crate::query::{ArchetypeFilter, QueryData, QueryFilter, QueryIter, QueryMemory, QueryState, ReadOnlyQueryData};
use crate::storage::ArchetypeId;
use crate::world::World;

use super::param::{EntityCounts, SystemMeta, SystemParam};

/// What a [`Query`] parameter keeps between runs.
#[doc(hidden)]
pub struct QueryParamState<Q: QueryData, F: QueryFilter> {
    /// In a cell so that a read-only iteration through `&Query` can begin a run (see
    /// [`Query::iter`]): the state is borrowed mutably only through `&mut self`, or
    /// by `iter` while no iterator made through `&Query` is alive (`live`), and a
    /// `Query` is not `Sync`, so nothing else can hold it then.
    pub(super) query: UnsafeCell<QueryState<Q, F>>,
    /// Items handed out since the profiler last counted.
    pub(super) processed: Cell<usize>,
    /// The query's memory when this run of the system first iterated it: every
    /// iteration of the run starts from it. `None` until the run's first iteration.
    run_start: Cell<Option<QueryMemory>>,
    /// Iterators made through `&Query` that are alive: while any is, the state is
    /// shared, and another iteration reuses the rows the first one gathered. Back to
    /// zero at every exclusive use (`query_mut`), which also begins each run.
    live: Cell<u32>,
    /// Whether a [`ParamSet`](super::ParamSet) holds the query: then it may be made
    /// several times in one run, and the run starts at `begin_shared_run`, not at
    /// each `get`.
    shared: bool,
    /// The matching entities a combination iteration walks, kept between runs so
    /// that steady runs allocate nothing.
    pub(super) combined: Vec<Entity>,
}

impl<Q: QueryData, F: QueryFilter> QueryParamState<Q, F> {
    /// The query state, shared.
    #[inline]
    pub(super) fn query(&self) -> &QueryState<Q, F> {
        // SAFETY: the state is borrowed mutably only through `&mut self` or by
        // `Query::iter` while no shared borrow is alive (see `query`'s field docs);
        // this shared borrow is made from `&self`, so neither is happening.
        unsafe { &*self.query.get() }
    }

    /// The query state, exclusively. No iterator made through `&Query` can be alive
    /// while `&mut self` is held, so `live` goes back to zero: a count left behind by
    /// an iterator that was forgotten (`mem::forget`) must not let a later iteration
    /// reuse rows this exclusive use may gather anew.
    #[inline]
    pub(super) fn query_mut(&mut self) -> &mut QueryState<Q, F> {
        *self.live.get_mut() = 0;
        self.query.get_mut()
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
    /// iterations may nest (`for a in query.iter() { for b in query.iter() { .. } }`),
    /// and an iteration made while another of this query is alive visits the rows
    /// the first one gathered (the same ones: one system run has one change window),
    /// so it allocates nothing either.
    pub fn iter(&self) -> QueryParamIter<'_, 'w, Q, F>
    where
        Q: ReadOnlyQueryData,
    {
        let state: &QueryParamState<Q, F> = self.state;
        self.same_window();
        let inner = if state.live.get() == 0 {
            // SAFETY: no iterator made through `&Query` is alive, and every other
            // borrow of the state is made through `&mut self` (which `&self` excludes)
            // or ends before its method returns: this is the only borrow of the state
            // until `iter_unchecked` returns, and the run's shared borrow follows it.
            let query = unsafe { &mut *state.query.get() };
            // SAFETY: the schedule holds the access this query declared, for `'w`.
            unsafe { query.iter_unchecked(self.world) }
        } else {
            // SAFETY: the schedule holds the access for `'w`; the state was updated
            // when the system received the query; the alive iterator began a run of
            // the same window (`same_window`) and gathered its rows, and no structural
            // change can happen while the system holds the world shared.
            unsafe { state.query().iter_reusing_candidates(self.world) }
        };
        state.live.set(state.live.get() + 1);
        QueryParamIter { inner, processed: &state.processed, live: Some(&state.live) }
    }

    /// Iterates with mutable access. Writes through items are recorded as
    /// they happen, so items may be kept until the iterator is dropped.
    pub fn iter_mut(&mut self) -> QueryParamIter<'_, '_, Q, F> {
        self.same_window();
        let state = &mut *self.state;
        state.query_mut();
        // SAFETY: the schedule holds the access this query declared, for `'w`, and the
        // items borrow `self` mutably, so no other run of this query overlaps them.
        let inner = unsafe { state.query.get_mut().iter_unchecked(self.world) };
        QueryParamIter { inner, processed: &state.processed, live: None }
    }

    /// Calls `f` with each matching entity's item.
    pub fn for_each(&mut self, f: impl FnMut(Q::Item<'w>))
    where
        Q: ReadOnlyQueryData,
    {
        self.same_window();
        // SAFETY: the schedule holds the (read-only) access for `'w`.
        let visited = unsafe { self.state.query_mut().for_each_shared(self.world, f) };
        self.state.processed.set(self.state.processed.get() + visited);
    }

    /// Calls `f` with each matching entity's item, with mutable access.
    /// Items cannot outlive the call to `f`.
    pub fn for_each_mut(&mut self, f: impl for<'a> FnMut(Q::Item<'a>)) {
        self.same_window();
        // SAFETY: the schedule holds the access this query declared, for `'w`.
        let visited = unsafe { self.state.query_mut().for_each_unchecked(self.world, f) };
        self.state.processed.set(self.state.processed.get() + visited);
    }

    /// Like [`for_each`](Self::for_each), spread over rayon's threads.
    pub fn par_for_each(&mut self, f: impl Fn(Q::Item<'w>) + Send + Sync)
    where
        Q: ReadOnlyQueryData,
    {
        self.same_window();
        // SAFETY: the schedule holds the (read-only) access for `'w`.
        let visited = unsafe { self.state.query_mut().par_for_each_unchecked(self.world, &f) };
        self.state.processed.set(self.state.processed.get() + visited);
    }

    /// Like [`for_each_mut`](Self::for_each_mut), spread over rayon's threads; each row
    /// is visited by one thread.
    pub fn par_for_each_mut(&mut self, f: impl for<'a> Fn(Q::Item<'a>) + Send + Sync) {
        self.same_window();
        // SAFETY: the schedule holds the access this query declared, for `'w`; each row
        // is claimed by one thread.
        let visited = unsafe { self.state.query_mut().par_for_each_unchecked(self.world, &f) };
        self.state.processed.set(self.state.processed.get() + visited);
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
        unsafe { self.state.query().get_in(self.world, entity) }
    }

    /// The item of `entity` with mutable access, if it matches. Not a run.
    ///
    /// # Errors
    /// As [`QueryState::get`].
    pub fn get_mut(&mut self, entity: Entity) -> Result<Q::Item<'_>, QueryEntityError> {
        // SAFETY: the schedule holds the access for `'w`; the item borrows `self`
        // mutably, so it is the only one alive; the state was updated when the system
        // received the query, and the world has been shared since.
        unsafe { self.state.query().get_in(self.world, entity) }
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
        unsafe { self.state.query().get_many_updated(self.world, entities, false) }
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
        unsafe { self.state.query().get_many_updated(self.world, entities, true) }
    }

    /// Calls `f` with the item of each entity of `entities` that is alive and
    /// matches, in order; returns how many it visited. Not a run.
    pub fn for_each_of(&mut self, entities: &[Entity], f: impl for<'a> FnMut(Q::Item<'a>)) -> usize {
        // SAFETY: the schedule holds the access for `'w`; items cannot outlive `f`'s
        // call, so a repeated entity has one item alive at a time.
        let visited = unsafe { self.state.query_mut().for_each_of_in(self.world, entities, f) };
        self.state.processed.set(self.state.processed.get() + visited);
        visited
    }

    /// Starts an iteration from where this run of the system first found the query, so
    /// that every iteration in the run reports the changes since the system's previous
    /// run. Putting the memory back is sound within a run: no sync point (which trims
    /// the logs and ages the ticks) runs while a system holds the world.
    fn same_window(&self) {
        let state: &QueryParamState<Q, F> = self.state;
        match state.run_start.get() {
            Some(start) => state.query().restore_memory(start),
            None => {
                let start = state.query().memory();
                state.run_start.set(Some(start));
                // Lookups after this iteration judge against the same window.
                state.query().set_lookup_window(Some(start));
            }
        }
    }

    /// The number of entities in the tables this query matches: an upper bound on its
    /// items, as [`QueryState::matched_entities`] explains (sparse components do not
    /// split tables).
    pub fn matched_entities(&self) -> usize {
        self.state.query().matched_entities(self.world)
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

    fn init(world: &mut World, meta: &mut SystemMeta) -> Self::State {
        let query = QueryState::new(world);
        if let Err(conflict) = meta.access.add_query(&query.access, std::any::type_name::<Self>()) {
            meta.refuse(conflict);
        }
        QueryParamState {
            query: UnsafeCell::new(query),
            processed: Cell::new(0),
            run_start: Cell::new(None),
            live: Cell::new(0),
            shared: false,
            combined: Vec::new(),
        }
    }
    unsafe fn get<'w, 's>(state: &'s mut Self::State, world: &'w World, _: &SystemMeta) -> Query<'w, 's, Q, F> {
        // Once per run: `get` and `get_mut` rely on it (`QueryState::get_in`), since
        // the run holds the world shared and no table can appear meanwhile.
        state.query_mut().update_archetypes(world);
        if !state.shared {
            state.run_start.set(None);
            state.query().set_lookup_window(None);
        }
        Query { world, state }
    }
    fn begin_shared_run(state: &mut Self::State) {
        state.shared = true;
        state.run_start.set(None);
        state.query().set_lookup_window(None);
    }
    fn matches(
        state: &mut Self::State,
        world: &World,
        archetype: ArchetypeId,
        has_sparse: &dyn Fn(ComponentId) -> bool,
    ) -> bool {
        state.query_mut().matches_entity_in(world, archetype, has_sparse)
    }
    fn count(state: &mut Self::State, world: &World, counts: &mut EntityCounts) {
        counts.matched += state.query().matched_entities(world);
        counts.processed += state.processed.take();
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
    processed: &'s Cell<usize>,
    /// For an iterator made through `&Query`: the count of those alive, which it
    /// leaves when dropped.
    live: Option<&'s Cell<u32>>,
}

impl<Q: QueryData, F: QueryFilter> Drop for QueryParamIter<'_, '_, Q, F> {
    fn drop(&mut self) {
        if let Some(live) = self.live {
            live.set(live.get().saturating_sub(1));
        }
    }
}

impl<'w, Q: QueryData, F: QueryFilter> Iterator for QueryParamIter<'_, 'w, Q, F> {
    type Item = Q::Item<'w>;

    #[inline]
    fn next(&mut self) -> Option<Q::Item<'w>> {
        let item = self.inner.next()?;
        self.processed.set(self.processed.get() + 1);
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
        self.processed.set(self.processed.get() + count);
        acc
    }
}

impl<Q: QueryData, F: ArchetypeFilter> ExactSizeIterator for QueryParamIter<'_, '_, Q, F> {}
