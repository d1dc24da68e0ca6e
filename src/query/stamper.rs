//! [`LeafStamper`]: how every run that hands items to a closure records its writes.
//!
//! Items of such a run record a write to a tracked column by setting a bit in that
//! column's part of the run's record ([`QueryData::fetch_batched`]). The run
//! visits a table's rows leaf by leaf (a leaf is [`LEAF`] rows of the change summary)
//! and, through this stamper, stamps each leaf's written rows — their ticks, and the
//! summary in one update per leaf — when it moves on to another leaf, when it is done
//! with the table, and when a closure panics part-way: every write made before a panic
//! stays visible to readers.
//!
//! A parallel run's participants stamp only the row ticks (several of them may write
//! rows of one leaf); the run folds the summaries once they are all done.

use std::cell::Cell;

use crate::change::LEAF;

use super::fetch::QueryData;

/// Stamps the leaves of one table of a batched run; see the module docs.
pub(crate) struct LeafStamper<'a, 'w, Q: QueryData> {
    fetch: &'a Q::Fetch<'w>,
    record: &'a Q::Record,
    len: usize,
    /// Whether stamps record in the summary (a serial run) or only stamp rows (a
    /// parallel run's participant).
    summary: bool,
    /// The leaf whose writes the record holds.
    leaf: Cell<usize>,
}

impl<'a, 'w, Q: QueryData> LeafStamper<'a, 'w, Q> {
    /// A stamper for `fetch`, made for a table of `len` rows, whose items record their
    /// writes in `record`; the run starts in leaf 0.
    #[inline]
    pub(crate) fn new(fetch: &'a Q::Fetch<'w>, record: &'a Q::Record, len: usize, summary: bool) -> Self {
        LeafStamper { fetch, record, len, summary, leaf: Cell::new(0) }
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

    /// Stamps the current leaf, which the run is done with, and moves to `leaf`: for a
    /// run that visits the leaves in order and knows where each ends.
    ///
    /// # Safety
    /// No item of the current leaf is in use any more.
    #[inline(always)]
    pub(crate) unsafe fn next(&self, leaf: usize) {
        // SAFETY: per the caller.
        unsafe { self.stamp() };
        self.leaf.set(leaf);
    }

    /// Stamps what the current leaf's items recorded so far and clears the record.
    ///
    /// # Safety
    /// No item of the current leaf is in use any more.
    #[inline(always)]
    pub(crate) unsafe fn stamp(&self) {
        // SAFETY: the recorded rows lie in the current leaf of the table the fetch was
        // made for, and no item uses them (caller).
        unsafe { Q::end_leaf(self.fetch, self.record, self.len, self.leaf.get(), self.summary) };
    }
}

impl<Q: QueryData> Drop for LeafStamper<'_, '_, Q> {
    #[inline(always)]
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

/// Where a batched item of `row` marks its write in the record of its leaf: the byte
/// and the bit of the row's place in the leaf.
#[inline(always)]
pub(crate) fn place_of(row: usize) -> (usize, u32) {
    let place = row % LEAF;
    (place / 8, (place % 8) as u32)
}
