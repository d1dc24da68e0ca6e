//! Resources: typed singletons stored on the world (time, input, configuration, a
//! system's public API).

use std::any::{Any, TypeId, type_name};
use std::cell::UnsafeCell;

use crate::change::{Mut, Remap, Tick, TickSlot};
use crate::error::MissingResource;
use crate::hash::IdMap;
use crate::world::World;

/// One stored resource with its change ticks. The value is last so that a
/// `Box<Stored<R>>` coerces to the type-erased `Box<Stored<dyn Any + ..>>`.
struct Stored<T: ?Sized> {
    /// When the resource was inserted (replacing a value is a change, not an add).
    added: UnsafeCell<Tick>,
    /// When it was last written.
    changed: UnsafeCell<Tick>,
    /// In a cell so that a system that declared a write of it may take `&mut` through
    /// a shared world while other systems run.
    value: UnsafeCell<T>,
}

type Slot = Box<Stored<dyn Any + Send + Sync>>;

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
        let (value, added, changed) = unsafe { (&*slot.value.get(), *slot.added.get(), *slot.changed.get()) };
        let value = value.downcast_ref::<R>().ok_or_else(missing::<R>)?;
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
        // SAFETY: exclusive per the caller.
        let (value, added, changed) = unsafe { (&mut *slot.value.get(), *slot.added.get(), &mut *slot.changed.get()) };
        let value = value.downcast_mut::<R>().ok_or_else(missing::<R>)?;
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
    ///
    /// For change detection ([`Res::is_added`](crate::system::Res::is_added),
    /// [`Res::is_changed`](crate::system::Res::is_changed)) a new resource counts as added and
    /// changed; replacing one counts as a change.
    pub fn insert_resource<R: Send + Sync + 'static>(&mut self, value: R) -> Option<R> {
        let now = self.fresh_tick();
        let index = self.resources.index_of::<R>();
        if let Some(slot) = &mut self.resources.slots[index] {
            *slot.changed.get_mut() = now;
            let old = slot.value.get_mut().downcast_mut::<R>().expect("resource stored under its own TypeId");
            return Some(std::mem::replace(old, value));
        }
        let slot: Slot = Box::new(Stored {
            added: UnsafeCell::new(now),
            changed: UnsafeCell::new(now),
            value: UnsafeCell::new(value),
        });
        self.resources.slots[index] = Some(slot);
        None
    }

    /// Whether the world holds an `R`.
    pub fn contains_resource<R: Send + Sync + 'static>(&self) -> bool {
        self.resources.slot::<R>().is_some()
    }

    /// Shared access to the world's `R`.
    ///
    /// # Errors
    /// [`MissingResource`] naming `R` if there is none.
    pub fn resource<R: Send + Sync + 'static>(&self) -> Result<&R, MissingResource> {
        self.resources.get::<R>().map(|resource| resource.value)
    }

    /// Exclusive access to the world's `R`. Counts as a change of `R` for change
    /// detection, whether or not it is written through.
    ///
    /// # Errors
    /// [`MissingResource`] naming `R` if there is none.
    pub fn resource_mut<R: Send + Sync + 'static>(&mut self) -> Result<&mut R, MissingResource> {
        let now = self.fresh_tick();
        let slot = self.resources.slot_mut::<R>().ok_or_else(missing::<R>)?;
        *slot.changed.get_mut() = now;
        Ok(slot.value.get_mut().downcast_mut::<R>().expect("resource stored under its own TypeId"))
    }

    /// Exclusive access to the world's `R` that counts as a change only if written
    /// through (a mutable dereference), as bevy_ecs's `World::resource_mut`; bevy's
    /// `is_changed` on it is [`is_resource_changed`](Self::is_resource_changed).
    ///
    /// ```
    /// use ripple::World;
    /// struct Score(u32);
    /// let mut world = World::new();
    /// world.insert_resource(Score(0));
    /// world.clear_trackers();
    /// let score = world.resource_mut_tracked::<Score>().unwrap();
    /// assert_eq!(score.0, 0); // read only: no change
    /// assert!(!world.is_resource_changed::<Score>());
    /// world.resource_mut_tracked::<Score>().unwrap().0 += 1;
    /// assert!(world.is_resource_changed::<Score>());
    /// ```
    ///
    /// # Errors
    /// [`MissingResource`] naming `R` if there is none.
    pub fn resource_mut_tracked<R: Send + Sync + 'static>(&mut self) -> Result<Mut<'_, R>, MissingResource> {
        let now = self.fresh_tick();
        let slot = self.resources.slot_mut::<R>().ok_or_else(missing::<R>)?;
        let changed: *mut Tick = slot.changed.get_mut();
        let value = slot.value.get_mut().downcast_mut::<R>().expect("resource stored under its own TypeId");
        // SAFETY: `changed` is this resource's tick, borrowed (through `&mut self`) as
        // long as the `Mut`; row 0 of no summary: only the tick is stamped.
        let ticks = unsafe { TickSlot::immediate(changed, std::ptr::null(), 0, now) };
        // SAFETY: `ticks` stays valid for the borrow of `self`.
        Ok(unsafe { Mut::new(value, ticks) })
    }

    /// Marks now as the point [`is_resource_changed`](Self::is_resource_changed) and
    /// [`is_resource_added`](Self::is_resource_added) compare with, as bevy_ecs's
    /// `World::clear_trackers` (which a bevy app calls once per frame; a ripple game
    /// loop calls it where it wants its frame to start). Systems do not need it: their
    /// [`Res`](crate::system::Res) compares with their own last run.
    pub fn clear_trackers(&mut self) {
        let now = self.increment_change_tick();
        match &self.trackers_cleared {
            Some(mark) => mark.store(now.0, std::sync::atomic::Ordering::Relaxed),
            None => {
                let mark = self.register_change_reader();
                mark.store(now.0, std::sync::atomic::Ordering::Relaxed);
                self.trackers_cleared = Some(mark);
            }
        }
    }

    /// Whether the world's `R` was inserted or written (through
    /// [`resource_mut`](Self::resource_mut), [`resource_mut_tracked`](Self::resource_mut_tracked)
    /// written through, a [`ResMut`](crate::system::ResMut) written through, or
    /// [`insert_resource`](Self::insert_resource)) since the last
    /// [`clear_trackers`](Self::clear_trackers); before the first, whether it exists.
    /// False if there is none. O(1).
    pub fn is_resource_changed<R: Send + Sync + 'static>(&self) -> bool {
        self.resources.get::<R>().is_ok_and(|resource| self.since_trackers_cleared(resource.changed))
    }

    /// Whether the world's `R` was inserted since the last
    /// [`clear_trackers`](Self::clear_trackers) (see
    /// [`is_resource_changed`](Self::is_resource_changed)). O(1).
    pub fn is_resource_added<R: Send + Sync + 'static>(&self) -> bool {
        self.resources.get::<R>().is_ok_and(|resource| self.since_trackers_cleared(resource.added))
    }

    fn since_trackers_cleared(&self, tick: Tick) -> bool {
        match &self.trackers_cleared {
            None => true,
            Some(mark) => {
                let mark = Tick(mark.load(std::sync::atomic::Ordering::Relaxed));
                tick.is_newer_than(mark, self.change_tick())
            }
        }
    }

    /// Takes the world's `R` out of it.
    ///
    /// # Errors
    /// [`MissingResource`] naming `R` if there is none.
    pub fn remove_resource<R: Send + Sync + 'static>(&mut self) -> Result<R, MissingResource> {
        let index = *self.resources.index.get(&TypeId::of::<R>()).ok_or_else(missing::<R>)?;
        let slot = self.resources.slots[index].take().ok_or_else(missing::<R>)?;
        Ok(unbox::<R>(slot))
    }
}
