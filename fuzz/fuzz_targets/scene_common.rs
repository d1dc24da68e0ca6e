//! What the scene fuzz targets share: a registry of varied types (references in
//! fields, options and vectors, strings, floats, a sparse marker, parents, a resource), a
//! world with entities, gaps and observers, and the check that a refused load leaves
//! that world exactly as it was.

use ripple::{Entity, Storage, World};
use ripple::data::DataCommands;
use ripple::scene::{LoadError, Loaded, SceneRegistry};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Position {
    x: f32,
    y: f32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Name(String);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Target(Entity);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Links {
    all: Vec<Entity>,
    best: Option<Entity>,
    tag: Option<char>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Mood {
    Calm,
    Angry(u8),
    Hunting { prey: Entity },
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Moving;

/// A recursive value: each `Node` is one more level of nesting.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub enum Tree {
    Leaf,
    Node(Box<Tree>),
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
pub struct Score(u64);

#[derive(Default)]
pub struct Gui {
    complete: bool,
    focus: Option<Entity>,
}

pub fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry
        .component::<Position>("position")
        .and_then(|r| r.component::<Name>("name"))
        .and_then(|r| r.component::<Target>("target"))
        .and_then(|r| r.component::<Links>("links"))
        .and_then(|r| r.component::<Mood>("mood"))
        .and_then(|r| r.component::<Moving>("moving"))
        .and_then(|r| r.component::<ripple::hierarchy::ChildOf>("child_of"))
        .and_then(|r| r.component::<Tree>("tree"))
        .and_then(|r| r.resource::<Score>("score"))
        .expect("distinct names");
    registry
}

pub fn commands() -> DataCommands {
    let mut commands = DataCommands::new();
    commands
        .target::<Gui>("gui")
        .method("set_level_complete", |gui: &mut Gui, complete: bool| gui.complete = complete)
        .method("focus", |gui: &mut Gui, entity: Entity| gui.focus = Some(entity));
    commands
}

/// A world with a gap, a sparse component, a resource and references.
pub fn world() -> World {
    let mut world = World::new();
    world.set_storage::<Moving>(Storage::SparseSet).unwrap();
    world.track::<Position>();
    world.publish_api(Gui::default());
    let a = world.spawn((Position { x: 1.0, y: 2.0 }, Name("a".into())));
    let gap = world.spawn((Moving,));
    let b = world.spawn((Target(a), Moving, Mood::Hunting { prey: a }));
    world.despawn(gap).unwrap();
    world.spawn((Links { all: vec![a, b], best: None, tag: Some('x') },));
    world.insert_resource(Score(5));
    world
}

/// Everything a load could change.
fn dump(registry: &SceneRegistry, world: &World) -> (Vec<u8>, usize, usize, ripple::Tick, bool) {
    let mut scene = Vec::new();
    registry.save(world).to_binary(&mut scene).expect("saving to memory");
    let gui = world.api::<Gui>().unwrap();
    (scene, world.len(), world.archetype_count(), world.change_tick(), gui.complete || gui.focus.is_some())
}

/// Loads `data` with `load` into the fixture world: a refusal must change nothing;
/// a success must add exactly the entities it reports, alive, each loaded child on its
/// parent's children list, after the children it had before the load, in file order.
/// Returns the outcome.
pub fn check(
    data: &[u8],
    load: impl Fn(&SceneRegistry, &mut World, &[u8]) -> Result<Loaded, LoadError>,
) -> Result<(), LoadError> {
    let registry = registry();
    let mut world = world();
    let before = dump(&registry, &world);
    match load(&registry, &mut world, data) {
        Ok(loaded) => {
            assert_eq!(world.len(), before.1 + loaded.entities().len());
            assert!(loaded.entities().iter().all(|&e| world.contains(e)));
            // Nothing the load put in was undone afterwards (a `ChildOf` cycle is
            // refused before the commit).
            assert!(world.failed_commands().is_empty(), "a load applied in part");
            let mut listed: std::collections::HashMap<Entity, Vec<Entity>> = Default::default();
            for &child in loaded.entities() {
                if let Some(parent) = world.parent(child) {
                    listed.entry(parent).or_default().push(child);
                }
            }
            for (parent, children) in listed {
                let list = world.children(parent).expect("a parent is alive");
                assert!(list.ends_with(&children), "loaded children follow file order: {list:?} {children:?}");
            }
            Ok(())
        }
        Err(error) => {
            let _ = error.to_string();
            assert!(dump(&registry, &world) == before, "a refused load changed the world: {error}");
            Err(error)
        }
    }
}
