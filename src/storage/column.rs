//! One column of an archetype table: the values of one component type, one per row.
//!
//! # Safety model
//! A [`TypedColumn<T>`] stores its values as `Vec<UnsafeCell<T>>`. Structural changes
//! (push, swap-remove, clear) go through `&mut self` and are ordinary safe code.
//! Queries read and write values through a shared `&TypedColumn<T>` by raw pointer
//! ([`TypedColumn::get_ptr`]); that is sound because the query layer guarantees, for
//! the lifetime of the pointers, that (a) no structural change happens (the world is
//! borrowed), and (b) a value is written by at most one accessor and not read by
//! another meanwhile (aliasing queries are refused when built, and parallel iteration
//! hands each row to one thread). `UnsafeCell` makes those writes through a shared
//! reference legal.
//!
//! A tracked column also keeps its change ticks and their summary ([`ColumnTicks`],
//! same safety model: a row's ticks are written only by the accessor that may write
//! its value).

use std::any::Any;
use std::cell::UnsafeCell;

use crate::change::{Remap, Tick};

use super::column_ticks::{ColumnTicks, TickPtrs};

/// Type-erased operations the world needs on a column without knowing its type.
pub trait Column: Send + Sync + 'static {
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
    fn len(&self) -> usize;
    fn reserve(&mut self, additional: usize);
    /// Drops the value at `row`, moving the last value into its place.
    fn swap_remove_drop(&mut self, row: usize, now: Tick);
    /// Moves the value at `row` (and its ticks) to the end of `dst`, moving the last
    /// value into the hole. `dst` must be a column of the same component (checked in
    /// debug builds).
    fn swap_remove_into(&mut self, row: usize, dst: &mut dyn Column, now: Tick);
    /// Drops every value, keeping the capacity.
    fn clear(&mut self);
    /// Starts recording ticks; existing rows count as added and changed at `now`.
    fn enable_tracking(&mut self, now: Tick);
    /// Starts maintaining the change summary (an observer of this component exists),
    /// building it from the row ticks.
    fn observe(&mut self, now: Tick);
    /// Applies tick maintenance to every stored tick.
    fn remap_ticks(&mut self, remap: &Remap);
    /// Heap bytes used by change tracking (ticks and summaries).
    fn tracking_bytes(&self) -> usize;
    /// Raw access to the change ticks and their summary, if tracked; valid until the
    /// next structural change.
    fn change_ticks(&self) -> Option<TickPtrs>;
}

/// A column of `T` values.
pub struct TypedColumn<T> {
    data: Vec<UnsafeCell<T>>,
    ticks: Option<ColumnTicks>,
}

impl<T> Default for TypedColumn<T> {
    fn default() -> Self {
        TypedColumn { data: Vec::new(), ticks: None }
    }
}

// SAFETY: `UnsafeCell` only removes `Sync`; the module's safety model (above) guarantees
// that shared access never produces a data race: mutable access through a shared
// reference is granted only to one accessor per value, by the query access checks.
// `T: Sync` covers concurrent reads, `T: Send` covers a value written or dropped on
// another thread than the one that inserted it.
unsafe impl<T: Send + Sync> Sync for TypedColumn<T> {}

impl<T: Send + Sync + 'static> TypedColumn<T> {
    /// Appends a value, added and changed at `tick` (the current tick).
    #[inline]
    pub(crate) fn push(&mut self, value: T, tick: Tick) {
        self.data.push(UnsafeCell::new(value));
        if let Some(ticks) = &mut self.ticks {
            ticks.push(tick, tick, tick);
        }
    }

    #[cfg_attr(
        not(feature = "persistence"),
        allow(dead_code, reason = "used by scenes, data commands and replication")
    )]
    /// Appends every value of `values`, added and changed at `tick`.
    pub(crate) fn extend(&mut self, values: impl ExactSizeIterator<Item = T>, tick: Tick) {
        let count = values.len();
        self.data.extend(values.map(UnsafeCell::new));
        self.push_ticks(count, tick);
    }

    /// Records `count` rows appended at the end, added and changed at `tick`.
    fn push_ticks(&mut self, count: usize, tick: Tick) {
        if let Some(ticks) = &mut self.ticks {
            for _ in 0..count {
                ticks.push(tick, tick, tick);
            }
        }
    }

    #[cfg_attr(
        not(feature = "persistence"),
        allow(dead_code, reason = "used by scenes, data commands and replication")
    )]
    /// Moves every value of `values` to the end, added and changed at `tick`, leaving
    /// `values` empty. An empty column takes the buffer itself.
    pub(crate) fn append(&mut self, values: &mut Vec<UnsafeCell<T>>, tick: Tick) {
        let count = values.len();
        if self.data.is_empty() {
            std::mem::swap(&mut self.data, values);
        } else {
            self.data.append(values);
        }
        self.push_ticks(count, tick);
    }

    /// Replaces the value at `row`, marking it changed at `tick` (the current tick).
    /// Returns the old value.
    #[inline]
    pub(crate) fn replace(&mut self, row: usize, value: T, tick: Tick) -> T {
        if let Some(ticks) = &mut self.ticks {
            ticks.mark(row, tick);
        }
        std::mem::replace(self.data[row].get_mut(), value)
    }

    /// Removes the value at `row`, moving the last value into its place.
    #[inline]
    pub(crate) fn swap_remove(&mut self, row: usize, now: Tick) -> T {
        if let Some(ticks) = &mut self.ticks {
            ticks.swap_remove(row, now);
        }
        self.data.swap_remove(row).into_inner()
    }

    /// Marks the value at `row` changed at `tick` (the current tick).
    #[inline]
    pub(crate) fn mark_changed(&mut self, row: usize, tick: Tick) {
        if let Some(ticks) = &mut self.ticks {
            ticks.mark(row, tick);
        }
    }

    /// The ticks half of [`Column::swap_remove_into`], out of line so that moving an
    /// untracked value stays a short call.
    #[inline(never)]
    fn move_ticks_into(&mut self, row: usize, dst: &mut TypedColumn<T>, now: Tick) {
        if let Some(ticks) = &mut self.ticks {
            let (added, changed) = ticks.swap_remove(row, now);
            // Tracking is per component type, so the destination is tracked too.
            if let Some(dst_ticks) = &mut dst.ticks {
                dst_ticks.push(added, changed, now);
            }
        }
    }

    /// Raw access to the ticks, if tracked; valid like [`TypedColumn::get_ptr`], and
    /// writable under the module's safety model.
    #[inline]
    pub(crate) fn tick_ptrs(&self) -> Option<TickPtrs> {
        self.ticks.as_ref().map(ColumnTicks::ptrs)
    }

    /// The values' capacity (`usize::MAX` for zero-sized values, which never
    /// allocate).
    #[cfg(test)]
    pub(crate) fn data_capacity(&self) -> usize {
        self.data.capacity()
    }

    /// Shared access to the value at `row`.
    #[inline]
    pub(crate) fn get(&self, row: usize) -> &T {
        // SAFETY: reading through a shared reference is sound while no one writes the
        // value; writers hold either `&mut self` (excluded by this borrow) or a query
        // grant that excludes this reader (module safety model).
        unsafe { &*self.data[row].get() }
    }

    /// Exclusive access to the value at `row`, marking it changed at `tick` (the
    /// current tick) when written through.
    #[inline]
    pub(crate) fn get_mut(&mut self, row: usize, tick: Tick) -> crate::change::Mut<'_, T> {
        let value = self.data[row].get_mut();
        let slot = match self.ticks.as_ref().map(ColumnTicks::ptrs) {
            // SAFETY: the tick and the summary belong to this column, which is borrowed
            // exclusively for the returned lifetime; `tick` is the current tick, the
            // newest there is.
            Some(ticks) => unsafe {
                crate::change::TickSlot::immediate(ticks.changed.add(row), ticks.live_summary(), row, tick)
            },
            None => crate::change::TickSlot::untracked(),
        };
        // SAFETY: the slot is valid for the column's exclusive borrow.
        unsafe { crate::change::Mut::new(value, slot) }
    }

    /// Mutable access to row `row` through a shared column, recording a write at
    /// `tick` (and in the summary, if the column keeps one) as it happens.
    ///
    /// # Safety
    /// No other reference to the row's value or tick is alive or made while the result
    /// lives, and no one else writes the column's summary meanwhile; `tick` is the
    /// newest tick written to the column so far; `row < len()`.
    pub(crate) unsafe fn get_mut_shared(&self, row: usize, tick: Tick) -> crate::change::Mut<'_, T> {
        // SAFETY: exclusive per the caller.
        let value = unsafe { &mut *self.data[row].get() };
        let slot = match self.ticks.as_ref().map(ColumnTicks::ptrs) {
            // SAFETY: the tick and the summary belong to this column; the caller keeps
            // every other user of the row's tick and of the summary away.
            Some(ticks) => unsafe {
                crate::change::TickSlot::immediate(ticks.changed.add(row), ticks.live_summary(), row, tick)
            },
            None => crate::change::TickSlot::untracked(),
        };
        // SAFETY: the slot is valid while the column is borrowed, per the caller.
        unsafe { crate::change::Mut::new(value, slot) }
    }

    /// Pointer to the first value; valid for `len()` values until the next structural
    /// change. Writing through it is allowed under the module's safety model.
    #[inline]
    pub(crate) fn get_ptr(&self) -> *mut T {
        UnsafeCell::raw_get(self.data.as_ptr())
    }
}

impl<T: Send + Sync + 'static> Column for TypedColumn<T> {
    fn as_any(&self) -> &dyn Any {
        self
    }

    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }

    #[inline]
    fn len(&self) -> usize {
        self.data.len()
    }

    fn reserve(&mut self, additional: usize) {
        self.data.reserve(additional);
    }

    #[inline]
    fn swap_remove_drop(&mut self, row: usize, now: Tick) {
        if let Some(ticks) = &mut self.ticks {
            ticks.swap_remove(row, now);
        }
        self.data.swap_remove(row);
    }

    #[inline]
    fn swap_remove_into(&mut self, row: usize, dst: &mut dyn Column, now: Tick) {
        // SAFETY: transitions move a row between the columns of the same component id
        // in two archetypes (the edge maps ids to columns), so `dst` holds `T` too.
        let dst = unsafe { downcast_mut_unchecked::<T>(dst) };
        if self.ticks.is_some() {
            self.move_ticks_into(row, dst, now);
        }
        dst.data.push(self.data.swap_remove(row));
    }

    fn clear(&mut self) {
        if let Some(ticks) = &mut self.ticks {
            ticks.clear();
        }
        self.data.clear();
    }

    fn enable_tracking(&mut self, now: Tick) {
        if self.ticks.is_none() {
            self.ticks = Some(ColumnTicks::new(self.data.len(), now));
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

    fn change_ticks(&self) -> Option<TickPtrs> {
        self.tick_ptrs()
    }

    fn tracking_bytes(&self) -> usize {
        self.ticks.as_ref().map_or(0, ColumnTicks::heap_bytes)
    }
}

/// Downcasts a column whose type is known from its [`ComponentId`](crate::ComponentId),
/// without the `Any` check (two virtual calls and a 128-bit compare) that
/// [`downcast`] pays. Query fetches and row moves use it once per table.
///
/// # Safety
/// `column` holds `T`: it is the column of `T`'s component id in its archetype (every
/// archetype builds a component's column from that component's registered type, and
/// a world maps each component id to one type).
#[inline]
pub(crate) unsafe fn downcast_unchecked<T: Send + Sync + 'static>(column: &dyn Column) -> &TypedColumn<T> {
    debug_assert!(column.as_any().is::<TypedColumn<T>>(), "ripple: column type mismatch");
    // SAFETY: the caller guarantees the concrete type is `TypedColumn<T>`; casting the
    // fat pointer to a thin one keeps the data address.
    unsafe { &*(column as *const dyn Column as *const TypedColumn<T>) }
}

/// Mutable form of [`downcast_unchecked`].
///
/// # Safety
/// As [`downcast_unchecked`].
#[inline]
pub(crate) unsafe fn downcast_mut_unchecked<T: Send + Sync + 'static>(column: &mut dyn Column) -> &mut TypedColumn<T> {
    debug_assert!(column.as_any().is::<TypedColumn<T>>(), "ripple: column type mismatch");
    // SAFETY: as in `downcast_unchecked`; the exclusive borrow is carried over.
    unsafe { &mut *(column as *mut dyn Column as *mut TypedColumn<T>) }
}

/// Downcasts a column known to hold `T`.
///
/// # Panics
/// If the column holds another type: an internal invariant violation.
#[inline]
pub(crate) fn downcast<T: Send + Sync + 'static>(column: &dyn Column) -> &TypedColumn<T> {
    column.as_any().downcast_ref::<TypedColumn<T>>().expect("ripple: column type mismatch")
}

/// Mutable form of [`downcast`].
#[inline]
pub(crate) fn downcast_mut<T: Send + Sync + 'static>(column: &mut dyn Column) -> &mut TypedColumn<T> {
    column.as_any_mut().downcast_mut::<TypedColumn<T>>().expect("ripple: column type mismatch")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn swap_remove_into_moves_last_into_hole() {
        let mut a = TypedColumn::<String>::default();
        let mut b: Box<dyn Column> = Box::new(TypedColumn::<String>::default());
        for s in ["x", "y", "z"] {
            a.push(s.to_string(), Tick(1));
        }
        a.swap_remove_into(0, &mut *b, Tick(1));
        assert_eq!(a.get(0), "z");
        assert_eq!(a.get(1), "y");
        assert_eq!(downcast::<String>(&*b).get(0), "x");
    }

    #[test]
    fn zero_sized_columns_allocate_nothing() {
        let mut col = TypedColumn::<()>::default();
        for _ in 0..1000 {
            col.push((), Tick(1));
        }
        assert_eq!(col.len(), 1000);
        assert_eq!(col.data.capacity(), usize::MAX, "Vec of a ZST never allocates");
    }
}
