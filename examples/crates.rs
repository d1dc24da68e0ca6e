//! A small crates level: thousands of resting crates, a few moving enemies.
//!
//! Spawns the level, runs a few frames of movement over the entities that move,
//! despawns the enemies that leave the arena, and prints what happened.
//!
//! Run with `cargo run --release --example crates`.

use std::time::Instant;

use ripple::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Clone, Copy, Debug)]
struct Velocity {
    x: f32,
    y: f32,
}

/// A crate that is resting: no velocity, never visited by the mover.
struct Crate;

/// An enemy; it moves.
struct Enemy {
    name: &'static str,
}

const CRATES: usize = 5_000;
const ARENA: f32 = 100.0;

fn main() {
    let mut world = World::new();

    let started = Instant::now();
    world.spawn_batch((0..CRATES).map(|i| {
        let (row, column) = (i / 100, i % 100);
        (Position { x: column as f32, y: row as f32 }, Crate)
    }));
    let enemies = [
        world.spawn((Position { x: 10.0, y: 10.0 }, Velocity { x: 1.5, y: 0.0 }, Enemy { name: "goblin" })),
        world.spawn((Position { x: 50.0, y: 97.0 }, Velocity { x: 0.0, y: 1.0 }, Enemy { name: "bat" })),
        world.spawn((Position { x: 80.0, y: 20.0 }, Velocity { x: -2.0, y: 2.0 }, Enemy { name: "troll" })),
    ];
    println!(
        "spawned {} entities ({CRATES} crates, {} enemies) in {} archetypes in {:?}",
        world.len(),
        enemies.len(),
        world.archetype_count(),
        started.elapsed()
    );

    let mut movers = world.query_filtered::<(&Velocity, &mut Position), Without<Crate>>();
    let mut in_arena = world.query::<(Entity, &Enemy, &Position)>();
    for frame in 1..=5 {
        let mut moved = 0;
        movers.for_each_mut(&mut world, |(velocity, mut position)| {
            position.x += velocity.x;
            position.y += velocity.y;
            moved += 1;
        });
        let left = in_arena
            .despawn_where(&mut world, |(_, _, p)| !(0.0..=ARENA).contains(&p.x) || !(0.0..=ARENA).contains(&p.y));
        let positions: Vec<String> =
            in_arena.iter(&world).map(|(_, enemy, p)| format!("{} at ({:.1}, {:.1})", enemy.name, p.x, p.y)).collect();
        println!("frame {frame}: moved {moved} entities, {left} left the arena; {}", positions.join(", "));
    }

    let mut crates = world.query_filtered::<&Position, With<Crate>>();
    let resting = crates.iter(&world).count();
    println!(
        "after 5 frames: {} entities, {resting} crates still resting, enemies left: {}",
        world.len(),
        world.len() - resting
    );
    for (enemy, name) in enemies.into_iter().zip(["goblin", "bat", "troll"]) {
        match world.get::<Position>(enemy) {
            Ok(p) => println!("  {name} ({enemy}): at ({:.1}, {:.1})", p.x, p.y),
            Err(error) => println!("  {name}: {error}"),
        }
    }
}
