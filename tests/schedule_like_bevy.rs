//! Adding systems as bevy_ecs users do: a tuple at once, chained, with a shared
//! condition. Named after the bevy_ecs 0.20 behaviour each mirrors.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::sync::{Arc, Mutex};

use ripple::World;
use ripple::schedule::{IntoSystemConfig, IntoSystemGroup, Schedule};
use ripple::system::resource_exists;

type Log = Arc<Mutex<Vec<&'static str>>>;

fn logger(log: &Log, name: &'static str) -> impl FnMut() + Send + 'static {
    let log = log.clone();
    move || log.lock().unwrap().push(name)
}

struct Playing;

#[test]
fn chained_systems_run_in_order() {
    let log: Log = Arc::default();
    let mut world = World::new();
    let mut schedule = Schedule::new();
    // Without the chain they touch nothing in common and could run in any order.
    let ids = schedule
        .add_systems(&mut world, (logger(&log, "a"), logger(&log, "b"), logger(&log, "c"), logger(&log, "d")).chain())
        .unwrap();
    assert_eq!(ids.len(), 4);
    schedule.run(&mut world);
    assert_eq!(*log.lock().unwrap(), ["a", "b", "c", "d"]);
}

#[test]
fn distributive_run_if_guards_every_member() {
    let log: Log = Arc::default();
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule
        .add_systems(&mut world, (logger(&log, "x"), logger(&log, "y")).distributive_run_if(resource_exists::<Playing>))
        .unwrap();
    schedule.run(&mut world);
    assert!(log.lock().unwrap().is_empty());
    world.insert_resource(Playing);
    schedule.run(&mut world);
    let mut ran = log.lock().unwrap().clone();
    ran.sort();
    assert_eq!(ran, ["x", "y"]);
}

#[test]
fn a_failing_group_adds_nothing() {
    let log: Log = Arc::default();
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, logger(&log, "taken").named("taken")).unwrap();
    let error =
        schedule.add_systems(&mut world, (logger(&log, "fine").named("fine"), logger(&log, "dup").named("taken")));
    assert!(error.is_err());
    schedule.run(&mut world);
    assert_eq!(*log.lock().unwrap(), ["taken"], "the first member was removed again");
    // The name is free again.
    schedule.add_system(&mut world, logger(&log, "fine").named("fine")).unwrap();
}

/// Under edition 2024 a closure that only panics returns `!`; bevy_ecs takes it as a
/// system (its own schedule tests use `|| panic!("must not run")`), and so does ripple.
#[test]
fn systems_that_only_panic_are_systems() {
    use ripple::system::{In, IntoIoSystem, Query};
    struct Hp;
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, (|| panic!("must not run")).run_if(|| false)).unwrap();
    schedule.add_system(&mut world, (|_: Query<&Hp>| panic!("must not run")).disabled()).unwrap();
    schedule.add_system(&mut world, (|| 1u32).pipe(|_: In<u32>| panic!("must not run")).run_if(|| false)).unwrap();
    schedule.run(&mut world);

    let mut failing = Schedule::new();
    failing.add_system(&mut world, || panic!("boom")).unwrap();
    let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| failing.run(&mut world)));
    assert!(ran.is_err(), "a system that panics makes the run panic, whatever its type");
}
