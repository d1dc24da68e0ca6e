//! Runs the schedule skipped because a system's parameters could not be made (a
//! missing resource), kept for the caller to read instead of a panic.

/// The most skipped runs a schedule keeps until they are taken (older ones are
/// counted, not kept).
pub const MAX_SKIPPED_RUNS: usize = 256;

/// A run the schedule skipped: the system's parameters could not be made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkippedRun {
    /// The system.
    pub system: String,
    /// Why (what is missing).
    pub reason: String,
}

impl std::fmt::Display for SkippedRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "system `{}` skipped: {}", self.system, self.reason)
    }
}

/// The skipped runs not yet taken, and what to do on the next one.
#[derive(Debug, Default)]
pub(crate) struct SkippedRuns {
    pub(crate) runs: Vec<SkippedRun>,
    pub(crate) count: u64,
    /// Panic instead of skipping.
    pub(crate) panic: bool,
}

impl SkippedRuns {
    /// Records that `system` was skipped for `reason`, or panics if asked to.
    #[cold]
    pub(crate) fn skip(&mut self, system: &str, reason: String) {
        if self.panic {
            panic!("system `{system}` cannot run: {reason}");
        }
        self.count += 1;
        if self.runs.len() == MAX_SKIPPED_RUNS {
            // Forget the older half at once: each record costs O(1) amortized.
            self.runs.drain(..MAX_SKIPPED_RUNS / 2);
        }
        self.runs.push(SkippedRun { system: system.to_string(), reason });
    }
}
