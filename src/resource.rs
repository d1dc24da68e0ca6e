//! Resources: typed singletons stored on the world (time, input, configuration, a
//! system's public API).

use std::any::{Any, TypeId, type_name};
use std::cell::UnsafeCell;

use crate::error::MissingResource;
use crate::hash::IdMap;
use crate::world::World;

/// One stored resource. In a cell so that a system that declared a write of it may
/// take `&mut` through a shared world while other systems run.
type Slot = Box<UnsafeCell<dyn Any + Send + Sync>>;

/// Storage for one value per resource type.
#[derive(Default)]
pub(crate) struct Resources {
    values: IdMap<TypeId, Slot>,
}

// SAFETY: values are `Send + Sync`; through `&Resources` they are only read, except by
// `Resources::get_mut_unchecked`, whose callers hold a declared exclusive access that
// the schedule keeps disjoint from every other access to the same resource.
unsafe impl Sync for Resources {}

impl Resources {
    /// Shared access to `R`.
    pub(crate) fn get<R: Send + Sync + 'static>(&self) -> Result<&R, MissingResource> {
        let slot = self.values.get(&TypeId::of::<R>()).ok_or_else(missing::<R>)?;
        // SAFETY: no `&mut` to the value is alive while `&self` is used for a read:
        // `&mut` comes from `&mut self` or from `get_mut_unchecked`, whose caller
        // excludes readers.
        let value = unsafe { &*slot.get() };
        Ok(value.downcast_ref::<R>().expect("resource stored under its own TypeId"))
    }

    /// Exclusive access to `R` through a shared `Resources`.
    ///
    /// # Safety
    /// No other reference to this `R` is alive or made while the result lives.
    #[allow(clippy::mut_from_ref, reason = "the value is in an `UnsafeCell`; exclusivity is the caller's contract")]
    pub(crate) unsafe fn get_mut_unchecked<R: Send + Sync + 'static>(&self) -> Result<&mut R, MissingResource> {
        let slot = self.values.get(&TypeId::of::<R>()).ok_or_else(missing::<R>)?;
        // SAFETY: exclusive per the caller.
        let value = unsafe { &mut *slot.get() };
        Ok(value.downcast_mut::<R>().expect("resource stored under its own TypeId"))
    }
}

/// Moves the `R` out of its slot.
fn unbox<R: Send + Sync + 'static>(slot: Slot) -> R {
    let raw = Box::into_raw(slot);
    // SAFETY: `raw` came from `Box::into_raw` and is used once; `UnsafeCell<T>` has the
    // layout of `T`, so the allocation holds a `dyn Any` whose type is checked before
    // the cast to the concrete `R`.
    unsafe {
        assert!((*UnsafeCell::raw_get(raw)).is::<R>(), "resource stored under its own TypeId");
        let cell: UnsafeCell<R> = *Box::from_raw(raw as *mut UnsafeCell<R>);
        cell.into_inner()
    }
}

fn missing<R>() -> MissingResource {
    MissingResource { resource: type_name::<R>() }
}

impl World {
    /// Stores `value` as the world's `R`, returning the previous one if there was one.
    ///
    /// ```
    /// # use ripple::World;
    /// struct Gravity(f32);
    /// let mut world = World::new();
    /// world.insert_resource(Gravity(9.8));
    /// world.resource_mut::<Gravity>().unwrap().0 = 1.6;
    /// assert_eq!(world.resource::<Gravity>().unwrap().0, 1.6);
    /// ```
    pub fn insert_resource<R: Send + Sync + 'static>(&mut self, value: R) -> Option<R> {
        let slot: Slot = Box::new(UnsafeCell::new(value));
        let old = self.resources.values.insert(TypeId::of::<R>(), slot)?;
        Some(unbox::<R>(old))
    }

    /// Whether the world holds an `R`.
    pub fn contains_resource<R: Send + Sync + 'static>(&self) -> bool {
        self.resources.values.contains_key(&TypeId::of::<R>())
    }

    /// Shared access to the world's `R`.
    ///
    /// # Errors
    /// [`MissingResource`] naming `R` if there is none.
    pub fn resource<R: Send + Sync + 'static>(&self) -> Result<&R, MissingResource> {
        self.resources.get::<R>()
    }

    /// Exclusive access to the world's `R`.
    ///
    /// # Errors
    /// [`MissingResource`] naming `R` if there is none.
    pub fn resource_mut<R: Send + Sync + 'static>(&mut self) -> Result<&mut R, MissingResource> {
        let slot = self.resources.values.get_mut(&TypeId::of::<R>()).ok_or_else(missing::<R>)?;
        Ok(slot.get_mut().downcast_mut::<R>().expect("resource stored under its own TypeId"))
    }

    /// Takes the world's `R` out of it.
    ///
    /// # Errors
    /// [`MissingResource`] naming `R` if there is none.
    pub fn remove_resource<R: Send + Sync + 'static>(&mut self) -> Result<R, MissingResource> {
        let slot = self.resources.values.remove(&TypeId::of::<R>()).ok_or_else(missing::<R>)?;
        Ok(unbox::<R>(slot))
    }
}
