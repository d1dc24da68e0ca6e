//! bevy's `hierarchy`: a parent with two children, spawned two ways (`with_children`,
//! and a child added after the fact); a system rotates the parent one way and each
//! child the other, despawns the last child after two seconds and the parent, with
//! what is left of its family, after four.
//!
//! bevy: draws sprites (bevy's logo) with `DefaultPlugins`, which also propagate
//! `Transform` down the hierarchy; it prints nothing. Here a `Transform` of the
//! example's own holds a rotation, and 20 frames of a fixed 0.25 s stand in for the
//! clock. [`run`] returns the world, so that the tests can see what was despawned.

use std::f32::consts::PI;

use ripple::prelude::*;

/// The frames [`main`] runs: five seconds.
pub const FRAMES: u32 = 20;
/// The time each frame takes.
const DELTA_SECS: f32 = 0.25;

/// bevy: `bevy::time::Time`, advanced each frame.
#[derive(Default)]
pub struct Time {
    elapsed_secs: f32,
    delta_secs: f32,
}

/// bevy: `bevy::sprite::Sprite` (an image and a tint); here the tint's name alone.
pub struct Sprite(pub &'static str);

/// bevy: `bevy::transform::components::Transform`; here a rotation about z and a
/// scale, all that the example changes or sets.
#[derive(Debug, PartialEq)]
pub struct Transform {
    /// The angle about z, in radians.
    pub rotation_z: f32,
    /// The uniform scale.
    pub scale: f32,
}

impl Transform {
    fn from_scale(scale: f32) -> Self {
        Transform { rotation_z: 0.0, scale }
    }

    fn rotate_z(&mut self, angle: f32) {
        self.rotation_z += angle;
    }
}

fn setup(mut commands: Commands) {
    // bevy: spawns a `Camera2d`, and loads the texture the sprites show.
    // Spawn a root entity with no parent.
    let parent = commands.spawn((Sprite("white"), Transform::from_scale(0.75)));
    // With that entity as the parent, a closure spawns its children.
    commands.entity(parent).with_children(|parent| {
        // `parent` is a `ChildSpawnerCommands`, with an API like `Commands`'s.
        parent.spawn((Transform::from_scale(0.75), Sprite("blue")));
    });

    // Another way: add a child to a parent spawned before.
    let child = commands.spawn((Sprite("lime"), Transform::from_scale(0.75)));

    commands.entity(parent).add_child(child);
}

/// Rotates the root, and each of its children the other way.
fn rotate(
    mut commands: Commands,
    time: Res<Time>,
    mut parents_query: Query<(Entity, &Children), With<Sprite>>,
    mut transform_query: Query<&mut Transform, With<Sprite>>,
) {
    for (parent, children) in &mut parents_query {
        if let Ok(mut transform) = transform_query.get_mut(parent) {
            transform.rotate_z(-PI / 2. * time.delta_secs);
        }

        // `Children` is a list of entities.
        for child in children.iter() {
            if let Ok(mut transform) = transform_query.get_mut(*child) {
                transform.rotate_z(PI * time.delta_secs);
            }
        }

        // Remove a child after a couple of seconds.
        if time.elapsed_secs >= 2.0 && children.len() == 2 {
            let child = children.last().unwrap();
            commands.entity(*child).despawn();
        }

        if time.elapsed_secs >= 4.0 {
            // Removes the entity from its parent's children, and despawns its own.
            commands.entity(parent).despawn();
        }
    }
}

/// Runs `frames` frames and returns the world.
pub fn run(frames: u32) -> World {
    let mut world = World::new();
    world.init_resource::<Time>();
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, setup).unwrap();
    let mut update = Schedule::new();
    update.add_systems(&mut world, rotate).unwrap();

    startup.run(&mut world);
    for _ in 0..frames {
        let time = world.resource_mut::<Time>().unwrap();
        time.delta_secs = DELTA_SECS;
        time.elapsed_secs += DELTA_SECS;
        update.run(&mut world);
    }
    world
}

/// Runs [`FRAMES`] frames.
pub fn main() {
    run(FRAMES);
}
