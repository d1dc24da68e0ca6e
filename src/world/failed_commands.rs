//! [`FailedCommands`]: the deferred commands that failed, kept until drained.

use crate::error::CommandError;

/// The deferred commands that failed: the most recent ones (at most
/// [`MAX_FAILED_COMMANDS`](super::memory::MAX_FAILED_COMMANDS)), and how many there were.
#[derive(Default)]
pub(crate) struct FailedCommands {
    pub(super) records: Vec<CommandError>,
    pub(super) count: u64,
}
