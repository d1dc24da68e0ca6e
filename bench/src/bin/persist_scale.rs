//! persist_scale: ripple's binary save and load of 1,000,000 entities of (Transform,
//! Position, Rotation, Velocity) against the floor, postcard of a plain `Vec<SceneRow>`,
//! in one process; and the heap ripple's save takes beyond the world it saves.
//!
//! Speed: five rounds; each saves with ripple and with the floor, then loads with both,
//! the side going first alternating from round to round, so that both sides of a figure
//! saw the same machine (as `paired` does). Medians of the five. A save writes into a
//! buffer kept from the round before (cleared, its capacity kept, its pages touched by an
//! untimed save), so that its time is the encoding and not the kernel's page faults; a
//! load's time includes creating the empty world (or `Vec`) and leaves out dropping the
//! loaded one. MB/s are of the saved bytes, in 10^6 bytes.
//!
//! Memory: a counting global allocator keeps the bytes allocated and not freed, and their
//! peak. The process's first ripple save goes into a new, empty `Vec`; the peak is reset
//! to the current count just before it, and the figure is the peak minus that count, so it
//! includes the output buffer. It is printed beside the output's length and capacity and
//! the world's component bytes (N × the four components' sizes), with whether it stays
//! within the output plus 10 % of the component bytes: a save that streams the world
//! needs little beyond its output; one that first copies the world needs about as much
//! again. The floor's save is measured the same way, for reference. A `realloc` counts as
//! the difference of its two sizes, the live bytes the program asked for (an allocator
//! may briefly hold both blocks while it copies; glibc moves blocks this large with
//! `mremap`, without a copy). The counting's atomic adds are paid by both sides alike.
//!
//! Usage: `cargo run -p bench --release --bin persist_scale [entities]` (default
//! 1,000,000). Prints one `name value` line per figure, and at the default size keeps
//! them in bench/PERSIST_SCALE.md for the report.

use std::alloc::{GlobalAlloc, Layout, System};
use std::hint::black_box;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Instant;

use bench::{Position, Rotation, SceneRow, Transform, Velocity, tprv};

/// Timed runs of each figure; their median is printed.
const ROUNDS: usize = 5;

/// Forwards to the system allocator, counting the bytes live now and their peak.
struct Counting;

/// Bytes allocated and not yet freed.
static CURRENT: AtomicUsize = AtomicUsize::new(0);
/// The highest [`CURRENT`] since the last reset.
static PEAK: AtomicUsize = AtomicUsize::new(0);

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn grew(bytes: usize) {
    let now = CURRENT.fetch_add(bytes, Relaxed) + bytes;
    PEAK.fetch_max(now, Relaxed);
}

fn shrank(bytes: usize) {
    CURRENT.fetch_sub(bytes, Relaxed);
}

// SAFETY: every method passes its arguments unchanged to `System`, which keeps
// GlobalAlloc's contract; the counting only reads the sizes.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's guarantees for `layout` are the ones `System.alloc` needs.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            grew(layout.size());
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from `System`, with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        shrank(layout.size());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as for `dealloc`, and the caller's guarantees for `new_size`.
        let new = unsafe { System.realloc(ptr, layout, new_size) };
        if !new.is_null() {
            if new_size >= layout.size() {
                grew(new_size - layout.size());
            } else {
                shrank(layout.size() - new_size);
            }
        }
        new
    }
}

/// Runs `f` and returns the peak of live heap bytes during it, above those live before.
fn peak_during(f: impl FnOnce()) -> usize {
    let before = CURRENT.load(Relaxed);
    PEAK.store(before, Relaxed);
    f();
    PEAK.load(Relaxed) - before
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// 10^6 bytes per second.
fn mb_s(bytes: usize, seconds: f64) -> f64 {
    bytes as f64 / seconds / 1e6
}

fn main() {
    bench::pin_allocator();
    let n: usize =
        std::env::args().nth(1).map(|arg| arg.parse().expect("the entity count, a number")).unwrap_or(1_000_000);
    let component_bytes =
        n * (size_of::<Transform>() + size_of::<Position>() + size_of::<Rotation>() + size_of::<Velocity>());

    let mut registry = ripple::scene::SceneRegistry::new();
    registry.component::<Transform>("transform").unwrap();
    registry.component::<Position>("position").unwrap();
    registry.component::<Rotation>("rotation").unwrap();
    registry.component::<Velocity>("velocity").unwrap();
    let mut world = ripple::World::new();
    world.spawn_batch((0..n).map(|_| tprv()));
    let rows: Vec<SceneRow> = (0..n).map(|_| SceneRow::from(tprv())).collect();

    // Memory, on each side's first save, into a new buffer.
    let mut ripple_bytes: Vec<u8> = Vec::new();
    let ripple_peak = peak_during(|| {
        let _ = registry.save(&world).to_binary_vec(&mut ripple_bytes).unwrap();
    });
    let mut ideal_bytes: Vec<u8> = Vec::new();
    let ideal_peak = peak_during(|| {
        postcard::to_io(&rows, &mut ideal_bytes).unwrap();
    });

    // Untimed: both load back whole.
    let mut loaded = ripple::World::new();
    let _ = registry.load_binary(&mut loaded, &ripple_bytes).unwrap();
    assert_eq!(loaded.len(), n);
    assert_eq!(loaded.query::<&Position>().iter_mut(&mut loaded).count(), n);
    drop(loaded);
    let loaded: Vec<SceneRow> = postcard::from_bytes(&ideal_bytes).unwrap();
    assert!(loaded == rows, "the floor's rows came back different");
    drop(loaded);

    // The timed saves' buffers, their pages touched by one untimed save each.
    let mut ripple_out: Vec<u8> = Vec::new();
    let _ = registry.save(&world).to_binary_vec(&mut ripple_out).unwrap();
    let mut ideal_out: Vec<u8> = Vec::new();
    postcard::to_io(&rows, &mut ideal_out).unwrap();

    let (mut ripple_save, mut ideal_save, mut ripple_load, mut ideal_load) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let ripple_first = round % 2 == 0;
        for ripple_turn in [ripple_first, !ripple_first] {
            if ripple_turn {
                ripple_out.clear();
                let start = Instant::now();
                let _ = registry.save(&world).to_binary_vec(&mut ripple_out).unwrap();
                ripple_save.push(start.elapsed().as_secs_f64());
                black_box(&ripple_out);
            } else {
                ideal_out.clear();
                let start = Instant::now();
                postcard::to_io(&rows, &mut ideal_out).unwrap();
                ideal_save.push(start.elapsed().as_secs_f64());
                black_box(&ideal_out);
            }
        }
        for ripple_turn in [ripple_first, !ripple_first] {
            if ripple_turn {
                let start = Instant::now();
                let mut loaded = ripple::World::new();
                let _ = registry.load_binary(&mut loaded, &ripple_bytes).unwrap();
                ripple_load.push(start.elapsed().as_secs_f64());
                // Dropped at the end of the statement, after the timing.
                assert_eq!(black_box(loaded).len(), n);
            } else {
                let start = Instant::now();
                let loaded: Vec<SceneRow> = postcard::from_bytes(&ideal_bytes).unwrap();
                ideal_load.push(start.elapsed().as_secs_f64());
                assert_eq!(black_box(loaded).len(), n);
            }
        }
    }
    assert_eq!(ripple_out.len(), ripple_bytes.len(), "ripple's saves differ in length");
    assert_eq!(ideal_out.len(), ideal_bytes.len(), "the floor's saves differ in length");

    let (ripple_save, ideal_save) = (median(&mut ripple_save), median(&mut ideal_save));
    let (ripple_load, ideal_load) = (median(&mut ripple_load), median(&mut ideal_load));
    let allowance = component_bytes / 10;
    // Each figure as a `name value` line, printed and (for the default size) kept in
    // bench/PERSIST_SCALE.md, where the report reads the bars from.
    let mut lines = String::new();
    bench::figure!(lines, "entities {n}");
    bench::figure!(lines, "rounds {ROUNDS}");
    bench::figure!(lines, "component_bytes {component_bytes}");
    bench::figure!(lines, "ripple_binary_bytes {}", ripple_bytes.len());
    bench::figure!(lines, "ideal_binary_bytes {}", ideal_bytes.len());
    bench::figure!(lines, "ripple_save_ms {:.3}", ripple_save * 1e3);
    bench::figure!(lines, "ideal_save_ms {:.3}", ideal_save * 1e3);
    bench::figure!(lines, "ripple_save_mb_s {:.1}", mb_s(ripple_bytes.len(), ripple_save));
    bench::figure!(lines, "ideal_save_mb_s {:.1}", mb_s(ideal_bytes.len(), ideal_save));
    bench::figure!(lines, "save_time_ratio_ripple_over_ideal {:.3}", ripple_save / ideal_save);
    bench::figure!(lines, "ripple_load_ms {:.3}", ripple_load * 1e3);
    bench::figure!(lines, "ideal_load_ms {:.3}", ideal_load * 1e3);
    bench::figure!(lines, "ripple_load_mb_s {:.1}", mb_s(ripple_bytes.len(), ripple_load));
    bench::figure!(lines, "ideal_load_mb_s {:.1}", mb_s(ideal_bytes.len(), ideal_load));
    bench::figure!(lines, "load_time_ratio_ripple_over_ideal {:.3}", ripple_load / ideal_load);
    bench::figure!(lines, "ripple_save_peak_bytes {ripple_peak}");
    bench::figure!(lines, "ripple_save_output_len {}", ripple_bytes.len());
    bench::figure!(lines, "ripple_save_output_capacity {}", ripple_bytes.capacity());
    bench::figure!(
        lines,
        "ripple_save_peak_minus_output_capacity {}",
        ripple_peak as i64 - ripple_bytes.capacity() as i64
    );
    bench::figure!(
        lines,
        "ripple_save_peak_minus_output_capacity_pct_of_component_bytes {:.2}",
        (ripple_peak as f64 - ripple_bytes.capacity() as f64) / component_bytes as f64 * 100.0
    );
    bench::figure!(lines, "ideal_save_peak_bytes {ideal_peak}");
    bench::figure!(lines, "ideal_save_output_capacity {}", ideal_bytes.capacity());
    bench::figure!(
        lines,
        "ripple_save_peak_le_output_len_plus_10pct_components {}",
        ripple_peak <= ripple_bytes.len() + allowance
    );
    bench::figure!(
        lines,
        "ripple_save_peak_le_output_capacity_plus_10pct_components {}",
        ripple_peak <= ripple_bytes.capacity() + allowance
    );
    print!("{lines}");
    if n == 1_000_000 {
        bench::keep_figures(
            "PERSIST_SCALE.md",
            "persist_scale",
            &format!("1,000,000 entities; medians of {ROUNDS} rounds, ripple and the floor alternating"),
            &lines,
        );
    }
}
