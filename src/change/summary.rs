//! The hierarchy of per-block maxima over a column's per-row change ticks.
//!
//! Level 0 holds one entry per *leaf block* of [`LEAF`] rows, level 1 one per block of
//! [`FANOUT`] level-0 entries, and so on up to a level with a single entry. Every
//! entry is at least as new as every tick below it (it may be newer: after a row is
//! removed its block keeps the old maximum, which only costs a wasted descent).
//!
//! Each leaf block also keeps the *mask* of its rows whose tick equals the block's
//! maximum, and *prev*, a tick at least as new as every other row of the block. A
//! reader whose last run is not older than `prev` takes the mask as the exact set of
//! new rows without reading the rows' ticks: in the steady state (a reader that runs
//! every frame) that is every block, so finding a changed row costs no cache miss on
//! the tick column.
//!
//! In front of the tree sits a *leaf log*: every time a leaf's maximum advances to a
//! new tick, `(leaf, tick)` is appended, so the log is in tick order. A reader whose
//! last run the log still covers finds its window by binary search and visits exactly
//! the leaves listed there, with no tree walk at all; a leaf counts once, when its
//! current maximum equals the entry's tick. The log has a fixed capacity (one entry
//! per leaf) and forgets its oldest entries; whatever it cannot answer, the tree does.
//!
//! Entries are atomics so that a reader can share the column with other readers;
//! writers either hold the column exclusively (a run with write access that marks as
//! it goes), or only stamp row ticks during a parallel run and fold them into the
//! summary afterwards ([`Summary::fold_rows`]).

use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use super::tick::Tick;

/// Rows per leaf block (one bit each in a `u64` mask).
pub(crate) const LEAF: usize = 64;
const LEAF_SHIFT: u32 = LEAF.trailing_zeros();
/// Children per inner entry.
pub(crate) const FANOUT: usize = 16;
const SHIFT: u32 = FANOUT.trailing_zeros();

/// The test "newer than the last run", as numbers: `this_run - tick < since`.
#[derive(Clone, Copy)]
struct Scan {
    this_run: u32,
    since: u32,
}

impl Scan {
    #[inline]
    fn is_new(self, tick: u32) -> bool {
        self.this_run.wrapping_sub(tick) < self.since
    }

    /// Bit `i` set if `ticks[i]` is new (`ticks.len() <= 16`).
    #[inline(always)]
    fn mask(self, ticks: &[u32]) -> u32 {
        if let Ok(block) = <&[u32; FANOUT]>::try_from(ticks) {
            return simd::newer_mask16(block, self.this_run, self.since);
        }
        let mut mask = 0u32;
        for (i, &tick) in ticks.iter().enumerate() {
            mask |= u32::from(self.is_new(tick)) << i;
        }
        mask
    }

    /// Bit `i` set if `ticks[i]` is new (`ticks.len() <= 64`).
    #[inline]
    fn leaf_mask(self, ticks: &[u32]) -> u64 {
        let mut mask = 0u64;
        for (chunk, part) in ticks.chunks(FANOUT).enumerate() {
            mask |= u64::from(self.mask(part)) << (chunk * FANOUT);
        }
        mask
    }
}

/// Bit `i` set if `ticks[i] == tick` (`ticks.len() <= 64`).
#[inline(always)]
fn equal_mask(ticks: &[u32], tick: u32) -> u64 {
    let mut mask = 0u64;
    for (chunk, part) in ticks.chunks(FANOUT).enumerate() {
        let bits = match <&[u32; FANOUT]>::try_from(part) {
            Ok(block) => simd::equal_mask16(block, tick),
            Err(_) => part.iter().enumerate().fold(0u32, |bits, (i, &t)| bits | (u32::from(t == tick) << i)),
        };
        mask |= u64::from(bits) << (chunk * FANOUT);
    }
    mask
}

/// Sixteen-tick tests as bitmasks: SSE2 compares and `movemask` on x86_64 (part of
/// its baseline), a plain loop elsewhere.
mod simd {
    /// Bit `i` set if `this_run - ticks[i] < since` (wrapping).
    #[inline(always)]
    pub(super) fn newer_mask16(ticks: &[u32; 16], this_run: u32, since: u32) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            // SAFETY: SSE2 is part of the x86_64 baseline; the loads read 16 bytes at
            // offsets 0, 4, 8 and 12 of a 16-element array, unaligned loads allowed.
            unsafe {
                let sign = _mm_set1_epi32(i32::MIN);
                let now = _mm_set1_epi32(this_run as i32);
                // Unsigned `age < since` as a signed compare on sign-flipped values.
                let since = _mm_xor_si128(_mm_set1_epi32(since as i32), sign);
                let mut mask = 0u32;
                for quad in 0..4 {
                    let values = _mm_loadu_si128(ticks.as_ptr().add(quad * 4).cast());
                    let age = _mm_xor_si128(_mm_sub_epi32(now, values), sign);
                    let newer = _mm_cmplt_epi32(age, since);
                    mask |= (_mm_movemask_ps(_mm_castsi128_ps(newer)) as u32) << (quad * 4);
                }
                mask
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let mut mask = 0u32;
            for (i, &tick) in ticks.iter().enumerate() {
                mask |= u32::from(this_run.wrapping_sub(tick) < since) << i;
            }
            mask
        }
    }

    /// Bit `i` set if `ticks[i] == tick`.
    #[inline(always)]
    pub(super) fn equal_mask16(ticks: &[u32; 16], tick: u32) -> u32 {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::*;
            // SAFETY: as in `newer_mask16`.
            unsafe {
                let wanted = _mm_set1_epi32(tick as i32);
                let mut mask = 0u32;
                for quad in 0..4 {
                    let values = _mm_loadu_si128(ticks.as_ptr().add(quad * 4).cast());
                    let equal = _mm_cmpeq_epi32(values, wanted);
                    mask |= (_mm_movemask_ps(_mm_castsi128_ps(equal)) as u32) << (quad * 4);
                }
                mask
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            let mut mask = 0u32;
            for (i, &t) in ticks.iter().enumerate() {
                mask |= u32::from(t == tick) << i;
            }
            mask
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;

        #[test]
        fn simd_masks_match_the_plain_definition() {
            let now = 1000u32;
            let ticks: [u32; 16] = [0, 999, 1000, 5, u32::MAX, 998, 1000, 1, 2, 997, 990, 0, 1000, 999, 3, 4];
            for since in [0u32, 1, 2, 3, 10, 1000, u32::MAX] {
                let want =
                    ticks.iter().enumerate().fold(0u32, |m, (i, &t)| m | (u32::from(now.wrapping_sub(t) < since) << i));
                assert_eq!(newer_mask16(&ticks, now, since), want, "since {since}");
            }
            for tick in [0u32, 1000, 999, 7] {
                let want = ticks.iter().enumerate().fold(0u32, |m, (i, &t)| m | (u32::from(t == tick) << i));
                assert_eq!(equal_mask16(&ticks, tick), want);
            }
        }
    }
}

/// Per leaf block: `prev`, at least as new as every row not in `mask`, and `mask`, the
/// rows whose tick equals the block's maximum. Kept together: one cache line serves
/// a reader that finds the block new.
#[derive(Default)]
#[repr(C, align(16))]
struct LeafBits {
    prev: AtomicU32,
    mask: AtomicU64,
}

/// Leaves whose maximum advanced, oldest first.
///
/// Invariant: every leaf whose maximum is newer than `covers_after` has an entry
/// `(leaf, maximum)`. A reader that last ran at or after `covers_after` therefore finds
/// every leaf it must visit among the entries newer than its last run. `covers_after`
/// only moves forward (until the log restarts, covering only what comes after the
/// newest tick): moving it back would vouch for leaves that were never logged, such
/// as those a growth created at its fill tick.
#[derive(Default)]
struct LeafLog {
    /// `(leaf, tick)`: the leaf's maximum became `tick`, newer than `covers_after`.
    /// Ticks never decrease.
    entries: VecDeque<(u32, u32)>,
    /// See the invariant; `None` until the log has begun (it then answers nothing).
    covers_after: Option<Tick>,
}

impl LeafLog {
    /// Covers only what comes after `after` (or after the current bound, if newer) and
    /// drops the entries that no reader the log answers can need any more.
    fn cover_after(&mut self, after: Tick, now: Tick) {
        let after = self.covers_after.map_or(after, |current| newest(current, after, now));
        self.covers_after = Some(after);
        while self.entries.front().is_some_and(|&(_, tick)| Tick(tick).age(now) >= after.age(now)) {
            self.entries.pop_front();
        }
    }
}

/// Per-block maxima of one column's change ticks.
#[derive(Default)]
pub struct Summary {
    /// `levels[0][b]`: the newest tick of leaf block `b`; `levels[k]`: the newest of
    /// each group of `FANOUT` entries of level `k - 1`.
    levels: Vec<Vec<AtomicU32>>,
    /// Per leaf block: see [`LeafBits`].
    leaves: Vec<LeafBits>,
    /// Written only by the column's single writer (the same exclusion that guards
    /// the row ticks), read by readers while no writer runs.
    log: UnsafeCell<LeafLog>,
}

/// A tick old enough to bound nothing: exactly [`Tick::MAX_AGE`] old at `now`, so it
/// ages like any stored tick and tick maintenance treats it as one.
#[inline]
fn oldest(now: Tick) -> Tick {
    Tick(now.0.wrapping_sub(Tick::MAX_AGE))
}

/// The newer of two ticks, seen from `now`.
#[inline]
fn newest(a: Tick, b: Tick, now: Tick) -> Tick {
    if a.age(now) <= b.age(now) { a } else { b }
}

impl Summary {
    /// Makes room for `rows` rows. New entries start at `fill`, which must be at least
    /// as new as every tick they will cover until raised; their ancestors are raised
    /// to `fill` so every entry stays at least as new as its children.
    pub(crate) fn grow(&mut self, rows: usize, fill: Tick) {
        let mut needed = rows.div_ceil(LEAF).max(1);
        if self.leaves.len() >= needed {
            // Every level is sized with the leaves, in this function only: nothing to do
            // (the common case, on every push into a tracked column).
            return;
        }
        while self.leaves.len() < needed {
            self.leaves.push(LeafBits { prev: AtomicU32::new(oldest(fill).0), mask: AtomicU64::new(0) });
        }
        // One entry per leaf: a frame that changes every leaf still fits.
        let log = self.log.get_mut();
        let capacity = self.leaves.len().max(64);
        if log.entries.capacity() < capacity {
            log.entries.reserve_exact(capacity - log.entries.len());
        }
        // New leaves start at `fill` without a log entry: answer from `fill` on.
        log.cover_after(fill, fill);
        let mut level = 0;
        loop {
            if self.levels.len() == level {
                self.levels.push(Vec::new());
            }
            let old = self.levels[level].len();
            while self.levels[level].len() < needed {
                self.levels[level].push(AtomicU32::new(fill.0));
            }
            for index in old..needed {
                self.raise_from(level + 1, index >> SHIFT, fill, fill);
            }
            if needed == 1 {
                break;
            }
            needed = needed.div_ceil(FANOUT);
            level += 1;
        }
    }

    /// Records that `row` was stamped with `tick`, the newest tick written to this
    /// column so far. The caller has no concurrent writer of this column.
    #[inline]
    pub(crate) fn mark_newest(&self, row: usize, tick: Tick) {
        self.stamp_leaf(row >> LEAF_SHIFT, 1u64 << (row & (LEAF - 1)), tick);
    }

    /// Records that the rows `stamped` of leaf `block` were stamped with `tick`, the
    /// newest tick written to this column so far. The caller has no concurrent writer.
    #[inline]
    pub(crate) fn stamp_leaf(&self, block: usize, stamped: u64, tick: Tick) {
        let max = &self.levels[0][block];
        let leaf = &self.leaves[block];
        let old = max.load(Relaxed);
        let old_mask = leaf.mask.load(Relaxed);
        if old == tick.0 {
            leaf.mask.store(old_mask | stamped, Relaxed);
            // Ancestors are at least as new as this entry, and `tick` is the newest.
            return;
        }
        // The other rows are at most the old maximum, or at most `prev` if none of them
        // was at the maximum (rows written again, e.g. by a second system).
        if old_mask & !stamped != 0 {
            leaf.prev.store(old, Relaxed);
        }
        max.store(tick.0, Relaxed);
        leaf.mask.store(stamped, Relaxed);
        self.mark_above(block, tick);
        self.log_advance(block, tick, tick);
    }

    /// Appends "leaf `block` advanced to `tick`" if a reader the log answers can need
    /// it; an advance older than the newest logged one restarts the log, covering only
    /// what comes after `now`.
    #[inline]
    fn log_advance(&self, block: usize, tick: Tick, now: Tick) {
        // SAFETY: only the column's single writer calls this (see the `log` field), so
        // no other reference to the log is live.
        let log = unsafe { &mut *self.log.get() };
        let in_order = log.entries.back().is_none_or(|&(_, last)| Tick(last).age(now) >= tick.age(now));
        if !in_order || log.covers_after.is_none() {
            log.entries.clear();
            log.covers_after = Some(now);
        }
        if log.entries.len() == log.entries.capacity() {
            // Forget the oldest advance: the log now covers only what came after it.
            if let Some((_, forgotten)) = log.entries.pop_front() {
                log.cover_after(Tick(forgotten), now);
            }
        }
        // Readers the log answers ran at or after `covers_after`: an advance that is
        // not newer is no news to any of them.
        let news = log.covers_after.is_some_and(|after| tick.age(now) < after.age(now));
        if news && log.entries.len() < log.entries.capacity() {
            log.entries.push_back((block as u32, tick.0));
        }
    }

    /// Hints the processor to load what [`Summary::mark_newest`] will touch for `row`.
    #[inline]
    pub(crate) fn prefetch(&self, row: usize) {
        let leaf = row >> LEAF_SHIFT;
        crate::hint::prefetch(self.leaves.as_ptr().wrapping_add(leaf));
        if let Some(maxima) = self.levels.first() {
            crate::hint::prefetch(maxima.as_ptr().wrapping_add(leaf));
        }
    }

    /// Raises the inner levels above leaf block `block` to `tick`, the newest tick.
    #[inline]
    fn mark_above(&self, block: usize, tick: Tick) {
        let mut index = block;
        for level in self.levels.iter().skip(1) {
            index >>= SHIFT;
            let entry = &level[index];
            if entry.load(Relaxed) == tick.0 {
                return;
            }
            entry.store(tick.0, Relaxed);
        }
    }

    /// Records that `row` now holds `tick`, which may be older than other ticks in the
    /// column (a row moved in from another table, or into a hole), judged from `now`.
    pub(crate) fn raise(&self, row: usize, tick: Tick, now: Tick) {
        let block = row >> LEAF_SHIFT;
        let bit = 1u64 << (row & (LEAF - 1));
        let max = Tick(self.levels[0][block].load(Relaxed));
        let prev = &self.leaves[block].prev;
        let mask = &self.leaves[block].mask;
        if tick == max {
            mask.store(mask.load(Relaxed) | bit, Relaxed);
        } else if tick.age(now) < max.age(now) {
            // The row's previous occupant, if it was at the maximum, is gone: only the
            // other rows at the maximum need `prev` to cover them.
            if mask.load(Relaxed) & !bit != 0 {
                prev.store(max.0, Relaxed);
            }
            self.levels[0][block].store(tick.0, Relaxed);
            mask.store(bit, Relaxed);
            self.log_advance(block, tick, now);
        } else {
            mask.store(mask.load(Relaxed) & !bit, Relaxed);
            prev.store(newest(Tick(prev.load(Relaxed)), tick, now).0, Relaxed);
        }
        self.raise_from(1, block >> SHIFT, tick, now);
    }

    /// Raises entry `index` of `level` and its ancestors to at least `tick`.
    fn raise_from(&self, level: usize, mut index: usize, tick: Tick, now: Tick) {
        for entries in self.levels.iter().skip(level) {
            let Some(entry) = entries.get(index) else { return };
            let current = Tick(entry.load(Relaxed));
            if current.age(now) > tick.age(now) {
                entry.store(tick.0, Relaxed);
            }
            index >>= SHIFT;
        }
    }

    /// Folds rows stamped with `tick` (the newest) during a run that deferred the
    /// summary: every leaf block in `blocks` is checked against `rows` (the column's
    /// ticks). The caller has no concurrent writer.
    pub(crate) fn fold_rows(&self, rows: &[u32], blocks: impl Iterator<Item = usize>, tick: Tick) {
        let mut last = usize::MAX;
        for block in blocks {
            if block == last {
                continue;
            }
            last = block;
            let start = block * LEAF;
            let stop = (start + LEAF).min(rows.len());
            if start >= stop {
                continue;
            }
            let stamped = equal_mask(&rows[start..stop], tick.0);
            if stamped != 0 {
                self.stamp_leaf(block, stamped, tick);
            }
        }
    }

    /// Calls `f` once for every row below `len` whose change tick (in `ticks`, one per
    /// row) is newer than `last_run`, in no particular order: from the leaf log if it
    /// covers `last_run`, else by descending the tree, skipping every block whose
    /// maximum is not new.
    ///
    /// # Safety
    /// `ticks` points to at least `len` ticks, and no one writes this column's ticks or
    /// summary during the call (the caller holds read access to the column, which
    /// excludes its writers). The summary is then read with plain loads, which lets
    /// each block of 16 be tested at once.
    #[inline]
    pub(crate) unsafe fn for_each_new(
        &self,
        ticks: *const Tick,
        len: usize,
        last_run: Tick,
        this_run: Tick,
        f: &mut impl FnMut(usize),
    ) {
        if len == 0 || self.levels.is_empty() {
            return;
        }
        let scan = Scan { this_run: this_run.0, since: last_run.age(this_run) };
        // SAFETY: `Tick` is a transparent `u32`; `ticks` holds `len` of them (caller).
        let rows = unsafe { std::slice::from_raw_parts(ticks.cast::<u32>(), len) };
        // SAFETY: no concurrent writer (caller), so the log is not being written.
        let log = unsafe { &*self.log.get() };
        let covered = log.covers_after.is_some_and(|after| after.age(this_run) >= last_run.age(this_run));
        if covered {
            // The window: entries newer than the last run, found by their ages.
            let (front, back) = log.entries.as_slices();
            let start_front = front.partition_point(|&(_, tick)| !scan.is_new(tick));
            let start_back = back.partition_point(|&(_, tick)| !scan.is_new(tick));
            for &(leaf, tick) in front[start_front..].iter().chain(&back[start_back..]) {
                let leaf = leaf as usize;
                // A leaf listed several times counts at its latest advance only.
                if self.levels[0].get(leaf).is_some_and(|max| max.load(Relaxed) == tick) {
                    self.visit_leaf(leaf, rows, scan, f);
                }
            }
            return;
        }
        let top = self.levels.len() - 1;
        // SAFETY: no concurrent writer (caller).
        unsafe { self.descend(top, 0, rows, scan, f) };
    }

    /// Visits the children of block `block` at `level` (entries `block * FANOUT ..`),
    /// descending into the new ones.
    ///
    /// # Safety
    /// As [`Summary::for_each_new`].
    unsafe fn descend(&self, level: usize, block: usize, rows: &[u32], scan: Scan, f: &mut impl FnMut(usize)) {
        let entries = &self.levels[level];
        let first = block * FANOUT;
        let end = (first + FANOUT).min(entries.len());
        if first >= end {
            return;
        }
        // SAFETY: `AtomicU32` has the layout of `u32`; no one writes these entries during
        // the call (caller), so plain reads do not race.
        let block_entries =
            unsafe { std::slice::from_raw_parts(entries[first..end].as_ptr().cast::<u32>(), end - first) };
        let mut mask = scan.mask(block_entries);
        while mask != 0 {
            let child = first + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if level == 0 {
                self.visit_leaf(child, rows, scan, f);
            } else {
                // SAFETY: as above.
                unsafe { self.descend(level - 1, child, rows, scan, f) };
            }
        }
    }

    /// Reports the new rows of a leaf block whose maximum is new.
    #[inline]
    fn visit_leaf(&self, leaf: usize, rows: &[u32], scan: Scan, f: &mut impl FnMut(usize)) {
        let start = leaf * LEAF;
        let stop = (start + LEAF).min(rows.len());
        if start >= stop {
            return;
        }
        let in_range = if stop - start == LEAF { u64::MAX } else { (1u64 << (stop - start)) - 1 };
        let bits = &self.leaves[leaf];
        let mut new_rows = if scan.is_new(bits.prev.load(Relaxed)) {
            // Older rows may be new too: test each row's tick.
            scan.leaf_mask(&rows[start..stop])
        } else {
            // Only the rows at the block's maximum can be new, and it is.
            bits.mask.load(Relaxed) & in_range
        };
        while new_rows != 0 {
            f(start + new_rows.trailing_zeros() as usize);
            new_rows &= new_rows - 1;
        }
    }

    /// Drops every entry (the column was cleared).
    pub(crate) fn clear(&mut self) {
        for level in &mut self.levels {
            level.clear();
        }
        self.leaves.clear();
        let log = self.log.get_mut();
        log.entries.clear();
        log.covers_after = None;
    }

    /// Applies tick maintenance to every entry (the remap keeps order, so maxima stay
    /// maxima and bounds stay bounds).
    pub(crate) fn remap(&mut self, remap: &super::Remap) {
        // Remapping may merge ancient ticks; the log restarts rather than risk it.
        let log = self.log.get_mut();
        log.entries.clear();
        log.covers_after = Some(remap.now());
        for entry in self.levels.iter_mut().flatten().chain(self.leaves.iter_mut().map(|leaf| &mut leaf.prev)) {
            *entry.get_mut() = remap.apply(Tick(*entry.get_mut())).0;
        }
    }

    /// Bytes held by the entries.
    pub(crate) fn heap_bytes(&self) -> usize {
        let entries: usize = self.levels.iter().map(Vec::capacity).sum();
        // SAFETY: `&self` here is not shared with a writer of the log (callers hold the
        // world), and only the capacity is read.
        let log = unsafe { &*self.log.get() }.entries.capacity();
        entries * size_of::<AtomicU32>() + self.leaves.capacity() * size_of::<LeafBits>() + log * 8
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry is at least as new as each of its children, masks name exactly the
    /// rows at the maximum, and `prev` bounds the other rows.
    fn assert_consistent(summary: &Summary, ticks: &[Tick], now: Tick) {
        for (row, tick) in ticks.iter().enumerate() {
            let block = row >> LEAF_SHIFT;
            let max = Tick(summary.levels[0][block].load(Relaxed));
            assert!(max.age(now) <= tick.age(now), "row {row}");
            let in_mask = summary.leaves[block].mask.load(Relaxed) & (1 << (row & (LEAF - 1))) != 0;
            if in_mask {
                assert_eq!(*tick, max, "row {row} is in the mask");
            } else {
                let prev = Tick(summary.leaves[block].prev.load(Relaxed));
                assert!(prev.age(now) <= tick.age(now), "row {row} is bounded by prev");
            }
        }
        for pair in summary.levels.windows(2) {
            for (index, child) in pair[0].iter().enumerate() {
                let parent = Tick(pair[1][index >> SHIFT].load(Relaxed));
                assert!(parent.age(now) <= Tick(child.load(Relaxed)).age(now));
            }
        }
    }

    fn new_rows(summary: &Summary, ticks: &[Tick], last: Tick, now: Tick) -> Vec<usize> {
        let mut found = Vec::new();
        // SAFETY: `ticks` holds `len` ticks and nothing writes during the call.
        unsafe { summary.for_each_new(ticks.as_ptr(), ticks.len(), last, now, &mut |r| found.push(r)) };
        let reported = found.len();
        found.sort();
        found.dedup();
        assert_eq!(found.len(), reported, "a row reported twice");
        found
    }

    #[test]
    fn finds_exactly_the_new_rows() {
        let len = 5000;
        let mut ticks = vec![Tick(1); len];
        let mut summary = Summary::default();
        summary.grow(len, Tick(1));
        for row in 0..len {
            summary.raise(row, Tick(1), Tick(1));
        }
        for row in (3..len).step_by(397) {
            ticks[row] = Tick(9);
            summary.mark_newest(row, Tick(9));
        }
        assert_consistent(&summary, &ticks, Tick(10));
        assert_eq!(new_rows(&summary, &ticks, Tick(5), Tick(10)), (3..len).step_by(397).collect::<Vec<_>>());
        assert!(new_rows(&summary, &ticks, Tick(9), Tick(10)).is_empty());
        // A later frame: some rows again, a reader that skipped a frame sees both.
        for row in (5..len).step_by(1000) {
            ticks[row] = Tick(12);
            summary.mark_newest(row, Tick(12));
        }
        assert_consistent(&summary, &ticks, Tick(13));
        assert_eq!(new_rows(&summary, &ticks, Tick(9), Tick(13)), (5..len).step_by(1000).collect::<Vec<_>>());
        let mut both: Vec<usize> = (3..len).step_by(397).chain((5..len).step_by(1000)).collect();
        both.sort();
        assert_eq!(new_rows(&summary, &ticks, Tick(5), Tick(13)), both);
    }

    #[test]
    fn the_leaf_log_never_vouches_for_a_leaf_it_did_not_log() {
        // One leaf, its log filled by a writer that advances every tick; the column
        // grows a leaf at tick 100 (no log entry), then the writer overflows the log.
        let mut ticks = vec![Tick(1); LEAF];
        let mut summary = Summary::default();
        summary.grow(LEAF, Tick(1));
        for row in 0..LEAF {
            summary.raise(row, Tick(1), Tick(1));
        }
        // SAFETY: nothing writes the log while the test reads it.
        let covers = |summary: &Summary| unsafe { &*summary.log.get() }.covers_after.unwrap();
        for tick in 2..60 {
            ticks[0] = Tick(tick);
            summary.mark_newest(0, Tick(tick));
        }
        ticks.push(Tick(100));
        summary.grow(ticks.len(), Tick(100));
        summary.raise(LEAF, Tick(100), Tick(100));
        let mut bound = covers(&summary);
        for tick in 101..300 {
            ticks[0] = Tick(tick);
            summary.mark_newest(0, Tick(tick));
            let now = Tick(tick);
            assert!(covers(&summary).age(now) <= bound.age(now), "coverage moved back at {tick}");
            bound = covers(&summary);
            // A reader that ran between the old entries and the growth.
            assert_eq!(new_rows(&summary, &ticks, Tick(80), Tick(tick + 1)), vec![0, LEAF], "at {tick}");
        }
        assert_consistent(&summary, &ticks, Tick(300));
    }

    #[test]
    fn growth_moves_and_folds_keep_the_summary_consistent() {
        let mut summary = Summary::default();
        let mut ticks = Vec::new();
        // Rows pushed over time, some carrying older ticks (moved in from elsewhere).
        for i in 0..10_000u32 {
            let now = Tick(100 + i);
            let tick = if i % 3 == 0 { Tick(50 + i % 40) } else { now };
            ticks.push(tick);
            summary.grow(ticks.len(), now);
            summary.raise(ticks.len() - 1, tick, now);
        }
        let now = Tick(100 + 10_000);
        assert_consistent(&summary, &ticks, now);
        // A deferred run stamps rows, then folds them.
        let stamp = Tick(now.0 + 1);
        let stamped: Vec<usize> = (0..ticks.len()).step_by(7).collect();
        for &row in &stamped {
            ticks[row] = stamp;
        }
        let raw: Vec<u32> = ticks.iter().map(|t| t.0).collect();
        summary.fold_rows(&raw, stamped.iter().map(|r| r >> LEAF_SHIFT), stamp);
        let now = Tick(stamp.0 + 1);
        assert_consistent(&summary, &ticks, now);
        for last in [Tick(10_000), Tick(10_050), stamp, Tick(stamp.0 - 1)] {
            let want: Vec<_> = (0..ticks.len()).filter(|&r| ticks[r].is_newer_than(last, now)).collect();
            assert_eq!(new_rows(&summary, &ticks, last, now), want, "last run {last:?}");
        }
    }
}
