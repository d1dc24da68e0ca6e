//! [`SystemId`]: a system's handle in its schedule.

/// Identifies a system in its [`Schedule`](super::Schedule). Never reused, so a handle
/// to a removed system stays invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SystemId(pub(super) u32);
