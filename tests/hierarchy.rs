//! Relation errors, refused writes, and what hooks and removal streams see.

use std::sync::{Arc, Mutex};

use ripple::World;
use ripple::hierarchy::{ChildOf, Children, HierarchyError};

#[test]
fn refused_relations_name_the_problem_and_change_nothing() {
    let mut world = World::new();
    let root = world.spawn(());
    let child = world.spawn_child(root, ()).unwrap();
    let grandchild = world.spawn_child(child, ()).unwrap();
    let dead = world.spawn(());
    world.despawn(dead).unwrap();

    assert_eq!(world.set_parent(root, grandchild), Err(HierarchyError::Cycle { child: root, parent: grandchild }));
    assert_eq!(world.set_parent(child, child), Err(HierarchyError::OwnParent(child)));
    assert_eq!(world.set_parent(child, dead), Err(HierarchyError::DeadParent { child, parent: dead }));
    assert_eq!(world.set_parent(dead, root), Err(HierarchyError::NoSuchEntity(dead)));
    assert_eq!(world.spawn_child(dead, ()), Err(HierarchyError::NoSuchEntity(dead)));
    assert!(world.set_parent(root, grandchild).unwrap_err().to_string().contains("cycle"));
    assert_eq!(world.parent(root), None);
    assert_eq!(world.children(root).unwrap(), [child]);
    assert_eq!(world.children(child).unwrap(), [grandchild]);

    // A direct insert cannot return the error: it is undone and recorded.
    world.insert(root, (ChildOf(grandchild),)).unwrap();
    assert_eq!(world.parent(root), None);
    let failed: Vec<_> = world.drain_failed_commands().collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(
        failed[0].error,
        ripple::CommandFailure::Hierarchy(HierarchyError::Cycle { child: root, parent: grandchild })
    );
    world.insert(grandchild, (ChildOf(dead),)).unwrap();
    assert_eq!(world.parent(grandchild), Some(child));
    assert_eq!(world.children(child).unwrap(), [grandchild]);
}

#[test]
#[should_panic(expected = "kept by the hierarchy")]
fn a_query_writing_child_of_is_refused() {
    let mut world = World::new();
    let _ = world.query::<&mut ChildOf>();
}

#[test]
fn hooks_and_removal_streams_see_relation_changes() {
    let mut world = World::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = seen.clone();
    world.on_insert::<ChildOf>(move |ctx| log.lock().unwrap().push(("insert", ctx.entity)));
    let log = seen.clone();
    world.on_remove::<ChildOf>(move |ctx| log.lock().unwrap().push(("remove", ctx.entity)));
    let mut removed = world.removal_reader::<ChildOf>();
    let a = world.spawn(());
    let b = world.spawn(());
    let kid = world.spawn_child(a, ()).unwrap();
    world.set_parent(kid, b).unwrap();
    world.remove_parent(kid).unwrap();
    assert_eq!(*seen.lock().unwrap(), [("insert", kid), ("insert", kid), ("remove", kid)]);
    assert_eq!(removed.read(&world).map(|(e, _)| e).collect::<Vec<_>>(), [kid]);
    // Lists stay (empty) so that steady reparenting keeps their capacity.
    assert!(world.get::<Children>(a).unwrap().is_empty());
}

#[test]
fn despawning_a_parent_takes_a_deep_chain_along_and_detaching_keeps_it() {
    let mut world = World::new();
    let root = world.spawn(());
    let mut last = root;
    for _ in 0..5_000 {
        last = world.spawn_child(last, ()).unwrap();
    }
    assert_eq!(world.ancestors(last).count(), 5_000);
    world.despawn(root).unwrap();
    assert!(world.is_empty());

    let root = world.spawn(());
    let kids: Vec<_> = (0..3).map(|_| world.spawn_child(root, ()).unwrap()).collect();
    assert_eq!(world.detach_children(root), Ok(3));
    world.despawn(root).unwrap();
    assert!(kids.iter().all(|&k| world.contains(k) && world.parent(k).is_none()));
}
