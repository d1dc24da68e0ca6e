//! [`SystemConfig`]: a system with its name, phase, ordering and callbacks, built
//! fluently from any system (`movement.after("input").named("move")`).

use std::borrow::Cow;

use crate::entity::Entity;
use crate::system::{Condition, IntoCondition, IntoSystem, System};
use crate::world::World;

use super::SystemId;

/// Names another system, or a set, in an ordering constraint: by name (a system's
/// or a set's; they share one namespace) or by a system's handle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SystemRef {
    /// The system or set with this name.
    Name(Cow<'static, str>),
    /// The system with this handle.
    Id(SystemId),
}

impl From<&'static str> for SystemRef {
    fn from(name: &'static str) -> Self {
        SystemRef::Name(Cow::Borrowed(name))
    }
}

impl From<String> for SystemRef {
    fn from(name: String) -> Self {
        SystemRef::Name(Cow::Owned(name))
    }
}

impl From<SystemId> for SystemRef {
    fn from(id: SystemId) -> Self {
        SystemRef::Id(id)
    }
}

/// A callback run with the world, once.
pub(crate) type WorldCallback = Box<dyn FnOnce(&mut World) + Send>;
/// A callback run with the world for one entity.
pub(crate) type EntityCallback = Box<dyn FnMut(&mut World, Entity) + Send>;

/// A system ready to be added to a [`Schedule`](super::Schedule), with its settings.
pub struct SystemConfig {
    pub(crate) system: Box<dyn System>,
    pub(crate) name: Option<Cow<'static, str>>,
    pub(crate) phase: Option<Cow<'static, str>>,
    pub(crate) before: Vec<SystemRef>,
    pub(crate) after: Vec<SystemRef>,
    pub(crate) sets: Vec<Cow<'static, str>>,
    pub(crate) conditions: Vec<Condition>,
    pub(crate) ambiguous_with: Vec<SystemRef>,
    pub(crate) enabled: bool,
    pub(crate) on_added: Option<WorldCallback>,
    pub(crate) on_removed: Option<WorldCallback>,
    pub(crate) on_enter: Option<EntityCallback>,
    pub(crate) on_exit: Option<EntityCallback>,
}

impl std::fmt::Debug for SystemConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SystemConfig")
            .field("system", &self.system.name())
            .field("name", &self.name)
            .field("phase", &self.phase)
            .field("before", &self.before)
            .field("after", &self.after)
            .field("sets", &self.sets)
            .field("conditions", &self.conditions)
            .field("ambiguous_with", &self.ambiguous_with)
            .field("enabled", &self.enabled)
            .finish_non_exhaustive()
    }
}

/// Anything that can be added to a schedule: a system, or a [`SystemConfig`]. The
/// builder methods configure it on the way.
pub trait IntoSystemConfig<Marker>: Sized {
    /// The configuration, with defaults for what was not set: the system's own name,
    /// phase `Update`, no ordering, enabled, no callbacks.
    fn into_config(self) -> SystemConfig;

    /// Names the system (names are unique within a schedule).
    fn named(self, name: impl Into<Cow<'static, str>>) -> SystemConfig {
        SystemConfig { name: Some(name.into()), ..self.into_config() }
    }

    /// Puts the system in phase `phase` (default: its sets' phase, else `Update`).
    fn in_phase(self, phase: impl Into<Cow<'static, str>>) -> SystemConfig {
        SystemConfig { phase: Some(phase.into()), ..self.into_config() }
    }

    /// Adds the system to the set called `set` (created if new), whose order,
    /// phase, conditions and enabled flag then apply to it too. A system may be in
    /// several sets.
    fn in_set(self, set: impl Into<Cow<'static, str>>) -> SystemConfig {
        let mut config = self.into_config();
        config.sets.push(set.into());
        config
    }

    /// Runs the system only when `condition` holds: a function of read-only system
    /// parameters returning `bool` ([`resource_exists`](crate::system::resource_exists),
    /// [`on_message`](crate::message::on_message), a closure, ...). Several conditions must all hold;
    /// every one is evaluated, in order, just before the system's stage, even after one
    /// failed (as in bevy_ecs): a condition watching for a change sees it, and reports
    /// it, in the run it happens, never in a later run. The conditions of the system's
    /// sets are evaluated too, whatever they answer. Join conditions with
    /// [`IntoCondition::and`] (which evaluates the second only when the first holds)
    /// and the other combinators.
    ///
    /// A system skipped by a condition is treated like a disabled one: its change
    /// filters, dirty sets, removal readers and event readers keep their memory and
    /// report everything it missed when it next runs. What a condition reads counts
    /// in the system's access, so a condition is never evaluated while a system
    /// writing what it reads runs.
    fn run_if<M>(self, condition: impl IntoCondition<M>) -> SystemConfig {
        let mut config = self.into_config();
        config.conditions.push(condition.into_condition());
        config
    }

    /// Runs the system before `other` (a system or a set; same phase). A name that
    /// no system or set has yet is kept: the order holds once one is added under that
    /// name ([`Schedule::unresolved_order_targets`](super::Schedule::unresolved_order_targets)
    /// lists those still waiting).
    fn before(self, other: impl Into<SystemRef>) -> SystemConfig {
        let mut config = self.into_config();
        config.before.push(other.into());
        config
    }

    /// Runs the system after `other` (a system or a set; same phase), as
    /// [`before`](Self::before).
    fn after(self, other: impl Into<SystemRef>) -> SystemConfig {
        let mut config = self.into_config();
        config.after.push(other.into());
        config
    }

    /// Says that the order between this system and `other` (a system, or every
    /// member of a set) does not matter, though their accesses conflict:
    /// [`Schedule::ambiguities`](super::Schedule::ambiguities) leaves the pair out.
    /// Changes nothing else.
    fn ambiguous_with(self, other: impl Into<SystemRef>) -> SystemConfig {
        let mut config = self.into_config();
        config.ambiguous_with.push(other.into());
        config
    }

    /// Adds the system disabled: it keeps its place but does not run until enabled.
    fn disabled(self) -> SystemConfig {
        SystemConfig { enabled: false, ..self.into_config() }
    }

    /// Calls `callback` when the system is added to the schedule and its world.
    fn on_added(self, callback: impl FnOnce(&mut World) + Send + 'static) -> SystemConfig {
        SystemConfig { on_added: Some(Box::new(callback)), ..self.into_config() }
    }

    /// Calls `callback` when the system is removed from the schedule.
    fn on_removed(self, callback: impl FnOnce(&mut World) + Send + 'static) -> SystemConfig {
        SystemConfig { on_removed: Some(Box::new(callback)), ..self.into_config() }
    }

    /// Calls `callback` for each entity that starts matching one of the system's
    /// queries (spawned or changed so that it matches), at the end of the phase in
    /// which it happened (the sync point), in the order it happened.
    ///
    /// Every change to what an entity has counts, whatever the storage of the
    /// components involved: gaining or losing a [sparse-set](crate::Storage) component
    /// the query requires or excludes enters or exits it like a table component does.
    /// Change filters (`Changed`, `Added`, `Dirty`) do not take part in membership. One
    /// operation is one change: `insert((A, S))` that leaves the entity outside the
    /// query before and after calls nothing, whatever the storage of `A` and `S`.
    ///
    /// Membership is the query's, not the run's: the callbacks fire while the system is
    /// disabled too, so that state kept by them (a system's own set of the entities it tracks)
    /// stays exact. Changes the system missed while disabled still reach its change
    /// filters once it is enabled. If a callback panics, the panic leaves the sync
    /// point; the entities after the one it was called for are reported at the next
    /// sync point.
    ///
    /// These callbacks are exact whatever the world's
    /// [change-log limit](World::set_change_log_limit): the world keeps the structural
    /// changes they wait for until the schedule runs, so a schedule with such callbacks
    /// should be run, or dropped.
    fn on_entity_enter(self, callback: impl FnMut(&mut World, Entity) + Send + 'static) -> SystemConfig {
        SystemConfig { on_enter: Some(Box::new(callback)), ..self.into_config() }
    }

    /// Calls `callback` for each entity that stops matching all of the system's
    /// queries (despawned, or changed so that it no longer matches), like
    /// [`on_entity_enter`](Self::on_entity_enter). A despawned entity is already gone.
    fn on_entity_exit(self, callback: impl FnMut(&mut World, Entity) + Send + 'static) -> SystemConfig {
        SystemConfig { on_exit: Some(Box::new(callback)), ..self.into_config() }
    }
}

impl IntoSystemConfig<()> for SystemConfig {
    fn into_config(self) -> SystemConfig {
        self
    }
}

/// Tells systems apart from configurations.
#[doc(hidden)]
pub struct FromSystem<M>(std::marker::PhantomData<M>);

impl<M, S: IntoSystem<M>> IntoSystemConfig<FromSystem<M>> for S {
    fn into_config(self) -> SystemConfig {
        SystemConfig {
            system: Box::new(self.into_system()),
            name: None,
            phase: None,
            before: Vec::new(),
            after: Vec::new(),
            sets: Vec::new(),
            conditions: Vec::new(),
            ambiguous_with: Vec::new(),
            enabled: true,
            on_added: None,
            on_removed: None,
            on_enter: None,
            on_exit: None,
        }
    }
}
