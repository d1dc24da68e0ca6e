//! One-shot systems: registered with the world and run on demand, each keeping its
//! own memory (query caches, change-tracking ticks, event cursors) between calls.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::Mutex;

use crate::commands::{CommandQueue, Commands};
use crate::error::RunRefused;
use crate::one_shot_id::OneShotId;
use crate::world::World;

use super::input::{SystemIn, SystemInput};
use super::io_system::{IntoIoSystem, IoSystem};

/// How deep one-shot runs may nest (a system whose commands run a system whose
/// commands run a system...) before [`World::run_system`] refuses with
/// [`OneShotError::RecursionLimit`]: deep enough for any design, shallow enough that
/// a runaway recursion stops long before the stack runs out.
pub const ONE_SHOT_RECURSION_LIMIT: usize = 64;

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
    /// The system is running: it asked to run itself from inside its own run (its
    /// commands may run it again: they apply once it is back).
    AlreadyRunning(OneShotId),
    /// The system's parameters cannot be made now (a resource it takes as
    /// [`Res`](crate::system::Res) or [`ResMut`](crate::system::ResMut) is missing): it did not run.
    /// Take `Option<Res<T>>` for a resource that may be absent.
    InvalidParams {
        /// The system's name.
        system: String,
        /// What is missing.
        reason: String,
    },
    /// [`run_system_cached`](World::run_system_cached) was given a closure that
    /// captures values: it caches one system per function type, so only functions
    /// and closures that capture nothing can be cached (as in bevy_ecs).
    CapturesState {
        /// The function's type.
        system: String,
    },
    /// One-shot runs nested [`ONE_SHOT_RECURSION_LIMIT`] deep (say a system whose
    /// commands run it again, every time): this run was refused, and the runs already
    /// under way finish normally.
    RecursionLimit {
        /// The system that was refused.
        system: OneShotId,
        /// The nesting limit.
        limit: usize,
    },
}

impl std::fmt::Display for OneShotError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            OneShotError::ConflictingParams { system, conflicts } => {
                write!(f, "system `{system}` has conflicting parameters: {}", conflicts.join("; "))
            }
            OneShotError::NoSuchSystem(id) => write!(f, "one-shot system {id:?} is not registered (unregistered?)"),
            OneShotError::AlreadyRunning(id) => write!(f, "one-shot system {id:?} is already running"),
            OneShotError::InvalidParams { system, reason } => write!(f, "system `{system}` cannot run: {reason}"),
            OneShotError::CapturesState { system } => {
                write!(f, "`{system}` captures values, so it cannot be cached (one system per function type)")
            }
            OneShotError::RecursionLimit { system, limit } => {
                write!(f, "one-shot system {system:?} refused: one-shot runs already nest {limit} deep")
            }
        }
    }
}

impl std::error::Error for OneShotError {}

/// A registered system with its input and output types erased; run, it is downcast
/// back to [`Typed`] by the typed handle.
trait Stored: Send {
    fn apply_deferred(&mut self, world: &mut World);
    fn as_any(&mut self) -> &mut dyn Any;
}

struct Typed<I: SystemInput, O>(Box<dyn IoSystem<In = I, Out = O>>);

impl<I: SystemInput, O: 'static> Stored for Typed<I, O> {
    fn apply_deferred(&mut self, world: &mut World) {
        self.0.apply_deferred(world);
    }
    fn as_any(&mut self) -> &mut dyn Any {
        self
    }
}

enum Entry {
    Idle(Box<dyn Stored>),
    Running,
    Removed,
}

/// The world's registered one-shot systems. In a mutex only so that the world stays
/// `Sync` (systems are `Send`); it is only reached through `&mut World`, so it is
/// never locked.
#[derive(Default)]
pub(crate) struct OneShotSystems {
    entries: Mutex<Vec<Entry>>,
    /// How many runs are under way, one inside another's commands.
    depth: usize,
    /// Queues for the commands of runs under way, kept for their capacity (one per
    /// nesting level): a steady stream of runs allocates nothing.
    spare_queues: Vec<CommandQueue>,
    /// The systems registered by [`World::register_system_cached`], by function type.
    cached: std::collections::HashMap<std::any::TypeId, OneShotId>,
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
    /// use ripple::World;
    /// use ripple::query::Changed;
    /// use ripple::system::Query;
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
    /// A system may take an input and return a value ([`run_system_with`](Self::run_system_with)).
    ///
    /// # Errors
    /// [`OneShotError::ConflictingParams`] if the system's parameters conflict.
    pub fn register_system<I: SystemInput, O: 'static, M>(
        &mut self,
        system: impl IntoIoSystem<I, O, M>,
    ) -> Result<OneShotId<I, O>, OneShotError> {
        let mut system = system.into_io_system();
        if let Err(conflicts) = system.initialize(self) {
            return Err(OneShotError::ConflictingParams { system: system.name().to_string(), conflicts });
        }
        let entries = self.one_shot.get_mut::<OneShotSystems>().entries();
        let id = OneShotId::new(u32::try_from(entries.len()).expect("fewer than 2^32 systems registered"));
        entries.push(Entry::Idle(Box::new(Typed::<I, O>(Box::new(system)))));
        Ok(id)
    }

    /// Runs a registered system once, with exclusive access to the world, then
    /// applies its commands. Messages it sends are delivered at the next delivery of
    /// a schedule (a stage's end, a phase's sync point, a run's start) or by
    /// [`deliver_messages`](Self::deliver_messages).
    ///
    /// The system is put back before its commands apply, so a command may run it
    /// again (as bevy_ecs does): that run sees what the commands before it changed,
    /// and its own commands apply before the rest of the first run's. Runs nest at most
    /// [`ONE_SHOT_RECURSION_LIMIT`] deep.
    ///
    /// ```
    /// use ripple::{Commands, OneShotId, World};
    /// use ripple::system::ResMut;
    /// struct Countdown(u32);
    /// struct Me(OneShotId);
    ///
    /// let mut world = World::new();
    /// world.insert_resource(Countdown(5));
    /// let id = world
    ///     .register_system(|mut count: ResMut<Countdown>, mut commands: Commands| {
    ///         count.0 -= 1;
    ///         if count.0 > 0 {
    ///             // Runs this system again once this run's commands apply.
    ///             commands.add(|world: &mut World| {
    ///                 let me = world.resource::<Me>().unwrap().0;
    ///                 world.run_system(me).unwrap();
    ///             });
    ///         }
    ///     })
    ///     .unwrap();
    /// world.insert_resource(Me(id));
    /// world.run_system(id).unwrap();
    /// assert_eq!(world.resource::<Countdown>().unwrap().0, 0);
    /// ```
    ///
    /// If the system panics, the commands it queued before the panic are applied,
    /// it stays registered (its queries keep their memory from before the failed
    /// call), and the panic continues to the caller.
    ///
    /// # Errors
    /// [`OneShotError::NoSuchSystem`] if it is not registered;
    /// [`OneShotError::AlreadyRunning`] if called from the system itself while it
    /// runs; [`OneShotError::InvalidParams`] if its parameters cannot be made (a
    /// missing resource: it did not run); [`OneShotError::RecursionLimit`] if one-shot runs already nest
    /// [`ONE_SHOT_RECURSION_LIMIT`] deep.
    pub fn run_system<O: 'static>(&mut self, id: OneShotId<(), O>) -> Result<O, OneShotError> {
        self.run_system_with(id, ())
    }

    /// Runs a registered system that takes an input once, with `input`, and returns
    /// what it returned; otherwise as [`run_system`](Self::run_system).
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::system::{In, ResMut};
    /// struct Score(u32);
    /// fn add(In(points): In<u32>, mut score: ResMut<Score>) -> u32 {
    ///     score.0 += points;
    ///     score.0
    /// }
    /// let mut world = World::new();
    /// world.insert_resource(Score(0));
    /// let add = world.register_system(add).unwrap();
    /// assert_eq!(world.run_system_with(add, 5), Ok(5));
    /// assert_eq!(world.run_system_with(add, 7), Ok(12));
    /// ```
    ///
    /// # Errors
    /// As [`run_system`](Self::run_system).
    pub fn run_system_with<I: SystemInput, O: 'static>(
        &mut self,
        id: OneShotId<I, O>,
        input: SystemIn<'_, I>,
    ) -> Result<O, OneShotError> {
        let index = id.index as usize;
        let depth = self.one_shot.get_mut::<OneShotSystems>().depth;
        let entry = self
            .one_shot
            .get_mut::<OneShotSystems>()
            .entries()
            .get_mut(index)
            .ok_or(OneShotError::NoSuchSystem(id.untyped()))?;
        if matches!(entry, Entry::Idle(_)) && depth >= ONE_SHOT_RECURSION_LIMIT {
            return Err(OneShotError::RecursionLimit { system: id.untyped(), limit: ONE_SHOT_RECURSION_LIMIT });
        }
        let mut stored = match std::mem::replace(entry, Entry::Running) {
            Entry::Idle(system) => system,
            other => {
                let error = match other {
                    Entry::Running => OneShotError::AlreadyRunning(id.untyped()),
                    _ => OneShotError::NoSuchSystem(id.untyped()),
                };
                *entry = other;
                return Err(error);
            }
        };
        // The handle's types are the registered system's: only `register_system` makes
        // a handle, with the types it stored.
        let Some(Typed(system)) = stored.as_any().downcast_mut::<Typed<I, O>>() else {
            if let Some(entry @ Entry::Running) = self.one_shot.get_mut::<OneShotSystems>().entries().get_mut(index) {
                *entry = Entry::Idle(stored);
            }
            return Err(OneShotError::NoSuchSystem(id.untyped()));
        };
        if let Err(reason) = system.validate(self) {
            let name = system.name().to_string();
            if let Some(entry @ Entry::Running) = self.one_shot.get_mut::<OneShotSystems>().entries().get_mut(index) {
                *entry = Entry::Idle(stored);
            }
            return Err(OneShotError::InvalidParams { system: name, reason });
        }
        self.one_shot.get_mut::<OneShotSystems>().depth += 1;
        let mut commands = self.one_shot.get_mut::<OneShotSystems>().spare_queues.pop().unwrap_or_default();
        self.flush_reserved();
        self.maintain_ticks();
        let ran = catch_unwind(AssertUnwindSafe(|| system.run_with(input, self)));
        // Its commands move out, and anything else it deferred applies, while it is
        // still out; then it goes back, and only then do its commands run.
        system.queue_deferred(&mut commands);
        let applied_in_place = catch_unwind(AssertUnwindSafe(|| system.apply_deferred(self)));
        // Put back before any panic continues: a system that panicked stays usable.
        let entries = self.one_shot.get_mut::<OneShotSystems>().entries();
        if let Some(entry @ Entry::Running) = entries.get_mut(index) {
            *entry = Entry::Idle(stored);
        }
        let applied = catch_unwind(AssertUnwindSafe(|| {
            commands.apply(self);
            self.flush();
        }));
        // A panicking command dropped the rest: the queue is empty either way.
        self.one_shot.get_mut::<OneShotSystems>().spare_queues.push(commands);
        self.one_shot.get_mut::<OneShotSystems>().depth -= 1;
        match (ran, applied_in_place.and(applied)) {
            (Ok(out), Ok(())) => Ok(out),
            (Err(panic), _) | (_, Err(panic)) => resume_unwind(panic),
        }
    }

    /// Registers `system` once per function type: the first call registers it, later
    /// calls with the same function return the same handle. Only functions and closures
    /// that capture nothing can be cached.
    ///
    /// # Errors
    /// [`OneShotError::CapturesState`] for a closure that captures values;
    /// [`OneShotError::ConflictingParams`] if its parameters conflict.
    pub fn register_system_cached<I: SystemInput, O: 'static, M, S: IntoIoSystem<I, O, M> + 'static>(
        &mut self,
        system: S,
    ) -> Result<OneShotId<I, O>, OneShotError> {
        if std::mem::size_of::<S>() != 0 {
            return Err(OneShotError::CapturesState { system: std::any::type_name::<S>().to_string() });
        }
        let key = std::any::TypeId::of::<S>();
        if let Some(&id) = self.one_shot.get_mut::<OneShotSystems>().cached.get(&key)
            && matches!(
                self.one_shot.get_mut::<OneShotSystems>().entries().get(id.index as usize),
                Some(Entry::Idle(_) | Entry::Running)
            )
        {
            // Keyed by the function's type, which fixes its input and output types.
            return Ok(OneShotId::new(id.index));
        }
        let id = self.register_system(system)?;
        self.one_shot.get_mut::<OneShotSystems>().cached.insert(key, id.untyped());
        Ok(id)
    }

    /// Runs `system`, registering it on first use ([`register_system_cached`](Self::register_system_cached)),
    /// so a system called by name from many places keeps one memory.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::query::Changed;
    /// use ripple::system::Query;
    /// struct Hp(u32);
    /// fn count_hurt(hurt: Query<&Hp, Changed<Hp>>) {
    ///     let mut hurt = hurt;
    ///     println!("{} hurt", hurt.iter().count());
    /// }
    /// let mut world = World::new();
    /// world.spawn((Hp(3),));
    /// world.run_system_cached(count_hurt).unwrap(); // 1 hurt
    /// world.run_system_cached(count_hurt).unwrap(); // 0 hurt: the same system, its memory kept
    /// ```
    ///
    /// # Errors
    /// As [`register_system_cached`](Self::register_system_cached) and
    /// [`run_system`](Self::run_system).
    pub fn run_system_cached<O: 'static, M, S: IntoIoSystem<(), O, M> + 'static>(
        &mut self,
        system: S,
    ) -> Result<O, OneShotError> {
        let id = self.register_system_cached(system)?;
        self.run_system(id)
    }

    /// As [`run_system_cached`](Self::run_system_cached), for a system that takes an
    /// input.
    ///
    /// # Errors
    /// As [`run_system_cached`](Self::run_system_cached).
    pub fn run_system_cached_with<I: SystemInput, O: 'static, M, S: IntoIoSystem<I, O, M> + 'static>(
        &mut self,
        system: S,
        input: SystemIn<'_, I>,
    ) -> Result<O, OneShotError> {
        let id = self.register_system_cached(system)?;
        self.run_system_with(id, input)
    }

    /// Unregisters a one-shot system, applying the commands it still has queued.
    ///
    /// # Errors
    /// [`OneShotError::NoSuchSystem`] if it is not registered;
    /// [`OneShotError::AlreadyRunning`] if called from the system itself.
    pub fn unregister_system<I, O>(&mut self, id: OneShotId<I, O>) -> Result<(), OneShotError> {
        let id = id.untyped();
        let entry = self
            .one_shot
            .get_mut::<OneShotSystems>()
            .entries()
            .get_mut(id.index as usize)
            .ok_or(OneShotError::NoSuchSystem(id))?;
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
/// The kind of a refusal, as a failed command records it.
impl From<&OneShotError> for RunRefused {
    fn from(error: &OneShotError) -> Self {
        use OneShotError as E;
        match error {
            E::NoSuchSystem(_) | E::ConflictingParams { .. } | E::CapturesState { .. } => RunRefused::NoSuchSystem,
            E::AlreadyRunning(_) => RunRefused::AlreadyRunning,
            E::RecursionLimit { .. } => RunRefused::RecursionLimit,
            E::InvalidParams { .. } => RunRefused::InvalidParams,
        }
    }
}

/// Running one-shot systems from a command queue.
impl Commands<'_, '_> {
    /// Queues a run of one-shot system `id` ([`World::run_system`]); if it is refused,
    /// the refusal is recorded as a failed command
    /// ([`CommandFailure::RunSystem`](crate::CommandFailure::RunSystem)).
    pub fn run_system<O: 'static>(&mut self, id: OneShotId<(), O>) {
        self.add(move |world: &mut World| {
            if let Err(error) = world.run_system(id) {
                let refused = RunRefused::from(&error);
                let error = crate::CommandFailure::RunSystem { system: id.untyped(), refused };
                world.record_failed_command(crate::CommandError { command: "run_system", error });
            }
        });
    }
}
