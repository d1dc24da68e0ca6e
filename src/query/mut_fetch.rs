//! `&mut T` as query data: the values of `T`'s column, written through [`Mut`], which
//! records each write for change readers (see `TickSlot`).

use std::any::type_name;
use std::cell::Cell;

use crate::change::{ListCursor, Mut, RunTicks, Tick, TickSlot};
use crate::component::{Component, ComponentId};
use crate::entity::Entity;
use crate::storage::{Archetype, Column, TickPtrs};
use crate::world::World;

use super::access::Access;
use super::fetch::{ColumnPtr, ComponentRef, QueryData, one_component_sparse_parts, sealed};
use super::sparse_fetch::SparseFetch;

impl<T: Component> sealed::Sealed for &mut T {}

/// Per-table pointers for `&mut T`: the values and, for a tracked `T`, where writes
/// are recorded.
#[doc(hidden)]
pub struct MutFetch<T> {
    values: *mut T,
    ticks: Option<TickPtrs>,
    tick: Tick,
}

impl<T> Clone for MutFetch<T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for MutFetch<T> {}

/// A batched run's record of the writes to one tracked column in the current leaf
/// (see [`QueryData::Record`]): bit `i` for the leaf's row `i`. Items mark a byte of it
/// — byte `k` holds the rows `8k ..` — so that the items of an unrolled loop's chunk of
/// eight rows all mark one byte at constant bits, and a chunk whose rows are all
/// written costs one store; the run takes the whole word at the end of the leaf.
#[doc(hidden)]
#[derive(Default)]
pub struct WriteRecord {
    rows: Cell<u64>,
    /// Where a visit of a list of entities appends the rows it writes to the column's
    /// change list (`end_row`, `end_rows`).
    cursor: ListCursor,
}

impl WriteRecord {
    /// Byte `byte` of the record, as rows `8 · byte ..` of the leaf.
    ///
    /// # Safety
    /// `byte < 8`.
    #[inline(always)]
    unsafe fn byte(&self, byte: usize) -> *const Cell<u8> {
        let index = if cfg!(target_endian = "little") { byte } else { 7 - byte };
        // SAFETY: `Cell<u64>` is an `UnsafeCell<u64>`, whose bytes may be reached through
        // a pointer derived from it, and `index < 8` (caller); `Cell<u8>` has the layout
        // of `u8`.
        unsafe { self.rows.as_ptr().cast::<Cell<u8>>().add(index) }
    }

    /// The rows of the leaf marked written (bit `i` for row `i`); clears the record.
    #[inline(always)]
    fn take(&self) -> u64 {
        self.rows.replace(0)
    }
}

// SAFETY: declares a write of `T` and only touches `T`'s column and its ticks.
unsafe impl<T: Component> QueryData for &mut T {
    type Item<'w> = Mut<'w, T>;
    const IS_READ_ONLY: bool = false;
    type State = ComponentRef;
    type ArchState = ColumnPtr<T>;
    type Fetch<'w> = MutFetch<T>;
    type Record = WriteRecord;
    #[inline]
    fn new_record() -> WriteRecord {
        WriteRecord::default()
    }

    fn init_state(world: &mut World) -> ComponentRef {
        ComponentRef::of::<T>(world)
    }
    fn access(state: &ComponentRef, access: &mut Access) {
        access.write(state.id, type_name::<T>());
        access.require(state);
    }
    #[inline]
    fn match_archetype(state: &ComponentRef, archetype: &Archetype) -> Option<ColumnPtr<T>> {
        ColumnPtr::resolve_ref(*state, archetype)
    }
    #[inline]
    unsafe fn fetch_archetype<'w>(column: ColumnPtr<T>, archetype: &'w Archetype, ticks: RunTicks) -> Self::Fetch<'w> {
        // SAFETY: resolved for this table of the borrowed world (caller).
        let Some(column) = (unsafe { column.get() }) else {
            return MutFetch { values: std::ptr::null_mut(), ticks: None, tick: ticks.this_run };
        };
        debug_assert_eq!(column.len(), archetype.len());
        MutFetch { values: column.get_ptr(), ticks: column.tick_ptrs(), tick: ticks.this_run }
    }
    one_component_sparse_parts!();
    #[inline]
    unsafe fn fetch_entity<'w>(
        fetch: &Self::Fetch<'w>,
        sparse: &Self::Sparse<'w>,
        entity: Entity,
        row: usize,
    ) -> Mut<'w, T> {
        let Some(sparse) = sparse else {
            // SAFETY: forwarded from the caller.
            return unsafe { Self::fetch(fetch, row) };
        };
        // SAFETY: the entity has a value (caller).
        let dense = unsafe { sparse.dense(entity) };
        let slot = match sparse.ticks {
            // SAFETY: the declared write excludes every other accessor of the set's
            // values and ticks during `'w`, and a visit entity by entity is serial;
            // `tick` is the run's, the newest for the set.
            Some(ticks) => unsafe {
                TickSlot::immediate(ticks.changed.add(dense), ticks.live_summary(), dense, sparse.tick)
            },
            None => TickSlot::untracked(),
        };
        // SAFETY: as above; one item per entity and visit (caller).
        unsafe { Mut::new(&mut *sparse.values.add(dense), slot) }
    }
    #[inline]
    unsafe fn fetch<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
        // `row` is in bounds and fetched once (caller); the declared write access
        // excludes every other reader and writer of this column, its ticks included,
        // during `'w`; `this_run` is the newest tick for the column (caller).
        let slot = match fetch.ticks {
            // SAFETY: as below; the row's tick is as exclusively ours as its value, and
            // an item made by `fetch` belongs to a serial run, which excludes other
            // writers of the summary.
            Some(ticks) => unsafe {
                TickSlot::immediate(ticks.changed.add(row), ticks.live_summary(), row, fetch.tick)
            },
            None => TickSlot::untracked(),
        };
        // SAFETY: see above; the slot's pointers are valid for `'w`.
        unsafe { Mut::new(&mut *fetch.values.add(row), slot) }
    }
    type Rows<'w> = &'w mut [T];
    #[inline]
    unsafe fn rows<'w>(fetch: &Self::Fetch<'w>, len: usize) -> &'w mut [T] {
        // SAFETY: the column holds `len` values (caller) from a non-null, aligned
        // pointer; the declared write access excludes every other access during `'w`,
        // and the caller reaches these rows only through the slice. The ticks are
        // separate memory.
        unsafe { std::slice::from_raw_parts_mut(fetch.values, len) }
    }
    #[inline]
    fn fetch_rows<'w>(rows: Self::Rows<'w>, like: &Self::Fetch<'w>) -> Self::Fetch<'w> {
        MutFetch { values: rows.as_mut_ptr(), ..*like }
    }
    #[inline]
    fn tracked_writes(fetch: &Self::Fetch<'_>) -> usize {
        usize::from(fetch.ticks.is_some())
    }
    #[inline]
    fn writes(_: &Self::Fetch<'_>) -> usize {
        1
    }
    #[inline]
    unsafe fn fetch_untracked<'w>(fetch: &Self::Fetch<'w>, row: usize) -> Self::Item<'w> {
        // SAFETY: `row` is in bounds and fetched once (caller), as in `fetch`; the column
        // is not tracked (caller), so the slot records nothing.
        unsafe { Mut::new(&mut *fetch.values.add(row), TickSlot::untracked()) }
    }
    #[inline]
    unsafe fn fetch_batched<'w, const ALL_TRACKED: bool>(
        fetch: &Self::Fetch<'w>,
        record: &WriteRecord,
        row: usize,
        byte: usize,
        bit: u32,
    ) -> Self::Item<'w> {
        let mark = if ALL_TRACKED || fetch.ticks.is_some() {
            // SAFETY: the record outlives the item (caller); `byte < 8` (caller).
            unsafe { TickSlot::batched(record.byte(byte), 1 << bit) }
        } else {
            TickSlot::untracked()
        };
        // SAFETY: `row` is in bounds and fetched once (caller), as in `fetch`.
        unsafe { Mut::new(&mut *fetch.values.add(row), mark) }
    }
    // Inlined always: out of line, it would take the record's address, which would then
    // live in memory instead of registers.
    #[inline(always)]
    unsafe fn end_leaf(fetch: &Self::Fetch<'_>, record: &WriteRecord, len: usize, leaf: usize, summary: bool) {
        if let Some(ticks) = fetch.ticks {
            let written = record.take();
            if written != 0 {
                // SAFETY: the run is done with these rows (caller), which lie in the leaf.
                unsafe { ticks.stamp_leaf(len, leaf, written, fetch.tick, summary) };
            }
        }
    }
    #[inline(always)]
    unsafe fn end_row(fetch: &Self::Fetch<'_>, record: &WriteRecord, row: usize) {
        if let Some(ticks) = fetch.ticks {
            // Byte 0 only, the one its item marks: a wider read right after a byte was
            // stored waits for the store to reach the cache instead of taking it from
            // the store buffer.
            // SAFETY: byte 0 of the record, which outlives the call.
            let written = unsafe { (*record.byte(0)).replace(0) };
            if written != 0 {
                // SAFETY: the caller is done with the row and the only writer; the
                // record's cursor is used only by this fetch's `end_row` calls, which
                // `end_rows` ends.
                unsafe { ticks.record_row_through(&record.cursor, row, fetch.tick) };
            }
        }
    }
    #[inline]
    unsafe fn end_rows(fetch: &Self::Fetch<'_>, record: &WriteRecord) {
        if let Some(ticks) = fetch.ticks {
            // SAFETY: as in `end_row`.
            unsafe { ticks.close(&record.cursor) };
        }
    }
    unsafe fn fold_table(fetch: &Self::Fetch<'_>, len: usize, rows: Option<&[(u32, u32)]>) {
        if let Some(ticks) = fetch.ticks {
            let mut rows = rows.map(|rows| rows.iter().map(|&(_, row)| row as usize));
            // SAFETY: the participants are done with this table (caller), whose column
            // holds `len` rows.
            unsafe { ticks.fold(len, fetch.tick, rows.as_mut().map(|r| r as &mut dyn Iterator<Item = usize>)) };
        }
    }
    #[inline]
    fn prefetch(fetch: &Self::Fetch<'_>, row: usize) {
        crate::util::hint::prefetch(fetch.values.wrapping_add(row));
        if let Some(ticks) = fetch.ticks {
            crate::util::hint::prefetch(ticks.changed.wrapping_add(row));
        }
    }
}
