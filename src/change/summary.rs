//! The hierarchy of per-block maxima over a column's per-row change ticks.
//!
//! Level 0 holds one entry per block of [`FANOUT`] rows, level 1 one per block of
//! [`FANOUT`] level-0 entries, and so on up to a level with a single entry. Every
//! entry is at least as new as every tick below it (it may be newer: after a row is
//! removed its block keeps the old maximum, which only costs a wasted descent).
//!
//! Entries are atomics because writers in parallel iteration share upper-level
//! entries. All writers of one column at one time use the same tick (conflicting
//! writers never run concurrently), so a relaxed store of that tick is a correct
//! "max"; the atomics compile to plain moves on x86.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use super::tick::Tick;

/// Rows per leaf block and children per inner entry.
pub(crate) const FANOUT: usize = 16;
const SHIFT: u32 = FANOUT.trailing_zeros();

/// The test "newer than the last run", as numbers: `this_run - tick < since`.
#[derive(Clone, Copy)]
struct Scan {
    this_run: u32,
    since: u32,
}

impl Scan {
    /// Bit `i` set if `ticks[i]` is new (`ticks.len() <= 16`).
    #[inline]
    fn mask(self, ticks: &[u32]) -> u32 {
        let mut mask = 0u32;
        if let Ok(block) = <&[u32; FANOUT]>::try_from(ticks) {
            // A fixed-size loop the compiler turns into a few vector compares.
            for (i, &tick) in block.iter().enumerate() {
                mask |= u32::from(self.this_run.wrapping_sub(tick) < self.since) << i;
            }
        } else {
            for (i, &tick) in ticks.iter().enumerate() {
                mask |= u32::from(self.this_run.wrapping_sub(tick) < self.since) << i;
            }
        }
        mask
    }
}

/// Per-block maxima of one column's change ticks.
#[derive(Default)]
pub struct Summary {
    levels: Vec<Vec<AtomicU32>>,
}

impl Summary {
    /// Makes room for `rows` rows. New entries start at `fill`, which must be at least
    /// as new as every tick they will cover until raised; their ancestors are raised
    /// to `fill` so every entry stays at least as new as its children.
    pub(crate) fn grow(&mut self, rows: usize, fill: Tick) {
        let mut needed = rows.div_ceil(FANOUT).max(1);
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

    /// Raises the entries above `row` to `tick`, the newest tick written to this
    /// column so far.
    #[inline]
    pub(crate) fn mark_newest(&self, row: usize, tick: Tick) {
        let mut index = row;
        for level in &self.levels {
            index >>= SHIFT;
            let entry = &level[index];
            if entry.load(Relaxed) == tick.0 {
                // Every entry is at least as new as its children and `tick` is the
                // newest, so the ancestors hold `tick` already.
                return;
            }
            entry.store(tick.0, Relaxed);
        }
    }

    /// Raises the entries above `row` so they are at least as new as `tick` (which may
    /// be older than other ticks in the column), judged from `now`.
    #[inline]
    pub(crate) fn raise(&self, row: usize, tick: Tick, now: Tick) {
        self.raise_from(0, row >> SHIFT, tick, now);
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

    /// Calls `f` for every row below `len` whose change tick (in `ticks`, one per
    /// row) is newer than `last_run`, in ascending row order, skipping every block
    /// whose maximum is not.
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
        f: &mut dyn FnMut(usize),
    ) {
        if len == 0 || self.levels.is_empty() {
            return;
        }
        let scan = Scan { this_run: this_run.0, since: last_run.age(this_run) };
        // SAFETY: `Tick` is a transparent `u32`; `ticks` holds `len` of them (caller).
        let rows = unsafe { std::slice::from_raw_parts(ticks.cast::<u32>(), len) };
        let top = self.levels.len() - 1;
        // SAFETY: no concurrent writer (caller).
        unsafe { self.descend(top, 0, rows, scan, f) };
    }

    /// Visits the children of block `block` at `level` (entries
    /// `block * FANOUT ..`), descending into the new ones.
    ///
    /// # Safety
    /// As [`Summary::for_each_new`].
    unsafe fn descend(&self, level: usize, block: usize, rows: &[u32], scan: Scan, f: &mut dyn FnMut(usize)) {
        let entries = &self.levels[level];
        let first = block * FANOUT;
        let end = (first + FANOUT).min(entries.len());
        if first >= end {
            return;
        }
        // SAFETY: `AtomicU32` has the layout of `u32`; no one writes these entries during
        // the call (caller), so plain reads do not race.
        let block_entries = unsafe { std::slice::from_raw_parts(entries[first..end].as_ptr().cast::<u32>(), end - first) };
        let mut mask = scan.mask(block_entries);
        while mask != 0 {
            let child = first + mask.trailing_zeros() as usize;
            mask &= mask - 1;
            if level == 0 {
                let start = child * FANOUT;
                let stop = (start + FANOUT).min(rows.len());
                if start >= stop {
                    continue;
                }
                let mut row_mask = scan.mask(&rows[start..stop]);
                while row_mask != 0 {
                    f(start + row_mask.trailing_zeros() as usize);
                    row_mask &= row_mask - 1;
                }
            } else {
                // SAFETY: as above.
                unsafe { self.descend(level - 1, child, rows, scan, f) };
            }
        }
    }

    /// Drops every entry (the column was cleared).
    pub(crate) fn clear(&mut self) {
        for level in &mut self.levels {
            level.clear();
        }
    }

    /// Applies tick maintenance to every entry (the remap keeps order, so maxima stay
    /// maxima).
    pub(crate) fn remap(&mut self, remap: &super::Remap) {
        for level in &mut self.levels {
            for entry in level.iter_mut() {
                *entry.get_mut() = remap.apply(Tick(*entry.get_mut())).0;
            }
        }
    }

    /// Bytes held by the entries.
    pub(crate) fn heap_bytes(&self) -> usize {
        self.levels.iter().map(|l| l.capacity() * size_of::<AtomicU32>()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every entry is at least as new as each of its children.
    fn assert_ordered(summary: &Summary, ticks: &[Tick], now: Tick) {
        for (row, tick) in ticks.iter().enumerate() {
            let entry = Tick(summary.levels[0][row >> SHIFT].load(Relaxed));
            assert!(entry.age(now) <= tick.age(now), "row {row}");
        }
        for pair in summary.levels.windows(2) {
            for (index, child) in pair[0].iter().enumerate() {
                let parent = Tick(pair[1][index >> SHIFT].load(Relaxed));
                assert!(parent.age(now) <= Tick(child.load(Relaxed)).age(now));
            }
        }
    }

    #[test]
    fn growth_and_older_moved_in_ticks_keep_parents_newest() {
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
        assert_ordered(&summary, &ticks, Tick(100 + 10_000));
        let last = Tick(10_000);
        let mut found = Vec::new();
        let now = Tick(100 + 10_000);
        // SAFETY: `ticks` holds `len` ticks and nothing writes during the call.
        unsafe { summary.for_each_new(ticks.as_ptr(), ticks.len(), last, now, &mut |r| found.push(r)) };
        let want: Vec<_> = (0..ticks.len()).filter(|&r| ticks[r].is_newer_than(last, now)).collect();
        assert_eq!(found, want);
    }

    #[test]
    fn finds_exactly_the_new_rows() {
        let len = 5000;
        let mut ticks = vec![Tick(1); len];
        let mut summary = Summary::default();
        summary.grow(len, Tick(1));
        for row in (3..len).step_by(397) {
            ticks[row] = Tick(9);
            summary.mark_newest(row, Tick(9));
        }
        let mut found = Vec::new();
        // SAFETY: `ticks` holds `len` ticks and nothing writes during the call.
        unsafe { summary.for_each_new(ticks.as_ptr(), len, Tick(5), Tick(10), &mut |r| found.push(r)) };
        assert_eq!(found, (3..len).step_by(397).collect::<Vec<_>>());
        let mut none = 0;
        // SAFETY: as above.
        unsafe { summary.for_each_new(ticks.as_ptr(), len, Tick(9), Tick(10), &mut |_| none += 1) };
        assert_eq!(none, 0);
    }
}
