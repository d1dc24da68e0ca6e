//! [`Ref<T>`]: a shared read of `T` that also says whether the value is new to this
//! query run (added or changed since the query last ran).

use std::any::type_name;
use std::fmt;
use std::ops::Deref;

use crate::change::{RunTicks, Tick};
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::{Archetype, Column, TickPtrs};
use crate::world::World;

use super::access::Access;
use super::fetch::{ColumnPtr, ComponentRef, QueryData, ReadOnlyQueryData, one_component_sparse_parts, sealed};
use super::sparse_fetch::SparseFetch;

/// A shared reference to an entity's `T` that knows whether it changed: fetch it in a
/// query as `Ref<T>` instead of `&T` to test each item, where a [`Changed`](crate::query::Changed)
/// filter would skip the unchanged ones.
///
/// [`is_added`](Ref::is_added) and [`is_changed`](Ref::is_changed) are relative to
/// the query's previous run — for a [`Query`](crate::system::Query) parameter, the system's
/// previous run — exactly as the change filters are: on a query's first run every
/// value counts as added and changed. A query that fetches `Ref` is a reader, so
/// each of its runs takes a tick of its own.
///
/// Using `Ref<T>` turns on tracking for `T` ([`World::track`]): ripple keeps change
/// ticks only for the types someone asks about, so a type no query or system tests
/// costs nothing.
///
/// ```
/// use ripple::World;
/// use ripple::query::Ref;
/// struct Pos(f32);
/// let mut world = World::new();
/// let a = world.spawn((Pos(0.0),));
/// let b = world.spawn((Pos(0.0),));
/// let mut all = world.query::<(ripple::Entity, Ref<'_, Pos>)>();
/// assert!(all.iter(&world).all(|(_, pos)| pos.is_added() && pos.is_changed()));
/// world.get_mut::<Pos>(b).unwrap().0 = 1.0;
/// let changed: Vec<_> = all.iter(&world).filter(|(_, pos)| pos.is_changed()).map(|(e, _)| e).collect();
/// assert_eq!(changed, [b]);
/// assert_eq!(all.iter(&world).filter(|(_, pos)| pos.is_changed()).count(), 0);
/// # let _ = a;
/// ```
pub struct Ref<'w, T> {
    value: &'w T,
    added: Tick,
    changed: Tick,
    run: RunTicks,
}

impl<'w, T> Ref<'w, T> {
    /// Whether the value was added (by spawn or insert) since the query last ran.
    #[inline]
    pub fn is_added(&self) -> bool {
        self.run.is_new(self.added)
    }

    /// Whether the value was added or written since the query last ran.
    #[inline]
    pub fn is_changed(&self) -> bool {
        self.run.is_new(self.changed)
    }

    /// The tick of the value's last change (as [`Tick`]s order within a run's window).
    #[inline]
    pub fn last_changed(&self) -> Tick {
        self.changed
    }

    /// The reference itself, for as long as the query's borrow of the world.
    #[inline]
    pub fn into_inner(self) -> &'w T {
        self.value
    }
}

impl<T> Deref for Ref<'_, T> {
    type Target = T;
    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> AsRef<T> for Ref<'_, T> {
    #[inline]
    fn as_ref(&self) -> &T {
        self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Ref<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ref")
            .field("value", &self.value)
            .field("added", &self.is_added())
            .field("changed", &self.is_changed())
            .finish()
    }
}

/// Per-table pointers for [`Ref<T>`]: the values, their ticks and the run's ticks.
#[doc(hidden)]
pub struct RefFetch<T> {
    values: *const T,
    /// `None` only for a sparse component's table part (its values and ticks are
    /// reached through its set), or a column whose tracking starts later than the
    /// query (impossible: the query turns tracking on when it is built).
    ticks: Option<TickPtrs>,
    run: RunTicks,
}

impl<T> Clone for RefFetch<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for RefFetch<T> {}

/// The ticks of row `row`, as a run sees them.
///
/// # Safety
/// `ticks` came from a column with row `row`, whose ticks no one writes during the
/// call.
#[inline]
unsafe fn ticks_of(ticks: Option<TickPtrs>, row: usize, now: Tick) -> (Tick, Tick) {
    match ticks {
        // SAFETY: per the caller.
        Some(ticks) => unsafe { (*ticks.added.add(row), ticks.changed_at(row, now)) },
        // Never reached for a tracked column; everything counts as new otherwise.
        None => (now, now),
    }
}

impl<T: Component> sealed::Sealed for Ref<'_, T> {}

// SAFETY: declares a read of `T` and of its ticks, and only reads `T`'s column and
// ticks (or its set's).
unsafe impl<T: Component> QueryData for Ref<'_, T> {
    type Item<'w> = Ref<'w, T>;
    const IS_READ_ONLY: bool = true;
    const OBSERVES: bool = true;
    type State = ComponentRef;
    type ArchState = ColumnPtr<T>;
    type Fetch<'w> = RefFetch<T>;
    type Record = ();
    #[inline]
    fn new_record() {}

    fn init_state(world: &mut World) -> ComponentRef {
        let component = ComponentRef::of::<T>(world);
        world.track_id(component.id);
        component
    }
    fn access(state: &ComponentRef, access: &mut Access) {
        access.read(state.id, type_name::<T>());
        access.read_ticks(state.id, type_name::<T>());
        access.require(state);
    }
    #[inline]
    fn match_archetype(state: &ComponentRef, archetype: &Archetype) -> Option<ColumnPtr<T>> {
        ColumnPtr::resolve_ref(*state, archetype)
    }
    #[inline]
    unsafe fn fetch_archetype(column: ColumnPtr<T>, archetype: &Archetype, run: RunTicks) -> RefFetch<T> {
        // SAFETY: resolved for this table of the borrowed world (caller).
        let Some(column) = (unsafe { column.get() }) else {
            return RefFetch { values: std::ptr::null(), ticks: None, run };
        };
        debug_assert_eq!(column.len(), archetype.len());
        RefFetch { values: column.get_ptr(), ticks: column.tick_ptrs(), run }
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &RefFetch<T>, row: usize) -> Ref<'w, T> {
        // SAFETY: `row` is in bounds (caller); the declared read of `T` and its ticks
        // excludes writers of both during `'w`.
        let (added, changed) = unsafe { ticks_of(fetch.ticks, row, fetch.run.this_run) };
        // SAFETY: as above.
        let value = unsafe { &*fetch.values.add(row) };
        Ref { value, added, changed, run: fetch.run }
    }
    #[inline]
    fn prefetch(fetch: &RefFetch<T>, row: usize) {
        crate::util::hint::prefetch(fetch.values.wrapping_add(row));
        if let Some(ticks) = fetch.ticks {
            crate::util::hint::prefetch(ticks.changed.wrapping_add(row));
        }
    }
    type Rows<'w> = &'w [T];
    #[inline]
    unsafe fn rows<'w>(fetch: &RefFetch<T>, len: usize) -> &'w [T] {
        // SAFETY: the column holds `len` values (caller) from a non-null, aligned
        // pointer, and no one writes them during `'w` (declared read access).
        unsafe { std::slice::from_raw_parts(fetch.values, len) }
    }
    #[inline]
    fn fetch_rows<'w>(rows: Self::Rows<'w>, like: &Self::Fetch<'w>) -> Self::Fetch<'w> {
        RefFetch { values: rows.as_ptr(), ..*like }
    }
    one_component_sparse_parts!();
    #[inline]
    unsafe fn fetch_entity<'w>(
        fetch: &RefFetch<T>,
        sparse: &Self::Sparse<'w>,
        entity: Entity,
        row: usize,
    ) -> Ref<'w, T> {
        let Some(sparse) = sparse else {
            // SAFETY: forwarded from the caller.
            return unsafe { Self::fetch(fetch, row) };
        };
        // SAFETY: the entity has a value (caller).
        let dense = unsafe { sparse.dense(entity) };
        // SAFETY: `dense` is a row of the set; the declared read excludes writers of the
        // set's values and ticks during `'w`.
        let (added, changed) = unsafe { ticks_of(sparse.ticks, dense, fetch.run.this_run) };
        // SAFETY: as above.
        let value = unsafe { &*sparse.values.add(dense) };
        Ref { value, added, changed, run: fetch.run }
    }
}

// SAFETY: `Ref<T>` declares only reads.
unsafe impl<T: Component> ReadOnlyQueryData for Ref<'_, T> {}
