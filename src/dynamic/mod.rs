//! Components defined at run time: no Rust type, a name and a layout (what scripting
//! layers and editors define), reached by [`ComponentId`](crate::ComponentId).
//!
//! Register one with [`World::register_component`](crate::World::register_component);
//! then [`insert_by_id`](crate::World::insert_by_id),
//! [`get_by_id`](crate::World::get_by_id), [`get_mut_by_id`](crate::World::get_mut_by_id)
//! and [`remove_by_id`](crate::World::remove_by_id) work with its values as bytes, and
//! a [`DynamicQuery`] iterates the entities that have a set of them. They live in
//! tables or sparse sets like typed components, and everything that follows typed
//! components follows them: change tracking (`Added`, `Changed`), removal streams,
//! hooks, observers, despawns and the structural-change log.
//!
//! Typed components have ids too, but their bytes are not exposed (padding need not be
//! initialised, and not every byte string is a valid value): the byte calls refuse
//! them with [`DynamicError::Typed`], while filters (`with`, `without`, `changed`,
//! `added`), [`World::track_by_id`](crate::World::track_by_id) and
//! [`World::removal_reader_by_id`](crate::World::removal_reader_by_id) accept either.

mod descriptor;
mod observe;
mod query;
mod world_ops;

pub use descriptor::{ComponentDescriptor, DynamicError};
pub use observe::{Moment, OnComponent};
pub use query::{DynamicItem, DynamicQuery, DynamicQueryBuilder, DynamicTable};
pub use world_ops::RuntimeComponent;
