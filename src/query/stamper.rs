//! [`LeafStamper`]: how every run that hands items to a closure records its writes.
//!
//! Items of such a run record a write to a tracked column by setting a bit in that
//! column's record in the table's fetch ([`QueryData::fetch_batched`]). The run
//! visits a table's rows leaf by leaf (a leaf is [`LEAF`] rows of the change summary)
//! and, through this stamper, stamps each leaf's written rows — their ticks, and the
//! summary in one update per leaf — when it moves on to another leaf, when it is done
//! with the table, and when a closure panics part-way: every write made before a panic
//! stays visible to observers.
//!
//! A parallel run's participants stamp only the row ticks (several of them may write
//! rows of one leaf); the run folds the summaries once they are all done.

use std::cell::Cell;

use crate::change::LEAF;

use super::fetch::QueryData;

/// Stamps the leaves of one table of a batched run; see the module docs.
pub(crate) struct LeafStamper<'a, 'w, Q: QueryData> {
    fetch: &'a Q::Fetch<'w>,
    len: usize,
    /// Whether stamps record in the summary (a serial run) or only stamp rows (a
    /// parallel run's participant).
    summary: bool,
    /// The leaf whose writes the fetch's accumulators hold.
    leaf: Cell<usize>,
    /// The place in the leaf of the chunk whose slots are not folded yet (in an unrolled
    /// loop; 0 where slots are places in the leaf).
    chunk: Cell<usize>,
}

impl<'a, 'w, Q: QueryData> LeafStamper<'a, 'w, Q> {
    /// A stamper for `fetch`, made for a table of `len` rows; the run starts in leaf 0.
    #[inline]
    pub(crate) fn new(fetch: &'a Q::Fetch<'w>, len: usize, summary: bool) -> Self {
        LeafStamper { fetch, len, summary, leaf: Cell::new(0), chunk: Cell::new(0) }
    }

    /// Moves to `leaf`, stamping the leaf the run was in if it is another.
    ///
    /// # Safety
    /// No item of the leaf the run was in is in use any more.
    #[inline(always)]
    pub(crate) unsafe fn enter(&self, leaf: usize) {
        if leaf != self.leaf.get() {
            // SAFETY: per the caller.
            unsafe { self.stamp() };
            self.leaf.set(leaf);
        }
    }

    /// Marks the start of a chunk `offset` rows into the leaf, whose items' slots are
    /// places in the chunk.
    #[inline(always)]
    pub(crate) fn start_chunk(&self, offset: usize) {
        self.chunk.set(offset);
    }

    /// Folds the slots of the chunk that starts `offset` rows into the leaf.
    #[inline(always)]
    pub(crate) fn end_chunk(&self, offset: usize) {
        Q::end_chunk(self.fetch, offset);
        self.chunk.set(0);
    }

    /// Stamps what the current leaf's items recorded so far and clears the record.
    ///
    /// # Safety
    /// No item of the current leaf is in use any more.
    #[inline]
    pub(crate) unsafe fn stamp(&self) {
        // SAFETY: the recorded rows lie in the current leaf of the table the fetch was
        // made for, and no item uses them (caller).
        unsafe { Q::end_leaf(self.fetch, self.len, self.leaf.get(), self.chunk.replace(0), self.summary) };
    }
}

impl<Q: QueryData> Drop for LeafStamper<'_, '_, Q> {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: the run is done with the table, or unwinding from a closure: no item
        // is in use any more either way.
        unsafe { self.stamp() };
    }
}

/// The leaf `row` lies in.
#[inline(always)]
pub(crate) fn leaf_of(row: usize) -> usize {
    row / LEAF
}
