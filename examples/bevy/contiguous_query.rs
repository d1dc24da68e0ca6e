//! bevy's `contiguous_query`: iterating a query a table at a time, with a slice per
//! component (for SIMD, say). Every frame, 9,999 entities' health decays by a factor;
//! then the first entity the query yields takes a point of damage, and is despawned
//! when its health runs out.
//!
//! bevy: `contiguous_iter_mut` hands out each table's columns as slices, and the app
//! runs at the display's frame rate. ripple has no contiguous iteration of typed
//! queries; `for_each_mut` runs a tight loop over each table's rows (it hands the
//! closure rows eight at a time, for the compiler to vectorise). The port runs
//! [`FRAMES`] frames.

use ripple::prelude::*;

/// The frames [`main`] runs.
const FRAMES: usize = 10;

/// When the value reaches 0.0 the entity dies.
pub struct Health(pub f32);

/// Each tick, an entity's health is multiplied by this factor: for many entities, a
/// loop contiguous queries speed up.
pub struct HealthDecay(pub f32);

fn apply_health_decay(mut query: Query<(&mut Health, &HealthDecay)>) {
    // bevy: `for (mut health, decay) in query.contiguous_iter_mut().unwrap()`, then a
    // zip of the two slices (`health.iter_mut().zip(decay)`).
    query.for_each_mut(|(mut health, decay)| {
        health.0 *= decay.0;
    });
}

fn finish_off_first(mut commands: Commands, mut query: Query<(Entity, &mut Health)>) {
    if let Some((entity, mut health)) = query.iter_mut().next() {
        health.0 -= 1.0;
        if health.0 <= 0.0 {
            commands.entity(entity).despawn();
            say!("Finishing off {entity:?}");
        }
    }
}

fn setup(mut commands: Commands) {
    let mut i = 0;
    commands.spawn_batch(std::iter::from_fn(move || {
        i += 1;
        if i == 10_000 { None } else { Some((Health(i as f32 * 5.0), HealthDecay(0.9))) }
    }));
}

/// Runs [`FRAMES`] frames.
pub fn main() {
    let mut world = World::new();
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, setup).unwrap();
    let mut update = Schedule::new();
    update.add_systems(&mut world, (apply_health_decay, finish_off_first).chain()).unwrap();
    startup.run(&mut world);
    for _ in 0..FRAMES {
        update.run(&mut world);
    }
}
