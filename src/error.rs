//! Error types. Each is small, `Clone + Eq`, and says what went wrong in its `Display`.

use std::error::Error;
use std::fmt;

use crate::Entity;

/// The entity does not exist: it was despawned (its slot may since have been reused),
/// or the handle was never issued by this world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoSuchEntity(pub Entity);

impl fmt::Display for NoSuchEntity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "entity {} does not exist (despawned, or never spawned in this world)", self.0)
    }
}

impl Error for NoSuchEntity {}

/// The entity exists but lacks a component the operation needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissingComponent {
    /// The entity that was asked about.
    pub entity: Entity,
    /// The type name of the missing component.
    pub component: &'static str,
}

impl fmt::Display for MissingComponent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "entity {} has no component `{}`", self.entity, self.component)
    }
}

impl Error for MissingComponent {}

/// Why a component could not be read, written or removed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ComponentError {
    /// The entity does not exist.
    NoSuchEntity(NoSuchEntity),
    /// The entity exists but lacks the component.
    MissingComponent(MissingComponent),
}

impl fmt::Display for ComponentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ComponentError::NoSuchEntity(e) => e.fmt(f),
            ComponentError::MissingComponent(e) => e.fmt(f),
        }
    }
}

impl Error for ComponentError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match self {
            ComponentError::NoSuchEntity(e) => Some(e),
            ComponentError::MissingComponent(e) => Some(e),
        }
    }
}

impl From<NoSuchEntity> for ComponentError {
    fn from(e: NoSuchEntity) -> Self {
        ComponentError::NoSuchEntity(e)
    }
}

impl From<MissingComponent> for ComponentError {
    fn from(e: MissingComponent) -> Self {
        ComponentError::MissingComponent(e)
    }
}

/// A storage was chosen for a component type that is already in use
/// ([`World::set_storage`](crate::World::set_storage)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StorageInUse {
    /// The type name of the component.
    pub component: &'static str,
    /// The storage the type already has.
    pub current: crate::Storage,
    /// The storage that was asked for.
    pub requested: crate::Storage,
}

impl fmt::Display for StorageInUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "component `{}` is already in use with {:?} storage; choose {:?} before its first spawn, insert, query or \
             observer",
            self.component, self.current, self.requested
        )
    }
}

impl Error for StorageInUse {}

/// A sparse-set view was asked for a component type stored in the tables
/// ([`World::sparse_mut`](crate::World::sparse_mut)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NotSparse {
    /// The type name of the component.
    pub component: &'static str,
}

impl fmt::Display for NotSparse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "component `{}` is not stored in a sparse set; choose Storage::SparseSet with World::set_storage before its \
             first use",
            self.component
        )
    }
}

impl Error for NotSparse {}

/// Why [`QueryState::get`](crate::query::QueryState::get) (or `get_mut`, `get_many`,
/// `get_many_mut`) found nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryEntityError {
    /// The entity does not exist.
    NoSuchEntity(NoSuchEntity),
    /// The entity exists but its components do not match the query.
    DoesNotMatch {
        /// The entity that was asked about.
        entity: Entity,
        /// The query's type, as written.
        query: &'static str,
    },
    /// The same entity was asked for twice in one call that hands out mutable items
    /// ([`QueryState::get_many_mut`](crate::query::QueryState::get_many_mut)): two items
    /// would alias.
    Duplicate(Entity),
}

impl fmt::Display for QueryEntityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QueryEntityError::NoSuchEntity(e) => e.fmt(f),
            QueryEntityError::DoesNotMatch { entity, query } => {
                write!(f, "entity {entity} does not match query `{query}`")
            }
            QueryEntityError::Duplicate(entity) => {
                write!(f, "entity {entity} is asked for more than once; mutable items of one entity would alias")
            }
        }
    }
}

impl Error for QueryEntityError {}

impl From<NoSuchEntity> for QueryEntityError {
    fn from(e: NoSuchEntity) -> Self {
        QueryEntityError::NoSuchEntity(e)
    }
}

/// The world holds no resource of the requested type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MissingResource {
    /// The type name of the missing resource.
    pub resource: &'static str,
}

impl fmt::Display for MissingResource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the world has no resource `{}`", self.resource)
    }
}

impl Error for MissingResource {}

/// A deferred command that could not be applied, recorded by the world (see
/// [`World::failed_commands`](crate::World::failed_commands)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CommandError {
    /// Which command: `"spawn"`, `"despawn"`, `"insert"`, `"remove"`, a relation
    /// command (`"set_parent"`, `"remove_parent"`, `"detach_children"`), `"ChildOf"`
    /// for a directly inserted relation that was undone, or `"hooks"` for a cascade
    /// of hook commands that was cut off.
    pub command: &'static str,
    /// What went wrong.
    pub error: CommandFailure,
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "deferred `{}` failed: {}", self.command, self.error)
    }
}

impl Error for CommandError {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        match &self.error {
            CommandFailure::Component(error) => Some(error),
            CommandFailure::Hierarchy(error) => Some(error),
            CommandFailure::Relation(error) => Some(error),
            CommandFailure::HookCascade { .. } | CommandFailure::RunSystem { .. } => None,
        }
    }
}

/// Why a deferred command failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommandFailure {
    /// Its entity was gone, or lacked a component it removes.
    Component(ComponentError),
    /// Hooks kept queueing commands that triggered hooks again (say an `on_add` of `A`
    /// that inserts `B` whose `on_add` removes and re-inserts `A`): after `rounds`
    /// rounds of hook commands for one structural change, the rest were dropped
    /// unapplied instead of looping forever.
    HookCascade {
        /// Rounds applied (each applies every command the round before queued).
        rounds: usize,
        /// Commands dropped unapplied.
        dropped: usize,
    },
    /// A relation change was refused: a dead parent, an entity as its own parent, or
    /// a cycle (see [`HierarchyError`](crate::relation_error::HierarchyError)).
    Hierarchy(crate::relation_error::HierarchyError),
    /// A user relation's change was refused: a dead target, an entity related to
    /// itself, or a cycle in an acyclic relation (see
    /// [`RelationError`](crate::relation_error::RelationError)).
    Relation(crate::relation_error::RelationError),
    /// A queued one-shot run ([`Commands::run_system`](crate::Commands::run_system))
    /// was refused: the [`OneShotError`](crate::system::OneShotError) `World::run_system`
    /// returned, by kind.
    RunSystem {
        /// The system.
        system: crate::OneShotId,
        /// Why it did not run.
        refused: RunRefused,
    },
}

/// Why a queued one-shot run did not happen (the kinds of
/// [`OneShotError`](crate::system::OneShotError) a run can return).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunRefused {
    /// Not registered.
    NoSuchSystem,
    /// It was running when the command applied.
    AlreadyRunning,
    /// Runs already nested too deep.
    RecursionLimit,
    /// Its parameters could not be made (a missing resource).
    InvalidParams,
}

impl fmt::Display for CommandFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandFailure::Component(error) => error.fmt(f),
            CommandFailure::Hierarchy(error) => error.fmt(f),
            CommandFailure::Relation(error) => error.fmt(f),
            CommandFailure::RunSystem { system, refused } => {
                write!(f, "one-shot system {system:?} did not run: {refused:?}")
            }
            CommandFailure::HookCascade { rounds, dropped } => write!(
                f,
                "hooks kept triggering each other; after {rounds} rounds of hook commands, {dropped} were dropped"
            ),
        }
    }
}

impl From<ComponentError> for CommandFailure {
    fn from(error: ComponentError) -> Self {
        CommandFailure::Component(error)
    }
}

impl From<NoSuchEntity> for CommandFailure {
    fn from(error: NoSuchEntity) -> Self {
        CommandFailure::Component(error.into())
    }
}
