//! World-level conveniences bevy_ecs users reach for: several components of an entity
//! at once, resource change detection outside systems, and a resource `Mut` that
//! counts only writes. Named after the bevy_ecs 0.20 behaviour each mirrors.

use ripple::World;
use ripple::query::Changed;
use ripple::system::Res;

#[derive(Debug, PartialEq)]
struct A(u32);
#[derive(Debug, PartialEq)]
struct B(u32);
struct C;
#[derive(Debug, PartialEq)]
struct Score(u32);

#[test]
fn entity_ref_get_components() {
    let mut world = World::new();
    let both = world.spawn((A(1), B(2)));
    let only_a = world.spawn((A(3),));
    world.set_storage::<C>(ripple::Storage::SparseSet).unwrap();
    let with_sparse = world.spawn((A(4), C));
    let entity = world.entity(both).unwrap();
    assert_eq!(entity.get_components::<(&A, &B)>(), Some((&A(1), &B(2))));
    assert_eq!(entity.get_components::<(&B,)>(), Some((&B(2),)));
    assert!(world.entity(only_a).unwrap().get_components::<(&A, &B)>().is_none());
    assert!(world.entity(with_sparse).unwrap().get_components::<(&A, &C)>().is_some());
    assert_eq!(world.entity(only_a).unwrap().get_components::<&A>(), Some(&A(3)));
}

#[test]
fn resource_changed_since_clear_trackers() {
    let mut world = World::new();
    assert!(!world.is_resource_changed::<Score>(), "absent: not changed");
    world.insert_resource(Score(0));
    assert!(world.is_resource_added::<Score>() && world.is_resource_changed::<Score>());
    world.clear_trackers();
    assert!(!world.is_resource_added::<Score>() && !world.is_resource_changed::<Score>());
    world.resource_mut::<Score>().unwrap().0 = 1;
    assert!(world.is_resource_changed::<Score>() && !world.is_resource_added::<Score>());
    world.clear_trackers();
    world.insert_resource(Score(5)); // replacing is a change, not an add
    assert!(world.is_resource_changed::<Score>() && !world.is_resource_added::<Score>());
}

#[test]
fn resource_mut_tracked_counts_only_writes() {
    let mut world = World::new();
    world.insert_resource(Score(0));
    let watcher = world.register_system(|score: Res<'_, Score>| score.is_changed()).unwrap();
    assert_eq!(world.run_system(watcher), Ok(true), "first run: new");
    world.clear_trackers();
    assert_eq!(world.resource_mut_tracked::<Score>().unwrap().0, 0);
    assert!(!world.is_resource_changed::<Score>());
    assert_eq!(world.run_system(watcher), Ok(false), "a read through Mut is not a change");
    world.resource_mut_tracked::<Score>().unwrap().set_if_neq(Score(0));
    assert_eq!(world.run_system(watcher), Ok(false));
    world.resource_mut_tracked::<Score>().unwrap().0 += 2;
    assert!(world.is_resource_changed::<Score>());
    assert_eq!(world.run_system(watcher), Ok(true));
    assert!(world.resource_mut_tracked::<A>().is_err());
}

#[test]
fn mut_change_questions_are_asked_of_the_query() {
    // bevy's `Mut::is_changed` inside a loop is a `Changed` filter here (a documented
    // difference): the filter visits exactly the written rows.
    let mut world = World::new();
    let entities: Vec<_> = (0..4).map(|i| world.spawn((A(i),))).collect();
    let mut changed = world.query_filtered::<&A, Changed<A>>();
    assert_eq!(changed.iter(&world).count(), 4);
    world.get_mut::<A>(entities[2]).unwrap().0 = 9;
    assert_eq!(changed.iter(&world).map(|a| a.0).collect::<Vec<_>>(), [9]);
}
