//! A counting global allocator proves that steady churn allocates nothing.
//!
//! Only allocations made by the test's own thread while counting is on are counted,
//! so the test harness's threads do not disturb the figure.

use ripple::query::{Changed, Dirty};
use ripple::{Entity, World};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations_on_this_thread as allocations_in;

#[derive(Clone, Copy)]
struct Pos([f32; 3]);
#[derive(Clone, Copy)]
struct Vel([f32; 3]);
struct Tag;

#[test]
fn counting_allocator_counts() {
    assert!(allocations_in(|| drop(std::hint::black_box(vec![1u8; 16]))) >= 1);
}

#[test]
fn steady_spawn_despawn_allocates_nothing() {
    let mut world = World::new();
    let mut live: Vec<Entity> = Vec::with_capacity(2_000);
    let mut query = world.query::<(&Vel, &mut Pos)>();
    let mut frame = |world: &mut World, live: &mut Vec<Entity>| {
        for i in 0..1_000 {
            let e = if i % 2 == 0 {
                world.spawn((Pos([0.0; 3]), Vel([1.0; 3])))
            } else {
                world.spawn((Pos([0.0; 3]), Vel([1.0; 3]), Tag))
            };
            live.push(e);
        }
        query.for_each_mut(world, |(v, mut p)| p.0[0] += v.0[0]);
        for e in live.drain(..) {
            world.despawn(e).unwrap();
        }
        // Churn through insert/remove edges too.
        let e = world.spawn((Pos([0.0; 3]),));
        world.insert(e, (Vel([0.0; 3]),)).unwrap();
        world.remove::<(Vel,)>(e).unwrap();
        world.despawn(e).unwrap();
    };
    for _ in 0..3 {
        frame(&mut world, &mut live);
    }
    let allocations = allocations_in(|| {
        for _ in 0..10 {
            frame(&mut world, &mut live);
        }
    });
    assert_eq!(allocations, 0, "steady frames allocated {allocations} times");
    assert_eq!(world.len(), 0);
}

#[test]
fn steady_spawn_batch_allocates_nothing() {
    let mut world = World::new();
    let mut ids = Vec::with_capacity(1_000);
    let frame = |world: &mut World, ids: &mut Vec<Entity>| {
        ids.extend(world.spawn_batch((0..1_000).map(|_| (Pos([0.0; 3]), Vel([0.0; 3])))));
        for e in ids.drain(..) {
            world.despawn(e).unwrap();
        }
    };
    frame(&mut world, &mut ids);
    frame(&mut world, &mut ids);
    assert_eq!(allocations_in(|| frame(&mut world, &mut ids)), 0);
}

#[test]
fn steady_frames_with_change_tracking_allocate_nothing() {
    let mut world = World::new();
    let crates: Vec<Entity> = world.spawn_batch((0..5_000).map(|i| (Pos([i as f32; 3]), Tag))).collect();
    let movers: Vec<Entity> = crates.iter().copied().step_by(50).collect();
    let mut mover = world.query::<&mut Pos>();
    let mut integrate = world.query::<(&Vel, &mut Pos)>();
    let mut renderer = world.query_filtered::<(Entity, &Pos), Changed<Pos>>();
    let mut redraw = world.query_filtered::<Entity, Dirty<(Pos, Vel)>>();
    let mut removed = world.removal_reader::<Vel>();
    let mut bullets: Vec<Entity> = Vec::with_capacity(200);
    let mut frame = |world: &mut World, bullets: &mut Vec<Entity>| {
        mover.for_each_of_mut(world, &movers, |mut p| p.0[1] += 1.0);
        world.get_mut::<Pos>(crates[7]).unwrap().0[2] += 1.0;
        for _ in 0..100 {
            bullets.push(world.spawn((Pos([0.0; 3]), Vel([1.0; 3]))));
        }
        integrate.for_each_mut(world, |(v, mut p)| p.0[0] += v.0[0]);
        let mut seen = 0usize;
        renderer.for_each(world, |_| seen += 1);
        redraw.for_each(world, |_| seen += 1);
        assert!(seen >= movers.len());
        for e in bullets.drain(..) {
            world.despawn(e).unwrap();
        }
        assert_eq!(removed.read(world).count(), 100);
    };
    for _ in 0..5 {
        frame(&mut world, &mut bullets);
    }
    let allocations = allocations_in(|| {
        for _ in 0..10 {
            frame(&mut world, &mut bullets);
        }
    });
    assert_eq!(allocations, 0, "steady tracked frames allocated {allocations} times");
}

#[test]
fn steady_toggle_frames_allocate_nothing() {
    toggle_frames_allocate_nothing(ripple::Storage::Table, false);
    toggle_frames_allocate_nothing(ripple::Storage::SparseSet, false);
    toggle_frames_allocate_nothing(ripple::Storage::SparseSet, true);
}

/// The toggle workload, small: each frame one group of entities gains a zero-sized
/// marker and the marked group loses it (with table storage both move their rows
/// between tables; with a sparse set, nothing moves), then a query finds the marked.
/// With `view`, the marker changes through the set's view (`World::sparse_mut`). A
/// `Dirty` observer of the marker reads the structural-change log each frame.
fn toggle_frames_allocate_nothing(storage: ripple::Storage, view: bool) {
    struct Moving;
    const GROUPS: usize = 20;
    let mut world = World::new();
    world.set_storage::<Moving>(storage).unwrap();
    let entities: Vec<Entity> = world.spawn_batch((0..4_000).map(|i| (Pos([i as f32; 3]),))).collect();
    let groups: Vec<Vec<Entity>> =
        (0..GROUPS).map(|g| entities[g..].iter().step_by(GROUPS).copied().collect()).collect();
    for &e in &groups[0] {
        world.insert(e, (Moving,)).unwrap();
    }
    let mut marked = world.query_filtered::<&Pos, ripple::query::With<Moving>>();
    let mut toggled = world.query_filtered::<Entity, ripple::query::Dirty<(Moving,)>>();
    let mut frame = |world: &mut World, f: usize| {
        if view {
            let mut moving = world.sparse_mut::<Moving>().unwrap();
            for &e in &groups[(f + 1) % GROUPS] {
                moving.insert(e, Moving).unwrap();
            }
            for &e in &groups[f % GROUPS] {
                moving.remove(e).unwrap();
            }
        } else {
            for &e in &groups[(f + 1) % GROUPS] {
                world.insert(e, (Moving,)).unwrap();
            }
            for &e in &groups[f % GROUPS] {
                world.remove::<(Moving,)>(e).unwrap();
            }
        }
        let mut found = 0;
        marked.for_each(world, |_| found += 1);
        assert_eq!(found, 4_000 / GROUPS);
        // The group that gained the marker and the one that lost it.
        let mut dirty = 0;
        toggled.for_each(world, |_| dirty += 1);
        if f > 0 {
            // (Its first run finds every entity.)
            assert_eq!(dirty, 2 * 4_000 / GROUPS, "{storage:?}, view: {view}");
        }
    };
    for f in 0..GROUPS {
        frame(&mut world, f);
    }
    let allocations = allocations_in(|| {
        for f in GROUPS..3 * GROUPS {
            frame(&mut world, f);
        }
    });
    assert_eq!(allocations, 0, "steady toggle frames ({storage:?}) allocated {allocations} times");
}
