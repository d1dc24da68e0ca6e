//! The propagate workload's forest, shared by `benches/propagate.rs` and the `paired`
//! tool: 100,000 entities in 1,000 trees of 100 nodes, each tree 4 to 6 levels below
//! its root (a chain down to its depth, the other nodes under random nodes above it),
//! built identically for every line from one seed, with bevy_transform's `Transform`
//! (local) and `GlobalTransform` (global); the frames' K random writes; and BRUTE, a
//! full recomputation (the linear floor, and the depth-first walk it replaced).

use bevy_math::{Quat, Vec3};
use bevy_transform::components::{GlobalTransform, Transform};

/// Trees in the forest.
pub const TREES: usize = 1_000;
/// Nodes per tree.
pub const NODES: usize = 100;

/// A xorshift generator: the same forest and frames for every line.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// A random index below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.bits() % n as u64) as usize
    }
    /// A random value in [0, 1).
    pub fn unit(&mut self) -> f32 {
        (self.bits() >> 40) as f32 / (1u64 << 24) as f32
    }
    /// A random local transform: a small offset, a tilt, a scale near 1.
    pub fn transform(&mut self) -> Transform {
        Transform {
            translation: Vec3::new(self.unit() * 2.0 - 1.0, self.unit() * 2.0 - 1.0, self.unit() * 2.0 - 1.0),
            rotation: Quat::from_rotation_y(self.unit() * 0.5) * Quat::from_rotation_x(self.unit() * 0.5),
            scale: Vec3::splat(0.9 + self.unit() * 0.2),
        }
    }
}

/// The forest as (local transform, parent index) in spawn order: parents first.
pub fn forest() -> Vec<(Transform, Option<usize>)> {
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
pub fn expected(nodes: &[(Transform, Option<usize>)]) -> Vec<GlobalTransform> {
    let mut out: Vec<GlobalTransform> = Vec::with_capacity(nodes.len());
    for (local, parent) in nodes {
        let parent = parent.map_or(GlobalTransform::IDENTITY, |p| out[p]);
        out.push(parent.mul_transform(*local));
    }
    out
}

/// Whether two globals agree to 1e-4 in every matrix entry.
pub fn close(a: &GlobalTransform, b: &GlobalTransform) -> bool {
    (a.to_matrix() - b.to_matrix()).abs().to_cols_array().iter().all(|d| *d < 1e-4)
}

/// The K entities of each frame and their new translations, the same for every line.
pub struct Frames {
    rng: Rng,
    order: Vec<usize>,
}

impl Frames {
    /// Frames over `n` entities.
    pub fn new(n: usize) -> Frames {
        Frames { rng: Rng(0x2545_F491_4F6C_DD1D), order: (0..n).collect() }
    }
    /// Picks the next frame's K distinct entities and calls `write` with each and its
    /// translation delta.
    pub fn next(&mut self, k: usize, mut write: impl FnMut(usize, Vec3)) {
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

/// Moves the `i`th entity of a ripple world by `d`.
pub fn ripple_write(ids: &[ripple::Entity]) -> impl FnMut(&mut ripple::World, usize, Vec3) + '_ {
    move |world, i, d| world.get_mut::<Transform>(ids[i]).unwrap().translation += d
}

/// A ripple world holding the forest (children spawned with `spawn_child`), and its
/// entities in forest order.
pub fn ripple_world(nodes: &[(Transform, Option<usize>)]) -> (ripple::World, Vec<ripple::Entity>) {
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

/// BRUTE, the floor of a full recomputation, on a ripple world without change
/// tracking: three linear passes and no lookup per node. It copies every local out of
/// the world in table order into a forest-ordered array, computes every global in one
/// pass in the forest's parents-first order (each from its parent's, already computed,
/// by index), and copies the globals back in table order. Any full recomputation must
/// at least read every local and write every global once; this one adds only the
/// sequential copies.
pub struct Brute {
    locals: ripple::query::QueryState<&'static Transform, ripple::query::With<GlobalTransform>>,
    globals: ripple::query::QueryState<&'static mut GlobalTransform, ripple::query::With<Transform>>,
    /// The forest index of either query's n-th item (both match the same tables, in
    /// the same order).
    slot: Vec<u32>,
    /// Each node's parent's forest index, or [`Brute::ROOT`]; parents come first.
    parent: Vec<u32>,
    local: Vec<Transform>,
    global: Vec<GlobalTransform>,
}

impl Brute {
    /// A root's parent index.
    const ROOT: u32 = u32::MAX;

    /// BRUTE over `world`, which holds `nodes` as `ids` (forest order, parents first).
    pub fn new(world: &mut ripple::World, nodes: &[(Transform, Option<usize>)], ids: &[ripple::Entity]) -> Brute {
        let index: std::collections::HashMap<ripple::Entity, u32> =
            ids.iter().enumerate().map(|(i, &e)| (e, i as u32)).collect();
        let mut local_order = world
            .query_filtered::<ripple::Entity, (ripple::query::With<Transform>, ripple::query::With<GlobalTransform>)>();
        let slot: Vec<u32> = local_order.iter(world).map(|e| index[&e]).collect();
        let parent = nodes.iter().map(|(_, p)| p.map_or(Brute::ROOT, |p| p as u32)).collect();
        Brute {
            locals: world.query_filtered(),
            globals: world.query_filtered(),
            slot,
            parent,
            local: vec![Transform::IDENTITY; nodes.len()],
            global: vec![GlobalTransform::IDENTITY; nodes.len()],
        }
    }

    /// Recomputes every global. O(N), three sequential passes.
    pub fn run(&mut self, world: &mut ripple::World) {
        let Brute { locals, globals, slot, parent, local, global } = self;
        let mut n = 0;
        locals.for_each(world, |t| {
            local[slot[n] as usize] = *t;
            n += 1;
        });
        for i in 0..parent.len() {
            let p = parent[i];
            let above = if p == Brute::ROOT { GlobalTransform::IDENTITY } else { global[p as usize] };
            global[i] = above.mul_transform(local[i]);
        }
        let mut n = 0;
        globals.for_each_mut(world, |mut g| {
            *g = global[slot[n] as usize];
            n += 1;
        });
    }
}

/// The full recomputation as a depth-first walk from the roots with a lookup per node
/// (what BRUTE was before the linear floor above; kept as `brute_walk` to show the gap).
pub struct BruteWalk {
    roots: ripple::query::QueryState<
        ripple::Entity,
        (ripple::query::With<Transform>, ripple::query::Without<ripple::hierarchy::ChildOf>),
    >,
    nodes: ripple::query::QueryState<(
        &'static Transform,
        &'static mut GlobalTransform,
        Option<&'static ripple::hierarchy::Children>,
    )>,
    starts: Vec<ripple::Entity>,
    stack: Vec<(ripple::Entity, GlobalTransform)>,
}

impl BruteWalk {
    /// The walk over `world`.
    pub fn new(world: &mut ripple::World) -> BruteWalk {
        BruteWalk { roots: world.query_filtered(), nodes: world.query(), starts: Vec::new(), stack: Vec::new() }
    }

    /// Recomputes every global from the roots. O(N) lookups.
    pub fn run(&mut self, world: &mut ripple::World) {
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

/// bevy_ecs 0.20.1 with bevy_transform 0.20.1's own systems (`mark_dirty_trees`,
/// `propagate_parent_transforms`, `sync_simple_transforms`, chained as `TransformPlugin`
/// orders them, static-subtree optimisation on, its default, on the compute task pool),
/// holding the forest; its entities in forest order.
pub fn bevy_world(
    nodes: &[(Transform, Option<usize>)],
) -> (bevy_ecs::world::World, bevy_ecs::schedule::Schedule, Vec<bevy_ecs::entity::Entity>) {
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
    (world, schedule, ids)
}
