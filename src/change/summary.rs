//! [`Summary`]: what a tracked column keeps, besides its per-row change ticks, so that
//! an observer finds the rows changed since its last run in time that follows what
//! changed, not the column's length.
//!
//! Two structures, split at one tick, `folded`:
//!
//! - the [`ChangeList`] holds every change newer than `folded`: per tick, the leaves
//!   written, each with the mask of its rows written. A write sets a bit in its leaf's
//!   entry (the first write to a leaf at a tick appends the entry), and an observer
//!   that ran after `folded` — one that runs every frame — reads only the list: per
//!   changed row, a bit of an entry and the row's tick.
//! - the tree of [`Maxima`] holds every change up to `folded`. Changes reach it when
//!   the list is full (its oldest segment is folded in, one tree update per leaf),
//!   when a row moves (a removal folds the whole list, whose entries would otherwise
//!   name the wrong rows), and when a run writes whole leaves (the leaf's stamp, one
//!   tick for 64 rows, is the tree's to report). An observer that last ran before
//!   `folded` walks the tree for ticks up to `folded` and reads the whole list for the
//!   rest.
//!
//! So each change is in exactly one of the two, and an observer visits each changed
//! row once: the list reports a row from the segment of its current tick only, and
//! the tree reports only rows whose tick is not newer than `folded`.
//!
//! Only the column's single writer changes the summary — through a shared reference,
//! while the access rules keep readers out — so the list sits in an `UnsafeCell` and
//! `folded` in an atomic.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use super::change_list::{ChangeList, ListCursor};
use super::tick::Tick;
use super::tree::{LEAF, LEAF_SHIFT, Maxima, equal_mask};

/// See the module docs.
#[derive(Default)]
pub struct Summary {
    tree: Maxima,
    /// Written only by the column's single writer (the same exclusion that guards the
    /// row ticks), read by readers while no writer runs.
    list: UnsafeCell<ChangeList>,
    /// Every change to a tick not newer than this is in the tree, every newer one in
    /// the list.
    folded: AtomicU32,
}

impl Summary {
    /// A summary of `ticks` (one per row, as of `now`): all in the tree.
    pub(crate) fn build(ticks: &[Tick], now: Tick) -> Summary {
        let mut summary = Summary::default();
        summary.grow(ticks.len(), now);
        for (row, &tick) in ticks.iter().enumerate() {
            summary.tree.raise(row, tick, now);
        }
        summary.folded.store(now.0, Relaxed);
        summary
    }

    /// Makes room for `rows` rows, as of `now`. New tree entries start at the oldest
    /// tick: they cover no rows yet, and rows placed in them raise them (`place`).
    /// (Starting them at `now` instead broke the tree's order: a later fold of older
    /// list entries stamps their leaves as the newest and lowered the ancestors below a
    /// new leaf still at `now`.)
    pub(crate) fn grow(&mut self, rows: usize, now: Tick) {
        self.tree.grow(rows, now);
        let leaves = self.tree.leaves();
        let list = self.list.get_mut();
        list.cover(leaves, now);
        if list.capacity() < 2 * leaves {
            // Room for every leaf written at two ticks (12 bytes an entry, under 0.4
            // bytes a row): a frame that writes anywhere stays in the list for two
            // frames, so a reader that runs every frame reads only the list. Grown by
            // half again, so pushing rows one by one reallocates it a logarithmic
            // number of times.
            let capacity = (3 * leaves).max(64);
            list.reserve(capacity, (capacity / 8).max(8));
        }
    }

    /// The list, for the column's writer.
    ///
    /// # Safety
    /// The caller is the column's only writer and holds no other reference to the list.
    #[inline]
    #[allow(clippy::mut_from_ref, reason = "the list is in an `UnsafeCell`; exclusivity is the caller's contract")]
    unsafe fn list(&self) -> &mut ChangeList {
        // SAFETY: per the caller.
        unsafe { &mut *self.list.get() }
    }

    #[inline]
    fn folded(&self) -> Tick {
        Tick(self.folded.load(Relaxed))
    }

    /// Records that `row`, a row of the column, was stamped with `tick`, the newest
    /// tick written to the column (it may have held `tick` already: a row is recorded
    /// once per tick however often it is written).
    ///
    /// # Safety
    /// `row` is a row of the column (the summary has [grown](Self::grow) to cover it);
    /// the caller is the column's only writer, and no one reads the summary meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn record(&self, row: usize, tick: Tick) {
        let (leaf, bit) = (row >> LEAF_SHIFT, 1u64 << (row & (LEAF - 1)));
        // SAFETY: forwarded from the caller.
        unsafe { self.record_bits(leaf, bit, tick) };
    }

    /// Records that the rows `bits` of leaf `leaf` were stamped with `tick`, the newest
    /// tick written to the column.
    ///
    /// # Safety
    /// As [`Summary::record`].
    #[inline(always)]
    unsafe fn record_bits(&self, leaf: usize, bits: u64, tick: Tick) {
        // The common case: the leaf has an entry at `tick` already, or the list's newest
        // segment is at `tick` (which is newer than `folded` by the list's definition).
        // SAFETY: the caller is the column's only writer; `leaf` is the column's, and the
        // list covers every leaf of the column (`grow`).
        let appended = unsafe { self.list().push_to_newest(leaf, bits, tick) };
        if !appended {
            // SAFETY: forwarded from the caller.
            unsafe { self.record_slow(leaf, bits, tick) };
        }
    }

    /// [`record`](Self::record) through a writer's `cursor` (see [`ListCursor`]): the
    /// row is appended there while the cursor has room; otherwise the cursor is closed,
    /// the row recorded, and the cursor opened again.
    ///
    /// # Safety
    /// As [`Summary::record`]; `cursor` is closed or was opened on this summary's list,
    /// which no one has used since but through it.
    #[inline(always)]
    pub(crate) unsafe fn record_through(&self, cursor: &ListCursor, row: usize, tick: Tick) {
        // SAFETY: forwarded from the caller.
        if !unsafe { cursor.push(row, tick) } {
            // SAFETY: forwarded from the caller.
            unsafe { self.reopen(cursor, row, tick) };
        }
    }

    /// [`record_through`](Self::record_through) when the cursor has no room.
    ///
    /// # Safety
    /// As [`Summary::record_through`].
    #[inline(never)]
    unsafe fn reopen(&self, cursor: &ListCursor, row: usize, tick: Tick) {
        // SAFETY: the caller is the column's only writer.
        let list = unsafe { self.list() };
        list.close(cursor);
        // SAFETY: forwarded from the caller; the cursor is closed.
        unsafe { self.record(row, tick) };
        // SAFETY: as above.
        unsafe { self.list() }.open(cursor, tick);
    }

    /// Makes what `cursor` appended the list's, and closes it.
    ///
    /// # Safety
    /// The caller is the column's only writer; `cursor` is closed or was opened on this
    /// summary's list, which no one has used since but through it.
    #[inline]
    pub(crate) unsafe fn close(&self, cursor: &ListCursor) {
        // SAFETY: per the caller.
        unsafe { self.list() }.close(cursor);
    }

    /// [`record_bits`](Self::record_bits) for a leaf that opens an entry in a new
    /// segment, into a full list, or at the tick the tree is complete up to.
    ///
    /// # Safety
    /// As [`Summary::record`].
    #[inline(never)]
    unsafe fn record_slow(&self, leaf: usize, bits: u64, tick: Tick) {
        // `tick` is the newest tick, so it is newer than `folded` unless equal to it.
        if self.folded() == tick {
            self.tree.stamp(leaf, tick);
            return;
        }
        // SAFETY: as in `record_bits`.
        let appended = unsafe { self.list().push(leaf, bits, tick) };
        if !appended {
            // SAFETY: forwarded from the caller.
            unsafe { self.make_room(leaf, bits, tick) };
        }
    }

    /// [`record_bits`](Self::record_bits) when the list is full: folds its oldest
    /// segments into the tree until the entry fits, or its own tick was folded.
    ///
    /// # Safety
    /// As [`Summary::record`].
    unsafe fn make_room(&self, leaf: usize, bits: u64, tick: Tick) {
        // SAFETY: forwarded from the caller.
        let list = unsafe { self.list() };
        while !list.is_empty() {
            // SAFETY: forwarded from the caller.
            unsafe { self.fold_oldest() };
            if self.folded() == tick {
                break;
            }
            // SAFETY: as in `record_bits`.
            if unsafe { list.push(leaf, bits, tick) } {
                return;
            }
        }
        // No room even in an empty list, or `tick`'s own segment was folded: the tree
        // takes it, and is then complete up to `tick`.
        self.tree.stamp(leaf, tick);
        self.folded.store(tick.0, Relaxed);
    }

    /// Records that the rows `written` of leaf `leaf` were written at `tick`, the newest
    /// tick written to the column, and stamps their ticks.
    ///
    /// # Safety
    /// `ticks` is the column's change ticks, `written` names rows among them; the
    /// caller is the column's only writer and no one else accesses these ticks
    /// meanwhile.
    #[inline(never)]
    pub(crate) unsafe fn stamp_leaf(&self, ticks: *mut Tick, leaf: usize, written: u64, tick: Tick) {
        // SAFETY: the rows are the caller's, and exclusively so; the caller is the
        // column's only writer.
        unsafe {
            stamp_rows(ticks, leaf * LEAF, written, tick);
            self.record_bits(leaf, written, tick);
        }
    }

    /// Records that every row of leaf `leaf` was written at `tick`, the newest tick (the
    /// caller stamped the leaf, or enough of its rows to take the leaf as a whole): the
    /// tree takes the leaf at `tick`, after the list is folded into it (whose changes
    /// are older or as old).
    ///
    /// # Safety
    /// As [`Summary::record`].
    #[inline(never)]
    pub(crate) unsafe fn stamp_whole_leaf(&self, leaf: usize, tick: Tick) {
        if self.folded() != tick {
            // SAFETY: forwarded from the caller.
            unsafe { self.fold_all(tick) };
        }
        self.tree.stamp(leaf, tick);
    }

    /// Folds the rows a parallel run's participants stamped with `tick` (the newest)
    /// into the tree: every leaf in `leaves` whose stamp (in `stamps`) or some row's
    /// tick (in `rows`) is `tick`.
    ///
    /// # Safety
    /// `rows` is the column's change ticks; the caller is the column's only writer.
    pub(crate) unsafe fn fold_rows(
        &self,
        rows: &[Tick],
        stamps: &[Tick],
        leaves: impl Iterator<Item = usize>,
        tick: Tick,
    ) {
        // SAFETY: `Tick` is a transparent `u32`.
        let raw = unsafe { std::slice::from_raw_parts(rows.as_ptr().cast::<u32>(), rows.len()) };
        let mut last = usize::MAX;
        for leaf in leaves {
            if leaf == last {
                continue;
            }
            last = leaf;
            let start = leaf * LEAF;
            let written = stamps.get(leaf) == Some(&tick)
                || (start < raw.len() && equal_mask(&raw[start..(start + LEAF).min(raw.len())], tick.0) != 0);
            if written {
                // SAFETY: forwarded from the caller.
                unsafe { self.stamp_whole_leaf(leaf, tick) };
            }
        }
    }

    /// Folds the oldest segment of the list into the tree: its tick, as the newest of
    /// each of its leaves. (A leaf whose rows were all written again since is stamped
    /// all the same: the tree's maxima are bounds, and reading a leaf with nothing at
    /// the stamped tick costs a reader that lags one scan of its rows, where checking
    /// here would cost every fold a read of each row's tick.)
    ///
    /// # Safety
    /// As [`Summary::record`].
    unsafe fn fold_oldest(&self) {
        // SAFETY: forwarded from the caller.
        let folded = unsafe { self.list() }.pop_oldest(|leaf, tick| self.tree.stamp(leaf, tick));
        if let Some(tick) = folded {
            self.folded.store(tick.0, Relaxed);
        }
    }

    /// Folds the whole list into the tree and marks the tree complete up to `now`, the
    /// newest tick.
    ///
    /// # Safety
    /// As [`Summary::record`].
    pub(crate) unsafe fn fold_all(&self, now: Tick) {
        // SAFETY: forwarded from the caller.
        let list = unsafe { self.list() };
        while !list.is_empty() {
            // SAFETY: forwarded from the caller.
            unsafe { self.fold_oldest() };
        }
        list.clear();
        self.folded.store(now.0, Relaxed);
    }

    /// Records that `row` now holds `tick` — a row pushed (spawned, or moved in from
    /// another table with its tick) or moved into a hole — judged from `now`. A
    /// removal folds the list first ([`fold_all`](Self::fold_all)).
    ///
    /// # Safety
    /// As [`Summary::record`].
    pub(crate) unsafe fn place(&self, row: usize, tick: Tick, now: Tick) {
        // SAFETY: forwarded from the caller.
        let list = unsafe { self.list() };
        let after_folded = tick.age(now) < self.folded().age(now);
        let in_order = list.newest().is_none_or(|newest| newest.age(now) >= tick.age(now));
        // SAFETY: `row` is a row of the column (caller), whose leaf the list covers
        // (`grow`).
        if after_folded && in_order && unsafe { list.push(row >> LEAF_SHIFT, 1u64 << (row & (LEAF - 1)), tick) } {
            return;
        }
        if after_folded {
            // Newer than the tree's changes but not in the list's order (or no room):
            // the tree takes everything.
            // SAFETY: forwarded from the caller.
            unsafe { self.fold_all(now) };
        }
        self.tree.raise(row, tick, now);
    }

    /// Calls `f` once for every row below `len` whose change tick — its own (in `ticks`,
    /// one per row) or its leaf's stamp (in `stamps`), the newer — is newer than
    /// `last_run`, in no particular order.
    ///
    /// # Safety
    /// `ticks` points to at least `len` ticks and `stamps` to one per leaf of them, the
    /// column's, and no one writes the column's ticks or summary during the call (the
    /// caller holds read access to the column, which excludes its writer).
    #[inline]
    pub(crate) unsafe fn for_each_new(
        &self,
        ticks: *const Tick,
        stamps: *const Tick,
        len: usize,
        last_run: Tick,
        this_run: Tick,
        f: &mut impl FnMut(usize),
    ) {
        // SAFETY: `ticks` holds `len` ticks (caller).
        let rows = unsafe { std::slice::from_raw_parts(ticks, len) };
        // SAFETY: no concurrent writer (caller), so the list is not being written.
        let list = unsafe { &*self.list.get() };
        let folded = self.folded();
        if last_run.age(this_run) > folded.age(this_run) {
            // The reader ran before `folded`: the tree has the changes up to it.
            // SAFETY: `Tick` is a transparent `u32`; the stamps are one per leaf; no
            // concurrent writer (caller).
            unsafe {
                let raw = std::slice::from_raw_parts(ticks.cast::<u32>(), len);
                let stamps = std::slice::from_raw_parts(stamps.cast::<u32>(), len.div_ceil(LEAF));
                self.tree.for_each_between(raw, stamps, last_run, folded, this_run, f);
            }
        }
        // The list's rows have no stamp newer than their own ticks: a whole-leaf write
        // folds the list into the tree.
        list.for_each_since(last_run, this_run, |row, tick| match tick {
            // Only the segment of the row's current tick reports it.
            Some(tick) => {
                if rows.get(row) == Some(&tick) {
                    f(row);
                }
            }
            // The newest segment's rows are at its tick.
            None => {
                debug_assert!(row < len, "listed rows are rows of the column");
                f(row);
            }
        });
    }

    /// Drops everything (the column was cleared).
    pub(crate) fn clear(&mut self) {
        self.tree.clear();
        self.list.get_mut().clear();
    }

    /// Applies tick maintenance, after folding the list into the tree: `folded` is then
    /// never more than one maintenance interval old, which the tree's test of "not newer
    /// than `folded`" relies on (a row tick newer than `folded` must not wrap around to
    /// look older). The remap keeps order, so maxima stay maxima; the list's table of
    /// newest entries is reset rather than remapped.
    pub(crate) fn remap(&mut self, remap: &super::Remap) {
        // SAFETY: `&mut self`: no one else uses the summary.
        unsafe { self.fold_all(remap.now()) };
        self.list.get_mut().forget_all(remap.now());
        self.tree.remap(remap);
        let folded = self.folded.get_mut();
        *folded = remap.apply(Tick(*folded)).0;
    }

    /// Bytes held.
    pub(crate) fn heap_bytes(&self) -> usize {
        // SAFETY: `&self` here is not shared with a writer of the list (callers hold the
        // world), and only its size is read.
        let list = unsafe { &*self.list.get() }.heap_bytes();
        self.tree.heap_bytes() + list
    }
}

/// Stamps the rows `written` of the leaf starting at row `start` with `tick`.
///
/// # Safety
/// The rows are valid and the caller's alone.
#[inline]
pub(crate) unsafe fn stamp_rows(ticks: *mut Tick, start: usize, written: u64, tick: Tick) {
    // SAFETY: per the caller.
    unsafe {
        if written == u64::MAX {
            std::slice::from_raw_parts_mut(ticks.add(start), LEAF).fill(tick);
        } else {
            let mut bits = written;
            while bits != 0 {
                *ticks.add(start + bits.trailing_zeros() as usize) = tick;
                bits &= bits - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A column's ticks with their summary, driven the way the column drives them.
    struct Column {
        ticks: Vec<Tick>,
        summary: Summary,
        now: Tick,
    }

    impl Column {
        fn new(rows: usize) -> Column {
            let now = Tick(10);
            let ticks = vec![Tick(3); rows];
            Column { summary: Summary::build(&ticks, now), ticks, now }
        }

        fn write(&mut self, row: usize) {
            let tick = self.now;
            self.ticks[row] = tick;
            // SAFETY: the test is the column's only user.
            unsafe { self.summary.record(row, tick) };
        }

        fn write_leaf(&mut self, leaf: usize, bits: u64) {
            let start = leaf * LEAF;
            let valid = self.ticks.len().saturating_sub(start).min(LEAF);
            let bits = if valid == LEAF { bits } else { bits & ((1u64 << valid) - 1) };
            // SAFETY: as above; the bits name rows of the column.
            unsafe { self.summary.stamp_leaf(self.ticks.as_mut_ptr(), leaf, bits, self.now) };
        }

        fn parallel(&mut self, rows: &[usize]) {
            for &row in rows {
                self.ticks[row] = self.now;
            }
            let leaves: Vec<usize> = rows.iter().map(|row| row / LEAF).collect();
            let stamps = self.stamps();
            // SAFETY: as above.
            unsafe { self.summary.fold_rows(&self.ticks, &stamps, leaves.into_iter(), self.now) };
        }

        fn push(&mut self, age: u32) {
            let tick = Tick(self.now.0 - age.min(self.now.0 - 3));
            self.ticks.push(tick);
            self.summary.grow(self.ticks.len(), self.now);
            // SAFETY: as above.
            unsafe { self.summary.place(self.ticks.len() - 1, tick, self.now) };
        }

        fn remove(&mut self, row: usize) {
            // SAFETY: as above.
            unsafe { self.summary.fold_all(self.now) };
            self.ticks.swap_remove(row);
            if row < self.ticks.len() {
                // SAFETY: as above.
                unsafe { self.summary.place(row, self.ticks[row], self.now) };
            }
        }

        /// No leaf stamps: the column's tests (`column_ticks.rs`) cover them.
        fn stamps(&self) -> Vec<Tick> {
            vec![Tick::oldest(self.now); self.ticks.len().div_ceil(LEAF)]
        }

        /// What a reader that last ran at `last_run` finds, checked against the ticks.
        fn read(&mut self, last_run: Tick) -> Tick {
            let this_run = self.now;
            let mut found = Vec::new();
            let stamps = self.stamps();
            // SAFETY: nothing writes during the call.
            unsafe {
                self.summary.for_each_new(
                    self.ticks.as_ptr(),
                    stamps.as_ptr(),
                    self.ticks.len(),
                    last_run,
                    this_run,
                    &mut |row| found.push(row),
                )
            };
            let reported = found.len();
            found.sort_unstable();
            found.dedup();
            assert_eq!(found.len(), reported, "a row reported twice");
            let want: Vec<usize> =
                (0..self.ticks.len()).filter(|&r| self.ticks[r].is_newer_than(last_run, this_run)).collect();
            assert_eq!(found, want, "reader that last ran at {last_run:?}, now {this_run:?}");
            // Every tree entry covers the rows below it that are not newer than `folded`.
            let levels = self.summary.tree.levels();
            let folded = self.summary.folded();
            for (row, tick) in self.ticks.iter().enumerate() {
                if !tick.is_newer_than(folded, this_run) {
                    let max = Tick(levels[0][row / LEAF]);
                    assert!(max.age(this_run) <= tick.age(this_run), "row {row}'s leaf");
                }
            }
            self.now = Tick(this_run.0 + 1);
            this_run
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Write(usize),
        WriteLeaf(usize, u64),
        Parallel(Vec<usize>),
        Push(u32),
        Remove(usize),
        Tick,
        Read(usize),
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            8 => any::<usize>().prop_map(Op::Write),
            2 => (any::<usize>(), any::<u64>()).prop_map(|(leaf, bits)| Op::WriteLeaf(leaf, bits)),
            1 => prop::collection::vec(any::<usize>(), 0..20).prop_map(Op::Parallel),
            2 => (0u32..6).prop_map(Op::Push),
            1 => any::<usize>().prop_map(Op::Remove),
            3 => Just(Op::Tick),
            3 => (0usize..3).prop_map(Op::Read),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

        #[test]
        fn every_reader_finds_exactly_the_rows_changed_since_its_last_run(
            rows in 1usize..300,
            ops in prop::collection::vec(op(), 1..400),
        ) {
            let mut column = Column::new(rows);
            // Three readers: every one starts having seen the initial ticks.
            let mut last_runs = [Tick(9); 3];
            for op in ops {
                let len = column.ticks.len();
                match op {
                    Op::Write(row) if len > 0 => column.write(row % len),
                    Op::WriteLeaf(leaf, bits) if len > 0 => column.write_leaf(leaf % len.div_ceil(LEAF), bits),
                    Op::Parallel(rows) if len > 0 => column.parallel(&rows.iter().map(|r| r % len).collect::<Vec<_>>()),
                    Op::Push(age) => column.push(age),
                    Op::Remove(row) if len > 0 => column.remove(row % len),
                    Op::Tick => column.now = Tick(column.now.0 + 1),
                    Op::Read(reader) => last_runs[reader] = column.read(last_runs[reader]),
                    _ => {}
                }
            }
            for last_run in last_runs {
                column.read(last_run);
            }
        }
    }

    #[test]
    fn a_tick_that_writes_every_row_stays_in_the_list_and_repeats_cost_nothing() {
        // The list holds an entry for every leaf at two ticks: a tick that writes every
        // row, each twice, keeps its own segment (one entry per leaf, not per write),
        // and the tick after it too; a reader finds each row once.
        let rows = 4096;
        let mut column = Column::new(rows);
        let last_run = column.read(Tick(9));
        for _ in 0..2 {
            for row in (0..rows).chain((0..rows).rev()) {
                column.write(row);
            }
            // SAFETY: nothing writes meanwhile.
            let listed = unsafe { &*column.summary.list.get() }.len();
            assert!(!column.summary.folded().is_newer_than(last_run, column.now), "the list overflowed");
            assert!(listed <= 2 * rows / LEAF, "{listed} entries for {} leaves", rows / LEAF);
            column.now = Tick(column.now.0 + 1);
        }
        column.read(last_run);
    }

    #[test]
    fn writes_after_their_own_tick_was_folded_reach_the_tree() {
        // A whole-leaf write folds the list and makes the tree complete up to its tick;
        // a single write at that tick afterwards goes to the tree, and a reader that
        // last ran before finds it.
        let mut column = Column::new(512);
        let last_run = column.read(Tick(9));
        column.write(5);
        column.parallel(&[64]);
        assert_eq!(column.summary.folded(), column.now, "the parallel fold completed the tree");
        column.write(3 * LEAF + 7);
        // SAFETY: nothing writes meanwhile.
        assert!(unsafe { &*column.summary.list.get() }.is_empty(), "the lone write went to the tree");
        column.read(last_run);
    }

    #[test]
    fn a_reader_that_runs_every_frame_reads_only_the_list() {
        // 1,000 rows, 100 scattered writes a frame: the list (125 entries) holds a frame,
        // and a reader that ran after the last fold never needs the tree.
        let mut column = Column::new(1000);
        let mut last_run = column.read(Tick(9));
        for frame in 0..50 {
            for i in 0..100 {
                column.write((i * 10 + frame) % 1000);
            }
            let folded = column.summary.folded();
            assert!(!folded.is_newer_than(last_run, column.now), "frame {frame}: folded past the reader's last run");
            last_run = column.read(last_run);
        }
        assert!(column.summary.folded().0 > 10, "the list overflowed and was folded meanwhile");
    }
}
