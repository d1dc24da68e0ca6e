//! Systems: the [`System`] trait the schedule runs, and the adapters that make one
//! from a plain function ([`IntoSystem`]) — a function of [`SystemParam`]s, or an
//! exclusive function of `&mut World`.

use std::borrow::Cow;
use std::marker::PhantomData;

use crate::component::ComponentId;
use crate::storage::ArchetypeId;
use crate::util::type_name::short_type_name;
use crate::world::World;

use super::access::SystemAccess;
use super::input::{SystemIn, SystemInput};
use super::output::{SystemError, SystemOutput};
use super::param::{EntityCounts, SystemMeta, SystemParam, SystemParamItem};
use crate::commands::CommandQueue;

/// Something the schedule can run. Made from functions by [`IntoSystem`]; implement
/// it directly only for systems that need more control.
///
/// # Safety
/// The schedule runs systems whose declared accesses do not conflict at the same
/// time on other threads, trusting [`access`](System::access). An implementation
/// must therefore touch, in [`run_shared`](System::run_shared),
/// [`entity_counts`](System::entity_counts) and
/// [`matches_entity_in`](System::matches_entity_in), only what `access()` declares
/// (components and resources read or written, the world's bookkeeping read-only),
/// and must declare itself exclusive (`SystemAccess::set_exclusive`) if
/// `run_shared` cannot run at all. Systems made with [`IntoSystem`] uphold this by
/// construction: their access is the union of their parameters' accesses, which
/// [`SystemParam`] implementations promise under its own contract.
///
/// A system declared with an empty access that reads a component anyway would race
/// with a system writing it in the same parallel stage; that is why implementing
/// this trait takes `unsafe`:
///
/// ```compile_fail,E0200
/// use std::borrow::Cow;
/// use ripple::{ArchetypeId, World};
/// use ripple::system::{EntityCounts, System, SystemAccess};
///
/// struct Sneaky(SystemAccess);
///
/// impl System for Sneaky {
///     fn name(&self) -> &str { "sneaky" }
///     fn set_name(&mut self, _: Cow<'static, str>) {}
///     fn initialize(&mut self, _: &mut World) -> Result<(), Vec<String>> { Ok(()) }
///     fn access(&self) -> &SystemAccess { &self.0 } // declares nothing...
///     unsafe fn run_shared(&mut self, world: &World) {
///         let _ = world.len(); // ...and reads the world anyway
///     }
///     fn run_exclusive(&mut self, _: &mut World) {}
///     fn apply_deferred(&mut self, _: &mut World) {}
///     fn entity_counts(&mut self, _: &World) -> EntityCounts { EntityCounts::default() }
/// }
/// ```
///
/// # Panics
/// A system may panic. The schedule lets the systems running beside it finish, then
/// passes the panic on from [`Schedule::run`](crate::schedule::Schedule::run); the world and the
/// schedule stay usable, and the commands the phase queued are applied at the next
/// sync point. A system made with [`IntoSystem`] keeps its queries' memory from before
/// the failed run, so its next run sees again the changes the failed one had not
/// finished; a hand-written system should do the same with its own observers.
pub unsafe trait System: Send + 'static {
    /// The system's name (unique within a schedule).
    fn name(&self) -> &str;

    /// Gives the system a new name.
    fn set_name(&mut self, name: Cow<'static, str>);

    /// Prepares the system for `world`: registers its components and declares its
    /// access.
    ///
    /// # Errors
    /// The conflicts between the system's own parameters, each naming the type.
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>>;

    /// What the system reads and writes (valid after `initialize`).
    fn access(&self) -> &SystemAccess;

    /// Runs a system that is not exclusive on a shared world.
    ///
    /// # Safety
    /// The system was initialized with this world, and no system whose access
    /// conflicts with this one's runs meanwhile.
    unsafe fn run_shared(&mut self, world: &World);

    /// Runs the system with exclusive access (any system may run this way).
    fn run_exclusive(&mut self, world: &mut World);

    /// At the sync point: applies what the system deferred (its commands).
    fn apply_deferred(&mut self, world: &mut World);

    /// Moves the commands the system deferred to the end of `queue`; whatever else it
    /// deferred stays for [`apply_deferred`](Self::apply_deferred), called right
    /// after. [`World::run_system`] uses it to put a one-shot system back before its
    /// commands run. The default moves nothing (`apply_deferred` then applies all).
    fn queue_deferred(&mut self, queue: &mut CommandQueue) {
        let _ = queue;
    }

    /// What the system's queries matched and processed in its last run.
    fn entity_counts(&mut self, world: &World) -> EntityCounts;

    /// Whether the system's parameters can be made now, the reason if not (a missing
    /// resource): the schedule skips a system that cannot run, and
    /// [`World::run_system`] refuses it, instead of letting it panic. Reads only the
    /// world's bookkeeping. The default: always.
    fn validate(&mut self, world: &World) -> Result<(), String> {
        let _ = world;
        Ok(())
    }

    /// Whether [`validate`](Self::validate) can fail; a schedule asks once, when the
    /// system is added, and never validates a system that cannot fail.
    fn validates(&self) -> bool {
        false
    }

    /// The error the system's last run returned, if it returned one (a system
    /// function returning `Result`): the schedule hands it to its error handler at
    /// the sync point. The default: none.
    fn take_error(&mut self) -> Option<SystemError> {
        None
    }

    /// Whether [`apply_deferred`](Self::apply_deferred) can have anything to do;
    /// asked once, when the system is added, so a schedule's sync point never calls a
    /// system that defers nothing. The default: yes.
    fn defers(&self) -> bool {
        true
    }

    /// Whether [`take_error`](Self::take_error) can return an error; asked once, when
    /// the system is added, so a system that cannot fail is never asked.
    fn can_fail(&self) -> bool {
        false
    }

    /// Whether an entity in table `archetype` that has exactly the sparse components
    /// `has_sparse` says it has matches one of the system's queries, change filters
    /// aside (for the entity enter and exit callbacks).
    fn matches_entity_in(
        &mut self,
        world: &World,
        archetype: ArchetypeId,
        has_sparse: &dyn Fn(ComponentId) -> bool,
    ) -> bool {
        let _ = (world, archetype, has_sparse);
        false
    }
}

/// Conversion into a [`System`]; implemented for functions whose parameters are all
/// [`SystemParam`]s (up to 12) and for functions taking `&mut World`. `Marker` only
/// tells the two kinds apart.
pub trait IntoSystem<Marker>: Sized {
    /// The system made.
    type System: System;
    /// Makes the system.
    fn into_system(self) -> Self::System;
}

impl<S: System> IntoSystem<()> for S {
    type System = S;
    fn into_system(self) -> S {
        self
    }
}

/// The default name of a system made from `F`: its path without the crate and
/// module prefix (`my_game::physics::gravity` → `gravity`, and a generic
/// `my_game::spawn<my_game::Crate>` → `spawn<Crate>`).
pub(crate) fn short_name<F>() -> Cow<'static, str> {
    let full = std::any::type_name::<F>();
    if full.contains("{{closure}}") {
        return Cow::Borrowed(full);
    }
    Cow::Owned(short_type_name(full))
}

/// A function whose parameters are system parameters, after an optional
/// [input](SystemInput) first; `Marker` is the function's signature type. A scheduled
/// system returns `()` or a `Result`; a [run condition](crate::system::IntoCondition) returns
/// `bool`; a one-shot or [piped](crate::system::IntoIoSystem::pipe) system may return anything.
pub trait SystemParamFunction<Marker>: Send + 'static {
    /// The input ([`In`](crate::system::In), [`InRef`](crate::system::InRef), [`InMut`](crate::system::InMut)),
    /// or `()` for a function without one.
    type In: SystemInput;
    /// The parameters after the input, as a tuple.
    type Param: SystemParam;
    /// What the function returns.
    type Out;
    /// Calls the function.
    fn call(&mut self, input: SystemIn<'_, Self::In>, params: SystemParamItem<'_, '_, Self::Param>) -> Self::Out;
}

/// A [`System`] made from a function of system parameters (an
/// [`IoSystem`](crate::system::IoSystem) if it takes input or returns a value other than `()`
/// or a `Result`).
pub struct FunctionSystem<Marker, F: SystemParamFunction<Marker>> {
    function: F,
    state: Option<<F::Param as SystemParam>::State>,
    meta: SystemMeta,
    /// The error the last run returned, until the schedule takes it.
    error: Option<SystemError>,
    _marker: PhantomData<fn() -> Marker>,
}

impl<Marker: 'static, F: SystemParamFunction<Marker>> FunctionSystem<Marker, F> {
    /// Runs the function once with `input`.
    ///
    /// # Safety
    /// As [`System::run_shared`].
    pub(crate) unsafe fn run_function(&mut self, input: SystemIn<'_, F::In>, world: &World) -> F::Out {
        let state = self.state.as_mut().expect("system initialized before it runs");
        // SAFETY: the caller keeps conflicting systems out while this one runs, and
        // the access was declared by `init`.
        let params = unsafe { F::Param::get(state, world, &self.meta) };
        self.function.call(input, params)
    }

    pub(crate) fn meta(&self) -> &SystemMeta {
        &self.meta
    }

    pub(crate) fn meta_mut(&mut self) -> &mut SystemMeta {
        &mut self.meta
    }

    pub(crate) fn initialize_params(&mut self, world: &mut World) -> Result<(), Vec<String>> {
        init_params::<F::Param>(&mut self.state, world, &mut self.meta)
    }

    pub(crate) fn apply_params(&mut self, world: &mut World) {
        if let Some(state) = &mut self.state {
            F::Param::apply(state, world);
        }
    }

    pub(crate) fn queue_params(&mut self, queue: &mut CommandQueue) {
        if let Some(state) = &mut self.state {
            F::Param::queue(state, queue);
        }
    }

    pub(crate) fn validate_params(&mut self, world: &World) -> Result<(), String> {
        match &mut self.state {
            Some(state) if F::Param::FALLIBLE => F::Param::validate(state, world),
            _ => Ok(()),
        }
    }
}

// SAFETY: `initialize` sets the access to the union of the parameters' accesses,
// and `run_shared` touches the world only through those parameters, each of which
// promises (by `SystemParam`'s contract) to touch only what it declared.
unsafe impl<Marker: 'static, F> System for FunctionSystem<Marker, F>
where
    F: SystemParamFunction<Marker, In = ()>,
    F::Out: SystemOutput,
{
    fn name(&self) -> &str {
        &self.meta.name
    }
    fn set_name(&mut self, name: Cow<'static, str>) {
        self.meta.name = name;
    }
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>> {
        self.initialize_params(world)
    }
    fn access(&self) -> &SystemAccess {
        &self.meta.access
    }
    unsafe fn run_shared(&mut self, world: &World) {
        // SAFETY: forwarded from the caller.
        let out = unsafe { self.run_function((), world) };
        if F::Out::CAN_FAIL
            && let Err(error) = out.into_result()
        {
            self.error = Some(SystemError { system: self.meta.name.to_string(), error });
        }
    }
    fn run_exclusive(&mut self, world: &mut World) {
        // SAFETY: exclusive access covers any declared access.
        unsafe { self.run_shared(world) };
    }
    fn apply_deferred(&mut self, world: &mut World) {
        self.apply_params(world);
    }
    fn queue_deferred(&mut self, queue: &mut CommandQueue) {
        self.queue_params(queue);
    }
    fn entity_counts(&mut self, world: &World) -> EntityCounts {
        let mut counts = EntityCounts::default();
        if let Some(state) = &mut self.state {
            F::Param::count(state, world, &mut counts);
        }
        counts
    }
    fn validate(&mut self, world: &World) -> Result<(), String> {
        self.validate_params(world)
    }
    fn validates(&self) -> bool {
        F::Param::FALLIBLE
    }
    fn take_error(&mut self) -> Option<SystemError> {
        self.error.take()
    }
    fn can_fail(&self) -> bool {
        F::Out::CAN_FAIL
    }
    fn defers(&self) -> bool {
        F::Param::DEFERS
    }
    fn matches_entity_in(
        &mut self,
        world: &World,
        archetype: ArchetypeId,
        has_sparse: &dyn Fn(ComponentId) -> bool,
    ) -> bool {
        self.state.as_mut().is_some_and(|state| F::Param::matches(state, world, archetype, has_sparse))
    }
}

/// Prepares parameters `P` for `world` once (a later call keeps the state made by the
/// first), declaring their access in `meta`.
///
/// # Errors
/// The conflicts between the parameters, each naming the type; nothing is kept then.
pub(crate) fn init_params<P: SystemParam>(
    state: &mut Option<P::State>,
    world: &mut World,
    meta: &mut SystemMeta,
) -> Result<(), Vec<String>> {
    if state.is_none() {
        let made = P::init(world, meta);
        if !meta.conflicts.is_empty() {
            return Err(std::mem::take(&mut meta.conflicts));
        }
        *state = Some(made);
    }
    Ok(())
}

/// Tells function systems apart from other [`IntoSystem`] implementations.
#[doc(hidden)]
pub struct IsFunctionSystem;

impl<Marker: 'static, F> IntoSystem<(IsFunctionSystem, Marker)> for F
where
    F: SystemParamFunction<Marker, In = ()>,
    F::Out: SystemOutput,
{
    type System = FunctionSystem<Marker, F>;
    fn into_system(self) -> Self::System {
        FunctionSystem::new(self)
    }
}

impl<Marker: 'static, F: SystemParamFunction<Marker>> FunctionSystem<Marker, F> {
    /// A system of `function`, named after it.
    pub(crate) fn new(function: F) -> Self {
        FunctionSystem {
            function,
            state: None,
            meta: SystemMeta::new(short_name::<F>()),
            error: None,
            _marker: PhantomData,
        }
    }
}

macro_rules! impl_system_function {
    ($($param:ident),*) => {
        impl<Out, Func, $($param: SystemParam),*> SystemParamFunction<fn($($param,)*) -> Out> for Func
        where
            Func: Send + 'static,
            for<'a> &'a mut Func: FnMut($($param),*) -> Out + FnMut($(SystemParamItem<'_, '_, $param>),*) -> Out,
        {
            type In = ();
            type Param = ($($param,)*);
            type Out = Out;
            #[allow(non_snake_case, clippy::too_many_arguments, reason = "parameters named after their types")]
            fn call(&mut self, _: (), params: SystemParamItem<'_, '_, ($($param,)*)>) -> Out {
                // Calling through a generic function pins the argument types to the
                // items, which lets the compiler pick the right `FnMut` impl.
                fn call_inner<Out, $($param),*>(mut f: impl FnMut($($param),*) -> Out, $($param: $param),*) -> Out {
                    f($($param),*)
                }
                let ($($param,)*) = params;
                call_inner(self, $($param),*)
            }
        }
    };
}

crate::util::tuples::for_each_tuple_prefix!(impl_system_function; A, B, C, D, E, F, G, H, I, J, K, L);

/// Tells functions with an input apart from those without (in their marker).
#[doc(hidden)]
pub struct HasSystemInput;

macro_rules! impl_system_function_with_input {
    ($($param:ident),*) => {
        impl<Input, Out, Func, $($param: SystemParam),*> SystemParamFunction<(HasSystemInput, fn(Input, $($param,)*) -> Out)> for Func
        where
            Input: SystemInput,
            Func: Send + 'static,
            for<'a> &'a mut Func: FnMut(Input, $($param),*) -> Out
                + FnMut(Input::Param<'_>, $(SystemParamItem<'_, '_, $param>),*) -> Out,
        {
            type In = Input;
            type Param = ($($param,)*);
            type Out = Out;
            #[allow(non_snake_case, clippy::too_many_arguments, reason = "parameters named after their types")]
            fn call(&mut self, input: SystemIn<'_, Input>, params: SystemParamItem<'_, '_, ($($param,)*)>) -> Out {
                // As above; the input is wrapped for the function inside.
                fn call_inner<Input: SystemInput, Out, $($param),*>(
                    _: PhantomData<Input>,
                    mut f: impl FnMut(Input::Param<'_>, $($param),*) -> Out,
                    input: Input::Inner<'_>,
                    $($param: $param),*
                ) -> Out {
                    f(Input::wrap(input), $($param),*)
                }
                let ($($param,)*) = params;
                call_inner(PhantomData::<Input>, self, input, $($param),*)
            }
        }
    };
}

crate::util::tuples::for_each_tuple_prefix!(impl_system_function_with_input; A, B, C, D, E, F, G, H, I, J, K);

/// A [`System`] made from a function taking `&mut World`: it runs alone, and conflicts
/// with every other system.
pub struct ExclusiveSystem<F> {
    function: F,
    meta: SystemMeta,
}

// SAFETY: the system declares itself exclusive in `initialize`, so the schedule
// only ever runs it through `run_exclusive` (`run_shared` refuses to run), and
// `entity_counts` touches nothing.
unsafe impl<F: FnMut(&mut World) + Send + 'static> System for ExclusiveSystem<F> {
    fn name(&self) -> &str {
        &self.meta.name
    }
    fn set_name(&mut self, name: Cow<'static, str>) {
        self.meta.name = name;
    }
    fn initialize(&mut self, _: &mut World) -> Result<(), Vec<String>> {
        self.meta.access.set_exclusive();
        Ok(())
    }
    fn access(&self) -> &SystemAccess {
        &self.meta.access
    }
    unsafe fn run_shared(&mut self, _: &World) {
        unreachable!("an exclusive system `{}` is only run with `run_exclusive`", self.meta.name)
    }
    fn run_exclusive(&mut self, world: &mut World) {
        (self.function)(world);
    }
    fn apply_deferred(&mut self, _: &mut World) {}
    fn defers(&self) -> bool {
        false
    }
    fn entity_counts(&mut self, _: &World) -> EntityCounts {
        EntityCounts::default()
    }
}

/// Tells exclusive systems apart from other [`IntoSystem`] implementations.
#[doc(hidden)]
pub struct IsExclusiveSystem;

impl<F: FnMut(&mut World) + Send + 'static> IntoSystem<IsExclusiveSystem> for F {
    type System = ExclusiveSystem<F>;
    fn into_system(self) -> ExclusiveSystem<F> {
        ExclusiveSystem { function: self, meta: SystemMeta::new(short_name::<F>()) }
    }
}
