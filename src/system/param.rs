//! [`SystemParam`]: what a system function may take as a parameter, and the
//! built-in ones — [`Local`], [`Commands`], [`Removed`] ([`Query`](super::Query),
//! [`Res`](super::Res) and [`ResMut`](super::ResMut) live in their own modules).

use std::borrow::Cow;
use std::ops::{Deref, DerefMut};

pub use super::res::{Res, ResMut};

use crate::change::{Removals, RemovedReader};
use crate::component::{Component, ComponentId};
use crate::storage::ArchetypeId;
use crate::world::World;

use super::access::SystemAccess;
use crate::commands::{CommandQueue, Commands};

/// What the schedule knows about one system: its name and what it touches.
#[derive(Debug, Default)]
pub struct SystemMeta {
    pub(crate) name: Cow<'static, str>,
    pub(crate) access: SystemAccess,
    /// Conflicts between this system's own parameters, found while initializing.
    pub(crate) conflicts: Vec<String>,
}

impl SystemMeta {
    /// A meta for a system called `name`, touching nothing yet.
    pub fn new(name: impl Into<Cow<'static, str>>) -> Self {
        SystemMeta { name: name.into(), ..SystemMeta::default() }
    }

    /// The system's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// What the system reads and writes.
    pub fn access(&self) -> &SystemAccess {
        &self.access
    }

    /// Records a conflict between this system's parameters; the schedule refuses the
    /// system with it.
    pub fn refuse(&mut self, conflict: String) {
        self.conflicts.push(conflict);
    }

    /// Declares data, named by `K`, that the parameter produces (or reads) without
    /// conflicting with other systems, but whose order decides what a reader sees (a
    /// message type): reported by [`Schedule::ambiguities`](crate::schedule::Schedule::ambiguities)
    /// for a producer and a reader with no order between them.
    pub fn add_order_sensitive<K: 'static>(&mut self, produces: bool) {
        self.access.add_ordered_by::<K>(produces);
    }

    /// Declares that the parameter `param` reads (or writes) resource `R`.
    pub fn add_resource_access<R: 'static>(&mut self, write: bool, param: &str) {
        if let Err(conflict) = self.access.add_resource::<R>(write, param) {
            self.refuse(conflict);
        }
    }
}

/// Entities a system's queries matched and processed in one run (for the profiler).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EntityCounts {
    /// Entities in the tables the system's queries match.
    pub matched: usize,
    /// Items the queries handed to the system (rows examined, for parallel runs).
    pub processed: usize,
}

/// A value a system function can take as a parameter. The schedule derives the
/// system's reads and writes from its parameters and never runs two conflicting
/// systems at once.
///
/// `Item<'w, 's>` is the parameter itself with the world's lifetime `'w` and the
/// parameter state's lifetime `'s` (so `Res<'_, T>` names `Res<'w, T>`).
///
/// # Safety
/// `init` must declare in `meta` every access that `get`, `count` and `matches`
/// make through the shared world (the world's bookkeeping may always be read); the
/// schedule relies on it to keep writers apart from readers.
///
/// That promise is what a parallel stage trusts, so implementing the trait takes
/// `unsafe`. A parameter that declares nothing and reads nothing is sound:
///
/// ```
/// use ripple::World;
/// use ripple::system::{SystemMeta, SystemParam};
/// struct Nothing;
/// // SAFETY: `get` reads nothing through the world, and `init` declares nothing.
/// unsafe impl SystemParam for Nothing {
///     type State = ();
///     type Item<'w, 's> = Nothing;
///     fn init(_: &mut World, _: &mut SystemMeta) {}
///     unsafe fn get<'w, 's>(_: &'s mut (), _: &'w World, _: &SystemMeta) -> Nothing {
///         Nothing
///     }
/// }
/// ```
///
/// and the same implementation without `unsafe` does not compile:
///
/// ```compile_fail,E0200
/// use ripple::World;
/// use ripple::system::{SystemMeta, SystemParam};
/// struct Nothing;
/// impl SystemParam for Nothing {
///     type State = ();
///     type Item<'w, 's> = Nothing;
///     fn init(_: &mut World, _: &mut SystemMeta) {}
///     unsafe fn get<'w, 's>(_: &'s mut (), _: &'w World, _: &SystemMeta) -> Nothing {
///         Nothing
///     }
/// }
/// ```
pub unsafe trait SystemParam: Sized {
    /// What the parameter keeps between runs (a query's cache, a local value).
    type State: Send + 'static;
    /// The parameter as the system receives it.
    type Item<'w, 's>: SystemParam<State = Self::State>;

    /// Registers what the parameter needs and declares its access in `meta`.
    fn init(world: &mut World, meta: &mut SystemMeta) -> Self::State;

    /// Makes the parameter for one run.
    ///
    /// # Safety
    /// The caller holds, for `'w`, the access `init` declared, and no other item of
    /// `state` is alive.
    unsafe fn get<'w, 's>(state: &'s mut Self::State, world: &'w World, meta: &SystemMeta) -> Self::Item<'w, 's>;

    /// At the sync point: applies what the parameter deferred (commands).
    fn apply(state: &mut Self::State, world: &mut World) {
        let _ = (state, world);
    }

    /// Whether [`apply`](Self::apply) can have anything to do: the schedule never
    /// calls a sync point's `apply` for a system none of whose parameters defers. The
    /// default is the safe answer, yes; a parameter that leaves `apply` alone may say
    /// no.
    const DEFERS: bool = true;

    /// Whether [`validate`](Self::validate) can fail: a system with no such parameter
    /// is never asked.
    const FALLIBLE: bool = false;

    /// Whether the parameter can be made now; the reason if not (a missing resource,
    /// no entity for a [`Single`](crate::system::Single)). A system whose parameters cannot be
    /// made is skipped by the schedule, and refused by
    /// [`World::run_system`](crate::World::run_system), instead of panicking.
    ///
    /// Called only while no system whose access conflicts with this parameter's runs
    /// (the schedule validates a system just before it runs, while only systems of
    /// its own stage, which never conflict with it, may be running), so it may read what the parameter declared; whatever it changes in `state` must leave
    /// the next [`get`](Self::get) as if it had not been called, apart from caches.
    fn validate(state: &mut Self::State, world: &World) -> Result<(), String> {
        let _ = (state, world);
        Ok(())
    }

    /// Called by a [`ParamSet`](super::ParamSet) once per run of its system, before
    /// any member is made: a member may then be made several times in one run, and
    /// should answer as if made once ([`Res::is_changed`] stays relative to the
    /// system's previous run, however many times `pN()` hands it out).
    fn begin_shared_run(state: &mut Self::State) {
        let _ = state;
    }

    /// Moves the commands the parameter deferred to the end of `queue`, to be applied
    /// later with the rest (a one-shot system hands its commands over this way, so it
    /// can be put back before they run and a command may run it again). A parameter
    /// that defers something other than commands keeps it for [`apply`](Self::apply),
    /// which runs right after.
    fn queue(state: &mut Self::State, queue: &mut CommandQueue) {
        let _ = (state, queue);
    }

    /// Adds what the parameter matched and processed in the last run.
    fn count(state: &mut Self::State, world: &World, counts: &mut EntityCounts) {
        let _ = (state, world, counts);
    }

    /// Whether an entity in table `archetype` that has exactly the sparse components
    /// `has_sparse` says it has matches this parameter (a query), change filters
    /// aside: for the entity enter and exit callbacks.
    fn matches(
        state: &mut Self::State,
        world: &World,
        archetype: ArchetypeId,
        has_sparse: &dyn Fn(ComponentId) -> bool,
    ) -> bool {
        let _ = (state, world, archetype, has_sparse);
        false
    }
}

/// The item type of parameter `P` for lifetimes `'w` and `'s`.
pub type SystemParamItem<'w, 's, P> = <P as SystemParam>::Item<'w, 's>;

/// A value kept by one system between its runs, starting at `T::default()` (a system
/// parameter). Touches nothing shared.
pub struct Local<'s, T: Default + Send + 'static> {
    value: &'s mut T,
}

impl<T: Default + Send + 'static> Deref for Local<'_, T> {
    type Target = T;
    fn deref(&self) -> &T {
        self.value
    }
}

impl<T: Default + Send + 'static> DerefMut for Local<'_, T> {
    fn deref_mut(&mut self) -> &mut T {
        self.value
    }
}

// SAFETY: touches only its own state.
unsafe impl<T: Default + Send + 'static> SystemParam for Local<'_, T> {
    type State = T;
    type Item<'w, 's> = Local<'s, T>;

    /// Only reads (or writes in place): nothing to apply at a sync point.
    const DEFERS: bool = false;
    fn init(_: &mut World, _: &mut SystemMeta) -> T {
        T::default()
    }
    unsafe fn get<'s>(state: &'s mut T, _: &World, _: &SystemMeta) -> Local<'s, T> {
        Local { value: state }
    }
}

// SAFETY: reserves entities (atomically, through the shared world) and otherwise only
// touches its own queue, applied with exclusive access.
unsafe impl SystemParam for Commands<'_, '_> {
    type State = CommandQueue;
    type Item<'w, 's> = Commands<'w, 's>;

    fn init(_: &mut World, _: &mut SystemMeta) -> CommandQueue {
        CommandQueue::default()
    }
    unsafe fn get<'w, 's>(state: &'s mut CommandQueue, world: &'w World, _: &SystemMeta) -> Commands<'w, 's> {
        Commands { queue: state, world }
    }
    fn apply(state: &mut CommandQueue, world: &mut World) {
        state.apply(world);
    }
    fn queue(state: &mut CommandQueue, queue: &mut CommandQueue) {
        queue.append(state);
    }
}

/// The removals of component `T` since this system last read them (a system
/// parameter): every `(entity, tick)` at which a `T` left an entity, each once, none
/// missed while the system was disabled or skipped — unless it fell further behind than
/// the world's [change-log limit](World::set_change_log_limit), which
/// [`Removals::missed`] reports.
pub struct Removed<'w, 's, T: Component> {
    reader: &'s mut RemovedReader<T>,
    world: &'w World,
}

impl<'w, T: Component> Removed<'w, '_, T> {
    /// The removals not read yet, oldest first; reading consumes them.
    pub fn read(&mut self) -> Removals<'w> {
        self.reader.read(self.world)
    }
}

// SAFETY: reads the removal stream of `T`, which only structural changes append to
// (exclusive world access, never while systems run); the cursor is atomic.
unsafe impl<T: Component> SystemParam for Removed<'_, '_, T> {
    type State = RemovedReader<T>;
    type Item<'w, 's> = Removed<'w, 's, T>;

    /// Only reads (or writes in place): nothing to apply at a sync point.
    const DEFERS: bool = false;
    fn init(world: &mut World, _: &mut SystemMeta) -> RemovedReader<T> {
        world.removal_reader::<T>()
    }
    unsafe fn get<'w, 's>(state: &'s mut RemovedReader<T>, world: &'w World, _: &SystemMeta) -> Removed<'w, 's, T> {
        Removed { reader: state, world }
    }
}

macro_rules! impl_param_tuple {
    ($($name:ident),*) => {
        // SAFETY: declares and makes each element's access.
        unsafe impl<$($name: SystemParam),*> SystemParam for ($($name,)*) {
            type State = ($($name::State,)*);
            type Item<'w, 's> = ($($name::Item<'w, 's>,)*);

            #[allow(clippy::unused_unit, reason = "the empty tuple")]
            fn init(world: &mut World, meta: &mut SystemMeta) -> Self::State {
                let _ = (&world, &meta);
                ($($name::init(world, meta),)*)
            }
            #[allow(clippy::unused_unit, non_snake_case, unused_unsafe, reason = "elements named after their types")]
            unsafe fn get<'w, 's>(state: &'s mut Self::State, world: &'w World, meta: &SystemMeta) -> Self::Item<'w, 's> {
                let _ = (&world, &meta);
                let ($($name,)*) = state;
                // SAFETY: forwarded; each element gets its own state.
                unsafe { ($($name::get($name, world, meta),)*) }
            }
            #[allow(non_snake_case, reason = "elements named after their types")]
            fn apply(state: &mut Self::State, world: &mut World) {
                let _ = &world;
                let ($($name,)*) = state;
                $($name::apply($name, world);)*
            }
            const FALLIBLE: bool = false $(|| $name::FALLIBLE)*;
            const DEFERS: bool = false $(|| $name::DEFERS)*;
            #[allow(non_snake_case, reason = "elements named after their types")]
            fn validate(state: &mut Self::State, world: &World) -> Result<(), String> {
                let _ = &world;
                let ($($name,)*) = state;
                $($name::validate($name, world)?;)*
                Ok(())
            }
            #[allow(non_snake_case, reason = "elements named after their types")]
            fn begin_shared_run(state: &mut Self::State) {
                let ($($name,)*) = state;
                $($name::begin_shared_run($name);)*
            }
            #[allow(non_snake_case, reason = "elements named after their types")]
            fn queue(state: &mut Self::State, queue: &mut CommandQueue) {
                let _ = &queue;
                let ($($name,)*) = state;
                $($name::queue($name, queue);)*
            }
            #[allow(non_snake_case, reason = "elements named after their types")]
            fn matches(
                state: &mut Self::State,
                world: &World,
                archetype: ArchetypeId,
                has_sparse: &dyn Fn(ComponentId) -> bool,
            ) -> bool {
                let _ = (&world, archetype, has_sparse);
                let ($($name,)*) = state;
                false $(|| $name::matches($name, world, archetype, has_sparse))*
            }
            #[allow(non_snake_case, reason = "elements named after their types")]
            fn count(state: &mut Self::State, world: &World, counts: &mut EntityCounts) {
                let _ = (&world, &counts);
                let ($($name,)*) = state;
                $($name::count($name, world, counts);)*
            }
        }
    };
}

crate::util::tuples::for_each_tuple_prefix!(impl_param_tuple; A, B, C, D, E, F, G, H, I, J, K, L);
