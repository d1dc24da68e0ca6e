//! Whole entities in queries as bevy_ecs users write them: `Query<EntityRef>`,
//! `EntityMutExcept` (bevy's `Query<EntityMut>` is `EntityMutExcept<()>`) and
//! `EntityRefExcept`, with their accesses kept apart from other queries'.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use ripple::hierarchy::ChildOf;
use ripple::query::{Changed, EntityMutExcept, EntityRefExcept, With, Without};
use ripple::schedule::Schedule;
use ripple::system::{OneShotError, Query};
use ripple::{EntityRef, Storage, World};

#[derive(Debug, PartialEq)]
struct A(u32);
#[derive(Debug, PartialEq)]
struct B(u32);
struct Marker;
struct Sparse(u32);

#[test]
fn query_entity_ref_reads_every_component() {
    let mut world = World::new();
    let a = world.spawn((A(1),));
    let ab = world.spawn((A(2), B(3)));
    let mut query = world.query::<EntityRef>();
    let mut seen: Vec<(u32, Option<u32>)> =
        query.iter(&world).map(|e| (e.get::<A>().unwrap().0, e.get::<B>().map(|b| b.0))).collect();
    seen.sort();
    assert_eq!(seen, [(1, None), (2, Some(3))]);
    let ids: Vec<_> = query.iter(&world).map(|e| e.id()).collect();
    assert!(ids.contains(&a) && ids.contains(&ab));
    let mut filtered = world.query_filtered::<EntityRef, With<B>>();
    assert_eq!(filtered.iter(&world).map(|e| e.id()).collect::<Vec<_>>(), [ab]);
    let (b,) = filtered.iter(&world).next().unwrap().get_components::<(&B,)>().unwrap();
    assert_eq!(b, &B(3));
}

#[test]
fn entity_ref_with_a_write_of_the_same_query_is_refused() {
    let mut world = World::new();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.query::<(EntityRef, &mut A)>();
    }));
    let message = *caught.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("every component"), "{message}");
    // Excepting the written component makes it legal.
    let e = world.spawn((A(1), B(2)));
    let mut query = world.query::<(EntityRefExcept<(A,)>, &mut A)>();
    query.for_each_mut(&mut world, |(rest, mut a)| {
        assert!(rest.get::<A>().is_none(), "excepted");
        a.0 += rest.get::<B>().unwrap().0;
    });
    assert_eq!(world.get::<A>(e).unwrap(), &A(3));
}

#[test]
fn entity_mut_writes_are_tracked_in_tables_and_sparse_sets() {
    let mut world = World::new();
    world.set_storage::<Sparse>(Storage::SparseSet).unwrap();
    let e = world.spawn((A(1), Sparse(1)));
    world.spawn((B(1),));
    let mut changed_a = world.query_filtered::<ripple::Entity, Changed<A>>();
    let mut changed_sparse = world.query_filtered::<ripple::Entity, Changed<Sparse>>();
    assert_eq!(changed_a.iter(&world).count(), 1);
    assert_eq!(changed_sparse.iter(&world).count(), 1);
    let mut all = world.query::<EntityMutExcept<()>>();
    all.for_each_mut(&mut world, |mut entity| {
        if let Some(mut sparse) = entity.get_mut::<Sparse>() {
            sparse.0 = 7;
        }
        // Read only: no change.
        let _ = entity.get_mut::<A>().map(|a| a.0);
    });
    assert_eq!(changed_a.iter(&world).count(), 0, "a read through get_mut is not a write");
    assert_eq!(changed_sparse.iter(&world).collect::<Vec<_>>(), [e]);
    all.par_for_each_mut(&mut world, |mut entity| {
        if let Some(mut a) = entity.get_mut::<A>() {
            a.0 += 1;
        }
    });
    assert_eq!(changed_a.iter(&world).collect::<Vec<_>>(), [e]);
    assert_eq!(world.get::<A>(e).unwrap(), &A(2));
}

#[test]
fn entity_mut_except_hides_the_excepted_components() {
    let mut world = World::new();
    let e = world.spawn((A(1), B(1)));
    let mut query = world.query::<(EntityMutExcept<(B,)>, &B)>();
    query.for_each_mut(&mut world, |(mut rest, b)| {
        assert!(rest.get_mut::<B>().is_none());
        assert!(rest.get::<B>().is_none());
        assert!(rest.has::<B>());
        rest.get_mut::<A>().unwrap().0 += b.0;
    });
    assert_eq!(world.get::<A>(e).unwrap(), &A(2));
}

#[test]
fn entity_mut_refuses_to_write_relations() {
    let mut world = World::new();
    let parent = world.spawn((Marker,));
    world.spawn((ChildOf(parent),));
    let mut query = world.query::<EntityMutExcept<()>>();
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        query.for_each_mut(&mut world, |mut entity| {
            let _ = entity.get_mut::<ChildOf>();
        });
    }));
    assert!(caught.is_err());
}

#[test]
fn systems_with_whole_entity_queries_conflict_as_they_should() {
    let mut world = World::new();
    // In one system: EntityRef beside a writer of A is refused...
    let refused = world.register_system(|_: Query<EntityRef>, _: Query<&mut A>| {});
    assert!(matches!(refused, Err(OneShotError::ConflictingParams { .. })), "{refused:?}");
    // ...unless filters keep them on different tables.
    world.register_system(|_: Query<EntityRef, Without<Marker>>, _: Query<&mut A, With<Marker>>| {}).unwrap();
    // Two readers share; a whole writer conflicts with any other access.
    world.register_system(|_: Query<EntityRef>, _: Query<&A>| {}).unwrap();
    let refused = world.register_system(|_: Query<EntityMutExcept<()>>, _: Query<&B>| {});
    assert!(refused.is_err());
    world.register_system(|_: Query<EntityMutExcept<(B,)>>, _: Query<&B>| {}).unwrap();

    // Across systems: the schedule keeps them apart and reports them unordered.
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, |_: Query<EntityRef>| {}).unwrap();
    schedule.add_system(&mut world, |_: Query<&mut A>| {}).unwrap();
    schedule.add_system(&mut world, |_: Query<&B>| {}).unwrap();
    let found = schedule.ambiguities();
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].conflicts[0].ends_with("::A"), "{found:?}");
    schedule.run(&mut world);
    // A system whose query would alias panics when it is added, as for `(&mut B, &B)`.
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = schedule.add_system(&mut world, |_: Query<(EntityRef, &mut B)>| {});
    }));
    assert!(caught.is_err());
}
