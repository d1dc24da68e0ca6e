//! Why a rollback could not be done.

use std::fmt;

use super::Frame;

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
}

impl fmt::Display for RollbackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RollbackError::FrameNotKept { frame, oldest, newest } => {
                write!(f, "frame {frame} is not kept: the rollback keeps frames {oldest} to {newest}")
            }
        }
    }
}

impl std::error::Error for RollbackError {}
