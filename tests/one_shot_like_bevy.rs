//! One-shot systems as bevy_ecs users call them: cached by function, and run from
//! commands. Named after the bevy_ecs 0.20 behaviour each mirrors.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use ripple::system::{OneShotError, ResMut};
use ripple::{CommandFailure, Commands, RunRefused, World};

#[derive(Default)]
struct Counter(u32);

fn count_up(mut counter: ResMut<Counter>) {
    counter.0 += 1;
}

#[test]
fn cached_system_is_registered_once() {
    let mut world = World::new();
    world.insert_resource(Counter::default());
    let first = world.register_system_cached(count_up).unwrap();
    let again = world.register_system_cached(count_up).unwrap();
    assert_eq!(first, again);
    world.run_system_cached(count_up).unwrap();
    world.run_system_cached(count_up).unwrap();
    assert_eq!(world.resource::<Counter>().unwrap().0, 2);
    // Unregistered: the next cached call registers it afresh.
    world.unregister_system(first).unwrap();
    let fresh = world.register_system_cached(count_up).unwrap();
    assert_ne!(fresh, first);
}

#[test]
fn cached_closures_must_not_capture() {
    let mut world = World::new();
    let step = 5;
    let result = world.register_system_cached(move |mut counter: ResMut<Counter>| counter.0 += step);
    assert!(matches!(result, Err(OneShotError::CapturesState { .. })), "{result:?}");
    world.insert_resource(Counter::default());
    world.run_system_cached(|mut counter: ResMut<Counter>| counter.0 += 1).unwrap();
    assert_eq!(world.resource::<Counter>().unwrap().0, 1);
}

#[test]
fn run_system_from_commands() {
    let mut world = World::new();
    world.insert_resource(Counter::default());
    let id = world.register_system(count_up).unwrap();
    let caller = world.register_system(move |mut commands: Commands| commands.run_system(id)).unwrap();
    world.run_system(caller).unwrap();
    assert_eq!(world.resource::<Counter>().unwrap().0, 1);
    // A refused run is a failed command, with its reason.
    world.remove_resource::<Counter>().unwrap();
    world.run_system(caller).unwrap();
    let failed = world.failed_commands();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0].error, CommandFailure::RunSystem { system: id, refused: RunRefused::InvalidParams });
}
