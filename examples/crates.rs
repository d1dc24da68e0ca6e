//! A small crates level: thousands of resting crates, a few moving enemies, run by a
//! schedule of systems.
//!
//! Each frame the mover moves what has a velocity, the referee despawns enemies that
//! leave the arena (a deferred command), and the renderer redraws only the entities
//! whose position changed — so it costs what moved, not what exists. At the end the
//! schedule's profiler prints its table, and the run's Chrome trace is written to
//! `target/crates-trace.json` (open it in <https://ui.perfetto.dev>).
//!
//! Run with `cargo run --release --example crates`.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

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

/// What happened in the current frame, for the printout.
#[derive(Default)]
struct FrameLog {
    moved: usize,
    redrawn: usize,
    left: Vec<&'static str>,
}

const ARENA: f32 = 100.0;

fn mover(mut movers: Query<(&Velocity, &mut Position), Without<Crate>>, mut log: ResMut<FrameLog>) {
    let mut moved = 0;
    movers.for_each_mut(|(velocity, mut position)| {
        position.x += velocity.x;
        position.y += velocity.y;
        moved += 1;
    });
    log.moved = moved;
}

fn referee(mut commands: Commands, mut enemies: Query<(Entity, &Enemy, &Position)>, mut log: ResMut<FrameLog>) {
    enemies.for_each(|(entity, enemy, p)| {
        if !(0.0..=ARENA).contains(&p.x) || !(0.0..=ARENA).contains(&p.y) {
            commands.despawn(entity);
            log.left.push(enemy.name);
        }
    });
}

fn renderer(mut changed: Query<&Position, Changed<Position>>, mut log: ResMut<FrameLog>) {
    log.redrawn = changed.iter().count();
}

/// Builds the level with `crates` crates, runs `frames` frames, and returns the
/// schedule (with its profile and trace) and the world. Prints each frame if `print`.
pub fn run_level(crates: usize, frames: usize, print: bool) -> (Schedule, World) {
    let mut world = World::new();
    world.insert_resource(FrameLog::default());
    let started = Instant::now();
    world.spawn_batch((0..crates).map(|i| {
        let (row, column) = (i / 100, i % 100);
        (Position { x: column as f32, y: row as f32 }, Crate)
    }));
    world.spawn((Position { x: 10.0, y: 10.0 }, Velocity { x: 1.5, y: 0.0 }, Enemy { name: "goblin" }));
    world.spawn((Position { x: 50.0, y: 97.0 }, Velocity { x: 0.0, y: 1.0 }, Enemy { name: "bat" }));
    world.spawn((Position { x: 80.0, y: 20.0 }, Velocity { x: -2.0, y: 2.0 }, Enemy { name: "troll" }));
    if print {
        println!(
            "spawned {} entities ({crates} crates, 3 enemies) in {} archetypes in {:?}",
            world.len(),
            world.archetype_count(),
            started.elapsed()
        );
    }

    let mut schedule = Schedule::new();
    schedule.record_trace(true);
    schedule.add_system(&mut world, mover).expect("mover is valid");
    schedule.add_system(&mut world, referee.after("mover")).expect("referee is valid");
    schedule.add_system(&mut world, renderer.in_phase(ripple::POST_UPDATE)).expect("renderer is valid");
    for frame in 1..=frames {
        schedule.run(&mut world);
        let log = std::mem::take(world.resource_mut::<FrameLog>().expect("inserted above"));
        if print {
            let left = if log.left.is_empty() {
                String::new()
            } else {
                format!(", {} left the arena", log.left.join(" and "))
            };
            println!("frame {frame}: moved {}, redrew {}{left}", log.moved, log.redrawn);
        }
    }
    (schedule, world)
}

fn main() {
    let (mut schedule, mut world) = run_level(5_000, 5, true);
    let resting = world.query_filtered::<&Position, With<Crate>>().iter(&world).count();
    let enemies: Vec<String> = world
        .query::<(&Enemy, &Position)>()
        .iter(&world)
        .map(|(enemy, p)| format!("{} at ({:.1}, {:.1})", enemy.name, p.x, p.y))
        .collect();
    println!("after 5 frames: {} entities, {resting} crates resting; {}", world.len(), enemies.join(", "));
    println!("\n{}", schedule.report());
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target").join("crates-trace.json");
    match std::fs::create_dir_all(path.parent().expect("has a parent"))
        .and_then(|()| std::fs::write(&path, schedule.chrome_trace()))
    {
        Ok(()) => println!("Chrome trace of the run: {} (open in https://ui.perfetto.dev)", path.display()),
        Err(error) => println!("could not write the trace to {}: {error}", path.display()),
    }
}
