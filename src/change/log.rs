//! [`ChangeLog`]: the log of structural changes (the world's entity moves between
//! tables, and each component's removals), append-only, read by registered readers,
//! each through its own cursor, and trimmed once every live reader has read past an
//! entry.
//!
//! Readers hold an `Arc` cursor (an absolute position); the log keeps `Weak`s, so a
//! reader that is dropped stops holding entries back. Nothing is recorded while no
//! reader is registered. Trimming happens on append, before the buffer would grow, so
//! a log whose readers keep up reuses its buffer and never allocates, and on
//! registering, before the list of readers would grow, so that readers made and dropped
//! while nothing is appended do not pile up.
//!
//! A log holds at most its *limit* of entries for readers that may fall behind (a
//! `Dirty` reader, a removal reader): past it, the older half is dropped and such a
//! reader learns at its next read how many entries it missed, so that a reader that
//! never runs costs bounded memory. Exact readers (a schedule's watch, read at every
//! run of its schedule) keep their entries whatever the limit.

use std::collections::{VecDeque, vec_deque};
use std::iter::Copied;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

/// A reader's position in a [`ChangeLog`].
pub(crate) type Cursor = Arc<AtomicU64>;

/// How many entries a log keeps for readers that may fall behind, unless the world is
/// told otherwise.
pub(crate) const DEFAULT_LIMIT: usize = 1 << 20;

/// The smallest limit a log accepts: half of it is what it keeps when it sheds.
pub(crate) const MIN_LIMIT: usize = 64;

/// A registered reader: its cursor, and whether the log must keep its entries
/// whatever the limit.
struct Reader {
    cursor: Weak<AtomicU64>,
    exact: bool,
}

pub(crate) struct ChangeLog<E> {
    entries: VecDeque<E>,
    /// Absolute position of `entries[0]`.
    base: u64,
    readers: Vec<Reader>,
    /// Entries kept for readers that may fall behind (see the module docs).
    limit: usize,
}

impl<E> Default for ChangeLog<E> {
    fn default() -> Self {
        ChangeLog::with_limit(DEFAULT_LIMIT)
    }
}

impl<E> ChangeLog<E> {
    /// An empty log that keeps at most `limit` entries for readers that may fall
    /// behind (at least [`MIN_LIMIT`]).
    pub(crate) fn with_limit(limit: usize) -> Self {
        ChangeLog { entries: VecDeque::new(), base: 0, readers: Vec::new(), limit: limit.max(MIN_LIMIT) }
    }

    /// Changes the limit; applies from the next append that would grow the log.
    pub(crate) fn set_limit(&mut self, limit: usize) {
        self.limit = limit.max(MIN_LIMIT);
    }

    /// The limit (see the module docs).
    pub(crate) fn limit(&self) -> usize {
        self.limit
    }

    /// What the log holds: entries kept, and the bytes its buffers reserve.
    pub(crate) fn held(&self) -> (usize, usize) {
        let bytes = self.entries.capacity() * size_of::<E>() + self.readers.capacity() * size_of::<Reader>();
        (self.entries.len(), bytes)
    }
}

/// What a reader gets from one read: the entries it had not read, and how many entries
/// before them it missed because it fell further behind than the log's limit.
pub(crate) struct Read<I> {
    pub(crate) missed: u64,
    pub(crate) entries: I,
}

impl<E: Copy> ChangeLog<E> {
    /// Whether anyone may still read what is appended now.
    #[inline]
    pub(crate) fn is_observed(&self) -> bool {
        !self.readers.is_empty()
    }

    /// Registers a reader positioned at the end: it sees what is appended from now on,
    /// and may miss entries if it falls further behind than the limit. Forgets dropped
    /// readers first whenever the list of readers is full, so that readers made and
    /// dropped without anything appended in between (which trims too) cost no memory
    /// over time.
    pub(crate) fn register(&mut self) -> Cursor {
        self.register_reader(false)
    }

    /// Registers a reader whose entries the log keeps until it reads them, whatever the
    /// limit.
    pub(crate) fn register_exact(&mut self) -> Cursor {
        self.register_reader(true)
    }

    fn register_reader(&mut self, exact: bool) -> Cursor {
        if self.readers.len() == self.readers.capacity() {
            self.trim();
        }
        let cursor = Arc::new(AtomicU64::new(self.end()));
        self.readers.push(Reader { cursor: Arc::downgrade(&cursor), exact });
        cursor
    }

    fn end(&self) -> u64 {
        self.base + self.entries.len() as u64
    }

    /// Appends `entry` if anyone is reading.
    #[inline]
    pub(crate) fn push(&mut self, entry: E) {
        if !self.is_observed() {
            return;
        }
        if self.entries.len() == self.entries.capacity() {
            self.make_room();
            if !self.is_observed() {
                return;
            }
        }
        self.entries.push_back(entry);
    }

    /// Before the buffer would grow: trims what every reader has read and, at the
    /// limit, sheds the older half of what only readers that may fall behind still need;
    /// growth that would pass the limit stops at it, so the buffer never holds more than
    /// the limit for such readers.
    #[cold]
    fn make_room(&mut self) {
        self.trim();
        let len = self.entries.len();
        if len >= self.limit {
            self.shed();
        } else if len == self.entries.capacity() && len * 2 > self.limit {
            self.entries.reserve_exact(self.limit - len);
        }
    }

    /// Drops the oldest entries down to half the limit, or to the oldest exact
    /// reader's position if that is older. Readers behind the new start have missed
    /// entries; they find out at their next read.
    fn shed(&mut self) {
        let mut keep_from = self.end() - (self.limit / 2) as u64;
        for reader in &self.readers {
            if let (true, Some(cursor)) = (reader.exact, reader.cursor.upgrade()) {
                keep_from = keep_from.min(cursor.load(Ordering::Relaxed));
            }
        }
        let dropped = (keep_from.max(self.base) - self.base) as usize;
        self.entries.drain(..dropped);
        self.base += dropped as u64;
    }

    /// Reserves room for `additional` entries (a batch is coming), within the limit.
    pub(crate) fn reserve(&mut self, additional: usize) {
        if self.is_observed() {
            self.trim();
            let len = self.entries.len();
            if len + additional >= self.limit {
                self.entries.reserve_exact(self.limit.saturating_sub(len));
            } else {
                self.entries.reserve(additional);
            }
        }
    }

    /// The entries `cursor` has not read, and moves the cursor to the end.
    pub(crate) fn read<'a>(&'a self, cursor: &Cursor) -> Read<Copied<vec_deque::Iter<'a, E>>> {
        let position = cursor.swap(self.end(), Ordering::Relaxed);
        let missed = self.base.saturating_sub(position);
        let skip = (position.max(self.base) - self.base) as usize;
        Read { missed, entries: self.entries.range(skip..).copied() }
    }

    /// Whether the reader at `cursor` has missed entries it has not been told about.
    pub(crate) fn has_missed(&self, cursor: &Cursor) -> bool {
        cursor.load(Ordering::Relaxed) < self.base
    }

    /// Drops readers that are gone and entries every remaining reader has read.
    pub(crate) fn trim(&mut self) {
        let mut oldest = self.end();
        self.readers.retain(|reader| match reader.cursor.upgrade() {
            Some(cursor) => {
                oldest = oldest.min(cursor.load(Ordering::Relaxed));
                true
            }
            None => false,
        });
        // A reader that missed entries may stand before the start.
        let consumed = (oldest.max(self.base) - self.base) as usize;
        self.entries.drain(..consumed);
        self.base += consumed as u64;
    }

    /// Calls `f` on every stored entry (for tick maintenance).
    pub(crate) fn for_each_mut(&mut self, f: impl FnMut(&mut E)) {
        self.entries.iter_mut().for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reader_reads_each_event_once_and_trim_waits_for_all() {
        let mut log = ChangeLog::default();
        log.push(0u32); // nobody reads yet: not kept
        let a = log.register();
        log.push(1);
        let b = log.register();
        log.push(2);
        assert_eq!(log.read(&a).entries.collect::<Vec<_>>(), [1, 2]);
        assert_eq!(log.read(&a).entries.count(), 0);
        log.trim();
        assert_eq!(log.entries.len(), 1, "b has not read 2 yet");
        assert_eq!(log.read(&b).entries.collect::<Vec<_>>(), [2]);
        drop(a);
        log.trim();
        assert!(log.entries.is_empty());
        assert_eq!(log.readers.len(), 1);
        drop(b);
        log.trim();
        assert!(!log.is_observed());
    }

    #[test]
    fn a_lagging_reader_misses_the_shed_half_and_is_told_how_much() {
        let mut log = ChangeLog::with_limit(MIN_LIMIT);
        let idle = log.register();
        let busy = log.register();
        for event in 0..1_000u32 {
            log.push(event);
            assert!(log.read(&busy).entries.eq([event]), "a reader that keeps up misses nothing");
        }
        assert!(log.held().0 <= MIN_LIMIT, "the idle reader holds at most the limit");
        assert!(log.entries.capacity() <= MIN_LIMIT, "the buffer never grows past the limit");
        assert!(log.has_missed(&idle));
        let read = log.read(&idle);
        let kept: Vec<u32> = read.entries.collect();
        assert_eq!(read.missed + kept.len() as u64, 1_000, "missed and kept add up to what was pushed");
        assert_eq!(kept, (read.missed as u32..1_000).collect::<Vec<_>>(), "what is kept is the newest");
        assert!(!log.has_missed(&idle));
        assert_eq!(log.read(&idle).missed, 0, "told once");
    }

    #[test]
    fn an_exact_reader_keeps_its_entries_past_the_limit() {
        let mut log = ChangeLog::with_limit(MIN_LIMIT);
        let exact = log.register_exact();
        let idle = log.register();
        for event in 0..1_000u32 {
            log.push(event);
        }
        let read = log.read(&exact);
        assert_eq!(read.missed, 0);
        assert!(read.entries.eq(0..1_000));
        log.push(1_000);
        log.trim();
        assert_eq!(log.read(&idle).missed, 0, "the exact reader held everything back, so nothing was shed");
    }
}
