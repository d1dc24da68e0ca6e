//! Why a relation change was refused: a core type, so that the core's errors
//! ([`CommandFailure::Hierarchy`](crate::CommandFailure::Hierarchy)) need not import
//! the hierarchy.

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
