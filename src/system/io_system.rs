//! Systems with input and output: [`IoSystem`], what one-shot runs
//! ([`World::run_system_with`]) and [pipes](IntoIoSystem::pipe) are made of.

use std::borrow::Cow;

use crate::world::World;

use super::access::SystemAccess;
use super::function::{
    ExclusiveSystem, FunctionSystem, IsExclusiveSystem, IsFunctionSystem, System, SystemParamFunction,
};
use super::input::{In, SystemIn, SystemInput};
use super::output::{SystemError, SystemOutput};
use super::pipe::Pipe;
use crate::commands::CommandQueue;

/// A system that takes an input and returns an output: a function whose first
/// parameter is [`In`](crate::system::In), [`InRef`](crate::system::InRef) or [`InMut`](crate::system::InMut),
/// or that returns a value; made by [`IntoIoSystem`]. Run it as a one-shot system
/// ([`World::run_system_with`]) or [`pipe`](IntoIoSystem::pipe) another's output into
/// it. A pipe that takes no input and returns `()` or a `Result` can be scheduled like
/// any system.
///
/// # Safety
/// As for [`System`]: [`run_shared_with`](Self::run_shared_with) touches only what
/// [`access`](Self::access) declares, and a system that cannot run on a shared world
/// declares itself exclusive.
pub unsafe trait IoSystem: Send + 'static {
    /// What the system takes.
    type In: SystemInput;
    /// What the system returns.
    type Out;

    /// The system's name.
    fn name(&self) -> &str;

    /// Gives the system a new name.
    fn set_name(&mut self, name: Cow<'static, str>);

    /// Prepares the system for `world` (see [`System::initialize`]).
    ///
    /// # Errors
    /// The conflicts between the system's own parameters, each naming the type.
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>>;

    /// What the system reads and writes (valid after `initialize`).
    fn access(&self) -> &SystemAccess;

    /// Runs a system that is not exclusive on a shared world.
    ///
    /// # Safety
    /// As [`System::run_shared`].
    unsafe fn run_shared_with(&mut self, input: SystemIn<'_, Self::In>, world: &World) -> Self::Out;

    /// Runs the system with exclusive access.
    fn run_with(&mut self, input: SystemIn<'_, Self::In>, world: &mut World) -> Self::Out;

    /// At the sync point: applies what the system deferred.
    fn apply_deferred(&mut self, world: &mut World);

    /// Moves the commands the system deferred to `queue` (see [`System::queue_deferred`]).
    fn queue_deferred(&mut self, queue: &mut CommandQueue);

    /// Whether the system's parameters can be made now, the reason if not.
    fn validate(&mut self, world: &World) -> Result<(), String>;

    /// Whether [`validate`](Self::validate) can fail (as [`System::validates`]).
    fn validates(&self) -> bool;
}

/// Conversion into an [`IoSystem`]: implemented for functions of system parameters
/// (with an input first or not, returning anything), for exclusive functions of
/// `&mut World`, for every [`System`], and for pipes. `Marker` tells the kinds apart.
pub trait IntoIoSystem<I: SystemInput, O, Marker>: Sized {
    /// The system made.
    type System: IoSystem<In = I, Out = O>;

    /// Makes the system.
    fn into_io_system(self) -> Self::System;

    /// A system that runs this one, then `next` with this one's output as its input
    /// ([`In<O>`](crate::system::In)), and returns `next`'s output. Its access is both
    /// systems'. Scheduled (when it takes no input and returns `()` or a `Result`),
    /// it runs as one system.
    ///
    /// ```
    /// use ripple::World;
    /// use ripple::system::{In, IntoIoSystem, Res};
    /// struct Limit(u32);
    /// fn parse(In(text): In<&'static str>) -> Option<u32> {
    ///     text.parse().ok()
    /// }
    /// fn clamp(In(value): In<Option<u32>>, limit: Res<Limit>) -> u32 {
    ///     value.unwrap_or(0).min(limit.0)
    /// }
    /// let mut world = World::new();
    /// world.insert_resource(Limit(10));
    /// let id = world.register_system(parse.pipe(clamp)).unwrap();
    /// assert_eq!(world.run_system_with(id, "42"), Ok(10));
    /// assert_eq!(world.run_system_with(id, "x"), Ok(0));
    /// ```
    fn pipe<B, BO, BM>(self, next: B) -> Pipe<Self::System, B::System>
    where
        O: 'static,
        B: IntoIoSystem<In<O>, BO, BM>,
    {
        Pipe::new(self.into_io_system(), next.into_io_system())
    }
}

// SAFETY: the function system's access is its parameters' (see its `System` impl), and
// a run touches the world only through them.
unsafe impl<Marker: 'static, F: SystemParamFunction<Marker>> IoSystem for FunctionSystem<Marker, F> {
    type In = F::In;
    type Out = F::Out;
    fn name(&self) -> &str {
        &self.meta().name
    }
    fn set_name(&mut self, name: Cow<'static, str>) {
        self.meta_mut().name = name;
    }
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>> {
        self.initialize_params(world)
    }
    fn access(&self) -> &SystemAccess {
        &self.meta().access
    }
    unsafe fn run_shared_with(&mut self, input: SystemIn<'_, F::In>, world: &World) -> F::Out {
        // SAFETY: forwarded from the caller.
        unsafe { self.run_function(input, world) }
    }
    fn run_with(&mut self, input: SystemIn<'_, F::In>, world: &mut World) -> F::Out {
        // SAFETY: exclusive access covers any declared access.
        unsafe { self.run_function(input, world) }
    }
    fn apply_deferred(&mut self, world: &mut World) {
        self.apply_params(world);
    }
    fn queue_deferred(&mut self, queue: &mut CommandQueue) {
        self.queue_params(queue);
    }
    fn validate(&mut self, world: &World) -> Result<(), String> {
        self.validate_params(world)
    }
    fn validates(&self) -> bool {
        <F::Param as super::param::SystemParam>::FALLIBLE
    }
}

impl<Marker: 'static, F: SystemParamFunction<Marker>> IntoIoSystem<F::In, F::Out, (IsFunctionSystem, Marker)> for F {
    type System = FunctionSystem<Marker, F>;
    fn into_io_system(self) -> Self::System {
        FunctionSystem::new(self)
    }
}

/// A [`System`] (no input, no output) as an [`IoSystem`].
pub struct PlainSystem<S>(S);

// SAFETY: every call forwards to the system, which upholds the same contract.
unsafe impl<S: System> IoSystem for PlainSystem<S> {
    type In = ();
    type Out = ();
    fn name(&self) -> &str {
        self.0.name()
    }
    fn set_name(&mut self, name: Cow<'static, str>) {
        self.0.set_name(name);
    }
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>> {
        self.0.initialize(world)
    }
    fn access(&self) -> &SystemAccess {
        self.0.access()
    }
    unsafe fn run_shared_with(&mut self, (): (), world: &World) {
        // SAFETY: forwarded from the caller.
        unsafe { self.0.run_shared(world) }
    }
    fn run_with(&mut self, (): (), world: &mut World) {
        self.0.run_exclusive(world);
    }
    fn apply_deferred(&mut self, world: &mut World) {
        self.0.apply_deferred(world);
    }
    fn queue_deferred(&mut self, queue: &mut CommandQueue) {
        self.0.queue_deferred(queue);
    }
    fn validate(&mut self, world: &World) -> Result<(), String> {
        if self.0.validates() { self.0.validate(world) } else { Ok(()) }
    }
    fn validates(&self) -> bool {
        self.0.validates()
    }
}

/// Tells a [`System`] taken as an [`IoSystem`] apart from other [`IntoIoSystem`]
/// implementations.
#[doc(hidden)]
pub struct IsPlainSystem;

impl<S: System> IntoIoSystem<(), (), IsPlainSystem> for S {
    type System = PlainSystem<S>;
    fn into_io_system(self) -> PlainSystem<S> {
        PlainSystem(self)
    }
}

impl<F: FnMut(&mut World) + Send + 'static> IntoIoSystem<(), (), IsExclusiveSystem> for F {
    type System = PlainSystem<ExclusiveSystem<F>>;
    fn into_io_system(self) -> Self::System {
        PlainSystem(super::function::IntoSystem::into_system(self))
    }
}

/// An [`IoSystem`] without input that returns `()` or a `Result`, as a [`System`] the
/// schedule can run (a [pipe](IntoIoSystem::pipe), say).
pub struct ScheduledIo<S> {
    system: S,
    error: Option<SystemError>,
}

impl<S> ScheduledIo<S> {
    pub(crate) fn new(system: S) -> Self {
        ScheduledIo { system, error: None }
    }
}

// SAFETY: every call forwards to the system, which upholds the same contract.
unsafe impl<S: IoSystem<In = ()>> System for ScheduledIo<S>
where
    S::Out: SystemOutput,
{
    fn name(&self) -> &str {
        self.system.name()
    }
    fn set_name(&mut self, name: Cow<'static, str>) {
        self.system.set_name(name);
    }
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>> {
        self.system.initialize(world)
    }
    fn access(&self) -> &SystemAccess {
        self.system.access()
    }
    unsafe fn run_shared(&mut self, world: &World) {
        // SAFETY: forwarded from the caller.
        let out = unsafe { self.system.run_shared_with((), world) };
        self.keep(out);
    }
    fn run_exclusive(&mut self, world: &mut World) {
        let out = self.system.run_with((), world);
        self.keep(out);
    }
    fn apply_deferred(&mut self, world: &mut World) {
        self.system.apply_deferred(world);
    }
    fn queue_deferred(&mut self, queue: &mut CommandQueue) {
        self.system.queue_deferred(queue);
    }
    fn entity_counts(&mut self, _: &World) -> super::param::EntityCounts {
        super::param::EntityCounts::default()
    }
    fn validate(&mut self, world: &World) -> Result<(), String> {
        self.system.validate(world)
    }
    fn validates(&self) -> bool {
        self.system.validates()
    }
    fn take_error(&mut self) -> Option<SystemError> {
        self.error.take()
    }
    fn can_fail(&self) -> bool {
        S::Out::CAN_FAIL
    }
}

impl<S: IoSystem<In = ()>> ScheduledIo<S>
where
    S::Out: SystemOutput,
{
    fn keep(&mut self, out: S::Out) {
        if S::Out::CAN_FAIL
            && let Err(error) = out.into_result()
        {
            self.error = Some(SystemError { system: self.system.name().to_string(), error });
        }
    }
}
