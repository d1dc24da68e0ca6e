//! Scenes through the public API: round trips in both formats, entity remapping,
//! selections, what a save skips, and loaded entities seen as added.

use ripple::Storage;
use ripple::prelude::*;
use ripple::scene::{LoadError, SceneRegistry};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Position {
    x: f32,
    y: f32,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Name(String);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Target(Entity);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Links {
    all: Vec<Entity>,
    best: Option<Entity>,
}

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Moving;

#[derive(Debug)]
struct Unsaved;

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Score(u32);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Leader(Entity);

/// A value that cannot be written.
struct Refuses;

impl Serialize for Refuses {
    fn serialize<S: serde::Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
        Err(serde::ser::Error::custom("not today"))
    }
}

impl<'de> Deserialize<'de> for Refuses {
    fn deserialize<D: serde::Deserializer<'de>>(_: D) -> Result<Self, D::Error> {
        Ok(Refuses)
    }
}

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry
        .component::<Position>("position")
        .unwrap()
        .component::<Name>("name")
        .unwrap()
        .component::<Target>("target")
        .unwrap()
        .component::<Links>("links")
        .unwrap()
        .component::<Moving>("moving")
        .unwrap()
        .resource::<Score>("score")
        .unwrap()
        .resource::<Leader>("leader")
        .unwrap();
    registry
}

/// A small world with references forward and back, a sparse marker and an
/// unregistered component.
fn sample() -> (World, [Entity; 3]) {
    let mut world = World::new();
    world.set_storage::<Moving>(Storage::SparseSet).unwrap();
    let a = world.spawn((Position { x: 1.0, y: 2.0 }, Name("a".into())));
    let gap = world.spawn((Unsaved,));
    let b = world.spawn((Position { x: 3.0, y: 4.0 }, Target(a), Moving));
    world.despawn(gap).unwrap();
    let c = world.spawn((Name("c".into()), Links { all: vec![a, b], best: Some(b) }, Unsaved));
    world.insert_one(a, Target(c)).unwrap();
    world.insert_resource(Score(7));
    world.insert_resource(Leader(b));
    (world, [a, b, c])
}

/// Checks that `copy` holds `[a, b, c]` of `sample()` at the handles `new`.
fn assert_sample(copy: &World, [a, b, c]: [Entity; 3]) {
    assert_eq!(copy.get::<Position>(a), Ok(&Position { x: 1.0, y: 2.0 }));
    assert_eq!(copy.get::<Target>(a), Ok(&Target(c)));
    assert_eq!(copy.get::<Target>(b), Ok(&Target(a)));
    assert!(copy.get::<Moving>(b).is_ok());
    assert_eq!(copy.get::<Links>(c), Ok(&Links { all: vec![a, b], best: Some(b) }));
    assert!(copy.get::<Unsaved>(c).is_err(), "unregistered types are not saved");
    assert_eq!(copy.resource::<Score>(), Ok(&Score(7)));
    assert_eq!(copy.resource::<Leader>(), Ok(&Leader(b)));
}

#[test]
fn a_world_round_trips_through_json_and_binary_with_references_remapped() {
    let registry = registry();
    let (world, _) = sample();
    let mut json = Vec::new();
    let report = registry.save(&world).to_json(&mut json).unwrap();
    assert_eq!(report.entities, 3);
    assert_eq!(report.resources, 2);
    assert_eq!(report.bytes, json.len() as u64);
    assert_eq!(report.skipped.len(), 1);
    assert!(report.skipped[0].component.ends_with("Unsaved"));
    assert_eq!(report.skipped[0].entities, 1);
    let mut binary = Vec::new();
    registry.save(&world).to_binary(&mut binary).unwrap();
    assert!(binary.starts_with(b"RPLSCENE"));

    for (format, bytes) in [("json", &json), ("binary", &binary)] {
        // Into a world whose slots are taken and recycled, so handles change.
        let mut copy = World::new();
        let filler: Vec<Entity> = (0..5).map(|i| copy.spawn((Position { x: i as f32, y: 0.0 },))).collect();
        copy.despawn(filler[1]).unwrap();
        let loaded = if format == "json" {
            registry.load_json(&mut copy, bytes).unwrap()
        } else {
            registry.load_binary(&mut copy, bytes).unwrap()
        };
        let (_, old) = sample();
        let new = old.map(|e| loaded.entity(e).unwrap());
        assert_ne!(new, old, "{format}: fresh handles");
        assert_sample(&copy, new);
        assert_eq!(copy.len(), 4 + 3);
        // The file holds the entities by ascending index: a (0), c (1, recycled), b (2).
        assert_eq!(loaded.entities(), [new[0], new[2], new[1]], "{format}");
        assert_eq!(loaded.resources(), 2);
        // Saving the copy's loaded entities gives the same text, up to the handles.
        let mut again = Vec::new();
        registry.save(&copy).entities(new).to_json(&mut again).unwrap();
        let reload = registry.load_json(&mut World::new(), &again).unwrap();
        assert_eq!(reload.entities().len(), 3);
    }
}

#[test]
fn json_is_pretty_and_stable_and_compact_on_request() {
    let registry = registry();
    let mut world = World::new();
    let a = world.spawn((Target(Entity::from_bits(1 << 32).unwrap()), Position { x: 0.5, y: 1.0 }));
    world.insert_one(a, Target(a)).unwrap();
    let mut json = Vec::new();
    registry.save(&world).to_json(&mut json).unwrap();
    let text = String::from_utf8(json).unwrap();
    // Components in registration order (position before target), whatever order they
    // were added in.
    assert_eq!(
        text,
        r#"{
  "format": "ripple-scene",
  "version": 1,
  "resources": {},
  "entities": [
    {
      "id": "0v1",
      "components": {
        "position": {
          "x": 0.5,
          "y": 1.0
        },
        "target": "0v1"
      }
    }
  ]
}
"#
    );
    let mut compact = Vec::new();
    registry.save(&world).compact().to_json(&mut compact).unwrap();
    assert_eq!(
        String::from_utf8(compact).unwrap(),
        r#"{"format":"ripple-scene","version":1,"resources":{},"entities":[{"id":"0v1","components":{"position":{"x":0.5,"y":1.0},"target":"0v1"}}]}"#
    );
}

#[test]
fn a_selection_saves_those_entities_in_that_order_and_may_refer_to_live_ones() {
    let registry = registry();
    let (mut world, [a, b, c]) = sample();
    let movers: Vec<Entity> = world.query_filtered::<Entity, With<Moving>>().iter(&world).collect();
    assert_eq!(movers, [b]);
    let mut json = Vec::new();
    let report = registry.save(&world).entities([b]).to_json(&mut json).unwrap();
    assert_eq!(report.entities, 1);
    assert!(report.skipped.is_empty(), "b has no unregistered component");
    // b's target, a, is not in the scene: loading into the same world keeps it.
    let loaded = registry.load_json(&mut world, &json).unwrap();
    let copy = loaded.entities()[0];
    assert_ne!(copy, b);
    assert_eq!(world.get::<Target>(copy), Ok(&Target(a)));
    // Into a world without a, that reference dangles.
    let error = registry.load_json(&mut World::new(), &json).unwrap_err();
    assert!(matches!(error, LoadError::DanglingEntity { reference, .. } if reference == a), "{error}");
    // Order follows the selection.
    let mut two = Vec::new();
    registry.save(&world).entities([c, b, a]).to_binary(&mut two).unwrap();
    let mut fresh = World::new();
    let loaded = registry.load_binary(&mut fresh, &two).unwrap();
    assert_eq!(fresh.get::<Name>(loaded.entities()[0]), Ok(&Name("c".into())));
    // Stale or repeated entities are refused before anything is written.
    world.despawn(c).unwrap();
    let mut out = Vec::new();
    assert!(
        matches!(registry.save(&world).entities([a, c]).to_json(&mut out), Err(ripple::scene::SaveError::NoSuchEntity(e)) if e == c)
    );
    assert!(
        matches!(registry.save(&world).entities([a, a]).to_json(&mut out), Err(ripple::scene::SaveError::DuplicateEntity(e)) if e == a)
    );
    assert!(out.is_empty());
}

#[test]
fn loaded_entities_count_as_added_for_filters_dirty_sets_and_hooks() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let registry = registry();
    let (world, _) = sample();
    let mut json = Vec::new();
    registry.save(&world).to_json(&mut json).unwrap();

    let mut copy = World::new();
    copy.track::<Position>();
    let added = Arc::new(AtomicUsize::new(0));
    let inserted = Arc::new(AtomicUsize::new(0));
    let (a, i) = (added.clone(), inserted.clone());
    copy.on_add::<Position>(move |_| {
        a.fetch_add(1, Ordering::Relaxed);
    });
    copy.on_insert::<Name>(move |context| {
        // Hooks run once every loaded entity is in place.
        assert_eq!(context.world.len(), 3);
        i.fetch_add(1, Ordering::Relaxed);
    });
    let mut new_positions = copy.query_filtered::<Entity, Added<Position>>();
    let mut changed = copy.query_filtered::<Entity, Changed<Position>>();
    let mut dirty = copy.query_filtered::<Entity, Dirty<(Position, Name)>>();
    assert_eq!(new_positions.iter(&copy).count(), 0);
    assert_eq!(changed.iter(&copy).count(), 0);
    assert_eq!(dirty.iter(&copy).count(), 0);
    let loaded = registry.load_json(&mut copy, &json).unwrap();
    let (_, [a, b, _]) = sample();
    let mut expect = vec![loaded.entity(a).unwrap(), loaded.entity(b).unwrap()];
    expect.sort();
    let mut seen: Vec<Entity> = new_positions.iter(&copy).collect();
    seen.sort();
    assert_eq!(seen, expect);
    assert_eq!(changed.iter(&copy).count(), 2);
    assert_eq!(dirty.iter(&copy).count(), 3);
    assert_eq!(added.load(Ordering::Relaxed), 2);
    assert_eq!(inserted.load(Ordering::Relaxed), 2);
}

#[test]
fn a_scene_may_declare_entities_after_the_references_to_them_and_in_any_key_order() {
    let registry = registry();
    let text = r#"{
        "entities": [
            {"components": {"target": "5v2", "links": {"all": ["5v2", 4294967305], "best": null}}, "id": "7v1"},
            {"id": "5v2", "components": {"target": "7v1"}},
            {"id": 4294967305}
        ]
    }"#;
    let mut world = World::new();
    let loaded = registry.load_json(&mut world, text).unwrap();
    let [x, y, z]: [Entity; 3] = loaded.entities().try_into().unwrap();
    assert_eq!(world.get::<Target>(x), Ok(&Target(y)));
    assert_eq!(world.get::<Target>(y), Ok(&Target(x)));
    assert_eq!(world.get::<Links>(x).unwrap().all, vec![y, z]);
    assert!(world.entity(z).is_ok());
}

#[test]
fn records_may_list_components_in_any_order_with_escaped_names_and_ids_in_any_form() {
    // Records after the first are read expecting the previous record's order; every
    // departure from it (another order, fewer or more components, an escaped name, an
    // id as bits or with a sign) must read the same as the plain form.
    let registry = registry();
    let text = r#"{"entities": [
        {"id": "1v1", "components": {"position": {"x": 1.0, "y": 1.0}, "name": "one"}},
        {"id": "2v1", "components": {"name": "two", "position": {"x": 2.0, "y": 2.0}}},
        {"id": "+3v1", "components": {"n\u0061me": "three"}},
        {"id": 4294967300, "components": {"name": "four", "position": {"x": 4.0, "y": 4.0}, "moving": null}},
        {"id": "5v1", "components": {"position": {"x": 5.0, "y": 5.0}, "name": "five"}}
    ]}"#;
    let mut world = World::new();
    let loaded = registry.load_json(&mut world, text).unwrap();
    let names: Vec<&str> = loaded.entities().iter().map(|&e| world.get::<Name>(e).unwrap().0.as_str()).collect();
    assert_eq!(names, ["one", "two", "three", "four", "five"]);
    let x = |i: usize| world.get::<Position>(loaded.entities()[i]).map(|p| p.x).ok();
    assert_eq!([x(0), x(1), x(2), x(3), x(4)], [Some(1.0), Some(2.0), None, Some(4.0), Some(5.0)]);
    assert!(world.get::<Moving>(loaded.entities()[3]).is_ok());
    let three = Entity::from_bits((1 << 32) | 3).unwrap();
    assert_eq!(loaded.entity(three), Some(loaded.entities()[2]));
    // A misspelt id is still refused, whichever reader saw it first.
    for id in [r#""3v""#, r#""v1""#, r#""3v1v1""#, r#""99999999999v1""#] {
        let text = format!(r#"{{"entities": [{{"id": {id}, "components": {{}}}}]}}"#);
        let error = registry.load_json(&mut World::new(), &text).unwrap_err();
        assert!(matches!(error, LoadError::Syntax { .. }), "{id}: {error:?}");
    }
}

#[test]
fn data_commands_can_read_entities_through_the_same_text() {
    // The handle text a save writes is the text data commands accept.
    let (world, [a, ..]) = sample();
    let text = serde_json::to_string(&a).unwrap();
    assert_eq!(text, format!("\"{a}\""));
    let _ = world;
}

#[test]
fn saving_into_a_byte_vector_writes_what_a_writer_gets_and_nothing_on_error() {
    let registry = registry();
    let (world, _) = sample();
    let mut written = Vec::new();
    let report = registry.save(&world).to_binary(&mut written).unwrap();
    let mut appended = b"kept".to_vec();
    let vec_report = registry.save(&world).to_binary_vec(&mut appended).unwrap();
    assert_eq!(vec_report, report);
    assert_eq!(vec_report.bytes, written.len() as u64);
    assert_eq!(&appended[..4], b"kept", "the vector is appended to");
    assert_eq!(&appended[4..], &written[..]);

    // A value that cannot be written: the vector is left as it was.
    let mut registry = SceneRegistry::new();
    registry.component::<Position>("position").unwrap();
    registry.component::<Refuses>("refuses").unwrap();
    let mut world = World::new();
    world.spawn_batch((0..3000).map(|i| (Position { x: i as f32, y: 0.0 },)));
    world.spawn((Position { x: -1.0, y: 0.0 }, Refuses));
    let mut out = b"kept".to_vec();
    let error = registry.save(&world).to_binary_vec(&mut out).unwrap_err();
    assert!(error.to_string().contains("`refuses` of entity 3000v1"), "{error}");
    assert_eq!(out, b"kept");
}

#[test]
fn a_refused_selection_or_resource_leaves_the_byte_vector_as_it_was() {
    let registry = registry();
    let (mut world, [a, _, c]) = sample();
    world.despawn(c).unwrap();
    let mut out = b"kept".to_vec();
    let error = registry.save(&world).entities([a, c]).to_binary_vec(&mut out).unwrap_err();
    assert!(matches!(error, ripple::scene::SaveError::NoSuchEntity(e) if e == c), "{error}");
    assert_eq!(out, b"kept");

    // A resource whose value cannot be written.
    let mut registry = SceneRegistry::new();
    registry.resource::<Refuses>("refuses").unwrap();
    let mut world = World::new();
    world.insert_resource(Refuses);
    let error = registry.save(&world).to_binary_vec(&mut out).unwrap_err();
    assert!(error.to_string().contains("refuses"), "{error}");
    assert_eq!(out, b"kept");
}
