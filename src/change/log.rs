//! [`EventLog`]: an append-only log read by registered readers, each through its own
//! cursor, and trimmed once every live reader has read past an entry.
//!
//! Readers hold an `Arc` cursor (an absolute position); the log keeps `Weak`s, so a
//! reader that is dropped stops holding entries back. Nothing is recorded while no
//! reader is registered. Trimming happens on append, before the buffer would grow, so
//! a log whose readers keep up reuses its buffer and never allocates, and on
//! registering, before the list of readers would grow, so that readers made and dropped
//! while nothing is appended do not pile up.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Weak};

/// A reader's position in an [`EventLog`].
pub(crate) type Cursor = Arc<AtomicU64>;

pub(crate) struct EventLog<E> {
    events: VecDeque<E>,
    /// Absolute position of `events[0]`.
    base: u64,
    readers: Vec<Weak<AtomicU64>>,
}

impl<E> Default for EventLog<E> {
    fn default() -> Self {
        EventLog { events: VecDeque::new(), base: 0, readers: Vec::new() }
    }
}

impl<E: Copy> EventLog<E> {
    /// Whether anyone may still read what is appended now.
    #[inline]
    pub(crate) fn is_observed(&self) -> bool {
        !self.readers.is_empty()
    }

    /// Registers a reader positioned at the end: it sees what is appended from now on.
    /// Forgets dropped readers first whenever the list of readers is full, so that
    /// readers made and dropped without anything appended in between (which trims too)
    /// cost no memory over time.
    pub(crate) fn register(&mut self) -> Cursor {
        if self.readers.len() == self.readers.capacity() {
            self.trim();
        }
        let cursor = Arc::new(AtomicU64::new(self.end()));
        self.readers.push(Arc::downgrade(&cursor));
        cursor
    }

    fn end(&self) -> u64 {
        self.base + self.events.len() as u64
    }

    /// Appends `event` if anyone is reading.
    #[inline]
    pub(crate) fn push(&mut self, event: E) {
        if !self.is_observed() {
            return;
        }
        if self.events.len() == self.events.capacity() {
            self.trim();
            if !self.is_observed() {
                return;
            }
        }
        self.events.push_back(event);
    }

    /// Reserves room for `additional` events (a batch is coming).
    pub(crate) fn reserve(&mut self, additional: usize) {
        if self.is_observed() {
            self.trim();
            self.events.reserve(additional);
        }
    }

    /// The events `cursor` has not read, and moves the cursor to the end.
    pub(crate) fn read<'a>(&'a self, cursor: &Cursor) -> impl Iterator<Item = E> + use<'a, E> {
        let position = cursor.swap(self.end(), Ordering::Relaxed).max(self.base);
        let skip = (position - self.base) as usize;
        self.events.range(skip..).copied()
    }

    /// Drops readers that are gone and entries every remaining reader has read.
    pub(crate) fn trim(&mut self) {
        let mut oldest = self.end();
        self.readers.retain(|reader| match reader.upgrade() {
            Some(cursor) => {
                oldest = oldest.min(cursor.load(Ordering::Relaxed));
                true
            }
            None => false,
        });
        let consumed = (oldest - self.base) as usize;
        self.events.drain(..consumed);
        self.base = oldest;
    }

    /// Calls `f` on every stored event (for tick maintenance).
    pub(crate) fn for_each_mut(&mut self, f: impl FnMut(&mut E)) {
        self.events.iter_mut().for_each(f);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_reader_reads_each_event_once_and_trim_waits_for_all() {
        let mut log = EventLog::default();
        log.push(0u32); // nobody reads yet: not kept
        let a = log.register();
        log.push(1);
        let b = log.register();
        log.push(2);
        assert_eq!(log.read(&a).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(log.read(&a).count(), 0);
        log.trim();
        assert_eq!(log.events.len(), 1, "b has not read 2 yet");
        assert_eq!(log.read(&b).collect::<Vec<_>>(), [2]);
        drop(a);
        log.trim();
        assert!(log.events.is_empty());
        assert_eq!(log.readers.len(), 1);
        drop(b);
        log.trim();
        assert!(!log.is_observed());
    }
}
