//! [`ScheduleError`]: why a schedule refused a change.

use std::error::Error;
use std::fmt;

use super::SystemId;

/// Why a schedule refused to add, remove or change a system. Nothing was changed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScheduleError {
    /// No phase has this name.
    UnknownPhase(String),
    /// No system has this name (an ordering target).
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
    /// The system's own parameters conflict.
    ConflictingParams {
        /// The system.
        system: String,
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
            ScheduleError::UnknownSystem(name) => write!(f, "the schedule has no system `{name}`"),
            ScheduleError::NoSuchSystem(id) => write!(f, "system {id:?} is not in the schedule (removed?)"),
            ScheduleError::DuplicateName(name) => write!(f, "a system named `{name}` is already in the schedule"),
            ScheduleError::Cycle(names) => write!(f, "the ordering makes a cycle: {}", names.join(" → ")),
            ScheduleError::OrderAcrossPhases { system, other } => write!(
                f,
                "system `{system}` cannot be ordered against `{other}`: `{other}` is in a phase that runs the other way"
            ),
            ScheduleError::ConflictingParams { system, conflicts } => {
                write!(f, "system `{system}` has conflicting parameters: {}", conflicts.join("; "))
            }
            ScheduleError::WrongWorld => write!(f, "the schedule was prepared for another world"),
        }
    }
}

impl Error for ScheduleError {}
