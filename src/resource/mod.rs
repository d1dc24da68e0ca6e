//! Resources: typed singletons stored on the world (time, input, configuration, a
//! system's public API).

use std::any::{Any, TypeId, type_name};
use std::cell::UnsafeCell;

use crate::change::{Remap, Tick};
use crate::error::MissingResource;
use crate::util::hash::IdMap;

mod commands;
mod world_api;

/// One stored resource with its change ticks. The value is last so that a
/// `Box<Stored<R>>` coerces to the type-erased `Box<Stored<dyn Any + ..>>`.
struct Stored<T: ?Sized> {
    /// When the resource was inserted (replacing a value is a change, not an add).
    added: UnsafeCell<Tick>,
    /// When it was last written.
    changed: UnsafeCell<Tick>,
    /// The value's type, kept beside it so that a typed read compares it instead of
    /// asking the value's vtable (a call per read, which a run condition pays).
    type_id: TypeId,
    /// In a cell so that a system that declared a write of it may take `&mut` through
    /// a shared world while other systems run.
    value: UnsafeCell<T>,
}

type Slot = Box<Stored<dyn Any + Send + Sync>>;

impl Stored<dyn Any + Send + Sync> {
    /// A pointer to the value as an `R`, if it is one. O(1), no call.
    #[inline]
    fn value_as<R: 'static>(&self) -> Option<*mut R> {
        (self.type_id == TypeId::of::<R>()).then(|| self.value.get().cast::<R>())
    }
}

/// Storage for one value per resource type.
///
/// Each type gets an index on first sight (insertion, or a system parameter prepared
/// for it) that it keeps for the world's lifetime, even while absent: a parameter keeps
/// its index and reaches its resource without hashing the type.
#[derive(Default)]
pub(crate) struct Resources {
    index: IdMap<TypeId, usize>,
    slots: Vec<Option<Slot>>,
}

// SAFETY: values are `Send + Sync`; through `&Resources` they and their ticks are only
// read, except by `Resources::get_mut_unchecked_at`, whose callers hold a declared
// exclusive access that the schedule keeps disjoint from every other access to the
// same resource.
unsafe impl Sync for Resources {}

/// A resource's value with its change ticks, borrowed from a shared world.
pub(crate) struct ResourceRef<'w, R> {
    pub(crate) value: &'w R,
    pub(crate) added: Tick,
    pub(crate) changed: Tick,
}

/// A resource's value and its changed tick, borrowed exclusively from a shared world.
pub(crate) struct ResourceMut<'w, R> {
    pub(crate) value: &'w mut R,
    pub(crate) added: Tick,
    pub(crate) changed: &'w mut Tick,
}

impl Resources {
    /// `R`'s index, given now if `R` has none yet. O(1).
    pub(crate) fn index_of<R: Send + Sync + 'static>(&mut self) -> usize {
        let next = self.slots.len();
        let index = *self.index.entry(TypeId::of::<R>()).or_insert(next);
        if index == next {
            self.slots.push(None);
        }
        index
    }

    fn slot<R: Send + Sync + 'static>(&self) -> Option<&Slot> {
        let index = *self.index.get(&TypeId::of::<R>())?;
        self.slots[index].as_ref()
    }

    fn slot_mut<R: Send + Sync + 'static>(&mut self) -> Option<&mut Slot> {
        let index = *self.index.get(&TypeId::of::<R>())?;
        self.slots[index].as_mut()
    }

    /// Whether the resource at `index` (from [`index_of`](Self::index_of)) is present.
    #[inline]
    pub(crate) fn contains_at(&self, index: usize) -> bool {
        matches!(self.slots.get(index), Some(Some(_)))
    }

    /// Shared access to `R`, at its `index` (from [`index_of`](Self::index_of) on this
    /// world: an index of another world's finds nothing, or another type, and is
    /// refused as missing).
    #[inline]
    pub(crate) fn get_at<R: Send + Sync + 'static>(&self, index: usize) -> Result<ResourceRef<'_, R>, MissingResource> {
        let slot = self.slots.get(index).and_then(Option::as_ref).ok_or_else(missing::<R>)?;
        Self::read(slot)
    }

    /// Shared access to `R`.
    pub(crate) fn get<R: Send + Sync + 'static>(&self) -> Result<ResourceRef<'_, R>, MissingResource> {
        let slot = self.slot::<R>().ok_or_else(missing::<R>)?;
        Self::read(slot)
    }

    #[inline]
    fn read<R: Send + Sync + 'static>(slot: &Slot) -> Result<ResourceRef<'_, R>, MissingResource> {
        // SAFETY: no `&mut` to the value or its ticks is alive while `&self` is used
        // for a read: `&mut` comes from `&mut self` or from `get_mut_unchecked`, whose
        // caller excludes readers.
        let value = slot.value_as::<R>().ok_or_else(missing::<R>)?;
        // SAFETY: as above; `value_as` checked that the value is an `R`.
        let (value, added, changed) = unsafe { (&*value, *slot.added.get(), *slot.changed.get()) };
        Ok(ResourceRef { value, added, changed })
    }

    /// Exclusive access to `R` through a shared `Resources`.
    ///
    /// # Safety
    /// No other reference to this `R` is alive or made while the result lives.
    #[allow(clippy::mut_from_ref, reason = "the value is in an `UnsafeCell`; exclusivity is the caller's contract")]
    pub(crate) unsafe fn get_mut_unchecked_at<R: Send + Sync + 'static>(
        &self,
        index: usize,
    ) -> Result<ResourceMut<'_, R>, MissingResource> {
        let slot = self.slots.get(index).and_then(Option::as_ref).ok_or_else(missing::<R>)?;
        let value = slot.value_as::<R>().ok_or_else(missing::<R>)?;
        // SAFETY: exclusive per the caller; `value_as` checked that the value is an `R`.
        let (value, added, changed) = unsafe { (&mut *value, *slot.added.get(), &mut *slot.changed.get()) };
        Ok(ResourceMut { value, added, changed })
    }

    /// Rewrites every stored tick (tick maintenance).
    pub(crate) fn remap_ticks(&mut self, remap: &Remap) {
        for slot in self.slots.iter_mut().flatten() {
            *slot.added.get_mut() = remap.apply(*slot.added.get_mut());
            *slot.changed.get_mut() = remap.apply(*slot.changed.get_mut());
        }
    }
}

/// Moves the `R` out of its slot.
fn unbox<R: Send + Sync + 'static>(slot: Slot) -> R {
    assert!(
        // SAFETY: the slot is owned here, so nothing else reaches its value.
        unsafe { (*slot.value.get()).is::<R>() },
        "resource stored under its own TypeId"
    );
    let raw = Box::into_raw(slot);
    // SAFETY: `raw` came from `Box::into_raw` of a `Box<Stored<R>>` coerced to the
    // erased type (the value's type was just checked), and is used once; the cast
    // back to `Stored<R>` only drops the vtable.
    let stored: Stored<R> = unsafe { *Box::from_raw(raw as *mut Stored<R>) };
    stored.value.into_inner()
}

fn missing<R>() -> MissingResource {
    MissingResource { resource: type_name::<R>() }
}
