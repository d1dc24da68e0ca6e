//! Immutable components (bevy_ecs's `#[component(immutable)]`): read, replaced or
//! removed, never written in place, so observers of insert and replace keep an index
//! exact.

#![allow(elided_lifetimes_in_paths, reason = "observer signatures read as a bevy user writes them")]
//! Typed ones by registration, runtime ones by descriptor; every write path refuses.

use std::collections::HashMap;

use ripple::dynamic::{ComponentDescriptor, DynamicError};
use ripple::prelude::*;

#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct Name(&'static str);

#[derive(Default)]
struct NameIndex(HashMap<Name, Entity>);

fn world_with_index() -> World {
    let mut world = World::new();
    world.register_immutable::<Name>();
    world.init_resource::<NameIndex>();
    world
        .add_observer(|t: Trigger<OnInsert<Name>>, names: Query<&Name>, mut index: ResMut<NameIndex>| {
            index.0.insert(*names.get(t.entity()).unwrap(), t.entity());
        })
        .unwrap();
    world
        .add_observer(|t: Trigger<OnReplace<Name>>, names: Query<&Name>, mut index: ResMut<NameIndex>| {
            index.0.remove(names.get(t.entity()).unwrap());
        })
        .unwrap();
    world
}

#[test]
fn observers_of_insert_and_replace_keep_a_name_index_exact() {
    let mut world = world_with_index();
    let alyssa = world.spawn((Name("Alyssa"),));
    let javier = world.spawn((Name("Javier"),));
    let index = &world.resource::<NameIndex>().unwrap().0;
    assert_eq!(index.get(&Name("Alyssa")), Some(&alyssa));
    assert_eq!(index.get(&Name("Javier")), Some(&javier));
    world.insert_one(javier, Name("Steven")).unwrap();
    let index = &world.resource::<NameIndex>().unwrap().0;
    assert_eq!(index.get(&Name("Javier")), None);
    assert_eq!(index.get(&Name("Steven")), Some(&javier));
    assert!(world.is_immutable::<Name>());
    assert!(!world.is_immutable::<u32>());
}

#[test]
#[should_panic(expected = "Name is immutable: replace its value with insert")]
fn get_mut_of_an_immutable_component_panics_naming_it() {
    let mut world = world_with_index();
    let e = world.spawn((Name("Alyssa"),));
    let _ = world.get_mut::<Name>(e);
}

#[test]
#[should_panic(expected = "may not write")]
fn a_query_writing_an_immutable_component_is_refused_when_built() {
    let mut world = world_with_index();
    let _ = world.query::<&mut Name>();
}

#[test]
fn reading_queries_and_removal_work_as_for_any_component() {
    let mut world = world_with_index();
    let e = world.spawn((Name("Alyssa"),));
    let mut names = world.query::<&Name>();
    assert_eq!(names.iter(&world).collect::<Vec<_>>(), [&Name("Alyssa")]);
    assert_eq!(world.remove_one::<Name>(e).unwrap(), Name("Alyssa"));
}

#[test]
fn a_runtime_component_made_immutable_refuses_writes_by_id_and_by_query() {
    let mut world = World::new();
    let ids: Vec<_> = [("Foo", 1), ("Bar", 2), ("Baz", 4)]
        .into_iter()
        .map(|(name, size)| world.register_component(ComponentDescriptor::new(name, size, 1).unwrap().immutable()))
        .collect();
    let entity = world.spawn_empty();
    for (&id, size) in ids.iter().zip([1usize, 2, 4]) {
        world.insert_by_id(entity, id, &vec![0; size]).unwrap();
    }
    for &id in &ids {
        assert!(world.get_by_id(entity, id).is_ok());
        assert!(matches!(world.get_mut_by_id(entity, id), Err(DynamicError::Immutable { .. })));
    }
    let refused = world.dynamic_query().write(ids[0]).build();
    assert!(matches!(refused, Err(DynamicError::Immutable { refusal }) if refusal.starts_with("Foo is immutable")));
    // Replacing is how an immutable value changes.
    world.insert_by_id(entity, ids[0], &[7]).unwrap();
    assert_eq!(world.get_by_id(entity, ids[0]).unwrap(), [7]);
}
