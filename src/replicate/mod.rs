//! Deltas and replication: what changed in a world since a peer last heard of it, as
//! bytes, at the cost of what changed.
//!
//! A [`Replicator`] on the sending side follows the change lists of the components a
//! [`SceneRegistry`](crate::scene::SceneRegistry) names, for the entities marked
//! [`Replicated`], into a journal of ticks shared by all its peers. Each peer's delta
//! is the journal's ticks since the peer's window starts (its last acknowledged delta,
//! or its last sent one: [`AckMode`]), through the peer's [`Visibility`]: entities
//! that entered the peer's view whole, entities that left it as despawned, and for
//! the others the values set and the components removed. A [`DeltaReceiver`] applies
//! deltas on the other side, all-or-nothing, mapping the sender's entities to its own.
//!
//! Replication to clients, mirroring into an editor, incremental autosaves and undo
//! logs are all deltas; the transport is the caller's.

mod encode;
mod error;
mod journal;
mod json;
mod peer;
mod peer_handles;
mod receiver;
mod receiver_limits;
mod server;
mod wire;

pub use error::{DeltaError, ReplicateError};
pub use json::delta_to_json;
pub use peer::{AckMode, PeerConfig, PeerId, Visibility};
pub use receiver::{Applied, DeltaReceiver};
pub use receiver_limits::{ReceiverLimit, ReceiverLimits, RefusedParent};
pub use server::{DEFAULT_JOURNAL_LIMIT, DeltaInfo, Replicated, Replicator};
pub use wire::MAX_REPLICATED_COMPONENTS;
