//! One-shot systems: registered with the world and run on demand, each keeping its
//! own memory (query caches, change-tracking ticks, event cursors) between calls.

use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Mutex;

use crate::world::World;

use super::function::{IntoSystem, System};

/// Identifies a system registered with [`World::register_system`]. Never reused, so
/// a handle to an unregistered system stays invalid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct OneShotId(u32);

/// Why a one-shot system could not be registered or run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OneShotError {
    /// The system's own parameters conflict; nothing was registered.
    ConflictingParams {
        /// The system.
        system: String,
        /// Each conflict, naming the type.
        conflicts: Vec<String>,
    },
    /// The handle names a system that was unregistered (or never registered here).
    NoSuchSystem(OneShotId),
    /// The system is running: it asked to run itself.
    AlreadyRunning(OneShotId),
}

impl std::fmt::Display for OneShotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OneShotError::ConflictingParams { system, conflicts } => {
                write!(f, "system `{system}` has conflicting parameters: {}", conflicts.join("; "))
            }
            OneShotError::NoSuchSystem(id) => write!(f, "one-shot system {id:?} is not registered (unregistered?)"),
            OneShotError::AlreadyRunning(id) => write!(f, "one-shot system {id:?} is already running"),
        }
    }
}

impl std::error::Error for OneShotError {}

enum Entry {
    Idle(Box<dyn System>),
    Running,
    Removed,
}

/// The world's registered one-shot systems. In a mutex only so that the world stays
/// `Sync` (systems are `Send`); it is only reached through `&mut World`, so it is
/// never locked.
#[derive(Default)]
pub(crate) struct OneShotSystems {
    entries: Mutex<Vec<Entry>>,
}

impl OneShotSystems {
    fn entries(&mut self) -> &mut Vec<Entry> {
        // A panic never happens while the (never taken) lock is held, so it is never
        // poisoned; recover the data if it were.
        self.entries.get_mut().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl World {
    /// Registers a system to run on demand with [`run_system`](Self::run_system),
    /// prepared for this world. It keeps its own memory between calls: its change
    /// filters report what changed since its previous call (everything, on the first).
    ///
    /// ```
    /// use ripple::{Changed, Query, World};
    /// struct Hp(u32);
    ///
    /// let mut world = World::new();
    /// let hero = world.spawn((Hp(10),));
    /// let report = world
    ///     .register_system(|hurt: Query<&Hp, Changed<Hp>>| {
    ///         let mut hurt = hurt;
    ///         println!("{} changed", hurt.iter().count());
    ///     })
    ///     .unwrap();
    /// world.run_system(report).unwrap(); // 1 changed (everything is new)
    /// world.run_system(report).unwrap(); // 0 changed
    /// world.get_mut::<Hp>(hero).unwrap().0 = 3;
    /// world.run_system(report).unwrap(); // 1 changed
    /// ```
    ///
    /// # Errors
    /// [`OneShotError::ConflictingParams`] if the system's parameters conflict.
    pub fn register_system<M>(&mut self, system: impl IntoSystem<M>) -> Result<OneShotId, OneShotError> {
        let mut system = system.into_system();
        if let Err(conflicts) = system.initialize(self) {
            return Err(OneShotError::ConflictingParams { system: system.name().to_string(), conflicts });
        }
        let entries = self.one_shot.entries();
        let id = OneShotId(u32::try_from(entries.len()).expect("fewer than 2^32 systems registered"));
        entries.push(Entry::Idle(Box::new(system)));
        Ok(id)
    }

    /// Runs a registered system once, with exclusive access to the world, then
    /// applies its commands. Events it sends are delivered at the next sync point of
    /// a schedule (or [`deliver_events`](Self::deliver_events)).
    ///
    /// If the system panics, the commands it queued before the panic are applied,
    /// it stays registered (its queries keep their memory from before the failed
    /// call), and the panic continues to the caller.
    ///
    /// # Errors
    /// [`OneShotError::NoSuchSystem`] if it is not registered;
    /// [`OneShotError::AlreadyRunning`] if called from the system itself.
    pub fn run_system(&mut self, id: OneShotId) -> Result<(), OneShotError> {
        let entry = self.one_shot.entries().get_mut(id.0 as usize).ok_or(OneShotError::NoSuchSystem(id))?;
        let mut system = match std::mem::replace(entry, Entry::Running) {
            Entry::Idle(system) => system,
            other => {
                let error = match other {
                    Entry::Running => OneShotError::AlreadyRunning(id),
                    _ => OneShotError::NoSuchSystem(id),
                };
                *entry = other;
                return Err(error);
            }
        };
        self.flush();
        self.maintain_ticks();
        let ran = catch_unwind(AssertUnwindSafe(|| system.run_exclusive(self)));
        let applied = catch_unwind(AssertUnwindSafe(|| {
            system.apply_deferred(self);
            self.flush();
        }));
        // Put back before any panic continues: a system that panicked stays usable.
        let entries = self.one_shot.entries();
        if let Some(entry @ Entry::Running) = entries.get_mut(id.0 as usize) {
            *entry = Entry::Idle(system);
        }
        if let Err(panic) = ran.and(applied) {
            resume_unwind(panic);
        }
        Ok(())
    }

    /// Unregisters a one-shot system, applying the commands it still has queued.
    ///
    /// # Errors
    /// [`OneShotError::NoSuchSystem`] if it is not registered;
    /// [`OneShotError::AlreadyRunning`] if called from the system itself.
    pub fn unregister_system(&mut self, id: OneShotId) -> Result<(), OneShotError> {
        let entry = self.one_shot.entries().get_mut(id.0 as usize).ok_or(OneShotError::NoSuchSystem(id))?;
        match std::mem::replace(entry, Entry::Removed) {
            Entry::Idle(mut system) => {
                system.apply_deferred(self);
                Ok(())
            }
            Entry::Running => {
                *entry = Entry::Running;
                Err(OneShotError::AlreadyRunning(id))
            }
            Entry::Removed => Err(OneShotError::NoSuchSystem(id)),
        }
    }
}
