//! bevy's `callbacks`: systems stored in components and run on demand. Six one-shot
//! systems (a trivial one, one with a query, one exclusive, and the same three
//! registered "boxed") each go into a `Callback` entity; a system runs them all.
//!
//! bevy: its `App` has no runner plugin, so it runs its schedules once; here too.

use ripple::OneShotId;
use ripple::prelude::*;

/// A system to run on demand.
// bevy: `system_id: SystemId<(), ()>`; ripple's handle is a `OneShotId<(), ()>`.
struct Callback {
    system_id: OneShotId,
}

fn setup_callbacks(mut commands: Commands) {
    // bevy: `commands.register_system(..)` returns the id at once, and
    // `commands.register_boxed_system(Box::new(IntoSystem::into_system(..)))` takes a
    // system already boxed. ripple registers systems through the world (and boxes them
    // itself), so one command registers all six and spawns their entities, in bevy's
    // order.
    commands.add(|world: &mut World| {
        let trivial_callback = Callback {
            system_id: world.register_system(|| say!("This is the trivial callback system")).unwrap(),
        };
        let ordinary_system_callback = Callback {
            system_id: world
                .register_system(|query: Query<&Callback>| {
                    let n_callbacks = query.iter().len();
                    say!("This is the ordinary callback system. There are currently {n_callbacks} callbacks in the world.");
                })
                .unwrap(),
        };
        let exclusive_callback = Callback {
            system_id: world
                .register_system(|world: &mut World| {
                    // bevy: `world.entities().len()`.
                    let n_entities = world.len();
                    say!("This is the exclusive callback system. There are currently {n_entities} entities in the world.");
                })
                .unwrap(),
        };
        world.spawn((trivial_callback,));
        world.spawn((ordinary_system_callback,));
        world.spawn((exclusive_callback,));

        // bevy: the same three, boxed before they are registered.
        let boxed_trivial_callback = Callback {
            system_id: world.register_system(|| say!("This is the boxed trivial callback system")).unwrap(),
        };
        let boxed_ordinary_system_callback = Callback {
            system_id: world
                .register_system(|query: Query<&Callback>| {
                    let n_callbacks = query.iter().len();
                    say!(
                        "This is the boxed ordinary callback system. There are currently {n_callbacks} callbacks in the world."
                    );
                })
                .unwrap(),
        };
        let boxed_exclusive_callback = Callback {
            system_id: world
                .register_system(|world: &mut World| {
                    let n_entities = world.len();
                    say!(
                        "This is the boxed exclusive callback system. There are currently {n_entities} entities in the world."
                    );
                })
                .unwrap(),
        };
        world.spawn((boxed_trivial_callback,));
        world.spawn((boxed_ordinary_system_callback,));
        world.spawn((boxed_exclusive_callback,));
    });
}

/// Runs every callback. (An observer could run one in response to an event.)
fn run_callbacks(mut commands: Commands, query: Query<&Callback>) {
    for callback in query.iter() {
        commands.run_system(callback.system_id);
    }
}

/// Runs the startup schedule and the update schedule once each.
pub fn main() {
    let mut world = World::new();
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, setup_callbacks).unwrap();
    let mut update = Schedule::new();
    update.add_systems(&mut world, run_callbacks).unwrap();
    startup.run(&mut world);
    update.run(&mut world);
}
