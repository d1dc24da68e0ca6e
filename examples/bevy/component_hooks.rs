//! bevy's `component_hooks`: the component lifecycle hooks. Pressing a key spawns an
//! entity with `MyComponent(key)`; hooks keep an index from keys to entities, print
//! what happens, send a message, and despawn the entity once its component is removed
//! (when its key is released).
//!
//! bevy: reads the keyboard of a window; here a script holds A, then A and B, then
//! lets go of them. bevy's `HashMap` index prints its keys in a random order; a
//! `BTreeMap` prints them sorted. bevy's `caller` (where the change was made) is empty
//! without the `track_location` feature, off by default; ripple has none.

use std::collections::BTreeMap;

use ripple::prelude::*;

use super::input::{ButtonInput, KeyCode};

/// bevy: implements `Component` by hand to show that hooks can also be given there
/// (`fn on_add() -> Option<ComponentHook>`). A ripple component implements nothing:
/// hooks are registered on the world only.
#[derive(Debug)]
struct MyComponent(KeyCode);

/// bevy: derefs to its map (`#[derive(Deref, DerefMut)]`); the port names the field.
#[derive(Default, Debug)]
struct MyComponentIndex(BTreeMap<KeyCode, Entity>);

/// A message the `on_add` hook sends (nobody reads it, in bevy either).
struct MyMessage;

/// The keys held in each frame.
const SCRIPT: &[&[KeyCode]] = &[
    &[KeyCode::KeyA],
    &[KeyCode::KeyA],
    &[KeyCode::KeyA, KeyCode::KeyB],
    &[KeyCode::KeyB],
    &[],
    &[KeyCode::KeyA, KeyCode::KeyR],
    &[],
];

/// bevy: an exclusive startup system (`fn setup(world: &mut World)`); registering
/// hooks takes `&mut World` in ripple too, so the port calls it before the frames.
fn setup(world: &mut World) {
    // bevy: `on_add(|mut world: DeferredWorld, HookContext { entity, component_id,
    // caller, .. }| ..)`. A ripple hook gets the world shared (`ctx.world`: read
    // anything, write nothing) and `ctx.commands`, applied right after the operation
    // that ran the hook; it is not told the component's id, which the world gives.
    world.on_add::<MyComponent>(|ctx| {
        let entity = ctx.entity;
        let component_id = ctx.world.component_id::<MyComponent>().unwrap();
        // You can access component data from within the hook.
        let value = ctx.world.get::<MyComponent>(entity).unwrap().0;
        say!("{component_id:?} added to {entity} with value {value:?}");
        // bevy: `world.resource_mut::<MyComponentIndex>().insert(value, entity)` and
        // `world.write_message(MyMessage)` from the hook itself; a ripple hook cannot
        // write, so it queues both as a command.
        ctx.commands.add(move |world: &mut World| {
            world.resource_mut::<MyComponentIndex>().unwrap().0.insert(value, entity);
            world.write_message(MyMessage);
        });
    });
    // `on_insert` runs whenever the component is inserted, had the entity one or not,
    // after `on_add`.
    world.on_insert::<MyComponent>(|ctx| {
        // bevy: prints the index at once, which `on_add` has already updated; here the
        // update is `on_add`'s command, so the print is a command queued after it.
        ctx.commands.add(|world: &mut World| {
            say!("Current Index: {:?}", world.resource::<MyComponentIndex>().unwrap());
        });
    });
    // bevy: `on_discard`, which runs before a value is replaced or removed (before
    // `on_remove`). ripple has no hook at that moment; an `OnReplace` observer runs
    // then, and, being a system, may write resources.
    world
        .add_observer(
            |trigger: Trigger<OnReplace<MyComponent>>,
             query: Query<&MyComponent>,
             mut index: ResMut<MyComponentIndex>| {
                let value = query.get(trigger.entity()).unwrap().0;
                index.0.remove(&value);
            },
        )
        .unwrap();
    // `on_remove` runs when the component is removed; it is still there to read.
    world.on_remove::<MyComponent>(|ctx| {
        let entity = ctx.entity;
        let component_id = ctx.world.component_id::<MyComponent>().unwrap();
        let value = ctx.world.get::<MyComponent>(entity).unwrap().0;
        say!("{component_id:?} removed from {entity} with value {value:?}");
        // Structural changes go through commands (bevy: `world.commands()`).
        ctx.commands.despawn(entity);
    });
}

fn trigger_hooks(mut commands: Commands, keys: Res<ButtonInput<KeyCode>>, index: Res<MyComponentIndex>) {
    for (key, entity) in index.0.iter() {
        if !keys.pressed(*key) {
            // bevy: `commands.entity(e).remove::<MyComponent>()`: ripple's `remove`
            // takes a bundle, a tuple, as `insert` does.
            commands.entity(*entity).remove::<(MyComponent,)>();
        }
    }
    for key in keys.get_just_pressed() {
        commands.spawn((MyComponent(*key),));
    }
}

/// Plays [`SCRIPT`], a frame per entry.
pub fn main() {
    let mut world = World::new();
    world.init_resource::<MyComponentIndex>();
    world.init_resource::<ButtonInput<KeyCode>>();
    // bevy: `add_message::<MyMessage>()`; ripple registers a message type on first use.
    setup(&mut world);

    let mut update = Schedule::new();
    update.add_systems(&mut world, trigger_hooks).unwrap();
    for held in SCRIPT {
        // bevy: `bevy_input` updates `ButtonInput` in `PreUpdate`.
        world.resource_mut::<ButtonInput<KeyCode>>().unwrap().hold(held);
        update.run(&mut world);
    }
}
