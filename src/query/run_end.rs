//! [`RunEnd`]: what a query run changes in its state's change-tracking memory, applied
//! only when the run completes.
//!
//! A run takes its tick when it begins, and a `Dirty` run reads the world's log of
//! structural changes then. If the run then panics (a closure over its items, a system
//! body, a parallel worker), the changes it had not reached yet must be reported again:
//! so the state's last-run tick moves to the run's tick only when the run ends normally,
//! and a panicking run puts the `Dirty` cursor back where it was. Across a panic an
//! reader sees changes at least once (the ones the failed run already handed out come
//! again); otherwise exactly once.

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use crate::change::Tick;

/// What a run will record in its state when it completes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PendingRun {
    /// The run's tick: the state's last run once it completes.
    pub(crate) this_run: Tick,
    /// Where the `Dirty` cursor stood before the run read the log.
    pub(crate) dirty_from: Option<u64>,
}

/// Ends a run when dropped: records it in the state if the run completed, or, while a
/// panic unwinds through it, leaves the state as before the run (see the module docs).
/// An iterator run ends when its iterator is dropped.
pub(crate) struct RunEnd<'s> {
    pub(crate) last_run: &'s AtomicU32,
    pub(crate) has_run: &'s AtomicBool,
    pub(crate) dirty_cursor: Option<&'s AtomicU64>,
    pub(crate) pending: PendingRun,
}

impl Drop for RunEnd<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            if let (Some(cursor), Some(from)) = (self.dirty_cursor, self.pending.dirty_from) {
                // Nothing trims the log while a run borrows the world, so the entries
                // between `from` and where the run left the cursor are still there.
                cursor.store(from, Ordering::Relaxed);
            }
            return;
        }
        self.last_run.store(self.pending.this_run.0, Ordering::Relaxed);
        self.has_run.store(true, Ordering::Relaxed);
    }
}
