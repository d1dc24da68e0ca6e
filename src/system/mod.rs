//! Systems: functions whose parameters declare what they touch, so the
//! [`Schedule`](crate::Schedule) can order them and run them in parallel.

mod access;
mod commands;
mod entity_commands;
mod function;
mod param;
mod query_param;

pub use access::SystemAccess;
pub use commands::{Command, CommandQueue, Commands};
pub use entity_commands::EntityCommands;
pub use function::{ExclusiveSystem, FunctionSystem, IntoSystem, System, SystemParamFunction};
pub use param::{EntityCounts, Local, Removed, Res, ResMut, SystemMeta, SystemParam, SystemParamItem};
pub use query_param::{Query, QueryParamIter};

#[doc(hidden)]
pub use function::{IsExclusiveSystem, IsFunctionSystem};
#[doc(hidden)]
pub use query_param::QueryParamState;
