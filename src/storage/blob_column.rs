//! A column of values with no Rust type: components registered at run time with a
//! layout and, optionally, a drop function (see
//! [`ComponentDescriptor`](crate::dynamic::ComponentDescriptor)).
//!
//! # Safety model
//! The values are byte strings of the shape's size, stored back to back in one
//! allocation aligned to the shape's alignment. Every value was copied in whole from
//! an initialised byte string (a dynamic component is inserted from `&[u8]`), so every
//! stored byte is initialised and reading a value as bytes is sound. Shared access
//! follows the typed column's model (`column.rs`): structural changes need `&mut self`;
//! queries read and write rows through raw pointers under the query layer's access
//! rules.
//!
//! A value is dropped (its drop function called) exactly once: when it is replaced,
//! removed, despawned with its entity or cleared. Every structural change adjusts the
//! length *before* running a drop function, so a drop function that panics leaves the
//! column consistent (the value it was dropping counts as gone).

use std::alloc::Layout;
use std::any::Any;
use std::ptr::NonNull;

use crate::change::{Remap, Tick};

use super::Column;
use super::column_ticks::{ColumnTicks, TickPtrs};

/// What a runtime component's values look like: their layout (size a multiple of the
/// alignment) and the function that drops one, if any.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BlobShape {
    pub(crate) layout: Layout,
    /// Called with a pointer to a value leaving the world; `None` for plain bytes.
    pub(crate) drop: Option<unsafe fn(*mut u8)>,
}

/// The values of one runtime component in one table (or its sparse set).
pub struct BlobColumn {
    data: NonNull<u8>,
    len: usize,
    /// Values the allocation holds (`usize::MAX` for zero-sized values, which never
    /// allocate).
    capacity: usize,
    shape: BlobShape,
    ticks: Option<ColumnTicks>,
}

// SAFETY: the column owns its bytes; registering a drop function (an unsafe call)
// promises it may run on any thread, and plain bytes are `Send` and `Sync`. Shared
// access follows the module's safety model.
unsafe impl Send for BlobColumn {}
// SAFETY: as above.
unsafe impl Sync for BlobColumn {}

impl BlobColumn {
    /// `column` as the blob column it is (a runtime component's: every column of a
    /// runtime component's id is one).
    ///
    /// # Panics
    /// If it is not: an internal invariant violation.
    #[inline]
    pub(crate) fn of(column: &dyn Column) -> &BlobColumn {
        column.as_any().downcast_ref::<BlobColumn>().expect("ripple: a runtime component's column is a blob")
    }

    /// Mutable form of [`of`](Self::of).
    #[inline]
    pub(crate) fn of_mut(column: &mut dyn Column) -> &mut BlobColumn {
        column.as_any_mut().downcast_mut::<BlobColumn>().expect("ripple: a runtime component's column is a blob")
    }

    /// An empty column of values shaped `shape`.
    pub(crate) fn new(shape: BlobShape) -> Self {
        let size = shape.layout.size();
        let capacity = if size == 0 { usize::MAX } else { 0 };
        BlobColumn { data: dangling(shape.layout), len: 0, capacity, shape, ticks: None }
    }

    /// The size of one value in bytes.
    #[inline]
    pub(crate) fn item_size(&self) -> usize {
        self.shape.layout.size()
    }

    /// Pointer to row `row`'s value (or one past the last row's, for `row == len`).
    /// Valid until the next structural change; writable under the module's model.
    #[inline]
    pub(crate) fn row_ptr(&self, row: usize) -> *mut u8 {
        debug_assert!(row <= self.len);
        self.slot_ptr(row)
    }

    /// Pointer to slot `row` of the allocation, whether it holds a value or not.
    #[inline]
    fn slot_ptr(&self, row: usize) -> *mut u8 {
        // In bounds of the allocation (or zero bytes from a dangling pointer).
        self.data.as_ptr().wrapping_add(row * self.item_size())
    }

    /// Row `row`'s value as bytes.
    #[inline]
    pub(crate) fn bytes(&self, row: usize) -> &[u8] {
        assert!(row < self.len, "ripple: blob row out of bounds");
        // SAFETY: `row` is in bounds, its bytes initialised (module model) and not
        // written while this shared borrow of the column lives, except through query
        // grants that exclude this reader.
        unsafe { std::slice::from_raw_parts(self.row_ptr(row), self.item_size()) }
    }

    /// Row `row`'s value as mutable bytes, with its change-tick slot (untracked if
    /// the column is not tracked); the slot is valid for the column's borrow.
    #[inline]
    pub(crate) fn bytes_mut(&mut self, row: usize, tick: Tick) -> crate::change::Mut<'_, [u8]> {
        assert!(row < self.len, "ripple: blob row out of bounds");
        let slot = match self.ticks.as_ref().map(ColumnTicks::ptrs) {
            // SAFETY: the tick and summary are this column's, borrowed exclusively for
            // the returned lifetime; `tick` is the current tick.
            Some(ticks) => unsafe {
                crate::change::TickSlot::immediate(ticks.changed.add(row), ticks.live_summary(), row, tick)
            },
            None => crate::change::TickSlot::untracked(),
        };
        // SAFETY: in bounds and initialised; the exclusive borrow of the column makes
        // this the only reference to the row.
        let bytes = unsafe { std::slice::from_raw_parts_mut(self.row_ptr(row), self.item_size()) };
        // SAFETY: the slot is valid for the column's exclusive borrow.
        unsafe { crate::change::Mut::new(bytes, slot) }
    }

    /// Appends a copy of `value` (exactly one value's bytes), added and changed at
    /// `tick`.
    pub(crate) fn push(&mut self, value: &[u8], tick: Tick) {
        assert_eq!(value.len(), self.item_size(), "ripple: a value of the wrong size");
        self.reserve(1);
        // SAFETY: `reserve` made room for one more value past `len`; `value` is a
        // separate borrow, so the regions do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(value.as_ptr(), self.row_ptr(self.len), value.len()) };
        self.len += 1;
        if let Some(ticks) = &mut self.ticks {
            ticks.push(tick, tick, tick);
        }
    }

    /// Replaces row `row`'s value with a copy of `value`, marking it changed at
    /// `tick`; the old value is dropped after the new one is in place.
    pub(crate) fn replace(&mut self, row: usize, value: &[u8], tick: Tick) {
        assert!(row < self.len, "ripple: blob row out of bounds");
        assert_eq!(value.len(), self.item_size(), "ripple: a value of the wrong size");
        if let Some(ticks) = &mut self.ticks {
            ticks.mark(row, tick);
        }
        let Some(drop) = self.shape.drop else {
            // SAFETY: in bounds; `value` is a separate borrow.
            unsafe { std::ptr::copy_nonoverlapping(value.as_ptr(), self.row_ptr(row), value.len()) };
            return;
        };
        // The old value goes to the spare slot past the end, the new one in its place,
        // then the old one is dropped: a panicking drop leaves the row holding the new.
        self.reserve(1);
        let spare = self.row_ptr(self.len);
        // SAFETY: `row < len` and the spare slot past `len` is reserved: two distinct
        // slots of the allocation; `value` is a separate borrow.
        unsafe {
            std::ptr::copy_nonoverlapping(self.row_ptr(row), spare, value.len());
            std::ptr::copy_nonoverlapping(value.as_ptr(), self.row_ptr(row), value.len());
            // SAFETY: the spare slot holds the old value, which nothing else owns now;
            // the registration's contract makes `drop` sound for it.
            drop(spare);
        }
    }

    /// Swaps row `row` with the last row and shortens the column by one: the value
    /// that was at `row` now lies just past the end, owned by the caller.
    fn detach_last(&mut self, row: usize) -> *mut u8 {
        assert!(row < self.len, "ripple: blob row out of bounds");
        let last = self.len - 1;
        if row != last {
            // SAFETY: two distinct in-bounds rows.
            unsafe { std::ptr::swap_nonoverlapping(self.row_ptr(row), self.row_ptr(last), self.item_size()) };
        }
        self.len = last;
        self.row_ptr(last)
    }

    /// Grows the allocation to hold at least `len + additional` values.
    fn grow(&mut self, additional: usize) {
        let size = self.item_size();
        let wanted = self.len.checked_add(additional).expect("ripple: blob column capacity overflow");
        let capacity = wanted.max(self.capacity.saturating_mul(2)).max(4);
        let layout = array_layout(self.shape.layout, capacity);
        let data = if self.capacity == 0 {
            // SAFETY: `layout` has a non-zero size (`size > 0`, `capacity >= 4`).
            unsafe { std::alloc::alloc(layout) }
        } else {
            // SAFETY: `data` was allocated with the layout of `self.capacity` values,
            // and the new size is non-zero and fits `isize` (checked by
            // `array_layout`).
            unsafe {
                std::alloc::realloc(self.data.as_ptr(), array_layout(self.shape.layout, self.capacity), size * capacity)
            }
        };
        self.data = NonNull::new(data).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        self.capacity = capacity;
    }
}

/// The layout of `count` values of `item` back to back.
///
/// # Panics
/// If the total overflows `isize`, as `Vec` does.
fn array_layout(item: Layout, count: usize) -> Layout {
    item.size()
        .checked_mul(count)
        .and_then(|size| Layout::from_size_align(size, item.align()).ok())
        .expect("ripple: blob column capacity overflow")
}

/// A non-null pointer aligned to `layout`, for an empty or zero-sized column.
fn dangling(layout: Layout) -> NonNull<u8> {
    NonNull::new(std::ptr::without_provenance_mut(layout.align())).expect("alignment is non-zero")
}

impl Drop for BlobColumn {
    fn drop(&mut self) {
        self.clear();
        if self.capacity != 0 && self.capacity != usize::MAX {
            // SAFETY: allocated by `grow` with this layout.
            unsafe { std::alloc::dealloc(self.data.as_ptr(), array_layout(self.shape.layout, self.capacity)) };
        }
    }
}

impl Column for BlobColumn {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    #[inline]
    fn len(&self) -> usize {
        self.len
    }

    fn reserve(&mut self, additional: usize) {
        if self.capacity - self.len < additional {
            self.grow(additional);
        }
    }

    fn swap_remove_drop(&mut self, row: usize, now: Tick) {
        if let Some(ticks) = &mut self.ticks {
            ticks.swap_remove(row, now);
        }
        let gone = self.detach_last(row);
        if let Some(drop) = self.shape.drop {
            // SAFETY: the detached value lies past the end, owned by no one else.
            unsafe { drop(gone) };
        }
    }

    fn swap_remove_into(&mut self, row: usize, dst: &mut dyn Column, now: Tick) {
        // Moves join columns of one component id, so `dst` is a blob of this shape.
        let dst = BlobColumn::of_mut(dst);
        if let Some(ticks) = &mut self.ticks {
            let (added, changed) = ticks.swap_remove(row, now);
            // Tracking is per component, so the destination is tracked too.
            if let Some(dst_ticks) = &mut dst.ticks {
                dst_ticks.push(added, changed, now);
            }
        }
        let moved = self.detach_last(row);
        dst.reserve(1);
        // SAFETY: `moved` is this column's detached value (past its end), `dst` has room
        // past its end; two allocations. Ownership passes to `dst`.
        unsafe { std::ptr::copy_nonoverlapping(moved, dst.row_ptr(dst.len), self.item_size()) };
        dst.len += 1;
    }

    fn clear(&mut self) {
        if let Some(ticks) = &mut self.ticks {
            ticks.clear();
        }
        let len = std::mem::replace(&mut self.len, 0);
        if let Some(drop) = self.shape.drop {
            for row in 0..len {
                // SAFETY: each value past the (new) end is dropped once. A panic leaks
                // the rest, which are past the end and never touched again.
                unsafe { drop(self.slot_ptr(row)) };
            }
        }
    }

    fn enable_tracking(&mut self, now: Tick) {
        if self.ticks.is_none() {
            self.ticks = Some(ColumnTicks::new(self.len, now));
        }
    }

    fn observe(&mut self, now: Tick) {
        if let Some(ticks) = &mut self.ticks {
            ticks.observe(now);
        }
    }

    fn remap_ticks(&mut self, remap: &Remap) {
        if let Some(ticks) = &mut self.ticks {
            ticks.remap(remap);
        }
    }

    fn tracking_bytes(&self) -> usize {
        self.ticks.as_ref().map_or(0, ColumnTicks::heap_bytes)
    }

    fn change_ticks(&self) -> Option<TickPtrs> {
        self.ticks.as_ref().map(ColumnTicks::ptrs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    static DROPPED: AtomicUsize = AtomicUsize::new(0);

    unsafe fn count_drop(value: *mut u8) {
        // SAFETY: the column hands a pointer to a live 8-byte value.
        let bytes = unsafe { std::slice::from_raw_parts(value, 8) };
        DROPPED.fetch_add(usize::from(bytes[0]), Ordering::Relaxed);
    }

    fn shape(drop: Option<unsafe fn(*mut u8)>) -> BlobShape {
        BlobShape { layout: Layout::from_size_align(8, 8).unwrap(), drop }
    }

    #[test]
    fn values_survive_growth_and_swap_removal() {
        let mut column = BlobColumn::new(shape(None));
        for i in 0..100u64 {
            column.push(&i.to_le_bytes(), Tick(1));
        }
        column.swap_remove_drop(0, Tick(1));
        assert_eq!(column.len(), 99);
        assert_eq!(column.bytes(0), 99u64.to_le_bytes());
        assert_eq!(column.bytes(98), 98u64.to_le_bytes());
        assert_eq!(column.row_ptr(0) as usize % 8, 0, "values stay aligned");
    }

    #[test]
    fn every_value_is_dropped_once() {
        DROPPED.store(0, Ordering::Relaxed);
        let mut a = BlobColumn::new(shape(Some(count_drop)));
        let mut b: Box<dyn Column> = Box::new(BlobColumn::new(shape(Some(count_drop))));
        for i in 1..=4u64 {
            a.push(&i.to_le_bytes(), Tick(1)); // drops count 1 + 2 + 3 + 4
        }
        a.replace(0, &10u64.to_le_bytes(), Tick(1)); // drops the 1
        assert_eq!(DROPPED.load(Ordering::Relaxed), 1);
        a.swap_remove_into(1, &mut *b, Tick(1)); // moves the 2: no drop
        a.swap_remove_drop(0, Tick(1)); // drops the 10
        assert_eq!(DROPPED.load(Ordering::Relaxed), 11);
        drop(a); // 4 and 3
        drop(b); // 2
        assert_eq!(DROPPED.load(Ordering::Relaxed), 20);
    }

    #[test]
    fn zero_sized_values_allocate_nothing() {
        let mut column = BlobColumn::new(BlobShape { layout: Layout::new::<()>(), drop: None });
        for _ in 0..1000 {
            column.push(&[], Tick(1));
        }
        assert_eq!(column.len(), 1000);
        assert_eq!(column.capacity, usize::MAX);
        assert_eq!(column.bytes(999), [0u8; 0]);
    }
}
