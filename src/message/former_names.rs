//! The names messages had before they were called messages (bevy_ecs renamed its
//! buffered events the same way), kept for one release so that code written against
//! them still compiles, with a deprecation warning that names the new one.

#![allow(deprecated, reason = "the former names are defined in terms of each other")]

use std::hash::Hash;

use crate::commands::Commands;
use crate::world::World;

use super::param::{MessageReader, MessageWriter};
use super::registry::{Message, MessageCursor, MessageIter, MessageStats};

/// Former name of [`Message`]: every `Send + Sync + 'static` type is both.
#[deprecated(note = "buffered events are called messages: use `Message`")]
pub trait Event: Message {}

impl<T: Message> Event for T {}

/// Former name of [`MessageWriter`].
#[deprecated(note = "use `MessageWriter` (its `send` is now `write`)")]
pub type EventWriter<'w, E> = MessageWriter<'w, E>;

/// Former name of [`MessageReader`].
#[deprecated(note = "use `MessageReader`")]
pub type EventReader<'w, 's, E> = MessageReader<'w, 's, E>;

/// Former name of [`MessageCursor`].
#[deprecated(note = "use `MessageCursor`")]
pub type EventCursor<E> = MessageCursor<E>;

/// Former name of [`MessageIter`].
#[deprecated(note = "use `MessageIter`")]
pub type EventIter<'a, E> = MessageIter<'a, E>;

/// Former name of [`MessageStats`].
#[deprecated(note = "use `MessageStats`")]
pub type EventStats = MessageStats;

/// Former name of [`on_message`](super::on_message).
#[deprecated(note = "use `on_message`")]
pub fn on_event<E: Message>(messages: MessageReader<'_, '_, E>) -> bool {
    super::on_message(messages)
}

impl<E: Message> MessageWriter<'_, E> {
    /// Former name of [`write`](Self::write).
    #[deprecated(note = "use `write`")]
    pub fn send(&mut self, message: E) {
        self.write(message);
    }

    /// Former name of [`write_batch`](Self::write_batch).
    #[deprecated(note = "use `write_batch`")]
    pub fn send_batch(&mut self, messages: impl IntoIterator<Item = E>) {
        self.write_batch(messages);
    }
}

/// The world's message methods under their former names.
impl World {
    /// Former name of [`add_message`](Self::add_message).
    #[deprecated(note = "use `add_message`")]
    pub fn add_event<E: Message>(&mut self) {
        self.add_message::<E>();
    }

    /// Former name of [`write_message`](Self::write_message).
    #[deprecated(note = "use `write_message`")]
    pub fn send_event<E: Message>(&mut self, message: E) {
        self.write_message(message);
    }

    /// Former name of [`write_message_batch`](Self::write_message_batch).
    #[deprecated(note = "use `write_message_batch`")]
    pub fn send_events<E: Message>(&mut self, messages: impl IntoIterator<Item = E>) {
        self.write_message_batch(messages);
    }

    /// Former name of [`message_cursor`](Self::message_cursor).
    #[deprecated(note = "use `message_cursor`")]
    pub fn event_cursor<E: Message>(&mut self) -> MessageCursor<E> {
        self.message_cursor()
    }

    /// Former name of [`read_messages`](Self::read_messages).
    #[deprecated(note = "use `read_messages`")]
    pub fn read_events<'a, E: Message>(&'a self, cursor: &'a mut MessageCursor<E>) -> MessageIter<'a, E> {
        self.read_messages(cursor)
    }

    /// Former name of [`deliver_messages`](Self::deliver_messages).
    #[deprecated(note = "use `deliver_messages`")]
    pub fn deliver_events(&mut self) {
        self.deliver_messages();
    }

    /// Former name of [`merge_messages_by`](Self::merge_messages_by).
    #[deprecated(note = "use `merge_messages_by`")]
    pub fn merge_events_by<E, K>(
        &mut self,
        key: impl Fn(&E) -> K + Send + Sync + 'static,
        combine: impl Fn(&mut E, E) + Send + Sync + 'static,
    ) where
        E: Message,
        K: Hash + Eq + Send + Sync + 'static,
    {
        self.merge_messages_by(key, combine);
    }

    /// Former name of [`set_message_capacity`](Self::set_message_capacity).
    #[deprecated(note = "use `set_message_capacity`")]
    pub fn set_event_capacity<E: Message>(&mut self, capacity: Option<usize>) {
        self.set_message_capacity::<E>(capacity);
    }

    /// Former name of [`message_stats`](Self::message_stats).
    #[deprecated(note = "use `message_stats`")]
    pub fn event_stats<E: Message>(&mut self) -> MessageStats {
        self.message_stats::<E>()
    }

    /// Former name of [`for_each_message_type`](Self::for_each_message_type).
    #[deprecated(note = "use `for_each_message_type`")]
    pub fn for_each_event_type(&mut self, f: impl FnMut(&'static str, MessageStats)) {
        self.for_each_message_type(f);
    }
}

impl Commands<'_, '_> {
    /// Former name of [`write_message`](Self::write_message).
    #[deprecated(note = "use `write_message`")]
    pub fn send_event<E: Message>(&mut self, message: E) {
        self.write_message(message);
    }
}
