//! [`RunTicks`]: what one reader run compares ticks against, and the world it borrows.

use super::tick::Tick;
use crate::world::World;

/// The ticks a reader run compares against, and the world it runs on.
#[derive(Clone, Copy, Debug)]
pub struct RunTicks {
    /// When the reader last ran; `None` on its first run, when everything is new.
    pub(crate) last_run: Option<Tick>,
    /// This run's tick; writes made during the run are stamped with it.
    pub(crate) this_run: Tick,
    /// The world the run borrows, for fetches of whole entities.
    pub(crate) world: WorldPtr,
}

/// The world a query run borrows, for fetches that reach it whole
/// ([`EntityRef`](crate::EntityRef) in a query).
///
/// # Invariant
/// Points to the world the run borrows, for as long as the run borrows it (a run's
/// ticks live no longer than the run).
#[derive(Clone, Copy, Debug)]
pub(crate) struct WorldPtr(pub(crate) *const World);

// SAFETY: the world is `Sync`; the pointer only stands for the run's shared borrow of
// it, which may be used from the run's threads.
unsafe impl Send for WorldPtr {}
// SAFETY: as above.
unsafe impl Sync for WorldPtr {}

impl WorldPtr {
    /// The world, for the run's lifetime `'w`.
    ///
    /// # Safety
    /// The run that made these ticks borrows the world for `'w`.
    #[inline]
    pub(crate) unsafe fn get<'w>(self) -> &'w World {
        // SAFETY: per the type's invariant and the caller.
        unsafe { &*self.0 }
    }
}

impl RunTicks {
    /// Whether `tick` is new to this run.
    #[inline]
    pub(crate) fn is_new(&self, tick: Tick) -> bool {
        match self.last_run {
            None => true,
            Some(last) => tick.is_newer_than(last, self.this_run),
        }
    }
}
