//! The profiler's clock: [`std::time::Instant`] where the platform has one. On
//! `wasm32-unknown-unknown`, where `Instant::now` panics, there is no clock: profiling
//! is off there and cannot be turned on. Nothing reads the clock unless profiling is
//! on, so building a schedule never does.

use std::time::Instant;

/// Whether this platform has a clock the profiler can read.
pub(crate) const AVAILABLE: bool = !cfg!(all(target_arch = "wasm32", target_os = "unknown"));

/// The time now, if the platform has a clock.
#[inline]
pub(crate) fn now() -> Option<Instant> {
    if !AVAILABLE {
        return None;
    }
    #[cfg(test)]
    READS.with(|reads| reads.set(reads.get() + 1));
    Some(Instant::now())
}

#[cfg(test)]
thread_local! {
    /// How many times this thread read the clock (tests check who reads it).
    pub(crate) static READS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

#[cfg(test)]
mod tests {
    use super::READS;
    use crate::World;
    use crate::schedule::Schedule;

    fn reads() -> usize {
        READS.with(|reads| reads.get())
    }

    #[test]
    fn building_a_schedule_never_reads_the_clock_and_running_reads_it_only_when_profiling() {
        let before = reads();
        let mut world = World::new();
        let mut schedule = Schedule::new();
        schedule.set_single_threaded(true);
        assert_eq!(reads(), before, "Schedule::new reads no clock");
        schedule.set_profiling(false);
        schedule.add_system(&mut world, || {}).unwrap();
        schedule.run(&mut world);
        assert_eq!(reads(), before, "no clock while profiling is off");
        schedule.set_profiling(true);
        schedule.run(&mut world);
        assert!(reads() > before, "profiling reads the clock");
        assert_eq!(schedule.report_rows()[0].stats.runs, 1);
    }
}
