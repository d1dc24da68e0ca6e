//! propagate: transform propagation down a forest when K local transforms change.
//!
//! The forest: 100,000 entities in 1,000 trees of 100 nodes, each tree 4 to 6 levels
//! below its root (a chain down to its depth, the other nodes under random nodes above
//! it), built identically for every line from one seed. Each entity has bevy_transform's
//! `Transform` (local) and `GlobalTransform` (global); every line combines them with
//! `GlobalTransform::mul_transform`, so all three do the same arithmetic.
//!
//! A frame writes the translation of K distinct random entities (untimed), then times
//! one propagation step. K ∈ {0, 10, 1,000, 100,000}; groups `propagate/K=<K>`:
//! * `ripple`: `ripple::hierarchy::Propagation<Transform, GlobalTransform>::run` with its defaults,
//!   driven from the bench's thread (a run with much to do spreads over rayon's global
//!   pool);
//! * `ripple_pool` (K ≥ 1,000): the same with the frames driven on a thread of a rayon
//!   pool, where a run with much to do spreads over that pool;
//! * `bevy`: bevy_ecs 0.20.1 with bevy_transform 0.20.1's own systems
//!   (`mark_dirty_trees`, `propagate_parent_transforms`, `sync_simple_transforms`,
//!   chained as `TransformPlugin` orders them, static-subtree optimisation on, its
//!   default, on the compute task pool);
//! * `brute`: the floor of a full recomputation on a ripple world with no change
//!   tracking: every local copied out in table order, every global computed in one
//!   linear parents-first pass by index, copied back (`bench::forest::Brute`);
//! * `brute_walk`: the full recomputation as a depth-first walk from the roots with a
//!   lookup per node (the form `brute` had before).
//!
//! Before timing, every line's globals are checked against a product of local
//! transforms along each chain.

use std::time::{Duration, Instant};

use bench::criterion_config;
use bench::forest::{Brute, BruteWalk, Frames, close, expected, forest, ripple_world, ripple_write};
use bevy_math::Vec3;
use bevy_transform::components::{GlobalTransform, Transform};
use criterion::{Criterion, criterion_group};

const KS: [usize; 4] = [0, 10, 1_000, 100_000];

/// Registers `propagate/K=<k>/<line>`: each frame writes K locals (untimed), then
/// times `step`; with `pool`, a sample's frames run on one of the pool's threads.
#[allow(clippy::too_many_arguments, reason = "one registration, spelled out at each line")]
fn time_frames<W: Send>(
    c: &mut Criterion,
    k: usize,
    line: &str,
    world: &mut W,
    entities: usize,
    pool: Option<&rayon::ThreadPool>,
    mut write: impl FnMut(&mut W, usize, Vec3) + Send,
    mut step: impl FnMut(&mut W) + Send,
) {
    let mut frames_of = Frames::new(entities);
    c.benchmark_group(format!("propagate/K={k}")).bench_function(line, |b| {
        b.iter_custom(|iters| {
            let mut frames = || {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    frames_of.next(k, |i, d| write(world, i, d));
                    let start = Instant::now();
                    step(world);
                    total += start.elapsed();
                }
                total
            };
            match pool {
                Some(pool) => pool.install(frames),
                None => frames(),
            }
        })
    });
}

fn check_ripple(world: &ripple::World, ids: &[ripple::Entity], expected: &[GlobalTransform], line: &str) {
    for (id, want) in ids.iter().zip(expected) {
        assert!(close(world.get::<GlobalTransform>(*id).unwrap(), want), "{line}: wrong global");
    }
}

/// `ripple` driven from the bench's thread (a run then stays on it); `ripple_pool`
/// with the frames driven on a thread of a rayon pool, as a game loop inside
/// `ThreadPool::install` would (a run with much to do then spreads over the pool).
fn ripple_line(
    c: &mut Criterion,
    nodes: &[(Transform, Option<usize>)],
    want: &[GlobalTransform],
    k: usize,
    in_pool: bool,
) {
    let line = if in_pool { "ripple_pool" } else { "ripple" };
    let (mut world, ids) = ripple_world(nodes);
    let mut propagation =
        ripple::hierarchy::Propagation::new(&mut world, GlobalTransform::IDENTITY, |parent, local| {
            GlobalTransform::mul_transform(parent, *local)
        });
    propagation.run(&mut world);
    check_ripple(&world, &ids, want, line);
    let pool = in_pool.then(|| rayon::ThreadPoolBuilder::new().build().unwrap());
    time_frames(c, k, line, &mut world, ids.len(), pool.as_ref(), ripple_write(&ids), |world| {
        propagation.run(world);
    });
}

fn brute_line(c: &mut Criterion, nodes: &[(Transform, Option<usize>)], want: &[GlobalTransform], k: usize) {
    let (mut world, ids) = ripple_world(nodes);
    let mut brute = Brute::new(&mut world, nodes, &ids);
    brute.run(&mut world);
    check_ripple(&world, &ids, want, "brute");
    time_frames(c, k, "brute", &mut world, ids.len(), None, ripple_write(&ids), |world| brute.run(world));
    let (mut world, ids) = ripple_world(nodes);
    let mut walk = BruteWalk::new(&mut world);
    walk.run(&mut world);
    check_ripple(&world, &ids, want, "brute_walk");
    time_frames(c, k, "brute_walk", &mut world, ids.len(), None, ripple_write(&ids), |world| walk.run(world));
}

fn bevy_line(c: &mut Criterion, nodes: &[(Transform, Option<usize>)], want: &[GlobalTransform], k: usize) {
    let (mut world, mut schedule, ids) = bench::forest::bevy_world(nodes);
    for (id, want) in ids.iter().zip(want) {
        assert!(close(world.get::<GlobalTransform>(*id).unwrap(), want), "bevy: wrong global");
    }
    let write = |world: &mut bevy_ecs::world::World, i: usize, d: Vec3| {
        world.get_mut::<Transform>(ids[i]).unwrap().translation += d
    };
    time_frames(c, k, "bevy", &mut world, ids.len(), None, write, |world| schedule.run(world));
}

fn propagate(c: &mut Criterion) {
    let nodes = forest();
    let want = expected(&nodes);
    for k in KS {
        // BRUTE right after ripple: criterion times one line after another, and the
        // machine's load drifts between them (bench/PAIRED.md pairs them frame by frame).
        ripple_line(c, &nodes, &want, k, false);
        brute_line(c, &nodes, &want, k);
        if k >= 1_000 {
            ripple_line(c, &nodes, &want, k, true);
        }
        bevy_line(c, &nodes, &want, k);
    }
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = propagate
}

bench::bench_main!(benches);
