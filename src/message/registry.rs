//! The world's message queues, one per message type, and the world-level API: send,
//! read through a cursor, deliver at the sync point, merge policies and bounds.

use std::any::{Any, TypeId};
use std::hash::Hash;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use crate::commands::Commands;
use crate::util::hash::IdMap;
use crate::world::{World, WorldId};

use super::merge::MergeBy;
use super::param::ReaderState;
use super::queue::MessageQueue;

/// A value sent from systems to systems, readable by the systems ordered after the
/// sender in the same schedule run (see [`crate::message`]). Implemented
/// for every `Send + Sync + 'static` type.
pub trait Message: Send + Sync + 'static {}

impl<T: Send + Sync + 'static> Message for T {}

/// A queue of some message type, for delivery without knowing the type.
trait AnyQueue: Send + Sync {
    fn deliver(&mut self);
    fn deliver_unmerged(&mut self);
    /// The message type's name.
    fn name(&self) -> &'static str;
    fn stats(&mut self) -> MessageStats;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<E: Message> AnyQueue for MessageQueue<E> {
    fn deliver(&mut self) {
        MessageQueue::deliver(self);
    }
    fn deliver_unmerged(&mut self) {
        MessageQueue::deliver_unmerged(self);
    }
    fn name(&self) -> &'static str {
        std::any::type_name::<E>()
    }
    fn stats(&mut self) -> MessageStats {
        MessageStats { sent: self.sent(), waiting: self.waiting(), readable: self.readable(), dropped: self.dropped() }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Every message queue of one world. Queues are never removed, so an index names one
/// for the world's lifetime.
#[derive(Default)]
pub(crate) struct Messages {
    by_type: IdMap<TypeId, usize>,
    queues: Vec<Box<dyn AnyQueue>>,
    /// Whether anything may have been sent since the last delivery: set once per
    /// writer handed out (not per message), so a schedule stage that sent nothing
    /// delivers nothing.
    pending: AtomicBool,
}

impl Messages {
    /// The index of `E`'s queue, creating it on first sight.
    pub(crate) fn index_or_register<E: Message>(&mut self) -> usize {
        let next = self.queues.len();
        let queues = &mut self.queues;
        *self.by_type.entry(TypeId::of::<E>()).or_insert_with(|| {
            queues.push(Box::new(MessageQueue::<E>::default()));
            next
        })
    }

    #[inline]
    pub(crate) fn queue<E: Message>(&self, index: usize) -> &MessageQueue<E> {
        self.queues[index].as_any().downcast_ref().expect("message queue stored under its own type")
    }

    #[inline]
    pub(crate) fn queue_mut<E: Message>(&mut self, index: usize) -> &mut MessageQueue<E> {
        self.queues[index].as_any_mut().downcast_mut().expect("message queue stored under its own type")
    }

    fn get_or_register<E: Message>(&mut self) -> &mut MessageQueue<E> {
        let index = self.index_or_register::<E>();
        self.queue_mut(index)
    }

    /// Notes that a writer was handed out: messages may be waiting.
    #[inline]
    pub(crate) fn mark_pending(&self) {
        self.pending.store(true, Ordering::Relaxed);
    }
}

/// A world-level reader of messages `E`, made by [`World::message_cursor`] and read with
/// [`World::read_messages`]. Like a system's [`MessageReader`](crate::message::MessageReader), it
/// reads each message once and holds back the queue's cleanup until it has.
pub struct MessageCursor<E: Message> {
    state: ReaderState,
    world: WorldId,
    _message: PhantomData<fn(E)>,
}

impl<E: Message> MessageCursor<E> {
    /// Messages a bounded queue dropped before this cursor read them.
    pub fn missed(&self) -> u64 {
        self.state.missed
    }
}

impl<E: Message> std::fmt::Debug for MessageCursor<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageCursor").field("message", &std::any::type_name::<E>()).finish_non_exhaustive()
    }
}

/// The messages a reader had not read, oldest first. Made by
/// [`MessageReader::read`](crate::message::MessageReader::read) and [`World::read_messages`].
///
/// The reader has read exactly the messages the iterator yielded: the reader's cursor
/// moves past each message as it is yielded, so when the iterator is dropped part-way
/// (a `break`, `take(n)`, `find`, a single `next()`) or forgotten, the messages it did
/// not yield wait for the reader's next read. Asking the length
/// ([`ExactSizeIterator::len`]) reads nothing; [`count`](Iterator::count) reads all of
/// them.
///
/// The iterator has no `Drop`, so its borrow of the reader ends at its last use, as
/// any borrow does:
///
/// ```
/// use ripple::World;
/// use ripple::message::{MessageReader, MessageWriter};
/// use ripple::schedule::{IntoSystemConfig, PRE_UPDATE, Schedule};
/// struct Ping(u32);
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// let send = |mut pings: MessageWriter<Ping>| pings.write_batch([Ping(1), Ping(2)]);
/// schedule.add_system(&mut world, send.in_phase(PRE_UPDATE)).unwrap();
/// let peek = |mut pings: MessageReader<Ping>| {
///     let mut unread = pings.read();
///     if let Some(first) = unread.next() {
///         assert_eq!(first.0, 1);
///         // `unread` is not used again: the reader is free, and one message is left.
///         assert_eq!(pings.len(), 1);
///     }
/// };
/// schedule.add_system(&mut world, peek).unwrap();
/// schedule.run(&mut world);
/// ```
pub struct MessageIter<'a, E> {
    pub(crate) messages: std::collections::vec_deque::Iter<'a, E>,
    /// The reader's position, moved past each message as it is yielded.
    pub(crate) cursor: &'a AtomicU64,
    /// The position just past the last readable message.
    pub(crate) end: u64,
}

impl<E> MessageIter<'_, E> {
    /// Moves the reader's cursor to just past the last message yielded.
    #[inline]
    fn commit(&self) {
        self.cursor.store(self.end - self.messages.len() as u64, Ordering::Relaxed);
    }
}

impl<'a, E> Iterator for MessageIter<'a, E> {
    type Item = &'a E;
    #[inline]
    fn next(&mut self) -> Option<&'a E> {
        let message = self.messages.next()?;
        self.commit();
        Some(message)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.messages.size_hint()
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<&'a E> {
        let message = self.messages.nth(n);
        self.commit();
        message
    }
    /// Counts the messages and reads them all, in O(1).
    #[inline]
    fn count(mut self) -> usize {
        let count = self.messages.len();
        self.messages = Default::default();
        self.commit();
        count
    }
    #[inline]
    fn fold<B, F: FnMut(B, &'a E) -> B>(mut self, init: B, f: F) -> B {
        /// Commits on the way out, also if `f` panics: the messages it was given count
        /// as read (the inner iterator moves past each message before `f` sees it).
        struct CommitOnExit<'i, 'a, E>(&'i mut MessageIter<'a, E>);
        impl<E> Drop for CommitOnExit<'_, '_, E> {
            #[inline]
            fn drop(&mut self) {
                self.0.commit();
            }
        }
        let guard = CommitOnExit(&mut self);
        guard.0.messages.by_ref().fold(init, f)
    }
}

impl<E> std::fmt::Debug for MessageIter<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MessageIter").field("remaining", &self.messages.len()).finish_non_exhaustive()
    }
}

impl<E> ExactSizeIterator for MessageIter<'_, E> {}

/// Counters of one message type's queue (see [`World::message_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MessageStats {
    /// Messages sent in the world's lifetime, merged ones included.
    pub sent: u64,
    /// Messages waiting for the next sync point (after merging).
    pub waiting: usize,
    /// Messages readable now and kept for the reader furthest behind.
    pub readable: usize,
    /// Messages a bounded queue dropped before every reader read them.
    pub dropped: u64,
}

impl World {
    /// Registers message type `E` (sending or reading does this too).
    pub fn add_message<E: Message>(&mut self) {
        self.messages.get_mut::<Messages>().index_or_register::<E>();
    }

    /// Sends `message`; it becomes readable at the next delivery: the next schedule
    /// run's start, the end of the exclusive system's stage that sends it, or
    /// [`World::deliver_messages`].
    ///
    /// ```
    /// # use ripple::World;
    /// let mut world = World::new();
    /// let mut cursor = world.message_cursor::<&str>();
    /// world.write_message("hello");
    /// assert_eq!(world.read_messages(&mut cursor).count(), 0); // not delivered yet
    /// world.deliver_messages();
    /// assert_eq!(world.read_messages(&mut cursor).collect::<Vec<_>>(), [&"hello"]);
    /// assert_eq!(world.read_messages(&mut cursor).count(), 0); // read once
    /// ```
    pub fn write_message<E: Message>(&mut self, message: E) {
        let messages = self.messages.get_mut::<Messages>();
        *messages.pending.get_mut() = true;
        messages.get_or_register::<E>().outbox().send(message);
    }

    /// Sends every message of `messages`, in order.
    pub fn write_message_batch<E: Message>(&mut self, messages: impl IntoIterator<Item = E>) {
        let queues = self.messages.get_mut::<Messages>();
        *queues.pending.get_mut() = true;
        queues.get_or_register::<E>().outbox().send_all(messages);
    }

    /// A world-level reader of `E`, which reads the messages delivered from the next
    /// sync point on.
    pub fn message_cursor<E: Message>(&mut self) -> MessageCursor<E> {
        MessageCursor {
            state: ReaderState::register::<E>(self.messages.get_mut::<Messages>()),
            world: self.id(),
            _message: PhantomData,
        }
    }

    /// The messages `cursor` has not read yet, oldest first. The cursor has read the
    /// messages the iterator yields; those it does not (the iterator dropped part-way)
    /// wait for the next read.
    ///
    /// ```
    /// # use ripple::World;
    /// let mut world = World::new();
    /// let mut cursor = world.message_cursor::<u32>();
    /// world.write_message_batch([1u32, 2, 3]);
    /// world.deliver_messages();
    /// assert_eq!(world.read_messages(&mut cursor).next(), Some(&1));
    /// assert_eq!(world.read_messages(&mut cursor).copied().collect::<Vec<_>>(), [2, 3]);
    /// ```
    ///
    /// # Panics
    /// If `cursor` was made by another world.
    pub fn read_messages<'a, E: Message>(&'a self, cursor: &'a mut MessageCursor<E>) -> MessageIter<'a, E> {
        assert!(
            cursor.world == self.id(),
            "an MessageCursor<{}> was used with another world",
            std::any::type_name::<E>()
        );
        cursor.state.read(self.messages.get::<Messages>().queue::<E>(cursor.state.index))
    }

    /// The sync point for messages: makes every message sent since the last one readable,
    /// and forgets messages that every reader has read. Schedules call it at the end of
    /// each phase; call it yourself when driving the world without a schedule.
    pub fn deliver_messages(&mut self) {
        let messages = self.messages.get_mut::<Messages>();
        *messages.pending.get_mut() = false;
        for queue in &mut messages.queues {
            queue.deliver();
        }
    }

    /// A schedule stage's end: makes readable what its systems sent, so that systems
    /// ordered after them in the same run read it (bevy_ecs's order), except message
    /// types under a merge policy, which gather a whole phase. O(message types) when
    /// anything was sent since the last delivery, O(1) otherwise.
    pub(crate) fn deliver_stage_messages(&mut self) {
        let messages = self.messages.get_mut::<Messages>();
        if std::mem::take(messages.pending.get_mut()) {
            for queue in &mut messages.queues {
                queue.deliver_unmerged();
            }
        }
    }

    /// A schedule run's start: delivers what was sent between runs (from outside any
    /// schedule), so every system of the run reads it. O(1) when nothing was.
    pub(crate) fn deliver_messages_sent_between_runs(&mut self) {
        if *self.messages.get_mut::<Messages>().pending.get_mut() {
            self.deliver_messages();
        }
    }

    /// Coalesces messages of type `E` that wait for the same sync point and share a key:
    /// sending a message whose `key` is already waiting folds it into that one with
    /// `combine`, in O(1). Replaces any earlier policy; messages already waiting are not
    /// merged retroactively.
    ///
    /// Readers get one message per key, in the order the keys were first sent, each
    /// combined in send order. A merged type is delivered at the phase's sync point
    /// (not as each writer's stage ends, as other messages are), so one merge spans
    /// every writer of the phase: a reader in a later phase reads the merged messages
    /// in the same run, one in the writers' phase the next run. A key that is an integer
    /// or an [`Entity`](crate::Entity) indexes an array of the waiting messages directly
    /// (grown only as far as the keys waiting and the batch being sent justify: eight
    /// slots per message beyond the first 65,536); a key it cannot take (a huge or
    /// negative id, two generations of one entity slot) moves that sync point's keys to
    /// an open-addressing table, where other keys always go. A batch
    /// ([`write_message_batch`](World::write_message_batch), `MessageWriter::write_batch`)
    /// reaches the policy in one call. The table
    /// keeps its memory from one sync point to the next; past 262,144 distinct keys in
    /// one sync point, where the table and the messages outgrow the caches, each send is
    /// looked up a few dozen sends later, with its table slot and message loaded ahead,
    /// so that lookups overlap their waits for memory (the last sends take effect at
    /// the sync point; nothing observable changes). A send stays O(1), amortized; it
    /// costs more at a million keys than at a thousand all the same, since each one
    /// reaches memory outside the caches (see the `merge_send` benchmark). Keys may
    /// come from data: keys chosen to crowd the table's hash (an attacker flooding one
    /// probe chain) are noticed by the table, which then hashes with a random salt, so
    /// they cost about what ordinary keys cost (the `merge_flood` benchmark). `key` is
    /// called once per send and once more per waiting message a send is compared with,
    /// so it should be cheap (a copied field, an `Entity`); `combine` must not change
    /// a message's key. If `key` or `combine` panics, the message being
    /// merged is lost and the panic reaches the sender, or, for a message held back,
    /// whoever next completes the held-back sends: a later send, [`message_stats`],
    /// a change of policy, or the sync point.
    ///
    /// [`message_stats`]: World::message_stats
    ///
    /// ```
    /// # use ripple::World;
    /// #[derive(Debug, PartialEq)]
    /// struct Damage { target: u32, amount: u32 }
    /// let mut world = World::new();
    /// world.merge_messages_by(|d: &Damage| d.target, |sum: &mut Damage, d| sum.amount += d.amount);
    /// let mut cursor = world.message_cursor::<Damage>();
    /// for _ in 0..20 {
    ///     world.write_message(Damage { target: 7, amount: 3 });
    /// }
    /// world.deliver_messages();
    /// let delivered: Vec<_> = world.read_messages(&mut cursor).collect();
    /// assert_eq!(delivered, [&Damage { target: 7, amount: 60 }]);
    /// ```
    pub fn merge_messages_by<E, K>(
        &mut self,
        key: impl Fn(&E) -> K + Send + Sync + 'static,
        combine: impl Fn(&mut E, E) + Send + Sync + 'static,
    ) where
        E: Message,
        K: Hash + Eq + Send + Sync + 'static,
    {
        self.messages
            .get_mut::<Messages>()
            .get_or_register::<E>()
            .set_merge(Some(Box::new(MergeBy::new(key, combine))));
    }

    /// Stops merging messages of type `E`.
    pub fn clear_merge_policy<E: Message>(&mut self) {
        self.messages.get_mut::<Messages>().get_or_register::<E>().set_merge(None);
    }

    /// Keeps at most `capacity` readable messages of type `E` (`None`, the default:
    /// unbounded, every message is kept until every reader has read it). A bounded queue
    /// drops the oldest messages at the sync point and counts them: see
    /// [`MessageStats::dropped`] and each reader's `missed()`.
    pub fn set_message_capacity<E: Message>(&mut self, capacity: Option<usize>) {
        self.messages.get_mut::<Messages>().get_or_register::<E>().set_capacity(capacity);
    }

    /// Counters of `E`'s queue (all zero if `E` was never used).
    pub fn message_stats<E: Message>(&mut self) -> MessageStats {
        let Some(&index) = self.messages.get::<Messages>().by_type.get(&TypeId::of::<E>()) else {
            return MessageStats::default();
        };
        self.messages.get_mut::<Messages>().queues[index].stats()
    }

    /// Calls `f` with every message type's name and counters, in the order the types
    /// were first used: for tools that show a world's messages without knowing their
    /// types. O(message types).
    pub fn for_each_message_type(&mut self, mut f: impl FnMut(&'static str, MessageStats)) {
        for queue in &mut self.messages.get_mut::<Messages>().queues {
            f(queue.name(), queue.stats());
        }
    }
}

/// Sending messages from a command queue (a system's [`Commands`]).
impl Commands<'_, '_> {
    /// Queues sending `message` (see [`World::write_message`]). From a system, it is sent
    /// when the sync point applies the queue, and delivered at the end of that same
    /// sync point.
    pub fn write_message<E: Message>(&mut self, message: E) {
        self.queue.push(move |world: &mut World| world.write_message(message));
    }
}
