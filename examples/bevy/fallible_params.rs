//! bevy's `fallible_params`: system parameters that keep their system from running
//! when they cannot be had. `Populated` runs its system only when some entity
//! matches; `Single` only when exactly one does; bevy's `Option<Single>` runs it
//! either way, with `None` unless exactly one matches. A player ship circles while it
//! sees no enemy, or several, and follows the enemy when there is exactly one.
//!
//! bevy: reads the keyboard, draws the ships and runs at the display's frame rate;
//! here a script presses A (add an enemy) and R (remove one) over 12 frames of a
//! fixed 0.25 s, and [`run`] returns the world so that the tests can follow the
//! player. Enemies come from a seeded generator (bevy: `rand::rng()`).

use std::f32::consts::{PI, TAU};

use ripple::prelude::*;
use ripple::query::With;

use super::input::{ButtonInput, KeyCode};
use super::math::Vec2;
use super::rng;

/// The time each frame takes.
const DELTA_SECS: f32 = 0.25;

/// The keys held in each frame.
pub const SCRIPT: &[&[KeyCode]] =
    &[&[], &[KeyCode::KeyA], &[], &[], &[KeyCode::KeyA], &[], &[KeyCode::KeyR], &[], &[], &[KeyCode::KeyR], &[], &[]];

/// Data for moving in a circle.
#[derive(Default)]
pub struct Enemy {
    origin: Vec2,
    radius: f32,
    rotation: f32,
    rotation_speed: f32,
}

/// Data for going after enemies.
#[derive(Default)]
pub struct Player {
    speed: f32,
    rotation_speed: f32,
    min_follow_radius: f32,
}

/// bevy: `bevy::transform::components::Transform` (3D); the ships move in the plane,
/// so a position and an angle about z.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Transform {
    /// Where it is.
    pub translation: Vec2,
    /// Its angle about z, in radians.
    pub rotation: f32,
}

impl Transform {
    /// Its local x axis (bevy: `Transform::right`).
    fn right(&self) -> Vec2 {
        Vec2::new(self.rotation.cos(), self.rotation.sin())
    }
}

/// bevy: `bevy::time::Time`; only the frame's delta is read here.
struct Time {
    delta_secs: f32,
}

fn setup(mut commands: Commands) {
    // bevy: spawns a camera, and gives the player a sprite (a texture, a colour).
    commands.spawn((Player { speed: 100.0, rotation_speed: 2.0, min_follow_radius: 50.0 }, Transform::default()));
}

/// Spawns a random enemy on A, removes an enemy (if any) on R.
fn user_input(mut commands: Commands, enemies: Query<Entity, With<Enemy>>, keyboard_input: Res<ButtonInput<KeyCode>>) {
    if keyboard_input.just_pressed(KeyCode::KeyA) {
        let enemy = rng::with(|rng| Enemy {
            origin: Vec2::new(rng.range_f32(-200.0..200.0), rng.range_f32(-200.0..200.0)),
            radius: rng.range_f32(50.0..150.0),
            rotation: rng.range_f32(0.0..TAU),
            rotation_speed: rng.range_f32(0.5..1.5),
        });
        // bevy: a red sprite as well.
        commands.spawn((enemy, Transform::default()));
    }

    if keyboard_input.just_pressed(KeyCode::KeyR)
        && let Some(entity) = enemies.iter().next()
    {
        commands.entity(entity).despawn();
    }
}

/// Moves the enemies in circles: runs only if there are enemies (`Populated`).
fn move_targets(mut enemies: Populated<(&mut Transform, &mut Enemy)>, time: Res<Time>) {
    for (mut transform, mut target) in &mut *enemies {
        target.rotation += target.rotation_speed * time.delta_secs;
        transform.rotation = target.rotation;
        let offset = target.radius * transform.right();
        transform.translation = target.origin + offset;
    }
}

/// Moves the player after the one enemy, if there is exactly one; otherwise the
/// player turns, searching.
// bevy: `enemy: Option<Single<&Transform, (With<Enemy>, Without<Player>)>>`, which
// never keeps the system from running. ripple has no `Option<Single>`: a query, with
// the item taken when it matches exactly one entity, does the same.
fn track_targets(
    mut player: Single<(&mut Transform, &Player)>,
    enemies: Query<&Transform, (With<Enemy>, Without<Player>)>,
    time: Res<Time>,
) {
    let mut found = enemies.iter();
    let enemy = match (found.next(), found.next()) {
        (Some(enemy), None) => Some(*enemy),
        _ => None,
    };
    let (player_transform, player) = &mut *player;
    if let Some(enemy_transform) = enemy {
        // Enemy found: turn towards it and move closer.
        let delta = enemy_transform.translation - player_transform.translation;
        let distance = delta.length();
        let front = (1.0 / distance) * delta;
        // bevy: `Quat::from_mat3(&Mat3::from_cols(side, front, up))`, which points the
        // ship's y axis at the enemy: an angle of `atan2(front) - 90°` about z.
        player_transform.rotation = front.y.atan2(front.x) - PI / 2.0;
        let max_step = distance - player.min_follow_radius;
        if 0.0 < max_step {
            let velocity = (player.speed * time.delta_secs).min(max_step);
            player_transform.translation += velocity * front;
        }
    } else {
        // No enemy, or several: keep searching.
        player_transform.rotation += player.rotation_speed * time.delta_secs;
    }
}

/// Never runs: no entity is both `Player` and `Enemy`, so its `Single` always fails.
fn do_nothing_fail_validation(_: Single<(), (With<Player>, With<Enemy>)>) {}

/// Plays [`SCRIPT`] (or its first `frames` frames) and returns the world and the
/// schedule (which keeps the skipped runs).
pub fn run(frames: usize) -> (World, Schedule) {
    rng::seed(5);
    let mut world = World::new();
    world.init_resource::<ButtonInput<KeyCode>>();
    world.insert_resource(Time { delta_secs: DELTA_SECS });

    // bevy: `set_error_handler(warn)`, so that a system that fails its parameters
    // warns rather than panics. A failing `Single` or `Populated` skips its system
    // silently, in bevy as in ripple (which lists the skipped runs,
    // `Schedule::take_skipped_runs`).
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, setup).unwrap();
    let mut update = Schedule::new();
    // bevy: `(user_input, move_targets, track_targets).chain()`, with a sync point
    // after `user_input` that applies its spawns and despawns; ripple applies
    // commands at the end of the phase, so `user_input` runs in the phase before.
    update.add_systems(&mut world, user_input.in_phase(ripple::schedule::PRE_UPDATE)).unwrap();
    update.add_systems(&mut world, (move_targets, track_targets).chain()).unwrap();
    update.add_systems(&mut world, do_nothing_fail_validation).unwrap();

    startup.run(&mut world);
    for held in &SCRIPT[..frames] {
        world.resource_mut::<ButtonInput<KeyCode>>().unwrap().hold(held);
        update.run(&mut world);
    }
    (world, update)
}

/// Plays [`SCRIPT`].
pub fn main() {
    say!("");
    say!("Press 'A' to add enemy ships and 'R' to remove them.");
    say!("Player ship will wait for enemy ships and track one if it exists,");
    say!("but will stop tracking if there are more than one.");
    say!("");
    run(SCRIPT.len());
}
