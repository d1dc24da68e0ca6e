//! [`AbandonedSpawns`]: entities reserved for a spawn command that was dropped without
//! being applied (a command before it, or the hook that queued it, panicked), which
//! the world frees so that no reserved entity is left alive without its components.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::entity::Entity;

/// A world's list of abandoned reservations, shared with the spawn commands it hands
/// out (cloning it allocates nothing).
#[derive(Clone, Default)]
pub(crate) struct AbandonedSpawns(Arc<Inner>);

#[derive(Default)]
struct Inner {
    /// Whether `entities` may be non-empty: checked on every structural operation, so
    /// it must be cheaper than the lock.
    any: AtomicBool,
    entities: Mutex<Vec<Entity>>,
}

impl AbandonedSpawns {
    /// Records that `entity`'s spawn will never happen.
    pub(crate) fn abandon(&self, entity: Entity) {
        self.0.entities.lock().unwrap_or_else(PoisonError::into_inner).push(entity);
        self.0.any.store(true, Ordering::Release);
    }

    /// Whether any reservation was abandoned since the last [`take`](Self::take).
    #[inline]
    pub(crate) fn any(&self) -> bool {
        self.0.any.load(Ordering::Acquire)
    }

    /// Moves the abandoned entities into `out`.
    pub(crate) fn take(&self, out: &mut Vec<Entity>) {
        let mut entities = self.0.entities.lock().unwrap_or_else(PoisonError::into_inner);
        self.0.any.store(false, Ordering::Release);
        out.append(&mut entities);
    }
}
