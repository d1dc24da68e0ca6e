//! The hierarchy of per-block maxima over a column's per-row change ticks.
//!
//! Each *leaf* of [`LEAF`] rows keeps its maximum (`max`), the *mask* of its rows whose
//! tick equals that maximum, and *prev*, a tick at least as new as every other row of
//! the leaf: one 16-byte entry, so recording a write touches one cache line. Above the
//! leaves, `upper[0]` holds one entry per group of [`FANOUT`] leaves, `upper[1]` one per
//! group of `FANOUT` of those, and so on up to a level with a single entry. Every entry
//! is at least as new as every tick below it (it may be newer: after a row is removed
//! its leaf keeps the old maximum, which only costs a wasted descent).
//!
//! A reader whose last run is not older than a leaf's `prev` takes the leaf's mask as
//! the exact set of new rows without reading the rows' ticks: in the steady state (a
//! reader that runs every frame) that is every leaf, so finding a changed row costs no
//! cache miss on the tick column.
//!
//! In front of the tree sits the [`LeafLog`]: every time a leaf's maximum advances,
//! `(leaf, tick)` is appended. A reader whose last run the log still covers visits
//! exactly the leaves listed since then, with no tree walk at all; a leaf counts once,
//! when its current maximum equals the entry's tick. Whatever the log cannot answer,
//! the tree does.
//!
//! Entries are atomics so that a reader can share the column with other readers;
//! writers either hold the column exclusively (a run with write access), or only stamp
//! row ticks during a parallel run and fold them into the summary afterwards
//! ([`Summary::fold_rows`]).

use std::cell::UnsafeCell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering::Relaxed};

use super::leaf_log::{LeafLog, newest};
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

/// One leaf of [`LEAF`] rows: its newest tick, a tick at least as new as every row
/// not in `mask`, and `mask`, the rows whose tick equals `max`. One 16-byte entry: a
/// write and a reader that finds the leaf new each touch one cache line.
#[derive(Default)]
#[repr(C, align(16))]
struct Leaf {
    max: AtomicU32,
    prev: AtomicU32,
    mask: AtomicU64,
}

/// Per-block maxima of one column's change ticks.
#[derive(Default)]
pub struct Summary {
    /// One entry per leaf of [`LEAF`] rows.
    leaves: Vec<Leaf>,
    /// `upper[0][g]`: the newest tick of leaves `g * FANOUT ..`; `upper[k]`: the newest
    /// of each group of `FANOUT` entries of `upper[k - 1]`; the last level has one entry
    /// (none at all while there is at most one leaf).
    upper: Vec<Vec<AtomicU32>>,
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

impl Summary {
    /// Makes room for `rows` rows. New leaves start at `fill`, which must be at least
    /// as new as every tick they will cover until raised; their ancestors are raised
    /// to `fill` so every entry stays at least as new as its children.
    pub(crate) fn grow(&mut self, rows: usize, fill: Tick) {
        let needed = rows.div_ceil(LEAF).max(1);
        if self.leaves.len() >= needed {
            // The common case, on every push into a tracked column.
            return;
        }
        let mut first_new = self.leaves.len();
        self.leaves.resize_with(needed, || Leaf {
            max: AtomicU32::new(fill.0),
            prev: AtomicU32::new(oldest(fill).0),
            mask: AtomicU64::new(0),
        });
        // New leaves start at `fill` without a log entry: answer from `fill` on.
        let log = self.log.get_mut();
        log.cover_after(fill, fill);
        log.reserve(needed);
        let mut below = needed;
        let mut level = 0;
        while below > 1 {
            below = below.div_ceil(FANOUT);
            first_new >>= SHIFT;
            if self.upper.len() == level {
                self.upper.push(Vec::new());
            }
            let entries = &mut self.upper[level];
            entries.resize_with(below, || AtomicU32::new(fill.0));
            // Every entry above a new leaf covers `fill` now (the newest tick there is).
            for entry in &mut entries[first_new.min(below)..] {
                *entry.get_mut() = fill.0;
            }
            level += 1;
        }
    }

    /// Records that `row` was stamped with `tick`, the newest tick written to this
    /// column so far. The caller has no concurrent writer of this column.
    #[inline(always)]
    pub(crate) fn mark_newest(&self, row: usize, tick: Tick) {
        self.stamp_leaf(row >> LEAF_SHIFT, 1u64 << (row & (LEAF - 1)), tick);
    }

    /// Records that the rows `stamped` of leaf `leaf` were stamped with `tick`, the
    /// newest tick written to this column so far. The caller has no concurrent writer.
    #[inline(always)]
    pub(crate) fn stamp_leaf(&self, leaf: usize, stamped: u64, tick: Tick) {
        let entry = &self.leaves[leaf];
        let old = entry.max.load(Relaxed);
        let old_mask = entry.mask.load(Relaxed);
        if old == tick.0 {
            entry.mask.store(old_mask | stamped, Relaxed);
            // Ancestors are at least as new as this leaf, and `tick` is the newest.
            return;
        }
        // The other rows are at most the old maximum, or at most `prev` if none of them
        // was at the maximum (rows written again, e.g. by a second system).
        if old_mask & !stamped != 0 {
            entry.prev.store(old, Relaxed);
        }
        entry.max.store(tick.0, Relaxed);
        entry.mask.store(stamped, Relaxed);
        self.mark_above(leaf, tick);
        // SAFETY: only the column's single writer gets here (the caller), so no other
        // reference to the log is live.
        unsafe { (*self.log.get()).push(leaf, tick, tick) };
    }

    /// Hints the processor to load what [`Summary::mark_newest`] will touch for `row`.
    #[inline]
    pub(crate) fn prefetch(&self, row: usize) {
        crate::hint::prefetch(self.leaves.as_ptr().wrapping_add(row >> LEAF_SHIFT));
    }

    /// Raises the upper levels above leaf `leaf` to `tick`, the newest tick.
    #[inline]
    fn mark_above(&self, leaf: usize, tick: Tick) {
        let mut index = leaf;
        for level in &self.upper {
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
        let leaf = row >> LEAF_SHIFT;
        let bit = 1u64 << (row & (LEAF - 1));
        let entry = &self.leaves[leaf];
        let max = Tick(entry.max.load(Relaxed));
        let mask = entry.mask.load(Relaxed);
        if tick == max {
            entry.mask.store(mask | bit, Relaxed);
        } else if tick.age(now) < max.age(now) {
            // The row's previous occupant, if it was at the maximum, is gone: only the
            // other rows at the maximum need `prev` to cover them.
            if mask & !bit != 0 {
                entry.prev.store(max.0, Relaxed);
            }
            entry.max.store(tick.0, Relaxed);
            entry.mask.store(bit, Relaxed);
            // SAFETY: only the column's single writer calls this (see the `log` field).
            unsafe { (*self.log.get()).push(leaf, tick, now) };
        } else {
            entry.mask.store(mask & !bit, Relaxed);
            entry.prev.store(newest(Tick(entry.prev.load(Relaxed)), tick, now).0, Relaxed);
        }
        let mut index = leaf;
        for level in &self.upper {
            index >>= SHIFT;
            let entry = &level[index];
            if Tick(entry.load(Relaxed)).age(now) > tick.age(now) {
                entry.store(tick.0, Relaxed);
            }
        }
    }

    /// Folds rows stamped with `tick` (the newest) during a run that deferred the
    /// summary: every leaf in `leaves` is checked against `rows` (the column's ticks).
    /// The caller has no concurrent writer.
    pub(crate) fn fold_rows(&self, rows: &[u32], leaves: impl Iterator<Item = usize>, tick: Tick) {
        let mut last = usize::MAX;
        for leaf in leaves {
            if leaf == last {
                continue;
            }
            last = leaf;
            let start = leaf * LEAF;
            let stop = (start + LEAF).min(rows.len());
            if start >= stop {
                continue;
            }
            let stamped = equal_mask(&rows[start..stop], tick.0);
            if stamped != 0 {
                self.stamp_leaf(leaf, stamped, tick);
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
        if len == 0 || self.leaves.is_empty() {
            return;
        }
        let scan = Scan { this_run: this_run.0, since: last_run.age(this_run) };
        // SAFETY: `Tick` is a transparent `u32`; `ticks` holds `len` of them (caller).
        let rows = unsafe { std::slice::from_raw_parts(ticks.cast::<u32>(), len) };
        // SAFETY: no concurrent writer (caller), so the log is not being written.
        let log = unsafe { &*self.log.get() };
        let logged = log.for_each_since(last_run, this_run, |leaf, tick| {
            // A leaf listed several times counts at its latest advance only.
            if self.leaves.get(leaf).is_some_and(|entry| entry.max.load(Relaxed) == tick) {
                self.visit_leaf(leaf, rows, scan, f);
            }
        });
        if !logged {
            // SAFETY: no concurrent writer (caller).
            unsafe { self.descend(self.upper.len(), 0, rows, scan, f) };
        }
    }

    /// Visits the entries `block * FANOUT ..` of `level` (0: the leaves, `k`:
    /// `upper[k - 1]`), descending into the new ones.
    ///
    /// # Safety
    /// As [`Summary::for_each_new`].
    unsafe fn descend(&self, level: usize, block: usize, rows: &[u32], scan: Scan, f: &mut impl FnMut(usize)) {
        let first = block * FANOUT;
        let mut mask = if level == 0 {
            let end = (first + FANOUT).min(self.leaves.len());
            let maxima = self.leaves.get(first..end).unwrap_or_default();
            maxima
                .iter()
                .enumerate()
                .fold(0u32, |bits, (i, leaf)| bits | u32::from(scan.is_new(leaf.max.load(Relaxed))) << i)
        } else {
            let entries = &self.upper[level - 1];
            let end = (first + FANOUT).min(entries.len());
            if first >= end {
                return;
            }
            // SAFETY: `AtomicU32` has the layout of `u32`; no one writes these entries during
            // the call (caller), so plain reads do not race.
            let block_entries =
                unsafe { std::slice::from_raw_parts(entries[first..end].as_ptr().cast::<u32>(), end - first) };
            scan.mask(block_entries)
        };
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

    /// Reports the new rows of a leaf whose maximum is new.
    #[inline(always)]
    fn visit_leaf(&self, leaf: usize, rows: &[u32], scan: Scan, f: &mut impl FnMut(usize)) {
        let start = leaf * LEAF;
        let entry = &self.leaves[leaf];
        let mut new_rows = if scan.is_new(entry.prev.load(Relaxed)) {
            // Older rows may be new too: test each row's tick (rarely: a reader that did
            // not run since several writes to this leaf).
            match rows.get(start..) {
                Some(rest) => scan.leaf_mask(&rest[..rest.len().min(LEAF)]),
                None => 0,
            }
        } else {
            // Only the rows at the leaf's maximum can be new, and it is.
            entry.mask.load(Relaxed)
        };
        if start + LEAF > rows.len() {
            // The last leaf, or one past the rows: rows removed from the end of the
            // column may have left their bits behind.
            let valid = rows.len().saturating_sub(start);
            new_rows &= if valid == 0 { 0 } else { u64::MAX >> (LEAF - valid) };
        }
        while new_rows != 0 {
            f(start + new_rows.trailing_zeros() as usize);
            new_rows &= new_rows - 1;
        }
    }

    /// Drops every entry (the column was cleared).
    pub(crate) fn clear(&mut self) {
        self.leaves.clear();
        self.upper.clear();
        self.log.get_mut().clear();
    }

    /// Applies tick maintenance to every entry (the remap keeps order, so maxima stay
    /// maxima and bounds stay bounds).
    pub(crate) fn remap(&mut self, remap: &super::Remap) {
        // Remapping may merge ancient ticks; the log restarts rather than risk it.
        self.log.get_mut().restart(remap.now());
        for leaf in &mut self.leaves {
            for tick in [leaf.max.get_mut(), leaf.prev.get_mut()] {
                *tick = remap.apply(Tick(*tick)).0;
            }
        }
        for entry in self.upper.iter_mut().flatten() {
            *entry.get_mut() = remap.apply(Tick(*entry.get_mut())).0;
        }
    }

    /// Bytes held by the entries.
    pub(crate) fn heap_bytes(&self) -> usize {
        let upper: usize = self.upper.iter().map(Vec::capacity).sum();
        // SAFETY: `&self` here is not shared with a writer of the log (callers hold the
        // world), and only its size is read.
        let log = unsafe { &*self.log.get() }.heap_bytes();
        upper * size_of::<AtomicU32>() + self.leaves.capacity() * size_of::<Leaf>() + log
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry is at least as new as each of its children, masks name exactly the
    /// rows at the maximum, and `prev` bounds the other rows.
    fn assert_consistent(summary: &Summary, ticks: &[Tick], now: Tick) {
        for (row, tick) in ticks.iter().enumerate() {
            let leaf = &summary.leaves[row >> LEAF_SHIFT];
            let max = Tick(leaf.max.load(Relaxed));
            assert!(max.age(now) <= tick.age(now), "row {row}");
            let in_mask = leaf.mask.load(Relaxed) & (1 << (row & (LEAF - 1))) != 0;
            if in_mask {
                assert_eq!(*tick, max, "row {row} is in the mask");
            } else {
                let prev = Tick(leaf.prev.load(Relaxed));
                assert!(prev.age(now) <= tick.age(now), "row {row} is bounded by prev");
            }
        }
        let leaf_maxima: Vec<u32> = summary.leaves.iter().map(|leaf| leaf.max.load(Relaxed)).collect();
        let mut below = leaf_maxima;
        for level in &summary.upper {
            for (index, &child) in below.iter().enumerate() {
                let parent = Tick(level[index >> SHIFT].load(Relaxed));
                assert!(parent.age(now) <= Tick(child).age(now));
            }
            below = level.iter().map(|entry| entry.load(Relaxed)).collect();
        }
        assert!(below.len() <= 1, "the top level has one entry");
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
        let covers = |summary: &Summary| unsafe { &*summary.log.get() }.covers_after().unwrap();
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
