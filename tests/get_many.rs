//! `get_many` and `get_many_mut` on `QueryState` and `Query`: several entities'
//! items at once, duplicates refused for mutable items, nothing handed out unless
//! every item is, writes seen by observers.

use ripple::prelude::*;
use ripple::{NoSuchEntity, QueryEntityError, Storage};

#[derive(Debug, PartialEq)]
struct Vel(i32);
struct Frozen;

#[test]
fn get_many_mut_hands_out_distinct_items_and_refuses_duplicates() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = World::new();
        world.set_storage::<Vel>(storage).unwrap();
        let a = world.spawn((Vel(1),));
        let b = world.spawn((Vel(-2),));
        let c = world.spawn((Vel(5), Frozen));
        let mut bodies = world.query_filtered::<&mut Vel, Without<Frozen>>();
        let mut moved = world.query_filtered::<Entity, Changed<Vel>>();
        moved.iter(&world).count();

        let [mut va, mut vb] = bodies.get_many_mut(&mut world, [a, b]).unwrap();
        std::mem::swap(&mut va.0, &mut vb.0);
        assert_eq!((world.get::<Vel>(a), world.get::<Vel>(b)), (Ok(&Vel(-2)), Ok(&Vel(1))), "{storage:?}");
        let mut changed: Vec<Entity> = moved.iter(&world).collect();
        changed.sort();
        assert_eq!(
            changed,
            {
                let mut v = vec![a, b];
                v.sort();
                v
            },
            "{storage:?}: writes are observed"
        );

        assert_eq!(bodies.get_many_mut(&mut world, [a, b, a]).err(), Some(QueryEntityError::Duplicate(a)));
        let does_not_match = bodies.get_many_mut(&mut world, [a, c]).err();
        assert!(matches!(does_not_match, Some(QueryEntityError::DoesNotMatch { entity, .. }) if entity == c));
        world.despawn(b).unwrap();
        assert_eq!(
            bodies.get_many_mut(&mut world, [a, b]).err(),
            Some(QueryEntityError::NoSuchEntity(NoSuchEntity(b))),
            "{storage:?}"
        );
        assert_eq!(moved.iter(&world).count(), 0, "{storage:?}: refused calls wrote nothing");
        let [only] = bodies.get_many_mut(&mut world, [a]).unwrap();
        assert_eq!(*only, Vel(-2));
        let none: [Mut<'_, Vel>; 0] = bodies.get_many_mut(&mut world, []).unwrap();
        assert!(none.is_empty());
    }
}

#[test]
fn shared_get_many_allows_repeats() {
    let mut world = World::new();
    let a = world.spawn((Vel(1),));
    let b = world.spawn((Vel(2),));
    let mut query = world.query::<&Vel>();
    let [x, y, z] = query.get_many(&world, [a, b, a]).unwrap();
    assert_eq!((x.0, y.0, z.0), (1, 2, 1));
    world.despawn(a).unwrap();
    assert_eq!(query.get_many(&world, [b, a]).err(), Some(QueryEntityError::NoSuchEntity(NoSuchEntity(a))));
}

struct Contacts(Vec<(Entity, Entity)>);
#[derive(Default)]
struct Refused(Vec<QueryEntityError>);

fn bounce(mut bodies: Query<'_, '_, &mut Vel>, contacts: Res<'_, Contacts>, mut refused: ResMut<'_, Refused>) {
    for &(x, y) in &contacts.0 {
        match bodies.get_many_mut([x, y]) {
            Ok([mut vx, mut vy]) => std::mem::swap(&mut vx.0, &mut vy.0),
            Err(error) => refused.0.push(error),
        }
    }
}

#[test]
fn a_system_swaps_velocities_of_contacts() {
    let mut world = World::new();
    let a = world.spawn((Vel(1),));
    let b = world.spawn((Vel(2),));
    world.insert_resource(Contacts(vec![(a, b), (b, b)]));
    world.insert_resource(Refused::default());
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, bounce).unwrap();
    schedule.run(&mut world);
    assert_eq!((world.get::<Vel>(a), world.get::<Vel>(b)), (Ok(&Vel(2)), Ok(&Vel(1))));
    assert_eq!(world.resource::<Refused>().unwrap().0, vec![QueryEntityError::Duplicate(b)]);
}
