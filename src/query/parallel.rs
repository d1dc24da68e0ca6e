//! How a parallel query run shares its rows out: every thread of rayon's pool takes
//! chunks of rows from one shared counter until none are left.
//!
//! Rayon's own splitting cuts a range into a few tasks per thread up front and halves
//! a task again only if another thread steals it before it starts; a started task
//! runs to its end. On a heavy pass over few rows that leaves tasks of a hundred rows
//! or more, and when one thread starts late (a sleeping worker may take tens of
//! microseconds to wake) the other is left waiting for up to a whole task at the end. Claims from one counter shrink as the
//! rows run out instead — each takes a fixed share of what is left, never fewer than
//! [`MIN_CLAIM`] rows — so the threads finish within a few rows of each other however
//! late each started, and a cheap pass still costs only a few claims per thread.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The fewest rows a claim takes (unless fewer are left): enough that a claim's
/// atomic operation on the shared counter is paid for by its rows, and that the few
/// claims near the end, the only short ones, share few cache lines of values or ticks
/// with their neighbours. Smaller claims balance no better on heavy passes (see the
/// changelog).
pub(crate) const MIN_CLAIM: usize = 8;

/// The rows `0..len` of one parallel run, claimed in chunks by its participants.
pub(crate) struct SharedRows {
    /// The first row not yet claimed.
    next: AtomicUsize,
    len: usize,
    /// Threads that take part: at most the pool's, and no more than there are minimal
    /// claims (a pass of a few rows stays on the calling thread).
    participants: usize,
    /// Set when a participant's closure panicked: the others stop claiming, and the
    /// panic reaches the caller as soon as they have finished their current chunk.
    stopped: AtomicBool,
}

impl SharedRows {
    /// Rows `0..len`, to be shared by up to `threads` threads.
    pub(crate) fn new(len: usize, threads: usize) -> Self {
        let participants = threads.min(len.div_ceil(MIN_CLAIM)).max(1);
        SharedRows { next: AtomicUsize::new(0), len, participants, stopped: AtomicBool::new(false) }
    }

    /// The next chunk of rows, or `None` once every row is claimed or a participant
    /// panicked. Each row is handed out once, to one caller.
    pub(crate) fn claim(&self) -> Option<Range<usize>> {
        // Relaxed suffices: the counter's read-modify-writes are totally ordered, which
        // keeps the chunks disjoint, and what the participants wrote reaches the caller
        // through rayon's join, not through this counter.
        let mut start = self.next.load(Ordering::Relaxed);
        loop {
            if start >= self.len || self.stopped.load(Ordering::Relaxed) {
                return None;
            }
            let left = self.len - start;
            // A claim takes 1 / (2 · participants) of the rows left, so that the first
            // claims are long and the last ones short.
            let end = start + (left / (2 * self.participants)).max(MIN_CLAIM).min(left);
            match self.next.compare_exchange_weak(start, end, Ordering::Relaxed, Ordering::Relaxed) {
                Ok(_) => return Some(start..end),
                Err(now) => start = now,
            }
        }
    }

    /// Runs `participant` once on each participating thread of rayon's pool (the
    /// calling thread among them if it is one of the pool's; only the calling thread
    /// if there is one participant), and returns when every run has returned. If one
    /// panics the others stop claiming rows, and the panic is resumed here once they
    /// are done.
    pub(crate) fn run(&self, participant: &(impl Fn(&Self) + Sync)) {
        let guarded = || {
            let stop = StopOnPanic(&self.stopped);
            participant(self);
            std::mem::forget(stop);
        };
        fan_out(self.participants, &guarded);
    }
}

/// Runs `f` on `count` threads of rayon's pool through nested joins: a join whose
/// second half no idle thread steals runs it on the same thread afterwards, where it
/// finds the rows already claimed and returns at once.
fn fan_out(count: usize, f: &(impl Fn() + Sync)) {
    if count <= 1 {
        f();
        return;
    }
    let half = count / 2;
    rayon::join(|| fan_out(count - half, f), || fan_out(half, f));
}

/// Sets its flag when dropped, which happens only while a participant unwinds (the
/// normal path forgets it).
struct StopOnPanic<'a>(&'a AtomicBool);

impl Drop for StopOnPanic<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    #[test]
    fn claims_cover_every_row_once_and_shrink_to_the_minimum() {
        for len in [0, 1, 7, 8, 9, 100, 1_000, 12_345] {
            let rows = SharedRows::new(len, 2);
            let mut claims = Vec::new();
            while let Some(claim) = rows.claim() {
                claims.push(claim);
            }
            let mut expected_start = 0;
            for claim in &claims {
                assert_eq!(claim.start, expected_start, "{len} rows: claims are consecutive");
                assert!(!claim.is_empty());
                expected_start = claim.end;
            }
            assert_eq!(expected_start, len, "{len} rows: every row claimed");
            if len >= 1_000 {
                assert_eq!(claims[0].len(), len / 4, "the first claim takes a quarter with two participants");
                assert!(claims.windows(2).all(|w| w[1].len() <= w[0].len()), "claims never grow");
                let (last, others) = claims.split_last().unwrap();
                assert!(others.iter().all(|c| c.len() >= MIN_CLAIM) && last.len() <= MIN_CLAIM);
                assert_eq!(others.last().unwrap().len(), MIN_CLAIM, "the claims shrink to the minimum");
            }
        }
    }

    #[test]
    fn participants_on_the_pool_share_the_rows_exactly() {
        let len = 100_000;
        let rows = SharedRows::new(len, 4);
        let seen = Mutex::new(vec![0u8; len]);
        rows.run(&|rows: &SharedRows| {
            while let Some(claim) = rows.claim() {
                let mut seen = seen.lock().unwrap();
                claim.for_each(|row| seen[row] += 1);
            }
        });
        assert!(seen.into_inner().unwrap().iter().all(|&count| count == 1));
    }

    #[test]
    fn a_panicking_participant_stops_the_others_and_reaches_the_caller() {
        // The thread that claims the first rows panics at once. Any other waits after
        // each claim until the panic has stopped the run (its panic hook may print a
        // backtrace first), for ten seconds at most: without the stop it would go on to
        // claim every row.
        let len = 1_000_000;
        let rows = SharedRows::new(len, 2);
        let claimed = AtomicUsize::new(0);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            rows.run(&|rows: &SharedRows| {
                while let Some(claim) = rows.claim() {
                    claimed.fetch_add(claim.len(), Ordering::Relaxed);
                    assert!(claim.start != 0, "boom");
                    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
                    while !rows.stopped.load(Ordering::Relaxed) && std::time::Instant::now() < deadline {
                        std::thread::sleep(std::time::Duration::from_millis(1));
                    }
                }
            })
        }));
        assert!(outcome.is_err(), "the panic is resumed on the caller");
        assert!(rows.stopped.load(Ordering::Relaxed));
        assert!(rows.claim().is_none(), "no claims after a panic");
        let claimed = claimed.into_inner();
        assert!(claimed < len, "the others stopped claiming, yet {claimed} rows were claimed");
    }

    #[test]
    fn participants_are_capped_by_the_rows() {
        let participants = |len, threads| SharedRows::new(len, threads).participants;
        assert_eq!(participants(0, 4), 1);
        assert_eq!(participants(8, 4), 1);
        assert_eq!(participants(9, 4), 2);
        assert_eq!(participants(1_000, 2), 2);
        assert_eq!(participants(1_000, 1), 1);
    }
}
