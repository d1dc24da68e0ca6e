//! Why a relation change was refused: core types, so that the core's errors
//! ([`CommandFailure::Hierarchy`](crate::CommandFailure::Hierarchy),
//! [`CommandFailure::Relation`](crate::CommandFailure::Relation)) need not import
//! the hierarchy or the relations.

use std::fmt;

use crate::entity::Entity;

/// A relation change refused by [`World::set_parent`](crate::World::set_parent) and
/// its kin. Nothing was changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HierarchyError {
    /// The entity to attach, detach or spawn under is not alive.
    NoSuchEntity(Entity),
    /// The parent named is not alive.
    DeadParent {
        /// The entity that was to be attached.
        child: Entity,
        /// The dead parent.
        parent: Entity,
    },
    /// An entity cannot be its own parent.
    OwnParent(Entity),
    /// The parent is a descendant of the child: attaching would close a cycle.
    Cycle {
        /// The entity that was to be attached.
        child: Entity,
        /// Its descendant, named as its parent.
        parent: Entity,
    },
}

impl fmt::Display for HierarchyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HierarchyError::NoSuchEntity(entity) => write!(f, "entity {entity} is not alive"),
            HierarchyError::DeadParent { child, parent } => {
                write!(f, "cannot attach {child} to {parent}: the parent is not alive")
            }
            HierarchyError::OwnParent(entity) => write!(f, "entity {entity} cannot be its own parent"),
            HierarchyError::Cycle { child, parent } => {
                write!(
                    f,
                    "cannot attach {child} to {parent}: {parent} descends from {child}, which would close a cycle"
                )
            }
        }
    }
}

impl std::error::Error for HierarchyError {}

/// The hierarchy's words for a refusal of the relation machinery it runs on.
impl From<RelationError> for HierarchyError {
    fn from(error: RelationError) -> Self {
        match error {
            RelationError::NoSuchEntity(entity) => HierarchyError::NoSuchEntity(entity),
            RelationError::DeadTarget { source, target } => {
                HierarchyError::DeadParent { child: source, parent: target }
            }
            RelationError::OwnTarget(entity) => HierarchyError::OwnParent(entity),
            RelationError::Cycle { source, target } => HierarchyError::Cycle { child: source, parent: target },
        }
    }
}

/// A change to a user relation refused by [`World::relate`](crate::World::relate) and
/// its kin. Nothing was changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RelationError {
    /// The entity to relate, unrelate or spawn under is not alive.
    NoSuchEntity(Entity),
    /// The target named is not alive.
    DeadTarget {
        /// The entity that was to be related.
        source: Entity,
        /// The dead target.
        target: Entity,
    },
    /// An entity cannot be related to itself.
    OwnTarget(Entity),
    /// The relation is acyclic and the target leads back to the source through it.
    Cycle {
        /// The entity that was to be related.
        source: Entity,
        /// The target, which leads back to it.
        target: Entity,
    },
}

impl fmt::Display for RelationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RelationError::NoSuchEntity(entity) => write!(f, "entity {entity} is not alive"),
            RelationError::DeadTarget { source, target } => {
                write!(f, "cannot relate {source} to {target}: the target is not alive")
            }
            RelationError::OwnTarget(entity) => write!(f, "entity {entity} cannot be related to itself"),
            RelationError::Cycle { source, target } => write!(
                f,
                "cannot relate {source} to {target}: the relation is acyclic and {target} leads back to {source}"
            ),
        }
    }
}

impl std::error::Error for RelationError {}
