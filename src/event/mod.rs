//! Events: typed values sent by systems and read by other systems after the next sync
//! point, each reader with its own cursor, with optional merging and bounds.
//!
//! Delivery is deterministic even with parallel systems: events sent during a phase
//! wait in an outbox; the phase's sync point makes them readable, in send order. Two
//! writers of one event type never run at the same time (their declared accesses
//! conflict), so send order is the schedule's order.

mod key_hash;
mod key_table;
mod merge;
mod param;
mod queue;
mod registry;

pub use param::{EventReader, EventWriter, ReaderState, on_event};
pub(crate) use registry::Events;
pub use registry::{Event, EventCursor, EventIter, EventStats};

/// Gives `world` its event queues (none yet: one per event type as types are used).
pub(crate) fn install(world: &mut crate::World) {
    world.events = crate::world::extension::Extension::new(Events::default());
}
