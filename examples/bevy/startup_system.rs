//! bevy's `startup_system`: a system that runs once, when the app starts, before the
//! others.
//!
//! bevy: `add_systems(Startup, ..)` and `add_systems(Update, ..)` on an `App` with no
//! runner plugin, which runs its schedules once; here a startup schedule runs once,
//! then the update schedule once.

use ripple::prelude::*;

/// Runs once, right before the normal systems first run.
fn startup_system() {
    say!("startup system ran first");
}

fn normal_system() {
    say!("normal system ran second");
}

/// Runs the startup schedule, then the update schedule.
pub fn main() {
    let mut world = World::new();
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, startup_system).unwrap();
    let mut update = Schedule::new();
    update.add_systems(&mut world, normal_system).unwrap();
    startup.run(&mut world);
    update.run(&mut world);
}
