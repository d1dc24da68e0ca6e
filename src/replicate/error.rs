//! Errors of writing and applying deltas.

use std::fmt;

use crate::entity::Entity;

use super::receiver_limits::ReceiverLimit;
use super::wire::{MAX_REPLICATED_COMPONENTS, Malformed};

/// Why a [`Replicator`](super::Replicator) could not do what it was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReplicateError {
    /// No peer has this id (it was removed, or never added).
    NoSuchPeer {
        /// The id asked for.
        peer: u32,
    },
    /// The registry names more component types than a delta can carry.
    TooManyComponents {
        /// How many it names.
        registered: usize,
    },
    /// A value's `Serialize` failed; nothing was written.
    Value {
        /// The component's registered name.
        component: String,
        /// The entity whose value failed.
        entity: Entity,
        /// The serializer's message.
        message: String,
    },
}

impl fmt::Display for ReplicateError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplicateError::NoSuchPeer { peer } => write!(f, "no peer {peer} in this replicator"),
            ReplicateError::TooManyComponents { registered } => write!(
                f,
                "the registry names {registered} component types; a delta carries at most {MAX_REPLICATED_COMPONENTS}"
            ),
            ReplicateError::Value { component, entity, message } => {
                write!(f, "could not write `{component}` of {entity}: {message}")
            }
        }
    }
}

impl std::error::Error for ReplicateError {}

/// Why a delta was refused. A refused delta changes nothing in the receiving world
/// or in the receiver's state.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeltaError {
    /// The input does not start as a delta does.
    NotADelta,
    /// A delta of a format version this build does not read.
    Version {
        /// The version the delta names.
        found: u8,
    },
    /// The sender's registry names other components (or another order, or types of
    /// the same names that read other data) than the receiver's.
    Schema {
        /// The receiver's fingerprint of its registry.
        expected: u32,
        /// The delta's.
        found: u32,
    },
    /// The bytes end early or hold something no writer writes.
    Malformed {
        /// Byte offset in the delta.
        at: usize,
        /// What was being read.
        what: &'static str,
    },
    /// A record names a component index past the registry's.
    UnknownComponent {
        /// Byte offset of the record's header.
        at: usize,
        /// The set of components the header names.
        components: u64,
    },
    /// Applying the delta would take the receiver past one of its
    /// [`ReceiverLimits`](super::ReceiverLimits).
    Limit {
        /// Which limit.
        limit: ReceiverLimit,
        /// The limit's value.
        max: usize,
        /// What the delta would have made it.
        would_be: usize,
    },
    /// A value could not be read as its component type.
    Value {
        /// Byte offset of the value.
        at: usize,
        /// The component's registered name.
        component: String,
        /// The sender's handle of the entity the value belongs to.
        entity: Entity,
        /// What was wrong.
        message: String,
    },
}

impl From<Malformed> for DeltaError {
    fn from(error: Malformed) -> Self {
        DeltaError::Malformed { at: error.at, what: error.what }
    }
}

impl fmt::Display for DeltaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DeltaError::NotADelta => f.write_str("the input is not a ripple delta"),
            DeltaError::Version { found } => {
                write!(f, "delta format version {found}; this build reads version {}", super::wire::VERSION)
            }
            DeltaError::Schema { expected, found } => write!(
                f,
                "the delta was written with another registry (fingerprint {found:#010x}, this receiver's is \
                 {expected:#010x}): register the same component types under the same names, in the same order"
            ),
            DeltaError::Malformed { at, what } => write!(f, "malformed delta at byte {at}: {what}"),
            DeltaError::UnknownComponent { at, components } => {
                write!(f, "record at byte {at} names components {components:#b}, past the registry's")
            }
            DeltaError::Limit { limit, max, would_be } => write!(
                f,
                "the delta would make {would_be} {limit}, past the receiver's limit of {max}; nothing was applied"
            ),
            DeltaError::Value { at, component, entity, message } => {
                write!(f, "could not read `{component}` of {entity} at byte {at}: {message}")
            }
        }
    }
}

impl std::error::Error for DeltaError {}
