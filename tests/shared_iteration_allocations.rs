//! Steady frames whose systems iterate read-only queries through `&self`, nested
//! inside themselves (change filters, `Dirty`, sparse components), allocate nothing:
//! the nested iterations reuse the rows the outer ones gathered.
//!
//! Every thread's allocations count, so this file holds a single test.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use ripple::Storage;
use ripple::prelude::*;
use ripple::schedule::PRE_UPDATE;

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

struct Pos(u32);
struct Tag;
#[derive(Default)]
struct Total(u64);

fn mover(mut positions: Query<&mut Pos>) {
    positions.for_each_mut(|mut pos| {
        if pos.0 % 4 == 0 {
            pos.0 += 4;
        }
    });
}

fn nested(
    changed: Query<&Pos, Changed<Pos>>,
    dirty: Query<&Pos, Dirty<(Pos,)>>,
    tagged: Query<&Pos, With<Tag>>,
    mut total: ResMut<Total>,
) {
    for a in &changed {
        total.0 += changed.iter().filter(|b| b.0 > a.0).count() as u64;
    }
    for _ in &dirty {
        total.0 += dirty.iter().count() as u64;
    }
    for _ in &tagged {
        total.0 += tagged.iter().count() as u64;
    }
}

#[test]
fn nested_shared_iterations_allocate_nothing_per_frame() {
    let mut world = World::new();
    world.set_storage::<Tag>(Storage::SparseSet).unwrap();
    world.init_resource::<Total>();
    for i in 0..400 {
        let e = world.spawn((Pos(i),));
        if i % 5 == 0 {
            world.insert_one(e, Tag).unwrap();
        }
    }
    let mut schedule = Schedule::new();
    schedule.set_single_threaded(true);
    schedule.add_system(&mut world, mover.in_phase(PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, nested).unwrap();
    for _ in 0..50 {
        schedule.run(&mut world);
    }
    let before = world.resource::<Total>().unwrap().0;
    let allocations = counting_alloc::allocations_on_all_threads(|| {
        for _ in 0..100 {
            schedule.run(&mut world);
        }
    });
    // Per frame: 100 changed entities (4,950 ordered pairs), 100 dirty (10,000),
    // 80 tagged (6,400).
    assert_eq!(world.resource::<Total>().unwrap().0 - before, 100 * (4_950 + 10_000 + 6_400));
    assert_eq!(allocations, 0, "steady frames allocated");
}
