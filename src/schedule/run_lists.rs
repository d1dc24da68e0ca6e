//! What a run of a phase walks, resolved from its plan whenever the plan is made: the
//! stages as slot indices, the few slots a sync point has to call, and for each
//! stage whether its next run is worth other threads. A run then never maps a plan
//! position to a member and a member to a slot, and never calls a system that has
//! nothing to hand over.

use std::time::Duration;

use super::profiler::Profiler;

/// A stage whose systems took less than this together on their last runs runs on
/// the calling thread: handing work to other threads costs more than it saves.
const PARALLEL_MIN: Duration = Duration::from_micros(20);

/// A phase's plan, resolved to slot indices.
#[derive(Debug, Default)]
pub(crate) struct RunLists {
    /// The plan's stages as slot indices, stage after stage (each stage's range is
    /// the plan's).
    pub(crate) staged: Vec<u32>,
    /// In run order, the slots whose sync point has something to do: they defer
    /// commands or can return an error.
    pub(crate) sync: Vec<u32>,
    /// In run order, the slots with entity enter or exit callbacks.
    pub(crate) watchers: Vec<u32>,
    /// Per stage: whether its next run hands systems to other threads, judged when
    /// its last run ended (every stage starts out parallel: nothing is known yet).
    pub(crate) parallel: Vec<bool>,
}

impl RunLists {
    /// Forgets what the stages' last runs said, so each runs in parallel again until
    /// a run measures it (after a system is enabled: it may never have run).
    pub(crate) fn forget_estimates(&mut self) {
        self.parallel.fill(true);
    }
}

/// What one run of a stage says about the next: the durations of the systems that
/// ran, and whether any enabled system of the stage has never been measured.
#[derive(Default)]
pub(crate) struct StageEstimate {
    total: Duration,
    longest: Duration,
    unknown: bool,
}

impl StageEstimate {
    /// Counts a system of the stage that is enabled, whether it ran or not: one that
    /// never ran makes its duration unknown.
    #[inline]
    pub(crate) fn enabled(&mut self, runs: u64) {
        self.unknown |= runs == 0;
    }

    /// Counts the last measured duration of a system that ran.
    #[inline]
    pub(crate) fn ran(&mut self, last: Duration) {
        self.total = self.total.saturating_add(last);
        self.longest = self.longest.max(last);
    }

    /// Whether the stage's next run is worth other threads: only if the work beside
    /// its longest system is enough (always while a duration is unknown, or while
    /// the profiler, which measures them, is off).
    pub(crate) fn parallel(&self, profiler: &Profiler) -> bool {
        self.unknown || !profiler.enabled || self.total - self.longest >= PARALLEL_MIN
    }
}
