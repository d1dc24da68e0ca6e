//! [`Mut`]: mutable access that marks tracked components changed when written.

use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};

use super::summary::Summary;
use super::tick::Tick;

/// Where a write to a tracked row is recorded.
pub(crate) struct TickSlot<'w> {
    changed: *mut Tick,
    /// The column's summary, updated on each write; null when the run defers it.
    summary: *const Summary,
    /// The column's pending flag, set on a deferred write.
    pending: *const AtomicBool,
    row: usize,
    tick: Tick,
    _borrow: PhantomData<&'w mut Tick>,
}

impl<'w> TickSlot<'w> {
    /// A slot that updates the summary on every write.
    ///
    /// # Safety
    /// `changed` is the row's change tick and `summary` its column's summary; both stay
    /// valid for `'w`; no one else accesses this row's tick, nor writes the column's
    /// summary, meanwhile. `tick` is the newest tick written to the column so far.
    #[inline]
    pub(crate) unsafe fn immediate(changed: *mut Tick, summary: *const Summary, row: usize, tick: Tick) -> Self {
        TickSlot { changed, summary, pending: std::ptr::null(), row, tick, _borrow: PhantomData }
    }

    /// A slot that only stamps the row and flags the column; the run folds the
    /// summary when it finishes the table.
    ///
    /// # Safety
    /// `changed` is the row's change tick and `pending` its column's flag; both stay
    /// valid for `'w`; no one else accesses this row's tick meanwhile. `tick` is the
    /// newest tick written to the column so far.
    #[inline]
    pub(crate) unsafe fn deferred(changed: *mut Tick, pending: *const AtomicBool, row: usize, tick: Tick) -> Self {
        TickSlot { changed, summary: std::ptr::null(), pending, row, tick, _borrow: PhantomData }
    }

    #[inline]
    fn mark(&self) {
        // SAFETY: per the constructors, the pointers are valid, this row's tick is ours,
        // and an immediate slot's summary has no other writer.
        unsafe {
            *self.changed = self.tick;
            if self.summary.is_null() {
                (*self.pending).store(true, Relaxed);
            } else {
                (*self.summary).mark_newest(self.row, self.tick);
            }
        }
    }
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
    ticks: Option<TickSlot<'w>>,
}

impl<'w, T> Mut<'w, T> {
    #[inline]
    pub(crate) fn new(value: &'w mut T, ticks: Option<TickSlot<'w>>) -> Self {
        Mut { value, ticks }
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
        if let Some(ticks) = &self.ticks {
            ticks.mark();
        }
        let value: *mut T = self.value;
        // SAFETY: `self.value` is a unique borrow for `'w`; `self` is consumed, so the
        // returned reference is the only one.
        unsafe { &mut *value }
    }

    /// Whether the component type is tracked (writes are being recorded).
    #[inline]
    pub fn is_tracked(&self) -> bool {
        self.ticks.is_some()
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
    #[inline]
    fn deref_mut(&mut self) -> &mut T {
        if let Some(ticks) = &self.ticks {
            ticks.mark();
        }
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
