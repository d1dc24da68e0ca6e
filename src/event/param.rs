//! [`EventWriter`] and [`EventReader`]: the system parameters for events.

use std::marker::PhantomData;

use crate::system::{ReadOnlySystemParam, SystemMeta, SystemParam};
use crate::world::World;

use super::queue::{Cursor, EventQueue, Outbox};
use super::registry::{Event, EventIter, Events};

/// The access key of sending `E`: writers of one event type exclude each other.
struct Sends<E>(PhantomData<fn(E)>);

/// Sends events of type `E` (a system parameter). They become readable at the end of
/// the current phase; a merge policy set with
/// [`World::merge_events_by`](crate::World::merge_events_by) applies as they are sent.
///
/// Two systems that send `E` never run at the same time, so the order of delivered
/// events is the schedule's order; a writer may run alongside readers of `E`.
pub struct EventWriter<'w, E: Event> {
    outbox: &'w mut Outbox<E>,
}

impl<E: Event> EventWriter<'_, E> {
    /// Sends `event`.
    #[inline]
    pub fn send(&mut self, event: E) {
        self.outbox.send(event);
    }

    /// Sends every event of `events`, in order.
    pub fn send_batch(&mut self, events: impl IntoIterator<Item = E>) {
        self.outbox.send_all(events);
    }
}

// SAFETY: declares a write of `Sends<E>`, which only `EventWriter<E>` touches, and
// only touches `E`'s outbox, which nothing else reaches through a shared world.
unsafe impl<E: Event> SystemParam for EventWriter<'_, E> {
    type State = usize;
    type Item<'w, 's> = EventWriter<'w, E>;

    fn init(world: &mut World, meta: &mut SystemMeta) -> usize {
        meta.add_resource_access::<Sends<E>>(true, std::any::type_name::<Self>());
        world.events.get_mut::<Events>().index_or_register::<E>()
    }

    unsafe fn get<'w>(index: &mut usize, world: &'w World, _: &SystemMeta) -> EventWriter<'w, E> {
        let queue: &EventQueue<E> = world.events.get::<Events>().queue(*index);
        // SAFETY: the declared write of `Sends<E>` makes this the only writer of `E`
        // running (caller), and readers never touch the outbox.
        EventWriter { outbox: unsafe { queue.outbox_unchecked() } }
    }
}

/// What an [`EventReader`] (or an [`EventCursor`](crate::EventCursor)) keeps between
/// reads: where it is in the queue.
pub struct ReaderState {
    pub(crate) index: usize,
    cursor: Cursor,
    pub(crate) missed: u64,
}

impl ReaderState {
    /// A new reader of `E`: it reads the events delivered from the next sync point on.
    pub(crate) fn register<E: Event>(events: &mut Events) -> Self {
        let index = events.index_or_register::<E>();
        let cursor = events.queue_mut::<E>(index).register_reader();
        ReaderState { index, cursor, missed: 0 }
    }

    /// The events of `queue` (this reader's) not read yet, oldest first; each counts
    /// as read once the iterator has yielded it.
    #[inline]
    pub(crate) fn read<'a, E: Event>(&'a mut self, queue: &'a EventQueue<E>) -> EventIter<'a, E> {
        queue.read(&self.cursor, &mut self.missed)
    }

    /// Marks every event of `queue` (this reader's) read.
    pub(crate) fn read_all<E: Event>(&mut self, queue: &EventQueue<E>) {
        queue.read_all(&self.cursor, &mut self.missed);
    }
}

/// Reads events of type `E` (a system parameter). Each reader has its own cursor: it
/// reads every event delivered since it was added exactly once — including those
/// delivered while its system was disabled — unless a bounded queue dropped them,
/// which [`missed`](Self::missed) counts.
///
/// # A new reader starts at the next sync point
/// A reader added to a running schedule reads the events delivered from the next
/// sync point on, none of those delivered before it existed. bevy_ecs's readers start
/// with whatever its buffers still hold (up to two updates' worth). ripple keeps an
/// event until every reader has read it, so what is still held when a reader arrives
/// depends on how far behind the other readers are; starting after it gives every new
/// reader the same, well-defined first event, whatever the others did.
///
/// ```
/// use ripple::{EventReader, EventWriter, IntoSystemConfig, PRE_UPDATE, ResMut, Schedule, World};
/// struct Hit(u32);
/// struct Total(u32);
/// let mut world = World::new();
/// world.insert_resource(Total(0));
/// let mut schedule = Schedule::new();
/// let send = |mut hits: EventWriter<Hit>| hits.send(Hit(1));
/// schedule.add_system(&mut world, send.in_phase(PRE_UPDATE)).unwrap();
/// schedule.run(&mut world); // one hit delivered, nobody reads it
/// let sum = |mut hits: EventReader<Hit>, mut total: ResMut<Total>| total.0 += hits.read().map(|h| h.0).sum::<u32>();
/// schedule.add_system(&mut world, sum).unwrap();
/// schedule.run(&mut world); // the reader sees this frame's hit, not the earlier one
/// assert_eq!(world.resource::<Total>().unwrap().0, 1);
/// ```
pub struct EventReader<'w, 's, E: Event> {
    queue: &'w EventQueue<E>,
    state: &'s mut ReaderState,
}

impl<'w, E: Event> EventReader<'w, '_, E> {
    /// The events not read yet, oldest first. This reader has read the events the
    /// iterator yields; those it does not yield (a `break`, `take(n)`, `find` or a
    /// single `next()`) wait for the next read.
    #[inline]
    pub fn read(&mut self) -> EventIter<'_, E> {
        self.state.read(self.queue)
    }

    /// How many events are waiting for this reader.
    #[inline]
    pub fn len(&self) -> usize {
        self.queue.unread(&self.state.cursor)
    }

    /// Whether no event is waiting for this reader.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Marks every waiting event read without looking at them.
    pub fn clear(&mut self) {
        self.state.read_all(self.queue);
    }

    /// Events a bounded queue dropped before this reader read them, in its lifetime.
    pub fn missed(&self) -> u64 {
        self.state.missed
    }
}

// SAFETY: reads only the readable buffer of `E`'s queue, which changes only at sync
// points (exclusive world access, never while systems run); the cursor is its own.
unsafe impl<E: Event> SystemParam for EventReader<'_, '_, E> {
    type State = ReaderState;
    type Item<'w, 's> = EventReader<'w, 's, E>;

    fn init(world: &mut World, _: &mut SystemMeta) -> ReaderState {
        ReaderState::register::<E>(world.events.get_mut::<Events>())
    }

    unsafe fn get<'w, 's>(state: &'s mut ReaderState, world: &'w World, _: &SystemMeta) -> EventReader<'w, 's, E> {
        EventReader { queue: world.events.get::<Events>().queue(state.index), state }
    }
}

// Reading events writes nothing in the world (the cursor is the reader's own), so a
// run condition may take a reader.
impl<E: Event> ReadOnlySystemParam for EventReader<'_, '_, E> {}

/// A run condition: whether events of type `E` were delivered since this condition
/// was last evaluated. It reads them (with a reader of its own), so each batch
/// makes it true once; the system it guards reads them with its own reader.
pub fn on_event<E: Event>(mut events: EventReader<'_, '_, E>) -> bool {
    let any = !events.is_empty();
    events.clear();
    any
}
