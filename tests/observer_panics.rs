//! A run that panics part-way does not advance its observer: the changes it had not
//! reached are reported by the next run (at least once across a panic), and a run that
//! completes reports each change exactly once. For stand-alone query states, every kind
//! of run, `Dirty`, first runs, and systems.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Mutex;

use ripple::prelude::*;

struct Hp(u32);
struct Shield;

fn world_with_ten() -> (World, Vec<Entity>) {
    let mut world = World::new();
    let entities = world.spawn_batch((0..10).map(|i| (Hp(i),))).collect();
    (world, entities)
}

fn hit_all(world: &mut World, entities: &[Entity]) {
    for &e in entities {
        world.get_mut::<Hp>(e).unwrap().0 += 1;
    }
}

/// Runs `run` expecting it to panic.
fn panics(run: impl FnOnce()) {
    assert!(catch_unwind(AssertUnwindSafe(run)).is_err(), "the run was meant to panic");
}

#[test]
fn every_kind_of_run_reports_again_what_a_panic_cut_short() {
    let (mut world, entities) = world_with_ten();
    let mut changed = world.query_filtered::<Entity, Changed<Hp>>();
    assert_eq!(changed.iter(&world).count(), 10);
    hit_all(&mut world, &entities);

    // for_each: panics at the sixth item.
    let mut seen = 0;
    panics(|| {
        changed.for_each(&world, |_| {
            seen += 1;
            assert!(seen <= 5, "a system failed half-way");
        })
    });
    // An iterator whose loop body panics.
    panics(|| {
        for (i, _) in changed.iter(&world).enumerate() {
            assert!(i < 3, "failed in the loop");
        }
    });
    // A parallel run.
    panics(|| changed.par_for_each(&world, |_| panic!("a worker failed")));
    // for_each_mut over the same observer.
    let mut writer = world.query_filtered::<&mut Hp, Changed<Hp>>();
    assert_eq!(writer.iter_mut(&mut world).count(), 10, "the writer's first run");
    hit_all(&mut world, &entities);
    panics(|| writer.for_each_mut(&mut world, |_| panic!("failed before writing")));
    assert_eq!(writer.iter_mut(&mut world).count(), 10, "the writer lost nothing");

    assert_eq!(changed.iter(&world).count(), 10, "every change is reported again");
    assert_eq!(changed.iter(&world).count(), 0, "and once a run completes, only once");
    // Dropping an iterator early (not a panic) completes its run.
    hit_all(&mut world, &entities);
    assert_eq!(changed.iter(&world).take(2).count(), 2);
    assert_eq!(changed.iter(&world).count(), 0);
}

#[test]
fn a_first_run_that_panics_leaves_the_observer_new() {
    let (mut world, _) = world_with_ten();
    let mut added = world.query_filtered::<Entity, Added<Hp>>();
    panics(|| added.for_each(&world, |_| panic!("first run failed")));
    assert_eq!(added.last_run(), None, "still never ran");
    assert_eq!(added.iter(&world).count(), 10, "everything is new on the first completed run");
}

#[test]
fn dirty_reports_structural_changes_again_after_a_panic() {
    let (mut world, entities) = world_with_ten();
    let mut dirty = world.query_filtered::<Entity, Dirty<(Hp, Shield)>>();
    assert_eq!(dirty.iter(&world).count(), 10);
    for &e in &entities[..4] {
        world.insert_one(e, Shield).unwrap();
    }
    world.get_mut::<Hp>(entities[9]).unwrap().0 = 99;
    panics(|| dirty.for_each(&world, |_| panic!("failed")));
    let mut again: Vec<Entity> = dirty.iter(&world).collect();
    again.sort();
    let mut expected = vec![entities[0], entities[1], entities[2], entities[3], entities[9]];
    expected.sort();
    assert_eq!(again, expected, "structural changes and writes are reported again");
    assert_eq!(dirty.iter(&world).count(), 0);
}

/// Fails part-way through its first run, then succeeds.
#[derive(Default)]
struct Attempts(u32);

static REPORTED: Mutex<Vec<usize>> = Mutex::new(Vec::new());

fn watcher(mut changed: Query<'_, '_, Entity, Changed<Hp>>, mut attempts: ResMut<'_, Attempts>) {
    attempts.0 += 1;
    let fail = attempts.0 == 2;
    let mut count = 0;
    changed.for_each(|_| {
        count += 1;
        assert!(!(fail && count > 5), "the system failed part-way");
    });
    REPORTED.lock().unwrap().push(count);
}

#[test]
fn a_system_that_panics_sees_the_changes_again_on_its_next_run() {
    let (mut world, entities) = world_with_ten();
    world.insert_resource(Attempts::default());
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, watcher).unwrap();
    schedule.run(&mut world);
    hit_all(&mut world, &entities);
    panics(|| schedule.run(&mut world));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(*REPORTED.lock().unwrap(), vec![10, 10, 0], "first run, the catch-up after the panic, quiet");
}

static ENTERED: Mutex<Vec<u32>> = Mutex::new(Vec::new());

fn counts_hp(_: Query<'_, '_, &Hp>) {}

#[test]
fn entities_after_a_panicking_enter_callback_are_reported_next_time() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let failed_once = std::sync::atomic::AtomicBool::new(false);
    schedule
        .add_system(
            &mut world,
            counts_hp.on_entity_enter(move |world, entity| {
                let hp = world.get::<Hp>(entity).unwrap().0;
                ENTERED.lock().unwrap().push(hp);
                if hp == 2 && !failed_once.swap(true, std::sync::atomic::Ordering::SeqCst) {
                    panic!("the callback failed on the second entity");
                }
            }),
        )
        .unwrap();
    schedule.run(&mut world);
    for i in 1..=3 {
        world.spawn((Hp(i),));
    }
    panics(|| schedule.run(&mut world));
    assert_eq!(*ENTERED.lock().unwrap(), vec![1, 2], "the third was not reached");
    schedule.run(&mut world);
    assert_eq!(*ENTERED.lock().unwrap(), vec![1, 2, 3], "the third arrives at the next sync point, once");
    world.spawn((Hp(4),));
    schedule.run(&mut world);
    assert_eq!(*ENTERED.lock().unwrap(), vec![1, 2, 3, 4]);
}
