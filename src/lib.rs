//! ripple is an Entity-Component-System in which **a frame costs what changed, not
//! what exists**.
//!
//! Its goals, in ranked order:
//! 1. **Correct**: stale entities, aliasing queries and bad input give typed errors or
//!    precise panics, never another entity's data; every `unsafe` block names its
//!    invariant.
//! 2. **Proportional cost**: with opt-in change tracking ([`Changed`], [`Added`],
//!    [`Dirty`], removal streams), work follows what changed; iteration over what
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
//! distinct components. See [`World`] for entity operations and [`QueryState`] for
//! queries.

#![cfg_attr(docsrs, feature(doc_cfg))]

mod abandoned_spawns;
mod api;
mod builtin;
mod bundle;
mod change;
mod commands;
mod component;
#[cfg(feature = "persistence")]
mod data;
mod dynamic;
mod entity;
mod entity_mut;
mod entity_ref;
#[cfg(feature = "persistence")]
mod entity_serde;
#[cfg(feature = "persistence")]
mod entity_upcoming;
mod error;
mod event;
mod hash;
mod hierarchy;
mod hint;
mod hook;
mod observer;
mod one_component;
mod one_shot_id;
mod query;
mod reactor;
mod relation_error;
mod relation_registry;
mod relationship;
#[cfg(feature = "persistence")]
mod replicate;
mod resource;
#[cfg(feature = "persistence")]
mod scene;
mod schedule;
mod sparse_mut;
mod spawn_batch;
mod storage;
mod storage_choice;
mod system;
mod tuples;
mod type_name;
mod world;

pub use api::{Api, ApiMut};
pub use bundle::Bundle;
#[doc(hidden)]
pub use bundle::BundleRow;
pub use change::{Mut, Removals, RemovedReader, Tick};
pub use commands::{Command, CommandQueue, Commands, EntityCommands};
pub use component::{Component, ComponentId, Storage};
#[cfg(feature = "persistence")]
#[doc(hidden)]
pub use data::MethodBox;
#[cfg(feature = "persistence")]
#[cfg_attr(docsrs, doc(cfg(feature = "persistence")))]
pub use data::{BatchError, DataCommandError, DataCommands, DataMethod, TargetBuilder};
pub use dynamic::{
    ComponentDescriptor, DynamicError, DynamicItem, DynamicQuery, DynamicQueryBuilder, DynamicTable, Moment,
    OnComponent, RuntimeComponent,
};
pub use entity::Entity;
pub use entity_mut::EntityMut;
pub use entity_ref::{ComponentRefs, EntityRef};
pub use error::{
    CommandError, CommandFailure, ComponentError, MissingComponent, MissingResource, NoSuchEntity, NotSparse,
    QueryEntityError, RunRefused, StorageInUse,
};
#[doc(hidden)]
pub use event::ReaderState;
pub use event::{Event, EventCursor, EventIter, EventReader, EventStats, EventWriter, on_event};
pub use hierarchy::{Ancestors, ChildOf, Children, Descendants, Propagation, PropagationStats};
pub use hook::{HookContext, MAX_HOOK_ROUNDS};
#[doc(hidden)]
pub use observer::ObserverKey;
pub use observer::{
    MAX_CHANGE_ROUNDS, MAX_OBSERVER_ERRORS, ObserverError, ObserverEvent, ObserverFunction, ObserverId, OnAdd,
    OnChange, OnDespawn, OnInsert, OnRemove, OnReplace, Trigger,
};
pub use one_shot_id::OneShotId;
pub use query::{
    Added, ArchetypeFilter, Changed, Dirty, EntityComponentsMut, EntityMutExcept, EntityRefExcept, Or, QueryData,
    QueryFilter, QueryIter, QueryState, ReadOnlyQueryData, Ref, With, Without,
};
pub use relation_error::{HierarchyError, RelationError};
pub use relationship::{DespawnPolicy, Related, Relation};
#[cfg(feature = "persistence")]
#[cfg_attr(docsrs, doc(cfg(feature = "persistence")))]
pub use replicate::{
    AckMode, Applied, DEFAULT_JOURNAL_LIMIT, DeltaError, DeltaInfo, DeltaReceiver, MAX_REPLICATED_COMPONENTS,
    PeerConfig, PeerId, ReceiverLimit, ReceiverLimits, RefusedParent, ReplicateError, Replicated, Replicator,
    Visibility, delta_to_json,
};
#[cfg(feature = "persistence")]
#[cfg_attr(docsrs, doc(cfg(feature = "persistence")))]
pub use scene::{
    EntityMap, InputPosition, LoadError, Loaded, NESTING_LIMIT, NamedValue, RegistryError, RuntimeCodec, SaveError,
    SaveReport, SceneRegistry, SceneSaver, SkippedComponent, ValueError, ValueSite,
};
pub use schedule::{
    Ambiguity, ErrorHandler, IntoSetGroup, IntoSystemConfig, IntoSystemGroup, MAX_SKIPPED_RUNS, MAX_SYSTEM_ERRORS,
    POST_UPDATE, PRE_UPDATE, PROFILE_EVERY, ReportRow, Schedule, ScheduleError, SetConfig, SetGroup, SkippedRun,
    SystemConfig, SystemGroup, SystemId, SystemRef, SystemStats, UPDATE,
};
pub use sparse_mut::SparseMut;
pub use spawn_batch::SpawnBatch;
pub use storage::ArchetypeId;
pub use system::{
    BoxError, Condition, EntityCounts, ExclusiveSystem, FunctionSystem, In, InMut, InRef, IntoCondition, IntoIoSystem,
    IntoSystem, IoSystem, Local, ONE_SHOT_RECURSION_LIMIT, OneShotError, ParamSet, Pipe, PlainSystem, Populated, Query,
    QueryParamIter, ReadOnlySystemParam, Removed, Res, ResMut, ScheduledIo, Single, System, SystemAccess, SystemError,
    SystemIn, SystemInput, SystemMeta, SystemOutput, SystemParam, SystemParamFunction, SystemParamItem, SystemResult,
    any_component_removed, any_match, condition_changed, condition_changed_to, not, resource_added, resource_changed,
    resource_changed_or_removed, resource_equals, resource_exists, resource_exists_and_equals, resource_removed,
    run_once,
};
#[doc(hidden)]
pub use system::{
    HasSystemInput, IsExclusiveSystem, IsFunctionSystem, IsPipe, IsPlainSystem, ParamSetState, QueryParamState,
    ResState,
};
pub use type_name::short_type_name;
pub use world::World;
pub use world::inspect::{ComponentSummary, TableSummary, WorldMemory};
#[allow(deprecated, reason = "the former name stays one release")]
pub use world::memory::ObserverMemory;
pub use world::memory::{BacklogMemory, DEFAULT_CHANGE_LOG_LIMIT, LogMemory, MAX_FAILED_COMMANDS};

/// The types most programs need: `use ripple::prelude::*;`.
pub mod prelude {
    pub use crate::{
        Added, Api, ApiMut, Bundle, Changed, ChildOf, Children, Commands, Component, Dirty, Entity, EventReader,
        EventWriter, HookContext, In, InMut, InRef, IntoCondition, IntoIoSystem, IntoSystemConfig, Local, Mut,
        ObserverEvent, OnAdd, OnChange, OnDespawn, OnInsert, OnRemove, OnReplace, Or, ParamSet, Populated, Propagation,
        Query, QueryState, Ref, Removed, Res, ResMut, Schedule, Single, SystemResult, Trigger, With, Without, World,
    };
}

/// The README's examples, run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
