//! [`ChangeList`]: the leaves of one column written recently, in the order they were
//! first written at each tick, in one segment per tick; each entry holds its leaf's
//! rows written at that tick as a mask.
//!
//! A write looks up its leaf's newest entry (a table of one slot per leaf of 64 rows,
//! small enough to stay in cache where the rows' own ticks do not): if that entry has
//! the write's tick, the row's bit is set in its mask; otherwise the leaf opens an
//! entry in the newest segment (or a segment for a newer tick opens). So a write reads
//! nothing beside its own row but that table and the entry — not the row's old tick,
//! which at a million rows is a cache miss of its own — and a row written twice at one
//! tick is recorded once. A reader that ran since the list began visits the segments
//! newer than its last run and, from each entry, the rows still at that segment's tick
//! — a row written again later is reported by its latest segment only — so it costs
//! what changed and reads no tree. The ring has a fixed capacity; when it is full, its
//! owner folds the oldest segment into the tree ([`Summary`](super::Summary)), one
//! update per entry (per leaf, not per row).

use std::cell::Cell;
use std::collections::VecDeque;

use super::tick::Tick;
use super::tree::{LEAF, LEAF_SHIFT};

/// A run of entries appended with one tick.
#[derive(Clone, Copy, Debug)]
struct Segment {
    tick: u32,
    /// The sequence number of its first entry (entries are numbered in append order).
    start: u64,
}

/// Where a leaf's newest entry is: its tick and its index in the ring. It names a live
/// entry whenever `tick` is a tick a write may still use: writes come at the newest
/// tick, so a slot left at the tick of a folded segment older than the newest is never
/// matched again, and when the newest segment itself is folded, its slots are set to
/// the tick before it. Tick maintenance resets every slot
/// ([`ChangeList::forget_all`]), so no slot's tick comes round again.
#[derive(Clone, Copy, Debug)]
#[repr(C)]
pub(super) struct Latest {
    tick: u32,
    slot: u32,
}

/// The leaf of `row` and its bit there.
#[inline(always)]
fn leaf_bit(row: usize) -> (usize, u64) {
    (row >> LEAF_SHIFT, 1u64 << (row & (LEAF - 1)))
}

/// Appends to a [`ChangeList`]'s newest segment kept by the writer, in its own memory,
/// while it writes many rows in a row: the list's `tail` and count, stored back on
/// every append, would make each append wait for the last one's store, where a
/// writer's local cursor costs a store of the entry and nothing more.
///
/// Closed (no room) until opened; the writer closes it before anyone else uses the
/// list, also when it unwinds.
#[doc(hidden)]
pub struct ListCursor {
    leaves: Cell<*mut u32>,
    masks: Cell<*mut u64>,
    /// The list's table of newest entries per leaf; null while closed.
    latest: Cell<*mut Latest>,
    /// The next entry's index in the ring; appends may go up to `limit`.
    at: Cell<usize>,
    limit: Cell<usize>,
    /// `at` when opened: the appends are `opened .. at`.
    opened: Cell<usize>,
}

impl Default for ListCursor {
    fn default() -> Self {
        ListCursor {
            leaves: Cell::new(std::ptr::null_mut()),
            masks: Cell::new(std::ptr::null_mut()),
            latest: Cell::new(std::ptr::null_mut()),
            at: Cell::new(0),
            limit: Cell::new(0),
            opened: Cell::new(0),
        }
    }
}

impl ListCursor {
    /// Records `row`, written at `tick` (the tick the cursor was opened with), if its
    /// leaf has an entry at `tick` or the cursor has room for one; false otherwise
    /// (then the writer closes it, records the row through the summary, and opens it
    /// again).
    ///
    /// # Safety
    /// The list the cursor was opened on is alive and, since then, has been used by no
    /// one but through this cursor; `row` is a row of its column.
    #[inline(always)]
    pub(crate) unsafe fn push(&self, row: usize, tick: Tick) -> bool {
        let latest = self.latest.get();
        if latest.is_null() {
            return false;
        }
        let (leaf, bit) = leaf_bit(row);
        // SAFETY: open, the cursor's pointers are the list's (caller); the table has a
        // slot for every leaf of the column (`ChangeList::cover`), `row`'s among them;
        // a slot at `tick` names a live entry of the ring (`Latest`).
        unsafe {
            let latest = &mut *latest.add(leaf);
            if latest.tick == tick.0 {
                *self.masks.get().add(latest.slot as usize) |= bit;
                return true;
            }
            let at = self.at.get();
            if at >= self.limit.get() {
                return false;
            }
            // `at < limit`, and `limit` was the end of the list's free run, within its
            // ring (`open`), which nothing else has touched since.
            *self.leaves.get().add(at) = leaf as u32;
            *self.masks.get().add(at) = bit;
            *latest = Latest { tick: tick.0, slot: at as u32 };
            self.at.set(at + 1);
        }
        true
    }

    fn close(&self) {
        self.latest.set(std::ptr::null_mut());
        self.at.set(0);
        self.opened.set(0);
        self.limit.set(0);
    }
}

/// See the module docs.
#[derive(Default)]
pub(super) struct ChangeList {
    /// The entries, a ring of leaves with their masks: `len` of them from `head`; the
    /// next goes to `tail`.
    leaves: Box<[u32]>,
    masks: Box<[u64]>,
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
    /// Per leaf of the column, its newest entry.
    latest: Vec<Latest>,
}

impl ChangeList {
    /// Makes room for `capacity` entries in at most `segments` segments, keeping the
    /// entries.
    pub(super) fn reserve(&mut self, capacity: usize, segments: usize) {
        if self.leaves.len() < capacity {
            let mut leaves = vec![0; capacity].into_boxed_slice();
            let mut masks = vec![0; capacity].into_boxed_slice();
            let mut to = 0;
            for (index, segment) in self.segments.iter().enumerate() {
                let end = self.segments.get(index + 1).map_or(self.first + self.len as u64, |next| next.start);
                let (first, second) = self.runs(segment.start, end);
                for from in first.chain(second) {
                    let leaf = self.leaves[from];
                    leaves[to] = leaf;
                    masks[to] = self.masks[from];
                    // A leaf has one entry per tick: the one its slot names, if at this
                    // segment's tick, is this one, and moves with it.
                    let latest = &mut self.latest[leaf as usize];
                    if latest.tick == segment.tick {
                        latest.slot = to as u32;
                    }
                    to += 1;
                }
            }
            debug_assert_eq!(to, self.len);
            self.leaves = leaves;
            self.masks = masks;
            self.head = 0;
            self.tail = self.len;
            self.set_limit();
        }
        if self.segment_capacity < segments {
            self.segments.reserve_exact(segments - self.segments.len());
            self.segment_capacity = segments;
        }
    }

    /// Makes a slot for every one of `leaves` leaves, as of `now`: a new leaf has no
    /// entry.
    pub(super) fn cover(&mut self, leaves: usize, now: Tick) {
        if self.latest.len() < leaves {
            let none = Latest { tick: Tick::oldest(now).0, slot: 0 };
            self.latest.resize(leaves, none);
        }
    }

    /// Marks every leaf as having no entry, as of `now`, after tick maintenance (whose
    /// remap the slots do not follow): none of them may then name a tick that a write
    /// will use before the next maintenance. The list is empty.
    pub(super) fn forget_all(&mut self, now: Tick) {
        debug_assert!(self.is_empty());
        let none = Tick::oldest(now).0;
        for latest in &mut self.latest {
            latest.tick = none;
        }
    }

    /// Recomputes `limit` after `head`, `tail` or `len` changed.
    fn set_limit(&mut self) {
        self.limit = if self.len == 0 || self.len == self.leaves.len() {
            self.tail
        } else if self.head > self.tail {
            self.head
        } else {
            self.leaves.len()
        };
    }

    /// Entries held.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.len
    }

    /// Entries the ring holds at most.
    pub(super) fn capacity(&self) -> usize {
        self.leaves.len()
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

    /// Records the rows `bits` of leaf `leaf`, written at `tick`, if the leaf has an
    /// entry at `tick` or the newest segment has `tick` and the free run at `tail` has
    /// room; false otherwise (then [`push`](Self::push) decides).
    ///
    /// # Safety
    /// `leaf` is a leaf of the column (below the count last [covered](Self::cover)).
    #[inline(always)]
    pub(super) unsafe fn push_to_newest(&mut self, leaf: usize, bits: u64, tick: Tick) -> bool {
        debug_assert!(leaf < self.latest.len());
        // SAFETY: the table has a slot per leaf of the column (caller).
        let latest = unsafe { self.latest.get_unchecked_mut(leaf) };
        if latest.tick == tick.0 {
            debug_assert!((latest.slot as usize) < self.masks.len());
            // SAFETY: a slot at a tick the list holds names a live entry of the ring
            // (`Latest`), so its index is within it.
            unsafe { *self.masks.get_unchecked_mut(latest.slot as usize) |= bits };
            return true;
        }
        let at = self.tail;
        if tick.0 != self.newest || at >= self.limit {
            return false;
        }
        self.leaves[at] = leaf as u32;
        self.masks[at] = bits;
        *latest = Latest { tick: tick.0, slot: at as u32 };
        self.tail = at + 1;
        self.len += 1;
        true
    }

    /// Opens `cursor` on the free run at `tail` for appends to the newest segment, if it
    /// has `tick` (otherwise with no room for new entries: only leaves with an entry at
    /// `tick` take rows through it). Until it is [closed](Self::close), the entries it
    /// appends are not yet the list's.
    #[inline]
    pub(super) fn open(&mut self, cursor: &ListCursor, tick: Tick) {
        let open = !self.is_empty() && tick.0 == self.newest && self.tail < self.limit;
        cursor.leaves.set(self.leaves.as_mut_ptr());
        cursor.masks.set(self.masks.as_mut_ptr());
        cursor.latest.set(self.latest.as_mut_ptr());
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

    /// Records the rows `bits` of leaf `leaf`, written at `tick` (no older than
    /// [`newest`](Self::newest)); false if the list has no room (its owner folds the
    /// oldest segment and tries again).
    ///
    /// # Safety
    /// As [`push_to_newest`](Self::push_to_newest).
    #[inline]
    pub(super) unsafe fn push(&mut self, leaf: usize, bits: u64, tick: Tick) -> bool {
        // SAFETY: forwarded from the caller.
        (unsafe { self.push_to_newest(leaf, bits, tick) }) || self.push_slow(leaf, bits, tick)
    }

    /// [`push`](Self::push) into an empty or full list, across the end of the ring, or
    /// opening a segment.
    #[inline(never)]
    fn push_slow(&mut self, leaf: usize, bits: u64, tick: Tick) -> bool {
        let capacity = self.leaves.len();
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
        let at = self.tail;
        self.leaves[at] = leaf as u32;
        self.masks[at] = bits;
        self.latest[leaf] = Latest { tick: tick.0, slot: at as u32 };
        self.tail += 1;
        self.len += 1;
        self.set_limit();
        true
    }

    /// Removes the oldest segment, calling `f` with the leaf of each of its entries and
    /// its tick; returns the tick.
    pub(super) fn pop_oldest(&mut self, mut f: impl FnMut(usize, Tick)) -> Option<Tick> {
        let segment = self.segments.pop_front()?;
        let end = self.segments.front().map_or(self.first + self.len as u64, |next| next.start);
        let (first, second) = self.runs(segment.start, end);
        // Its entries leave the list, and their leaves' slots may still name them. A
        // write comes at the newest tick, never older: only the newest segment's tick
        // may be written again, so only its slots must stop naming it (see `Latest`).
        // An older segment's slots keep a tick no write uses.
        let newest = self.segments.is_empty();
        for run in [first, second] {
            for &leaf in &self.leaves[run] {
                if newest {
                    if let Some(latest) = self.latest.get_mut(leaf as usize) {
                        if latest.tick == segment.tick {
                            latest.tick = segment.tick.wrapping_sub(1);
                        }
                    }
                }
                f(leaf as usize, Tick(segment.tick));
            }
        }
        let count = (end - self.first) as usize;
        self.head = (self.head + count) % self.leaves.len().max(1);
        self.len -= count;
        self.first = end;
        self.set_limit();
        Some(Tick(segment.tick))
    }

    /// Calls `f(row, tick)` for every row of an entry of a segment newer than
    /// `last_run` (seen from `this_run`), oldest first: `tick` is the segment's, or
    /// `None` for the newest segment, whose rows cannot have been written since (a row
    /// written again at the same tick is recorded in the same entry, at a newer tick it
    /// would be in a newer segment, and a removal or tick maintenance empties the list).
    #[inline]
    pub(super) fn for_each_since(&self, last_run: Tick, this_run: Tick, mut f: impl FnMut(usize, Option<Tick>)) {
        let since = last_run.age(this_run);
        let is_new = |segment: &Segment| this_run.0.wrapping_sub(segment.tick) < since;
        let (front, back) = self.segments.as_slices();
        let skipped = match front.partition_point(|segment| !is_new(segment)) {
            all if all == front.len() => all + back.partition_point(|segment| !is_new(segment)),
            some => some,
        };
        let end = self.first + self.len as u64;
        let newest = self.segments.len().saturating_sub(1);
        let mut rows = |index: usize, tick: Option<Tick>| {
            let start = (self.leaves[index] as usize) << LEAF_SHIFT;
            let mut bits = self.masks[index];
            while bits != 0 {
                f(start + bits.trailing_zeros() as usize, tick);
                bits &= bits - 1;
            }
        };
        for index in skipped..newest {
            let segment = self.segments[index];
            let (first, second) = self.runs(segment.start, self.segments[index + 1].start);
            for entry in first.chain(second) {
                rows(entry, Some(Tick(segment.tick)));
            }
        }
        if skipped <= newest && newest < self.segments.len() {
            // The newest segment's rows need no test: this is a reader's whole work when
            // it runs every frame.
            let (first, second) = self.runs(self.segments[newest].start, end);
            for entry in first.chain(second) {
                rows(entry, None);
            }
        }
    }

    /// The ring indices of entries `start .. stop` (sequence numbers within the list),
    /// as the ring's one or two contiguous runs.
    #[inline]
    fn runs(&self, start: u64, stop: u64) -> (std::ops::Range<usize>, std::ops::Range<usize>) {
        let capacity = self.leaves.len();
        let count = (stop - start) as usize;
        let from = if capacity == 0 { 0 } else { (self.head + (start - self.first) as usize) % capacity };
        let first_run = count.min(capacity - from);
        (from..from + first_run, 0..count - first_run)
    }

    /// Drops every entry.
    pub(super) fn clear(&mut self) {
        while self.pop_oldest(|_, _| {}).is_some() {}
        self.head = 0;
        self.tail = 0;
        self.set_limit();
    }

    /// Bytes held.
    pub(super) fn heap_bytes(&self) -> usize {
        self.leaves.len() * size_of::<u32>()
            + self.masks.len() * size_of::<u64>()
            + self.segments.capacity() * size_of::<Segment>()
            + self.latest.capacity() * size_of::<Latest>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A list over `leaves` leaves with room for `capacity` entries in `segments`.
    fn list(leaves: usize, capacity: usize, segments: usize) -> ChangeList {
        let mut list = ChangeList::default();
        list.cover(leaves, Tick(0));
        list.reserve(capacity, segments);
        list
    }

    /// The rows newer than `last_run`, each with its segment's tick.
    fn since(list: &ChangeList, last_run: u32, this_run: u32) -> Vec<(usize, u32)> {
        let mut found = Vec::new();
        let newest = list.newest().map_or(0, |tick| tick.0);
        list.for_each_since(Tick(last_run), Tick(this_run), |row, tick| {
            found.push((row, tick.map_or(newest, |tick| tick.0)))
        });
        found
    }

    /// Records `row`, as a write does.
    fn push(list: &mut ChangeList, row: usize, tick: u32) -> bool {
        let (leaf, bit) = leaf_bit(row);
        assert!(leaf < list.latest.len());
        // SAFETY: the leaf is covered (checked).
        unsafe { list.push(leaf, bit, Tick(tick)) }
    }

    #[test]
    fn segments_are_read_from_the_first_newer_than_the_last_run() {
        let mut list = list(4, 8, 4);
        for (row, tick) in [(1, 5), (2, 5), (3, 7), (1, 9)] {
            assert!(push(&mut list, row, tick));
        }
        assert_eq!(since(&list, 4, 10), [(1, 5), (2, 5), (3, 7), (1, 9)]);
        assert_eq!(since(&list, 5, 10), [(3, 7), (1, 9)]);
        assert_eq!(since(&list, 9, 10), []);
        assert_eq!(list.newest(), Some(Tick(9)));
        // Rows 1 and 2 share leaf 0's entry at tick 5: three entries in all.
        assert_eq!(list.len(), 3);
    }

    #[test]
    fn rows_of_a_leaf_written_at_one_tick_share_an_entry_once_each() {
        let mut list = list(4, 8, 4);
        for row in [70, 3, 70, 64, 3, 130] {
            assert!(push(&mut list, row, 5));
        }
        assert_eq!(list.len(), 3, "leaves 1, 0 and 2, one entry each");
        let mut found = since(&list, 4, 6);
        found.sort_unstable();
        assert_eq!(found, [(3, 5), (64, 5), (70, 5), (130, 5)]);
        // A newer tick opens new entries; the older ones stay for readers that lag.
        assert!(push(&mut list, 3, 6));
        assert_eq!(list.len(), 4);
        assert_eq!(since(&list, 5, 7), [(3, 6)]);
    }

    #[test]
    fn a_full_list_refuses_until_its_oldest_segment_is_popped_and_wraps_around() {
        let mut list = list(32, 4, 2);
        assert!(push(&mut list, 640, 1) && push(&mut list, 704, 1) && push(&mut list, 768, 2));
        assert!(!push(&mut list, 832, 3), "a third segment has no room");
        let mut folded = Vec::new();
        assert_eq!(list.pop_oldest(|leaf, tick| folded.push((leaf, tick.0))), Some(Tick(1)));
        assert_eq!(folded, [(10, 1), (11, 1)]);
        // Leaf 10's entry left: a write to it at tick 1 again would not find it.
        assert!(push(&mut list, 832, 3) && push(&mut list, 896, 3) && push(&mut list, 960, 3));
        assert!(push(&mut list, 961, 3), "a row of a leaf with an entry takes no room");
        assert!(!push(&mut list, 1024, 3), "four entries fill it");
        assert_eq!(since(&list, 0, 4), [(768, 2), (832, 3), (896, 3), (960, 3), (961, 3)]);
        // Growing keeps the entries in order, and each leaf's newest entry found.
        list.reserve(16, 8);
        assert!(push(&mut list, 1024, 4) && push(&mut list, 1025, 4));
        assert_eq!(list.len(), 5, "1025 joined 1024's entry");
        assert_eq!(since(&list, 2, 5), [(832, 3), (896, 3), (960, 3), (961, 3), (1024, 4), (1025, 4)]);
        list.clear();
        assert!(list.is_empty() && since(&list, 0, 5).is_empty());
        assert!(push(&mut list, 960, 5));
        assert_eq!(list.len(), 1, "a cleared list forgets every leaf's entry");
    }
}
