//! [`Pipe`]: one system's output handed to the next as its input.

use std::borrow::Cow;

use crate::world::World;

use super::access::SystemAccess;
use super::function::IntoSystem;
use super::input::{In, SystemIn};
use super::io_system::{IntoIoSystem, IoSystem, ScheduledIo};
use super::output::SystemOutput;
use crate::commands::CommandQueue;

/// Two systems run one after the other, the first's output the second's input: made
/// by [`IntoIoSystem::pipe`]. Its name is `first | second`; its access is both
/// systems' (they never run at the same time, so they may touch the same data).
pub struct Pipe<A, B> {
    first: A,
    second: B,
    name: Cow<'static, str>,
    access: SystemAccess,
}

impl<A: IoSystem, B: IoSystem<In = In<A::Out>>> Pipe<A, B>
where
    A::Out: 'static,
{
    pub(crate) fn new(first: A, second: B) -> Self {
        let name = Cow::Owned(format!("{} | {}", first.name(), second.name()));
        Pipe { first, second, name, access: SystemAccess::default() }
    }
}

// SAFETY: the pipe declares the union of both systems' accesses and touches the world
// only by running them, one after the other.
unsafe impl<A: IoSystem, B: IoSystem<In = In<A::Out>>> IoSystem for Pipe<A, B>
where
    A::Out: 'static,
{
    type In = A::In;
    type Out = B::Out;
    fn name(&self) -> &str {
        &self.name
    }
    fn set_name(&mut self, name: Cow<'static, str>) {
        self.name = name;
    }
    fn initialize(&mut self, world: &mut World) -> Result<(), Vec<String>> {
        let mut conflicts = Vec::new();
        if let Err(mut found) = self.first.initialize(world) {
            conflicts.append(&mut found);
        }
        if let Err(mut found) = self.second.initialize(world) {
            conflicts.append(&mut found);
        }
        if !conflicts.is_empty() {
            return Err(conflicts);
        }
        let mut access = self.first.access().clone();
        access.extend(self.second.access());
        self.access = access;
        Ok(())
    }
    fn access(&self) -> &SystemAccess {
        &self.access
    }
    unsafe fn run_shared_with(&mut self, input: SystemIn<'_, A::In>, world: &World) -> B::Out {
        // SAFETY: forwarded from the caller; the pipe's access covers both systems'.
        let out = unsafe { self.first.run_shared_with(input, world) };
        // SAFETY: as above.
        unsafe { self.second.run_shared_with(out, world) }
    }
    fn run_with(&mut self, input: SystemIn<'_, A::In>, world: &mut World) -> B::Out {
        let out = self.first.run_with(input, world);
        self.second.run_with(out, world)
    }
    fn apply_deferred(&mut self, world: &mut World) {
        self.first.apply_deferred(world);
        self.second.apply_deferred(world);
    }
    fn queue_deferred(&mut self, queue: &mut CommandQueue) {
        self.first.queue_deferred(queue);
        self.second.queue_deferred(queue);
    }
    fn validate(&mut self, world: &World) -> Result<(), String> {
        self.first.validate(world)?;
        self.second.validate(world)
    }
    fn validates(&self) -> bool {
        self.first.validates() || self.second.validates()
    }
}

/// Tells pipes apart from other [`IntoIoSystem`] and [`IntoSystem`] implementations.
#[doc(hidden)]
pub struct IsPipe;

impl<A: IoSystem, B: IoSystem<In = In<A::Out>>> IntoIoSystem<A::In, B::Out, IsPipe> for Pipe<A, B>
where
    A::Out: 'static,
{
    type System = Self;
    fn into_io_system(self) -> Self {
        self
    }
}

impl<A: IoSystem<In = ()>, B: IoSystem<In = In<A::Out>>> IntoSystem<IsPipe> for Pipe<A, B>
where
    A::Out: 'static,
    B::Out: SystemOutput,
{
    type System = ScheduledIo<Self>;
    fn into_system(self) -> Self::System {
        ScheduledIo::new(self)
    }
}
