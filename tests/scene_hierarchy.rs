//! Hierarchies in scenes: `ChildOf` saved and loaded like any registered component,
//! children lists rebuilt in order on load, and a scene whose parents make a cycle
//! refused with a typed error before anything changes.

use ripple::hierarchy::ChildOf;
use ripple::scene::{LoadError, SceneRegistry};
use ripple::{Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Name(String);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Size(u32);

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry.component::<Name>("name").unwrap();
    registry.component::<Size>("size").unwrap();
    registry.component::<ChildOf>("child_of").unwrap();
    registry
}

fn name(world: &World, entity: Entity) -> &str {
    &world.get::<Name>(entity).unwrap().0
}

/// A tree whose records differ in components (so a binary scene stores them in
/// several runs), saved in both formats and loaded into a world that has entities.
#[test]
fn a_saved_tree_loads_with_its_children_in_order() {
    let mut world = World::new();
    let root = world.spawn((Name("root".into()),));
    let a = world.spawn_child(root, (Name("a".into()), Size(1))).unwrap();
    let b = world.spawn_child(root, (Name("b".into()),)).unwrap();
    world.spawn_child(a, (Name("a1".into()),)).unwrap();
    world.spawn_child(b, (Name("b1".into()), Size(2))).unwrap();
    world.spawn_child(root, (Name("c".into()), Size(3))).unwrap();
    let registry = registry();
    let mut json = Vec::new();
    registry.save(&world).to_json(&mut json).unwrap();
    let mut binary = Vec::new();
    registry.save(&world).to_binary(&mut binary).unwrap();
    for (format, load) in [
        ("json", Box::new(|w: &mut World| registry.load_json(w, &json)) as Box<dyn Fn(&mut World) -> _>),
        ("binary", Box::new(|w: &mut World| registry.load_binary(w, &binary))),
    ] {
        let mut into = World::new();
        into.spawn((Name("already here".into()),));
        let loaded = load(&mut into).unwrap_or_else(|error| panic!("{format}: {error}"));
        let root = loaded.entity(root).unwrap();
        let names = |e: Entity| into.children(e).unwrap().iter().map(|&c| name(&into, c)).collect::<Vec<_>>();
        assert_eq!(names(root), ["a", "b", "c"], "{format}");
        let kids = into.children(root).unwrap().to_vec();
        assert_eq!(names(kids[0]), ["a1"], "{format}");
        assert_eq!(names(kids[1]), ["b1"], "{format}");
        assert_eq!(into.parent(kids[2]), Some(root), "{format}");
        assert!(into.failed_commands().is_empty(), "{format}");
    }
}

fn scene(entities: &[(&str, &str, Option<&str>)]) -> String {
    let records: Vec<String> = entities
        .iter()
        .map(|(id, name, parent)| {
            let parent = parent.map_or(String::new(), |p| format!(r#", "child_of": "{p}""#));
            format!(r#"{{ "id": "{id}", "components": {{ "name": "{name}"{parent} }} }}"#)
        })
        .collect();
    format!(r#"{{ "format": "ripple-scene", "version": 1, "entities": [{}] }}"#, records.join(", "))
}

#[test]
fn a_scene_whose_parents_make_a_cycle_is_refused() {
    let registry = registry();
    let mut world = World::new();
    let outside = world.spawn((Name("outside".into()),));
    let before = world.len();
    let cases = [
        // Three records in a ring, below a fine one.
        (
            scene(&[
                ("0v1", "ok", None),
                ("1v1", "x", Some("3v1")),
                ("2v1", "y", Some("1v1")),
                ("3v1", "z", Some("2v1")),
            ]),
            LoadError::HierarchyCycle { entity: 1, parent: 3 },
        ),
        // Its own parent.
        (scene(&[("5v1", "self", Some("5v1"))]), LoadError::HierarchyCycle { entity: 0, parent: 0 }),
        // Two records naming each other, the second referred to before its record.
        (
            scene(&[("7v1", "p", Some("8v1")), ("8v1", "q", Some("7v1"))]),
            LoadError::HierarchyCycle { entity: 0, parent: 1 },
        ),
    ];
    for (input, expected) in cases {
        let error = registry.load_json(&mut world, &input).unwrap_err();
        assert_eq!(error, expected, "{input}");
        assert!(error.to_string().contains("parent"), "{error}");
        assert_eq!(world.len(), before, "nothing loaded");
    }
    // A chain that ends at a world entity, or at a record without a parent, is fine
    // (file ids other than the world entity's: in a scene, its own ids come first).
    let outside_id = outside.to_string();
    let fine = scene(&[("10v1", "leaf", Some("11v1")), ("11v1", "mid", Some(&outside_id)), ("12v1", "top", None)]);
    let loaded = registry.load_json(&mut world, &fine).unwrap();
    let mid = loaded.entity(Entity::from_bits(1 << 32 | 11).unwrap()).unwrap();
    assert_eq!(world.parent(mid), Some(outside));
    assert_eq!(world.descendants(outside).count(), 2);
}

/// Failed before the fix: children attached as [4, 1, 5, 0, 3, 2] came back as
/// [0, 1, 2, 3, 4, 5] (records were written by ascending index, and a load appends
/// children in file order).
#[test]
fn children_keep_their_order_through_a_save_and_load() {
    let mut world = World::new();
    let parent = world.spawn((Name("parent".into()),));
    // Children in two tables (some with a size), so a binary scene splits them into runs.
    let kids: Vec<Entity> = (0..6)
        .map(|i| match i % 2 {
            0 => world.spawn((Name(format!("kid {i}")),)),
            _ => world.spawn((Name(format!("kid {i}")), Size(i))),
        })
        .collect();
    for i in [4, 1, 5, 0, 3, 2] {
        world.set_parent(kids[i], parent).unwrap();
    }
    // A grandchild list in an order of its own, under a child attached late.
    let grandkids: Vec<Entity> = (0..3).map(|i| world.spawn((Name(format!("grandkid {i}")),))).collect();
    for i in [2, 0, 1] {
        world.set_parent(grandkids[i], kids[3]).unwrap();
    }
    let names = |world: &World, of: Entity| -> Vec<String> {
        world.children(of).unwrap().iter().map(|&c| name(world, c).to_owned()).collect()
    };
    let want_kids = names(&world, parent);
    let want_grandkids = names(&world, kids[3]);
    assert_eq!(want_kids, ["kid 4", "kid 1", "kid 5", "kid 0", "kid 3", "kid 2"]);
    let registry = registry();
    // A whole-world save, and a selection listing the entities in yet another order.
    let mut selection: Vec<Entity> = kids.iter().chain(&grandkids).rev().copied().collect();
    selection.push(parent);
    for (saved, whole) in [("whole world", true), ("selection", false)] {
        let saver = || if whole { registry.save(&world) } else { registry.save(&world).entities(selection.clone()) };
        let mut json = Vec::new();
        saver().to_json(&mut json).unwrap();
        let mut binary = Vec::new();
        saver().to_binary(&mut binary).unwrap();
        for (format, input, binary) in [("json", &json, false), ("binary", &binary, true)] {
            let mut into = World::new();
            into.spawn((Name("already here".into()),));
            let loaded =
                if binary { registry.load_binary(&mut into, input) } else { registry.load_json(&mut into, input) }
                    .unwrap_or_else(|error| panic!("{saved}, {format}: {error}"));
            let parent = loaded.entity(parent).unwrap();
            assert_eq!(names(&into, parent), want_kids, "{saved}, {format}");
            assert_eq!(names(&into, loaded.entity(kids[3]).unwrap()), want_grandkids, "{saved}, {format}");
        }
    }
}

/// A user relation, saved like any component when registered.
#[derive(Serialize, Deserialize, Debug)]
struct Holds(Entity);

impl ripple::relation::Relation for Holds {
    fn target(&self) -> Entity {
        self.0
    }
    fn to(target: Entity) -> Self {
        Holds(target)
    }
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
    }
}

/// Which components a save reports skipped, by name, in both formats (which agree).
fn skipped(registry: &SceneRegistry, world: &World) -> Vec<(String, usize)> {
    let json = registry.save(world).to_json(&mut Vec::new()).unwrap();
    let binary = registry.save(world).to_binary_vec(&mut Vec::new()).unwrap();
    assert_eq!(json.skipped, binary.skipped);
    json.skipped.iter().map(|s| (ripple::short_type_name(s.component), s.entities)).collect()
}

/// A relation's list (`Children`, `Related<R>`) is derived from the relation a save
/// holds, and rebuilt by the load: not skipped while the relation is registered.
#[test]
fn a_save_of_a_hierarchy_skips_no_derived_list() {
    let mut world = World::new();
    let root = world.spawn((Name("root".into()),));
    let leaf = world.spawn_child(root, (Name("leaf".into()),)).unwrap();
    let bag = world.spawn((Name("bag".into()),));
    world.relate(leaf, Holds(bag)).unwrap();
    let mut registry = registry();
    registry.component::<Holds>("holds").unwrap();
    assert_eq!(skipped(&registry, &world), [], "nothing skipped");

    // The README's pattern, for a game with a hierarchy: a load gives the lists back.
    let mut save = Vec::new();
    assert!(registry.save(&world).to_json(&mut save).unwrap().skipped.is_empty());
    let mut other = World::new();
    other.register_relation::<Holds>(); // as `World::new` registers the hierarchy
    let loaded = registry.load_json(&mut other, &save).unwrap();
    let (root, leaf, bag) = (loaded.entity(root).unwrap(), loaded.entity(leaf).unwrap(), loaded.entity(bag).unwrap());
    assert_eq!(other.children(root).unwrap(), [leaf]);
    assert_eq!(other.related::<Holds>(bag), [leaf]);

    // Without the relation registered, the relation and its list are both lost.
    let mut bare = SceneRegistry::new();
    bare.component::<Name>("name").unwrap();
    let mut lost = skipped(&bare, &other);
    lost.sort();
    let mut expected: Vec<(String, usize)> =
        ["ChildOf", "Holds", "Related<ChildOf>", "Related<Holds>"].iter().map(|n| (n.to_string(), 1)).collect();
    expected.sort();
    assert_eq!(lost, expected);
}
