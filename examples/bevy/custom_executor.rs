//! bevy's `custom_executor`: a schedule run by an executor of one's own, here one that
//! runs its systems one after the other, in order.
//!
//! bevy: implements `SystemExecutor` and sets it on a `Schedule` (`set_executor`).
//! ripple's `Schedule` runs its own plan (in parallel where access allows, or on one
//! thread with `set_single_threaded`) and takes no executor; the port's executor runs
//! registered one-shot systems in its own order instead, which is what bevy's does
//! with the systems of its schedule.

use ripple::OneShotId;
use ripple::prelude::*;

/// Runs its systems in the order they were added, each with the world to itself.
#[derive(Default)]
struct CustomExecutor {
    systems: Vec<OneShotId>,
}

impl CustomExecutor {
    /// bevy: `schedule.add_systems((increment, print_counter).chain())`: the chain is
    /// this executor's order.
    fn add_system<M>(&mut self, world: &mut World, system: impl ripple::system::IntoIoSystem<(), (), M>) {
        self.systems.push(world.register_system(system).unwrap());
    }

    /// bevy: `SystemExecutor::run`, which runs each system and ignores its result.
    fn run(&mut self, world: &mut World) {
        for system in &self.systems {
            let _ = world.run_system(*system);
        }
    }
}

#[derive(Default)]
struct Counter(u32);

fn increment(mut counter: ResMut<Counter>) {
    counter.0 += 1;
}

fn print_counter(counter: Res<Counter>) {
    say!("Counter: {}", counter.0);
}

/// Runs the schedule five times.
pub fn main() {
    let mut world = World::new();
    world.init_resource::<Counter>();

    let mut schedule = CustomExecutor::default();
    schedule.add_system(&mut world, increment);
    schedule.add_system(&mut world, print_counter);

    for _ in 0..5 {
        schedule.run(&mut world);
    }
}
