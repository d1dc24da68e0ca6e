//! `for_each_of_mut` visits a list of entities in the order given. Writes to a tracked
//! column are recorded row by row, through a cursor into the column's change list that
//! is handed to the list when the visit leaves a table: whatever the order (rows out of
//! order, tables alternating, entities repeated, dead or not matching), exactly the
//! rows written must read as changed, also when the closure panics part-way.

use std::collections::{BTreeMap, BTreeSet};

use ripple::query::Changed;
use ripple::{Entity, World};

#[derive(Debug, PartialEq, Clone, Copy)]
struct Pos(u32);
#[derive(Debug, PartialEq, Clone, Copy)]
struct Vel(u32);
struct Tag;
struct Unmatched;

/// 300 entities in one table and 100 in another (with `Tag`), one that the query does
/// not match, and one dead entity.
fn world() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let mut entities: Vec<Entity> = (0..300).map(|i| world.spawn((Pos(0), Vel(i)))).collect();
    entities.extend((300..400).map(|i| world.spawn((Pos(0), Vel(i), Tag))));
    entities.push(world.spawn((Unmatched,)));
    let dead = world.spawn((Pos(0), Vel(7)));
    world.despawn(dead).unwrap();
    entities.push(dead);
    (world, entities)
}

/// A list of `len` entities drawn from `entities` in a scrambled order (with repeats).
fn scrambled(entities: &[Entity], len: usize, seed: u64) -> Vec<Entity> {
    let mut state = seed;
    (0..len)
        .map(|_| {
            state = state.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            entities[(state >> 33) as usize % entities.len()]
        })
        .collect()
}

/// The entities whose `Pos` the observer reports changed.
fn changed(world: &World, observer: &mut ripple::query::QueryState<Entity, Changed<Pos>>) -> BTreeSet<Entity> {
    observer.iter(world).collect()
}

#[test]
fn marks_exactly_the_rows_written_in_any_order() {
    for (seed, len) in [(1, 50), (2, 400), (3, 1_000)] {
        let (mut world, entities) = world();
        let mut observer = world.query_filtered::<Entity, Changed<Pos>>();
        changed(&world, &mut observer);
        let list = scrambled(&entities, len, seed);
        // In row order too: long runs within one leaf.
        let mut sorted = list.clone();
        sorted.sort_by_key(|e| e.index());
        for list in [list, sorted] {
            let mut query = world.query::<(Entity, &Vel, &mut Pos)>();
            let mut written = BTreeSet::new();
            let mut writes: BTreeMap<Entity, u32> = BTreeMap::new();
            let before: BTreeMap<Entity, u32> =
                entities.iter().filter_map(|&e| world.get::<Pos>(e).ok().map(|p| (e, p.0))).collect();
            let visited = query.for_each_of_mut(&mut world, &list, |(e, vel, mut pos)| {
                if vel.0 % 3 == 0 {
                    pos.0 += 1;
                    written.insert(e);
                    *writes.entry(e).or_default() += 1;
                } else {
                    std::hint::black_box(pos.0);
                }
            });
            let matching = list.iter().filter(|&&e| world.get::<Vel>(e).is_ok() && world.get::<Unmatched>(e).is_err());
            assert_eq!(visited, matching.count());
            assert_eq!(changed(&world, &mut observer), written, "seed {seed}, {len} entities");
            for (e, count) in writes {
                assert_eq!(
                    world.get::<Pos>(e).unwrap().0,
                    before[&e] + count,
                    "a repeated entity is written each time"
                );
            }
        }
    }
}

#[test]
fn a_panic_part_way_keeps_the_rows_written_before_it() {
    for stop in [0, 1, 37, 200] {
        let (mut world, entities) = world();
        let mut observer = world.query_filtered::<Entity, Changed<Pos>>();
        changed(&world, &mut observer);
        let list = scrambled(&entities, 300, 7);
        let mut query = world.query::<(Entity, &Vel, &mut Pos)>();
        let mut written = BTreeSet::new();
        let mut calls = 0;
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            query.for_each_of_mut(&mut world, &list, |(e, vel, mut pos)| {
                if calls == stop {
                    panic!("stop after {stop} items");
                }
                calls += 1;
                if vel.0 % 2 == 0 {
                    pos.0 += 1;
                    written.insert(e);
                }
            });
        }));
        assert!(outcome.is_err());
        assert_eq!(changed(&world, &mut observer), written, "stopped after {stop} items");
    }
}

#[test]
fn a_change_filter_with_an_entity_listed_twice_visits_it_twice() {
    let (mut world, entities) = world();
    let mut observer = world.query_filtered::<Entity, Changed<Pos>>();
    changed(&world, &mut observer);
    // A per-row filter on the written column: the list's visits follow the filter,
    // and every visit writes.
    let mut changed_only = world.query_filtered::<&mut Pos, Changed<Pos>>();
    changed_only.for_each_mut(&mut world, |_| {});
    let list = [entities[3], entities[3], entities[4]];
    let visited = changed_only.for_each_of_mut(&mut world, &list, |mut pos| pos.0 += 1);
    assert_eq!(visited, 0, "nothing changed since the filter's last run");
    world.get_mut::<Pos>(entities[3]).unwrap().0 += 1;
    let visited = changed_only.for_each_of_mut(&mut world, &list, |mut pos| pos.0 += 1);
    assert_eq!(visited, 2, "entities[3], twice; entities[4] is unchanged");
    assert_eq!(world.get::<Pos>(entities[3]), Ok(&Pos(3)));
}

#[test]
fn two_tracked_columns_are_both_marked() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..130).map(|i| world.spawn((Pos(i), Vel(i)))).collect();
    let mut pos_observer = world.query_filtered::<Entity, Changed<Pos>>();
    let mut vel_observer = world.query_filtered::<Entity, Changed<Vel>>();
    pos_observer.iter(&world).count();
    vel_observer.iter(&world).count();
    let list: Vec<Entity> = entities.iter().rev().step_by(3).copied().collect();
    let mut query = world.query::<(&mut Vel, &mut Pos)>();
    query.for_each_of_mut(&mut world, &list, |(mut vel, pos)| {
        vel.0 += 1;
        std::hint::black_box(pos.0);
    });
    let expected: BTreeSet<Entity> = list.iter().copied().collect();
    assert_eq!(vel_observer.iter(&world).collect::<BTreeSet<_>>(), expected);
    assert!(pos_observer.iter(&world).next().is_none(), "Pos was only read");
}

#[test]
fn a_panic_in_a_sorted_list_stamps_the_open_leaf() {
    let (mut world, entities) = world();
    let mut observer = world.query_filtered::<Entity, Changed<Pos>>();
    changed(&world, &mut observer);
    let mut query = world.query::<(Entity, &mut Pos)>();
    let mut written = BTreeSet::new();
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        query.for_each_of_mut(&mut world, &entities, |(e, mut pos)| {
            if written.len() == 100 {
                panic!("stop in the second leaf");
            }
            pos.0 += 1;
            written.insert(e);
        });
    }));
    assert!(outcome.is_err());
    assert_eq!(changed(&world, &mut observer), written);
}
