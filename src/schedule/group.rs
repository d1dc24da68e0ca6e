//! Several systems added at once ([`Schedule::add_systems`]), optionally chained (each
//! after the one before) or sharing a run condition.

use std::borrow::Cow;

use crate::system::{Condition, IntoCondition};
use crate::world::World;

use super::config::{IntoSystemConfig, SystemConfig};
use super::sets::SetConfig;
use super::{Schedule, ScheduleError, SystemId};

/// Systems to add together, in order. Made from a tuple of systems (or
/// configurations) by [`IntoSystemGroup`].
#[derive(Debug)]
pub struct SystemGroup {
    configs: Vec<SystemConfig>,
    chained: bool,
    /// The group's own conditions ([`IntoSystemGroup::run_if`]), evaluated once for
    /// all its members.
    conditions: Vec<Condition>,
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

    /// Runs the members only when `condition` holds, evaluated once per schedule run
    /// for all of them (as bevy_ecs's `run_if` on a tuple): the group becomes an
    /// anonymous set with that condition (see [`SetConfig::run_if`]), named after its
    /// first member.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::schedule::{IntoSystemGroup, Schedule};
    /// use ripple::system::{ResMut, resource_exists};
    /// struct Playing;
    /// struct Steps(u32);
    /// let mut world = World::new();
    /// world.insert_resource(Steps(0));
    /// let mut schedule = Schedule::new();
    /// let step = |mut steps: ResMut<Steps>| steps.0 += 1;
    /// schedule.add_systems(&mut world, (step, step).chain().run_if(resource_exists::<Playing>)).unwrap();
    /// schedule.run(&mut world);
    /// world.insert_resource(Playing);
    /// schedule.run(&mut world);
    /// assert_eq!(world.resource::<Steps>().unwrap().0, 2);
    /// ```
    fn run_if<M>(self, condition: impl IntoCondition<M>) -> SystemGroup {
        let mut group = self.into_group();
        group.conditions.push(condition.into_condition());
        group
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
                SystemGroup { configs: vec![$($system.into_config()),*], chained: false, conditions: Vec::new() }
            }
        }
    };
}

crate::util::tuples::for_each_indexed_tuple_prefix!(
    impl_group; S0 M0, S1 M1, S2 M2, S3 M3, S4 M4, S5 M5, S6 M6, S7 M7, S8 M8, S9 M9, S10 M10, S11 M11
);

/// What [`Schedule::add_systems`] takes: one system (or [`SystemConfig`]), a tuple of
/// up to 12, or a [`SystemGroup`] made from one (`(a, b).chain()`), as bevy_ecs's
/// `add_systems` does. Implemented for those; there is nothing to call on it.
pub trait IntoSystems<Marker> {
    /// The systems, as a group.
    fn into_systems(self) -> SystemGroup;
}

/// Marks the [`IntoSystems`] impl for one system.
#[doc(hidden)]
pub struct OneSystem<M>(std::marker::PhantomData<M>);
/// Marks the [`IntoSystems`] impl for a group.
#[doc(hidden)]
pub struct ManySystems<M>(std::marker::PhantomData<M>);

impl<M, S: IntoSystemConfig<M>> IntoSystems<OneSystem<M>> for S {
    fn into_systems(self) -> SystemGroup {
        SystemGroup { configs: vec![self.into_config()], chained: false, conditions: Vec::new() }
    }
}

impl<M, G: IntoSystemGroup<M>> IntoSystems<ManySystems<M>> for G {
    fn into_systems(self) -> SystemGroup {
        self.into_group()
    }
}

impl Schedule {
    /// Adds every system of `group` (one system, a tuple, or a configured group), in
    /// order, each as [`add_system`](Self::add_system) would; a chained group orders
    /// each after the one before, and a group's own conditions
    /// ([`IntoSystemGroup::run_if`]) make it an anonymous set. Returns their handles.
    ///
    /// # Errors
    /// The first member's error, as [`add_system`](Self::add_system) gives it, or the
    /// group condition's ([`configure_set`](Self::configure_set)); the members added
    /// before it are removed again (their `on_removed` callbacks run), so the schedule
    /// is as it was.
    pub fn add_systems<M>(
        &mut self,
        world: &mut World,
        group: impl IntoSystems<M>,
    ) -> Result<Vec<SystemId>, ScheduleError> {
        let group = group.into_systems();
        let set = match (group.conditions.is_empty(), group.configs.first()) {
            (false, Some(first)) => Some(self.free_name(&format!("{} (group)", first.system.name()))),
            _ => None,
        };
        let mut added: Vec<SystemId> = Vec::with_capacity(group.configs.len());
        let undo = |schedule: &mut Schedule, world: &mut World, added: &[SystemId]| {
            for &id in added.iter().rev() {
                schedule.remove_system(world, id).expect("just added");
            }
            if let Some(set) = set.as_deref().and_then(|set| schedule.find_set(set)) {
                schedule.sets[set].gone = true;
            }
        };
        for config in group.configs {
            let config = match added.last() {
                Some(&previous) if group.chained => config.after(previous),
                _ => config,
            };
            let config = match &set {
                Some(set) => config.in_set(set.clone()),
                None => config,
            };
            match self.add_system(world, config) {
                Ok(id) => added.push(id),
                Err(error) => {
                    undo(self, world, &added);
                    return Err(error);
                }
            }
        }
        if let Some(name) = set.clone() {
            let mut config = SetConfig::new(name);
            config.conditions = group.conditions;
            if let Err(error) = self.configure_set(world, config) {
                undo(self, world, &added);
                return Err(error);
            }
        }
        Ok(added)
    }
}
