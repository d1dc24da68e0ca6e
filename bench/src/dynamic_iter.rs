//! simple_iter over components registered at run time (no Rust type): the same four
//! components with the same layouts and values as `tprv`, reached by id, and the same
//! pass `pos += vel` over their bytes. The criterion line `ripple_dynamic` and the
//! paired workload `simple_iter_dynamic` share this code.

use std::alloc::Layout;

use ripple::dynamic::{ComponentDescriptor, DynamicQuery};
use ripple::{ComponentId, World};

use crate::{Position, Rotation, Transform, Velocity, tprv};

/// A world of `n` entities with runtime twins of Transform, Position, Rotation and
/// Velocity, and the query `(write pos, read vel)` over them.
pub fn world(n: usize) -> (World, DynamicQuery) {
    let mut world = World::new();
    let mut register =
        |name: &str, layout: Layout| world.register_component(ComponentDescriptor::from_layout(name, layout));
    let ids: [ComponentId; 4] = [
        register("transform", Layout::new::<Transform>()),
        register("position", Layout::new::<Position>()),
        register("rotation", Layout::new::<Rotation>()),
        register("velocity", Layout::new::<Velocity>()),
    ];
    for _ in 0..n {
        let (transform, position, rotation, velocity) = tprv();
        let matrix: &[[f32; 4]; 4] = transform.0.as_ref();
        let vector = |v: cgmath::Vector3<f32>| floats(&[v.x, v.y, v.z]);
        let e = world.spawn(());
        world.insert_by_id(e, ids[0], &floats(matrix.as_flattened())).unwrap();
        world.insert_by_id(e, ids[1], &vector(position.0)).unwrap();
        world.insert_by_id(e, ids[2], &vector(rotation.0)).unwrap();
        world.insert_by_id(e, ids[3], &vector(velocity.0)).unwrap();
    }
    let query = world.dynamic_query().write(ids[1]).read(ids[3]).build().expect("runtime components");
    (world, query)
}

/// The bytes of `values`, in native order.
fn floats(values: &[f32]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

/// One pass, table by table: `pos += vel` over each table's two columns of bytes, in
/// blocks of floats. The fastest form.
#[inline]
pub fn pass_tables(world: &mut World, query: &mut DynamicQuery) {
    query
        .for_each_table(world, |mut table| {
            let vels = table.bytes(1);
            add_bytes(table.bytes_mut(0), vels);
        })
        .expect("a table-only query");
}

/// One pass, entity by entity: the per-item form.
#[inline]
pub fn pass_items(world: &mut World, query: &mut DynamicQuery) {
    query.for_each_mut(world, |mut item| {
        let vel: [u8; 12] = item.get(1).try_into().expect("a Vector3 of f32");
        let mut pos = item.get_mut(0);
        let pos: &mut [u8; 12] = (&mut *pos).try_into().expect("a Vector3 of f32");
        for i in 0..3 {
            add_one(&mut pos[i * 4..i * 4 + 4], &vel[i * 4..i * 4 + 4]);
        }
    });
}

/// `pos += vel` over native-order f32 bytes, in blocks of 32 floats of fixed size (as
/// `crate::add_flat` does over floats).
#[inline]
pub fn add_bytes(poss: &mut [u8], vels: &[u8]) {
    const BLOCK: usize = 32 * 4;
    let mut pos_blocks = poss.chunks_exact_mut(BLOCK);
    let mut vel_blocks = vels.chunks_exact(BLOCK);
    for (pos, vel) in (&mut pos_blocks).zip(&mut vel_blocks) {
        let pos: &mut [u8; BLOCK] = pos.try_into().expect("a whole block");
        let vel: &[u8; BLOCK] = vel.try_into().expect("a whole block");
        for i in 0..BLOCK / 4 {
            add_one(&mut pos[i * 4..i * 4 + 4], &vel[i * 4..i * 4 + 4]);
        }
    }
    let rest = pos_blocks.into_remainder().chunks_exact_mut(4).zip(vel_blocks.remainder().chunks_exact(4));
    for (pos, vel) in rest {
        add_one(pos, vel);
    }
}

#[inline(always)]
fn add_one(pos: &mut [u8], vel: &[u8]) {
    let sum =
        f32::from_ne_bytes(pos.try_into().expect("4 bytes")) + f32::from_ne_bytes(vel.try_into().expect("4 bytes"));
    pos.copy_from_slice(&sum.to_ne_bytes());
}
