//! [`MessageWriter`] and [`MessageReader`]: the system parameters for messages.

use std::marker::PhantomData;

use crate::system::{ReadOnlySystemParam, SystemMeta, SystemParam};
use crate::world::World;

use super::queue::{Cursor, MessageQueue, Outbox};
use super::registry::{Message, MessageIter, Messages};

/// The access key of sending `E`: writers of one message type exclude each other.
struct Sends<E>(PhantomData<fn(E)>);

/// Messages of type `E`, as an order-sensitive access: a reader running beside a
/// writer of `E` (no order between them) reads its messages the next run, so the
/// pair is an ambiguity.
pub struct MessagesOf<E>(PhantomData<fn(E)>);

/// Sends messages of type `E` (a system parameter). They become readable when the
/// writer's stage ends, to every system ordered after it in the same schedule run
/// (at the phase's sync point for a type under a merge policy); a merge policy set with
/// [`World::merge_messages_by`](crate::World::merge_messages_by) applies as they are sent.
///
/// Two systems that send `E` never run at the same time, so the order of delivered
/// messages is the schedule's order; a writer may run alongside readers of `E`.
pub struct MessageWriter<'w, E: Message> {
    outbox: &'w mut Outbox<E>,
}

impl<E: Message> MessageWriter<'_, E> {
    /// Sends `message`.
    #[inline]
    pub fn write(&mut self, message: E) {
        self.outbox.send(message);
    }

    /// Sends every message of `messages`, in order.
    pub fn write_batch(&mut self, messages: impl IntoIterator<Item = E>) {
        self.outbox.send_all(messages);
    }
}

// SAFETY: declares a write of `Sends<E>`, which only `MessageWriter<E>` touches, and
// only touches `E`'s outbox, which nothing else reaches through a shared world.
unsafe impl<E: Message> SystemParam for MessageWriter<'_, E> {
    type State = usize;
    type Item<'w, 's> = MessageWriter<'w, E>;

    /// Only reads (or writes in place): nothing to apply at a sync point.
    const DEFERS: bool = false;
    fn init(world: &mut World, meta: &mut SystemMeta) -> usize {
        meta.add_resource_access::<Sends<E>>(true, std::any::type_name::<Self>());
        meta.add_order_sensitive::<MessagesOf<E>>(true);
        world.messages.get_mut::<Messages>().index_or_register::<E>()
    }

    unsafe fn get<'w>(index: &mut usize, world: &'w World, _: &SystemMeta) -> MessageWriter<'w, E> {
        let messages = world.messages.get::<Messages>();
        messages.mark_pending();
        let queue: &MessageQueue<E> = messages.queue(*index);
        // SAFETY: the declared write of `Sends<E>` makes this the only writer of `E`
        // running (caller), and readers never touch the outbox.
        MessageWriter { outbox: unsafe { queue.outbox_unchecked() } }
    }
}

/// What an [`MessageReader`] (or an [`MessageCursor`](crate::message::MessageCursor)) keeps between
/// reads: where it is in the queue.
pub struct ReaderState {
    pub(crate) index: usize,
    cursor: Cursor,
    pub(crate) missed: u64,
}

impl ReaderState {
    /// A new reader of `E`: it reads the messages delivered from the next delivery on.
    pub(crate) fn register<E: Message>(messages: &mut Messages) -> Self {
        let index = messages.index_or_register::<E>();
        let cursor = messages.queue_mut::<E>(index).register_reader();
        ReaderState { index, cursor, missed: 0 }
    }

    /// The messages of `queue` (this reader's) not read yet, oldest first; each counts
    /// as read once the iterator has yielded it.
    #[inline]
    pub(crate) fn read<'a, E: Message>(&'a mut self, queue: &'a MessageQueue<E>) -> MessageIter<'a, E> {
        queue.read(&self.cursor, &mut self.missed)
    }

    /// Marks every message of `queue` (this reader's) read.
    pub(crate) fn read_all<E: Message>(&mut self, queue: &MessageQueue<E>) {
        queue.read_all(&self.cursor, &mut self.missed);
    }
}

/// Reads messages of type `E` (a system parameter). Each reader has its own cursor: it
/// reads every message delivered since it was added exactly once — including those
/// delivered while its system was disabled — unless a bounded queue dropped them,
/// which [`missed`](Self::missed) counts.
///
/// # A new reader starts at the next delivery
/// A reader added to a running schedule reads the messages delivered from the next
/// delivery on (a stage's end, a sync point, a run's start), none of those delivered
/// before it existed. bevy_ecs's readers start
/// with whatever its buffers still hold (up to two updates' worth). ripple keeps an
/// message until every reader has read it, so what is still held when a reader arrives
/// depends on how far behind the other readers are; starting after it gives every new
/// reader the same, well-defined first message, whatever the others did.
///
/// ```
/// use ripple::World;
/// use ripple::message::{MessageReader, MessageWriter};
/// use ripple::schedule::{IntoSystemConfig, PRE_UPDATE, Schedule};
/// use ripple::system::ResMut;
/// struct Hit(u32);
/// struct Total(u32);
/// let mut world = World::new();
/// world.insert_resource(Total(0));
/// let mut schedule = Schedule::new();
/// let send = |mut hits: MessageWriter<Hit>| hits.send(Hit(1));
/// schedule.add_system(&mut world, send.in_phase(PRE_UPDATE)).unwrap();
/// schedule.run(&mut world); // one hit delivered, nobody reads it
/// let sum = |mut hits: MessageReader<Hit>, mut total: ResMut<Total>| total.0 += hits.read().map(|h| h.0).sum::<u32>();
/// schedule.add_system(&mut world, sum).unwrap();
/// schedule.run(&mut world); // the reader sees this frame's hit, not the earlier one
/// assert_eq!(world.resource::<Total>().unwrap().0, 1);
/// ```
pub struct MessageReader<'w, 's, E: Message> {
    queue: &'w MessageQueue<E>,
    state: &'s mut ReaderState,
}

impl<'w, E: Message> MessageReader<'w, '_, E> {
    /// The messages not read yet, oldest first. This reader has read the messages the
    /// iterator yields; those it does not yield (a `break`, `take(n)`, `find` or a
    /// single `next()`) wait for the next read.
    #[inline]
    pub fn read(&mut self) -> MessageIter<'_, E> {
        self.state.read(self.queue)
    }

    /// How many messages are waiting for this reader.
    #[inline]
    pub fn len(&self) -> usize {
        self.queue.unread(&self.state.cursor)
    }

    /// Whether no message is waiting for this reader.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Marks every waiting message read without looking at them.
    pub fn clear(&mut self) {
        self.state.read_all(self.queue);
    }

    /// Messages a bounded queue dropped before this reader read them, in its lifetime.
    pub fn missed(&self) -> u64 {
        self.state.missed
    }
}

// SAFETY: reads only the readable buffer of `E`'s queue, which changes only at sync
// points (exclusive world access, never while systems run); the cursor is its own.
unsafe impl<E: Message> SystemParam for MessageReader<'_, '_, E> {
    type State = ReaderState;
    type Item<'w, 's> = MessageReader<'w, 's, E>;

    /// Only reads (or writes in place): nothing to apply at a sync point.
    const DEFERS: bool = false;
    fn init(world: &mut World, meta: &mut SystemMeta) -> ReaderState {
        meta.add_order_sensitive::<MessagesOf<E>>(false);
        ReaderState::register::<E>(world.messages.get_mut::<Messages>())
    }

    unsafe fn get<'w, 's>(state: &'s mut ReaderState, world: &'w World, _: &SystemMeta) -> MessageReader<'w, 's, E> {
        MessageReader { queue: world.messages.get::<Messages>().queue(state.index), state }
    }
}

// Reading messages writes nothing in the world (the cursor is the reader's own), so a
// run condition may take a reader.
impl<E: Message> ReadOnlySystemParam for MessageReader<'_, '_, E> {}

/// A run condition: whether messages of type `E` were delivered since this condition
/// was last evaluated. It reads them (with a reader of its own), so each batch
/// makes it true once; the system it guards reads them with its own reader.
pub fn on_message<E: Message>(mut messages: MessageReader<'_, '_, E>) -> bool {
    let any = !messages.is_empty();
    messages.clear();
    any
}
