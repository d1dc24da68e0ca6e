//! Mirroring entities into an external store, as a game mirrors its bodies into a
//! physics engine it does not own (physics actors).
//!
//! - `on_add::<Body>` creates the external actor, at the entity's position;
//! - a system with a `Changed<Position>` filter moves the actors whose position
//!   changed, and only those;
//! - `on_remove::<Body>` destroys the actor, whether the body is removed or the
//!   entity despawned.
//!
//! Run with `cargo run --example mirror`.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use ripple::prelude::*;

/// Where an entity is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Position(pub f32, pub f32);

/// Marks an entity that has an actor in the external physics engine.
pub struct Body;

/// The external engine: actors by entity, with the position the engine believes.
#[derive(Debug, Default)]
pub struct Physics {
    /// One actor per mirrored entity.
    pub actors: HashMap<Entity, Option<Position>>,
    /// Actor moves requested, in the engine's lifetime (what mirroring cost).
    pub moves: u64,
}

/// The engine as the game holds it: shared with the hooks.
#[derive(Clone, Default)]
pub struct PhysicsHandle(pub Arc<Mutex<Physics>>);

/// Installs the mirror: the two hooks on the world and the move system in `schedule`.
pub fn install(world: &mut World, schedule: &mut Schedule) -> PhysicsHandle {
    let physics = PhysicsHandle::default();
    let created = physics.clone();
    world.on_add::<Body>(move |ctx| {
        let at = ctx.world.get::<Position>(ctx.entity).ok().copied();
        created.0.lock().unwrap().actors.insert(ctx.entity, at);
    });
    let destroyed = physics.clone();
    world.on_remove::<Body>(move |ctx| {
        destroyed.0.lock().unwrap().actors.remove(&ctx.entity);
    });
    world.insert_resource(physics.clone());
    schedule.add_system(world, move_actors.named("move_actors").in_phase(ripple::schedule::POST_UPDATE)).unwrap();
    physics
}

/// Bodies whose position changed since the system asking last ran.
type MovedBodies<'w, 's> = Query<'w, 's, (Entity, &'static Position), (With<Body>, Changed<Position>)>;

/// Moves the actors of bodies whose position changed since this system last ran.
fn move_actors(mut moved: MovedBodies, physics: Res<PhysicsHandle>) {
    let mut engine = physics.0.lock().unwrap();
    moved.for_each(|(entity, position)| {
        engine.actors.insert(entity, Some(*position));
        engine.moves += 1;
    });
}

/// Whether the engine holds exactly the ECS's bodies, each where the ECS has it.
pub fn mirror_matches(world: &mut World, physics: &PhysicsHandle) -> Result<(), String> {
    let mut bodies = world.query_filtered::<(Entity, Option<&Position>), With<Body>>();
    let engine = physics.0.lock().unwrap();
    let mut count = 0;
    for (entity, position) in bodies.iter(world) {
        count += 1;
        match engine.actors.get(&entity) {
            None => return Err(format!("{entity} has a body but no actor")),
            Some(actor) if actor.as_ref() != position => {
                return Err(format!("{entity} is at {position:?} but its actor at {actor:?}"));
            }
            Some(_) => {}
        }
    }
    if count != engine.actors.len() {
        return Err(format!("{} actors for {count} bodies", engine.actors.len()));
    }
    Ok(())
}

/// A small deterministic generator (xorshift), so runs repeat from a seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// One frame of random play between schedule runs: spawns, despawns, bodies added
/// and removed, and entities moved.
pub fn play(world: &mut World, live: &mut Vec<Entity>, rng: &mut Rng) {
    for _ in 0..rng.below(8) {
        let at = Position(rng.below(100) as f32, rng.below(100) as f32);
        let entity = match rng.below(3) {
            0 => world.spawn((at,)),
            1 => world.spawn((at, Body)),
            _ => world.spawn((Body,)),
        };
        live.push(entity);
    }
    for _ in 0..rng.below(12) {
        if live.is_empty() {
            break;
        }
        let pick = rng.below(live.len() as u64) as usize;
        let entity = live[pick];
        match rng.below(5) {
            0 => {
                world.despawn(entity).unwrap();
                live.swap_remove(pick);
            }
            1 => world.insert(entity, (Body,)).unwrap(),
            2 => {
                let _ = world.remove::<(Body,)>(entity);
            }
            _ => world.insert(entity, (Position(rng.below(100) as f32, 0.5),)).unwrap(),
        }
    }
}

fn main() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let physics = install(&mut world, &mut schedule);
    let mut live = Vec::new();
    let mut rng = Rng(0x5eed);
    for frame in 0..200 {
        play(&mut world, &mut live, &mut rng);
        schedule.run(&mut world);
        if let Err(mismatch) = mirror_matches(&mut world, &physics) {
            eprintln!("frame {frame}: mirror differs: {mismatch}");
            std::process::exit(1);
        }
    }
    let engine = physics.0.lock().unwrap();
    println!(
        "200 frames: {} entities, {} actors mirrored, {} actor moves (only changed positions are sent)",
        world.len(),
        engine.actors.len(),
        engine.moves
    );
}
