//! Observers and readers created and dropped, again and again, in a world where
//! nothing structural happens (nothing is pushed to the logs that used to trim dead
//! readers): the world's memory stays flat. Measured as the bytes this thread holds
//! through the allocator (allocated minus freed), so tests on other threads do not
//! count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

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
    let events = growth(&mut world, |w| drop(w.event_cursor::<Hit>()));
    for (kind, bytes) in [("removal readers", removals), ("event cursors", events)] {
        assert!(bytes < LIMIT, "{} {kind} made and dropped kept {bytes} bytes", rounds());
    }
}
