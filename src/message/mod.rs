//! Messages: typed values sent by systems and read by other systems, each reader with
//! its own cursor, with optional merging and bounds.
//!
//! Delivery is deterministic even with parallel systems: messages a system sends wait
//! in an outbox while its stage runs; the stage's end makes them readable, in send
//! order, so every system ordered after the writer in the same schedule run reads them
//! (as in bevy_ecs), and a reader running beside the writer reads them the next run.
//! Two writers of one message type never run at the same time (their declared accesses
//! conflict), so send order is the schedule's order. A type under a merge policy is
//! delivered at the phase's sync point, once every writer of the phase has sent.

mod dense_keys;
mod former_names;
mod key_hash;
mod key_table;
mod merge;
mod param;
mod queue;
mod registry;
mod take_front;

#[allow(deprecated, reason = "the former names stay one release")]
pub use former_names::{Event, EventCursor, EventIter, EventReader, EventStats, EventWriter, on_event};
#[doc(hidden)]
pub use param::ReaderState;
pub use param::{MessageReader, MessageWriter, MessagesOf, on_message};
pub(crate) use registry::Messages;
pub use registry::{Message, MessageCursor, MessageIter, MessageStats};

/// Gives `world` its message queues (none yet: one per message type as types are used).
pub(crate) fn install(world: &mut crate::World) {
    world.messages = crate::world::extension::Extension::new(Messages::default());
}
