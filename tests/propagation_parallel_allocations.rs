//! Steady propagation frames big enough to spread over rayon's threads allocate
//! nothing on any thread: a walk of every tree, and walks of many changed subtrees,
//! with the output's changes observed (so every write is recorded).

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations_on_all_threads;
use ripple::hierarchy::Propagation;
use ripple::query::Changed;
use ripple::{Entity, World};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Local(f32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Global(f32);

/// Driven from inside a rayon pool of two threads, so that runs spread whatever the
/// machine's core count (from a thread outside any pool they use rayon's global pool).
#[test]
fn parallel_propagation_frames_allocate_nothing() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    // A worker's first steal registers it with crossbeam's epoch collector (once per
    // thread): every worker looks for work once before anything is counted.
    pool.broadcast(|_| rayon::yield_now());
    pool.install(steady_frames);
}

fn steady_frames() {
    let mut world = World::new();
    let mut members: Vec<Entity> = Vec::new();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let mut below = |n: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % n as u64) as usize
    };
    // Shallow trees, so that a quarter of the members changing makes over 4,096
    // separate subtrees.
    for _ in 0..4500 {
        let first = members.len();
        members.push(world.spawn((Local(1.0), Global(0.0))));
        for i in 1..8usize {
            // A bushy tree: each node under a random earlier node of its tree.
            let parent = members[first + below(i)];
            members.push(world.spawn_child(parent, (Local(i as f32), Global(0.0))).unwrap());
        }
    }
    let mut changed = world.query_filtered::<Entity, Changed<Global>>();
    let mut propagation = Propagation::new(&mut world, Global(0.0), |p: &Global, l: &Local| Global(p.0 + l.0));
    let mut frame = |world: &mut World, n: usize| {
        // Even frames change every member (a walk of every tree), odd ones every fourth.
        let step = if n % 2 == 0 { 1 } else { 4 };
        for &member in members.iter().skip(n % step).step_by(step) {
            world.get_mut::<Local>(member).unwrap().0 += 1.0;
        }
        let stats = propagation.run(world);
        assert!(stats.parallel, "frame {n}: {stats:?}");
        assert_eq!(changed.iter(world).count(), stats.recomputed);
    };
    for n in 0..16 {
        frame(&mut world, n);
    }
    let allocations = allocations_on_all_threads(|| {
        for n in 0..64 {
            frame(&mut world, n);
        }
    });
    assert_eq!(allocations, 0);
}
