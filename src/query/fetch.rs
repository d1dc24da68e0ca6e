//! What a query fetches per entity: the [`QueryData`] trait, and `&T`, `Entity` and
//! tuples (`&mut T` in `mut_fetch.rs`, `Option<..>` in `option_fetch.rs`).

use std::any::type_name;

use crate::change::RunTicks;
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::{Archetype, Column, TypedColumn, downcast_unchecked};
use crate::world::World;

use super::access::Access;
pub(crate) use super::sparse_fetch::ComponentRef;
use super::sparse_fetch::SparseFetch;

pub(super) mod sealed {
    pub trait Sealed {}
}

/// A matched table's column of `T`, resolved once when the query matched the table.
///
/// # Invariant
/// Points to the `TypedColumn<T>` of a table of the world the query state was built
/// for. Tables are never freed and a column never moves (it is boxed, and a table's
/// column list never changes), so the pointer stays valid as long as that world lives;
/// a query state is only ever used with that world (checked on every use).
#[doc(hidden)]
pub struct ColumnPtr<T>(*const TypedColumn<T>);

impl<T> Clone for ColumnPtr<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for ColumnPtr<T> {}

// SAFETY: the pointer is only dereferenced by a query run on the world that owns the
// column, under that run's access; sharing or sending the handle itself is harmless.
unsafe impl<T> Send for ColumnPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for ColumnPtr<T> {}

impl<T: Component> ColumnPtr<T> {
    /// The column of `component` in `archetype`, if it has one; for a sparse component,
    /// which no table has, a null handle (its values are reached through its set).
    #[inline]
    pub(super) fn resolve_ref(component: ComponentRef, archetype: &Archetype) -> Option<Self> {
        if component.sparse {
            return Some(ColumnPtr(std::ptr::null()));
        }
        Self::resolve(component.id, archetype)
    }

    /// The column of `id` in `archetype`, if it has one.
    #[inline]
    fn resolve(id: ComponentId, archetype: &Archetype) -> Option<Self> {
        let index = archetype.column_index(id)?;
        // SAFETY: `index` is the column of `T`'s component id, so it holds `T`.
        let column = unsafe { downcast_unchecked::<T>(archetype.column(index)) };
        Some(ColumnPtr(column))
    }

    /// # Safety
    /// The world that owns the column is alive and borrowed by the caller for `'w`.
    #[inline]
    pub(super) unsafe fn get<'w>(self) -> Option<&'w TypedColumn<T>> {
        // SAFETY: valid (or null, for a sparse component) per the type's invariant and
        // the caller.
        unsafe { self.0.as_ref() }
    }
}

/// A type a query can fetch for each matching entity.
///
/// Implemented for `&T`, `&mut T`, `Option<&T>`, `Option<&mut T>`, [`Entity`], and
/// tuples of up to 16 of these (tuples nest). Sealed: the storage it reaches into is
/// private to ripple.
///
/// # Safety
/// Implementations (all inside ripple) must report every component they access in
/// `access`, and `fetch` may only touch the columns reported there. Code outside
/// ripple cannot implement it, even with `unsafe`:
///
/// ```compile_fail,E0277
/// struct Mine;
/// unsafe impl ripple::query::QueryData for Mine {}
/// ```
pub unsafe trait QueryData: sealed::Sealed {
    /// What the query yields per entity; borrows the world for `'w`.
    type Item<'w>;
    /// True if the query only reads (no `&mut`): it may stream rows straight out of a
    /// change summary, since it cannot write the summary it walks.
    #[doc(hidden)]
    const IS_READ_ONLY: bool;
    /// True if items compare ticks with the query's last run ([`Ref`](crate::query::Ref)):
    /// each run then takes a tick of its own, as a run with a change filter does.
    #[doc(hidden)]
    const OBSERVES: bool = false;
    /// True if items write components of their own choosing as they go
    /// ([`EntityMutExcept`](crate::query::EntityMutExcept)): such writes record themselves in
    /// the columns' summaries at once, so a parallel run of the query runs serially.
    #[doc(hidden)]
    const WRITES_ANY: bool = false;
    /// Resolved once per query: component ids.
    #[doc(hidden)]
    type State: Send + Sync + 'static;
    /// Resolved once per matched archetype: column indices.
    #[doc(hidden)]
    type ArchState: Copy + Send + Sync + 'static;
    /// Pointers into one archetype's columns, made per iteration. `Copy`, so that a
    /// guard can keep its own copy rather than pin the loop's to memory.
    #[doc(hidden)]
    type Fetch<'w>: Copy;
    /// Where a run's items record their writes to tracked columns: for each written
    /// column, the rows of the current leaf written so far (a batched run) and the
    /// cursor a visit of a list of entities appends rows through (`end_row`); nothing
    /// for a fetch that writes nothing. Kept apart from the fetch's pointers: setting a
    /// bit in it must not make the compiler reload them (which stops a loop that writes
    /// every row from being vectorized).
    #[doc(hidden)]
    type Record;
    /// An empty record, for a batched run's visit of one table.
    #[doc(hidden)]
    fn new_record() -> Self::Record;

    #[doc(hidden)]
    fn init_state(world: &mut World) -> Self::State;
    #[doc(hidden)]
    fn access(state: &Self::State, access: &mut Access);
    /// `Some` if an archetype's entities can be fetched.
    #[doc(hidden)]
    fn match_archetype(state: &Self::State, archetype: &Archetype) -> Option<Self::ArchState>;
    /// # Safety
    /// `arch_state` came from `match_archetype` for this `archetype`; the caller holds
    /// the access this query declared for the whole of `'w`; `ticks.this_run` is the
    /// newest tick any writer of these columns has used.
    #[doc(hidden)]
    unsafe fn fetch_archetype<'w>(
        arch_state: Self::ArchState,
        archetype: &'w Archetype,
        ticks: RunTicks,
    ) -> Self::Fetch<'w>;
    /// # Safety
    /// `row < archetype.len()`, and no other live item of this fetch was made for the
    /// same row.
    #[doc(hidden)]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w>;
    /// Hints the processor to load what `fetch(row)` will touch (a visit of a list of
    /// entities overlaps their cache misses this way). Never faults.
    #[doc(hidden)]
    #[inline]
    fn prefetch(fetch: &Self::Fetch<'_>, row: usize) {
        let _ = (fetch, row);
    }
    /// How many tracked columns this fetch writes.
    #[doc(hidden)]
    #[inline]
    fn tracked_writes(fetch: &Self::Fetch<'_>) -> usize {
        let _ = fetch;
        0
    }
    /// How many columns this fetch writes, tracked or not.
    #[doc(hidden)]
    #[inline]
    fn writes(fetch: &Self::Fetch<'_>) -> usize {
        let _ = fetch;
        0
    }
    /// Like `fetch`, for a fetch that writes no tracked column (`tracked_writes` is 0):
    /// items are made knowing that, so a loop over them has no branch on tracking.
    ///
    /// # Safety
    /// As `fetch`; `tracked_writes(fetch)` is 0.
    #[doc(hidden)]
    #[inline]
    unsafe fn fetch_untracked<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
        // SAFETY: forwarded from the caller.
        unsafe { Self::fetch(fetch, row) }
    }
    /// Like `fetch`, for a batched run: a write to a tracked column sets, in that
    /// column's part of `record`, the bit of `row`'s place in its leaf (bit `bit` of
    /// byte `byte`: the leaf's row `8 · byte + bit`), and the run stamps the rows with
    /// [`end_leaf`](Self::end_leaf). With `ALL_TRACKED` the caller promises that every
    /// column the fetch writes is tracked (`writes == tracked_writes`), so items need not
    /// look.
    ///
    /// # Safety
    /// As `fetch`; `byte < 8`, `bit < 8`; items cannot outlive the call that receives
    /// them (they point into `record`).
    #[doc(hidden)]
    #[inline]
    unsafe fn fetch_batched<'w, const ALL_TRACKED: bool>(
        fetch: &Self::Fetch<'w>,
        record: &Self::Record,
        row: usize,
        byte: usize,
        bit: u32,
    ) -> Self::Item<'w> {
        let _ = (record, byte, bit);
        // SAFETY: forwarded from the caller.
        unsafe { Self::fetch(fetch, row) }
    }
    /// Stamps the rows of leaf `leaf` written in this batched run and clears the
    /// record. With `summary`, records them in the column's summary too; a parallel
    /// run's participants pass `false` and the run calls
    /// [`fold_table`](Self::fold_table) once they are done.
    ///
    /// # Safety
    /// The fetch was made for a table of `len` rows; no item of this leaf is in use any
    /// more, and no one else accesses these rows (with `summary`, the column).
    #[doc(hidden)]
    #[inline]
    unsafe fn end_leaf(fetch: &Self::Fetch<'_>, record: &Self::Record, len: usize, leaf: usize, summary: bool) {
        let _ = (fetch, record, len, leaf, summary);
    }
    /// Records a write since the last call as a write to `row`: a batched run of one
    /// row (a visit of a list of entities calls it after each item, made at byte 0,
    /// bit 0).
    ///
    /// # Safety
    /// The fetch was made for a table with row `row`; no item of it is in use any more,
    /// and the caller is the only writer of the fetch's columns.
    #[doc(hidden)]
    #[inline]
    unsafe fn end_row(fetch: &Self::Fetch<'_>, record: &Self::Record, row: usize) {
        let _ = (fetch, record, row);
    }
    /// Ends a run of [`end_row`](Self::end_row) calls on this fetch: what they appended
    /// to change lists through the record becomes the lists' (see `ListCursor`). Called
    /// before the record is dropped, also when unwinding.
    ///
    /// # Safety
    /// As `end_row`, with the record used only by `end_row` calls on this fetch.
    #[doc(hidden)]
    #[inline]
    unsafe fn end_rows(fetch: &Self::Fetch<'_>, record: &Self::Record) {
        let _ = (fetch, record);
    }
    /// Folds rows stamped by a parallel run's participants into the summaries: all rows
    /// of the table, or the `(table, row)` pairs of `rows`.
    ///
    /// # Safety
    /// The fetch was made for a table of `len` rows; the participants are done and no
    /// one else accesses the table.
    #[doc(hidden)]
    unsafe fn fold_table(fetch: &Self::Fetch<'_>, len: usize, rows: Option<&[(u32, u32)]>) {
        let _ = (fetch, len, rows);
    }
    /// One table's rows of this fetch as plain references: `&[T]` for `&T`, `&mut [T]`
    /// for `&mut T` (its values; ticks are reached as before), the entity list for
    /// `Entity`; options and tuples of those.
    #[doc(hidden)]
    type Rows<'w>;
    /// The rows of `fetch`.
    ///
    /// # Safety
    /// As `fetch`, for every row below `len`, the table's length: while the rows live,
    /// the table's rows are reached only through them (and through fetches remade from
    /// them with `fetch_rows`).
    #[doc(hidden)]
    unsafe fn rows<'w>(fetch: &Self::Fetch<'w>, len: usize) -> Self::Rows<'w>;
    /// `like`, but reaching the table's values through `rows` (made from `like`).
    #[doc(hidden)]
    fn fetch_rows<'w>(rows: Self::Rows<'w>, like: &Self::Fetch<'w>) -> Self::Fetch<'w>;
    /// Pointers into the sparse sets the fetch reads, made once per run on a world.
    #[doc(hidden)]
    type Sparse<'w>: Copy;
    /// Whether the fetch reaches a component stored in a sparse set: the query then
    /// visits entity by entity ([`fetch_entity`](Self::fetch_entity)).
    #[doc(hidden)]
    fn has_sparse(state: &Self::State) -> bool;
    /// Appends to `required` the sparse components every match has (a run may start
    /// from the smallest of their sets) and to `deciding` those whose presence decides
    /// whether an entity matches.
    #[doc(hidden)]
    fn sparse_ids(state: &Self::State, required: &mut Vec<ComponentId>, deciding: &mut Vec<ComponentId>);
    /// # Safety
    /// The caller holds the access this query declared on `world` for `'w`.
    #[doc(hidden)]
    unsafe fn fetch_sparse<'w>(state: &Self::State, world: &'w World, ticks: RunTicks) -> Self::Sparse<'w>;
    /// Whether `entity` (alive) has the sparse components the fetch needs.
    #[doc(hidden)]
    fn sparse_matches(sparse: &Self::Sparse<'_>, entity: Entity) -> bool;
    /// The item of `entity`, the entity of row `row` of the table `fetch` was made for:
    /// table parts as [`fetch`](Self::fetch) makes them, sparse parts from their sets;
    /// writes are stamped as they happen.
    ///
    /// # Safety
    /// As `fetch`; `sparse_matches(sparse, entity)` holds and `sparse` was made for the
    /// same run.
    #[doc(hidden)]
    unsafe fn fetch_entity<'w>(
        fetch: &Self::Fetch<'w>,
        sparse: &Self::Sparse<'w>,
        entity: Entity,
        row: usize,
    ) -> Self::Item<'w>;
    /// Calls `body` with `fetch` remade from its rows inside a function that takes the
    /// rows as parameters, one per column: the compiler then knows that the columns do
    /// not overlap, so a loop that writes one and reads another may keep several rows
    /// in flight and merge them into vector instructions.
    ///
    /// # Safety
    /// As `rows`.
    #[doc(hidden)]
    #[inline]
    unsafe fn with_rows<'w, R>(fetch: &Self::Fetch<'w>, len: usize, body: impl FnOnce(&Self::Fetch<'w>) -> R) -> R {
        // SAFETY: forwarded from the caller.
        let rows = unsafe { Self::rows(fetch, len) };
        through_parameter(rows, |rows| body(&Self::fetch_rows(rows, fetch)))
    }
}

/// The sparse parts of [`QueryData`] for a fetch of one component `T` resolved as a
/// [`ComponentRef`] (`&T`, `&mut T`, [`Ref<T>`](crate::query::Ref)): the run's pointers into
/// `T`'s set, if `T` is sparse; the entity must have a `T` there.
macro_rules! one_component_sparse_parts {
    () => {
        type Sparse<'w> = Option<SparseFetch<'w, T>>;
        fn has_sparse(state: &ComponentRef) -> bool {
            state.sparse
        }
        fn sparse_ids(state: &ComponentRef, required: &mut Vec<ComponentId>, deciding: &mut Vec<ComponentId>) {
            state.list_sparse(required, deciding);
        }
        unsafe fn fetch_sparse<'w>(state: &ComponentRef, world: &'w World, ticks: RunTicks) -> Self::Sparse<'w> {
            SparseFetch::of(state, world, ticks)
        }
        #[inline]
        fn sparse_matches(sparse: &Self::Sparse<'_>, entity: Entity) -> bool {
            SparseFetch::has(sparse, entity)
        }
    };
}
pub(super) use one_component_sparse_parts;

/// The sparse parts of [`QueryData`] for a fetch that reads no sparse set (`Entity`,
/// whole entities, which reach sparse components through the world when asked).
macro_rules! no_sparse_parts {
    () => {
        type Sparse<'w> = ();
        fn has_sparse(_: &Self::State) -> bool {
            false
        }
        fn sparse_ids(_: &Self::State, _: &mut Vec<ComponentId>, _: &mut Vec<ComponentId>) {}
        unsafe fn fetch_sparse(_: &Self::State, _: &World, _: RunTicks) {}
        #[inline]
        fn sparse_matches(_: &(), _: Entity) -> bool {
            true
        }
    };
}
pub(super) use no_sparse_parts;

/// Calls `body(rows)` from a function of its own, so that `rows` (references) are
/// parameters the compiler may assume distinct from every other pointer.
#[inline(never)]
fn through_parameter<Rows, R>(rows: Rows, body: impl FnOnce(Rows) -> R) -> R {
    body(rows)
}

/// A [`QueryData`] that only reads, so it can run on a shared `&World`.
///
/// # Safety
/// Implemented only for fetches that declare reads and no writes.
pub unsafe trait ReadOnlyQueryData: QueryData {}

impl sealed::Sealed for Entity {}

// SAFETY: reads only the entity list, which is not a component.
unsafe impl QueryData for Entity {
    type Item<'w> = Entity;
    const IS_READ_ONLY: bool = true;
    type State = ();
    type ArchState = ();
    type Fetch<'w> = &'w [Entity];
    type Record = ();
    #[inline]
    fn new_record() {}

    fn init_state(_: &mut World) {}
    fn access(_: &(), _: &mut Access) {}
    #[inline]
    fn match_archetype(_: &(), _: &Archetype) -> Option<()> {
        Some(())
    }
    #[inline]
    unsafe fn fetch_archetype<'w>(_: (), archetype: &'w Archetype, _: RunTicks) -> Self::Fetch<'w> {
        archetype.entities()
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
        // SAFETY: the caller guarantees `row < archetype.len() == fetch.len()`.
        unsafe { *fetch.get_unchecked(row) }
    }
    type Rows<'w> = &'w [Entity];
    #[inline]
    unsafe fn rows<'w>(fetch: &Self::Fetch<'w>, _: usize) -> &'w [Entity] {
        fetch
    }
    #[inline]
    fn fetch_rows<'w>(rows: Self::Rows<'w>, _: &Self::Fetch<'w>) -> Self::Fetch<'w> {
        rows
    }
    no_sparse_parts!();
    #[inline]
    unsafe fn fetch_entity<'w>(_: &Self::Fetch<'w>, _: &Self::Sparse<'w>, entity: Entity, _: usize) -> Self::Item<'w> {
        entity
    }
}

// SAFETY: `Entity` declares no access and reads only the entity list.
unsafe impl ReadOnlyQueryData for Entity {}

impl<T: Component> sealed::Sealed for &T {}

// SAFETY: declares a read of `T` and only reads `T`'s column.
unsafe impl<T: Component> QueryData for &T {
    type Item<'w> = &'w T;
    const IS_READ_ONLY: bool = true;
    type State = ComponentRef;
    type ArchState = ColumnPtr<T>;
    type Fetch<'w> = *const T;
    type Record = ();
    #[inline]
    fn new_record() {}

    fn init_state(world: &mut World) -> ComponentRef {
        ComponentRef::of::<T>(world)
    }
    fn access(state: &ComponentRef, access: &mut Access) {
        access.read(state.id, type_name::<T>());
        access.require(state);
    }
    #[inline]
    fn match_archetype(state: &ComponentRef, archetype: &Archetype) -> Option<ColumnPtr<T>> {
        ColumnPtr::resolve_ref(*state, archetype)
    }
    #[inline]
    unsafe fn fetch_archetype<'w>(column: ColumnPtr<T>, archetype: &'w Archetype, _: RunTicks) -> Self::Fetch<'w> {
        // SAFETY: resolved for this table of the borrowed world (caller).
        let Some(column) = (unsafe { column.get() }) else { return std::ptr::null() };
        debug_assert_eq!(column.len(), archetype.len());
        column.get_ptr()
    }
    one_component_sparse_parts!();
    #[inline]
    unsafe fn fetch_entity<'w>(
        fetch: &Self::Fetch<'w>,
        sparse: &Self::Sparse<'w>,
        entity: Entity,
        row: usize,
    ) -> &'w T {
        match sparse {
            // SAFETY: the entity has a value (caller); the declared read excludes
            // writers of the set's values during `'w`.
            Some(sparse) => unsafe { &*sparse.values.add(sparse.dense(entity)) },
            // SAFETY: forwarded from the caller.
            None => unsafe { Self::fetch(fetch, row) },
        }
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
        // SAFETY: `row` is in bounds (caller); the column is not structurally changed and
        // not written by anyone else during `'w` (declared read access).
        unsafe { &*fetch.add(row) }
    }
    #[inline]
    fn prefetch(fetch: &Self::Fetch<'_>, row: usize) {
        crate::util::hint::prefetch(fetch.wrapping_add(row));
    }
    type Rows<'w> = &'w [T];
    #[inline]
    unsafe fn rows<'w>(fetch: &Self::Fetch<'w>, len: usize) -> &'w [T] {
        // SAFETY: the column holds `len` values (caller) from a non-null, aligned
        // pointer, and no one writes them during `'w` (declared read access).
        unsafe { std::slice::from_raw_parts(*fetch, len) }
    }
    #[inline]
    fn fetch_rows<'w>(rows: Self::Rows<'w>, _: &Self::Fetch<'w>) -> Self::Fetch<'w> {
        rows.as_ptr()
    }
}

// SAFETY: `&T` declares only a read.
unsafe impl<T: Component> ReadOnlyQueryData for &T {}

macro_rules! impl_query_data_tuple {
    ($($name:ident $index:tt),*) => {
        impl<$($name: QueryData),*> sealed::Sealed for ($($name,)*) {}

        // SAFETY: declares the union of the elements' access and fetches through them.
        unsafe impl<$($name: QueryData),*> QueryData for ($($name,)*) {
            type Item<'w> = ($($name::Item<'w>,)*);
            const IS_READ_ONLY: bool = true $(&& $name::IS_READ_ONLY)*;
            const OBSERVES: bool = false $(|| $name::OBSERVES)*;
            const WRITES_ANY: bool = false $(|| $name::WRITES_ANY)*;
            type State = ($($name::State,)*);
            type ArchState = ($($name::ArchState,)*);
            type Fetch<'w> = ($($name::Fetch<'w>,)*);
            type Record = ($($name::Record,)*);
            #[inline]
            #[allow(clippy::unused_unit, reason = "the empty tuple")]
            fn new_record() -> Self::Record {
                ($($name::new_record(),)*)
            }

            #[allow(clippy::unused_unit, reason = "the empty tuple")]
            fn init_state(world: &mut World) -> Self::State {
                let _ = &world;
                ($($name::init_state(world),)*)
            }
            fn access(state: &Self::State, access: &mut Access) {
                let _ = (&state, &access);
                $($name::access(&state.$index, access);)*
            }
            #[inline]
            fn match_archetype(state: &Self::State, archetype: &Archetype) -> Option<Self::ArchState> {
                let _ = (&state, &archetype);
                Some(($($name::match_archetype(&state.$index, archetype)?,)*))
            }
            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn fetch_archetype<'w>(arch_state: Self::ArchState, archetype: &'w Archetype, ticks: RunTicks) -> Self::Fetch<'w> {
                let _ = (&arch_state, &archetype, ticks);
                // SAFETY: forwarded from the caller, element by element.
                unsafe { ($($name::fetch_archetype(arch_state.$index, archetype, ticks),)*) }
            }
            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
                let _ = (&fetch, row);
                // SAFETY: forwarded from the caller, element by element.
                unsafe { ($($name::fetch(&fetch.$index, row),)*) }
            }
            type Rows<'w> = ($($name::Rows<'w>,)*);
            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn rows<'w>(fetch: &Self::Fetch<'w>, len: usize) -> Self::Rows<'w> {
                let _ = (&fetch, len);
                // SAFETY: forwarded from the caller, element by element.
                ($(unsafe { $name::rows(&fetch.$index, len) },)*)
            }
            #[inline]
            #[allow(clippy::unused_unit, reason = "the empty tuple")]
            fn fetch_rows<'w>(rows: Self::Rows<'w>, like: &Self::Fetch<'w>) -> Self::Fetch<'w> {
                let _ = (&rows, &like);
                ($($name::fetch_rows(rows.$index, &like.$index),)*)
            }
            type Sparse<'w> = ($($name::Sparse<'w>,)*);
            fn has_sparse(state: &Self::State) -> bool {
                let _ = state;
                false $(|| $name::has_sparse(&state.$index))*
            }
            fn sparse_ids(state: &Self::State, required: &mut Vec<ComponentId>, deciding: &mut Vec<ComponentId>) {
                let _ = (state, &required, &deciding);
                $($name::sparse_ids(&state.$index, required, deciding);)*
            }
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn fetch_sparse<'w>(state: &Self::State, world: &'w World, ticks: RunTicks) -> Self::Sparse<'w> {
                let _ = (state, world, ticks);
                // SAFETY: forwarded from the caller, element by element.
                unsafe { ($($name::fetch_sparse(&state.$index, world, ticks),)*) }
            }
            #[inline]
            fn sparse_matches(sparse: &Self::Sparse<'_>, entity: Entity) -> bool {
                let _ = (sparse, entity);
                true $(&& $name::sparse_matches(&sparse.$index, entity))*
            }
            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn fetch_entity<'w>(fetch: &Self::Fetch<'w>, sparse: &Self::Sparse<'w>, entity: Entity, row: usize) -> Self::Item<'w> {
                let _ = (fetch, sparse, entity, row);
                // SAFETY: forwarded from the caller, element by element.
                unsafe { ($($name::fetch_entity(&fetch.$index, &sparse.$index, entity, row),)*) }
            }
            #[inline]
            unsafe fn with_rows<'w, R>(fetch: &Self::Fetch<'w>, len: usize, body: impl FnOnce(&Self::Fetch<'w>) -> R) -> R {
                /// As `through_parameter`, with one parameter per element: a tuple
                /// parameter does not tell the compiler that its references are distinct.
                #[inline(never)]
                #[allow(non_snake_case, clippy::too_many_arguments, reason = "one parameter per element, named by its type")]
                fn through_parameters<$($name,)* R>($($name: $name,)* body: impl FnOnce(($($name,)*)) -> R) -> R {
                    body(($($name,)*))
                }
                // SAFETY: forwarded from the caller.
                let rows = unsafe { Self::rows(fetch, len) };
                let _ = &rows;
                through_parameters($(rows.$index,)* |rows| body(&Self::fetch_rows(rows, fetch)))
            }
            #[inline]
            fn tracked_writes(fetch: &Self::Fetch<'_>) -> usize {
                let _ = &fetch;
                0 $(+ $name::tracked_writes(&fetch.$index))*
            }
            #[inline]
            fn writes(fetch: &Self::Fetch<'_>) -> usize {
                let _ = &fetch;
                0 $(+ $name::writes(&fetch.$index))*
            }
            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn fetch_untracked<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
                let _ = (&fetch, row);
                // SAFETY: forwarded from the caller, element by element.
                unsafe { ($($name::fetch_untracked(&fetch.$index, row),)*) }
            }
            #[inline]
            #[allow(clippy::unused_unit, unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn fetch_batched<'w, const ALL_TRACKED: bool>(fetch: &Self::Fetch<'w>, record: &Self::Record, row: usize, byte: usize, bit: u32) -> Self::Item<'w> {
                let _ = (&fetch, record, row, byte, bit);
                // SAFETY: forwarded from the caller, element by element; each written
                // column records in its own part of the record.
                unsafe { ($($name::fetch_batched::<ALL_TRACKED>(&fetch.$index, &record.$index, row, byte, bit),)*) }
            }
            #[inline(always)]
            #[allow(unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn end_leaf(fetch: &Self::Fetch<'_>, record: &Self::Record, len: usize, leaf: usize, summary: bool) {
                let _ = (&fetch, record, len, leaf, summary);
                // SAFETY: forwarded from the caller, element by element.
                unsafe { $($name::end_leaf(&fetch.$index, &record.$index, len, leaf, summary);)* }
            }
            #[inline(always)]
            #[allow(unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn end_row(fetch: &Self::Fetch<'_>, record: &Self::Record, row: usize) {
                let _ = (&fetch, record, row);
                // SAFETY: forwarded from the caller, element by element.
                unsafe { $($name::end_row(&fetch.$index, &record.$index, row);)* }
            }
            #[inline(always)]
            #[allow(unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn end_rows(fetch: &Self::Fetch<'_>, record: &Self::Record) {
                let _ = (&fetch, record);
                // SAFETY: forwarded from the caller, element by element.
                unsafe { $($name::end_rows(&fetch.$index, &record.$index);)* }
            }
            #[allow(unused_unsafe, reason = "the empty tuple has nothing to forward")]
            unsafe fn fold_table(fetch: &Self::Fetch<'_>, len: usize, rows: Option<&[(u32, u32)]>) {
                let _ = (&fetch, len, rows);
                // SAFETY: forwarded from the caller, element by element.
                unsafe { $($name::fold_table(&fetch.$index, len, rows);)* }
            }
            #[inline]
            fn prefetch(fetch: &Self::Fetch<'_>, row: usize) {
                let _ = (&fetch, row);
                $($name::prefetch(&fetch.$index, row);)*
            }
        }

        // SAFETY: read-only when every element is.
        unsafe impl<$($name: ReadOnlyQueryData),*> ReadOnlyQueryData for ($($name,)*) {}
    };
}

crate::util::tuples::for_each_indexed_tuple_prefix!(impl_query_data_tuple; A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11, M 12, N 13, O 14, P 15);
