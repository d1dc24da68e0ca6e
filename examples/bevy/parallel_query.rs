//! bevy's `parallel_query`: iterating a query in parallel. 128 sprites move by their
//! velocities, in parallel, and bounce off the window's edges.
//!
//! bevy: draws the sprites in a 1280x720 window, and prints nothing. Here the window
//! is an entity with a size, the port runs [`FRAMES`] frames, and [`run`] returns the
//! world so that the tests can compare it with a plain loop. The velocities come from
//! a seeded generator (bevy: `ChaCha8Rng` with the same seed, another algorithm).

use ripple::prelude::*;

use super::math::Vec2;
use super::rng::Rng;

/// The frames [`main`] runs.
pub const FRAMES: usize = 60;

/// A velocity, added to the position each frame.
// bevy: `#[derive(Component, Deref)] struct Velocity(Vec2)`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Velocity(pub Vec2);

/// bevy: `bevy::transform::components::Transform`; the translation is what moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Transform {
    /// The position (x, y) and depth (z).
    pub translation: [f32; 3],
    /// The scale.
    pub scale: f32,
}

/// bevy: `bevy::window::Window`; its size.
pub struct Window {
    /// Width in pixels.
    pub width: f32,
    /// Height in pixels.
    pub height: f32,
}

/// bevy: spawns a camera, and a `Sprite` with bevy's logo on each entity.
fn spawn_system(mut commands: Commands) {
    // A seeded generator, so that the example is the same every time.
    let mut rng = Rng::seed_from_u64(19878367467713);
    for z in 0..128 {
        commands.spawn((
            Transform { translation: [0.0, 0.0, z as f32], scale: 0.1 },
            Velocity(20.0 * Vec2::new(rng.f32() - 0.5, rng.f32() - 0.5)),
        ));
    }
}

/// Moves each sprite by its velocity, in parallel (bevy: on its `ComputeTaskPool`;
/// ripple: on rayon's pool).
fn move_system(mut sprites: Query<(&mut Transform, &Velocity)>) {
    // As bevy says: for 128 additions this is no faster than a plain loop; it shows
    // the call. bevy: `sprites.par_iter_mut().for_each(..)`.
    sprites.par_for_each_mut(|(mut transform, velocity)| {
        transform.translation[0] += velocity.0.x;
        transform.translation[1] += velocity.0.y;
    });
}

/// Turns the sprites that left the window back.
fn bounce_system(window: Query<&Window>, mut sprites: Query<(&Transform, &mut Velocity)>) {
    let mut windows = window.iter();
    let (Some(window), None) = (windows.next(), windows.next()) else {
        return;
    };
    let (width, height) = (window.width, window.height);
    let left = width / -2.0;
    let right = width / 2.0;
    let bottom = height / -2.0;
    let top = height / 2.0;
    // bevy: `.par_iter_mut().batching_strategy(BatchingStrategy::fixed(32))`, batches
    // of 32 to bound the overhead; ripple's parallel runs split the tables by
    // themselves and take no batching strategy.
    sprites.par_for_each_mut(|(transform, mut v)| {
        let [x, y, _] = transform.translation;
        if !(left < x && x < right && bottom < y && y < top) {
            // Just reverse the velocity; not a realistic bounce.
            v.0 = -v.0;
        }
    });
}

/// Runs `frames` frames and returns the world.
pub fn run(frames: usize) -> World {
    let mut world = World::new();
    world.spawn((Window { width: 1280.0, height: 720.0 },));
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, spawn_system).unwrap();
    let mut update = Schedule::new();
    update.add_systems(&mut world, (move_system, bounce_system)).unwrap();
    startup.run(&mut world);
    for _ in 0..frames {
        update.run(&mut world);
    }
    world
}

/// Runs [`FRAMES`] frames.
pub fn main() {
    run(FRAMES);
}
