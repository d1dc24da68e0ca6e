//! [`Maxima`]: the tree of per-block maxima over a column's per-row change ticks.
//!
//! Level 0 holds one entry per *leaf* of [`LEAF`] rows, level 1 one per group of
//! [`FANOUT`] level-0 entries, and so on up to a level with a single entry. Every entry
//! is at least as new as every tick below it that the tree was told of (it may be
//! newer: a removed row's leaf keeps the old maximum, which only costs a wasted
//! descent). A reader descends only into entries newer than its last run and tests the
//! rows of the leaves it reaches, sixteen ticks at a time, so finding `K` changed rows
//! among `N` costs about `K · log₁₆ N` entry visits.
//!
//! The tree is told of changes in batches (see [`Summary`](super::Summary)); entries are
//! atomics so that a reader can share the column with other readers while the column's
//! single writer, which excludes them, updates them through a shared reference.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use super::tick::Tick;

/// Rows per leaf (one bit each in a `u64` mask).
pub(crate) const LEAF: usize = 64;
pub(super) const LEAF_SHIFT: u32 = LEAF.trailing_zeros();
/// Children per inner entry.
const FANOUT: usize = 16;
const SHIFT: u32 = FANOUT.trailing_zeros();

/// The three tests a tree walk makes (see [`Maxima::for_each_between`]).
#[derive(Clone, Copy)]
struct Scans {
    entries: Scan,
    between: Scan,
    after: Scan,
}

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

/// Calls `f` once for every row whose tick — its own (in `rows`), or its leaf's stamp
/// (in `stamps`, one per leaf) if newer — is newer than `last_run`, seen from
/// `this_run`, in row order: a scan of every row's tick, sixteen at a time, which costs
/// O(N) but reads the ticks, and lets the caller read the rows, front to back.
pub(super) fn for_each_newer_in_order(
    rows: &[u32],
    stamps: &[u32],
    last_run: Tick,
    this_run: Tick,
    f: &mut impl FnMut(usize),
) {
    let scan = Scan { this_run: this_run.0, since: last_run.age(this_run) };
    for (leaf, leaf_rows) in rows.chunks(LEAF).enumerate() {
        let mut new_rows = if stamps.get(leaf).is_some_and(|&stamp| scan.is_new(stamp)) {
            // The stamp is new: so is every row of the leaf.
            u64::MAX >> (LEAF - leaf_rows.len())
        } else {
            scan.leaf_mask(leaf_rows)
        };
        let start = leaf * LEAF;
        while new_rows != 0 {
            f(start + new_rows.trailing_zeros() as usize);
            new_rows &= new_rows - 1;
        }
    }
}

/// Bit `i` set if `ticks[i] == tick` (`ticks.len() <= 64`).
#[inline(always)]
pub(super) fn equal_mask(ticks: &[u32], tick: u32) -> u64 {
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

/// Per-block maxima of one column's change ticks; see the module docs.
#[derive(Default)]
pub(super) struct Maxima {
    /// `levels[0][b]`: the newest tick of leaf `b`; `levels[k][g]`: the newest of group
    /// `g` of `FANOUT` entries of `levels[k - 1]`; the last level has one entry.
    levels: Vec<Vec<AtomicU32>>,
}

impl Maxima {
    /// Makes room for `rows` rows, as of `now`. New leaves cover no rows yet and start
    /// at the oldest tick (rows placed in them raise them); a new entry above them
    /// starts at the newest of its children, which for a new top level includes the old
    /// top's. Existing entries keep their maxima. (New entries used to start at `now`,
    /// newer than changes still waiting in the change list; folding those in later
    /// stamps their leaves as the newest and lowered the ancestors below such a leaf.)
    pub(super) fn grow(&mut self, rows: usize, now: Tick) {
        let mut needed = rows.div_ceil(LEAF).max(1);
        if self.levels.first().is_some_and(|leaves| leaves.len() >= needed) {
            // The common case, on every push into a tracked column.
            return;
        }
        let oldest = Tick::oldest(now);
        let mut level = 0;
        loop {
            if self.levels.len() == level {
                self.levels.push(Vec::new());
            }
            let (below, this) = self.levels.split_at_mut(level);
            let entries = &mut this[0];
            let children = below.last();
            for index in entries.len()..needed {
                let newest = children.map_or(oldest, |children| {
                    let end = ((index + 1) * FANOUT).min(children.len());
                    children[(index * FANOUT).min(end)..end]
                        .iter()
                        .fold(oldest, |newest, child| newest.newest(Tick(child.load(Relaxed)), now))
                });
                entries.push(AtomicU32::new(newest.0));
            }
            if needed == 1 {
                break;
            }
            needed = needed.div_ceil(FANOUT);
            level += 1;
        }
    }

    /// Number of leaves.
    pub(super) fn leaves(&self) -> usize {
        self.levels.first().map_or(0, Vec::len)
    }

    /// Records that leaf `leaf` holds a row stamped with `tick`, the newest tick the
    /// tree has been told of. The caller is the column's only writer.
    #[inline]
    pub(super) fn stamp(&self, leaf: usize, tick: Tick) {
        let Some(leaves) = self.levels.first() else { return };
        assert!(leaf < leaves.len(), "leaf {leaf} of a tree of {} leaves", leaves.len());
        let mut index = leaf;
        for level in &self.levels {
            debug_assert!(index < level.len());
            // SAFETY: `leaf` is a leaf (checked), and each level has an entry for every
            // group of `FANOUT` entries of the level below (`grow`).
            let entry = unsafe { level.get_unchecked(index) };
            if entry.load(Relaxed) == tick.0 {
                // Ancestors are at least as new as this entry already.
                return;
            }
            entry.store(tick.0, Relaxed);
            index >>= SHIFT;
        }
    }

    /// Records that `row` holds `tick`, which may be older than other ticks in the
    /// column (a row moved in from another table, or into a hole), judged from `now`.
    /// The caller is the column's only writer.
    pub(super) fn raise(&self, row: usize, tick: Tick, now: Tick) {
        let mut index = row >> LEAF_SHIFT;
        for level in &self.levels {
            let entry = &level[index];
            if Tick(entry.load(Relaxed)).age(now) > tick.age(now) {
                entry.store(tick.0, Relaxed);
            }
            index >>= SHIFT;
        }
    }

    /// Calls `f` once for every row whose tick — its own (in `rows`), or its leaf's stamp
    /// (in `stamps`, one per leaf) if newer — is newer than `last_run` but not newer than
    /// `upto`, both seen from `this_run`, in no particular order. `upto` is not older
    /// than `last_run`, nor than any stamp.
    ///
    /// # Safety
    /// No one writes the tree during the call (the caller holds read access to the
    /// column, which excludes its writer): its entries are read with plain loads, which
    /// lets each block of sixteen be tested at once.
    pub(super) unsafe fn for_each_between(
        &self,
        rows: &[u32],
        stamps: &[u32],
        last_run: Tick,
        upto: Tick,
        this_run: Tick,
        f: &mut impl FnMut(usize),
    ) {
        let Some(top) = self.levels.len().checked_sub(1) else { return };
        if rows.is_empty() {
            return;
        }
        let scans = Scans {
            entries: Scan { this_run: this_run.0, since: last_run.age(this_run) },
            // A row tick `t` is wanted if `upto - t < upto - last_run`: newer than the
            // last run seen from `upto`, and not newer than `upto` (that wraps to a huge
            // age).
            between: Scan { this_run: upto.0, since: last_run.age(upto) },
            // A row tick newer than `upto` is the change list's to report.
            after: Scan { this_run: this_run.0, since: upto.age(this_run) },
        };
        // SAFETY: no concurrent writer (caller).
        unsafe { self.descend(top, 0, rows, stamps, scans, f) };
    }

    /// Visits the children of entry `block` at `level` (entries `block * FANOUT ..` of
    /// `level`), descending into the new ones.
    ///
    /// # Safety
    /// As [`Maxima::for_each_between`].
    unsafe fn descend(
        &self,
        level: usize,
        block: usize,
        rows: &[u32],
        stamps: &[u32],
        scans: Scans,
        f: &mut impl FnMut(usize),
    ) {
        let level_entries = &self.levels[level];
        let first = block * FANOUT;
        let end = (first + FANOUT).min(level_entries.len());
        if first >= end {
            return;
        }
        // SAFETY: `AtomicU32` has the layout of `u32`; no one writes these entries during
        // the call (caller), so plain reads do not race.
        let block_entries =
            unsafe { std::slice::from_raw_parts(level_entries[first..end].as_ptr().cast::<u32>(), end - first) };
        let mut mask = scans.entries.mask(block_entries);
        while mask != 0 {
            let child = first + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if level == 0 {
                let start = child * LEAF;
                if start < rows.len() {
                    let leaf_rows = &rows[start..(start + LEAF).min(rows.len())];
                    let mut new_rows = if stamps.get(child).is_some_and(|&stamp| scans.entries.is_new(stamp)) {
                        // The leaf's stamp is new: every row is, but those the list has.
                        let valid = u64::MAX >> (LEAF - leaf_rows.len());
                        valid & !scans.after.leaf_mask(leaf_rows)
                    } else {
                        scans.between.leaf_mask(leaf_rows)
                    };
                    while new_rows != 0 {
                        f(start + new_rows.trailing_zeros() as usize);
                        new_rows &= new_rows - 1;
                    }
                }
            } else {
                // SAFETY: as above.
                unsafe { self.descend(level - 1, child, rows, stamps, scans, f) };
            }
        }
    }

    /// Drops every entry (the column was cleared).
    pub(super) fn clear(&mut self) {
        self.levels.clear();
    }

    /// Applies tick maintenance to every entry (the remap keeps order, so maxima stay
    /// maxima).
    pub(super) fn remap(&mut self, remap: &super::Remap) {
        for entry in self.levels.iter_mut().flatten() {
            *entry.get_mut() = remap.apply(Tick(*entry.get_mut())).0;
        }
    }

    /// Bytes held by the entries.
    pub(super) fn heap_bytes(&self) -> usize {
        self.levels.iter().map(Vec::capacity).sum::<usize>() * size_of::<AtomicU32>()
    }

    /// The entries, level by level (for tests).
    #[cfg(test)]
    pub(super) fn levels(&self) -> Vec<Vec<u32>> {
        self.levels.iter().map(|level| level.iter().map(|e| e.load(Relaxed)).collect()).collect()
    }
}
