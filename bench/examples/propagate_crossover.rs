//! Where spreading a propagation over rayon's global pool starts to pay, driven from a
//! plain thread (the default since the run stopped requiring a pool thread): full
//! recomputations of forests of M members, and runs after K scattered writes in a
//! forest of 100,000, each timed serial (`set_parallel(false)`) and parallel
//! (`set_parallel(true)`, which spreads only past the built-in thresholds; here the
//! thresholds are what is measured, so every size is also run with them in force).
//!
//! `cargo run -p bench --release --example propagate_crossover`

use std::time::{Duration, Instant};

use bench::forest::Rng;
use bevy_transform::components::{GlobalTransform, Transform};

/// A forest of `members` nodes in trees of 100, children under random earlier nodes of
/// their tree.
fn forest(members: usize) -> (ripple::World, Vec<ripple::Entity>) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut world = ripple::World::new();
    let mut ids = Vec::with_capacity(members);
    while ids.len() < members {
        let first = ids.len();
        ids.push(world.spawn((rng.transform(), GlobalTransform::IDENTITY)));
        for _ in 1..100.min(members - first) {
            let parent = ids[first + rng.below(ids.len() - first)];
            ids.push(world.spawn_child(parent, (rng.transform(), GlobalTransform::IDENTITY)).unwrap());
        }
    }
    (world, ids)
}

/// Median time of a run after writing `k` random members (all of them if `k` is
/// `members`), serial and parallel alternating: (serial, parallel, whether the parallel
/// runs spread).
fn measure(members: usize, k: usize) -> (Duration, Duration, bool) {
    let (mut world, ids) = forest(members);
    let mut propagation =
        ripple::hierarchy::Propagation::new(&mut world, GlobalTransform::IDENTITY, |parent, local: &Transform| {
            parent.mul_transform(*local)
        });
    propagation.run(&mut world);
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut serial, mut parallel, mut spread) = (Vec::new(), Vec::new(), false);
    for frame in 0..40 {
        for i in 0..k {
            let e = if k == members { ids[i] } else { ids[rng.below(ids.len())] };
            world.get_mut::<Transform>(e).unwrap().translation.x += 0.001;
        }
        let on = frame % 2 == 0;
        propagation.set_parallel(on);
        let start = Instant::now();
        let stats = propagation.run(&mut world);
        let took = start.elapsed();
        if on {
            spread |= stats.parallel;
            parallel.push(took);
        } else {
            serial.push(took);
        }
    }
    serial.sort();
    parallel.sort();
    (serial[serial.len() / 2], parallel[parallel.len() / 2], spread)
}

fn main() {
    println!("rayon threads: {}", rayon::current_num_threads());
    println!("full recomputation of M members: serial, parallel (spread?)");
    for members in [4_096, 8_192, 16_384, 32_768, 65_536, 131_072] {
        let (serial, parallel, spread) = measure(members, members);
        println!("  M = {members:>7}: {serial:>10.2?} {parallel:>10.2?} ({spread})");
    }
    println!("K scattered writes in 100,000 members: serial, parallel (spread?)");
    for k in [1_000, 2_000, 4_096, 8_000, 16_000] {
        let (serial, parallel, spread) = measure(100_000, k);
        println!("  K = {k:>7}: {serial:>10.2?} {parallel:>10.2?} ({spread})");
    }
}
