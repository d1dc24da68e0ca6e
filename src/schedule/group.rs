//! Several systems added at once ([`Schedule::add_systems`]), optionally chained (each
//! after the one before) or sharing a run condition.

use std::borrow::Cow;

use crate::system::IntoCondition;
use crate::world::World;

use super::config::{IntoSystemConfig, SystemConfig};
use super::{Schedule, ScheduleError, SystemId};

/// Systems to add together, in order. Made from a tuple of systems (or
/// configurations) by [`IntoSystemGroup`].
#[derive(Debug)]
pub struct SystemGroup {
    configs: Vec<SystemConfig>,
    chained: bool,
}

/// A tuple of up to 12 systems or [`SystemConfig`]s, to add with
/// [`Schedule::add_systems`]; its methods configure every member.
///
/// ```
/// use ripple::World;
/// use ripple::schedule::{IntoSystemGroup, Schedule};
/// use ripple::system::resource_exists;
/// struct Playing;
/// fn input() {}
/// fn physics() {}
/// fn render() {}
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// // input, then physics, then render; all three only while playing.
/// let group = (input, physics, render).chain().distributive_run_if(resource_exists::<Playing>);
/// let ids = schedule.add_systems(&mut world, group).unwrap();
/// assert_eq!(ids.len(), 3);
/// ```
pub trait IntoSystemGroup<Marker>: Sized {
    /// The group.
    fn into_group(self) -> SystemGroup;

    /// Runs each member after the one before it (as bevy_ecs's `chain`).
    fn chain(self) -> SystemGroup {
        SystemGroup { chained: true, ..self.into_group() }
    }

    /// Gives every member its own copy of `condition` (as bevy_ecs's
    /// `distributive_run_if`): each member evaluates it when it is about to run.
    fn distributive_run_if<M>(self, condition: impl IntoCondition<M> + Clone) -> SystemGroup {
        let mut group = self.into_group();
        group.configs = group.configs.into_iter().map(|config| config.run_if(condition.clone())).collect();
        group
    }

    /// Puts every member in set `set`.
    fn in_set(self, set: impl Into<Cow<'static, str>>) -> SystemGroup {
        let set = set.into();
        let mut group = self.into_group();
        group.configs = group.configs.into_iter().map(|config| config.in_set(set.clone())).collect();
        group
    }

    /// Puts every member in phase `phase`.
    fn in_phase(self, phase: impl Into<Cow<'static, str>>) -> SystemGroup {
        let phase = phase.into();
        let mut group = self.into_group();
        group.configs = group.configs.into_iter().map(|config| config.in_phase(phase.clone())).collect();
        group
    }
}

impl IntoSystemGroup<()> for SystemGroup {
    fn into_group(self) -> SystemGroup {
        self
    }
}

macro_rules! impl_group {
    ($($system:ident $marker:tt),*) => {
        impl<$($marker, $system: IntoSystemConfig<$marker>),*> IntoSystemGroup<($($marker,)*)> for ($($system,)*) {
            #[allow(non_snake_case, reason = "members named after their types")]
            fn into_group(self) -> SystemGroup {
                let ($($system,)*) = self;
                SystemGroup { configs: vec![$($system.into_config()),*], chained: false }
            }
        }
    };
}

crate::util::tuples::for_each_indexed_tuple_prefix!(
    impl_group; S0 M0, S1 M1, S2 M2, S3 M3, S4 M4, S5 M5, S6 M6, S7 M7, S8 M8, S9 M9, S10 M10, S11 M11
);

impl Schedule {
    /// Adds every system of `group`, in order, each as [`add_system`](Self::add_system)
    /// would; a chained group orders each after the one before. Returns their handles.
    ///
    /// # Errors
    /// The first member's error, as [`add_system`](Self::add_system) gives it; the
    /// members added before it are removed again (their `on_removed` callbacks run),
    /// so the schedule is as it was.
    pub fn add_systems<M>(
        &mut self,
        world: &mut World,
        group: impl IntoSystemGroup<M>,
    ) -> Result<Vec<SystemId>, ScheduleError> {
        let group = group.into_group();
        let mut added: Vec<SystemId> = Vec::with_capacity(group.configs.len());
        for config in group.configs {
            let config = match added.last() {
                Some(&previous) if group.chained => config.after(previous),
                _ => config,
            };
            match self.add_system(world, config) {
                Ok(id) => added.push(id),
                Err(error) => {
                    for &id in added.iter().rev() {
                        self.remove_system(world, id).expect("just added");
                    }
                    return Err(error);
                }
            }
        }
        Ok(added)
    }
}
