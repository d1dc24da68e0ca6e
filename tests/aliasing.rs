//! Queries that would alias are refused when built, with messages naming the type.

use ripple::{Entity, With, World};

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
