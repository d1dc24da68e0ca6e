//! [`Summary`]: what a tracked column keeps, besides its per-row change ticks, so that
//! a reader finds the rows changed since its last run in time that follows what
//! changed, not the column's length.
//!
//! Two structures, split at one tick, `folded`:
//!
//! - the [`ChangeList`] holds every change newer than `folded`: the rows written, one
//!   segment per tick. Scattered writes (a few rows here and there, the usual frame of
//!   a game) cost one append each, and a reader that ran after `folded` — one that
//!   runs every frame — reads only the list: per changed row, one entry and the row's
//!   tick.
//! - the tree of [`Maxima`] holds every change up to `folded`. Changes reach it when
//!   the list is full (its oldest segment is folded in; rows written again since are
//!   skipped), when a row moves (a removal folds the whole list, whose rows would
//!   otherwise name the wrong rows), and when a run writes dense leaves (a leaf of 64
//!   rows at once costs one update of the tree, where the list would take 64 entries).
//!   A reader that last ran before `folded` walks the tree for ticks up to `folded`
//!   and reads the whole list for the rest.
//!
//! So each change is in exactly one of the two, and a reader visits each changed
//! row once: the list reports a row from the segment of its current tick only, and
//! the tree reports only rows whose tick is not newer than `folded`.
//!
//! One exception, the *overflow*: when one tick's writes fill the whole list (at least
//! one row in [`SCAN_RATIO`], so every reader that has not seen them scans, below), the
//! rest of that tick's writes are recorded nowhere but in the row ticks, and the tick
//! is kept as `overflow`: a reader that last ran before it scans. Recording them would
//! cost each write a step through the tree that no reader would ever use.
//!
//! When the list holds one change per [`SCAN_RATIO`] rows or more since a reader's last
//! run, the reader scans every row's tick instead, in row order: O(N), but sequential,
//! where the list's rows come in write order and each costs a random access (at a
//! million rows, a cache miss or two). The scan reads the ticks themselves, so it is
//! exact whatever the summary holds.
//!
//! Only the column's single writer changes the summary — through a shared reference,
//! while the access rules keep readers out — so the list sits in an `UnsafeCell` and
//! `folded` in an atomic.

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use super::change_list::{ChangeList, ListCursor};
use super::tick::Tick;
use super::tree::{LEAF, LEAF_SHIFT, Maxima, equal_mask, for_each_newer_in_order};

/// A reader that has at least one listed change per this many rows scans every row's
/// tick in order instead of following the list (see [`Summary::for_each_new`]). Measured
/// with a renderer reading each changed row's values (`frame_profile`): at a million
/// rows the scan costs 11 ns per change at 10 % and 46 ns at 4 %, the list 29 and 31;
/// at 100,000 rows the two meet near 7–10 %.
const SCAN_RATIO: usize = 12;

/// A leaf with at least this many rows written at once goes to the tree in one update
/// rather than to the list row by row.
const DENSE: u32 = 8;

/// See the module docs.
pub struct Summary {
    tree: Maxima,
    /// Written only by the column's single writer (the same exclusion that guards the
    /// row ticks), read by readers while no writer runs.
    list: UnsafeCell<ChangeList>,
    /// Every change to a tick not newer than this is in the tree, every newer one in
    /// the list, but for the changes at `overflow`.
    folded: AtomicU32,
    /// The newest tick whose changes overflowed (see the module docs), in the low 32
    /// bits; [`NO_OVERFLOW`] if none has.
    overflow: AtomicU64,
}

/// `Summary::overflow` when no tick has overflowed.
const NO_OVERFLOW: u64 = u64::MAX;

impl Default for Summary {
    fn default() -> Summary {
        Summary {
            tree: Maxima::default(),
            list: UnsafeCell::default(),
            folded: AtomicU32::new(0),
            overflow: AtomicU64::new(NO_OVERFLOW),
        }
    }
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
        let leaves = self.tree.leaves();
        self.tree.grow(rows, now);
        if self.tree.leaves() != leaves {
            // A fifth of an entry per row (0.8 bytes): scattered writes of up to a tenth
            // of the rows per frame stay in the list for two frames, by which time rows
            // written every frame are written again and cost the fold nothing.
            let capacity = (rows / 5).max(64);
            self.list.get_mut().reserve(capacity, (capacity / 64).max(8));
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

    /// The newest tick whose changes overflowed, if one has.
    #[inline]
    fn overflow(&self) -> Option<Tick> {
        let overflow = self.overflow.load(Relaxed);
        (overflow != NO_OVERFLOW).then_some(Tick(overflow as u32))
    }

    /// Records that `row` was stamped with `tick`, the newest tick written to the
    /// column, and did not hold it before.
    ///
    /// # Safety
    /// `ticks` is the column's change ticks (one per row, `row` among them); the caller
    /// is the column's only writer and no one else reads the ticks meanwhile.
    #[inline(always)]
    pub(crate) unsafe fn record(&self, ticks: *const Tick, row: usize, tick: Tick) {
        // The common case: another row written at the tick of the list's newest segment,
        // which is newer than `folded` by the list's definition.
        // SAFETY: the caller is the column's only writer.
        let appended = unsafe { self.list() }.push_to_newest(row, tick);
        if !appended {
            // SAFETY: forwarded from the caller.
            unsafe { self.record_slow(ticks, row, tick) };
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
    pub(crate) unsafe fn record_through(&self, cursor: &ListCursor, ticks: *const Tick, row: usize, tick: Tick) {
        // SAFETY: forwarded from the caller.
        if !unsafe { cursor.push(row) } {
            // SAFETY: forwarded from the caller.
            unsafe { self.reopen(cursor, ticks, row, tick) };
        }
    }

    /// [`record_through`](Self::record_through) when the cursor has no room.
    ///
    /// # Safety
    /// As [`Summary::record_through`].
    #[inline(never)]
    unsafe fn reopen(&self, cursor: &ListCursor, ticks: *const Tick, row: usize, tick: Tick) {
        // SAFETY: the caller is the column's only writer.
        let list = unsafe { self.list() };
        list.close(cursor);
        // SAFETY: forwarded from the caller; the cursor is closed.
        unsafe { self.record(ticks, row, tick) };
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

    /// [`record`](Self::record) for a row that opens a segment, into a full list, or at
    /// the tick the tree is complete up to.
    ///
    /// # Safety
    /// As [`Summary::record`].
    #[inline(never)]
    unsafe fn record_slow(&self, ticks: *const Tick, row: usize, tick: Tick) {
        // `tick` is the newest tick, so it is newer than `folded` unless equal to it.
        if self.folded() == tick {
            if self.overflow() != Some(tick) {
                self.tree.stamp(row >> LEAF_SHIFT, tick);
            }
            return;
        }
        // SAFETY: the caller is the column's only writer.
        let appended = unsafe { self.list() }.push(row, tick);
        if !appended {
            // SAFETY: forwarded from the caller.
            unsafe { self.make_room(ticks, row, tick) };
        }
    }

    /// [`record`](Self::record) when the list is full: folds its oldest segments into
    /// the tree until `row` fits, or its own tick's segment was folded: then the tick
    /// overflows (see the module docs).
    ///
    /// # Safety
    /// As [`Summary::record`].
    unsafe fn make_room(&self, ticks: *const Tick, row: usize, tick: Tick) {
        // SAFETY: forwarded from the caller.
        let list = unsafe { self.list() };
        let mut own = 0;
        while !list.is_empty() {
            // SAFETY: forwarded from the caller.
            let folded = unsafe { self.fold_oldest(ticks) };
            if self.folded() == tick {
                own = folded;
                break;
            }
            if list.push(row, tick) {
                return;
            }
        }
        self.folded.store(tick.0, Relaxed);
        if own.saturating_mul(SCAN_RATIO) >= self.tree.leaves() * LEAF {
            // `tick`'s own writes filled the list: enough that every reader that has not
            // seen them scans the rows, so the rest of them are left to the row ticks.
            self.overflow.store(u64::from(tick.0), Relaxed);
            return;
        }
        // A list too short for its own tick's rows to mean a scan (not one `grow`
        // reserves: it holds a fifth of the rows): the tree takes the row, and is then
        // complete up to `tick`.
        self.tree.stamp(row >> LEAF_SHIFT, tick);
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
        let start = leaf * LEAF;
        if written.count_ones() >= DENSE {
            // SAFETY: the rows are the caller's, and exclusively so.
            unsafe {
                stamp_rows(ticks, start, written, tick);
                self.stamp_whole_leaf(ticks, leaf, tick);
            }
            return;
        }
        let mut bits = written;
        while bits != 0 {
            let row = start + bits.trailing_zeros() as usize;
            bits &= bits - 1;
            // SAFETY: the row is the caller's, and exclusively so.
            unsafe {
                let slot = ticks.add(row);
                if *slot != tick {
                    *slot = tick;
                    self.record(ticks, row, tick);
                }
            }
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
    pub(crate) unsafe fn stamp_whole_leaf(&self, ticks: *const Tick, leaf: usize, tick: Tick) {
        if self.folded() != tick {
            // SAFETY: forwarded from the caller.
            unsafe { self.fold_all(ticks, tick) };
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
                unsafe { self.stamp_whole_leaf(rows.as_ptr(), leaf, tick) };
            }
        }
    }

    /// Folds the oldest segment of the list into the tree: the rows still at its tick
    /// (a row written again since is listed in a newer segment). Returns how many rows
    /// the segment listed.
    ///
    /// # Safety
    /// As [`Summary::record`].
    unsafe fn fold_oldest(&self, ticks: *const Tick) -> usize {
        let mut listed = 0;
        // SAFETY: forwarded from the caller.
        let folded = unsafe { self.list() }.pop_oldest(|row, tick| {
            listed += 1;
            // SAFETY: listed rows are rows of the column (a removal folds the list before
            // it moves any row), and the writer may read their ticks (caller).
            if unsafe { *ticks.add(row) } == tick {
                self.tree.stamp(row >> LEAF_SHIFT, tick);
            }
        });
        if let Some(tick) = folded {
            self.folded.store(tick.0, Relaxed);
        }
        listed
    }

    /// Folds the whole list into the tree and marks the tree complete up to `now`, the
    /// newest tick.
    ///
    /// # Safety
    /// As [`Summary::record`].
    pub(crate) unsafe fn fold_all(&self, ticks: *const Tick, now: Tick) {
        // SAFETY: forwarded from the caller.
        let list = unsafe { self.list() };
        while !list.is_empty() {
            // SAFETY: forwarded from the caller.
            unsafe { self.fold_oldest(ticks) };
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
    pub(crate) unsafe fn place(&self, ticks: *const Tick, row: usize, tick: Tick, now: Tick) {
        // SAFETY: forwarded from the caller.
        let list = unsafe { self.list() };
        let after_folded = tick.age(now) < self.folded().age(now);
        let in_order = list.newest().is_none_or(|newest| newest.age(now) >= tick.age(now));
        if after_folded && in_order && list.push(row, tick) {
            return;
        }
        if after_folded {
            // Newer than the tree's changes but not in the list's order (or no room):
            // the tree takes everything.
            // SAFETY: forwarded from the caller.
            unsafe { self.fold_all(ticks, now) };
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
        // SAFETY: `ticks` holds `len` ticks and `stamps` one per leaf of them (caller);
        // `Tick` is a transparent `u32`; no concurrent writer (caller), so neither they
        // nor the list are being written.
        let (rows, raw, stamps, list) = unsafe {
            (
                std::slice::from_raw_parts(ticks, len),
                std::slice::from_raw_parts(ticks.cast::<u32>(), len),
                std::slice::from_raw_parts(stamps.cast::<u32>(), len.div_ceil(LEAF)),
                &*self.list.get(),
            )
        };
        let first = list.first_since(last_run, this_run);
        let missed_overflow = self.overflow().is_some_and(|overflow| last_run.age(this_run) > overflow.age(this_run));
        if missed_overflow || list.count_from(first).saturating_mul(SCAN_RATIO) >= len {
            // Many changes: the list's rows come in write order, each a random access
            // (its tick, then the caller's read of its values), where a scan of every
            // row's tick visits them, and lets the caller read them, front to back. (A
            // reader that missed an overflow must scan: the list and tree lack some of
            // that tick's rows.)
            for_each_newer_in_order(raw, stamps, last_run, this_run, f);
            return;
        }
        let folded = self.folded();
        if last_run.age(this_run) > folded.age(this_run) {
            // The reader ran before `folded`: the tree has the changes up to it.
            // SAFETY: no concurrent writer (caller).
            unsafe { self.tree.for_each_between(raw, stamps, last_run, folded, this_run, f) };
        }
        // The list's rows have no stamp newer than their own ticks: a whole-leaf write
        // folds the list into the tree.
        list.for_each_from(first, |row, tick| match tick {
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
        *self.overflow.get_mut() = NO_OVERFLOW;
    }

    /// Applies tick maintenance, after folding the list into the tree: `folded` is then
    /// never more than one maintenance interval old, which the tree's test of "not newer
    /// than `folded`" relies on (a row tick newer than `folded` must not wrap around to
    /// look older). The remap keeps order, so maxima stay maxima.
    ///
    /// # Safety
    /// `ticks` is the column's change ticks (before the remap), borrowed exclusively.
    pub(crate) unsafe fn remap(&mut self, ticks: *const Tick, remap: &super::Remap) {
        // SAFETY: forwarded from the caller.
        unsafe { self.fold_all(ticks, remap.now()) };
        self.tree.remap(remap);
        let folded = self.folded.get_mut();
        *folded = remap.apply(Tick(*folded)).0;
        let overflow = self.overflow.get_mut();
        if *overflow != NO_OVERFLOW {
            *overflow = u64::from(remap.apply(Tick(*overflow as u32)).0);
        }
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
            if std::mem::replace(&mut self.ticks[row], tick) != tick {
                // SAFETY: the test is the column's only user.
                unsafe { self.summary.record(self.ticks.as_ptr(), row, tick) };
            }
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
            unsafe { self.summary.place(self.ticks.as_ptr(), self.ticks.len() - 1, tick, self.now) };
        }

        fn remove(&mut self, row: usize) {
            // SAFETY: as above.
            unsafe { self.summary.fold_all(self.ticks.as_ptr(), self.now) };
            self.ticks.swap_remove(row);
            if row < self.ticks.len() {
                // SAFETY: as above.
                unsafe { self.summary.place(self.ticks.as_ptr(), row, self.ticks[row], self.now) };
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
            // Every tree entry covers the rows below it that are not newer than `folded`,
            // but for those not newer than the last overflow (which only scanning
            // readers look for).
            let levels = self.summary.tree.levels();
            let folded = self.summary.folded();
            let overflow = self.summary.overflow();
            for (row, tick) in self.ticks.iter().enumerate() {
                let overflowed = overflow.is_some_and(|overflow| !tick.is_newer_than(overflow, this_run));
                if !tick.is_newer_than(folded, this_run) && !overflowed {
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
        /// `count` writes from a row on, one row in three: enough, at one tick, to
        /// overflow the list.
        Burst(usize, usize),
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
            1 => (any::<usize>(), 0usize..200).prop_map(|(start, count)| Op::Burst(start, count)),
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
                    Op::Burst(start, count) if len > 0 => (0..count).for_each(|i| column.write((start + 3 * i) % len)),
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
    fn a_tick_whose_writes_overflow_the_list_is_left_to_the_row_ticks() {
        // 1,000 rows, a list of 200 entries: a tick that writes 300 rows fills the list
        // with its own rows, and the rest are recorded only in the row ticks. A reader
        // that missed the tick scans; one that saw it reads the list.
        let mut column = Column::new(1000);
        let mut saw_it = column.read(Tick(9));
        let missed_it = saw_it;
        column.now = Tick(11);
        // The list's 200 in the first leaves, the rest in leaves of their own (which
        // only the row ticks know of).
        for row in (0..200).chain(500..600) {
            column.write(row);
        }
        assert_eq!(column.summary.overflow(), Some(column.now), "300 writes of one tick overflowed");
        assert_eq!(column.summary.folded(), column.now);
        // The overflow's rows are found (`read` checks against the row ticks).
        saw_it = column.read(saw_it);
        for i in 0..5 {
            column.write(i * 100 + 1);
        }
        column.read(saw_it);
        column.read(missed_it);
        // A later tick writes a row the overflow wrote, and one it did not, at a tick
        // that goes to the tree (a removal folds the list): a reader between the two
        // ticks reads the tree, not the overflowed rows.
        let between = column.read(saw_it);
        column.write(7);
        column.write(8);
        column.remove(999);
        column.write(9);
        column.read(between);
        column.read(missed_it);
    }

    #[test]
    fn a_reader_that_runs_every_frame_reads_only_the_list() {
        // 1,000 rows, 50 scattered writes a frame (below the scan's threshold of one
        // change per `SCAN_RATIO` rows): the list (200 entries) holds a few frames, and a
        // reader that ran after the last fold never needs the tree.
        const { assert!(50 * SCAN_RATIO < 1000) };
        let mut column = Column::new(1000);
        let mut last_run = column.read(Tick(9));
        for frame in 0..100 {
            for i in 0..50 {
                column.write((i * 20 + frame) % 1000);
            }
            let folded = column.summary.folded();
            assert!(!folded.is_newer_than(last_run, column.now), "frame {frame}: folded past the reader's last run");
            last_run = column.read(last_run);
        }
        assert!(column.summary.folded().0 > 10, "the list overflowed and was folded meanwhile");
    }
}
