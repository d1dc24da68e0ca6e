//! Query behaviour: fetch kinds, filters, get, incremental archetypes, parallel
//! iteration, predicate helpers.

use std::sync::atomic::{AtomicUsize, Ordering};

use ripple::query::{Or, With, Without};
use ripple::{Entity, QueryEntityError, World};

#[derive(Debug, PartialEq, Clone, Copy)]
struct A(u32);
#[derive(Debug, PartialEq, Clone, Copy)]
struct B(u32);
#[derive(Debug, PartialEq, Clone, Copy)]
struct C(u32);

#[test]
fn state_picks_up_new_archetypes() {
    let mut world = World::new();
    let mut q = world.query::<&A>();
    assert_eq!(q.iter(&world).count(), 0);
    world.spawn((A(1),));
    world.spawn((A(2), B(0)));
    assert_eq!(q.iter(&world).count(), 2);
    world.spawn((C(0), A(3)));
    let mut got: Vec<_> = q.iter(&world).map(|a| a.0).collect();
    got.sort();
    assert_eq!(got, [1, 2, 3]);
    assert_eq!(q.matched_archetypes(), 3);
}

#[test]
fn optional_fetches() {
    let mut world = World::new();
    let x = world.spawn((A(1), B(10)));
    let y = world.spawn((A(2),));
    let mut q = world.query::<(Entity, &A, Option<&mut B>)>();
    q.for_each_mut(&mut world, |(_, a, b)| {
        if let Some(mut b) = b {
            b.0 += a.0;
        }
    });
    assert_eq!(world.get::<B>(x), Ok(&B(11)));
    let mut q = world.query::<(Entity, Option<&B>)>();
    assert_eq!(q.get(&world, y).unwrap(), (y, None));
    assert_eq!(q.get(&world, x).unwrap(), (x, Some(&B(11))));
}

#[test]
fn filters_compose() {
    let mut world = World::new();
    world.spawn((A(0),));
    world.spawn((A(1), B(0)));
    world.spawn((A(2), C(0)));
    world.spawn((A(3), B(0), C(0)));
    world.spawn((B(0),));
    let ids = |world: &mut World, f: &mut dyn FnMut(&mut World) -> Vec<u32>| {
        let mut v = f(world);
        v.sort();
        v
    };
    assert_eq!(ids(&mut world, &mut |w| w.query_filtered::<&A, With<B>>().iter(w).map(|a| a.0).collect()), [1, 3]);
    assert_eq!(
        ids(&mut world, &mut |w| w.query_filtered::<&A, (With<B>, Without<C>)>().iter(w).map(|a| a.0).collect()),
        [1]
    );
    assert_eq!(
        ids(&mut world, &mut |w| w.query_filtered::<&A, Or<(With<B>, With<C>)>>().iter(w).map(|a| a.0).collect()),
        [1, 2, 3]
    );
    assert_eq!(
        ids(&mut world, &mut |w| {
            w.query_filtered::<&A, (Without<B>, Or<(With<C>, Without<C>)>)>().iter(w).map(|a| a.0).collect()
        }),
        [0, 2]
    );
}

#[test]
fn get_reports_mismatch() {
    let mut world = World::new();
    let e = world.spawn((A(0),));
    let mut q = world.query_filtered::<&A, With<B>>();
    assert!(matches!(q.get(&world, e), Err(QueryEntityError::DoesNotMatch { entity, .. }) if entity == e));
    world.insert(e, (B(1),)).unwrap();
    assert_eq!(q.get(&world, e), Ok(&A(0)));
    let mut m = world.query::<&mut A>();
    m.get_mut(&mut world, e).unwrap().0 = 7;
    assert_eq!(world.get::<A>(e), Ok(&A(7)));
}

#[test]
fn iterator_and_for_each_agree() {
    let mut world = World::new();
    for i in 0..1000 {
        match i % 3 {
            0 => world.spawn((A(i),)),
            1 => world.spawn((A(i), B(i))),
            _ => world.spawn((C(i), A(i))),
        };
    }
    let mut q = world.query::<&A>();
    let by_iter: u64 = q.iter(&world).map(|a| u64::from(a.0)).sum();
    let mut by_each = 0u64;
    q.for_each(&world, |a| by_each += u64::from(a.0));
    let by_fold = q.iter(&world).fold(0u64, |acc, a| acc + u64::from(a.0));
    let mut it = q.iter(&world);
    let first = u64::from(it.next().unwrap().0);
    let rest = it.fold(first, |acc, a| acc + u64::from(a.0));
    assert_eq!(by_iter, (0..1000u64).sum::<u64>());
    assert_eq!(by_each, by_iter);
    assert_eq!(by_fold, by_iter);
    assert_eq!(rest, by_iter);
}

#[test]
fn par_for_each_visits_every_row_once() {
    let mut world = World::new();
    world.spawn_batch((0..50_000).map(|i| (A(i), B(0))));
    world.spawn_batch((0..3_000).map(|i| (A(i),)));
    let mut q = world.query::<(&A, &mut B)>();
    q.par_for_each_mut(&mut world, |(a, mut b)| b.0 += a.0 + 1);
    q.par_for_each_mut(&mut world, |(_, mut b)| b.0 += 1);
    let mut check = world.query::<&B>();
    let mut values: Vec<_> = check.iter(&world).map(|b| b.0).collect();
    values.sort();
    assert_eq!(values, (2..50_002).collect::<Vec<_>>());
    let count = AtomicUsize::new(0);
    world.query::<&A>().par_for_each(&world, |_| {
        count.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(count.into_inner(), 53_000);
}

#[test]
fn par_for_each_visits_small_and_odd_tables_whole() {
    // Tables shorter than one parallel task, and lengths that halve unevenly.
    for len in [1, 2, 7, 8, 9, 63, 65, 1_001] {
        let mut world = World::new();
        world.spawn_batch((0..len).map(|i| (A(i), B(0))));
        let mut q = world.query::<(&A, &mut B)>();
        q.par_for_each_mut(&mut world, |(a, mut b)| b.0 += a.0 + 1);
        let mut values: Vec<_> = world.query::<&B>().iter(&world).map(|b| b.0).collect();
        values.sort();
        assert_eq!(values, (1..=len).collect::<Vec<_>>(), "{len} rows");
    }
}

/// A tag that puts its entities in a table of their own.
struct Table<const N: usize>;

#[test]
fn par_for_each_claims_span_tables_of_every_size() {
    // Tables of 1, 0 (emptied), 3, 1,000, 9, 0, 40 and 1 rows: the threads' claims
    // start and end inside tables and run across several short ones.
    let mut world = World::new();
    let mut next = 0;
    let mut fill = |world: &mut World, rows: u32, spawn: &dyn Fn(&mut World, u32) -> Entity| {
        let entities: Vec<Entity> = (next..next + rows.max(1)).map(|i| spawn(world, i)).collect();
        next += rows.max(1);
        if rows == 0 {
            entities.into_iter().for_each(|e| world.despawn(e).unwrap());
        }
    };
    fill(&mut world, 1, &|w, i| w.spawn((A(i), B(0), Table::<0>)));
    fill(&mut world, 0, &|w, i| w.spawn((A(i), B(0), Table::<1>)));
    fill(&mut world, 3, &|w, i| w.spawn((A(i), B(0), Table::<2>)));
    fill(&mut world, 1_000, &|w, i| w.spawn((A(i), B(0), Table::<3>)));
    fill(&mut world, 9, &|w, i| w.spawn((A(i), B(0), Table::<4>)));
    fill(&mut world, 0, &|w, i| w.spawn((A(i), B(0), Table::<5>)));
    fill(&mut world, 40, &|w, i| w.spawn((A(i), B(0), Table::<6>)));
    fill(&mut world, 1, &|w, i| w.spawn((A(i), B(0), Table::<7>)));
    assert_eq!(world.len(), 1_054);

    let mut q = world.query::<(&A, &mut B)>();
    for pass in 1..=3 {
        q.par_for_each_mut(&mut world, |(a, mut b)| b.0 += a.0 + 1);
        assert!(world.query::<(&A, &B)>().iter(&world).all(|(a, b)| b.0 == pass * (a.0 + 1)), "pass {pass}");
    }

    // A filter tested row by row (a change filter's first run), then gathered
    // candidates spread over the tables.
    let mut changed = world.query_filtered::<Entity, ripple::query::Changed<B>>();
    let visited = AtomicUsize::new(0);
    changed.par_for_each(&world, |_| {
        visited.fetch_add(1, Ordering::Relaxed);
    });
    assert_eq!(visited.swap(0, Ordering::Relaxed), 1_054);
    let marked: Vec<Entity> =
        world.query::<(Entity, &A)>().iter(&world).filter(|(_, a)| a.0 % 7 == 0).map(|(e, _)| e).collect();
    for &e in &marked {
        world.get_mut::<B>(e).unwrap().0 = 0;
    }
    let seen = std::sync::Mutex::new(Vec::new());
    changed.par_for_each(&world, |e| seen.lock().unwrap().push(e));
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    let mut marked = marked;
    marked.sort();
    assert_eq!(seen, marked);
}

#[test]
fn predicate_helpers() {
    let mut world = World::new();
    world.spawn_batch((0..100).map(|i| (A(i),)));
    let mut q = world.query::<&A>();
    assert_eq!(q.iter_where(&world, |a| a.0 % 10 == 0).count(), 10);
    assert_eq!(q.despawn_where(&mut world, |a| a.0 >= 50), 50);
    assert_eq!(world.len(), 50);
    assert!(q.iter(&world).all(|a| a.0 < 50));
}

#[test]
fn spawn_batch_yields_handles_lazily() {
    let mut world = World::new();
    let mut batch = world.spawn_batch((0..10).map(|i| (A(i),)));
    let first = batch.next().unwrap();
    drop(batch);
    assert_eq!(world.len(), 10);
    assert_eq!(world.get::<A>(first), Ok(&A(0)));
    let ids: Vec<_> = world.spawn_batch((0..5).map(|i| (A(100 + i), B(i)))).collect();
    for (i, e) in ids.iter().enumerate() {
        assert_eq!(world.get::<B>(*e), Ok(&B(i as u32)));
    }
}

#[test]
fn a_consumed_batch_spawns_nothing_an_unfused_iterator_yields_after_its_end() {
    // Yields two bundles, `None`, then one more (and so on): not fused.
    let unfused = || {
        let mut calls = 0;
        std::iter::from_fn(move || {
            calls += 1;
            (calls != 3).then_some((A(calls),))
        })
    };
    let mut world = World::new();
    let spawned = world.spawn_batch(unfused()).count();
    assert_eq!((spawned, world.len()), (2, 2));
    // The same through the path that runs hooks one entity at a time.
    let mut hooked = World::new();
    hooked.on_add::<A>(|_| {});
    let spawned = hooked.spawn_batch(unfused()).count();
    assert_eq!((spawned, hooked.len()), (2, 2));
}

#[test]
fn empty_entities_and_empty_query() {
    let mut world = World::new();
    let e = world.spawn(());
    assert!(world.contains(e));
    let mut all = world.query::<Entity>();
    assert_eq!(all.iter(&world).collect::<Vec<_>>(), [e]);
    let mut unit = world.query::<()>();
    assert_eq!(unit.iter(&world).count(), 1);
    world.insert(e, (A(1),)).unwrap();
    world.remove::<(A,)>(e).unwrap();
    assert_eq!(world.remove::<()>(e), Ok(()));
    assert_eq!(all.iter(&world).count(), 1);
}
