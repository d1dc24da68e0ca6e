//! Rollback's behaviours beside the model test: runtime components, immutable
//! components, disabled entities, `OnChange` after a rollback, memory per checkpoint,
//! allocation-free steady frames, undo and redo at random, and typed errors.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::alloc::Layout;

use ripple::dynamic::ComponentDescriptor;
use ripple::observer::{OnChange, Trigger};
use ripple::prelude::*;
use ripple::rollback::{Rollback, RollbackError, UndoHistory};
use ripple::{Disabled, Entity};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

#[derive(Clone, Copy, PartialEq, Debug)]
struct Pos(f32, f32);

#[derive(Clone, Copy, PartialEq, Debug)]
struct Hp(u32);

#[derive(Default)]
struct Seen(Vec<(Entity, u32)>);

#[test]
fn runtime_components_come_back_byte_for_byte() {
    let mut world = World::new();
    let id = world.register_component(ComponentDescriptor::new("Heat", 4, 4).unwrap());
    let a = world.spawn(());
    world.insert_by_id(a, id, &7u32.to_le_bytes()).unwrap();
    let b = world.spawn(());
    let mut rollback = Rollback::new(&mut world, 4);
    rollback.register_by_id(&mut world, id, true).unwrap();
    let start = rollback.checkpoint(&world);
    let sum = rollback.checksum(start);

    world.get_mut_by_id(a, id).unwrap().copy_from_slice(&9u32.to_le_bytes());
    world.insert_by_id(b, id, &1u32.to_le_bytes()).unwrap();
    rollback.checkpoint(&world);
    world.remove_by_id(a, id).unwrap();
    world.despawn(b).unwrap();
    assert_ne!(rollback.checksum(rollback.frame()), sum);

    rollback.rollback_to(&mut world, start).unwrap();
    assert_eq!(world.get_by_id(a, id).unwrap(), &7u32.to_le_bytes());
    assert!(world.contains(b), "b comes back");
    assert!(world.get_by_id(b, id).is_err(), "without the component it did not have then");
    assert_eq!(rollback.checksum(start), sum);
}

#[test]
fn what_cannot_be_kept_is_refused_by_name() {
    let mut world = World::new();
    let mut rollback = Rollback::new(&mut world, 4);
    let typed = world.register_component(ComponentDescriptor::new("Heat", 4, 4).unwrap());
    world.spawn((Hp(1),));
    let hp = world.component_id::<Hp>().unwrap();
    assert_eq!(
        rollback.register_by_id(&mut world, hp, false).unwrap_err(),
        RollbackError::Typed { component: std::any::type_name::<Hp>() }
    );
    let mut other = World::new();
    let beyond = (0..=typed.index() + 100)
        .map(|i| other.register_component(ComponentDescriptor::new(&format!("X{i}"), 1, 1).unwrap()))
        .last()
        .unwrap();
    assert_eq!(
        rollback.register_by_id(&mut world, beyond, false).unwrap_err(),
        RollbackError::UnknownComponent(beyond)
    );
    unsafe fn forget(_: *mut u8) {}
    // SAFETY: `forget` does nothing, whatever the bytes.
    let owning = world.register_component(unsafe {
        ComponentDescriptor::from_layout("Owner", Layout::new::<u64>()).with_drop(forget)
    });
    let refused = rollback.register_by_id(&mut world, owning, false).unwrap_err();
    assert_eq!(refused, RollbackError::NotPlainData { component: "Owner" });
    assert!(refused.to_string().contains("drop function"), "{refused}");
}

#[test]
fn immutable_components_are_restored_by_replacing_them() {
    let mut world = World::new();
    world.register_immutable::<Hp>();
    let e = world.spawn((Hp(5),));
    let mut rollback = Rollback::new(&mut world, 4);
    rollback.register::<Hp>(&mut world);
    let start = rollback.checkpoint(&world);
    world.insert(e, (Hp(1),)).unwrap();
    rollback.rollback_to(&mut world, start).unwrap();
    assert_eq!(world.get::<Hp>(e), Ok(&Hp(5)));
}

#[test]
fn disabled_entities_are_kept_too() {
    let mut world = World::new();
    let e = world.spawn((Hp(5), Disabled));
    let mut rollback = Rollback::new(&mut world, 4);
    rollback.register::<Hp>(&mut world);
    let start = rollback.checkpoint(&world);
    world.get_mut::<Hp>(e).unwrap().0 = 1;
    rollback.checkpoint(&world);
    rollback.rollback_to(&mut world, start).unwrap();
    assert_eq!(world.get::<Hp>(e), Ok(&Hp(5)));
}

#[test]
fn on_change_after_a_rollback_sees_exactly_the_values_that_differ() {
    let mut world = World::new();
    world.init_resource::<Seen>();
    world
        .add_observer(|t: Trigger<OnChange<Hp>>, mut seen: ResMut<Seen>, hp: Query<&Hp>| {
            seen.0.push((t.entity(), hp.get(t.entity()).unwrap().0));
        })
        .unwrap();
    let es: Vec<Entity> = (0..6).map(|i| world.spawn((Hp(i),))).collect();
    world.flush();
    let mut rollback = Rollback::new(&mut world, 8);
    rollback.register::<Hp>(&mut world);
    let start = rollback.checkpoint(&world);
    world.get_mut::<Hp>(es[0]).unwrap().0 = 50; // differs at the rollback
    world.get_mut::<Hp>(es[1]).unwrap().0 = 60;
    rollback.checkpoint(&world);
    world.get_mut::<Hp>(es[1]).unwrap().0 = 1; // written back to its value at `start`
    world.get_mut::<Hp>(es[2]).unwrap().0 = 70; // changed since the newest checkpoint
    world.flush();
    world.resource_mut::<Seen>().unwrap().0.clear();

    rollback.rollback_to(&mut world, start).unwrap();
    world.flush();
    let mut seen = std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0);
    seen.sort();
    assert_eq!(seen, [(es[0], 0), (es[2], 2)], "only the values that differ from before the rollback");
}

#[test]
fn a_checkpoint_holds_at_most_twice_the_changed_values_bytes() {
    const N: usize = 10_000;
    const K: usize = 100;
    let mut world = World::new();
    let es: Vec<Entity> = world.spawn_batch((0..N).map(|i| (Pos(i as f32, 0.0),))).collect();
    let mut rollback = Rollback::new(&mut world, 8);
    rollback.register::<Pos>(&mut world);
    for frame in 0..20 {
        for i in 0..K {
            world.get_mut::<Pos>(es[(i * 97 + frame * 13) % N]).unwrap().1 += 1.0;
        }
        rollback.checkpoint(&world);
    }
    let memory = rollback.memory();
    assert_eq!(memory.frames, 9);
    let changed_bytes = 8 * K * std::mem::size_of::<Pos>();
    assert!(memory.recorded <= 2 * changed_bytes, "{} bytes recorded for {changed_bytes} changed", memory.recorded);
    assert!(memory.recorded >= changed_bytes, "the previous values are kept: {}", memory.recorded);
}

#[test]
fn steady_frames_with_checkpoints_and_rollbacks_allocate_nothing() {
    let mut world = World::new();
    let es: Vec<Entity> = world.spawn_batch((0..1000).map(|i| (Pos(i as f32, 0.0), Hp(1)))).collect();
    let mut rollback = Rollback::new(&mut world, 8);
    rollback.register::<Pos>(&mut world).register::<Hp>(&mut world);
    let frame = |world: &mut World, rollback: &mut Rollback, f: usize| {
        for i in 0..50 {
            world.get_mut::<Pos>(es[(i * 31 + f * 7) % 1000]).unwrap().0 += 1.0;
        }
        rollback.checkpoint(world);
        if f % 5 == 4 {
            let back = rollback.frame() - 3;
            rollback.rollback_to(world, back).unwrap();
        }
    };
    for f in 0..40 {
        frame(&mut world, &mut rollback, f); // warm: the ring's buffers grow to their size
    }
    let allocations = counting_alloc::allocations_on_this_thread(|| {
        for f in 40..80 {
            frame(&mut world, &mut rollback, f);
        }
    });
    assert_eq!(allocations, 0);
}

#[test]
fn undo_and_redo_at_random_walk_the_same_states() {
    let mut world = World::new();
    let mut history = UndoHistory::new(&mut world, 64);
    history.register::<Hp>(&mut world);
    let mut states = vec![snapshot(&mut world)];
    let mut at = 0;
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    for _ in 0..400 {
        match next(4) {
            0 if at > 0 => {
                history.undo(&mut world).unwrap();
                at -= 1;
            }
            1 if at + 1 < states.len() => {
                history.redo(&mut world).unwrap();
                at += 1;
            }
            _ => {
                let alive: Vec<Entity> = world.query::<Entity>().iter(&world).collect();
                match next(3) {
                    0 => drop(world.spawn((Hp(next(9) as u32),))),
                    1 if !alive.is_empty() => world.despawn(alive[next(alive.len() as u64) as usize]).unwrap(),
                    _ if !alive.is_empty() => {
                        let _ = world.insert(alive[next(alive.len() as u64) as usize], (Hp(next(9) as u32),));
                    }
                    _ => {}
                }
                if history.commit(&world, "edit") {
                    states.truncate(at + 1);
                    states.push(snapshot(&mut world));
                    at += 1;
                }
            }
        }
        assert_eq!(snapshot(&mut world), states[at]);
    }
}

fn snapshot(world: &mut World) -> Vec<(Entity, Option<Hp>)> {
    let mut all: Vec<(Entity, Option<Hp>)> = world
        .query::<Entity>()
        .iter(world)
        .collect::<Vec<_>>()
        .into_iter()
        .map(|e| (e, world.get::<Hp>(e).ok().copied()))
        .collect();
    all.sort_by_key(|(e, _)| e.to_bits());
    all
}

#[test]
fn a_hook_that_panics_during_a_rollback_loses_nothing_kept() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let mut world = World::new();
    let armed = Arc::new(AtomicBool::new(false));
    let trap = armed.clone();
    world.on_add::<Hp>(move |_| assert!(!trap.load(Ordering::Relaxed), "the hook panics"));
    let a = world.spawn((Hp(13),));
    let b = world.spawn((Hp(2),));
    let mut rollback = Rollback::new(&mut world, 8);
    rollback.register::<Hp>(&mut world);
    let start = rollback.checkpoint(&world);
    world.despawn(a).unwrap();
    world.get_mut::<Hp>(b).unwrap().0 = 20;
    rollback.checkpoint(&world);

    armed.store(true, Ordering::Relaxed);
    let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let _ = rollback.rollback_to(&mut world, start);
    }));
    assert!(panicked.is_err(), "bringing `a` back runs the hook");
    armed.store(false, Ordering::Relaxed);
    assert_eq!(rollback.frame(), start, "the rollback's own records went back to `start`");

    // Whatever the world holds now is a change since `start`; rolling back again
    // finishes the job.
    rollback.checkpoint(&world);
    rollback.rollback_to(&mut world, start).unwrap();
    assert_eq!(world.get::<Hp>(a), Ok(&Hp(13)));
    assert_eq!(world.get::<Hp>(b), Ok(&Hp(2)));
}

#[test]
fn registering_mid_session_starts_the_kept_frames_anew() {
    let mut world = World::new();
    let e = world.spawn((Hp(1), Pos(0.0, 0.0)));
    let mut rollback = Rollback::new(&mut world, 8);
    rollback.register::<Hp>(&mut world);
    let early = rollback.checkpoint(&world);
    world.get_mut::<Hp>(e).unwrap().0 = 2;
    world.get_mut::<Pos>(e).unwrap().0 = 1.0;
    rollback.checkpoint(&world);
    world.get_mut::<Hp>(e).unwrap().0 = 3; // not yet checkpointed when Pos registers
    rollback.register::<Pos>(&mut world);
    let registered = rollback.frame();
    assert_eq!(rollback.oldest_frame(), registered, "frames before the registration are forgotten");
    assert!(matches!(rollback.rollback_to(&mut world, early), Err(RollbackError::FrameNotKept { .. })));
    world.get_mut::<Hp>(e).unwrap().0 = 4;
    world.get_mut::<Pos>(e).unwrap().0 = 5.0;
    rollback.checkpoint(&world);
    rollback.rollback_to(&mut world, registered).unwrap();
    assert_eq!(world.get::<Hp>(e), Ok(&Hp(3)));
    assert_eq!(world.get::<Pos>(e), Ok(&Pos(1.0, 0.0)));
}
