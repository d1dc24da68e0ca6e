//! Messages: typed values sent by systems and read by other systems after the next sync
//! point, each reader with its own cursor, with optional merging and bounds.
//!
//! Delivery is deterministic even with parallel systems: messages sent during a phase
//! wait in an outbox; the phase's sync point makes them readable, in send order. Two
//! writers of one message type never run at the same time (their declared accesses
//! conflict), so send order is the schedule's order.

mod former_names;
mod key_hash;
mod key_table;
mod merge;
mod param;
mod queue;
mod registry;

#[allow(deprecated, reason = "the former names stay one release")]
pub use former_names::{Event, EventCursor, EventIter, EventReader, EventStats, EventWriter, on_event};
#[doc(hidden)]
pub use param::ReaderState;
pub use param::{MessageReader, MessageWriter, on_message};
pub(crate) use registry::Messages;
pub use registry::{Message, MessageCursor, MessageIter, MessageStats};

/// Gives `world` its message queues (none yet: one per message type as types are used).
pub(crate) fn install(world: &mut crate::World) {
    world.messages = crate::world::extension::Extension::new(Messages::default());
}
