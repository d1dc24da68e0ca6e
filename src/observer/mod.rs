//! Observers: any number of reactions, added and removed while the program runs, to
//! what happens to entities — a component added, inserted, replaced, removed or
//! **changed**, an entity despawned, or an event of your own (which may bubble up
//! [`ChildOf`](crate::hierarchy::ChildOf) links). Each observer is a system: a function of a
//! [`Trigger`] and ordinary system parameters.
//!
//! Change observers ([`OnChange`]) are fed at sync points from the change records that
//! `Changed<T>` queries read, so they cost what changed, never what exists.
//!
//! This module uses the core through one extension point (the world's reactor, told of
//! structural changes where hooks run and of sync points); the core does not know it.

mod api;
mod change_watch;
mod error;
mod event;
mod keys;
mod lists;
mod mutation;
mod registry;
mod system;

pub(crate) use change_watch::ChangeWatch;
pub use error::ObserverError;
#[doc(hidden)]
pub use event::ObserverKey;
pub use event::{ObserverEvent, OnAdd, OnChange, OnDespawn, OnInsert, OnRemove, OnReplace, Trigger};
pub(crate) use keys::Key;
pub use keys::ObserverId;
pub use mutation::MAX_CHANGE_ROUNDS;
pub use registry::MAX_OBSERVER_ERRORS;
pub use system::ObserverFunction;
