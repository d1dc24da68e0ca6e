//! bevy's `change_detection`: reacting to component and resource changes. Two
//! systems now and then set a component to the rounded elapsed time, a third does so
//! for a resource, all through `set_if_neq` (which writes, and marks a change, only
//! when the value differs), and a fourth reports, with `Changed<T>`, `Ref<T>` and
//! `Res::is_changed`, what changed since it last ran.
//!
//! bevy: runs with `DefaultPlugins` at the display's frame rate, reads the clock
//! (`Res<Time>`) and draws with `rand`; here 20 frames of a fixed 0.25 s (a `Time`
//! resource of the example's own, advanced by the frame loop as bevy's `First`
//! schedule does) and a seeded generator. bevy logs with `info!`/`warn!`, which add a
//! timestamp and level; `say!` prints the message alone.

use ripple::prelude::*;
use ripple::query::Changed;

use super::rng;

/// How many frames the example runs.
const FRAMES: u32 = 20;
/// The time each frame takes.
const DELTA_SECS: f32 = 0.25;

#[derive(PartialEq, Debug)]
struct MyComponent(f32);

#[derive(PartialEq, Debug)]
struct MyResource(f32);

/// bevy: `bevy::time::Time`, the clock `TimePlugin` advances each frame; here the
/// frame loop advances it by [`DELTA_SECS`].
#[derive(Default)]
struct Time {
    elapsed_secs: f32,
}

fn setup(mut commands: Commands) {
    // bevy: the first change detection log points to this line (with the
    // `track_location` feature); ripple does not record where a change was made.
    commands.spawn((MyComponent(0.0),));
    commands.insert_resource(MyResource(0.0));
}

fn change_component(time: Res<Time>, mut query: Query<(Entity, &mut MyComponent)>) {
    for (entity, mut component) in &mut query {
        if rng::with(|rng| rng.bool_with(0.1)) {
            let new_component = MyComponent(time.elapsed_secs.round());
            say!("New value: {new_component:?} {entity}");
            // Change detection happens on mutable dereference, whether or not the
            // value is equal: `set_if_neq` writes (and marks) only a different value.
            component.set_if_neq(new_component);
        }
    }
}

/// A duplicate of `change_component`: with `track_location`, bevy's change records
/// tell which of the two made a change.
fn change_component_2(time: Res<Time>, mut query: Query<(Entity, &mut MyComponent)>) {
    for (entity, mut component) in &mut query {
        if rng::with(|rng| rng.bool_with(0.1)) {
            let new_component = MyComponent(time.elapsed_secs.round());
            say!("New value: {new_component:?} {entity}");
            component.set_if_neq(new_component);
        }
    }
}

/// Change detection works the same for resources.
fn change_resource(time: Res<Time>, mut my_resource: ResMut<MyResource>) {
    if rng::with(|rng| rng.bool_with(0.1)) {
        let new_resource = MyResource(time.elapsed_secs.round());
        say!("New value: {new_resource:?}");
        my_resource.set_if_neq(new_resource);
    }
}

/// `Changed<T>` returns only the entities whose `T` changed since this system last
/// ran; `Ref<T>` tells whether each item was added or changed, without filtering.
fn change_detection(
    mut changed_components: Query<Ref<MyComponent>, Changed<MyComponent>>,
    my_resource: Res<MyResource>,
) {
    for component in &mut changed_components {
        // bevy: `{:?}` of a `Ref` prints `Ref(value)`; ripple's `Ref` prints its
        // value and flags as a struct, so the port writes bevy's form. bevy prints
        // `changed_by()` after "changed by: ", empty without `track_location` (off by
        // default); ripple has no `changed_by`, so the line ends there too.
        say!(
            "Change detected!\n\t-> value: Ref({:?})\n\t-> added: {}\n\t-> changed: {}\n\t-> changed by: ",
            *component,
            component.is_added(),
            component.is_changed(),
        );
    }

    if my_resource.is_changed() {
        // bevy: `{:?}` of a `Res` prints `Res(value)`; ripple's `Res` has no `Debug`.
        say!(
            "Change detected!\n\t-> value: Res({:?})\n\t-> added: {}\n\t-> changed: {}\n\t-> changed by: ",
            *my_resource,
            my_resource.is_added(),
            my_resource.is_changed(),
        );
    }
}

/// Runs [`FRAMES`] frames.
pub fn main() {
    rng::seed(7);
    let mut world = World::new();
    world.init_resource::<Time>();

    let mut startup = Schedule::new();
    startup.add_systems(&mut world, setup).unwrap();
    let mut update = Schedule::new();
    update.add_systems(&mut world, (change_component, change_component_2, change_resource, change_detection)).unwrap();
    // bevy: the four run in an order that varies (the first two, and each of them
    // with the fourth, conflict without an order: an ambiguity bevy allows). One
    // thread runs them here, in the order of ripple's plan (conflicting systems in
    // the order they were added, `change_resource` beside `change_component` in the
    // first stage), so that `say!` captures each line and the random draws come in a
    // fixed order.
    update.set_single_threaded(true);

    startup.run(&mut world);
    for _ in 0..FRAMES {
        world.resource_mut::<Time>().unwrap().elapsed_secs += DELTA_SECS;
        update.run(&mut world);
    }
}
