//! Observers that fall further behind than the world's change-log limit: the world
//! forgets the oldest records and the observer knows it. A `Dirty` observer then
//! reports every matching entity (a superset of what it must), whatever the storage of
//! its components; a removal reader, in a system or stand-alone, counts what it missed.

use ripple::Storage;
use ripple::prelude::*;
use ripple::query::Dirty;

#[derive(Debug, PartialEq)]
struct Pos(u32);
struct Moving;

const LIMIT: usize = 64;

fn dirty_past_the_limit(storage: Storage) {
    let mut world = World::new();
    world.set_storage::<Moving>(storage).unwrap();
    world.set_change_log_limit(LIMIT);
    let all: Vec<Entity> = (0..200).map(|i| world.spawn((Pos(i),))).collect();
    let mut dirty = world.query_filtered::<Entity, Dirty<(Moving,)>>();
    assert_eq!(dirty.iter(&world).count(), 200, "a first run takes everything");

    // Within the limit: exact.
    world.insert(all[5], (Moving,)).unwrap();
    assert_eq!(dirty.iter(&world).collect::<Vec<_>>(), [all[5]]);

    // Past it: the toggles of a few entities, many times over, push the log beyond
    // what it keeps; the observer reports every matching entity.
    for round in 0..10 * LIMIT {
        let e = all[round % 7];
        if world.entity(e).unwrap().has::<Moving>() {
            world.remove_one::<Moving>(e).unwrap();
        } else {
            world.insert_one(e, Moving).unwrap();
        }
    }
    assert!(world.backlog_memory().structural_changes.records <= LIMIT);
    let mut reported = dirty.iter(&world).collect::<Vec<_>>();
    reported.sort();
    let mut expected = all.clone();
    expected.sort();
    assert_eq!(reported, expected, "{storage:?}: an observer that fell behind takes every matching entity");

    // And exact again once caught up.
    if world.remove_one::<Moving>(all[5]).is_err() {
        world.insert_one(all[5], Moving).unwrap();
    }
    assert_eq!(dirty.iter(&world).collect::<Vec<_>>(), [all[5]]);
}

#[test]
fn a_dirty_observer_past_the_limit_reports_every_matching_entity_with_table_storage() {
    dirty_past_the_limit(Storage::Table);
}

#[test]
fn a_dirty_observer_past_the_limit_reports_every_matching_entity_with_sparse_storage() {
    dirty_past_the_limit(Storage::SparseSet);
}

#[test]
fn a_dirty_query_over_sparse_data_past_the_limit_reports_every_matching_entity() {
    let mut world = World::new();
    world.set_storage::<Moving>(Storage::SparseSet).unwrap();
    world.set_change_log_limit(LIMIT);
    let all: Vec<Entity> = (0..100).map(|i| world.spawn((Pos(i), Moving))).collect();
    let mut dirty = world.query_filtered::<(Entity, &Moving), Dirty<(Pos,)>>();
    assert_eq!(dirty.iter(&world).count(), 100);
    for &e in &all[..LIMIT] {
        world.remove_one::<Pos>(e).unwrap();
        world.insert_one(e, Pos(0)).unwrap();
    }
    assert_eq!(dirty.iter(&world).count(), 100, "every entity with Moving, as a first run");
    world.get_mut::<Pos>(all[99]).unwrap().0 += 1;
    assert_eq!(dirty.iter(&world).map(|(e, _)| e).collect::<Vec<_>>(), [all[99]]);
}

#[derive(Default)]
struct Seen {
    removals: usize,
    missed: u64,
}

#[test]
fn a_disabled_system_that_falls_past_the_limit_counts_the_removals_it_missed() {
    fn count(mut removed: Removed<'_, '_, Pos>, mut seen: ResMut<'_, Seen>) {
        let removals = removed.read();
        seen.missed += removals.missed();
        seen.removals += removals.count();
    }
    let mut world = World::new();
    world.set_change_log_limit(LIMIT);
    world.insert_resource(Seen::default());
    let mut schedule = Schedule::new();
    let id = schedule.add_system(&mut world, count).unwrap();
    schedule.set_enabled(id, false).unwrap();
    for i in 0..1_000 {
        let e = world.spawn((Pos(i),));
        world.despawn(e).unwrap();
    }
    schedule.set_enabled(id, true).unwrap();
    schedule.run(&mut world);
    let seen = world.resource::<Seen>().unwrap();
    assert!(seen.missed > 0 && seen.removals <= LIMIT);
    assert_eq!(seen.missed + seen.removals as u64, 1_000, "every removal read or counted");
}
