//! The counting global allocator of the allocation tests, included by each with
//! `#[path = "support/counting_alloc.rs"] mod counting_alloc;`: it installs itself as
//! the test binary's global allocator.
//!
//! Two ways to count: allocations made by the calling thread only (so the harness's
//! other test threads do not disturb the figure), or by every thread (systems run on
//! rayon's workers; a file counting this way holds a single test).
#![allow(dead_code, reason = "each test file uses one of the two ways to count")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Forwards to `System`, counting allocations while a count is on.
pub struct Counting;

static ALL_THREADS: AtomicBool = AtomicBool::new(false);
static ALL_COUNT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    static THIS_THREAD: Cell<bool> = const { Cell::new(false) };
    static THIS_COUNT: Cell<usize> = const { Cell::new(0) };
}

fn note() {
    if ALL_THREADS.load(Ordering::Relaxed) {
        ALL_COUNT.fetch_add(1, Ordering::Relaxed);
    }
    // `try_with`: the thread-locals may be gone while a thread shuts down.
    let _ = THIS_THREAD.try_with(|on| {
        if on.get() {
            let _ = THIS_COUNT.try_with(|n| n.set(n.get() + 1));
        }
    });
}

// SAFETY: defers to `System` for every operation and only adds counter updates,
// which do not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded unchanged; the caller upholds `GlobalAlloc::alloc`'s contract.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged; `ptr` came from `System` via this allocator.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded unchanged.
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: forwarded unchanged; `ptr` came from `System` via this allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// Allocations made by `f` on the calling thread.
pub fn allocations_on_this_thread(f: impl FnOnce()) -> usize {
    THIS_COUNT.with(|n| n.set(0));
    THIS_THREAD.with(|on| on.set(true));
    f();
    THIS_THREAD.with(|on| on.set(false));
    THIS_COUNT.with(|n| n.get())
}

/// Allocations made by any thread while `f` runs.
pub fn allocations_on_all_threads(f: impl FnOnce()) -> usize {
    ALL_COUNT.store(0, Ordering::SeqCst);
    ALL_THREADS.store(true, Ordering::SeqCst);
    f();
    ALL_THREADS.store(false, Ordering::SeqCst);
    ALL_COUNT.load(Ordering::SeqCst)
}
