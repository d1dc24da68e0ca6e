//! A level file loaded, played, saved and loaded again.
//!
//! `examples/levels/arena.json` holds a player, three chasers (one leads the other two
//! as a squad) and some crates, plus data commands for the GUI — one names the player
//! by its id in the file. The example loads it with `SceneRegistry::load_level`, runs
//! a few frames in which the chasers close in and smash crates, saves the world (JSON
//! and binary), loads each save into a fresh world and checks that the worlds agree,
//! entity for entity, with every reference between entities followed to its new handle.
//!
//! Run with `cargo run --example level`.

use std::collections::HashMap;
use std::process::ExitCode;

use ripple::data::DataCommands;
use ripple::prelude::*;
use ripple::scene::SceneRegistry;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What an entity is called in the level.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Name(String);

/// Where an entity is.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

/// Hit points.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Health(u32);

/// The one the chasers chase.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Player;

/// Moves toward `target` by `speed` a frame.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Chaser {
    target: Entity,
    speed: f32,
}

/// The chasers a captain leads.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Squad(Vec<Entity>);

/// The wave being played (a resource).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Wave(u32);

/// The GUI, published for data commands.
#[derive(Debug, Default)]
struct Gui {
    title: String,
    follow: Option<Entity>,
    level_complete: bool,
}

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry
        .component::<Name>("name")
        .and_then(|r| r.component::<Position>("position"))
        .and_then(|r| r.component::<Health>("health"))
        .and_then(|r| r.component::<Player>("player"))
        .and_then(|r| r.component::<Chaser>("chaser"))
        .and_then(|r| r.component::<Squad>("squad"))
        .and_then(|r| r.resource::<Wave>("wave"))
        .expect("distinct names and types");
    registry
}

fn commands() -> DataCommands {
    let mut commands = DataCommands::new();
    commands
        .target::<Gui>("gui")
        .method("set_title", |gui: &mut Gui, title: String| gui.title = title)
        .method("follow", |gui: &mut Gui, entity: Entity| gui.follow = Some(entity))
        .method("set_level_complete", |gui: &mut Gui, complete: bool| gui.level_complete = complete);
    commands
}

/// One frame: chasers step toward their targets; a crate a chaser reaches breaks.
fn frame(world: &mut World) {
    let steps: Vec<(Entity, Position)> = world
        .query::<(Entity, &Chaser, &Position)>()
        .iter(world)
        .filter_map(|(entity, chaser, from)| {
            let to = *world.get::<Position>(chaser.target).ok()?;
            let (dx, dy) = (to.x - from.x, to.y - from.y);
            let distance = (dx * dx + dy * dy).sqrt();
            let step = chaser.speed.min(distance);
            (distance > 0.0)
                .then(|| (entity, Position { x: from.x + dx / distance * step, y: from.y + dy / distance * step }))
        })
        .collect();
    for (entity, position) in &steps {
        *world.get_mut::<Position>(*entity).unwrap() = *position;
    }
    let broken: Vec<Entity> = world
        .query::<(Entity, &Name, &Position)>()
        .iter(world)
        .filter(|(_, name, at)| {
            name.0 == "crate" && steps.iter().any(|(_, p)| (p.x - at.x).abs() < 1.5 && (p.y - at.y).abs() < 1.5)
        })
        .map(|(entity, ..)| entity)
        .collect();
    for crate_entity in broken {
        world.despawn(crate_entity).unwrap();
    }
}

/// The scene with every handle replaced by its entity's position in the file, so two
/// saves of equal worlds compare equal whatever handles their entities have.
fn canonical(json: &[u8]) -> Value {
    let mut scene: Value = serde_json::from_slice(json).expect("a saved scene is JSON");
    let ids: HashMap<String, usize> = scene["entities"]
        .as_array()
        .expect("entities")
        .iter()
        .enumerate()
        .map(|(i, entity)| (entity["id"].as_str().expect("id").to_owned(), i))
        .collect();
    fn rename(value: &mut Value, ids: &HashMap<String, usize>) {
        match value {
            Value::String(text) => {
                if let Some(i) = ids.get(text.as_str()) {
                    *text = format!("#{i}");
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| rename(v, ids)),
            Value::Object(map) => map.values_mut().for_each(|v| rename(v, ids)),
            _ => {}
        }
    }
    rename(&mut scene, &ids);
    scene
}

fn main() -> ExitCode {
    let registry = registry();
    let commands = commands();
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/levels/arena.json"))
        .expect("examples/levels/arena.json");

    let mut world = World::new();
    world.publish_api(Gui::default());
    let loaded = match registry.load_level(&mut world, &commands, &text) {
        Ok(loaded) => loaded,
        Err(error) => {
            eprintln!("the level was refused: {error}");
            return ExitCode::FAILURE;
        }
    };
    let player = world.query_filtered::<Entity, With<Player>>().iter(&world).next().expect("a player");
    let gui = world.api::<Gui>().unwrap();
    println!("loaded arena.json: {} entities, {} resource", loaded.entities().len(), loaded.resources());
    println!(
        "  commands ran: title \"{}\", camera follows {} (the player: {}), level complete: {}",
        gui.title,
        gui.follow.map_or("nobody".into(), |e| e.to_string()),
        gui.follow == Some(player),
        gui.level_complete
    );

    for _ in 0..5 {
        frame(&mut world);
    }
    let crates = world.query::<&Name>().iter(&world).filter(|name| name.0 == "crate").count();
    println!("after 5 frames: {} entities, {crates} crates left", world.len());

    let mut json = Vec::new();
    let report = registry.save(&world).to_json(&mut json).expect("saving to memory");
    let mut binary = Vec::new();
    registry.save(&world).to_binary_vec(&mut binary).expect("saving to memory");
    println!("saved: {} entities, {} bytes of JSON, {} bytes binary", report.entities, json.len(), binary.len());

    let expected = canonical(&json);
    let mut agree = true;
    for (format, bytes) in [("JSON", &json), ("binary", &binary)] {
        let mut fresh = World::new();
        let reloaded = match format {
            "JSON" => registry.load_json(&mut fresh, bytes),
            _ => registry.load_binary(&mut fresh, bytes),
        }
        .expect("a save loads back");
        let mut again = Vec::new();
        registry.save(&fresh).to_json(&mut again).expect("saving to memory");
        let same = canonical(&again) == expected;
        let old: Vec<Entity> = world.query::<Entity>().iter(&world).collect();
        let moved = old.iter().filter(|&&e| reloaded.entity(e) != Some(e)).count();
        let captain =
            reloaded.entities().iter().copied().find(|&e| fresh.get::<Squad>(e).is_ok()).expect("the captain");
        let squad = &fresh.get::<Squad>(captain).unwrap().0;
        let squad_alive = squad.iter().all(|&e| fresh.get::<Chaser>(e).is_ok());
        println!(
            "loaded the {format} save into a fresh world: {} entities ({moved} with new handles); worlds agree: {same}; the captain's squad points at live chasers: {squad_alive}",
            fresh.len()
        );
        agree &= same && squad_alive;
    }
    if agree { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}
