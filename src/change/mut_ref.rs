//! [`Mut`]: mutable access that marks tracked components changed when written.

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use super::summary::Summary;
use super::tick::Tick;

/// Where a write to a tracked row is recorded: the row's change tick, stamped on
/// every write, and the column's summary, updated on every write unless the run
/// defers that to the end of the table (then null).
#[derive(Clone, Copy)]
pub(crate) struct TickSlot {
    changed: *mut Tick,
    summary: *const Summary,
    /// In an accumulating loop: the loop's record of the rows written so far (a bit
    /// per row of the current leaf, or per slot of the current chunk); the loop
    /// stamps their ticks once it is done with the leaf.
    written: *const Cell<u64>,
    /// The row; in an accumulating slot, the bit to set in the accumulator.
    row: usize,
    tick: Tick,
}

impl TickSlot {
    /// A slot that updates the summary on every write.
    ///
    /// # Safety
    /// `changed` is the row's change tick and `summary` its column's summary; both stay
    /// valid while the `Mut` holding the slot lives; no one else accesses this row's
    /// tick, nor writes the column's summary, meanwhile. `tick` is the newest tick
    /// written to the column so far.
    #[inline]
    pub(crate) unsafe fn immediate(changed: *mut Tick, summary: *const Summary, row: usize, tick: Tick) -> Self {
        TickSlot { changed, summary, written: std::ptr::null(), row, tick }
    }

    /// A slot that records the write by setting bit `bit` (below 64) of the loop's
    /// accumulator `written`.
    ///
    /// # Safety
    /// `written` outlives the `Mut` holding the slot (items cannot outlive the call
    /// that receives them) and only this thread uses it.
    #[inline]
    pub(crate) unsafe fn accumulate(written: *const Cell<u64>, bit: usize) -> Self {
        TickSlot { changed: std::ptr::null_mut(), summary: std::ptr::null(), written, row: bit, tick: Tick(0) }
    }

    /// A slot that only stamps the row; the run folds the summary when it finishes
    /// the table (the column was flagged pending when the run fetched it).
    ///
    /// # Safety
    /// `changed` is the row's change tick, valid while the `Mut` holding the slot
    /// lives, and no one else accesses it meanwhile. `tick` is the newest tick written
    /// to the column so far.
    #[inline]
    pub(crate) unsafe fn deferred(changed: *mut Tick, row: usize, tick: Tick) -> Self {
        TickSlot { changed, summary: std::ptr::null(), written: std::ptr::null(), row, tick }
    }

    /// No tracking: writes are not recorded.
    #[inline]
    pub(crate) fn untracked() -> Self {
        TickSlot {
            changed: std::ptr::null_mut(),
            summary: std::ptr::null(),
            written: std::ptr::null(),
            row: 0,
            tick: Tick(0),
        }
    }

    #[inline(always)]
    fn mark(&self) {
        if !self.written.is_null() {
            // SAFETY: per `accumulate`, the accumulator is alive and this thread's.
            let written = unsafe { &*self.written };
            written.set(written.get() | (1u64 << (self.row % 64)));
            return;
        }
        if self.changed.is_null() {
            return;
        }
        // SAFETY: per the constructors, `changed` is valid and this row's tick is ours.
        unsafe { *self.changed = self.tick };
        if !self.summary.is_null() {
            // SAFETY: per `immediate`, the summary is valid and has no other writer.
            unsafe { mark_summary(self.summary, self.row, self.tick) };
        }
    }
}

/// The summary part of an immediate mark, out of line: inlined, it would make every
/// write's code too large for the loops around it to inline their closures.
///
/// # Safety
/// As for [`TickSlot::immediate`].
#[inline(never)]
unsafe fn mark_summary(summary: *const Summary, row: usize, tick: Tick) {
    // SAFETY: forwarded from the caller.
    unsafe { (*summary).mark_newest(row, tick) };
}

/// Mutable access to a component. For a tracked component type, writing through it
/// (any use of `DerefMut`) marks the component changed; reading does not.
///
/// ```
/// use ripple::{World, Changed};
/// #[derive(PartialEq)]
/// struct Health(u32);
/// let mut world = World::new();
/// let e = world.spawn((Health(10),));
/// let mut changed = world.query_filtered::<&Health, Changed<Health>>();
/// assert_eq!(changed.iter(&world).count(), 1); // first run: everything is new
///
/// world.get_mut::<Health>(e).unwrap().set_if_neq(Health(10)); // same value: no mark
/// assert_eq!(changed.iter(&world).count(), 0);
/// world.get_mut::<Health>(e).unwrap().0 -= 2;                 // a write: marked
/// assert_eq!(changed.iter(&world).count(), 1);
/// ```
pub struct Mut<'w, T> {
    value: &'w mut T,
    ticks: TickSlot,
    _borrow: PhantomData<&'w mut Tick>,
}

impl<'w, T> Mut<'w, T> {
    /// # Safety
    /// `ticks` is valid for `'w` (see its constructors).
    #[inline]
    pub(crate) unsafe fn new(value: &'w mut T, ticks: TickSlot) -> Self {
        Mut { value, ticks, _borrow: PhantomData }
    }

    /// Writes `value` only if it differs from the current one, and marks the
    /// component changed only then. Returns whether it wrote.
    #[inline]
    pub fn set_if_neq(&mut self, value: T) -> bool
    where
        T: PartialEq,
    {
        if *self.value == value {
            return false;
        }
        *self.deref_mut() = value;
        true
    }

    /// Mutable access that does not mark the component changed. Observers will not
    /// learn of writes made through it.
    #[inline]
    pub fn bypass_change_detection(&mut self) -> &mut T {
        self.value
    }

    /// Consumes the handle, marking the component changed, and returns the reference.
    #[inline]
    pub fn into_inner(self) -> &'w mut T {
        self.ticks.mark();
        let value: *mut T = self.value;
        // SAFETY: `self.value` is a unique borrow for `'w`; `self` is consumed, so the
        // returned reference is the only one.
        unsafe { &mut *value }
    }

    /// Whether the component type is tracked (writes are being recorded).
    #[inline]
    pub fn is_tracked(&self) -> bool {
        !self.ticks.changed.is_null() || !self.ticks.written.is_null()
    }
}

impl<T> Deref for Mut<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T> DerefMut for Mut<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        self.ticks.mark();
        self.value
    }
}

impl<T: fmt::Debug> fmt::Debug for Mut<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Transparent, like `&mut T`'s.
        fmt::Debug::fmt(&*self.value, f)
    }
}

impl<T: PartialEq> PartialEq<T> for Mut<'_, T> {
    fn eq(&self, other: &T) -> bool {
        *self.value == *other
    }
}
