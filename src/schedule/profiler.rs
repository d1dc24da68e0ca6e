//! The per-system profiler (the seed's overlay): durations and entity counts per
//! system, a printable report, and a Chrome trace-event export.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use crate::system::EntityCounts;

/// Timings and counts of one system, over the runs since it was added.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SystemStats {
    /// How many times it ran.
    pub runs: u64,
    /// Its last run's duration.
    pub last: Duration,
    /// The longest run.
    pub max: Duration,
    /// Sum of all runs (for the mean).
    pub total: Duration,
    /// Entities its queries matched in the last run.
    pub matched: usize,
    /// Entities its queries processed in the last run.
    pub processed: usize,
}

impl SystemStats {
    /// The mean duration of a run.
    pub fn mean(&self) -> Duration {
        if self.runs == 0 { Duration::ZERO } else { self.total / self.runs.min(u64::from(u32::MAX)) as u32 }
    }

    pub(crate) fn record(&mut self, duration: Duration, counts: EntityCounts) {
        self.runs += 1;
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
    pub(crate) origin: Instant,
}

impl Default for Profiler {
    fn default() -> Self {
        Profiler { enabled: true, tracing: false, origin: Instant::now() }
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

/// Escapes `text` for a JSON string.
fn json_escape(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// Writes the events as a Chrome trace-event JSON document (loads in Perfetto and
/// `chrome://tracing`): one complete (`"ph": "X"`) event per system run.
pub(crate) fn format_trace<'a>(systems: impl Iterator<Item = (&'a str, &'a str, &'a [TraceEvent])>) -> String {
    let mut out = String::from("{\"traceEvents\":[");
    let mut first = true;
    for (name, phase, events) in systems {
        for event in events {
            if !first {
                out.push(',');
            }
            first = false;
            out.push_str("{\"name\":\"");
            json_escape(name, &mut out);
            out.push_str("\",\"cat\":\"");
            json_escape(phase, &mut out);
            let _ = write!(
                out,
                "\",\"ph\":\"X\",\"ts\":{:.3},\"dur\":{:.3},\"pid\":1,\"tid\":{}}}",
                event.start.as_secs_f64() * 1e6,
                event.duration.as_secs_f64() * 1e6,
                event.thread
            );
        }
    }
    out.push_str("],\"displayTimeUnit\":\"ms\"}");
    out
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
        assert_eq!(stats.runs, 3);
        assert_eq!(stats.last, Duration::from_micros(20));
        assert_eq!(stats.max, Duration::from_micros(30));
        assert_eq!(stats.mean(), Duration::from_micros(20));
        assert_eq!((stats.matched, stats.processed), (7, 0));
    }

    #[test]
    fn trace_escapes_names() {
        let events = [TraceEvent { start: Duration::from_micros(1), duration: Duration::from_micros(2), thread: 0 }];
        let trace = format_trace([("a\"b", "Update", &events[..])].into_iter());
        assert!(trace.contains("\"name\":\"a\\\"b\""), "{trace}");
        assert!(trace.starts_with("{\"traceEvents\":[{"));
    }
}
