//! [`ColumnTicks`]: what a tracked column keeps besides its values — per row, the
//! tick its value was added and last changed; per leaf of [`LEAF`] rows, a *leaf
//! stamp*; and the [`Summary`] that finds the changed rows — and [`TickPtrs`], the raw
//! access a query run writes them through.
//!
//! A leaf stamp says "every row of this leaf was written at or after this tick": a run
//! that writes every row of a leaf stores one tick instead of one per row, so a tracked
//! loop over whole tables writes little more than an untracked one. A row's change
//! tick is the newer of its own and its leaf's stamp
//! ([`ColumnTicks::changed_at`]). Only the readers that test rows' ticks (the
//! `Changed` filter's per-row test, the summary's tree) and structural changes need to
//! know: a row that moves into a stamped leaf with an older tick first writes the
//! stamp out to the leaf's rows. The summary's change list never meets a stamp newer
//! than its entries, since a whole-leaf write sends the summary to its tree, folding
//! the list first.
//!
//! Safety model: as the values' (see `column.rs`): a row's ticks, and its leaf's
//! stamp, are written only by the accessor that may write its value, and the summary
//! only by the column's single writer.

use std::cell::UnsafeCell;

use crate::change::{LEAF, ListCursor, Remap, Summary, Tick, stamp_rows};

/// See the module docs.
pub(crate) struct ColumnTicks {
    added: Vec<UnsafeCell<Tick>>,
    changed: Vec<UnsafeCell<Tick>>,
    /// One per leaf (there may be more than the rows need: removals leave them).
    stamps: Vec<UnsafeCell<Tick>>,
    summary: Summary,
    /// Whether `summary` is maintained: only once an observer (a query with a change
    /// filter on this component) exists; until then writes only stamp ticks.
    live: bool,
}

impl ColumnTicks {
    /// Ticks for `len` existing rows, which count as added and changed at `now`.
    pub(crate) fn new(len: usize, now: Tick) -> Self {
        ColumnTicks {
            added: (0..len).map(|_| UnsafeCell::new(now)).collect(),
            changed: (0..len).map(|_| UnsafeCell::new(now)).collect(),
            stamps: (0..len.div_ceil(LEAF)).map(|_| UnsafeCell::new(Tick::oldest(now))).collect(),
            summary: Summary::default(),
            live: false,
        }
    }

    /// The change ticks, as the summary reads them.
    #[inline]
    fn changed_ptr(&self) -> *mut Tick {
        UnsafeCell::raw_get(self.changed.as_ptr())
    }

    /// Row `row`'s change tick, seen from `now`: its own, or its leaf's stamp if newer.
    #[inline]
    fn changed_at(&mut self, row: usize, now: Tick) -> Tick {
        let own = *self.changed[row].get_mut();
        own.newest(*self.stamps[row / LEAF].get_mut(), now)
    }

    /// Writes leaf `leaf`'s stamp out to its rows' own ticks and clears it.
    fn write_out(&mut self, leaf: usize, now: Tick) {
        let stamp = std::mem::replace(self.stamps[leaf].get_mut(), Tick::oldest(now));
        let end = ((leaf + 1) * LEAF).min(self.changed.len());
        for tick in self.changed.get_mut(leaf * LEAF..end).into_iter().flatten() {
            *tick.get_mut() = tick.get_mut().newest(stamp, now);
        }
    }

    /// Appends a row, added at `added` and changed at `changed`.
    #[inline]
    pub(crate) fn push(&mut self, added: Tick, changed: Tick, now: Tick) {
        let row = self.changed.len();
        let leaf = row / LEAF;
        if leaf == self.stamps.len() {
            self.stamps.push(UnsafeCell::new(Tick::oldest(now)));
        } else if self.stamps[leaf].get_mut().age(now) < changed.age(now) {
            // The leaf's stamp would make the new row look newer than it is.
            self.write_out(leaf, now);
        }
        self.added.push(UnsafeCell::new(added));
        self.changed.push(UnsafeCell::new(changed));
        if self.live {
            self.summary.grow(row + 1, now);
            // SAFETY: the ticks are this column's, borrowed exclusively.
            unsafe { self.summary.place(self.changed_ptr(), row, changed, now) };
        }
    }

    /// Removes row `row`'s ticks, moving the last row's into its place; returns the
    /// removed row's added and change ticks.
    #[inline]
    pub(crate) fn swap_remove(&mut self, row: usize, now: Tick) -> (Tick, Tick) {
        if self.live {
            // The change list names rows by place; the last row is about to take
            // another's place.
            // SAFETY: the ticks are this column's, borrowed exclusively.
            unsafe { self.summary.fold_all(self.changed_ptr(), now) };
        }
        let changed = self.changed_at(row, now);
        let last = self.changed.len() - 1;
        let moved = (row != last).then(|| self.changed_at(last, now));
        if let Some(moved) = moved {
            if self.stamps[row / LEAF].get_mut().age(now) < moved.age(now) {
                // The hole's leaf stamp would make the moved row look newer than it is.
                self.write_out(row / LEAF, now);
            }
        }
        let added = self.added.swap_remove(row).into_inner();
        self.changed.swap_remove(row);
        if let Some(moved) = moved {
            *self.changed[row].get_mut() = moved;
            if self.live {
                // The last row's tick now lives in `row`'s leaf.
                // SAFETY: as above.
                unsafe { self.summary.place(self.changed_ptr(), row, moved, now) };
            }
        }
        (added, changed)
    }

    /// Marks `row` changed at `tick`, the newest tick, outside any run.
    #[inline]
    pub(crate) fn mark(&mut self, row: usize, tick: Tick) {
        let old = std::mem::replace(self.changed[row].get_mut(), tick);
        // A row already at `tick` was recorded then; one whose leaf stamp is `tick` was
        // recorded in the summary's tree, which takes this one too (`record` sees to
        // that, `tick` being the tree's).
        if self.live && old != tick {
            // SAFETY: the ticks are this column's, borrowed exclusively.
            unsafe { self.summary.record(self.changed_ptr(), row, tick) };
        }
    }

    /// Starts maintaining the summary, built from the rows' ticks.
    pub(crate) fn observe(&mut self, now: Tick) {
        if self.live {
            return;
        }
        for leaf in 0..self.stamps.len() {
            self.write_out(leaf, now);
        }
        // SAFETY: `UnsafeCell<Tick>` has the layout of `Tick`, and the column is
        // borrowed exclusively.
        let rows = unsafe { std::slice::from_raw_parts(self.changed_ptr(), self.changed.len()) };
        self.summary = Summary::build(rows, now);
        self.live = true;
    }

    /// Drops every row's ticks, keeping the capacity.
    pub(crate) fn clear(&mut self) {
        self.added.clear();
        self.changed.clear();
        self.stamps.clear();
        self.summary.clear();
    }

    /// Applies tick maintenance to every stored tick.
    pub(crate) fn remap(&mut self, remap: &Remap) {
        // SAFETY: the column's ticks, borrowed exclusively.
        unsafe { self.summary.remap(self.changed_ptr(), remap) };
        for tick in self.added.iter_mut().chain(&mut self.changed).chain(&mut self.stamps) {
            *tick.get_mut() = remap.apply(*tick.get_mut());
        }
    }

    /// Heap bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        (self.added.capacity() + self.changed.capacity() + self.stamps.capacity()) * size_of::<Tick>()
            + self.summary.heap_bytes()
    }

    /// Raw access for a query run (see [`TickPtrs`]); valid until the next structural
    /// change, and writable under the module's safety model.
    #[inline]
    pub(crate) fn ptrs(&self) -> TickPtrs {
        TickPtrs {
            added: UnsafeCell::raw_get(self.added.as_ptr()),
            changed: self.changed_ptr(),
            stamps: UnsafeCell::raw_get(self.stamps.as_ptr()),
            summary: &self.summary,
            live: self.live,
        }
    }
}

/// Raw access to a tracked column's ticks (see [`ColumnTicks::ptrs`]). Public only
/// because the [`Column`](super::Column) trait names it; nothing outside the crate can
/// reach it.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct TickPtrs {
    pub(crate) added: *mut Tick,
    pub(crate) changed: *mut Tick,
    /// One per leaf of the rows.
    pub(crate) stamps: *mut Tick,
    pub(crate) summary: *const Summary,
    /// Whether the summary is maintained (see `ColumnTicks::live`).
    pub(crate) live: bool,
}

impl TickPtrs {
    /// Calls `f` with each row below `len` changed after `last_run`, seen from
    /// `this_run` (through the summary: only the leaves that changed are visited).
    ///
    /// # Safety
    /// The pointers came from a column of `len` rows whose summary is maintained, and
    /// no one writes its ticks during the call.
    #[inline]
    pub(crate) unsafe fn for_each_changed(self, len: usize, last_run: Tick, this_run: Tick, f: &mut impl FnMut(usize)) {
        // SAFETY: per the caller.
        unsafe { (*self.summary).for_each_new(self.changed, self.stamps, len, last_run, this_run, f) }
    }

    /// The summary, if maintained; null otherwise (the form an immediate slot takes).
    #[inline]
    pub(crate) fn live_summary(self) -> *const Summary {
        if self.live { self.summary } else { std::ptr::null() }
    }

    /// Row `row`'s change tick, seen from `now`: its own, or its leaf's stamp if newer.
    ///
    /// # Safety
    /// The pointers came from a column with row `row`, and no one writes its ticks
    /// during the call.
    #[inline]
    pub(crate) unsafe fn changed_at(self, row: usize, now: Tick) -> Tick {
        // SAFETY: per the caller.
        unsafe { (*self.changed.add(row)).newest(*self.stamps.add(row / LEAF), now) }
    }

    /// Stamps the rows of leaf `leaf` named by `written` with `tick` (the newest) — the
    /// leaf's stamp, if they are all its rows — and, with `summary` (a serial run),
    /// records them in the summary if it is maintained; a parallel run's participants
    /// pass `false` and the run folds them afterwards ([`TickPtrs::fold`]).
    ///
    /// # Safety
    /// The pointers came from a column of `len` rows; `written` names rows of the leaf
    /// that no one else accesses during the call (nor, if they are all its rows, its
    /// stamp); with `summary`, the caller is the column's only writer.
    #[inline(always)]
    pub(crate) unsafe fn stamp_leaf(self, len: usize, leaf: usize, written: u64, tick: Tick, summary: bool) {
        let start = leaf * LEAF;
        debug_assert!(written == 0 || start + (63 - written.leading_zeros() as usize) < len);
        let rows = len - start;
        let whole = if rows >= LEAF { u64::MAX } else { (1u64 << rows) - 1 };
        // SAFETY: the rows (and, when whole, the stamp) are below `len` (caller), and
        // unshared.
        unsafe {
            if written == whole {
                *self.stamps.add(leaf) = tick;
                if summary && self.live {
                    (*self.summary).stamp_whole_leaf(self.changed, leaf, tick);
                }
            } else if summary && self.live {
                (*self.summary).stamp_leaf(self.changed, leaf, written, tick);
            } else {
                stamp_rows(self.changed, start, written, tick);
            }
        }
    }

    /// Stamps `row` with `tick` (the newest) and, if the summary is maintained and the
    /// row did not hold `tick` already, records it there, appending to the change list
    /// through a writer's `cursor` (see [`ListCursor`]; [`close`](Self::close) it when
    /// done).
    ///
    /// # Safety
    /// The pointers came from a column with row `row`; the caller is its only writer;
    /// `cursor` is closed or was opened on this column's list, which no one has used
    /// since but through it.
    #[inline(always)]
    pub(crate) unsafe fn record_row_through(self, cursor: &ListCursor, row: usize, tick: Tick) {
        // SAFETY: the row is the caller's to write, the cursor this column's (caller).
        unsafe {
            let slot = self.changed.add(row);
            if *slot != tick {
                *slot = tick;
                if self.live {
                    (*self.summary).record_through(cursor, self.changed, row, tick);
                }
            }
        }
    }

    /// Makes what `cursor` appended part of the change list, and closes it.
    ///
    /// # Safety
    /// The caller is the column's only writer; `cursor` is as for
    /// [`record_row_through`](Self::record_row_through).
    #[inline]
    pub(crate) unsafe fn close(self, cursor: &ListCursor) {
        if self.live {
            // SAFETY: forwarded from the caller.
            unsafe { (*self.summary).close(cursor) };
        }
    }

    /// Folds rows stamped with `tick` by a parallel run's participants into the summary:
    /// every leaf of the first `len` rows, or the leaves of `rows`.
    ///
    /// # Safety
    /// The pointers came from a column of `len` rows that no one else accesses during
    /// the call (the participants have finished).
    pub(crate) unsafe fn fold(self, len: usize, tick: Tick, rows: Option<&mut dyn Iterator<Item = usize>>) {
        if !self.live {
            return;
        }
        // SAFETY: valid and unshared (caller); `changed` holds `len` ticks and `stamps`
        // one per leaf of them.
        let (summary, ticks, stamps) = unsafe {
            (
                &*self.summary,
                std::slice::from_raw_parts(self.changed, len),
                std::slice::from_raw_parts(self.stamps, len.div_ceil(LEAF)),
            )
        };
        // SAFETY: the column's ticks, and the run holds the column alone (caller).
        unsafe {
            match rows {
                Some(rows) => summary.fold_rows(ticks, stamps, rows.map(|row| row / LEAF), tick),
                None => summary.fold_rows(ticks, stamps, 0..len.div_ceil(LEAF), tick),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A tracked column's ticks beside a plain model of every row's change tick.
    struct Column {
        ticks: ColumnTicks,
        model: Vec<Tick>,
        now: Tick,
    }

    impl Column {
        fn len(&self) -> usize {
            self.model.len()
        }

        /// A serial (`parallel` false) or parallel run writing `bits` of `leaf`.
        fn write_leaf(&mut self, leaf: usize, bits: u64, parallel: bool) {
            let start = leaf * LEAF;
            let valid = (self.len() - start).min(LEAF);
            let bits = if valid == LEAF { bits } else { bits & ((1u64 << valid) - 1) };
            let ptrs = self.ticks.ptrs();
            // SAFETY: the test is the column's only user; the bits name rows of the leaf.
            unsafe {
                ptrs.stamp_leaf(self.len(), leaf, bits, self.now, !parallel);
                if parallel {
                    ptrs.fold(self.len(), self.now, None);
                }
            }
            for offset in (0..LEAF).filter(|offset| bits & (1 << offset) != 0) {
                self.model[start + offset] = self.now;
            }
        }

        fn check(&mut self, readers: &mut [Tick]) {
            for row in 0..self.len() {
                assert_eq!(self.ticks.changed_at(row, self.now), self.model[row], "row {row}'s change tick");
            }
            if !self.ticks.live {
                return;
            }
            for last_run in readers.iter_mut() {
                let this_run = self.now;
                let mut found = Vec::new();
                let ptrs = self.ticks.ptrs();
                // SAFETY: nothing writes during the call.
                unsafe {
                    (*ptrs.summary).for_each_new(
                        ptrs.changed,
                        ptrs.stamps,
                        self.len(),
                        *last_run,
                        this_run,
                        &mut |row| found.push(row),
                    )
                };
                let reported = found.len();
                found.sort_unstable();
                found.dedup();
                assert_eq!(found.len(), reported, "a row reported twice");
                let want: Vec<usize> =
                    (0..self.len()).filter(|&row| self.model[row].is_newer_than(*last_run, this_run)).collect();
                assert_eq!(found, want, "a reader that last ran at {last_run:?}, now {this_run:?}");
                *last_run = this_run;
                self.now = Tick(this_run.0 + 1);
            }
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Leaf(usize, u64, bool),
        Whole(usize, bool),
        Rows(Vec<usize>),
        Mark(usize),
        Push(u32),
        Remove(usize),
        Observe,
        Tick,
        Read,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (any::<usize>(), any::<u64>(), any::<bool>()).prop_map(|(leaf, bits, par)| Op::Leaf(leaf, bits, par)),
            3 => (any::<usize>(), any::<bool>()).prop_map(|(leaf, par)| Op::Whole(leaf, par)),
            4 => prop::collection::vec(any::<usize>(), 1..40).prop_map(Op::Rows),
            1 => any::<usize>().prop_map(Op::Mark),
            3 => (0u32..8).prop_map(Op::Push),
            2 => any::<usize>().prop_map(Op::Remove),
            1 => Just(Op::Observe),
            3 => Just(Op::Tick),
            3 => Just(Op::Read),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        /// Whole-leaf stamps, rows written one by one, rows pushed with older ticks and
        /// moved by removals into stamped leaves, parallel folds, and a summary that
        /// starts part-way: every row's change tick and every reader's findings match
        /// the model.
        #[test]
        fn change_ticks_match_a_model_through_stamps_moves_and_folds(
            rows in 0usize..200,
            ops in prop::collection::vec(op(), 1..300),
        ) {
            let now = Tick(100);
            let mut column = Column { ticks: ColumnTicks::new(rows, now), model: vec![now; rows], now: Tick(101) };
            let mut readers = [Tick(100), Tick(100)];
            for op in ops {
                let len = column.len();
                match op {
                    Op::Leaf(leaf, bits, parallel) if len > 0 => column.write_leaf(leaf % len.div_ceil(LEAF), bits, parallel),
                    Op::Whole(leaf, parallel) if len > 0 => column.write_leaf(leaf % len.div_ceil(LEAF), u64::MAX, parallel),
                    Op::Rows(rows) if len > 0 => {
                        // Rows written one by one (repeats included), appended through one
                        // cursor and handed to the list at the end.
                        let cursor = crate::change::ListCursor::default();
                        for row in rows {
                            let row = row % len;
                            // SAFETY: the test is the column's only user.
                            unsafe { column.ticks.ptrs().record_row_through(&cursor, row, column.now) };
                            column.model[row] = column.now;
                        }
                        // SAFETY: as above.
                        unsafe { column.ticks.ptrs().close(&cursor) };
                    }
                    Op::Mark(row) if len > 0 => {
                        column.ticks.mark(row % len, column.now);
                        column.model[row % len] = column.now;
                    }
                    Op::Push(age) => {
                        let tick = Tick(column.now.0 - age);
                        column.ticks.push(tick, tick, column.now);
                        column.model.push(tick);
                    }
                    Op::Remove(row) if len > 0 => {
                        let row = row % len;
                        let (_, changed) = column.ticks.swap_remove(row, column.now);
                        prop_assert_eq!(changed, column.model.swap_remove(row));
                    }
                    // A late observer starts everything new; readers from before it are
                    // replaced by readers from now on.
                    Op::Observe if !column.ticks.live => {
                        column.ticks.observe(column.now);
                        readers = [column.now, column.now];
                        column.now = Tick(column.now.0 + 1);
                    }
                    Op::Tick => column.now = Tick(column.now.0 + 1),
                    Op::Read => column.check(&mut readers),
                    _ => {}
                }
            }
            column.check(&mut readers);
        }
    }
}
