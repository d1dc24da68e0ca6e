//! `Ref<T>`: a read that tells, per item, whether the value was added or changed
//! since the query (or the system) last ran — on both storages, through every kind of
//! run, in systems that are disabled and catch up.

use ripple::Storage;
use ripple::prelude::*;

#[derive(Debug, PartialEq)]
struct Pos(u32);
struct Marker;

/// The entities whose `Pos` the run reports as (added, changed), sorted.
fn flags(world: &World, query: &mut QueryState<(Entity, Ref<'_, Pos>)>) -> (Vec<Entity>, Vec<Entity>) {
    let (mut added, mut changed) = (Vec::new(), Vec::new());
    for (entity, pos) in query.iter(world) {
        if pos.is_added() {
            added.push(entity);
        }
        if pos.is_changed() {
            changed.push(entity);
        }
    }
    added.sort();
    changed.sort();
    (added, changed)
}

fn sorted(mut entities: Vec<Entity>) -> Vec<Entity> {
    entities.sort();
    entities
}

#[test]
fn ref_reports_added_and_changed_since_the_last_run() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = World::new();
        world.set_storage::<Pos>(storage).unwrap();
        let a = world.spawn((Pos(0),));
        let b = world.spawn((Pos(0), Marker));
        assert!(!world.is_tracked::<Pos>());
        let mut query = world.query::<(Entity, Ref<'_, Pos>)>();
        assert!(world.is_tracked::<Pos>(), "{storage:?}: Ref turns tracking on");

        let all = sorted(vec![a, b]);
        assert_eq!(flags(&world, &mut query), (all.clone(), all), "{storage:?}: first run sees all as new");
        assert_eq!(flags(&world, &mut query), (vec![], vec![]), "{storage:?}: nothing since");

        world.get_mut::<Pos>(b).unwrap().0 = 7;
        let c = world.spawn((Pos(1),));
        world.insert_one(a, Pos(3)).unwrap(); // overwriting insert: a change, not an add
        assert_eq!(flags(&world, &mut query), (vec![c], sorted(vec![a, b, c])), "{storage:?}");

        world.mark_changed::<Pos>(c).unwrap();
        let (_, changed) = flags(&world, &mut query);
        assert_eq!(changed, vec![c], "{storage:?}: mark_changed counts");
        let values: Vec<u32> = query.iter(&world).map(|(_, pos)| pos.into_inner().0).collect();
        assert_eq!(sorted_u32(values), vec![1, 3, 7], "{storage:?}: Ref derefs to the value");
    }
}

fn sorted_u32(mut values: Vec<u32>) -> Vec<u32> {
    values.sort();
    values
}

#[test]
fn every_kind_of_run_sees_the_same_flags() {
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..300).map(|i| (Pos(i),))).collect();
    let mut by_iter = world.query::<(Entity, Ref<'_, Pos>)>();
    let mut by_for_each = world.query::<(Entity, Ref<'_, Pos>)>();
    let mut by_par = world.query::<(Entity, Ref<'_, Pos>)>();
    let run_all = |world: &World,
                   by_iter: &mut QueryState<(Entity, Ref<'_, Pos>)>,
                   by_for_each: &mut QueryState<(Entity, Ref<'_, Pos>)>,
                   by_par: &mut QueryState<(Entity, Ref<'_, Pos>)>| {
        let iter = flags(world, by_iter).1;
        let mut for_each = Vec::new();
        by_for_each.for_each(world, |(e, pos)| {
            if pos.is_changed() {
                for_each.push(e);
            }
        });
        let par = std::sync::Mutex::new(Vec::new());
        by_par.par_for_each(world, |(e, pos)| {
            if pos.is_changed() {
                par.lock().unwrap().push(e);
            }
        });
        (iter, sorted(for_each), sorted(par.into_inner().unwrap()))
    };
    let (iter, for_each, par) = run_all(&world, &mut by_iter, &mut by_for_each, &mut by_par);
    assert_eq!((iter.len(), for_each.len(), par.len()), (300, 300, 300));
    let written = [entities[3], entities[64], entities[299]];
    for &e in &written {
        world.get_mut::<Pos>(e).unwrap().0 += 1;
    }
    let (iter, for_each, par) = run_all(&world, &mut by_iter, &mut by_for_each, &mut by_par);
    assert_eq!(iter, sorted(written.to_vec()));
    assert_eq!(for_each, iter);
    assert_eq!(par, iter);
}

#[test]
fn get_is_not_a_run_and_compares_with_the_last_one() {
    let mut world = World::new();
    let a = world.spawn((Pos(0),));
    let mut query = world.query::<Ref<'_, Pos>>();
    assert!(query.get(&world, a).unwrap().is_changed(), "never ran: everything is new");
    query.iter(&world).count();
    assert!(!query.get(&world, a).unwrap().is_changed());
    world.get_mut::<Pos>(a).unwrap().0 = 2;
    assert!(query.get(&world, a).unwrap().is_changed());
    assert!(query.get(&world, a).unwrap().is_changed(), "get does not move the query's memory");
    query.iter(&world).count();
    assert!(!query.get(&world, a).unwrap().is_changed());
}

#[test]
fn optional_ref_and_a_filter() {
    let mut world = World::new();
    let with = world.spawn((Pos(0), Marker));
    let without = world.spawn((Marker,));
    let mut query = world.query_filtered::<(Entity, Option<Ref<'_, Pos>>), With<Marker>>();
    let first: Vec<(Entity, Option<bool>)> =
        query.iter(&world).map(|(e, pos)| (e, pos.map(|p| p.is_changed()))).collect();
    assert_eq!(sorted_pairs(first), sorted_pairs(vec![(with, Some(true)), (without, None)]));
    let second: Vec<(Entity, Option<bool>)> =
        query.iter(&world).map(|(e, pos)| (e, pos.map(|p| p.is_changed()))).collect();
    assert_eq!(sorted_pairs(second), sorted_pairs(vec![(with, Some(false)), (without, None)]));
}

fn sorted_pairs(mut pairs: Vec<(Entity, Option<bool>)>) -> Vec<(Entity, Option<bool>)> {
    pairs.sort();
    pairs
}

#[derive(Default)]
struct Seen(Vec<Vec<Entity>>);

fn watch(positions: Query<'_, '_, (Entity, Ref<'_, Pos>)>, mut seen: ResMut<'_, Seen>) {
    let changed = positions.iter().filter(|(_, pos)| pos.is_changed()).map(|(e, _)| e).collect();
    seen.0.push(sorted(changed));
}

fn nudge(mut positions: Query<'_, '_, &mut Pos>) {
    positions.for_each_mut(|mut pos| {
        if pos.0 % 2 == 0 {
            pos.0 += 2;
        }
    });
}

#[test]
fn a_system_sees_changes_since_its_own_last_run_and_catches_up_when_enabled() {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let even = world.spawn((Pos(0),));
    let odd = world.spawn((Pos(1),));
    let mut schedule = Schedule::new();
    let watcher = schedule.add_system(&mut world, watch).unwrap();
    schedule.add_system(&mut world, nudge.after(watcher)).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    let both = sorted(vec![even, odd]);
    assert_eq!(world.resource::<Seen>().unwrap().0, vec![both.clone(), vec![even]]);

    schedule.set_enabled(watcher, false).unwrap();
    schedule.run(&mut world);
    world.get_mut::<Pos>(odd).unwrap().0 = 5;
    schedule.run(&mut world);
    schedule.set_enabled(watcher, true).unwrap();
    schedule.run(&mut world);
    let seen = &world.resource::<Seen>().unwrap().0;
    assert_eq!(seen.len(), 3, "the disabled system did not run");
    assert_eq!(seen[2], both, "it catches up with what it missed while disabled");
}
