//! Running one system's slot: on the calling thread, exclusively, or as one task of
//! a parallel stage, with the profiler's sampled measurement around the run.

use std::time::{Duration, Instant};

use super::Slot;
use super::clock;
use super::profiler::Profiler;
use crate::world::World;

/// A slot handed to a parallel task.
#[derive(Clone, Copy)]
pub(super) struct SlotPtr(pub(super) *mut Slot);

// SAFETY: a `SlotPtr` is only made for a slot of a stage being run, each slot once,
// and dereferenced by the one task that runs it; `Slot` is `Send`.
unsafe impl Send for SlotPtr {}
// SAFETY: as above: tasks share the list, never a slot.
unsafe impl Sync for SlotPtr {}

/// Runs the slots of a stage in parallel, splitting the list in halves.
pub(super) fn run_parallel(slots: &[SlotPtr], world: &World, profiler: &Profiler) {
    match slots {
        [] => {}
        [one] => run_task(*one, world, profiler),
        _ => {
            let (left, right) = slots.split_at(slots.len() / 2);
            rayon::join(|| run_parallel(left, world, profiler), || run_parallel(right, world, profiler));
        }
    }
}

/// Runs one slot of a stage, handed to a task, on a shared world.
fn run_task(SlotPtr(slot): SlotPtr, world: &World, profiler: &Profiler) {
    // SAFETY: each slot of the stage is listed once and run by one task; the slots
    // outlive the stage (borrowed by `run_stage`).
    run_shared(unsafe { &mut *slot }, world, profiler);
}

/// Runs one slot of a stage on a shared world.
pub(super) fn run_shared(slot: &mut Slot, world: &World, profiler: &Profiler) {
    #[cfg(feature = "trace")]
    let _span = tracing::info_span!("system", name = slot.system.name()).entered();
    let start = measure_start(slot, profiler, world);
    // SAFETY: the systems of one stage never conflict, so the access this one
    // declared is not used by anyone else while it runs.
    unsafe { slot.system.run_shared(world) };
    if let Some(start) = start {
        finish_profile(slot, profiler, start, world);
    }
}

/// Runs an exclusive system.
pub(super) fn run_exclusive(slot: &mut Slot, world: &mut World, profiler: &Profiler) {
    #[cfg(feature = "trace")]
    let _span = tracing::info_span!("system", name = slot.system.name()).entered();
    let start = measure_start(slot, profiler, world);
    slot.system.run_exclusive(world);
    if let Some(start) = start {
        finish_profile(slot, profiler, start, world);
    }
}

/// Counts a run about to start and, if the profiler measures it, clears the system's
/// entity counts (unmeasured runs add to them) and reads the clock.
#[inline]
fn measure_start(slot: &mut Slot, profiler: &Profiler, world: &World) -> Option<Instant> {
    if !profiler.measures(&mut slot.stats, &mut slot.until_measured) {
        return None;
    }
    let _ = slot.system.entity_counts(world);
    clock::now()
}

/// Records a run that started at `start` and just ended.
fn finish_profile(slot: &mut Slot, profiler: &Profiler, start: Instant, world: &World) {
    let duration = clock::now().map_or(Duration::ZERO, |end| end.saturating_duration_since(start));
    let counts = slot.system.entity_counts(world);
    slot.stats.record(duration, counts);
    if profiler.tracing {
        let thread = rayon::current_thread_index().map_or(0, |index| index + 1);
        if let Some(event) = profiler.trace_event(start, duration, thread) {
            slot.trace.push(event);
        }
    }
}
