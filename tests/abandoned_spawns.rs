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

#[test]
fn a_spawn_abandoned_inside_a_despawn_does_not_disturb_it() {
    struct Tag;
    let mut world = World::new();
    world.set_storage::<Tag>(ripple::Storage::SparseSet).unwrap();
    world.on_remove::<Tag>(|ctx| {
        // A queue of the hook's own, dropped unapplied: its spawn is abandoned while
        // the despawn that ran the hook is under way.
        let mut queue = CommandQueue::default();
        queue.commands(ctx.world).spawn((Debris,));
    });
    let doomed = world.spawn((Tag, Crate));
    let other = world.spawn((Tag,));
    world.despawn(doomed).unwrap();
    assert!(!world.contains(doomed));
    assert!(world.entity(other).unwrap().has::<Tag>(), "the other entity keeps its Tag");
    let reused = world.spawn((Crate,));
    assert!(!world.entity(reused).unwrap().has::<Tag>(), "a reused slot has no stale sparse value");
    let tags = world.query::<(Entity, &Tag)>().iter(&world).map(|(e, _)| e).collect::<Vec<_>>();
    assert_eq!(tags, vec![other]);
    assert_eq!(world.len(), 2, "the abandoned reservation was freed");
}
