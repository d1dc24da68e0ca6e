//! The propagate workload's forest, shared by `benches/propagate.rs` and the `paired`
//! tool: 100,000 entities in 1,000 trees of 100 nodes, each tree 4 to 6 levels below
//! its root (a chain down to its depth, the other nodes under random nodes above it),
//! built identically for every line from one seed, with bevy_transform's `Transform`
//! (local) and `GlobalTransform` (global); the frames' K random writes; and BRUTE, a
//! full recomputation from the roots.

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

/// A full recomputation from the roots, on a ripple world without change tracking.
pub struct Brute {
    roots: ripple::QueryState<ripple::Entity, (ripple::With<Transform>, ripple::Without<ripple::ChildOf>)>,
    nodes: ripple::QueryState<(&'static Transform, &'static mut GlobalTransform, Option<&'static ripple::Children>)>,
    starts: Vec<ripple::Entity>,
    stack: Vec<(ripple::Entity, GlobalTransform)>,
}

impl Brute {
    /// BRUTE over `world`.
    pub fn new(world: &mut ripple::World) -> Brute {
        Brute { roots: world.query_filtered(), nodes: world.query(), starts: Vec::new(), stack: Vec::new() }
    }

    /// Recomputes every global from the roots.
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
