//! [`LeafLog`]: the leaves of one column whose maximum advanced, in tick order, so a
//! reader that runs often finds the leaves it must visit without walking the tree.
//!
//! Entries `(leaf, tick)` sit in a ring of a power-of-two capacity (at least one slot
//! per leaf, so a tick that advances every leaf still fits). When the ring is full, the
//! oldest tick's entries are all dropped at once and the log covers only what came
//! after that tick.

use super::tick::Tick;

/// Leaves whose maximum advanced, oldest first.
///
/// Invariant: every leaf whose maximum is newer than `covers_after` has an entry
/// `(leaf, maximum)`. A reader that last ran at or after `covers_after` therefore finds
/// every leaf it must visit among the entries newer than its last run. `covers_after`
/// only moves forward (until the log restarts, covering only what comes after the
/// newest tick): moving it back would vouch for leaves that were never logged, such as
/// those a growth created at its fill tick.
/// `(leaf, tick)`: the leaf's maximum became `tick`.
type Entry = (u32, u32);

#[derive(Default)]
pub(super) struct LeafLog {
    /// `(leaf, tick)`: the leaf's maximum became `tick`, newer than `covers_after`.
    /// Ticks never decrease from `head` on.
    ring: Box<[Entry]>,
    head: usize,
    len: usize,
    /// The tick of the newest entry, while there is one.
    last: u32,
    /// See the invariant; `None` until the log has begun (it then answers nothing).
    covers_after: Option<Tick>,
}

impl LeafLog {
    /// Makes room for at least `leaves` entries (one per leaf), keeping the entries.
    pub(super) fn reserve(&mut self, leaves: usize) {
        let capacity = leaves.max(64).next_power_of_two();
        if self.ring.len() < capacity {
            let mut ring = vec![(0, 0); capacity].into_boxed_slice();
            let (front, back) = self.slices();
            ring[..front.len()].copy_from_slice(front);
            ring[front.len()..self.len].copy_from_slice(back);
            self.ring = ring;
            self.head = 0;
        }
    }

    /// Covers only what comes after `after` (or after the current bound, if newer) and
    /// drops the entries no reader the log answers can need any more.
    pub(super) fn cover_after(&mut self, after: Tick, now: Tick) {
        let after = self.covers_after.map_or(after, |current| newest(current, after, now));
        self.covers_after = Some(after);
        // Entries are in tick order: drop the run of those not newer than `after`.
        let stale = |&(_, tick): &Entry| Tick(tick).age(now) >= after.age(now);
        let (front, back) = self.slices();
        let drop = match front.partition_point(stale) {
            all if all == front.len() => all + back.partition_point(stale),
            some => some,
        };
        self.head = (self.head + drop) & (self.ring.len().max(1) - 1);
        self.len -= drop;
    }

    /// Forgets everything and answers only what comes after `now`.
    pub(super) fn restart(&mut self, now: Tick) {
        self.head = 0;
        self.len = 0;
        self.covers_after = Some(now);
    }

    /// Forgets everything; the log answers nothing until it restarts.
    pub(super) fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
        self.covers_after = None;
    }

    /// Records "`leaf` advanced to `tick`" (`now` is the newest tick), if a reader the
    /// log answers can need it. An advance older than the newest logged one restarts
    /// the log, covering only what comes after `now`.
    #[inline]
    pub(super) fn push(&mut self, leaf: usize, tick: Tick, now: Tick) {
        // The common case: another leaf advanced to the tick of the last entry (a run
        // writing rows of many leaves), which is in order and was news already.
        if self.len != 0 && tick.0 == self.last && self.len < self.ring.len() {
            let tail = (self.head + self.len) & (self.ring.len() - 1);
            self.ring[tail] = (leaf as u32, tick.0);
            self.len += 1;
            return;
        }
        self.push_slow(leaf, tick, now);
    }

    /// [`push`](Self::push) for an advance to a tick the last entry does not have, or
    /// into a full log.
    #[inline(never)]
    fn push_slow(&mut self, leaf: usize, tick: Tick, now: Tick) {
        let capacity = self.ring.len();
        if capacity == 0 {
            return;
        }
        let mask = capacity - 1;
        if self.len > 0 {
            let last = Tick(self.ring[(self.head + self.len - 1) & mask].1);
            if last.age(now) < tick.age(now) {
                self.restart(now);
            }
        }
        // Readers the log answers ran at or after `covers_after`: an advance that is
        // not newer is no news to any of them.
        let Some(after) = self.covers_after else {
            self.restart(now);
            return;
        };
        if tick.age(now) >= after.age(now) {
            return;
        }
        if self.len == capacity {
            // Forget the oldest tick's advances: the log now covers only what came after.
            let oldest = Tick(self.ring[self.head].1);
            self.cover_after(oldest, now);
            if tick.age(now) >= oldest.age(now) {
                return;
            }
        }
        self.ring[(self.head + self.len) & mask] = (leaf as u32, tick.0);
        self.len += 1;
        self.last = tick.0;
    }

    /// Calls `f(leaf, tick)` for every entry newer than `last_run` (seen from
    /// `this_run`), oldest first, and returns true; or returns false, calling nothing,
    /// if the log does not cover `last_run`.
    #[inline]
    pub(super) fn for_each_since(&self, last_run: Tick, this_run: Tick, mut f: impl FnMut(usize, u32)) -> bool {
        let covered = self.covers_after.is_some_and(|after| after.age(this_run) >= last_run.age(this_run));
        if !covered {
            return false;
        }
        let since = last_run.age(this_run);
        let is_new = |&(_, tick): &Entry| this_run.0.wrapping_sub(tick) < since;
        let (front, back) = self.slices();
        let start_front = front.partition_point(|entry| !is_new(entry));
        let start_back = back.partition_point(|entry| !is_new(entry));
        // Two plain loops rather than a chained iterator: this is a reader's whole work
        // when few rows change.
        for &(leaf, tick) in &front[start_front..] {
            f(leaf as usize, tick);
        }
        for &(leaf, tick) in &back[start_back..] {
            f(leaf as usize, tick);
        }
        true
    }

    /// The entries, oldest first, as the ring's two contiguous runs.
    fn slices(&self) -> (&[Entry], &[Entry]) {
        let capacity = self.ring.len();
        let first = (capacity - self.head).min(self.len);
        (&self.ring[self.head..self.head + first], &self.ring[..self.len - first])
    }

    /// Whether the log covers `tick`'s readers (for tests).
    #[cfg(test)]
    pub(super) fn covers_after(&self) -> Option<Tick> {
        self.covers_after
    }

    /// Bytes held.
    pub(super) fn heap_bytes(&self) -> usize {
        self.ring.len() * size_of::<Entry>()
    }
}

/// The newer of two ticks, seen from `now`.
#[inline]
pub(super) fn newest(a: Tick, b: Tick, now: Tick) -> Tick {
    if a.age(now) <= b.age(now) { a } else { b }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(log: &LeafLog, last_run: u32, this_run: u32) -> Option<Vec<(usize, u32)>> {
        let mut found = Vec::new();
        log.for_each_since(Tick(last_run), Tick(this_run), |leaf, tick| found.push((leaf, tick))).then_some(found)
    }

    #[test]
    fn a_full_log_forgets_its_oldest_tick_and_covers_only_what_came_after() {
        let mut log = LeafLog::default();
        log.reserve(1); // 64 slots
        log.restart(Tick(1));
        for tick in 2..=5u32 {
            for leaf in 0..20 {
                log.push(leaf, Tick(tick), Tick(tick));
            }
        }
        // 80 advances in 64 slots: tick 2's twenty went at once.
        assert_eq!(log.covers_after(), Some(Tick(2)));
        assert_eq!(entries(&log, 1, 6), None, "a reader from before tick 2 is not covered");
        let since_two = entries(&log, 2, 6).unwrap();
        assert_eq!(since_two.len(), 60);
        assert!(since_two.windows(2).all(|w| w[0].1 <= w[1].1), "oldest first");
        assert_eq!(entries(&log, 4, 6).unwrap().len(), 20);
    }

    #[test]
    fn an_advance_out_of_order_restarts_and_one_not_newer_than_the_coverage_is_skipped() {
        let mut log = LeafLog::default();
        log.reserve(1);
        log.restart(Tick(10));
        log.push(0, Tick(12), Tick(12));
        log.push(1, Tick(11), Tick(13)); // older than the last entry: restart after 13
        assert_eq!(log.covers_after(), Some(Tick(13)));
        assert_eq!(entries(&log, 13, 14).unwrap(), []);
        log.push(2, Tick(13), Tick(13)); // not newer than the coverage: no reader needs it
        assert_eq!(entries(&log, 13, 14).unwrap(), []);
        log.push(3, Tick(14), Tick(14));
        assert_eq!(entries(&log, 13, 15).unwrap(), [(3, 14)]);
    }
}
