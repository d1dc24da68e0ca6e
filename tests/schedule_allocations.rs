//! A counting global allocator proves that steady frames of a schedule allocate
//! nothing: ten systems whose commands spawn and despawn 100 entities per frame.
//!
//! Every thread's allocations count (systems may run on rayon's workers), so this
//! file holds a single test and the harness's main thread only waits meanwhile.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use ripple::prelude::*;
use ripple::schedule::{PRE_UPDATE, SystemConfig};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

#[derive(Clone, Copy)]
struct Group(u32);
struct Health(u32);
#[derive(Default)]
struct Spawned(u64);

/// Spawns 20 entities of group `group` per frame (PreUpdate).
fn spawner(group: u32) -> SystemConfig {
    (move |mut commands: Commands, mut spawned: Local<u64>| {
        for i in 0..20 {
            commands.spawn((Group(group), Health(i)));
        }
        *spawned += 20;
    })
    .in_phase(PRE_UPDATE)
}

/// Despawns every entity of group `group` (Update), so each lives one frame; also
/// writes their health, so queries with writes run too.
fn despawner(group: u32) -> SystemConfig {
    (move |mut commands: Commands, mut q: Query<(Entity, &Group, &mut Health)>, mut count: ResMut<Spawned>| {
        q.for_each_mut(|(entity, g, mut health)| {
            if g.0 == group {
                health.0 += 1;
                commands.despawn(entity);
                count.0 += 1;
            }
        });
    })
    .into_config()
}

fn steady_frames_allocate_nothing(single_threaded: bool) {
    let mut world = World::new();
    world.insert_resource(Spawned::default());
    world.spawn_batch((0..1000).map(|i| (Group(99), Health(i))));
    let mut schedule = Schedule::new();
    schedule.set_single_threaded(single_threaded);
    for group in 0..5 {
        schedule.add_system(&mut world, spawner(group)).unwrap();
        schedule.add_system(&mut world, despawner(group)).unwrap();
    }
    for _ in 0..200 {
        schedule.run(&mut world);
    }
    let before = world.resource::<Spawned>().unwrap().0;
    let allocations = counting_alloc::allocations_on_all_threads(|| {
        for _ in 0..500 {
            schedule.run(&mut world);
        }
    });
    assert_eq!(world.resource::<Spawned>().unwrap().0 - before, 500 * 100, "100 despawns per frame");
    assert_eq!(world.len(), 1000, "each frame's 100 spawns are despawned in the same frame");
    assert_eq!(allocations, 0, "steady frames allocated (single_threaded: {single_threaded})");
}

#[test]
fn a_schedule_of_ten_systems_spawning_and_despawning_allocates_nothing_per_frame() {
    steady_frames_allocate_nothing(true);
    // The parallel mode, driven from inside a rayon pool, as a game loop would be: the
    // stages' tasks then go through the workers' own queues. (Driven from a thread
    // outside the pool, each parallel stage enters the pool through rayon's global
    // injector, which allocates one block per 63 entries.)
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    // A worker's first steal registers it with crossbeam's epoch collector (about 2 KiB,
    // once per thread): every worker looks for work once before anything is counted.
    pool.broadcast(|_| rayon::yield_now());
    pool.install(|| steady_frames_allocate_nothing(false));
}
