//! [`QueryState`]: a query's resolved components and its cache of matched tables.

use rayon::prelude::*;

use crate::entity::Entity;
use crate::error::{NoSuchEntity, QueryEntityError};
use crate::storage::{Archetype, ArchetypeId};
use crate::world::{World, WorldId};

use super::access::Access;
use super::fetch::{QueryData, ReadOnlyQueryData};
use super::filter::QueryFilter;
use super::iter::QueryIter;

/// One matched table and what the query resolved for it.
pub(crate) struct Matched<QA, FA> {
    pub(crate) archetype: ArchetypeId,
    pub(crate) data: QA,
    pub(crate) filter: FA,
}

/// Below this many rows a table is one parallel task.
const MIN_PARALLEL_BATCH: usize = 256;

/// A query over entities that have what `Q` fetches and pass filter `F`.
///
/// Build one with [`World::query`] or [`World::query_filtered`] and keep it: it
/// remembers which archetype tables match and catches up with new ones incrementally.
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
/// movers.for_each_mut(&mut world, |(vel, pos)| pos.0 += vel.0);
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
    matched: Vec<Matched<Q::ArchState, F::ArchState>>,
    /// Archetypes `0..seen` have been checked.
    seen: usize,
    /// Reused by [`QueryState::despawn_where`].
    doomed: Vec<Entity>,
}

impl<Q: QueryData, F: QueryFilter> QueryState<Q, F> {
    /// Resolves the query against `world`.
    ///
    /// # Panics
    /// If `Q` would alias a component (`&mut A` twice, or `&A` with `&mut A`), with a
    /// message naming the component.
    #[track_caller]
    pub fn new(world: &mut World) -> Self {
        let data = Q::init_state(world);
        let filter = F::init_state(world);
        let mut access = Access::default();
        Q::access(&data, &mut access);
        if let Some(conflict) = access.conflict() {
            panic!("query `{}` would alias: {conflict}", std::any::type_name::<Q>());
        }
        let mut state =
            QueryState { world_id: world.id(), data, filter, matched: Vec::new(), seen: 0, doomed: Vec::new() };
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

    /// Iterates over the matching entities' items.
    #[track_caller]
    pub fn iter<'w, 's>(&'s mut self, world: &'w World) -> QueryIter<'w, 's, Q, F>
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        QueryIter::new(world, &self.matched)
    }

    /// Iterates over the matching entities' items, with mutable access.
    #[track_caller]
    pub fn iter_mut<'w, 's>(&'s mut self, world: &'w mut World) -> QueryIter<'w, 's, Q, F> {
        self.update_archetypes(world);
        QueryIter::new(world, &self.matched)
    }

    /// The items that satisfy `predicate` (the seed's `queryWhere`).
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

    /// Calls `f` with each matching entity's item.
    #[track_caller]
    pub fn for_each<'w>(&mut self, world: &'w World, f: impl FnMut(Q::Item<'w>))
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        // SAFETY: `Q` is read-only and `world` is shared for `'w`, so no one writes.
        unsafe { self.for_each_unchecked(world, f) }
    }

    /// Calls `f` with each matching entity's item, with mutable access.
    #[track_caller]
    pub fn for_each_mut<'w>(&mut self, world: &'w mut World, f: impl FnMut(Q::Item<'w>)) {
        self.update_archetypes(world);
        // SAFETY: `world` is borrowed exclusively for `'w`, and `Q` was checked not to
        // alias when this state was built.
        unsafe { self.for_each_unchecked(world, f) }
    }

    /// Like [`for_each`](Self::for_each), spread over rayon's threads. Large tables are
    /// split into batches.
    #[track_caller]
    pub fn par_for_each<'w>(&mut self, world: &'w World, f: impl Fn(Q::Item<'w>) + Send + Sync)
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        // SAFETY: `Q` is read-only and `world` is shared for `'w`, so no one writes.
        unsafe { self.par_for_each_unchecked(world, &f) }
    }

    /// Like [`for_each_mut`](Self::for_each_mut), spread over rayon's threads. Large
    /// tables are split into batches; each row is visited by exactly one task.
    #[track_caller]
    pub fn par_for_each_mut<'w>(&mut self, world: &'w mut World, f: impl Fn(Q::Item<'w>) + Send + Sync) {
        self.update_archetypes(world);
        // SAFETY: `world` is borrowed exclusively for `'w` and `Q` does not alias; the
        // tasks get disjoint rows.
        unsafe { self.par_for_each_unchecked(world, &f) }
    }

    /// The item of `entity`, if it matches.
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

    /// The item of `entity` with mutable access, if it matches.
    ///
    /// # Errors
    /// As [`get`](Self::get).
    #[track_caller]
    pub fn get_mut<'w>(&mut self, world: &'w mut World, entity: Entity) -> Result<Q::Item<'w>, QueryEntityError> {
        self.update_archetypes(world);
        // SAFETY: `world` is borrowed exclusively for `'w`; one item is made.
        unsafe { self.get_unchecked(world, entity) }
    }

    /// Despawns every matching entity whose item satisfies `predicate` (the seed's
    /// `deleteWhere`) and returns how many were despawned.
    #[track_caller]
    pub fn despawn_where(&mut self, world: &mut World, mut predicate: impl FnMut(Q::Item<'_>) -> bool) -> usize
    where
        Q: ReadOnlyQueryData,
    {
        self.update_archetypes(world);
        let mut doomed = std::mem::take(&mut self.doomed);
        doomed.clear();
        {
            let shared: &World = world;
            // SAFETY: `Q` is read-only and `shared` is not written while it lives.
            unsafe {
                self.for_each_row_unchecked(shared, |table, row, item| {
                    if predicate(item) {
                        doomed.push(table.entities()[row]);
                    }
                });
            }
        }
        let count = doomed.len();
        for entity in doomed.drain(..) {
            world.despawn(entity).expect("collected entities are alive");
        }
        self.doomed = doomed;
        count
    }

    /// # Safety
    /// The caller holds the access `Q` declares on `world` for `'w`, and the archetype
    /// cache is up to date.
    #[inline]
    unsafe fn for_each_unchecked<'w>(&self, world: &'w World, mut f: impl FnMut(Q::Item<'w>)) {
        for matched in &self.matched {
            let table = world.archetypes.get(matched.archetype);
            let len = table.len();
            if len == 0 {
                continue;
            }
            // SAFETY: `matched.data` was resolved for this table; access per the caller.
            let fetch = unsafe { Q::fetch_archetype(matched.data, table) };
            if F::IS_ARCHETYPAL {
                for row in 0..len {
                    // SAFETY: `row < len`, each row fetched once.
                    f(unsafe { Q::fetch(&fetch, row) });
                }
            } else {
                // SAFETY: `matched.filter` was resolved for this table.
                let filter = unsafe { F::fetch_archetype(matched.filter, table) };
                for row in 0..len {
                    // SAFETY: `row < len`, each row fetched once.
                    if unsafe { F::filter_row(&filter, row) } {
                        // SAFETY: as above.
                        f(unsafe { Q::fetch(&fetch, row) });
                    }
                }
            }
        }
    }

    /// Like `for_each_unchecked`, also passing the table and row.
    ///
    /// # Safety
    /// As `for_each_unchecked`.
    unsafe fn for_each_row_unchecked<'w>(
        &self,
        world: &'w World,
        mut f: impl FnMut(&'w Archetype, usize, Q::Item<'w>),
    ) {
        for matched in &self.matched {
            let table = world.archetypes.get(matched.archetype);
            // SAFETY: resolved for this table; access per the caller.
            let fetch = unsafe { Q::fetch_archetype(matched.data, table) };
            // SAFETY: resolved for this table.
            let filter = unsafe { F::fetch_archetype(matched.filter, table) };
            for row in 0..table.len() {
                // SAFETY: `row < len`, each row fetched once.
                if F::IS_ARCHETYPAL || unsafe { F::filter_row(&filter, row) } {
                    // SAFETY: as above.
                    f(table, row, unsafe { Q::fetch(&fetch, row) });
                }
            }
        }
    }

    /// # Safety
    /// As `for_each_unchecked`; the items may be made on several threads at once,
    /// each row on exactly one.
    unsafe fn par_for_each_unchecked<'w, G>(&self, world: &'w World, f: &G)
    where
        G: Fn(Q::Item<'w>) + Send + Sync,
    {
        let threads = rayon::current_num_threads().max(1);
        self.matched.par_iter().for_each(|matched| {
            let table = world.archetypes.get(matched.archetype);
            let len = table.len();
            let batch = (len / (threads * 4)).max(MIN_PARALLEL_BATCH);
            let batches = len.div_ceil(batch);
            (0..batches).into_par_iter().for_each(|index| {
                let rows = index * batch..((index + 1) * batch).min(len);
                // SAFETY: resolved for this table; access per the caller. Pointers made
                // here are used only for this task's rows.
                let fetch = unsafe { Q::fetch_archetype(matched.data, table) };
                // SAFETY: resolved for this table.
                let filter = unsafe { F::fetch_archetype(matched.filter, table) };
                for row in rows {
                    // SAFETY: `row < len`; batches are disjoint, so each row is fetched
                    // by one task once.
                    if F::IS_ARCHETYPAL || unsafe { F::filter_row(&filter, row) } {
                        // SAFETY: as above.
                        f(unsafe { Q::fetch(&fetch, row) });
                    }
                }
            });
        });
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
        // SAFETY: resolved for this table; `row` is the entity's live row.
        unsafe {
            if !F::IS_ARCHETYPAL && !F::filter_row(&F::fetch_archetype(matched.filter, table), row) {
                return Err(does_not_match);
            }
            Ok(Q::fetch(&Q::fetch_archetype(matched.data, table), row))
        }
    }
}
