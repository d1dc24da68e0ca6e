//! What can go wrong with observers: registering one, and running them.

use std::fmt;

use crate::component::ComponentId;
use crate::entity::Entity;

use super::keys::ObserverId;

/// Why an observer could not be registered or removed, or what went wrong while
/// observers ran (see [`World::take_observer_errors`](crate::World::take_observer_errors)).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ObserverError {
    /// The observer's own parameters conflict; nothing was registered.
    ConflictingParams {
        /// The observer's name.
        observer: String,
        /// Each conflict, naming the type.
        conflicts: Vec<String>,
    },
    /// The handle names no registered observer (removed, or from another world).
    NoSuchObserver(ObserverId),
    /// An observer was aimed at an entity that is not alive; nothing was registered.
    NoSuchEntity(Entity),
    /// An observer by id named a component this world does not have; nothing was
    /// registered.
    UnknownComponent(ComponentId),
    /// An observer panicked. The observers after it still ran, the operation that
    /// triggered it completed, and the commands it queued before panicking applied.
    Panicked {
        /// The observer.
        observer: ObserverId,
        /// Its name.
        name: String,
        /// The panic's message, if it had one.
        message: String,
    },
    /// Change observers kept writing what they observe: after `rounds` rounds of
    /// delivery at one sync point, the changes still waiting were left for the next
    /// sync point (none is lost).
    TooManyRounds {
        /// Rounds delivered at that sync point.
        rounds: usize,
    },
}

impl fmt::Display for ObserverError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ObserverError::ConflictingParams { observer, conflicts } => {
                write!(f, "observer `{observer}` has conflicting parameters: {}", conflicts.join("; "))
            }
            ObserverError::NoSuchObserver(id) => write!(f, "observer {id:?} is not registered (removed?)"),
            ObserverError::NoSuchEntity(entity) => {
                write!(f, "cannot observe entity {entity}: it is not alive")
            }
            ObserverError::UnknownComponent(id) => {
                write!(f, "cannot observe component {id:?}: no component has this id in this world")
            }
            ObserverError::Panicked { name, message, .. } => write!(f, "observer `{name}` panicked: {message}"),
            ObserverError::TooManyRounds { rounds } => write!(
                f,
                "change observers kept changing what they observe; after {rounds} rounds the rest waits for the next sync point"
            ),
        }
    }
}

impl std::error::Error for ObserverError {}

/// The message a panic carried, if it was a string.
pub(crate) fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    if let Some(message) = panic.downcast_ref::<&str>() {
        (*message).to_string()
    } else if let Some(message) = panic.downcast_ref::<String>() {
        message.clone()
    } else {
        "(a panic without a message)".to_string()
    }
}
