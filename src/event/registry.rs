//! The world's event queues, one per event type, and the world-level API: send,
//! read through a cursor, deliver at the sync point, merge policies and bounds.

use std::any::{Any, TypeId};
use std::hash::Hash;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::commands::Commands;
use crate::hash::IdMap;
use crate::world::{World, WorldId};

use super::merge::MergeBy;
use super::param::ReaderState;
use super::queue::EventQueue;

/// A value sent from systems to systems, delivered at the next sync point. Implemented
/// for every `Send + Sync + 'static` type.
pub trait Event: Send + Sync + 'static {}

impl<T: Send + Sync + 'static> Event for T {}

/// A queue of some event type, for delivery without knowing the type.
trait AnyQueue: Send + Sync {
    fn deliver(&mut self);
    /// The event type's name.
    fn name(&self) -> &'static str;
    fn stats(&mut self) -> EventStats;
    fn as_any(&self) -> &dyn Any;
    fn as_any_mut(&mut self) -> &mut dyn Any;
}

impl<E: Event> AnyQueue for EventQueue<E> {
    fn deliver(&mut self) {
        EventQueue::deliver(self);
    }
    fn name(&self) -> &'static str {
        std::any::type_name::<E>()
    }
    fn stats(&mut self) -> EventStats {
        EventStats { sent: self.sent(), waiting: self.waiting(), readable: self.readable(), dropped: self.dropped() }
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
    fn as_any_mut(&mut self) -> &mut dyn Any {
        self
    }
}

/// Every event queue of one world. Queues are never removed, so an index names one
/// for the world's lifetime.
#[derive(Default)]
pub(crate) struct Events {
    by_type: IdMap<TypeId, usize>,
    queues: Vec<Box<dyn AnyQueue>>,
}

impl Events {
    /// The index of `E`'s queue, creating it on first sight.
    pub(crate) fn index_or_register<E: Event>(&mut self) -> usize {
        let next = self.queues.len();
        let queues = &mut self.queues;
        *self.by_type.entry(TypeId::of::<E>()).or_insert_with(|| {
            queues.push(Box::new(EventQueue::<E>::default()));
            next
        })
    }

    #[inline]
    pub(crate) fn queue<E: Event>(&self, index: usize) -> &EventQueue<E> {
        self.queues[index].as_any().downcast_ref().expect("event queue stored under its own type")
    }

    #[inline]
    pub(crate) fn queue_mut<E: Event>(&mut self, index: usize) -> &mut EventQueue<E> {
        self.queues[index].as_any_mut().downcast_mut().expect("event queue stored under its own type")
    }

    fn get_or_register<E: Event>(&mut self) -> &mut EventQueue<E> {
        let index = self.index_or_register::<E>();
        self.queue_mut(index)
    }
}

/// A world-level reader of events `E`, made by [`World::event_cursor`] and read with
/// [`World::read_events`]. Like a system's [`EventReader`](crate::EventReader), it
/// reads each event once and holds back the queue's cleanup until it has.
pub struct EventCursor<E: Event> {
    state: ReaderState,
    world: WorldId,
    _event: PhantomData<fn(E)>,
}

impl<E: Event> EventCursor<E> {
    /// Events a bounded queue dropped before this cursor read them.
    pub fn missed(&self) -> u64 {
        self.state.missed
    }
}

impl<E: Event> std::fmt::Debug for EventCursor<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventCursor").field("event", &std::any::type_name::<E>()).finish_non_exhaustive()
    }
}

/// The events a reader had not read, oldest first. Made by
/// [`EventReader::read`](crate::EventReader::read) and [`World::read_events`].
///
/// The reader has read exactly the events the iterator yielded: the reader's cursor
/// moves past each event as it is yielded, so when the iterator is dropped part-way
/// (a `break`, `take(n)`, `find`, a single `next()`) or forgotten, the events it did
/// not yield wait for the reader's next read. Asking the length
/// ([`ExactSizeIterator::len`]) reads nothing; [`count`](Iterator::count) reads all of
/// them.
///
/// The iterator has no `Drop`, so its borrow of the reader ends at its last use, as
/// any borrow does:
///
/// ```
/// use ripple::{EventReader, EventWriter, IntoSystemConfig, PRE_UPDATE, Schedule, World};
/// struct Ping(u32);
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// let send = |mut pings: EventWriter<Ping>| pings.send_batch([Ping(1), Ping(2)]);
/// schedule.add_system(&mut world, send.in_phase(PRE_UPDATE)).unwrap();
/// let peek = |mut pings: EventReader<Ping>| {
///     let mut unread = pings.read();
///     if let Some(first) = unread.next() {
///         assert_eq!(first.0, 1);
///         // `unread` is not used again: the reader is free, and one event is left.
///         assert_eq!(pings.len(), 1);
///     }
/// };
/// schedule.add_system(&mut world, peek).unwrap();
/// schedule.run(&mut world);
/// ```
pub struct EventIter<'a, E> {
    pub(crate) events: std::collections::vec_deque::Iter<'a, E>,
    /// The reader's position, moved past each event as it is yielded.
    pub(crate) cursor: &'a AtomicU64,
    /// The position just past the last readable event.
    pub(crate) end: u64,
}

impl<E> EventIter<'_, E> {
    /// Moves the reader's cursor to just past the last event yielded.
    #[inline]
    fn commit(&self) {
        self.cursor.store(self.end - self.events.len() as u64, Ordering::Relaxed);
    }
}

impl<'a, E> Iterator for EventIter<'a, E> {
    type Item = &'a E;
    #[inline]
    fn next(&mut self) -> Option<&'a E> {
        let event = self.events.next()?;
        self.commit();
        Some(event)
    }
    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.events.size_hint()
    }
    #[inline]
    fn nth(&mut self, n: usize) -> Option<&'a E> {
        let event = self.events.nth(n);
        self.commit();
        event
    }
    /// Counts the events and reads them all, in O(1).
    #[inline]
    fn count(mut self) -> usize {
        let count = self.events.len();
        self.events = Default::default();
        self.commit();
        count
    }
    #[inline]
    fn fold<B, F: FnMut(B, &'a E) -> B>(mut self, init: B, f: F) -> B {
        /// Commits on the way out, also if `f` panics: the events it was given count
        /// as read (the inner iterator moves past each event before `f` sees it).
        struct CommitOnExit<'i, 'a, E>(&'i mut EventIter<'a, E>);
        impl<E> Drop for CommitOnExit<'_, '_, E> {
            #[inline]
            fn drop(&mut self) {
                self.0.commit();
            }
        }
        let guard = CommitOnExit(&mut self);
        guard.0.events.by_ref().fold(init, f)
    }
}

impl<E> std::fmt::Debug for EventIter<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EventIter").field("remaining", &self.events.len()).finish_non_exhaustive()
    }
}

impl<E> ExactSizeIterator for EventIter<'_, E> {}

/// Counters of one event type's queue (see [`World::event_stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EventStats {
    /// Events sent in the world's lifetime, merged ones included.
    pub sent: u64,
    /// Events waiting for the next sync point (after merging).
    pub waiting: usize,
    /// Events readable now and kept for the reader furthest behind.
    pub readable: usize,
    /// Events a bounded queue dropped before every reader read them.
    pub dropped: u64,
}

impl World {
    /// Registers event type `E` (sending or reading does this too).
    pub fn add_event<E: Event>(&mut self) {
        self.events.get_mut::<Events>().index_or_register::<E>();
    }

    /// Sends `event`; it becomes readable at the next sync point
    /// ([`World::deliver_events`], which every schedule phase ends with).
    ///
    /// ```
    /// # use ripple::World;
    /// let mut world = World::new();
    /// let mut cursor = world.event_cursor::<&str>();
    /// world.send_event("hello");
    /// assert_eq!(world.read_events(&mut cursor).count(), 0); // not delivered yet
    /// world.deliver_events();
    /// assert_eq!(world.read_events(&mut cursor).collect::<Vec<_>>(), [&"hello"]);
    /// assert_eq!(world.read_events(&mut cursor).count(), 0); // read once
    /// ```
    pub fn send_event<E: Event>(&mut self, event: E) {
        self.events.get_mut::<Events>().get_or_register::<E>().outbox().send(event);
    }

    /// Sends every event of `events`, in order.
    pub fn send_events<E: Event>(&mut self, events: impl IntoIterator<Item = E>) {
        self.events.get_mut::<Events>().get_or_register::<E>().outbox().send_all(events);
    }

    /// A world-level reader of `E`, which reads the events delivered from the next
    /// sync point on.
    pub fn event_cursor<E: Event>(&mut self) -> EventCursor<E> {
        EventCursor {
            state: ReaderState::register::<E>(self.events.get_mut::<Events>()),
            world: self.id(),
            _event: PhantomData,
        }
    }

    /// The events `cursor` has not read yet, oldest first. The cursor has read the
    /// events the iterator yields; those it does not (the iterator dropped part-way)
    /// wait for the next read.
    ///
    /// ```
    /// # use ripple::World;
    /// let mut world = World::new();
    /// let mut cursor = world.event_cursor::<u32>();
    /// world.send_events([1u32, 2, 3]);
    /// world.deliver_events();
    /// assert_eq!(world.read_events(&mut cursor).next(), Some(&1));
    /// assert_eq!(world.read_events(&mut cursor).copied().collect::<Vec<_>>(), [2, 3]);
    /// ```
    ///
    /// # Panics
    /// If `cursor` was made by another world.
    pub fn read_events<'a, E: Event>(&'a self, cursor: &'a mut EventCursor<E>) -> EventIter<'a, E> {
        assert!(
            cursor.world == self.id(),
            "an EventCursor<{}> was used with another world",
            std::any::type_name::<E>()
        );
        cursor.state.read(self.events.get::<Events>().queue::<E>(cursor.state.index))
    }

    /// The sync point for events: makes every event sent since the last one readable,
    /// and forgets events that every reader has read. Schedules call it at the end of
    /// each phase; call it yourself when driving the world without a schedule.
    pub fn deliver_events(&mut self) {
        for queue in &mut self.events.get_mut::<Events>().queues {
            queue.deliver();
        }
    }

    /// Coalesces events of type `E` that wait for the same sync point and share a key:
    /// sending an event whose `key` is already waiting folds it into that one with
    /// `combine`, in O(1). Replaces any earlier policy; events already waiting are not
    /// merged retroactively.
    ///
    /// Readers get one event per key, in the order the keys were first sent, each
    /// combined in send order. Keys are looked up in an open-addressing table that
    /// keeps its memory from one sync point to the next; past 262,144 distinct keys in
    /// one sync point, where the table and the events outgrow the caches, each send is
    /// looked up a few dozen sends later, with its table slot and event loaded ahead,
    /// so that lookups overlap their waits for memory (the last sends take effect at
    /// the sync point; nothing observable changes). A send stays O(1), amortized; it
    /// costs more at a million keys than at a thousand all the same, since each one
    /// reaches memory outside the caches (see the `merge_send` benchmark). Keys may
    /// come from data: keys chosen to crowd the table's hash (an attacker flooding one
    /// probe chain) are noticed by the table, which then hashes with a random salt, so
    /// they cost about what ordinary keys cost (the `merge_flood` benchmark). `key` is
    /// called once per send and once more per waiting event a send is compared with,
    /// so it should be cheap (a copied field, an `Entity`); `combine` must not change
    /// an event's key. If `key` or `combine` panics, the event being
    /// merged is lost and the panic reaches the sender, or, for an event held back,
    /// whoever next completes the held-back sends: a later send, [`event_stats`],
    /// a change of policy, or the sync point.
    ///
    /// [`event_stats`]: World::event_stats
    ///
    /// ```
    /// # use ripple::World;
    /// #[derive(Debug, PartialEq)]
    /// struct Damage { target: u32, amount: u32 }
    /// let mut world = World::new();
    /// world.merge_events_by(|d: &Damage| d.target, |sum: &mut Damage, d| sum.amount += d.amount);
    /// let mut cursor = world.event_cursor::<Damage>();
    /// for _ in 0..20 {
    ///     world.send_event(Damage { target: 7, amount: 3 });
    /// }
    /// world.deliver_events();
    /// let delivered: Vec<_> = world.read_events(&mut cursor).collect();
    /// assert_eq!(delivered, [&Damage { target: 7, amount: 60 }]);
    /// ```
    pub fn merge_events_by<E, K>(
        &mut self,
        key: impl Fn(&E) -> K + Send + Sync + 'static,
        combine: impl Fn(&mut E, E) + Send + Sync + 'static,
    ) where
        E: Event,
        K: Hash + Eq + Send + Sync + 'static,
    {
        self.events.get_mut::<Events>().get_or_register::<E>().set_merge(Some(Box::new(MergeBy::new(key, combine))));
    }

    /// Stops merging events of type `E`.
    pub fn clear_merge_policy<E: Event>(&mut self) {
        self.events.get_mut::<Events>().get_or_register::<E>().set_merge(None);
    }

    /// Keeps at most `capacity` readable events of type `E` (`None`, the default:
    /// unbounded, every event is kept until every reader has read it). A bounded queue
    /// drops the oldest events at the sync point and counts them: see
    /// [`EventStats::dropped`] and each reader's `missed()`.
    pub fn set_event_capacity<E: Event>(&mut self, capacity: Option<usize>) {
        self.events.get_mut::<Events>().get_or_register::<E>().set_capacity(capacity);
    }

    /// Counters of `E`'s queue (all zero if `E` was never used).
    pub fn event_stats<E: Event>(&mut self) -> EventStats {
        let Some(&index) = self.events.get::<Events>().by_type.get(&TypeId::of::<E>()) else {
            return EventStats::default();
        };
        self.events.get_mut::<Events>().queues[index].stats()
    }

    /// Calls `f` with every event type's name and counters, in the order the types
    /// were first used: for tools that show a world's events without knowing their
    /// types. O(event types).
    pub fn for_each_event_type(&mut self, mut f: impl FnMut(&'static str, EventStats)) {
        for queue in &mut self.events.get_mut::<Events>().queues {
            f(queue.name(), queue.stats());
        }
    }
}

/// Sending events from a command queue (a system's [`Commands`]).
impl Commands<'_, '_> {
    /// Queues sending `event` (see [`World::send_event`]). From a system, it is sent
    /// when the sync point applies the queue, and delivered at the end of that same
    /// sync point.
    pub fn send_event<E: Event>(&mut self, event: E) {
        self.queue.push(move |world: &mut World| world.send_event(event));
    }
}
