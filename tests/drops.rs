//! Drop accounting: every component value is dropped exactly once, whatever path
//! removes it.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use ripple::World;

/// Records its id in a shared log when dropped.
struct Tracked {
    id: u32,
    log: Arc<Mutex<Vec<u32>>>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.log.lock().unwrap().push(self.id);
    }
}

struct Other(#[allow(dead_code, reason = "payload only")] u64);

struct Counter {
    log: Arc<Mutex<Vec<u32>>>,
    next: u32,
}

impl Counter {
    fn new() -> Self {
        Counter { log: Arc::default(), next: 0 }
    }
    fn make(&mut self) -> Tracked {
        self.next += 1;
        Tracked { id: self.next, log: self.log.clone() }
    }
    fn dropped(&self) -> Vec<u32> {
        let mut ids = self.log.lock().unwrap().clone();
        ids.sort_unstable();
        ids
    }
    /// Every id made so far was dropped exactly once.
    fn assert_all_dropped_once(&self) {
        assert_eq!(self.dropped(), (1..=self.next).collect::<Vec<_>>());
    }
}

#[test]
fn despawn_drops_once() {
    let mut c = Counter::new();
    let mut world = World::new();
    let a = world.spawn((c.make(), Other(1)));
    let b = world.spawn((c.make(),));
    world.despawn(a).unwrap();
    assert_eq!(c.dropped(), vec![1]);
    assert!(world.despawn(a).is_err());
    world.despawn(b).unwrap();
    c.assert_all_dropped_once();
}

#[test]
fn remove_hands_value_back_without_dropping() {
    let mut c = Counter::new();
    let mut world = World::new();
    let e = world.spawn((c.make(), Other(1)));
    let (value,) = world.remove::<(Tracked,)>(e).unwrap();
    assert!(c.dropped().is_empty(), "removed value is returned, not dropped");
    drop(value);
    c.assert_all_dropped_once();
    drop(world);
    c.assert_all_dropped_once();
}

#[test]
fn insert_overwrite_drops_old_value() {
    let mut c = Counter::new();
    let mut world = World::new();
    let e = world.spawn((c.make(),));
    world.insert(e, (c.make(),)).unwrap();
    assert_eq!(c.dropped(), vec![1]);
    // Overwrite while also moving to a new archetype.
    world.insert(e, (c.make(), Other(2))).unwrap();
    assert_eq!(c.dropped(), vec![1, 2]);
    drop(world);
    c.assert_all_dropped_once();
}

#[test]
fn insert_on_dead_entity_drops_bundle() {
    let mut c = Counter::new();
    let mut world = World::new();
    let e = world.spawn(());
    world.despawn(e).unwrap();
    assert!(world.insert(e, (c.make(),)).is_err());
    c.assert_all_dropped_once();
}

#[test]
fn moves_between_archetypes_do_not_drop() {
    let mut c = Counter::new();
    let mut world = World::new();
    let entities: Vec<_> = (0..10).map(|_| world.spawn((c.make(),))).collect();
    for &e in &entities {
        world.insert(e, (Other(0),)).unwrap();
    }
    for &e in &entities[..5] {
        world.remove::<(Other,)>(e).unwrap();
    }
    assert!(c.dropped().is_empty());
    world.clear();
    c.assert_all_dropped_once();
}

#[test]
fn clear_and_world_drop() {
    let mut c = Counter::new();
    let mut world = World::new();
    for _ in 0..100 {
        world.spawn((c.make(),));
    }
    world.clear();
    assert_eq!(world.len(), 0);
    c.assert_all_dropped_once();
    for _ in 0..50 {
        world.spawn((c.make(), Other(3)));
    }
    drop(world);
    c.assert_all_dropped_once();
}

#[test]
fn spawn_batch_and_despawn_where() {
    let mut c = Counter::new();
    let mut world = World::new();
    let bundles: Vec<_> = (0..20).map(|_| (c.make(),)).collect();
    world.spawn_batch(bundles);
    let mut query = world.query::<&Tracked>();
    assert_eq!(query.despawn_where(&mut world, |t| t.id % 2 == 0), 10);
    assert_eq!(c.dropped(), (1..=10).map(|i| i * 2).collect::<Vec<_>>());
    drop(world);
    c.assert_all_dropped_once();
}

#[test]
fn panic_unwinding_out_of_for_each() {
    let mut c = Counter::new();
    let mut world = World::new();
    for _ in 0..10 {
        world.spawn((c.make(),));
    }
    let mut query = world.query::<&mut Tracked>();
    let mut seen = 0;
    let result = catch_unwind(AssertUnwindSafe(|| {
        query.for_each_mut(&mut world, |t| {
            seen += 1;
            if seen == 5 {
                panic!("boom at {}", t.id);
            }
        });
    }));
    assert!(result.is_err());
    assert!(c.dropped().is_empty(), "a panic in a query drops nothing");
    // The world is still consistent and usable.
    assert_eq!(query.iter_mut(&mut world).count(), 10);
    drop(world);
    c.assert_all_dropped_once();
}

#[test]
fn panicking_drop_keeps_world_consistent() {
    struct Bomb;
    impl Drop for Bomb {
        fn drop(&mut self) {
            if !std::thread::panicking() {
                panic!("bomb");
            }
        }
    }
    let mut c = Counter::new();
    let mut world = World::new();
    let doomed = world.spawn((Bomb, c.make()));
    let keeper = world.spawn((Bomb, c.make()));
    let result = catch_unwind(AssertUnwindSafe(|| world.despawn(doomed)));
    assert!(result.is_err());
    assert_eq!(c.dropped(), vec![1], "the other column of the row was still dropped");
    assert!(!world.contains(doomed));
    assert_eq!(world.get::<Tracked>(keeper).unwrap().id, 2);
    let (bomb,) = world.remove::<(Bomb,)>(keeper).unwrap();
    std::mem::forget(bomb);
    drop(world);
    c.assert_all_dropped_once();
}
