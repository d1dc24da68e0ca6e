//! A log of system runs for schedule tests, included with
//! `#[path = "support/run_log.rs"] mod run_log;`: systems push their names to the `Log`
//! resource, and the test reads the order they ran in.
#![allow(dead_code, reason = "each test file uses part of it")]

use ripple::World;
use ripple::system::ResMut;

/// The names of the systems that ran, in order.
pub struct Log(pub Vec<&'static str>);

/// A system that logs `name` when it runs.
pub fn log_system(name: &'static str) -> impl FnMut(ResMut<'_, Log>) + Send + 'static {
    move |mut log: ResMut<'_, Log>| log.0.push(name)
}

/// A world with an empty log.
pub fn world_with_log() -> World {
    let mut world = World::new();
    world.insert_resource(Log(Vec::new()));
    world
}

/// The names logged since the last call.
pub fn take_log(world: &mut World) -> Vec<&'static str> {
    std::mem::take(&mut world.resource_mut::<Log>().unwrap().0)
}
