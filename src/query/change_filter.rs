//! Change filters: [`Added<T>`], [`Changed<T>`] and [`Dirty<(A, B, ..)>`](Dirty).
//!
//! Each is relative to the query state's own last run ("Each reader remembers its
//! own last run" in docs/design.md). `Added` and `Changed` *drive* iteration: the
//! query descends the column's summary of change ticks and visits only rows changed
//! since its last run. `Dirty` is gathered by the query
//! state before iterating (see `QueryState`), from the listed columns' summaries and
//! the world's log of structural changes.

use std::marker::PhantomData;

use crate::bundle::{Bundle, SPARSE_COLUMN};
use crate::change::{RunTicks, Tick};
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::{Archetype, SparseSet, TickPtrs, downcast_unchecked};
use crate::world::World;

use super::access::Access;
use super::fetch::ComponentRef;
use super::filter::{QueryFilter, sealed};

/// Matches entities whose `T` was added since the query last ran (by spawn or
/// insert). A query's first run sees every `T` as added.
///
/// Using it turns on tracking for `T` ([`World::track`]).
pub struct Added<T>(PhantomData<fn() -> T>);

/// Matches entities whose `T` was added or written (through [`Mut`](crate::Mut),
/// [`World::mark_changed`] or an overwriting insert) since the query last ran. A
/// query's first run sees every `T` as changed.
///
/// Using it turns on tracking for `T` ([`World::track`]).
///
/// ```
/// use ripple::World;
/// use ripple::query::Changed;
/// struct Pos(f32);
/// let mut world = World::new();
/// let crates: Vec<_> = world.spawn_batch((0..1000).map(|i| (Pos(i as f32),))).collect();
/// let mut moved = world.query_filtered::<&Pos, Changed<Pos>>();
/// assert_eq!(moved.iter(&world).count(), 1000); // first run: all new
/// world.get_mut::<Pos>(crates[7]).unwrap().0 += 1.0;
/// assert_eq!(moved.iter(&world).count(), 1);    // only what changed since
/// assert_eq!(moved.iter(&world).count(), 0);
/// ```
pub struct Changed<T>(PhantomData<fn() -> T>);

/// A dirty set: matches entities for which, since the query last ran, any
/// component of the tuple `B` changed, was added or was removed, or which started
/// matching the query ("Dirty sets" in docs/design.md). The listed components need not be fetched. Each dirty
/// entity is visited once per run; a query's first run sees every entity as dirty.
///
/// The world keeps the structural changes such a query has not read, up to its
/// [change-log limit](crate::World::set_change_log_limit). A query that falls further
/// behind than that (a state kept but not run) sees every matching entity as dirty on
/// its next run, as on its first, so it never misses one; it is exact again from then.
///
/// `Dirty` must be used at the top level of a query's filter (alone or in a tuple),
/// not inside [`Or`](crate::query::Or). [`QueryState::get`](crate::query::QueryState::get) does not
/// consult it.
///
/// ```
/// use ripple::{Entity, World};
/// use ripple::query::Dirty;
/// struct Sprite;
/// struct Pos(f32);
/// struct Hidden;
/// let mut world = World::new();
/// let a = world.spawn((Sprite, Pos(0.0)));
/// let b = world.spawn((Sprite, Pos(0.0)));
/// let mut redraw = world.query_filtered::<Entity, Dirty<(Pos, Hidden)>>();
/// assert_eq!(redraw.iter(&world).count(), 2);
/// world.insert(b, (Hidden,)).unwrap(); // a listed component added
/// world.get_mut::<Pos>(a).unwrap().0 = 1.0;
/// let mut dirty: Vec<Entity> = redraw.iter(&world).collect();
/// dirty.sort();
/// assert_eq!(dirty, { let mut v = vec![a, b]; v.sort(); v });
/// assert_eq!(redraw.iter(&world).count(), 0);
/// ```
pub struct Dirty<B>(PhantomData<fn() -> B>);

/// Per-table pointers for a change filter.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct ChangeFetch {
    ticks: TickPtrs,
    /// Whether the filter tests the added ticks (`Added`) rather than the change ticks.
    added: bool,
    run: RunTicks,
}

/// Builds the fetch for a tracked column of `T`.
///
/// # Safety
/// `column` is the index of `T`'s component id in `archetype`.
unsafe fn change_fetch<T: Component>(column: usize, archetype: &Archetype, run: RunTicks, added: bool) -> ChangeFetch {
    // SAFETY: `column` holds `T` (caller).
    let column = unsafe { downcast_unchecked::<T>(archetype.column_unchecked(column)) };
    let ticks =
        column.tick_ptrs().expect("ripple: a change filter's component is tracked from the filter's creation on");
    ChangeFetch { ticks, added, run }
}

/// The fetch of a sparse component's change filter in a table: never read (its
/// ticks are reached through the set), so it points nowhere.
fn sparse_placeholder(run: RunTicks, added: bool) -> ChangeFetch {
    let nowhere = TickPtrs {
        added: std::ptr::null_mut(),
        changed: std::ptr::null_mut(),
        stamps: std::ptr::null_mut(),
        summary: std::ptr::null(),
        live: false,
    };
    ChangeFetch { ticks: nowhere, added, run }
}

/// A change filter's part of a run on a sparse component: the set and its ticks.
#[doc(hidden)]
pub type SparseChangeFetch<'w> = Option<(&'w SparseSet, ChangeFetch)>;

/// Builds a change filter's part of a run on a sparse component.
fn sparse_change_fetch<'w, T: Component>(
    state: &ComponentRef,
    world: &'w World,
    run: RunTicks,
    added: bool,
) -> SparseChangeFetch<'w> {
    let set = state.set(world)?;
    // SAFETY: a component's set holds values of its registered type.
    let column = unsafe { downcast_unchecked::<T>(&*set.values) };
    let ticks = column.tick_ptrs().expect("ripple: a change filter's component is tracked from its creation on");
    Some((set, ChangeFetch { ticks, added, run }))
}

/// # Safety
/// `fetch` was made for a table of at least `row + 1` rows.
#[inline]
unsafe fn passes(fetch: &ChangeFetch, row: usize) -> bool {
    // SAFETY: `row` is in bounds (caller); ticks are only written by an accessor that
    // excludes this read (a change filter declares a read of its component).
    let tick = unsafe {
        if fetch.added { *fetch.ticks.added.add(row) } else { fetch.ticks.changed_at(row, fetch.run.this_run) }
    };
    fetch.run.is_new(tick)
}

/// # Safety
/// `fetch` was made for a table of `len` rows.
#[inline]
unsafe fn candidates(fetch: &ChangeFetch, len: usize, f: &mut impl FnMut(usize)) {
    let Some(last_run) = fetch.run.last_run else {
        (0..len).for_each(f);
        return;
    };
    // SAFETY: the summary lives as long as the column, which holds `len` change ticks
    // and a stamp per leaf of them (caller); a change filter declares a read of its
    // column, which excludes writers while the run gathers candidates.
    unsafe { fetch.ticks.for_each_changed(len, last_run, fetch.run.this_run, f) };
}

macro_rules! impl_change_filter {
    ($filter:ident, $added:expr, $exact:expr) => {
        impl<T> sealed::Sealed for $filter<T> {}

        // SAFETY: reads only `T`'s ticks, through pointers made in `fetch_archetype`.
        unsafe impl<T: Component> QueryFilter for $filter<T> {
            const IS_ARCHETYPAL: bool = false;
            const DRIVES: bool = true;
            const EXACT: bool = $exact;
            type State = ComponentRef;
            type ArchState = usize;
            type Fetch<'w> = ChangeFetch;

            fn init_state(world: &mut World) -> ComponentRef {
                let component = ComponentRef::of::<T>(world);
                world.observe_id(component.id);
                component
            }
            fn access(state: &ComponentRef, access: &mut Access) {
                access.read_ticks(state.id, std::any::type_name::<T>());
                access.require(state);
            }
            #[inline]
            fn match_archetype(state: &ComponentRef, archetype: &Archetype) -> Option<usize> {
                if state.sparse {
                    return Some(SPARSE_COLUMN);
                }
                archetype.column_index(state.id)
            }
            type Sparse<'w> = SparseChangeFetch<'w>;
            fn has_sparse(state: &ComponentRef) -> bool {
                state.sparse
            }
            fn sparse_ids(state: &ComponentRef, required: &mut Vec<ComponentId>, deciding: &mut Vec<ComponentId>) {
                state.list_sparse(required, deciding);
            }
            fn fetch_sparse<'w>(state: &ComponentRef, world: &'w World, ticks: RunTicks) -> SparseChangeFetch<'w> {
                sparse_change_fetch::<T>(state, world, ticks, $added)
            }
            #[inline]
            unsafe fn filter_entity(
                fetch: &ChangeFetch,
                sparse: &SparseChangeFetch<'_>,
                entity: Entity,
                row: usize,
            ) -> bool {
                match sparse {
                    // SAFETY: `dense` is a row of the set's values.
                    Some((set, ticks)) => set.dense(entity).is_some_and(|dense| unsafe { passes(ticks, dense) }),
                    // SAFETY: forwarded from the caller.
                    None => unsafe { passes(fetch, row) },
                }
            }
            fn matches_presence(
                state: &ComponentRef,
                archetype: &Archetype,
                has_sparse: &dyn Fn(ComponentId) -> bool,
            ) -> bool {
                state.present(archetype, has_sparse)
            }
            #[inline]
            unsafe fn fetch_archetype(column: usize, archetype: &Archetype, ticks: RunTicks) -> ChangeFetch {
                if column == SPARSE_COLUMN {
                    return sparse_placeholder(ticks, $added);
                }
                // SAFETY: `column` came from `match_archetype` for this table.
                unsafe { change_fetch::<T>(column, archetype, ticks, $added) }
            }
            #[inline]
            unsafe fn filter_row(fetch: &ChangeFetch, row: usize) -> bool {
                // SAFETY: forwarded from the caller.
                unsafe { passes(fetch, row) }
            }
            #[inline]
            unsafe fn for_each_candidate(fetch: &ChangeFetch, len: usize, f: &mut impl FnMut(usize)) {
                // SAFETY: forwarded from the caller.
                unsafe { candidates(fetch, len, f) }
            }
        }
    };
}

// `Changed` gathers exactly the changed rows; `Added` gathers changed rows, a superset.
impl_change_filter!(Added, true, false);
impl_change_filter!(Changed, false, true);

/// What a [`Dirty`] filter resolved: the listed component ids and its cursor into
/// the world's log of structural changes.
#[doc(hidden)]
pub struct DirtyState {
    pub(crate) components: Box<[ComponentId]>,
    pub(crate) cursor: crate::change::log::Cursor,
}

impl DirtyState {
    /// Whether a run with `last_run` takes every matching entity as dirty — a first
    /// run, or one after the reader fell further behind than the world's log keeps
    /// — and if so, skips the log so far.
    pub(crate) fn starts_over(&self, world: &World, last_run: Option<Tick>) -> bool {
        let starts_over = last_run.is_none() || world.moves.has_missed(&self.cursor);
        if starts_over {
            let _ = world.moves.read(&self.cursor);
        }
        starts_over
    }
}

impl<B> sealed::Sealed for Dirty<B> {}

// SAFETY: reads nothing per row; the query state reads ticks through the columns.
unsafe impl<B: Bundle> QueryFilter for Dirty<B> {
    const IS_ARCHETYPAL: bool = false;
    const HAS_DIRTY: bool = true;
    const EXACT: bool = true;
    type State = DirtyState;
    type ArchState = ();
    type Fetch<'w> = ();

    fn init_state(world: &mut World) -> DirtyState {
        let mut ids = Vec::new();
        B::register(&mut world.components, &mut ids);
        ids.sort_unstable();
        ids.dedup();
        for &id in &ids {
            world.observe_id(id);
        }
        DirtyState { components: ids.into(), cursor: world.moves.register() }
    }
    #[inline]
    fn match_archetype(_: &DirtyState, _: &Archetype) -> Option<()> {
        Some(())
    }
    #[inline]
    unsafe fn fetch_archetype(_: (), _: &Archetype, _: RunTicks) {}
    #[inline]
    unsafe fn filter_row(_: &(), _: usize) -> bool {
        true
    }
    fn dirty_state(state: &DirtyState) -> Option<&DirtyState> {
        Some(state)
    }
    type Sparse<'w> = ();
    fn has_sparse(_: &DirtyState) -> bool {
        // Its sparse components are gathered like its table ones.
        false
    }
    fn sparse_ids(_: &DirtyState, _: &mut Vec<ComponentId>, _: &mut Vec<ComponentId>) {}
    fn matches_presence(_: &DirtyState, _: &Archetype, _: &dyn Fn(ComponentId) -> bool) -> bool {
        true
    }
    fn fetch_sparse(_: &DirtyState, _: &World, _: RunTicks) {}
    #[inline]
    unsafe fn filter_entity(_: &(), _: &(), _: Entity, _: usize) -> bool {
        true
    }
    fn access(state: &DirtyState, access: &mut Access) {
        for &id in &state.components {
            access.read_ticks(id, "a component listed in `Dirty`");
        }
    }
}
