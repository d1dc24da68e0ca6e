//! System sets: named groups of systems ordered, placed in a phase, conditioned and
//! enabled together.

use std::borrow::Cow;

use crate::system::{Condition, IntoCondition};
use crate::world::World;

use super::node::Node;
use super::{Schedule, ScheduleError, SystemRef};

/// Settings for a system set, applied with [`Schedule::configure_set`]. A system
/// joins a set with [`in_set`](crate::schedule::IntoSystemConfig::in_set); a set that is
/// configured or joined exists from then on.
///
/// ```
/// use ripple::World;
/// use ripple::schedule::{IntoSystemConfig, Schedule, SetConfig};
/// use ripple::system::{not, resource_exists};
/// struct Paused;
///
/// let mut world = World::new();
/// let mut schedule = Schedule::new();
/// schedule
///     .configure_set(&mut world, SetConfig::new("physics").before("render").run_if(not(resource_exists::<Paused>)))
///     .unwrap();
/// // No system or set called "render" yet: the order waits for one.
/// assert_eq!(schedule.unresolved_order_targets(), ["render"]);
/// schedule.add_system(&mut world, (|| {}).named("render")).unwrap();
/// assert!(schedule.unresolved_order_targets().is_empty());
/// schedule.add_system(&mut world, (|| {}).named("gravity").in_set("physics")).unwrap();
/// schedule.add_system(&mut world, (|| {}).named("collide").in_set("physics").after("gravity")).unwrap();
/// schedule.set_enabled("physics", false).unwrap(); // neither runs until enabled again
/// schedule.run(&mut world);
/// ```
#[derive(Debug)]
pub struct SetConfig {
    pub(crate) name: Cow<'static, str>,
    pub(crate) parents: Vec<Cow<'static, str>>,
    pub(crate) phase: Option<Cow<'static, str>>,
    pub(crate) before: Vec<SystemRef>,
    pub(crate) after: Vec<SystemRef>,
    pub(crate) conditions: Vec<Condition>,
    pub(crate) enabled: Option<bool>,
}

impl SetConfig {
    /// Settings for the set called `name` (set and system names share one namespace).
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        SetConfig {
            name: name.into(),
            parents: Vec::new(),
            phase: None,
            before: Vec::new(),
            after: Vec::new(),
            conditions: Vec::new(),
            enabled: None,
        }
    }

    /// Puts the set's members in phase `phase`: a member that names no phase of its
    /// own runs there, and one that names another phase is refused.
    pub fn in_phase(mut self, phase: impl Into<Cow<'static, str>>) -> Self {
        self.phase = Some(phase.into());
        self
    }

    /// Puts the set in set `parent` (created if new): its members are members of
    /// `parent` too, in its order, phase, conditions and enabled flag. Sets nest to
    /// any depth; a set cannot end up inside itself
    /// ([`ScheduleError::SetCycle`]), and membership implied by another is refused as
    /// redundant ([`ScheduleError::RedundantSet`]).
    pub fn in_set(mut self, parent: impl Into<Cow<'static, str>>) -> Self {
        self.parents.push(parent.into());
        self
    }

    /// Runs every member before `other` (a system or a set; in the same phase). A
    /// name that no system or set has yet is kept: the order holds once one is added
    /// under that name.
    pub fn before(mut self, other: impl Into<SystemRef>) -> Self {
        self.before.push(other.into());
        self
    }

    /// Runs every member after `other` (a system or a set; in the same phase), as
    /// [`before`](Self::before).
    pub fn after(mut self, other: impl Into<SystemRef>) -> Self {
        self.after.push(other.into());
        self
    }

    /// Runs the set's members only when `condition` holds. A set's conditions are
    /// evaluated at most once per run of the schedule, just before the first stage
    /// with a member that would run; their verdict holds for every member in that run.
    pub fn run_if<M>(mut self, condition: impl IntoCondition<M>) -> Self {
        self.conditions.push(condition.into_condition());
        self
    }

    /// Disables the set: its members keep their places but do not run until it is
    /// enabled ([`Schedule::set_enabled`]).
    pub fn disabled(mut self) -> Self {
        self.enabled = Some(false);
        self
    }
}

impl Schedule {
    /// Creates the set `config` names, or adds to it: its phase, order constraints,
    /// run conditions (each prepared for `world`), and whether it is enabled.
    /// Constraints and conditions add to those given before.
    ///
    /// # Errors
    /// [`ScheduleError`] if the name is a system's, the phase is unknown or differs
    /// from the phase the set, an enclosing set or one of its members already has, an
    /// order would close a cycle (listed, with the sets it runs through) or contradict
    /// the phase order, the set would end up inside itself or be in a set twice over
    /// (directly and through another), a condition's parameters conflict, or `world` is
    /// not the schedule's. Nothing is changed then.
    pub fn configure_set(&mut self, world: &mut World, config: SetConfig) -> Result<(), ScheduleError> {
        self.check_world(world)?;
        let mut edit = self.tentatively();
        edit.configure_set_tentatively(world, config)?;
        edit.plans_stale = true;
        edit.commit();
        Ok(())
    }

    /// [`configure_set`](Self::configure_set)'s changes, made on a [`Tentative`] edit
    /// (undone if this returns an error).
    ///
    /// [`Tentative`]: super::tentative::Tentative
    fn configure_set_tentatively(&mut self, world: &mut World, config: SetConfig) -> Result<(), ScheduleError> {
        let SetConfig { name, parents, phase, before, after, mut conditions, enabled } = config;
        let phase = match phase {
            Some(phase) => Some(
                self.phases
                    .iter()
                    .position(|p| p.name == phase)
                    .ok_or_else(|| ScheduleError::UnknownPhase(phase.to_string()))?,
            ),
            None => None,
        };
        let mut targets = Vec::new();
        for (target, is_before) in before.iter().map(|t| (t, true)).chain(after.iter().map(|t| (t, false))) {
            targets.push((self.order_target(target)?, is_before));
        }
        let set = self.set_or_create(name.clone())?;
        for parent in parents {
            let parent = self.set_or_create(parent)?;
            self.nest(set, parent)?;
        }
        self.refresh_memberships();
        self.check_redundancy()?;
        if let Some(phase) = phase {
            if let Some(old) = self.sets[set].phase.filter(|&old| old != phase) {
                return Err(ScheduleError::SetPhase {
                    set: name.to_string(),
                    phase: self.phases[phase].name.to_string(),
                    other: format!("set `{name}`"),
                    other_phase: self.phases[old].name.to_string(),
                });
            }
            self.sets[set].phase = Some(phase);
        }
        self.check_phases()?;
        for (target, is_before) in targets {
            self.edges.push(if is_before { (Node::Set(set), target) } else { (target, Node::Set(set)) });
        }
        self.check_order()?;
        super::initialize_conditions(&mut conditions, world, || format!("set `{name}`"))?;
        let slot = &mut self.sets[set];
        slot.conditions.extend(conditions);
        if let Some(enabled) = enabled {
            slot.enabled = enabled;
            self.forget_stage_estimates();
        }
        Ok(())
    }

    /// Enables or disables a system (by handle or name) or a set (by name). A disabled
    /// system keeps its place and its memory: when enabled again it sees everything it
    /// missed. A system runs only while it and every set it is in are enabled.
    ///
    /// # Errors
    /// [`ScheduleError::NoSuchSystem`] for a removed system;
    /// [`ScheduleError::UnknownSystem`] for a name that is neither a system's nor a
    /// set's.
    pub fn set_enabled(&mut self, target: impl Into<SystemRef>, enabled: bool) -> Result<(), ScheduleError> {
        match self.resolve_node(&target.into())? {
            Node::System(id) => self.slot_mut(id)?.enabled = enabled,
            Node::Set(set) => self.sets[set].enabled = enabled,
        }
        self.forget_stage_estimates();
        Ok(())
    }

    /// Removes every system in set `set` (directly or through sets inside it), as
    /// [`remove_system`](Self::remove_system) removes one, and returns how many. The
    /// set and its configuration stay (bevy_ecs's `remove_systems_in_set`).
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::schedule::{IntoSystemConfig, Schedule, SetConfig};
    /// let mut world = World::new();
    /// let mut schedule = Schedule::new();
    /// schedule.configure_set(&mut world, SetConfig::new("debug_draw").in_set("debug")).unwrap();
    /// schedule.add_system(&mut world, (|| {}).named("gizmos").in_set("debug_draw")).unwrap();
    /// schedule.add_system(&mut world, (|| {}).named("fps").in_set("debug")).unwrap();
    /// schedule.add_system(&mut world, (|| {}).named("game")).unwrap();
    /// assert_eq!(schedule.remove_systems_in_set(&mut world, "debug"), Ok(2));
    /// assert!(schedule.system_id("game").is_some());
    /// ```
    ///
    /// # Errors
    /// [`ScheduleError::UnknownSystem`] if no set has this name;
    /// [`ScheduleError::WrongWorld`] for another world.
    pub fn remove_systems_in_set(&mut self, world: &mut World, set: &str) -> Result<usize, ScheduleError> {
        self.check_world(world)?;
        let index = self.find_set(set).ok_or_else(|| ScheduleError::UnknownSystem(set.to_string()))?;
        let members = self.set_members(index);
        for &id in &members {
            self.remove_system(world, id)?;
        }
        Ok(members.len())
    }

    /// Whether a system (by handle or name) or a set (by name) is enabled, by its own
    /// flag (a system in a disabled set is enabled but does not run).
    ///
    /// # Errors
    /// As [`set_enabled`](Self::set_enabled).
    pub fn is_enabled(&self, target: impl Into<SystemRef>) -> Result<bool, ScheduleError> {
        Ok(match self.resolve_node(&target.into())? {
            Node::System(id) => self.slot(id)?.enabled,
            Node::Set(set) => self.sets[set].enabled,
        })
    }
}

impl From<&'static str> for SetConfig {
    fn from(name: &'static str) -> Self {
        SetConfig::new(name)
    }
}

impl From<String> for SetConfig {
    fn from(name: String) -> Self {
        SetConfig::new(name)
    }
}
