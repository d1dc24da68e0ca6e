//! The world's resources: typed singletons, inserted, read, written and removed.

use std::any::TypeId;
use std::cell::UnsafeCell;

use super::{Slot, Stored, missing, unbox};
use crate::change::{Mut, Tick, TickSlot};
use crate::error::MissingResource;
use crate::world::World;

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
            type_id: TypeId::of::<R>(),
            value: UnsafeCell::new(value),
        });
        self.resources.slots[index] = Some(slot);
        None
    }

    /// Stores `R::default()` as the world's `R` unless it already holds one (which is
    /// kept as it is, with its change ticks).
    ///
    /// ```
    /// # use ripple::World;
    /// #[derive(Default)]
    /// struct Score(u32);
    /// let mut world = World::new();
    /// world.init_resource::<Score>();
    /// world.resource_mut::<Score>().unwrap().0 = 7;
    /// world.init_resource::<Score>(); // already there: kept
    /// assert_eq!(world.resource::<Score>().unwrap().0, 7);
    /// ```
    pub fn init_resource<R: Default + Send + Sync + 'static>(&mut self) {
        if !self.contains_resource::<R>() {
            self.insert_resource(R::default());
        }
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

    /// The world's `R`, if it holds one: bevy_ecs's name for
    /// [`resource`](Self::resource)`.ok()`.
    pub fn get_resource<R: Send + Sync + 'static>(&self) -> Option<&R> {
        self.resource::<R>().ok()
    }

    /// The world's `R` for writing, if it holds one (a change of `R`, as
    /// [`resource_mut`](Self::resource_mut)): bevy_ecs's name for `resource_mut().ok()`.
    pub fn get_resource_mut<R: Send + Sync + 'static>(&mut self) -> Option<&mut R> {
        self.resource_mut::<R>().ok()
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
