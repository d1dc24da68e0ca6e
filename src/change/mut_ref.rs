//! [`Mut`]: mutable access that marks tracked components changed when written.

use std::cell::Cell;
use std::fmt;
use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};

use super::summary::Summary;
use super::tick::Tick;

/// How a [`Mut`] records a write to a tracked row. Two ways, one per kind of access:
///
/// - **batched**: a run that hands items to a closure (which cannot keep them) gives
///   each item a bit of a record it owns; a write sets the bit, and the run
///   stamps the row ticks and the summary once per leaf of rows, when it leaves the
///   leaf (or unwinds);
/// - **immediate**: an item that may live on after any point a run controls (an
///   iterator's item, `get_mut`) stamps its row's tick, and records it in the summary
///   if the column has one, on every write.
///
/// An untracked slot records nothing.
#[derive(Clone, Copy)]
pub(crate) struct TickSlot {
    /// Batched: the byte of the run's record to set a bit in; null otherwise.
    written: *const Cell<u8>,
    /// Batched: the bit to set. Immediate: the row.
    bit_or_row: u64,
    /// Immediate: the row's change tick; null otherwise.
    changed: *mut Tick,
    /// Immediate: the column's summary, or null if it keeps none (no reader yet).
    summary: *const Summary,
    tick: Tick,
}

impl TickSlot {
    /// A slot that records a write by setting `bit` (a mask) in `written`.
    ///
    /// # Safety
    /// `written` outlives the `Mut` holding the slot (items of a batched run cannot
    /// outlive the call that receives them) and only this thread uses it.
    #[inline]
    pub(crate) unsafe fn batched(written: *const Cell<u8>, bit: u8) -> Self {
        TickSlot {
            written,
            bit_or_row: u64::from(bit),
            changed: std::ptr::null_mut(),
            summary: std::ptr::null(),
            tick: Tick(0),
        }
    }

    /// A slot that stamps `row` (its tick at `changed`) and, if `summary` is not null,
    /// the summary on every write.
    ///
    /// # Safety
    /// `changed` is the row's change tick and `summary` null or its column's summary;
    /// both stay valid while the `Mut` holding the slot lives; no one else accesses
    /// this row's tick, nor writes the column's summary, meanwhile. `tick` is the newest
    /// tick written to the column so far.
    #[inline]
    pub(crate) unsafe fn immediate(changed: *mut Tick, summary: *const Summary, row: usize, tick: Tick) -> Self {
        TickSlot { written: std::ptr::null(), bit_or_row: row as u64, changed, summary, tick }
    }

    /// No tracking: writes are not recorded.
    #[inline]
    pub(crate) fn untracked() -> Self {
        TickSlot {
            written: std::ptr::null(),
            bit_or_row: 0,
            changed: std::ptr::null_mut(),
            summary: std::ptr::null(),
            tick: Tick(0),
        }
    }

    /// Whether writes are recorded.
    #[inline]
    fn is_tracked(&self) -> bool {
        !self.written.is_null() || !self.changed.is_null()
    }

    #[inline(always)]
    pub(crate) fn mark(&self) {
        if !self.written.is_null() {
            // SAFETY: per `batched`, the record is alive and this thread's.
            let written = unsafe { &*self.written };
            written.set(written.get() | self.bit_or_row as u8);
        } else if !self.changed.is_null() {
            // SAFETY: per `immediate`, the tick and the summary are valid and ours to write.
            unsafe { stamp_now(self.changed, self.summary, self.bit_or_row as usize, self.tick) };
        }
    }
}

/// An immediate mark, out of line: inlined, it would make every write's code — in
/// every loop, since the kind of slot is known only at run time — too large for the
/// loops around it to inline their closures.
///
/// # Safety
/// As for [`TickSlot::immediate`].
#[inline(never)]
unsafe fn stamp_now(changed: *mut Tick, summary: *const Summary, row: usize, tick: Tick) {
    // SAFETY: forwarded from the caller; `changed` is the tick of `row`, so the column's
    // ticks start `row` ticks before it.
    unsafe {
        if *changed == tick {
            // Written at this tick already, and recorded then.
            return;
        }
        *changed = tick;
        if !summary.is_null() {
            (*summary).record(changed.sub(row), row, tick);
        }
    }
}

/// Mutable access to a component. For a tracked component type, writing through it
/// (any use of `DerefMut`) marks the component changed; reading does not.
///
/// ```
/// use ripple::World;
/// use ripple::query::Changed;
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
///
/// **Coming from bevy_ecs:** a `Mut` carries no change ticks, so it has no
/// `is_changed`, `is_added` or `last_changed`: keeping them would cost every write in
/// every loop (a write here sets one bit). Ask the query instead, which answers for
/// the system's last run as bevy's methods do: `Query<&mut T, Changed<T>>` visits only
/// what changed (at a cost of what changed, not of what exists), `Added<T>` only what
/// was added, and a query reading [`Ref<T>`](crate::query::Ref) has `is_changed` and
/// `is_added` per item. For a resource, [`ResMut`](crate::system::ResMut) has both.
pub struct Mut<'w, T: ?Sized> {
    value: &'w mut T,
    ticks: TickSlot,
    _borrow: PhantomData<&'w mut Tick>,
}

impl<'w, T: ?Sized> Mut<'w, T> {
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
        T: PartialEq + Sized,
    {
        if *self.value == value {
            return false;
        }
        *self.deref_mut() = value;
        true
    }

    /// Mutable access that does not mark the component changed. Readers will not
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
        self.ticks.is_tracked()
    }

    /// A handle to a part of the value (a field), without marking anything: writing
    /// through the new handle marks the whole component changed, as writing through
    /// this one would.
    ///
    /// ```
    /// use ripple::{Mut, World};
    /// use ripple::query::Changed;
    /// struct Transform { x: f32, y: f32 }
    /// let mut world = World::new();
    /// let e = world.spawn((Transform { x: 0.0, y: 0.0 },));
    /// let mut moved = world.query_filtered::<(), Changed<Transform>>();
    /// moved.iter(&world).count(); // everything is new once
    /// let x: Mut<'_, f32> = world.get_mut::<Transform>(e).unwrap().map_unchanged(|t| &mut t.x);
    /// drop(x);
    /// assert_eq!(moved.iter(&world).count(), 0, "mapping marks nothing");
    /// let mut x = world.get_mut::<Transform>(e).unwrap().map_unchanged(|t| &mut t.x);
    /// *x += 1.0;
    /// assert_eq!(moved.iter(&world).count(), 1);
    /// ```
    #[inline]
    pub fn map_unchanged<U: ?Sized>(self, f: impl FnOnce(&mut T) -> &mut U) -> Mut<'w, U> {
        let ticks = self.ticks;
        let value: *mut T = self.value;
        // SAFETY: `self.value` is a unique borrow for `'w` and `self` is consumed, so
        // the part `f` returns is the only reference for `'w`; the tick slot, valid for
        // `'w`, moves to the new handle.
        unsafe { Mut::new(f(&mut *value), ticks) }
    }
}

impl<T: ?Sized> Deref for Mut<'_, T> {
    type Target = T;

    #[inline]
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: ?Sized> DerefMut for Mut<'_, T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut T {
        self.ticks.mark();
        self.value
    }
}

impl<T: fmt::Debug + ?Sized> fmt::Debug for Mut<'_, T> {
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
