//! Observers: the three workloads of `benches/observers.rs` and the paired tool, ripple
//! against bevy_ecs 0.20.1's observers (its fastest documented form for each).
//!
//! * `observe_lifecycle`: 10,000 entities; one observer of every entity for adding `Hp`,
//!   one for removing it, and one observer of adding `Hp` aimed at the first entity.
//!   A pass inserts `Hp` on every entity, then removes it from every entity: 20,001
//!   observer runs, each adding to a counter resource (`ResMut`).
//! * `observe_trigger`: 1,250 trees of depth 4 (a root, 2 children, 4 grandchildren,
//!   8 leaves each: 10,000 leaves). A pass sends one bubbling event to each leaf, one
//!   trigger call per leaf; one observer of every entity counts, so each event runs it
//!   at the leaf and at its 3 ancestors (40,000 runs).
//! * `observe_mutation`: N entities with `Hp`; a pass writes `Hp` on K of them (a
//!   different K each pass, through `get_mut`) and then reacts to exactly those K:
//!   * `ripple`: an `OnChange<Hp>` observer adding the entity's index to a sum it
//!     holds (as the query line adds to a local), delivered by `World::flush` (a sync
//!     point);
//!   * `ripple_res_param`: the same observer adding to a `ResMut` resource instead:
//!     each run fetches its parameters, as every observer run does;
//!   * `ripple_changed_query`: a `QueryState<Entity, Changed<Hp>>` visiting the same K
//!     and adding the same indices (the floor the observer is judged against);
//!   * `ripple_writes`: the writes alone (to tell the reaction's cost from theirs);
//!   * `bevy_ecs`: bevy has no mutation observer (`OnMutate` was proposed and dropped);
//!     its way is a `Changed<Hp>` query, which compares every entity's change tick:
//!     `QueryState<Entity, Changed<Hp>>::iter`, then `World::clear_trackers` so that
//!     the next pass sees only its own writes.
//!
//! Every line checks its result on the first passes (counts and sums).

use bench_types::*;
use std::hint::black_box;

use crate::Pass;

/// The component observed, for both libraries.
mod bench_types {
    /// Hit points.
    #[derive(Clone, Copy, Debug, PartialEq, bevy_ecs::component::Component)]
    pub struct Hp(pub u32);

    /// The event of `observe_trigger`: bubbles up `ChildOf` in both libraries.
    #[derive(bevy_ecs::event::EntityEvent)]
    #[entity_event(propagate, auto_propagate)]
    pub struct Ping {
        /// bevy's target.
        pub entity: bevy_ecs::entity::Entity,
    }

    /// ripple's bubbling event.
    pub struct RipplePing;

    impl ripple::observer::ObserverEvent for RipplePing {
        const BUBBLES: bool = true;
    }

    /// Counts observer runs (bevy).
    #[derive(Default, bevy_ecs::resource::Resource)]
    pub struct BevyCount(pub u64);

    /// Counts observer runs (ripple).
    #[derive(Default)]
    pub struct Count(pub u64);
}

/// Entities in `observe_lifecycle`.
pub const N_LIFECYCLE: usize = 10_000;
/// Trees in `observe_trigger` (8 leaves each).
pub const TREES: usize = 1_250;

/// `observe_lifecycle`'s lines, ripple first.
pub fn lifecycle_lines() -> Vec<(&'static str, Pass)> {
    vec![("ripple", ripple_lifecycle(true)), ("bevy_ecs", bevy_lifecycle(true))]
}

/// The same passes with no observer, ripple first: subtracted from
/// [`lifecycle_lines`]' passes, what the 20,001 observed events cost each library.
pub fn lifecycle_unobserved_lines() -> Vec<(&'static str, Pass)> {
    vec![("ripple", ripple_lifecycle(false)), ("bevy_ecs", bevy_lifecycle(false))]
}

fn ripple_lifecycle(observed: bool) -> Pass {
    use ripple::World;
    use ripple::observer::{OnAdd, OnRemove, Trigger};
    use ripple::system::ResMut;
    let mut world = World::new();
    world.insert_resource(Count::default());
    let entities: Vec<ripple::Entity> = (0..N_LIFECYCLE).map(|_| world.spawn(())).collect();
    if observed {
        world.observe(|_: Trigger<'_, OnAdd<Hp>>, mut count: ResMut<'_, Count>| count.0 += 1).unwrap();
        world.observe(|_: Trigger<'_, OnRemove<Hp>>, mut count: ResMut<'_, Count>| count.0 += 1).unwrap();
        world
            .observe_entity(entities[0], |_: Trigger<'_, OnAdd<Hp>>, mut count: ResMut<'_, Count>| count.0 += 1)
            .unwrap();
    }
    let events = if observed { 2 * N_LIFECYCLE as u64 + 1 } else { 0 };
    let mut passes = 0u64;
    Box::new(move || {
        for &e in &entities {
            world.insert(e, (Hp(1),)).unwrap();
        }
        for &e in &entities {
            black_box(world.remove::<(Hp,)>(e).unwrap());
        }
        passes += 1;
        if passes <= 2 {
            assert_eq!(world.resource::<Count>().unwrap().0, passes * events);
        }
    })
}

fn bevy_lifecycle(observed: bool) -> Pass {
    use bevy_ecs::prelude::*;
    let mut world = World::new();
    world.insert_resource(BevyCount::default());
    let entities: Vec<Entity> = (0..N_LIFECYCLE).map(|_| world.spawn_empty().id()).collect();
    if observed {
        world.add_observer(|_: On<Add<Hp>>, mut count: ResMut<BevyCount>| count.0 += 1);
        world.add_observer(|_: On<Remove<Hp>>, mut count: ResMut<BevyCount>| count.0 += 1);
        world.entity_mut(entities[0]).observe(|_: On<Add<Hp>>, mut count: ResMut<BevyCount>| count.0 += 1);
    }
    world.flush();
    let events = if observed { 2 * N_LIFECYCLE as u64 + 1 } else { 0 };
    let mut passes = 0u64;
    Box::new(move || {
        for &e in &entities {
            world.entity_mut(e).insert(Hp(1));
        }
        for &e in &entities {
            world.entity_mut(e).remove::<Hp>();
        }
        passes += 1;
        if passes <= 2 {
            assert_eq!(world.resource::<BevyCount>().0, passes * events);
        }
    })
}

/// `observe_trigger`'s lines, ripple first.
pub fn trigger_lines() -> Vec<(&'static str, Pass)> {
    vec![("ripple", ripple_trigger()), ("bevy_ecs", bevy_trigger())]
}

/// Builds the trees with `spawn(parent)`, returning the leaves.
fn trees<E: Copy>(mut spawn: impl FnMut(Option<E>) -> E) -> Vec<E> {
    let mut leaves = Vec::with_capacity(TREES * 8);
    for _ in 0..TREES {
        let root = spawn(None);
        for _ in 0..2 {
            let a = spawn(Some(root));
            for _ in 0..2 {
                let b = spawn(Some(a));
                for _ in 0..2 {
                    leaves.push(spawn(Some(b)));
                }
            }
        }
    }
    leaves
}

fn ripple_trigger() -> Pass {
    use ripple::World;
    use ripple::hierarchy::ChildOf;
    use ripple::observer::Trigger;
    use ripple::system::ResMut;
    let mut world = World::new();
    world.insert_resource(Count::default());
    let leaves = trees(|parent| match parent {
        None => world.spawn(()),
        Some(parent) => world.spawn((ChildOf(parent),)),
    });
    world.observe(|_: Trigger<'_, RipplePing>, mut count: ResMut<'_, Count>| count.0 += 1).unwrap();
    let mut passes = 0u64;
    Box::new(move || {
        for &leaf in &leaves {
            world.trigger_targets(RipplePing, [leaf]);
        }
        passes += 1;
        if passes <= 2 {
            assert_eq!(world.resource::<Count>().unwrap().0, passes * 4 * leaves.len() as u64);
        }
    })
}

fn bevy_trigger() -> Pass {
    use bevy_ecs::prelude::*;
    let mut world = World::new();
    world.insert_resource(BevyCount::default());
    let leaves = trees(|parent| match parent {
        None => world.spawn_empty().id(),
        Some(parent) => world.spawn(ChildOf(parent)).id(),
    });
    world.add_observer(|_: On<Ping>, mut count: ResMut<BevyCount>| count.0 += 1);
    world.flush();
    let mut passes = 0u64;
    Box::new(move || {
        for &leaf in &leaves {
            world.trigger(Ping { entity: leaf });
        }
        passes += 1;
        if passes <= 2 {
            assert_eq!(world.resource::<BevyCount>().0, passes * 4 * leaves.len() as u64);
        }
    })
}

/// The K entities a pass writes: pass `p` writes `k` entities spread over the world,
/// a different set each pass.
pub fn written(n: usize, k: usize, pass: usize) -> impl Iterator<Item = usize> {
    let stride = n / k;
    (0..k).map(move |i| i * stride + pass % stride)
}

/// The sum of the indices a pass writes (entity index = spawn order in a fresh world).
fn expected_sum(n: usize, k: usize, pass: usize) -> u64 {
    written(n, k, pass).map(|i| i as u64).sum()
}

/// `observe_mutation`'s lines at `n` entities and `k` written per pass, ripple first.
pub fn mutation_lines(n: usize, k: usize) -> Vec<(&'static str, Pass)> {
    vec![
        ("ripple", ripple_mutation(n, k, Reaction::Observer)),
        ("ripple_changed_query", ripple_mutation(n, k, Reaction::ChangedQuery)),
        ("ripple_res_param", ripple_mutation(n, k, Reaction::ObserverWithParam)),
        ("ripple_writes", ripple_mutation(n, k, Reaction::None)),
        ("bevy_ecs", bevy_mutation(n, k)),
    ]
}

#[derive(Clone, Copy, PartialEq)]
enum Reaction {
    Observer,
    ObserverWithParam,
    ChangedQuery,
    None,
}

fn ripple_mutation(n: usize, k: usize, reaction: Reaction) -> Pass {
    use ripple::observer::{OnChange, Trigger};
    use ripple::query::{Changed, QueryState};
    use ripple::system::ResMut;
    use ripple::{Entity, World};
    let mut world = World::new();
    world.insert_resource(Count::default());
    let entities: Vec<Entity> = world.spawn_batch((0..n).map(|i| (Hp(i as u32),))).collect();
    assert!(entities.iter().enumerate().all(|(i, e)| e.index() as usize == i));
    let mut query: QueryState<Entity, Changed<Hp>> = world.query_filtered();
    // The observer's own sum (relaxed loads and stores: one thread).
    let held = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    match reaction {
        Reaction::Observer => {
            let sum = held.clone();
            world
                .observe(move |t: Trigger<'_, OnChange<Hp>>| {
                    let now = sum.load(std::sync::atomic::Ordering::Relaxed);
                    sum.store(now + u64::from(t.entity().index()), std::sync::atomic::Ordering::Relaxed);
                })
                .unwrap();
        }
        Reaction::ObserverWithParam => {
            world
                .observe(|t: Trigger<'_, OnChange<Hp>>, mut sum: ResMut<'_, Count>| {
                    sum.0 += u64::from(t.entity().index());
                })
                .unwrap();
        }
        Reaction::ChangedQuery => query.for_each(&world, |_| {}),
        Reaction::None => world.track::<Hp>(),
    }
    world.flush();
    let mut pass = 0;
    Box::new(move || {
        for i in written(n, k, pass) {
            world.get_mut::<Hp>(entities[i]).unwrap().0 += 1;
        }
        let sum = match reaction {
            Reaction::Observer => {
                held.store(0, std::sync::atomic::Ordering::Relaxed);
                world.flush();
                held.load(std::sync::atomic::Ordering::Relaxed)
            }
            Reaction::ObserverWithParam => {
                world.resource_mut::<Count>().unwrap().0 = 0;
                world.flush();
                world.resource::<Count>().unwrap().0
            }
            Reaction::ChangedQuery => {
                let mut sum = 0u64;
                query.for_each(&world, |e| sum += u64::from(e.index()));
                sum
            }
            Reaction::None => expected_sum(n, k, pass),
        };
        if pass < 2 {
            assert_eq!(sum, expected_sum(n, k, pass));
        }
        black_box(sum);
        pass += 1;
    })
}

fn bevy_mutation(n: usize, k: usize) -> Pass {
    use bevy_ecs::prelude::*;
    let mut world = World::new();
    let entities: Vec<Entity> = world.spawn_batch((0..n).map(|i| Hp(i as u32))).collect();
    let mut query = world.query_filtered::<Entity, Changed<Hp>>();
    world.clear_trackers();
    let mut pass = 0;
    Box::new(move || {
        for i in written(n, k, pass) {
            world.get_mut::<Hp>(entities[i]).unwrap().0 += 1;
        }
        let sum: u64 = query.iter(&world).map(|e| u64::from(e.index_u32())).sum();
        world.clear_trackers();
        if pass < 2 {
            // bevy's entity indices do not start at 0 (its resources are entities).
            let expected: u64 = written(n, k, pass).map(|i| u64::from(entities[i].index_u32())).sum();
            assert_eq!(sum, expected);
        }
        black_box(sum);
        pass += 1;
    })
}
