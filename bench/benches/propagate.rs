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
//! * `ripple`: `ripple::Propagation<Transform, GlobalTransform>::run`, with its
//!   defaults (a run with much to do spreads over rayon's threads);
//! * `ripple_serial` (K ≥ 1,000, where that applies): the same with
//!   `set_parallel(false)`;
//! * `bevy`: bevy_ecs 0.20.1 with bevy_transform 0.20.1's own systems
//!   (`mark_dirty_trees`, `propagate_parent_transforms`, `sync_simple_transforms`,
//!   chained as `TransformPlugin` orders them, static-subtree optimisation on, its
//!   default, on the compute task pool);
//! * `brute`: a full recomputation from the roots on a ripple world: every root, then
//!   every node below it, through a cached query, with no change tracking.
//!
//! Before timing, every line's globals are checked against a product of local
//! transforms along each chain.

use std::time::{Duration, Instant};

use bench::criterion_config;
use bevy_math::{Quat, Vec3};
use bevy_transform::components::{GlobalTransform, Transform};
use criterion::{Criterion, criterion_group};

const TREES: usize = 1_000;
const NODES: usize = 100;
const KS: [usize; 4] = [0, 10, 1_000, 100_000];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }
    fn transform(&mut self) -> Transform {
        Transform {
            translation: Vec3::new(self.unit() * 2.0 - 1.0, self.unit() * 2.0 - 1.0, self.unit() * 2.0 - 1.0),
            rotation: Quat::from_rotation_y(self.unit() * 0.5) * Quat::from_rotation_x(self.unit() * 0.5),
            scale: Vec3::splat(0.9 + self.unit() * 0.2),
        }
    }
}

/// The forest as (local transform, parent index) in spawn order: parents first.
fn forest() -> Vec<(Transform, Option<usize>)> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut nodes = Vec::with_capacity(TREES * NODES);
    for _ in 0..TREES {
        let depth = 4 + rng.below(3);
        let first = nodes.len();
        let mut levels = vec![0usize];
        nodes.push((rng.transform(), None));
        for level in 1..=depth {
            nodes.push((rng.transform(), Some(nodes.len() - 1)));
            levels.push(level);
        }
        while nodes.len() - first < NODES {
            let parent = loop {
                let i = rng.below(levels.len());
                if levels[i] < depth {
                    break i;
                }
            };
            nodes.push((rng.transform(), Some(first + parent)));
            levels.push(levels[parent] + 1);
        }
    }
    nodes
}

/// The expected global of every node, by the chain product.
fn expected(nodes: &[(Transform, Option<usize>)]) -> Vec<GlobalTransform> {
    let mut out: Vec<GlobalTransform> = Vec::with_capacity(nodes.len());
    for (local, parent) in nodes {
        let parent = parent.map_or(GlobalTransform::IDENTITY, |p| out[p]);
        out.push(parent.mul_transform(*local));
    }
    out
}

fn close(a: &GlobalTransform, b: &GlobalTransform) -> bool {
    (a.to_matrix() - b.to_matrix()).abs().to_cols_array().iter().all(|d| *d < 1e-4)
}

/// The K entities of each frame and their new translations, the same for every line.
struct Frames {
    rng: Rng,
    order: Vec<usize>,
}

impl Frames {
    fn new(n: usize) -> Frames {
        Frames { rng: Rng(0x2545_F491_4F6C_DD1D), order: (0..n).collect() }
    }
    fn next(&mut self, k: usize, mut write: impl FnMut(usize, Vec3)) {
        for i in 0..k {
            let j = i + self.rng.below(self.order.len() - i);
            self.order.swap(i, j);
        }
        for i in 0..k {
            let delta = Vec3::new(self.rng.unit() - 0.5, self.rng.unit() - 0.5, 0.0) * 0.01;
            write(self.order[i], delta);
        }
    }
}

/// Registers `propagate/K=<k>/<line>`: each frame writes K locals (untimed), then
/// times `step`.
fn time_frames<W>(
    c: &mut Criterion,
    k: usize,
    line: &str,
    world: &mut W,
    entities: usize,
    mut write: impl FnMut(&mut W, usize, Vec3),
    mut step: impl FnMut(&mut W),
) {
    let mut frames_of = Frames::new(entities);
    c.benchmark_group(format!("propagate/K={k}")).bench_function(line, |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                frames_of.next(k, |i, d| write(world, i, d));
                let start = Instant::now();
                step(world);
                total += start.elapsed();
            }
            total
        })
    });
}

/// Moves the `i`th entity of a ripple world by `d`.
fn ripple_write(ids: &[ripple::Entity]) -> impl FnMut(&mut ripple::World, usize, Vec3) + '_ {
    move |world, i, d| world.get_mut::<Transform>(ids[i]).unwrap().translation += d
}

fn ripple_world(nodes: &[(Transform, Option<usize>)]) -> (ripple::World, Vec<ripple::Entity>) {
    let mut world = ripple::World::new();
    let mut ids: Vec<ripple::Entity> = Vec::with_capacity(nodes.len());
    for (local, parent) in nodes {
        let id = match parent {
            None => world.spawn((*local, GlobalTransform::IDENTITY)),
            Some(p) => world.spawn_child(ids[*p], (*local, GlobalTransform::IDENTITY)).unwrap(),
        };
        ids.push(id);
    }
    (world, ids)
}

fn check_ripple(world: &ripple::World, ids: &[ripple::Entity], expected: &[GlobalTransform], line: &str) {
    for (id, want) in ids.iter().zip(expected) {
        assert!(close(world.get::<GlobalTransform>(*id).unwrap(), want), "{line}: wrong global");
    }
}

/// `ripple` with its defaults; `ripple_serial` with the walk kept on one thread
/// (`set_parallel(false)`), for the K where a run may spread over threads.
fn ripple_line(
    c: &mut Criterion,
    nodes: &[(Transform, Option<usize>)],
    want: &[GlobalTransform],
    k: usize,
    parallel: bool,
) {
    let line = if parallel { "ripple" } else { "ripple_serial" };
    let (mut world, ids) = ripple_world(nodes);
    let mut propagation = ripple::Propagation::new(&mut world, GlobalTransform::IDENTITY, |parent, local| {
        GlobalTransform::mul_transform(parent, *local)
    });
    propagation.set_parallel(parallel);
    propagation.run(&mut world);
    check_ripple(&world, &ids, want, line);
    time_frames(c, k, line, &mut world, ids.len(), ripple_write(&ids), |world| {
        propagation.run(world);
    });
}

/// A full recomputation from the roots, on a ripple world without change tracking.
struct Brute {
    roots: ripple::QueryState<ripple::Entity, (ripple::With<Transform>, ripple::Without<ripple::ChildOf>)>,
    nodes: ripple::QueryState<(&'static Transform, &'static mut GlobalTransform, Option<&'static ripple::Children>)>,
    starts: Vec<ripple::Entity>,
    stack: Vec<(ripple::Entity, GlobalTransform)>,
}

impl Brute {
    fn run(&mut self, world: &mut ripple::World) {
        self.starts.clear();
        self.starts.extend(self.roots.iter(world));
        for &root in &self.starts {
            self.stack.push((root, GlobalTransform::IDENTITY));
            while let Some((entity, parent)) = self.stack.pop() {
                let (local, mut global, children) = self.nodes.get_mut(world, entity).unwrap();
                let value = parent.mul_transform(*local);
                if let Some(children) = children {
                    self.stack.extend(children.iter().map(|&c| (c, value)));
                }
                *global = value;
            }
        }
    }
}

fn brute_line(c: &mut Criterion, nodes: &[(Transform, Option<usize>)], want: &[GlobalTransform], k: usize) {
    let (mut world, ids) = ripple_world(nodes);
    let mut brute =
        Brute { roots: world.query_filtered(), nodes: world.query(), starts: Vec::new(), stack: Vec::new() };
    brute.run(&mut world);
    check_ripple(&world, &ids, want, "brute");
    time_frames(c, k, "brute", &mut world, ids.len(), ripple_write(&ids), |world| brute.run(world));
}

fn bevy_line(c: &mut Criterion, nodes: &[(Transform, Option<usize>)], want: &[GlobalTransform], k: usize) {
    use bevy_ecs::prelude::{ChildOf, IntoScheduleConfigs, Schedule, World};
    use bevy_transform::systems::{
        StaticTransformOptimizations, mark_dirty_trees, propagate_parent_transforms, sync_simple_transforms,
    };
    bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
    let mut world = World::new();
    world.insert_resource(StaticTransformOptimizations::default());
    let mut schedule = Schedule::default();
    schedule.add_systems((mark_dirty_trees, propagate_parent_transforms, sync_simple_transforms).chain());
    let mut ids: Vec<bevy_ecs::entity::Entity> = Vec::with_capacity(nodes.len());
    for (local, parent) in nodes {
        let id = match parent {
            None => world.spawn((*local, GlobalTransform::IDENTITY)).id(),
            Some(p) => world.spawn((*local, GlobalTransform::IDENTITY, ChildOf(ids[*p]))).id(),
        };
        ids.push(id);
    }
    schedule.run(&mut world);
    for (id, want) in ids.iter().zip(want) {
        assert!(close(world.get::<GlobalTransform>(*id).unwrap(), want), "bevy: wrong global");
    }
    let write = |world: &mut World, i: usize, d: Vec3| world.get_mut::<Transform>(ids[i]).unwrap().translation += d;
    time_frames(c, k, "bevy", &mut world, ids.len(), write, |world| schedule.run(world));
}

fn propagate(c: &mut Criterion) {
    let nodes = forest();
    let want = expected(&nodes);
    for k in KS {
        ripple_line(c, &nodes, &want, k, true);
        if k >= 1_000 {
            ripple_line(c, &nodes, &want, k, false);
        }
        bevy_line(c, &nodes, &want, k);
        brute_line(c, &nodes, &want, k);
    }
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = propagate
}

bench::bench_main!(benches);
