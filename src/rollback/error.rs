//! Why a rollback could not be done.

use std::fmt;

use super::Frame;
use crate::component::ComponentId;

/// Why [`Rollback::rollback_to`](super::Rollback::rollback_to) refused; nothing was
/// changed.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum RollbackError {
    /// The frame asked for is not kept: older than the oldest kept, or newer than the
    /// newest checkpoint.
    FrameNotKept {
        /// The frame asked for.
        frame: Frame,
        /// The oldest frame kept.
        oldest: Frame,
        /// The newest checkpoint's frame.
        newest: Frame,
    },
    /// [`register_by_id`](super::Rollback::register_by_id) was given an id that names
    /// no component of this world.
    UnknownComponent(ComponentId),
    /// [`register_by_id`](super::Rollback::register_by_id) was given a Rust type's id:
    /// register it with [`register`](super::Rollback::register).
    Typed {
        /// The type's name.
        component: &'static str,
    },
    /// A runtime component with a drop function owns what its bytes point to: copying
    /// them would duplicate that, so the rollback cannot keep it.
    NotPlainData {
        /// The component's name.
        component: &'static str,
    },
}

impl fmt::Display for RollbackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RollbackError::FrameNotKept { frame, oldest, newest } => {
                write!(f, "frame {frame} is not kept: the rollback keeps frames {oldest} to {newest}")
            }
            RollbackError::UnknownComponent(id) => write!(f, "no component has id {id:?} in this world"),
            RollbackError::Typed { component } => {
                write!(f, "{component} is a Rust type: register it with Rollback::register::<{component}>")
            }
            RollbackError::NotPlainData { component } => write!(
                f,
                "runtime component {component} has a drop function: its bytes own memory, and a rollback copies bytes"
            ),
        }
    }
}

impl std::error::Error for RollbackError {}
