//! One message type's queue: the outbox that senders fill during a phase, and the
//! buffer that readers read after the sync point moved the outbox into it.

use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::merge::Merge;
use super::registry::MessageIter;

/// Messages sent since the last sync point, not yet readable.
pub(crate) struct Outbox<E> {
    /// Complete only once [settled](Outbox::settle): a merge policy may hold the last
    /// few sends back.
    pub(crate) waiting: Vec<E>,
    merge: Option<Box<dyn Merge<E>>>,
    /// A batch sent under a merge policy, handed to the policy in one call (one call
    /// per batch instead of one per message); empty but while a batch is merged, or
    /// after `key` or `combine` panicked in one, until the next send or settle.
    queued: Vec<E>,
    /// How many of `queued` (at its front) `sent` counts: all but those a panicking
    /// batch iterator left there, which the next send or settle counts.
    counted: usize,
    /// Messages sent in the world's lifetime (merged sends count too).
    pub(crate) sent: u64,
}

impl<E> Outbox<E> {
    #[inline]
    pub(crate) fn send(&mut self, message: E) {
        self.sent += 1;
        match &mut self.merge {
            Some(merge) if self.queued.is_empty() => merge.send(&mut self.waiting, message),
            Some(_) => {
                // After a panic part-way through a batch: its rest goes first.
                self.count_queued();
                self.queued.push(message);
                self.counted += 1;
                let merge = self.merge.as_mut().expect("matched above");
                merge.send_queued(&mut self.waiting, &mut self.queued);
                self.counted = self.queued.len();
            }
            None => self.waiting.push(message),
        }
    }

    /// Sends every message of `messages`, in order: in one `extend` when no merge policy
    /// applies.
    pub(crate) fn send_all(&mut self, messages: impl IntoIterator<Item = E>) {
        match &mut self.merge {
            Some(_) => {
                self.count_queued();
                self.queued.extend(messages);
                self.count_queued();
                let merge = self.merge.as_mut().expect("matched above");
                merge.send_queued(&mut self.waiting, &mut self.queued);
                self.counted = self.queued.len();
            }
            None => {
                let before = self.waiting.len();
                self.waiting.extend(messages);
                self.sent += (self.waiting.len() - before) as u64;
            }
        }
    }

    /// Completes the sends a merge policy holds back, leaving one waiting message per
    /// key.
    fn settle(&mut self) {
        self.count_queued();
        if let Some(merge) = &mut self.merge {
            merge.send_queued(&mut self.waiting, &mut self.queued);
            self.counted = self.queued.len();
            merge.settle(&mut self.waiting);
        }
    }

    /// Counts the queued messages a panicking batch iterator left uncounted. O(1).
    #[inline]
    fn count_queued(&mut self) {
        // A batch cut short by a panic in `key` or `combine` left fewer than were
        // counted: every one left was counted.
        self.sent += self.queued.len().saturating_sub(self.counted) as u64;
        self.counted = self.queued.len();
    }

    /// Forgets the merge policy's keys once `waiting` was delivered.
    fn delivered(&mut self) {
        if let Some(merge) = &mut self.merge {
            merge.clear();
        }
    }
}

/// Where one reader is: the sequence number of the next message it will read. Shared
/// between the reader and the queue, which keeps messages until every reader is past
/// them.
pub(crate) type Cursor = Arc<AtomicU64>;

/// The queue of one message type.
pub(crate) struct MessageQueue<E> {
    /// Written during a phase only by the holder of a declared send access (one
    /// `MessageWriter` at a time) or through `&mut World`.
    outbox: UnsafeCell<Outbox<E>>,
    /// Readable messages; `buffer[0]` has sequence number `base`.
    buffer: VecDeque<E>,
    base: u64,
    readers: Vec<Cursor>,
    /// At most this many readable messages are kept; older ones are dropped and counted.
    capacity: Option<usize>,
    dropped: u64,
}

// SAFETY: `E` is `Send + Sync`. Through `&MessageQueue` the buffer is only read; the
// outbox is written through `&MessageQueue` only by `outbox_unchecked`'s caller, who holds
// the one declared send access, and nothing reads the outbox through `&MessageQueue`.
unsafe impl<E: Send + Sync> Sync for MessageQueue<E> {}

impl<E: Send + Sync + 'static> Default for MessageQueue<E> {
    fn default() -> Self {
        MessageQueue {
            outbox: UnsafeCell::new(Outbox {
                waiting: Vec::new(),
                merge: None,
                queued: Vec::new(),
                counted: 0,
                sent: 0,
            }),
            buffer: VecDeque::new(),
            base: 0,
            readers: Vec::new(),
            capacity: None,
            dropped: 0,
        }
    }
}

impl<E: Send + Sync + 'static> MessageQueue<E> {
    /// The outbox, for sending with exclusive access.
    #[inline]
    pub(crate) fn outbox(&mut self) -> &mut Outbox<E> {
        self.outbox.get_mut()
    }

    /// The outbox through a shared queue.
    ///
    /// # Safety
    /// The caller holds the only send access to this message type for the lifetime of
    /// the result (an `MessageWriter` whose declared write the schedule keeps apart
    /// from every other writer).
    #[inline]
    #[allow(clippy::mut_from_ref, reason = "the outbox is in an `UnsafeCell`; exclusivity is the caller's contract")]
    pub(crate) unsafe fn outbox_unchecked(&self) -> &mut Outbox<E> {
        // SAFETY: exclusive per the caller.
        unsafe { &mut *self.outbox.get() }
    }

    /// A new reader, positioned after every message readable now: it reads the messages
    /// delivered from the next sync point on.
    pub(crate) fn register_reader(&mut self) -> Cursor {
        if self.readers.len() == self.readers.capacity() {
            // Readers made and dropped between sync points (which forget them too)
            // must not pile up.
            self.readers.retain(|cursor| Arc::strong_count(cursor) > 1);
        }
        let cursor = Arc::new(AtomicU64::new(self.end()));
        self.readers.push(cursor.clone());
        cursor
    }

    #[inline]
    fn end(&self) -> u64 {
        self.base + self.buffer.len() as u64
    }

    /// The messages `cursor` has not read, oldest first; adds to `missed` the messages a
    /// bounded queue dropped before this reader got to them. The cursor moves past
    /// each message as the iterator yields it (see [`MessageIter`]).
    #[inline]
    pub(crate) fn read<'a>(&'a self, cursor: &'a AtomicU64, missed: &mut u64) -> MessageIter<'a, E> {
        let start = self.first_unread(cursor, missed);
        MessageIter { messages: self.buffer.range((start - self.base) as usize..), cursor, end: self.end() }
    }

    /// Marks every readable message read by `cursor`, counting in `missed` what a bounded
    /// queue dropped before it got to them.
    pub(crate) fn read_all(&self, cursor: &AtomicU64, missed: &mut u64) {
        self.first_unread(cursor, missed);
        cursor.store(self.end(), Ordering::Relaxed);
    }

    /// Where `cursor` reads next: its position, or the oldest message kept if a bounded
    /// queue dropped the messages in between (counted in `missed`, and skipped).
    #[inline]
    fn first_unread(&self, cursor: &AtomicU64, missed: &mut u64) -> u64 {
        let at = cursor.load(Ordering::Relaxed);
        if at < self.base {
            *missed += self.base - at;
            cursor.store(self.base, Ordering::Relaxed);
            return self.base;
        }
        at
    }

    /// How many readable messages `cursor` has not read (not counting any a bounded
    /// queue dropped before it could).
    #[inline]
    pub(crate) fn unread(&self, cursor: &AtomicU64) -> usize {
        (self.end() - cursor.load(Ordering::Relaxed).max(self.base)) as usize
    }

    /// Delivers the outbox now unless a merge policy applies (a merge gathers the sends
    /// of a whole phase, so merged messages wait for its sync point) or it is empty.
    pub(crate) fn deliver_unmerged(&mut self) {
        let outbox = self.outbox.get_mut();
        if outbox.merge.is_none() && !outbox.waiting.is_empty() {
            self.deliver();
        }
    }

    /// The sync point: forgets messages every reader has read, makes the outbox
    /// readable, then trims to the capacity, counting what that drops.
    pub(crate) fn deliver(&mut self) {
        let end = self.end();
        // A reader whose only owner is this queue is gone (its system was removed).
        self.readers.retain(|cursor| Arc::strong_count(cursor) > 1);
        let oldest = self.readers.iter().map(|c| c.load(Ordering::Relaxed)).min().unwrap_or(end).clamp(self.base, end);
        self.buffer.drain(..(oldest - self.base) as usize);
        self.base = oldest;
        let outbox = self.outbox.get_mut();
        outbox.settle();
        if self.buffer.is_empty() {
            // The usual case, every reader caught up: the outbox becomes the buffer and
            // the empty buffer the next outbox, no message copied. Both conversions are
            // O(1) and keep their allocations, so the two trade roles without allocating.
            let spare = Vec::from(std::mem::take(&mut self.buffer));
            self.buffer = VecDeque::from(std::mem::replace(&mut outbox.waiting, spare));
        } else {
            self.buffer.extend(outbox.waiting.drain(..));
        }
        outbox.delivered();
        if let Some(capacity) = self.capacity {
            let excess = self.buffer.len().saturating_sub(capacity);
            self.buffer.drain(..excess);
            self.base += excess as u64;
            // Messages no reader was registered for are not "dropped before a reader
            // read them": nobody would have.
            if !self.readers.is_empty() {
                self.dropped += excess as u64;
            }
        }
    }

    pub(crate) fn set_capacity(&mut self, capacity: Option<usize>) {
        self.capacity = capacity;
    }

    /// Replaces the merge policy. Messages already waiting stay as the old policy left
    /// them (settled), and the new one does not merge them.
    pub(crate) fn set_merge(&mut self, merge: Option<Box<dyn Merge<E>>>) {
        let outbox = self.outbox.get_mut();
        outbox.settle();
        outbox.merge = merge;
    }

    /// Messages a bounded queue dropped, in the world's lifetime.
    pub(crate) fn dropped(&self) -> u64 {
        self.dropped
    }

    /// Messages waiting in the outbox for the next sync point, merged ones counted once.
    pub(crate) fn waiting(&mut self) -> usize {
        let outbox = self.outbox.get_mut();
        outbox.settle();
        outbox.waiting.len()
    }

    /// Messages readable now (by the reader furthest behind).
    pub(crate) fn readable(&self) -> usize {
        self.buffer.len()
    }

    /// Messages sent in the world's lifetime.
    pub(crate) fn sent(&mut self) -> u64 {
        self.outbox.get_mut().sent
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_all(queue: &MessageQueue<u32>, cursor: &AtomicU64) -> Vec<u32> {
        let mut missed = 0;
        queue.read(cursor, &mut missed).copied().collect()
    }

    #[test]
    fn events_wait_for_the_slowest_reader() {
        let mut queue = MessageQueue::<u32>::default();
        let fast = queue.register_reader();
        let slow = queue.register_reader();
        queue.outbox().send(1);
        assert!(read_all(&queue, &fast).is_empty(), "not readable before delivery");
        queue.deliver();
        assert_eq!(read_all(&queue, &fast), [1]);
        queue.outbox().send(2);
        queue.deliver();
        assert_eq!(read_all(&queue, &fast), [2]);
        assert_eq!(queue.readable(), 2, "the slow reader has read nothing yet");
        assert_eq!(read_all(&queue, &slow), [1, 2]);
        queue.deliver();
        assert_eq!(queue.readable(), 0);
        drop(slow);
        queue.outbox().send(3);
        queue.deliver();
        assert_eq!(queue.readers.len(), 1, "a dropped reader is forgotten");
    }

    #[test]
    fn a_bounded_queue_counts_what_it_drops_and_the_reader_learns_it() {
        let mut queue = MessageQueue::<u32>::default();
        queue.set_capacity(Some(2));
        let reader = queue.register_reader();
        for i in 0..5 {
            queue.outbox().send(i);
        }
        queue.deliver();
        assert_eq!(queue.dropped(), 3);
        let mut missed = 0;
        let got: Vec<_> = queue.read(&reader, &mut missed).copied().collect();
        assert_eq!((got, missed), (vec![3, 4], 3));
    }

    #[test]
    fn a_batch_whose_iterator_panics_keeps_and_counts_what_it_yielded() {
        let mut queue = MessageQueue::<(u32, u32)>::default();
        let reader = queue.register_reader();
        let sum = |first: &mut (u32, u32), e: (u32, u32)| first.1 += e.1;
        queue.set_merge(Some(Box::new(super::super::merge::MergeBy::new(|e: &(u32, u32)| e.0, sum))));
        let batch = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            queue.outbox().send_all((0..5u32).map(|i| if i < 3 { (i % 2, 1) } else { panic!("the batch fails") }));
        }));
        assert!(batch.is_err());
        queue.outbox().send((1, 1));
        assert_eq!(queue.outbox().sent, 4, "three from the failed batch, one after");
        queue.deliver();
        let got: Vec<(u32, u32)> = queue.read(&reader, &mut 0).copied().collect();
        assert_eq!(got, [(0, 2), (1, 2)], "what the batch yielded was merged, nothing lost");
    }

    #[test]
    fn replacing_a_merge_policy_settles_the_sends_it_held_back_first() {
        let mut queue = MessageQueue::<(u32, u32)>::default();
        let reader = queue.register_reader();
        let sum = |first: &mut (u32, u32), e: (u32, u32)| first.1 += e.1;
        // Looks sends up late from the first key on: every send is held back a while (a
        // one-element tuple is a key the dense path does not serve).
        queue.set_merge(Some(Box::new(super::super::merge::MergeBy::with_pipeline_from(
            |e: &(u32, u32)| (e.0,),
            sum,
            0,
        ))));
        queue.outbox().send_all([(1, 1), (2, 1), (1, 1), (2, 1)]);
        assert!(queue.outbox().waiting.is_empty(), "held back by the policy");
        queue.set_merge(None);
        queue.outbox().send((1, 1));
        queue.deliver();
        let mut missed = 0;
        let got: Vec<_> = queue.read(&reader, &mut missed).copied().collect();
        assert_eq!(got, [(1, 2), (2, 2), (1, 1)], "merged by the old policy, not by none");
        assert_eq!(queue.sent(), 5);
    }
}
