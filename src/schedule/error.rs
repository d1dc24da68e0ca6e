//! [`ScheduleError`]: why a schedule refused a change.

use std::error::Error;
use std::fmt;

use super::SystemId;

/// Why a schedule refused to add, remove or change a system. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleError {
    /// No phase has this name.
    UnknownPhase(String),
    /// No system or set has this name (an ordering target, or what to enable).
    UnknownSystem(String),
    /// The handle names a system that was removed (or never added).
    NoSuchSystem(SystemId),
    /// Another system already has this name.
    DuplicateName(String),
    /// The ordering would make a cycle; the systems in run order, the first repeated
    /// at the end.
    Cycle(Vec<String>),
    /// An ordering against a system of another phase contradicts the phase order.
    OrderAcrossPhases {
        /// The system being added.
        system: String,
        /// The system in the other phase.
        other: String,
    },
    /// A set's phase disagrees with a phase already given: the set's own, or a
    /// member's.
    SetPhase {
        /// The set.
        set: String,
        /// The phase asked for.
        phase: String,
        /// What already has another phase (a system or the set itself), named.
        other: String,
        /// That phase.
        other_phase: String,
    },
    /// A set would end up inside itself: `parent` is already inside `set`, directly
    /// or through other sets.
    SetCycle {
        /// The set being put in `parent`.
        set: String,
        /// The set it was to be put in.
        parent: String,
    },
    /// A membership is implied by another: `member` (a system or a set, named) is put
    /// in `set` and also in `through`, which is inside `set` already.
    RedundantSet {
        /// The system or set, named (`system `a`` or `set `b``).
        member: String,
        /// The enclosing set it is put in directly as well.
        set: String,
        /// The set inside `set` it is also in.
        through: String,
    },
    /// The system's own parameters conflict.
    ConflictingParams {
        /// The system.
        system: String,
        /// Each conflict, naming the type.
        conflicts: Vec<String>,
    },
    /// A run condition's own parameters conflict.
    ConflictingConditionParams {
        /// What the condition was for: `system `a`` or `set `b``.
        target: String,
        /// The condition.
        condition: String,
        /// Each conflict, naming the type.
        conflicts: Vec<String>,
    },
    /// The world is not the one the schedule's systems were prepared for.
    WrongWorld,
}

impl fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScheduleError::UnknownPhase(name) => write!(f, "the schedule has no phase `{name}`"),
            ScheduleError::UnknownSystem(name) => write!(f, "the schedule has no system or set named `{name}`"),
            ScheduleError::NoSuchSystem(id) => write!(f, "system {id:?} is not in the schedule (removed?)"),
            ScheduleError::DuplicateName(name) => write!(f, "a system named `{name}` is already in the schedule"),
            ScheduleError::Cycle(names) => write!(f, "the ordering makes a cycle: {}", names.join(" → ")),
            ScheduleError::OrderAcrossPhases { system, other } => write!(
                f,
                "system `{system}` cannot be ordered against `{other}`: `{other}` is in a phase that runs the other way"
            ),
            ScheduleError::SetPhase { set, phase, other, other_phase } => {
                write!(f, "set `{set}` cannot run in phase `{phase}`: {other} is in phase `{other_phase}`")
            }
            ScheduleError::SetCycle { set, parent } => {
                write!(f, "set `{set}` cannot be put in set `{parent}`: `{parent}` is already inside `{set}`")
            }
            ScheduleError::RedundantSet { member, set, through } => write!(
                f,
                "{member} is put in set `{set}` twice over: directly, and through set `{through}`, which is inside \
                 `{set}`; drop the direct membership"
            ),
            ScheduleError::ConflictingParams { system, conflicts } => {
                write!(f, "system `{system}` has conflicting parameters: {}", conflicts.join("; "))
            }
            ScheduleError::ConflictingConditionParams { target, condition, conflicts } => write!(
                f,
                "run condition `{condition}` of {target} has conflicting parameters: {}",
                conflicts.join("; ")
            ),
            ScheduleError::WrongWorld => write!(f, "the schedule was prepared for another world"),
        }
    }
}

impl Error for ScheduleError {}
