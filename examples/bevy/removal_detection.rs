//! bevy's `removal_detection`: knowing when a component was removed. After two
//! seconds a system removes `MyComponent` from the entity that has it; an observer of
//! `OnRemove<MyComponent>` (bevy: `On<Remove<MyComponent>>`) runs at once and tints
//! the entity's sprite.
//!
//! bevy: shows the sprite in a window and prints nothing; here 12 frames of a fixed
//! 0.25 s stand in for the clock, and [`run`] returns the world so that the tests can
//! see the tint.

use ripple::prelude::*;
use ripple::query::With;

/// The frames [`main`] runs: three seconds.
pub const FRAMES: u32 = 12;
/// The time each frame takes.
const DELTA_SECS: f32 = 0.25;

/// The component removed after two seconds.
pub struct MyComponent;

/// bevy: `bevy::sprite::Sprite`; here its colour alone, as sRGB.
#[derive(Debug, PartialEq)]
pub struct Sprite {
    /// The tint, red, green and blue from 0 to 1.
    pub color: [f32; 3],
}

/// bevy: `bevy::time::Time`, advanced each frame.
#[derive(Default)]
struct Time {
    elapsed_secs: f32,
}

fn setup(mut commands: Commands) {
    // bevy: spawns a camera too, and loads the sprite's image (white: no tint).
    commands.spawn((Sprite { color: [1.0, 1.0, 1.0] }, MyComponent));
}

fn remove_component(time: Res<Time>, mut commands: Commands, query: Query<Entity, With<MyComponent>>) {
    // After two seconds, the component is removed.
    if time.elapsed_secs > 2.0
        && let Some(entity) = query.iter().next()
    {
        commands.entity(entity).remove::<(MyComponent,)>();
    }
}

fn react_on_removal(remove: Trigger<OnRemove<MyComponent>>, mut query: Query<&mut Sprite>) {
    // The event was triggered for the entity that lost `MyComponent`.
    if let Ok(mut sprite) = query.get_mut(remove.entity()) {
        sprite.color = [0.5, 1., 1.];
    }
}

/// Runs `frames` frames and returns the world.
pub fn run(frames: u32) -> World {
    let mut world = World::new();
    world.init_resource::<Time>();
    world.add_observer(react_on_removal).unwrap();
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, setup).unwrap();
    let mut update = Schedule::new();
    update.add_systems(&mut world, remove_component).unwrap();

    startup.run(&mut world);
    for _ in 0..frames {
        world.resource_mut::<Time>().unwrap().elapsed_secs += DELTA_SECS;
        update.run(&mut world);
    }
    world
}

/// Runs [`FRAMES`] frames.
pub fn main() {
    run(FRAMES);
}
