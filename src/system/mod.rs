//! Systems: functions whose parameters declare what they touch, so the
//! [`Schedule`](crate::schedule::Schedule) can order them and run them in parallel.

mod access;
mod combinations;
mod condition;
mod function;
mod input;
mod io_system;
mod one_shot;
mod output;
mod param;
mod param_macro;
mod param_set;
mod pipe;
mod query_param;
mod res;
mod run_once;
mod single;

pub use access::SystemAccess;
pub use combinations::{QueryCombinationIter, QueryCombinationIterMut};
pub use condition::{
    Condition, IntoCondition, ReadOnlySystemParam, any_component_removed, any_match, condition_changed,
    condition_changed_to, not, resource_added, resource_changed, resource_changed_or_removed, resource_equals,
    resource_exists, resource_exists_and_equals, resource_removed, run_once,
};
pub use function::{ExclusiveSystem, FunctionSystem, IntoSystem, System, SystemParamFunction};
pub(crate) use function::{init_params, short_name};
pub use input::{In, InMut, InRef, SystemIn, SystemInput};
pub use io_system::{IntoIoSystem, IoSystem, PlainSystem, ScheduledIo};
pub(crate) use one_shot::OneShotSystems;
pub use one_shot::{ONE_SHOT_RECURSION_LIMIT, OneShotError};
pub use output::{BoxError, SystemError, SystemOutput, SystemResult};
pub use param::{EntityCounts, Local, Removed, Res, ResMut, SystemMeta, SystemParam, SystemParamItem};
pub use param_set::ParamSet;
pub use pipe::Pipe;
pub use query_param::{Query, QueryParamIter};
pub use single::{Populated, Single};

#[doc(hidden)]
pub use function::{HasSystemInput, IsExclusiveSystem, IsFunctionSystem};
#[doc(hidden)]
pub use io_system::IsPlainSystem;
#[doc(hidden)]
pub use param_set::ParamSetState;
#[doc(hidden)]
pub use pipe::IsPipe;
#[doc(hidden)]
pub use query_param::QueryParamState;
#[doc(hidden)]
pub use res::ResState;

/// Gives `world` its registry of one-shot systems (empty).
pub(crate) fn install(world: &mut crate::World) {
    world.one_shot = crate::world::extension::Extension::new(OneShotSystems::default());
}
