//! Sparse-set storage: the choice, structural changes that move no rows, and queries,
//! change filters, hooks and removals over sparse components.

use std::sync::{Arc, Mutex};

use ripple::prelude::*;
use ripple::{ComponentError, Storage, StorageInUse};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(i32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(i32);
#[derive(Debug, PartialEq)]
struct Moving;
#[derive(Clone, Debug, PartialEq)]
struct Label(String);

fn sparse_world() -> World {
    let mut world = World::new();
    world.set_storage::<Moving>(Storage::SparseSet).unwrap();
    world.set_storage::<Label>(Storage::SparseSet).unwrap();
    world
}

fn sorted<T: Ord>(mut v: Vec<T>) -> Vec<T> {
    v.sort();
    v
}

#[test]
fn choosing_a_storage_after_first_use_is_a_typed_error() {
    let mut world = World::new();
    world.spawn((Pos(1),));
    let error = world.set_storage::<Pos>(Storage::SparseSet).unwrap_err();
    assert_eq!(
        error,
        StorageInUse {
            component: std::any::type_name::<Pos>(),
            current: Storage::Table,
            requested: Storage::SparseSet
        }
    );
    assert!(error.to_string().contains("already in use"), "{error}");
    assert_eq!(world.set_storage::<Pos>(Storage::Table), Ok(()), "the storage it has is accepted");
    world.set_storage::<Moving>(Storage::SparseSet).unwrap();
    assert_eq!(world.set_storage::<Moving>(Storage::SparseSet), Ok(()));
    assert!(world.set_storage::<Moving>(Storage::Table).is_err());
    assert_eq!(world.storage::<Moving>(), Storage::SparseSet);
    assert_eq!(world.storage::<Vel>(), Storage::Table);
}

#[test]
fn adding_and_removing_a_sparse_component_moves_no_row() {
    let mut world = sparse_world();
    let a = world.spawn((Pos(1),));
    let b = world.spawn((Pos(2), Moving));
    let tables = world.archetype_count();
    world.insert(a, (Moving,)).unwrap();
    assert_eq!(world.archetype_count(), tables, "no new table for a sparse component");
    assert!(world.entity(a).unwrap().has::<Moving>());
    assert_eq!(world.remove::<(Moving,)>(b).unwrap(), (Moving,));
    assert!(!world.entity(b).unwrap().has::<Moving>());
    assert_eq!(
        world.remove::<(Moving,)>(b),
        Err(ComponentError::MissingComponent(ripple::MissingComponent {
            entity: b,
            component: std::any::type_name::<Moving>()
        }))
    );
    assert_eq!(world.get::<Pos>(b), Ok(&Pos(2)));
    assert_eq!(world.archetype_count(), tables);
}

#[test]
fn mixed_bundles_put_each_value_where_it_lives() {
    let mut world = sparse_world();
    let e = world.spawn((Pos(1), Label("a".into()), Vel(3)));
    assert_eq!(world.get::<Label>(e), Ok(&Label("a".into())));
    assert_eq!(world.get::<Vel>(e), Ok(&Vel(3)));
    world.insert(e, (Label("b".into()), Moving)).unwrap();
    assert_eq!(world.get::<Label>(e), Ok(&Label("b".into())));
    world.get_mut::<Label>(e).unwrap().0.push('!');
    let (vel, label) = world.remove::<(Vel, Label)>(e).unwrap();
    assert_eq!((vel, label), (Vel(3), Label("b!".into())));
    assert!(world.get::<Label>(e).is_err());
    assert_eq!(world.get::<Pos>(e), Ok(&Pos(1)));
    let names: Vec<_> = world.entity(e).unwrap().component_names().collect();
    assert_eq!(names.len(), 2, "{names:?}");
    world.despawn(e).unwrap();
    let again = world.spawn((Pos(9),));
    assert!(!world.entity(again).unwrap().has::<Moving>(), "a reused slot starts with no sparse values");
}

#[test]
fn queries_visit_the_entities_that_have_sparse_components() {
    let mut world = sparse_world();
    let all: Vec<Entity> = world.spawn_batch((0..100).map(|i| (Pos(i),))).collect();
    for &e in all.iter().step_by(10) {
        world.insert(e, (Moving,)).unwrap();
    }
    world.spawn((Vel(1), Moving)); // a mover in another table
    let mut movers = world.query_filtered::<(Entity, &Pos), With<Moving>>();
    let seen = sorted(movers.iter(&world).map(|(e, _)| e).collect());
    assert_eq!(seen, all.iter().copied().step_by(10).collect::<Vec<_>>());
    let mut resting = world.query_filtered::<&Pos, Without<Moving>>();
    assert_eq!(resting.iter(&world).count(), 90);
    let mut optional = world.query::<(&Pos, Option<&Moving>)>();
    assert_eq!(optional.iter(&world).filter(|(_, m)| m.is_some()).count(), 10);
    let mut either = world.query_filtered::<Entity, Or<(With<Moving>, With<Vel>)>>();
    assert_eq!(either.iter(&world).count(), 11);
    let mut fetch = world.query::<(&Pos, &Moving)>();
    let mut count = 0;
    fetch.for_each(&world, |_| count += 1);
    assert_eq!(count, 10);
    let mut write = world.query::<(&mut Pos, &Moving)>();
    write.for_each_mut(&mut world, |(mut p, _)| p.0 += 1000);
    write.par_for_each_mut(&mut world, |(mut p, _)| p.0 += 1000);
    assert_eq!(world.get::<Pos>(all[10]), Ok(&Pos(2010)));
    assert_eq!(world.get::<Pos>(all[11]), Ok(&Pos(11)));
    assert!(fetch.get(&world, all[20]).is_ok());
    assert!(fetch.get(&world, all[21]).is_err());
    let mut labels = world.query::<&mut Label>();
    world.insert(all[3], (Label("x".into()),)).unwrap();
    for mut label in labels.iter_mut(&mut world) {
        label.0.push('y');
    }
    assert_eq!(world.get::<Label>(all[3]), Ok(&Label("xy".into())));
    assert_eq!(labels.for_each_of_mut(&mut world, &[all[3], all[4]], |mut l| l.0.push('z')), 1);
    assert_eq!(world.get::<Label>(all[3]), Ok(&Label("xyz".into())));
}

#[test]
fn change_filters_see_sparse_changes_exactly_once() {
    let mut world = sparse_world();
    let a = world.spawn((Pos(0), Label("a".into())));
    let b = world.spawn((Pos(0),));
    let mut changed = world.query_filtered::<Entity, Changed<Label>>();
    let mut added = world.query_filtered::<Entity, Added<Label>>();
    let mut dirty = world.query_filtered::<Entity, Dirty<(Label,)>>();
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [a]);
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), [a]);
    assert_eq!(dirty.iter(&world).count(), 2, "first run: everything");
    world.insert(b, (Label("b".into()),)).unwrap();
    world.get_mut::<Label>(a).unwrap().0.push('!');
    assert_eq!(sorted(changed.iter(&world).collect()), sorted(vec![a, b]));
    assert_eq!(added.iter(&world).collect::<Vec<_>>(), [b]);
    assert_eq!(sorted(dirty.iter(&world).collect()), sorted(vec![a, b]));
    assert_eq!(changed.iter(&world).count(), 0);
    assert_eq!(dirty.iter(&world).count(), 0);
    world.remove::<(Label,)>(a).unwrap();
    assert_eq!(dirty.iter(&world).collect::<Vec<_>>(), [a], "removing a listed sparse component dirties");
    assert_eq!(changed.iter(&world).count(), 0);
}

#[test]
fn hooks_and_removal_streams_see_sparse_components() {
    let mut world = sparse_world();
    let log = Arc::new(Mutex::new(Vec::new()));
    let (add, remove) = (log.clone(), log.clone());
    world.on_add::<Moving>(move |ctx| add.lock().unwrap().push(("add", ctx.entity)));
    world.on_remove::<Moving>(move |ctx| remove.lock().unwrap().push(("remove", ctx.entity)));
    let mut removals = world.removal_reader::<Moving>();
    let a = world.spawn((Pos(0), Moving));
    let b = world.spawn((Pos(0),));
    world.insert(b, (Moving,)).unwrap();
    world.insert(b, (Moving,)).unwrap(); // replaced, not added
    world.remove::<(Moving,)>(a).unwrap();
    world.despawn(b).unwrap();
    assert_eq!(*log.lock().unwrap(), [("add", a), ("add", b), ("remove", a), ("remove", b)]);
    let removed: Vec<Entity> = removals.read(&world).map(|(e, _)| e).collect();
    assert_eq!(removed, [a, b]);
}

#[test]
fn commands_insert_and_remove_sparse_components() {
    let mut world = sparse_world();
    let e = world.spawn((Pos(0),));
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut world, move |mut commands: Commands<'_, '_>, movers: Query<'_, '_, Entity, With<Moving>>| {
            if movers.iter().count() == 0 {
                commands.insert(e, (Moving,));
            } else {
                commands.remove::<(Moving,)>(e);
            }
        })
        .unwrap();
    schedule.run(&mut world);
    assert!(world.entity(e).unwrap().has::<Moving>());
    schedule.run(&mut world);
    assert!(!world.entity(e).unwrap().has::<Moving>());
}

#[test]
fn clear_empties_the_sparse_sets() {
    let mut world = sparse_world();
    let mut removals = world.removal_reader::<Label>();
    world.spawn((Pos(0), Label("a".into())));
    world.clear();
    assert_eq!(removals.read(&world).count(), 1);
    let mut labels = world.query::<&Label>();
    assert_eq!(labels.iter(&world).count(), 0);
}

#[test]
fn a_query_starting_from_a_set_still_tests_what_else_it_names() {
    let mut world = sparse_world();
    let plain = world.spawn((Pos(0), Moving));
    let fast = world.spawn((Pos(1), Vel(1), Moving));
    world.spawn((Pos(2), Vel(2)));
    let mut both = world.query_filtered::<Entity, (With<Moving>, Or<(Without<Moving>, With<Vel>)>)>();
    assert_eq!(both.iter(&world).collect::<Vec<_>>(), [fast]);
    let mut moving = world.query_filtered::<Entity, With<Moving>>();
    assert_eq!(sorted(moving.iter(&world).collect()), sorted(vec![plain, fast]));
    let mut with_vel = world.query_filtered::<Entity, (With<Moving>, With<Vel>)>();
    assert_eq!(with_vel.iter(&world).collect::<Vec<_>>(), [fast]);
}
