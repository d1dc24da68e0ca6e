//! A spawn that never happens leaves no ghost: an entity reserved by a spawn command
//! that is dropped unapplied (the hook that queued it panicked, or a command before it
//! did) is freed, its handle stale, never alive without its components.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use ripple::CommandQueue;
use ripple::prelude::*;

struct Crate;
struct Debris;

#[test]
fn a_hook_that_spawns_then_panics_leaves_no_ghost() {
    let mut world = World::new();
    let spawned = Arc::new(Mutex::new(None));
    let seen = spawned.clone();
    world.on_add::<Crate>(move |ctx| {
        *seen.lock().unwrap() = Some(ctx.commands.spawn((Debris,)));
        panic!("the hook failed after queueing a spawn");
    });
    assert!(catch_unwind(AssertUnwindSafe(|| world.spawn((Crate,)))).is_err());
    let ghost = spawned.lock().unwrap().expect("the hook reserved an entity");
    assert!(!world.contains(ghost));
    let other = world.spawn((Debris,)); // a structural operation after the panic
    assert!(!world.contains(ghost), "the reservation was freed, not made alive");
    assert_ne!(other, ghost, "a fresh handle");
    let mut all = world.query::<Entity>();
    let alive: Vec<Entity> = all.iter(&world).collect();
    assert!(!alive.contains(&ghost), "{alive:?}");
    assert_eq!(world.query::<&Debris>().iter(&world).count(), 1);
}

#[test]
fn spawns_queued_after_a_panicking_command_leave_no_ghosts() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let mut commands = queue.commands(&world);
    let first = commands.spawn((Debris,));
    commands.add(|_: &mut World| panic!("a command failed"));
    let dropped = [commands.spawn((Debris,)), commands.spawn((Crate, Debris))];
    assert!(catch_unwind(AssertUnwindSafe(|| queue.apply(&mut world))).is_err());
    assert!(world.get::<Debris>(first).is_ok(), "the spawn before the panic happened");
    for ghost in dropped {
        assert!(!world.contains(ghost), "{ghost:?} was never spawned");
    }
    assert_eq!(world.len(), 1);
    let mut queue = CommandQueue::default();
    let later = queue.commands(&world).spawn((Crate,));
    queue.apply(&mut world);
    assert!(world.get::<Crate>(later).is_ok(), "spawning still works");
    assert_eq!(world.len(), 2);
}

#[test]
fn a_dropped_queue_frees_its_reservations() {
    let mut world = World::new();
    let ghost = {
        let mut queue = CommandQueue::default();
        queue.commands(&world).spawn((Debris,))
    };
    world.spawn(());
    assert!(!world.contains(ghost));
    assert_eq!(world.len(), 1);
}
