//! Steady frames with observers of every kind allocate nothing: lifecycle observers
//! through churn, custom triggers with bubbling, and change deliveries at sync points.

use ripple::hierarchy::ChildOf;
use ripple::observer::{ObserverEvent, OnAdd, OnChange, OnDespawn, OnRemove, Trigger};
use ripple::system::{Query, ResMut};
use ripple::{Commands, Entity, World};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations_on_this_thread as allocations_in;

#[derive(Clone, Copy)]
struct Hp(u32);
struct Marked;

struct Ping;
impl ObserverEvent for Ping {
    const BUBBLES: bool = true;
}

#[derive(Default)]
struct Count(u64);

#[test]
fn steady_frames_with_observers_allocate_nothing() {
    let mut world = World::new();
    world.insert_resource(Count::default());
    world.observe(|_: Trigger<'_, OnAdd<Hp>>, mut count: ResMut<'_, Count>| count.0 += 1).unwrap();
    world.observe(|_: Trigger<'_, OnRemove<Hp>>, mut count: ResMut<'_, Count>| count.0 += 1).unwrap();
    world.observe(|_: Trigger<'_, OnDespawn>, mut count: ResMut<'_, Count>| count.0 += 1).unwrap();
    world.observe(|_: Trigger<'_, Ping>, mut count: ResMut<'_, Count>| count.0 += 1).unwrap();
    world
        .observe(|t: Trigger<'_, OnChange<Hp>>, hp: Query<'_, '_, &Hp>, mut commands: Commands<'_, '_>| {
            if hp.get(t.entity()).is_ok_and(|hp| hp.0 % 7 == 0) {
                commands.insert(t.entity(), (Marked,));
            }
        })
        .unwrap();
    let root = world.spawn(());
    let leaf = world.spawn((ChildOf(root),));
    world.observe_entity(leaf, |mut t: Trigger<'_, Ping>| t.propagate(true)).unwrap();
    let steady: Vec<Entity> = (0..1_000).map(|i| world.spawn((Hp(i),))).collect();
    let mut churn: Vec<Entity> = Vec::with_capacity(100);
    let frame = |world: &mut World, churn: &mut Vec<Entity>| {
        for i in 0..100 {
            churn.push(world.spawn((Hp(i),)));
        }
        for &e in steady.iter().step_by(10) {
            world.get_mut::<Hp>(e).unwrap().0 += 1;
        }
        for _ in 0..10 {
            world.trigger_targets(Ping, [leaf]);
        }
        world.flush();
        for e in churn.drain(..) {
            world.despawn(e).unwrap();
        }
        for &e in steady.iter().step_by(10) {
            let _ = world.remove::<(Marked,)>(e);
        }
    };
    for _ in 0..5 {
        frame(&mut world, &mut churn);
    }
    let allocations = allocations_in(|| {
        for _ in 0..10 {
            frame(&mut world, &mut churn);
        }
    });
    assert_eq!(allocations, 0, "steady frames with observers allocated {allocations} times");
    assert!(world.resource::<Count>().unwrap().0 > 0);
}
