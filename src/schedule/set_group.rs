//! Several sets configured at once ([`Schedule::configure_sets`]), optionally chained
//! (each after the one before).

use std::borrow::Cow;

use crate::world::World;

use super::sets::SetConfig;
use super::{Schedule, ScheduleError};

/// Sets to configure together, in order. Made from a tuple of set names or
/// [`SetConfig`]s by [`IntoSetGroup`].
#[derive(Debug)]
pub struct SetGroup {
    configs: Vec<SetConfig>,
    chained: bool,
}

/// A tuple of up to 12 set names or [`SetConfig`]s, to configure with
/// [`Schedule::configure_sets`]; its methods configure every member.
///
/// ```
/// use ripple::World;
/// use ripple::schedule::{IntoSetGroup, IntoSystemConfig, Schedule};
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// // Every input system, then every physics system, then every render system.
/// schedule.configure_sets(&mut world, ("input", "physics", "render").chain()).unwrap();
/// schedule.add_system(&mut world, (|| {}).named("draw").in_set("render")).unwrap();
/// schedule.add_system(&mut world, (|| {}).named("read_keys").in_set("input")).unwrap();
/// ```
pub trait IntoSetGroup: Sized {
    /// The group.
    fn into_set_group(self) -> SetGroup;

    /// Runs each set's members after every member of the set before it (bevy_ecs's
    /// `chain` on sets).
    fn chain(self) -> SetGroup {
        SetGroup { chained: true, ..self.into_set_group() }
    }

    /// Puts every member in set `parent`.
    fn in_set(self, parent: impl Into<Cow<'static, str>>) -> SetGroup {
        let parent = parent.into();
        let mut group = self.into_set_group();
        group.configs = group.configs.into_iter().map(|config| config.in_set(parent.clone())).collect();
        group
    }

    /// Puts every member in phase `phase`.
    fn in_phase(self, phase: impl Into<Cow<'static, str>>) -> SetGroup {
        let phase = phase.into();
        let mut group = self.into_set_group();
        group.configs = group.configs.into_iter().map(|config| config.in_phase(phase.clone())).collect();
        group
    }
}

impl IntoSetGroup for SetGroup {
    fn into_set_group(self) -> SetGroup {
        self
    }
}

macro_rules! impl_set_group {
    ($($set:ident),*) => {
        impl<$($set: Into<SetConfig>),*> IntoSetGroup for ($($set,)*) {
            #[allow(non_snake_case, reason = "members named after their types")]
            fn into_set_group(self) -> SetGroup {
                let ($($set,)*) = self;
                SetGroup { configs: vec![$($set.into()),*], chained: false }
            }
        }
    };
}

crate::util::tuples::for_each_tuple_prefix!(impl_set_group; S0, S1, S2, S3, S4, S5, S6, S7, S8, S9, S10, S11);

impl Schedule {
    /// Configures every set of `group`, in order, as
    /// [`configure_set`](Self::configure_set) would; a chained group orders each set
    /// after the one before.
    ///
    /// # Errors
    /// The first member's error, as [`configure_set`](Self::configure_set) gives it;
    /// the members configured before it are undone, so the schedule is as it was.
    pub fn configure_sets(&mut self, world: &mut World, group: impl IntoSetGroup) -> Result<(), ScheduleError> {
        self.check_world(world)?;
        let group = group.into_set_group();
        let mut edit = self.tentatively();
        let mut previous: Option<Cow<'static, str>> = None;
        for config in group.configs {
            let name = config.name.clone();
            let config = match previous.take() {
                Some(previous) if group.chained => config.after(previous.into_owned()),
                _ => config,
            };
            edit.configure_set(world, config)?;
            previous = Some(name);
        }
        edit.commit();
        Ok(())
    }
}
