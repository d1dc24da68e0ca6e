//! Queries that would alias are refused when built, with messages naming the type.

use ripple::query::With;
use ripple::{Entity, World};

struct A;
struct B;

#[test]
#[should_panic(
    expected = "query `(&mut aliasing::A, &mut aliasing::A)` would alias: component `aliasing::A` is accessed mutably twice"
)]
fn mut_twice() {
    World::new().query::<(&mut A, &mut A)>();
}

#[test]
#[should_panic(
    expected = "query `(&aliasing::A, &mut aliasing::A)` would alias: component `aliasing::A` is accessed both mutably and immutably"
)]
fn shared_then_mut() {
    World::new().query::<(&A, &mut A)>();
}

#[test]
#[should_panic(expected = "component `aliasing::B` is accessed both mutably and immutably")]
fn nested_and_optional() {
    World::new().query::<(Entity, (&A, Option<&mut B>), &B)>();
}

#[test]
fn shared_twice_and_filters_are_fine() {
    let mut world = World::new();
    world.spawn((A, B));
    let mut q = world.query_filtered::<(&A, &A, &mut B), With<B>>();
    assert_eq!(q.iter_mut(&mut world).count(), 1);
}

#[test]
#[should_panic(expected = "QueryState used with a World other than the one it was built for")]
fn state_from_another_world() {
    let mut one = World::new();
    let other = World::new();
    let mut q = one.query::<&A>();
    q.iter(&other).count();
}

#[test]
#[should_panic(
    expected = "bundle `(aliasing::A, aliasing::B, aliasing::A)` names component `aliasing::A` more than once"
)]
fn bundle_with_duplicate_type() {
    World::new().spawn((A, B, A));
}

/// A counter component, to see that a refused bundle changed nothing.
struct Count(u32);

/// The message of a caught panic.
fn panic_message(payload: Box<dyn std::any::Any + Send>) -> String {
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload.downcast::<&str>().map(|s| s.to_string()).unwrap_or_default(),
    }
}

/// `insert` and `remove` refuse a bundle naming a type twice, as `spawn` does, before
/// anything changes: the entity keeps exactly its components, and the world (and the
/// cached transitions of its tables) keep working.
#[test]
fn insert_and_remove_refuse_a_duplicate_type_and_change_nothing() {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    let mut world = World::new();
    let entity = world.spawn((B, Count(1)));

    let insert = catch_unwind(AssertUnwindSafe(|| world.insert(entity, (A, Count(2), A)).is_ok()));
    let message = panic_message(insert.unwrap_err());
    assert!(message.contains("names component `aliasing::A` more than once"), "{message}");

    let remove = catch_unwind(AssertUnwindSafe(|| world.remove::<(Count, B, Count)>(entity).is_ok()));
    let message = panic_message(remove.unwrap_err());
    assert!(message.contains("names component `aliasing::Count` more than once"), "{message}");

    assert_eq!(world.get::<Count>(entity).unwrap().0, 1);
    let view = world.entity(entity).unwrap();
    assert!(view.has::<B>() && !view.has::<A>());
    assert_eq!(world.len(), 1);

    // The same table's valid transitions still work afterwards.
    world.insert(entity, (A, Count(3))).unwrap();
    assert_eq!(world.get::<Count>(entity).unwrap().0, 3);
    let (_, count) = world.remove::<(A, Count)>(entity).unwrap();
    assert_eq!(count.0, 3);
    assert!(world.entity(entity).unwrap().has::<B>());
}
