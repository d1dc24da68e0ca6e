//! [`Marks`]: what one propagation run has decided about each entity slot, readable
//! and claimable from several threads.

use std::sync::atomic::{AtomicU32, Ordering};

use crate::entity::Entity;

/// A candidate: its local or parent changed, or it became a member.
pub(super) const DIRTY: u32 = 1;
/// Reachable from a root with nothing dirty at or above it.
pub(super) const CLEAN: u32 = 2;
/// Below a dirty entity (recomputed with it) or not reachable from a root.
pub(super) const SKIP: u32 = 3;
/// Recomputed by this run's walk.
pub(super) const DONE: u32 = 4;
/// On the path of the walk up from a candidate being resolved (only for relations that
/// may have cycles: meeting it again means the path closed a cycle).
pub(super) const WALKING: u32 = 5;

const STATE_BITS: u32 = 3;
const STATE_MASK: u32 = (1 << STATE_BITS) - 1;

/// Per entity slot, `stamp << STATE_BITS | state` of the last run that marked it: a
/// slot whose stamp is not this run's is unmarked, so a run starts without clearing.
#[derive(Default)]
pub(super) struct Marks {
    slots: Vec<AtomicU32>,
    stamp: u32,
}

impl Marks {
    /// Starts a run over a world of `slots` entity slots: a new stamp, and a mark for
    /// every slot (the walk claims slots without growing the list).
    pub(super) fn begin(&mut self, slots: usize) {
        self.stamp += 1;
        if self.stamp > u32::MAX >> STATE_BITS {
            for mark in &mut self.slots {
                *mark.get_mut() = 0;
            }
            self.stamp = 1;
        }
        if self.slots.len() < slots {
            self.slots.resize_with(slots, || AtomicU32::new(0));
        }
    }

    #[inline]
    fn marked(&self, state: u32) -> u32 {
        self.stamp << STATE_BITS | state
    }

    /// `entity`'s state in this run, 0 if unmarked.
    #[inline]
    pub(super) fn get(&self, entity: Entity) -> u32 {
        match self.slots.get(entity.index() as usize) {
            Some(mark) => {
                let mark = mark.load(Ordering::Relaxed);
                if mark >> STATE_BITS == self.stamp { mark & STATE_MASK } else { 0 }
            }
            None => 0,
        }
    }

    /// Marks `entity` with `state` for this run (a slot beyond the world's, which a
    /// live entity never has, is ignored).
    #[inline]
    pub(super) fn set(&mut self, entity: Entity, state: u32) {
        let marked = self.marked(state);
        if let Some(mark) = self.slots.get_mut(entity.index() as usize) {
            *mark.get_mut() = marked;
        }
    }

    /// Marks `entity` done unless this run did already; `false` if it did (or the slot
    /// is beyond the world's). One thread's form of [`claim_shared`](Self::claim_shared).
    #[inline]
    pub(super) fn claim(&mut self, entity: Entity) -> bool {
        let done = self.marked(DONE);
        match self.slots.get_mut(entity.index() as usize).map(AtomicU32::get_mut) {
            Some(mark) if *mark != done => {
                *mark = done;
                true
            }
            _ => false,
        }
    }

    /// [`claim`](Self::claim) for walks on several threads: of all the threads that
    /// claim one slot in a run, exactly one gets `true`.
    #[inline]
    pub(super) fn claim_shared(&self, entity: Entity) -> bool {
        let done = self.marked(DONE);
        self.slots.get(entity.index() as usize).is_some_and(|mark| mark.swap(done, Ordering::Relaxed) != done)
    }

    /// Hints the processor to load `entity`'s mark.
    #[inline]
    pub(super) fn prefetch(&self, entity: Entity) {
        crate::util::hint::prefetch(self.slots.as_ptr().wrapping_add(entity.index() as usize));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entity(index: u32) -> Entity {
        Entity::new(index, std::num::NonZeroU32::MIN)
    }

    #[test]
    fn a_new_run_forgets_the_last_runs_marks() {
        let mut marks = Marks::default();
        marks.begin(4);
        marks.set(entity(1), CLEAN);
        assert!(marks.claim(entity(2)));
        assert_eq!((marks.get(entity(1)), marks.get(entity(2)), marks.get(entity(3))), (CLEAN, DONE, 0));
        marks.begin(4);
        assert_eq!((marks.get(entity(1)), marks.get(entity(2))), (0, 0));
    }

    #[test]
    fn a_slot_is_claimed_once_per_run() {
        let mut marks = Marks::default();
        marks.begin(2);
        assert!(marks.claim(entity(0)));
        assert!(!marks.claim(entity(0)));
        assert!(marks.claim_shared(entity(1)));
        assert!(!marks.claim_shared(entity(1)));
        assert!(!marks.claim(entity(9)), "a slot beyond the world is never claimed");
        marks.begin(2);
        assert!(marks.claim_shared(entity(0)));
    }

    #[test]
    fn stamps_wrap_without_reviving_old_marks() {
        let mut marks = Marks::default();
        marks.begin(1);
        marks.set(entity(0), SKIP);
        marks.stamp = u32::MAX >> STATE_BITS;
        marks.begin(1);
        assert_eq!(marks.stamp, 1);
        assert_eq!(marks.get(entity(0)), 0);
    }
}
