//! Query iterators over filters decided per table know their length: `len()` equals
//! the number of items left, after every step, on both storages and in systems.

use ripple::Storage;
use ripple::prelude::*;

#[allow(dead_code, reason = "only its presence matters")]
struct Pos(u32);
struct Enemy;
struct Moving;

/// Steps `iter` to the end, checking that `len()` is the number of items left.
fn check_len<I: ExactSizeIterator>(mut iter: I) -> usize {
    let total = iter.len();
    for left in (0..total).rev() {
        assert!(iter.next().is_some(), "len promised {total} items");
        assert_eq!(iter.len(), left);
        assert_eq!(iter.size_hint(), (left, Some(left)));
    }
    assert!(iter.next().is_none(), "more items than len said");
    total
}

fn world_with(moving: Storage) -> World {
    let mut world = World::new();
    world.set_storage::<Moving>(moving).unwrap();
    for i in 0..200u32 {
        let e = world.spawn((Pos(i),));
        if i % 3 == 0 {
            world.insert_one(e, Enemy).unwrap();
        }
        if i % 7 == 0 {
            world.insert_one(e, Moving).unwrap();
        }
    }
    // An empty matched table, and holes left by despawns.
    let empty = world.spawn((Pos(0), Enemy, Moving, 5u8));
    world.despawn(empty).unwrap();
    world
}

#[test]
fn len_counts_down_to_zero() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = world_with(storage);
        assert_eq!(check_len(world.query::<&Pos>().iter(&world)), 200, "{storage:?}");
        assert_eq!(check_len(world.query_filtered::<&Pos, With<Enemy>>().iter(&world)), 67, "{storage:?}");
        assert_eq!(check_len(world.query_filtered::<&Pos, With<Moving>>().iter(&world)), 29, "{storage:?}");
        assert_eq!(check_len(world.query_filtered::<&Pos, Without<Moving>>().iter(&world)), 171, "{storage:?}");
        let both = world.query_filtered::<&Pos, (With<Enemy>, With<Moving>)>().iter(&world).count();
        assert_eq!(both, 10, "{storage:?}: multiples of 21 below 200");
        assert_eq!(check_len(world.query_filtered::<&Pos, (With<Enemy>, With<Moving>)>().iter(&world)), 10);
        let either = world.query_filtered::<Entity, Or<(With<Enemy>, With<Moving>)>>().iter(&world).count();
        assert_eq!(check_len(world.query_filtered::<Entity, Or<(With<Enemy>, With<Moving>)>>().iter(&world)), either);
        assert_eq!(either, 67 + 29 - 10, "{storage:?}");
        assert_eq!(check_len(world.query::<(&Moving, &mut Pos)>().iter_mut(&mut world)), 29, "{storage:?}");
        assert_eq!(check_len(world.query::<(&Pos, Option<&Moving>)>().iter(&world)), 200, "{storage:?}");
        assert_eq!(check_len(world.query::<&Moving>().iter(&world)), 29, "{storage:?}");
    }
}

#[test]
fn len_after_partial_iteration_and_between_runs() {
    let mut world = world_with(Storage::Table);
    let mut query = world.query_filtered::<Entity, With<Enemy>>();
    let mut iter = query.iter(&world);
    iter.by_ref().take(50).count();
    assert_eq!(iter.len(), 17);
    drop(iter); // ends the run
    let doomed: Vec<Entity> = query.iter(&world).take(7).collect();
    for e in doomed {
        world.despawn(e).unwrap();
    }
    assert_eq!(query.iter(&world).len(), 60);
}

#[derive(Default)]
struct Lens(Vec<usize>);

fn count_enemies(enemies: Query<'_, '_, &Pos, With<Enemy>>, mut lens: ResMut<'_, Lens>) {
    let iter = enemies.iter();
    let len = iter.len();
    assert_eq!(len, iter.count());
    lens.0.push(len);
}

#[test]
fn a_system_query_knows_its_length() {
    let mut world = world_with(Storage::SparseSet);
    world.insert_resource(Lens::default());
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, count_enemies).unwrap();
    schedule.run(&mut world);
    world.spawn((Pos(1), Enemy));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Lens>().unwrap().0, vec![67, 68]);
}
