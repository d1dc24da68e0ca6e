//! Observers and readers created and dropped, again and again, in a world where
//! nothing structural happens (nothing is pushed to the logs that used to trim dead
//! readers): the world's memory stays flat. Measured as the bytes this thread holds
//! through the allocator (allocated minus freed), so tests on other threads do not
//! count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ripple::DEFAULT_CHANGE_LOG_LIMIT;
use ripple::prelude::*;

struct Tracking;

thread_local! {
    /// Bytes allocated minus bytes freed by this thread.
    static HELD: Cell<isize> = const { Cell::new(0) };
}

fn note(delta: isize) {
    // `try_with`: the thread-local may be gone while a thread shuts down.
    let _ = HELD.try_with(|held| held.set(held.get() + delta));
}

// SAFETY: defers to `System` for every operation and only updates a thread-local
// counter, which does not allocate.
unsafe impl GlobalAlloc for Tracking {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as isize);
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note(-(layout.size() as isize));
        // SAFETY: forwarded unchanged; `ptr` came from `System` via this allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size() as isize);
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size as isize - layout.size() as isize);
        // SAFETY: forwarded unchanged; `ptr` came from `System` via this allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Tracking = Tracking;

fn held() -> isize {
    HELD.with(Cell::get)
}

struct Hp(#[allow(dead_code, reason = "only its presence matters")] u32);
struct Hit;

/// A million of each; fewer under a memory checker (`.ci/memcheck` sets
/// `RIPPLE_MEMCHECK`), which runs them fifty times slower and checks accesses, not the
/// budget.
fn rounds() -> usize {
    if std::env::var_os("RIPPLE_MEMCHECK").is_some() { 20_000 } else { 1_000_000 }
}

/// Bytes the thread holds after `rounds()` calls of `make_and_drop`, over what it held
/// after a warm-up.
fn growth(world: &mut World, mut make_and_drop: impl FnMut(&mut World)) -> isize {
    for _ in 0..1_000 {
        make_and_drop(world);
    }
    let before = held();
    for _ in 0..rounds() {
        make_and_drop(world);
    }
    held() - before
}

fn world() -> World {
    let mut world = World::new();
    world.spawn_batch((0..100).map(|i| (Hp(i),))).for_each(drop);
    world
}

const LIMIT: isize = 1 << 20;

#[test]
fn dropped_change_observers_release_their_memory() {
    let mut world = world();
    let changed = growth(&mut world, |w| drop(w.query_filtered::<Entity, Changed<Hp>>()));
    let added = growth(&mut world, |w| drop(w.query_filtered::<Entity, Added<Hp>>()));
    let dirty = growth(&mut world, |w| drop(w.query_filtered::<Entity, Dirty<(Hp,)>>()));
    let refs = growth(&mut world, |w| drop(w.query::<Ref<'_, Hp>>()));
    for (kind, bytes) in [("Changed", changed), ("Added", added), ("Dirty", dirty), ("Ref", refs)] {
        assert!(bytes < LIMIT, "{} {kind} observers made and dropped kept {bytes} bytes", rounds());
    }
}

#[test]
fn dropped_readers_release_their_memory() {
    let mut world = world();
    let removals = growth(&mut world, |w| drop(w.removal_reader::<Hp>()));
    let events = growth(&mut world, |w| drop(w.message_cursor::<Hit>()));
    for (kind, bytes) in [("removal readers", removals), ("event cursors", events)] {
        assert!(bytes < LIMIT, "{} {kind} made and dropped kept {bytes} bytes", rounds());
    }
}

/// Structural changes made while the idle observers below wait; fewer under a memory
/// checker, with a limit lowered to match, so that they still fall past it.
fn structural_changes() -> (usize, usize) {
    if std::env::var_os("RIPPLE_MEMCHECK").is_some() { (40_000, 1_024) } else { (4_000_000, DEFAULT_CHANGE_LOG_LIMIT) }
}

#[test]
fn an_idle_dirty_observer_and_removal_reader_hold_a_bounded_log_and_still_report() {
    let (changes, limit) = structural_changes();
    let mut world = world();
    world.set_change_log_limit(limit);
    let mut dirty = world.query_filtered::<Entity, Dirty<(Hp,)>>();
    let mut removed = world.removal_reader::<Hp>();
    assert_eq!(dirty.iter(&world).count(), 100, "a first run takes everything");
    let start = world.backlog_memory();
    let before = held();
    // Churn: each round spawns an entity with Hp and despawns the one spawned before
    // (two structural changes, one removal), and every 1,000th round damages an
    // entity that was there from the start, a change the observer must see.
    let keepers: Vec<Entity> = world.query::<Entity>().iter(&world).collect();
    let mut last = world.spawn((Hp(0),));
    let mut damaged = Vec::new();
    let mut despawned_last = last;
    for round in 1..changes / 2 {
        let next = world.spawn((Hp(round as u32),));
        world.despawn(last).unwrap();
        despawned_last = last;
        last = next;
        if round % 1_000 == 0 {
            let keeper = keepers[round / 1_000 % keepers.len()];
            world.get_mut::<Hp>(keeper).unwrap().0 += 1;
            damaged.push(keeper);
        }
    }
    let memory = world.backlog_memory();
    let grown = held() - before;
    // A structural change is an entity, two table ids and an optional component id;
    // a removal an entity and a tick.
    let budget = (limit * (32 + 16)) as isize;
    assert!(
        memory.bytes() <= budget as usize,
        "the world holds {memory:?} for idle observers, over a budget of {budget} bytes (from {start:?})"
    );
    assert!(grown <= budget + LIMIT, "{changes} structural changes with idle observers grew memory by {grown} bytes");

    // The Dirty observer fell behind the log: it reports every matching entity, so
    // every one it must (the survivor of the churn and the damaged keepers) among them.
    let reported: Vec<Entity> = dirty.iter(&world).collect();
    assert_eq!(reported.len(), world.query::<&Hp>().iter(&world).count());
    for must in damaged.iter().chain([&last]) {
        assert!(reported.contains(must), "{must:?} changed but the idle observer did not report it");
    }
    // Caught up, it is exact again.
    world.get_mut::<Hp>(keepers[3]).unwrap().0 += 1;
    assert_eq!(dirty.iter(&world).collect::<Vec<_>>(), [keepers[3]]);

    // The removal reader missed the oldest removals, is told how many, and gets the
    // newest in order.
    let removals = removed.read(&world);
    let (missed, kept) = (removals.missed(), removals.collect::<Vec<_>>());
    assert!(missed > 0, "the idle reader fell past the limit of {limit}");
    assert_eq!(missed + kept.len() as u64, (changes / 2 - 1) as u64, "every removal is read or counted as missed");
    assert_eq!(kept.last().map(|&(e, _)| e), Some(despawned_last), "the newest removals are kept");
    world.despawn(last).unwrap();
    let removals = removed.read(&world);
    assert_eq!((removals.missed(), removals.map(|(e, _)| e).collect::<Vec<_>>()), (0, vec![last]));
}
