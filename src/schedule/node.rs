//! [`Node`]: one end of an order constraint, a system or a set.

use super::system_id::SystemId;

/// One end of an order constraint.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Node {
    System(SystemId),
    /// A set, by index into the schedule's sets.
    Set(usize),
}
