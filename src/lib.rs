//! ripple is an Entity-Component-System in which **a frame costs what changed, not
//! what exists**.
//!
//! Its goals, in ranked order:
//! 1. **Correct**: stale entities, aliasing queries and bad input give typed errors or
//!    precise panics, never another entity's data; every `unsafe` block names its
//!    invariant.
//! 2. **Proportional cost**: with opt-in change tracking ([`Changed`](query::Changed), [`Added`](query::Added),
//!    [`Dirty`](query::Dirty), removal streams), work follows what changed; iteration over what
//!    exists is as fast as the fastest peers.
//! 3. **Steady frames allocate nothing**: archetype tables are pools whose capacity
//!    survives churn.
//! 4. **Small and plain**: one concept per module, no framework.
//!
//! ```
//! use ripple::prelude::*;
//!
//! #[derive(Debug, PartialEq)]
//! struct Position(f32, f32);
//! struct Velocity(f32, f32);
//! struct Resting;
//!
//! let mut world = World::new();
//! let ball = world.spawn((Position(0.0, 0.0), Velocity(1.0, 2.0)));
//! world.spawn_batch((0..1000).map(|i| (Position(i as f32, 0.0), Resting)));
//!
//! // Queries cache the tables they match; keep them between frames.
//! let mut movers = world.query_filtered::<(&Velocity, &mut Position), Without<Resting>>();
//! for _frame in 0..3 {
//!     movers.for_each_mut(&mut world, |(v, mut p)| {
//!         p.0 += v.0;
//!         p.1 += v.1;
//!     });
//! }
//! assert_eq!(world.get::<Position>(ball), Ok(&Position(3.0, 6.0)));
//!
//! world.despawn(ball).unwrap();
//! assert!(world.get::<Position>(ball).is_err()); // a stale handle is an error
//! ```
//!
//! Components are any `'static + Send + Sync` type; bundles are tuples of up to 16
//! distinct components. See [`World`] for entity operations and [`QueryState`](query::QueryState) for
//! queries.

#![cfg_attr(docsrs, feature(doc_cfg))]

// The core, re-exported at the root below: entities, components, storage, change
// tracking, the world, commands and hooks.
mod api;
mod builtin;
mod bundle;
mod change;
mod commands;
mod component;
mod disabled;
mod entity;
mod entity_mut;
mod entity_ref;
#[cfg(feature = "persistence")]
mod entity_serde;
mod error;
mod hook;
mod immutable;
mod one_component;
mod one_shot_id;
mod reactor;
mod relation_error;
mod relation_registry;
mod required;
mod resource;
mod sparse_mut;
mod spawn_batch;
mod storage;
mod storage_choice;
mod util;
mod world;

// The floors above the core, each a module of its own.
pub mod query;

pub mod message;
pub mod schedule;
pub mod system;

pub mod dynamic;
pub mod hierarchy;
pub mod observer;
pub mod relation;
pub mod rollback;

#[cfg(feature = "persistence")]
#[cfg_attr(docsrs, doc(cfg(feature = "persistence")))]
pub mod data;
#[cfg(feature = "persistence")]
#[cfg_attr(docsrs, doc(cfg(feature = "persistence")))]
pub mod scene;

#[cfg(feature = "persistence")]
#[cfg_attr(docsrs, doc(cfg(feature = "persistence")))]
pub mod replicate;

pub use api::{Api, ApiMut};
pub use bundle::Bundle;
#[doc(hidden)]
pub use bundle::BundleRow;
pub use change::{Mut, Removals, RemovedReader, Tick};
pub use commands::{Command, CommandQueue, Commands, EntityCommands};
pub use component::{Component, ComponentId, Storage};
pub use disabled::Disabled;
pub use entity::Entity;
pub use entity_mut::EntityMut;
pub use entity_ref::{ComponentRefs, EntityRef};
pub use error::{
    CommandError, CommandFailure, ComponentError, MissingComponent, MissingResource, NoSuchEntity, NotSparse,
    QueryEntityError, RunRefused, StorageInUse,
};
pub use hook::{HookContext, MAX_HOOK_ROUNDS};
pub use one_shot_id::OneShotId;
pub use required::RequiredComponentsError;
pub use sparse_mut::SparseMut;
pub use spawn_batch::SpawnBatch;
pub use storage::ArchetypeId;
pub use util::type_name::short_type_name;
pub use world::World;
pub use world::inspect::{ComponentSummary, TableSummary, WorldMemory};
#[allow(deprecated, reason = "the former name stays one release")]
pub use world::memory::ObserverMemory;
pub use world::memory::{BacklogMemory, DEFAULT_CHANGE_LOG_LIMIT, LogMemory, MAX_FAILED_COMMANDS};

/// The types most programs need: `use ripple::prelude::*;`.
pub mod prelude {
    pub use crate::hierarchy::{ChildOf, Children, Propagation};
    pub use crate::message::{Message, MessageReader, MessageWriter};
    pub use crate::observer::{ObserverEvent, OnAdd, OnChange, OnDespawn, OnInsert, OnRemove, OnReplace, Trigger};
    pub use crate::query::{Added, Changed, Dirty, Or, QueryState, Ref, With, Without};
    pub use crate::schedule::{IntoSystemConfig, IntoSystemGroup, Schedule};
    pub use crate::system::{
        In, InMut, InRef, IntoCondition, IntoIoSystem, Local, ParamSet, Populated, Query, Removed, Res, ResMut, Single,
        SystemResult, not, resource_exists,
    };
    pub use crate::{Api, ApiMut, Bundle, Commands, Component, Entity, HookContext, Mut, World};
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
