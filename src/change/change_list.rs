//! [`ChangeList`]: the rows of one column written recently, in the order they were
//! written, in one segment per tick.
//!
//! A write appends its row to the newest segment (or opens a segment for a newer tick):
//! one store into a ring, where a tree of maxima would update an entry per level. A
//! reader that ran since the list began visits the segments newer than its last run
//! and, from each, the rows still at that segment's tick — a row written again later is
//! reported by its latest segment only — so it costs what changed and reads no tree.
//! The ring has a fixed capacity; when it is full, its owner folds the oldest segment
//! into the tree ([`Summary`](super::Summary)).

use std::cell::Cell;
use std::collections::VecDeque;

use super::tick::Tick;

/// A run of entries appended with one tick.
#[derive(Clone, Copy, Debug)]
struct Segment {
    tick: u32,
    /// The sequence number of its first entry (entries are numbered in append order).
    start: u64,
}

/// Appends to a [`ChangeList`]'s newest segment kept by the writer, in its own memory,
/// while it writes many rows in a row: the list's `tail` and count, stored back on
/// every append, would make each append wait for the last one's store, where a
/// writer's local cursor costs a store of the row and nothing more.
///
/// Closed (no room) until opened; the writer closes it before anyone else uses the
/// list, also when it unwinds.
#[doc(hidden)]
pub struct ListCursor {
    rows: Cell<*mut u32>,
    /// The next entry's index in the ring; appends may go up to `limit`.
    at: Cell<usize>,
    limit: Cell<usize>,
    /// `at` when opened: the appends are `opened .. at`.
    opened: Cell<usize>,
}

impl Default for ListCursor {
    fn default() -> Self {
        ListCursor {
            rows: Cell::new(std::ptr::null_mut()),
            at: Cell::new(0),
            limit: Cell::new(0),
            opened: Cell::new(0),
        }
    }
}

impl ListCursor {
    /// Appends `row` if the cursor has room; false otherwise (then the writer closes
    /// it, records the row through the summary, and opens it again).
    ///
    /// # Safety
    /// The list the cursor was opened on is alive and, since then, has been used by no
    /// one but through this cursor.
    #[inline(always)]
    pub(crate) unsafe fn push(&self, row: usize) -> bool {
        let at = self.at.get();
        if at >= self.limit.get() {
            return false;
        }
        // SAFETY: `at < limit`, and `limit` was the end of the list's free run, within
        // its ring (`open`), which nothing else has touched since (caller).
        unsafe { *self.rows.get().add(at) = row as u32 };
        self.at.set(at + 1);
        true
    }

    fn close(&self) {
        self.at.set(0);
        self.opened.set(0);
        self.limit.set(0);
    }
}

/// See the module docs.
#[derive(Default)]
pub(super) struct ChangeList {
    /// The entries (rows), a ring: `len` of them from `head`; the next goes to `tail`.
    rows: Box<[u32]>,
    head: usize,
    tail: usize,
    len: usize,
    /// Appends to the newest segment may go straight to `tail` while it is below this:
    /// the end of the free run that starts at `tail`, or `tail` itself while the list is
    /// empty or full (those take the slow path).
    limit: usize,
    /// The sequence number of the oldest entry.
    first: u64,
    /// The tick of the newest segment, while there is an entry.
    newest: u32,
    /// Oldest first; ticks strictly increase.
    segments: VecDeque<Segment>,
    /// Segments kept at most (the deque never grows past it, so pushing never
    /// allocates).
    segment_capacity: usize,
}

impl ChangeList {
    /// Makes room for `capacity` entries in at most `segments` segments, keeping the
    /// entries.
    pub(super) fn reserve(&mut self, capacity: usize, segments: usize) {
        if self.rows.len() < capacity {
            let mut rows = vec![0; capacity].into_boxed_slice();
            let (first, second) = self.runs(self.first, self.first + self.len as u64);
            rows[..first.len()].copy_from_slice(first);
            rows[first.len()..self.len].copy_from_slice(second);
            self.rows = rows;
            self.head = 0;
            self.tail = self.len;
            self.set_limit();
        }
        if self.segment_capacity < segments {
            self.segments.reserve_exact(segments - self.segments.len());
            self.segment_capacity = segments;
        }
    }

    /// Recomputes `limit` after `head`, `tail` or `len` changed.
    fn set_limit(&mut self) {
        self.limit = if self.len == 0 || self.len == self.rows.len() {
            self.tail
        } else if self.head > self.tail {
            self.head
        } else {
            self.rows.len()
        };
    }

    /// Whether there is no entry.
    #[inline]
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The tick of the newest segment.
    #[inline]
    pub(super) fn newest(&self) -> Option<Tick> {
        self.segments.back().map(|segment| Tick(segment.tick))
    }

    /// Appends `row` to the newest segment if it has `tick` and the free run at `tail`
    /// has room; false otherwise (then [`push`](Self::push) decides).
    #[inline(always)]
    pub(super) fn push_to_newest(&mut self, row: usize, tick: Tick) -> bool {
        let at = self.tail;
        if tick.0 != self.newest || at >= self.limit {
            return false;
        }
        self.rows[at] = row as u32;
        self.tail = at + 1;
        self.len += 1;
        true
    }

    /// Opens `cursor` on the free run at `tail` for appends to the newest segment, if it
    /// has `tick`; otherwise leaves it closed (no room). Until it is
    /// [closed](Self::close), the entries it appends are not yet the list's.
    #[inline]
    pub(super) fn open(&mut self, cursor: &ListCursor, tick: Tick) {
        let open = !self.is_empty() && tick.0 == self.newest && self.tail < self.limit;
        cursor.rows.set(self.rows.as_mut_ptr());
        cursor.at.set(self.tail);
        cursor.opened.set(self.tail);
        cursor.limit.set(if open { self.limit } else { self.tail });
    }

    /// Makes the entries `cursor` appended the list's, and closes it.
    #[inline]
    pub(super) fn close(&mut self, cursor: &ListCursor) {
        let (at, opened) = (cursor.at.get(), cursor.opened.get());
        if at != opened {
            // The cursor wrote `opened .. at` of the free run that started at `tail`.
            debug_assert!(opened == self.tail && at <= self.limit);
            self.tail = at;
            self.len += at - opened;
        }
        cursor.close();
    }

    /// Appends `row`, written at `tick` (no older than [`newest`](Self::newest)); false
    /// if the list has no room (its owner folds the oldest segment and tries again).
    #[inline]
    pub(super) fn push(&mut self, row: usize, tick: Tick) -> bool {
        self.push_to_newest(row, tick) || self.push_slow(row, tick)
    }

    /// [`push`](Self::push) into an empty or full list, across the end of the ring, or
    /// opening a segment.
    #[inline(never)]
    fn push_slow(&mut self, row: usize, tick: Tick) -> bool {
        let capacity = self.rows.len();
        if self.len == capacity {
            return false;
        }
        if self.len == 0 || tick.0 != self.newest {
            if self.segments.len() == self.segment_capacity {
                return false;
            }
            self.segments.push_back(Segment { tick: tick.0, start: self.first + self.len as u64 });
            self.newest = tick.0;
        }
        if self.tail == capacity {
            self.tail = 0;
        }
        self.rows[self.tail] = row as u32;
        self.tail += 1;
        self.len += 1;
        self.set_limit();
        true
    }

    /// Removes the oldest segment, calling `f` with each of its rows and its tick;
    /// returns the tick.
    pub(super) fn pop_oldest(&mut self, mut f: impl FnMut(usize, Tick)) -> Option<Tick> {
        let segment = self.segments.pop_front()?;
        let end = self.segments.front().map_or(self.first + self.len as u64, |next| next.start);
        let (first, second) = self.runs(segment.start, end);
        for &row in first.iter().chain(second) {
            f(row as usize, Tick(segment.tick));
        }
        let count = (end - self.first) as usize;
        self.head = (self.head + count) % self.rows.len().max(1);
        self.len -= count;
        self.first = end;
        self.set_limit();
        Some(Tick(segment.tick))
    }

    /// The index of the first segment newer than `last_run` (seen from `this_run`), or
    /// the number of segments if none is: where a reader that last ran then starts.
    /// O(log segments).
    #[inline]
    pub(super) fn first_since(&self, last_run: Tick, this_run: Tick) -> usize {
        let since = last_run.age(this_run);
        let is_new = |segment: &Segment| this_run.0.wrapping_sub(segment.tick) < since;
        let (front, back) = self.segments.as_slices();
        match front.partition_point(|segment| !is_new(segment)) {
            all if all == front.len() => all + back.partition_point(|segment| !is_new(segment)),
            some => some,
        }
    }

    /// The number of entries in segment `first` and those after it.
    #[inline]
    pub(super) fn count_from(&self, first: usize) -> usize {
        self.segments.get(first).map_or(0, |segment| (self.first + self.len as u64 - segment.start) as usize)
    }

    /// Calls `f(row, tick)` for every entry of segment `first` (from
    /// [`first_since`](Self::first_since)) and those after it, oldest first: `tick` is
    /// the segment's, or `None` for the newest segment, whose rows cannot have been
    /// written since (a row written again at the same tick is not appended twice, at a
    /// newer tick it would open a newer segment, and a removal or tick maintenance
    /// empties the list).
    #[inline]
    pub(super) fn for_each_from(&self, first: usize, mut f: impl FnMut(usize, Option<Tick>)) {
        let end = self.first + self.len as u64;
        let newest = self.segments.len().saturating_sub(1);
        for index in first..newest {
            let segment = self.segments[index];
            let (first, second) = self.runs(segment.start, self.segments[index + 1].start);
            for &row in first.iter().chain(second) {
                f(row as usize, Some(Tick(segment.tick)));
            }
        }
        if first <= newest && newest < self.segments.len() {
            // Plain loops over the newest segment's one or two runs of the ring: this is
            // a reader's whole work when it runs every frame.
            let (first, second) = self.runs(self.segments[newest].start, end);
            for &row in first {
                f(row as usize, None);
            }
            for &row in second {
                f(row as usize, None);
            }
        }
    }

    /// The rows of entries `start .. stop` (sequence numbers within the list), as the
    /// ring's one or two contiguous runs.
    #[inline]
    fn runs(&self, start: u64, stop: u64) -> (&[u32], &[u32]) {
        let capacity = self.rows.len();
        let count = (stop - start) as usize;
        let from = if capacity == 0 { 0 } else { (self.head + (start - self.first) as usize) % capacity };
        let first_run = count.min(capacity - from);
        (&self.rows[from..from + first_run], &self.rows[..count - first_run])
    }

    /// Drops every entry.
    pub(super) fn clear(&mut self) {
        self.first += self.len as u64;
        self.head = 0;
        self.tail = 0;
        self.len = 0;
        self.segments.clear();
        self.set_limit();
    }

    /// Bytes held.
    pub(super) fn heap_bytes(&self) -> usize {
        self.rows.len() * size_of::<u32>() + self.segments.capacity() * size_of::<Segment>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The entries newer than `last_run`, each with its segment's tick.
    fn since(list: &ChangeList, last_run: u32, this_run: u32) -> Vec<(usize, u32)> {
        let mut found = Vec::new();
        let newest = list.newest().map_or(0, |tick| tick.0);
        list.for_each_from(list.first_since(Tick(last_run), Tick(this_run)), |row, tick| {
            found.push((row, tick.map_or(newest, |tick| tick.0)))
        });
        found
    }

    #[test]
    fn segments_are_read_from_the_first_newer_than_the_last_run() {
        let mut list = ChangeList::default();
        list.reserve(8, 4);
        for (row, tick) in [(1, 5), (2, 5), (3, 7), (1, 9)] {
            assert!(list.push(row, Tick(tick)));
        }
        assert_eq!(since(&list, 4, 10), [(1, 5), (2, 5), (3, 7), (1, 9)]);
        assert_eq!(since(&list, 5, 10), [(3, 7), (1, 9)]);
        assert_eq!(since(&list, 9, 10), []);
        assert_eq!(list.newest(), Some(Tick(9)));
    }

    #[test]
    fn a_full_list_refuses_until_its_oldest_segment_is_popped_and_wraps_around() {
        let mut list = ChangeList::default();
        list.reserve(4, 2);
        assert!(list.push(10, Tick(1)) && list.push(11, Tick(1)) && list.push(12, Tick(2)));
        assert!(!list.push(13, Tick(3)), "a third segment has no room");
        let mut folded = Vec::new();
        assert_eq!(list.pop_oldest(|row, tick| folded.push((row, tick.0))), Some(Tick(1)));
        assert_eq!(folded, [(10, 1), (11, 1)]);
        assert!(list.push(13, Tick(3)) && list.push(14, Tick(3)) && list.push(15, Tick(3)));
        assert!(!list.push(16, Tick(3)), "four entries fill it");
        assert_eq!(since(&list, 0, 4), [(12, 2), (13, 3), (14, 3), (15, 3)]);
        // Growing keeps the entries in order.
        list.reserve(16, 8);
        assert!(list.push(16, Tick(4)));
        assert_eq!(since(&list, 2, 5), [(13, 3), (14, 3), (15, 3), (16, 4)]);
        list.clear();
        assert!(list.is_empty() && since(&list, 0, 5).is_empty());
    }
}
