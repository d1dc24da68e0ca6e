//! Steady hierarchy frames allocate nothing: reparenting, detaching, despawning and
//! respawning children, and propagation, once lists and scratch space have grown.

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations_on_this_thread as allocations_in;
use ripple::hierarchy::Propagation;
use ripple::{Entity, World};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Local(f32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Global(f32);

fn frame(
    world: &mut World,
    propagation: &mut Propagation<Local, Global>,
    parents: [Entity; 2],
    kids: &mut [Entity],
    n: usize,
) {
    // Every child moves to the other parent, one is detached and re-attached, one is
    // despawned and a new one spawned in its place, and two locals change.
    for (i, &kid) in kids.iter().enumerate() {
        world.set_parent(kid, parents[(n + i) % 2]).unwrap();
    }
    world.remove_parent(kids[0]).unwrap();
    world.set_parent(kids[0], parents[n % 2]).unwrap();
    world.despawn(kids[1]).unwrap();
    kids[1] = world.spawn_child(parents[n % 2], (Local(1.0), Global(0.0))).unwrap();
    world.get_mut::<Local>(kids[2]).unwrap().0 += 1.0;
    world.get_mut::<Local>(parents[0]).unwrap().0 += 1.0;
    propagation.run(world);
}

#[test]
fn steady_hierarchy_frames_allocate_nothing() {
    let mut world = World::new();
    let parents = [world.spawn((Local(0.0), Global(0.0))), world.spawn((Local(10.0), Global(0.0)))];
    let mut kids: Vec<Entity> =
        (0..16).map(|i| world.spawn_child(parents[i % 2], (Local(i as f32), Global(0.0))).unwrap()).collect();
    let mut propagation = Propagation::new(&mut world, Global(0.0), |p: &Global, l: &Local| Global(p.0 + l.0));
    for n in 0..64 {
        frame(&mut world, &mut propagation, parents, &mut kids, n);
    }
    let allocations = allocations_in(|| {
        for n in 0..256 {
            frame(&mut world, &mut propagation, parents, &mut kids, n);
        }
    });
    assert_eq!(allocations, 0);
    let sum: f32 = world.get::<Global>(kids[2]).unwrap().0;
    assert!(sum > 0.0);
}
