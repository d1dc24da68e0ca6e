//! The per-system profiler, an in-game overlay's data: durations and entity counts
//! per system, a printable report, and a Chrome trace-event export.
//!
//! Reading the clock twice and collecting a system's entity counts costs about 50–70 ns,
//! several times what running an empty system costs; on by default for every run, it
//! made a schedule of cheap systems several times slower. So the profiler measures
//! a sample: a system's first run, then one run in [`DEFAULT_EVERY`] (and every run of
//! a system whose last measured run was long, where the clock is noise, and every run
//! while a trace is recorded). Between measured runs a run costs one counter.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use super::clock;

use crate::system::EntityCounts;

/// Runs between two measured runs of a system, by default: the profiler measures one
/// run in 64 (see [`Schedule::set_profile_every`](crate::schedule::Schedule::set_profile_every)).
pub const DEFAULT_EVERY: u32 = 64;

/// A measured run at least this long makes the system's next run measured too: the
/// two clock reads are then well under 1 % of the run, and a long system's spikes are
/// what a profile is for.
pub(crate) const LONG_RUN: Duration = Duration::from_micros(20);

/// Timings and counts of one system, over the runs since it was added. Durations and
/// counts come from its *measured* runs (see [`Schedule`](crate::schedule::Schedule)'s
/// profiling); `runs` counts every run while profiling is on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SystemStats {
    /// How many times it ran while profiling was on.
    pub runs: u64,
    /// How many of those runs were measured (timed and counted).
    pub measured: u64,
    /// The last measured run's duration.
    pub last: Duration,
    /// The longest measured run.
    pub max: Duration,
    /// Sum of the measured runs (for the mean).
    pub total: Duration,
    /// Entities its queries matched in the last measured run.
    pub matched: usize,
    /// Entities its queries processed in the last measured run.
    pub processed: usize,
}

impl SystemStats {
    /// The mean duration of a measured run: an estimate of a run's mean, from a sample.
    pub fn mean(&self) -> Duration {
        if self.measured == 0 { Duration::ZERO } else { self.total / self.measured.min(u64::from(u32::MAX)) as u32 }
    }

    pub(crate) fn record(&mut self, duration: Duration, counts: EntityCounts) {
        self.measured += 1;
        self.last = duration;
        self.max = self.max.max(duration);
        self.total += duration;
        self.matched = counts.matched;
        self.processed = counts.processed;
    }
}

/// One complete event of a Chrome trace: a system run.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TraceEvent {
    /// Start, since the profiler's origin.
    pub(crate) start: Duration,
    pub(crate) duration: Duration,
    /// Rayon worker index + 1, or 0 for the calling thread.
    pub(crate) thread: usize,
}

/// Settings shared by the schedule's systems.
#[derive(Debug)]
pub struct Profiler {
    pub(crate) enabled: bool,
    pub(crate) tracing: bool,
    /// One run in `every` is measured.
    pub(crate) every: u32,
    /// What trace events' starts count from: read when tracing is first turned on,
    /// so that building a schedule reads no clock.
    pub(crate) origin: Option<Instant>,
}

impl Default for Profiler {
    fn default() -> Self {
        Profiler { enabled: clock::AVAILABLE, tracing: false, every: DEFAULT_EVERY, origin: None }
    }
}

impl Profiler {
    /// Turns timing on or off; stays off where the platform has no clock.
    pub(crate) fn set_enabled(&mut self, enabled: bool) {
        self.enabled = enabled && clock::AVAILABLE;
    }

    /// Turns trace recording on or off; stays off where the platform has no clock.
    pub(crate) fn set_tracing(&mut self, tracing: bool) {
        self.tracing = tracing && clock::AVAILABLE;
        if self.tracing && self.origin.is_none() {
            self.origin = clock::now();
        }
    }

    /// Measures one run in `every` (1 measures every run; 0 is taken as 1).
    pub(crate) fn set_every(&mut self, every: u32) {
        self.every = every.max(1);
    }

    /// Whether a run of a system is measured, counting the run: `until_measured` is
    /// the system's countdown of unmeasured runs, `stats` its profile. O(1).
    #[inline]
    pub(crate) fn measures(&self, stats: &mut SystemStats, until_measured: &mut u32) -> bool {
        if !self.enabled {
            return false;
        }
        stats.runs += 1;
        if *until_measured > 0 && !self.tracing && stats.last < LONG_RUN {
            *until_measured -= 1;
            return false;
        }
        *until_measured = self.every - 1;
        true
    }

    /// A trace event for a run from `start` lasting `duration` (the caller checked that
    /// the profiler is tracing, which sets the origin).
    pub(crate) fn trace_event(&self, start: Instant, duration: Duration, thread: usize) -> Option<TraceEvent> {
        let origin = self.origin?;
        Some(TraceEvent { start: start.saturating_duration_since(origin), duration, thread })
    }
}

/// One row of a report: a system's name, phase, whether it is enabled, and its stats.
#[derive(Clone, Debug)]
pub struct ReportRow<'a> {
    /// The system's name.
    pub name: &'a str,
    /// Its phase.
    pub phase: &'a str,
    /// Whether it is enabled.
    pub enabled: bool,
    /// Its stats.
    pub stats: SystemStats,
}

/// Formats rows as a table (durations in µs).
pub(crate) fn format_report(rows: &[ReportRow<'_>]) -> String {
    let width = rows.iter().map(|r| r.name.len()).max().unwrap_or(0).max(6);
    let phase_width = rows.iter().map(|r| r.phase.len()).max().unwrap_or(0).max(5);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{:<width$}  {:<phase_width$}  {:>6}  {:>10}  {:>10}  {:>10}  {:>9}  {:>9}",
        "system", "phase", "runs", "last µs", "mean µs", "max µs", "matched", "processed"
    );
    for row in rows {
        let micros = |d: Duration| d.as_secs_f64() * 1e6;
        let name = if row.enabled { row.name.to_string() } else { format!("{} (off)", row.name) };
        let _ = writeln!(
            out,
            "{:<width$}  {:<phase_width$}  {:>6}  {:>10.2}  {:>10.2}  {:>10.2}  {:>9}  {:>9}",
            name,
            row.phase,
            row.stats.runs,
            micros(row.stats.last),
            micros(row.stats.mean()),
            micros(row.stats.max),
            row.stats.matched,
            row.stats.processed,
        );
    }
    out
}

/// Writes the events as a Chrome trace-event JSON document (loads in Perfetto and
/// `chrome://tracing`): one complete (`"ph": "X"`) event per system run, times in µs.
pub(crate) fn format_trace<'a>(systems: impl Iterator<Item = (&'a str, &'a str, &'a [TraceEvent])>) -> String {
    use std::fmt::Write;
    let micros = |d: Duration| d.as_secs_f64() * 1e6;
    let mut out = String::from("{\"traceEvents\":[");
    let mut first = true;
    for (name, phase, events) in systems {
        for event in events {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str("{\"name\":");
            push_json_string(&mut out, name);
            out.push_str(",\"cat\":");
            push_json_string(&mut out, phase);
            // Writing to a String cannot fail.
            let _ = write!(
                out,
                ",\"ph\":\"X\",\"ts\":{:?},\"dur\":{:?},\"pid\":1,\"tid\":{}}}",
                micros(event.start),
                micros(event.duration),
                event.thread
            );
        }
    }
    out.push_str("],\"displayTimeUnit\":\"ms\"}");
    out
}

/// Appends `text` as a JSON string, quoted and escaped (the trace is written by hand
/// so that it needs no JSON library: persistence is an optional feature).
fn push_json_string(out: &mut String, text: &str) {
    use std::fmt::Write;
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                // Writing to a String cannot fail.
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_keep_last_mean_and_max() {
        let mut stats = SystemStats::default();
        stats.record(Duration::from_micros(10), EntityCounts { matched: 5, processed: 2 });
        stats.record(Duration::from_micros(30), EntityCounts { matched: 6, processed: 3 });
        stats.record(Duration::from_micros(20), EntityCounts { matched: 7, processed: 0 });
        assert_eq!(stats.measured, 3);
        assert_eq!(stats.last, Duration::from_micros(20));
        assert_eq!(stats.max, Duration::from_micros(30));
        assert_eq!(stats.mean(), Duration::from_micros(20));
        assert_eq!((stats.matched, stats.processed), (7, 0));
    }

    #[test]
    #[cfg(feature = "persistence")]
    fn trace_escapes_names() {
        let events = [TraceEvent { start: Duration::from_micros(1), duration: Duration::from_micros(2), thread: 0 }];
        let trace = format_trace([("a\"b\n", "Update", &events[..])].into_iter());
        let parsed: serde_json::Value = serde_json::from_str(&trace).expect("valid JSON");
        assert_eq!(parsed["traceEvents"][0]["name"], "a\"b\n", "{trace}");
        assert_eq!(parsed["traceEvents"][0]["ts"], 1.0);
        assert_eq!(parsed["traceEvents"][0]["dur"], 2.0);
    }
}
