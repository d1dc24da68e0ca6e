//! A scene tree that costs what moves: 200 star systems (a star, planets, moons, and
//! rocks on the moons), 2-D transforms propagated down the tree with
//! [`Propagation`]. Each frame a few planets advance along their orbits; the example
//! prints how many world transforms were recomputed against how many exist, and checks
//! every frame against a full recomputation from the roots.
//!
//! Run with `cargo run --release --example scene_tree`.

use ripple::hierarchy::Propagation;
use ripple::{Entity, World};

/// Where a body sits relative to its parent: a rotation and an offset.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Local {
    angle: f32,
    offset: (f32, f32),
}

/// Where a body sits in the world.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Global {
    angle: f32,
    position: (f32, f32),
}

const ORIGIN: Global = Global { angle: 0.0, position: (0.0, 0.0) };

fn combine(parent: &Global, local: &Local) -> Global {
    let (sin, cos) = parent.angle.sin_cos();
    let (x, y) = local.offset;
    Global {
        angle: parent.angle + local.angle,
        position: (parent.position.0 + cos * x - sin * y, parent.position.1 + sin * x + cos * y),
    }
}

fn body(angle: f32, distance: f32) -> (Local, Global) {
    (Local { angle, offset: (distance, 0.0) }, ORIGIN)
}

fn main() {
    let mut world = World::new();
    let mut planets = Vec::new();
    for system in 0..200 {
        let star = world.spawn(body(0.0, system as f32 * 1000.0));
        for p in 0..6 {
            let planet = world.spawn_child(star, body(p as f32, 50.0 + 30.0 * p as f32)).unwrap();
            planets.push(planet);
            for m in 0..3 {
                let moon = world.spawn_child(planet, body(m as f32 * 2.0, 5.0 + m as f32)).unwrap();
                for r in 0..2 {
                    world.spawn_child(moon, body(r as f32 * 3.0, 0.5)).unwrap();
                }
            }
        }
    }
    let mut transforms = Propagation::new(&mut world, ORIGIN, combine);
    let first = transforms.run(&mut world);
    println!("{} bodies; first run computed {} world transforms", world.len(), first.recomputed);
    println!("frame  moved planets  recomputed  of");
    let mut exact = true;
    for frame in 0..8usize {
        // Frame 3 is still: nothing moves, nothing is recomputed.
        let moving = if frame == 3 { 0 } else { 1 + frame % 4 };
        for i in 0..moving {
            let planet = planets[(frame * 37 + i * 101) % planets.len()];
            world.get_mut::<Local>(planet).unwrap().angle += 0.1;
        }
        let stats = transforms.run(&mut world);
        println!("{frame:>5}  {moving:>13}  {:>10}  {}", stats.recomputed, world.len());
        exact &= matches_full_recomputation(&mut world);
    }
    if !exact {
        eprintln!("propagation differs from a full recomputation");
        std::process::exit(1);
    }
    println!("every frame matches a full recomputation from the roots");
}

/// Whether every body's global equals a walk from the roots.
fn matches_full_recomputation(world: &mut World) -> bool {
    let roots: Vec<Entity> =
        world.query_filtered::<Entity, ripple::query::Without<ripple::hierarchy::ChildOf>>().iter(world).collect();
    let mut stack: Vec<(Entity, Global)> = roots.into_iter().map(|root| (root, ORIGIN)).collect();
    while let Some((entity, parent)) = stack.pop() {
        let expected = combine(&parent, world.get::<Local>(entity).unwrap());
        if world.get::<Global>(entity) != Ok(&expected) {
            return false;
        }
        stack.extend(world.children(entity).unwrap().iter().map(|&child| (child, expected)));
    }
    true
}
