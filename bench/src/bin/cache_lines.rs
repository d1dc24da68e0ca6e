//! Cache lines per changed entity in Crate-topia (N = 1,000,000, K = 10,000), counted
//! by callgrind's cache simulation at two machines' cache sizes: a figure that does not
//! depend on which CPU runs it, beside the times that do.
//!
//! For each measured step — ripple's renderer and IDEAL's, ripple's mover with Position
//! tracked and untracked — the tool runs itself under
//! `valgrind --tool=callgrind --cache-sim=yes`, collecting only inside that step
//! (`--toggle-collect`) over [`FRAMES`] frames after a warm-up, and reports the
//! simulated first-level data misses (D1) and last-level misses (LL) per changed entity.
//! The two cache configurations:
//! - `amd`: the project's 2-core AMD EPYC: 32 KiB 8-way L1d, 512 KiB 8-way L2 as the
//!   last level callgrind models;
//! - `intel`: the lent 16-core Intel Xeon: 48 KiB 12-way L1d, 2 MiB 16-way L2.
//!
//! Usage: `cargo run -p bench --release --bin cache_lines` (needs valgrind; about two
//! minutes). Writes `bench/CACHE_LINES.md`, whose figures the report's standing bars
//! read.

use std::hint::black_box;
use std::process::Command;

use bench::crate_topia::{Line, build_line};

const N: usize = 1_000_000;
const K: usize = 10_000;
/// Frames collected after the warm-up.
const FRAMES: usize = 4;
/// Frames run before collecting: the first render sees every entity as new.
const WARM_UP: usize = 2;

/// Set in the measured processes.
const CHILD: &str = "RIPPLE_CACHE_LINES_CHILD";

/// (name, valgrind cache options).
const CACHES: [(&str, [&str; 2]); 2] =
    [("amd", ["--D1=32768,8,64", "--LL=524288,8,64"]), ("intel", ["--D1=49152,12,64", "--LL=2097152,16,64"])];

/// (figure name, line, step).
const STEPS: [(&str, &str, Step); 4] = [
    ("renderer_ripple", "ripple", Step::Render),
    ("renderer_ideal", "ideal", Step::Render),
    ("mover_tracked", "ripple", Step::Mover),
    ("mover_untracked", "ripple_untracked", Step::Mover),
];

#[derive(Clone, Copy)]
enum Step {
    Render,
    Mover,
}

impl Step {
    fn name(self) -> &'static str {
        match self {
            Step::Render => "render",
            Step::Mover => "mover",
        }
    }
}

/// The collected mover step (not inlined: callgrind collects inside it by name).
#[inline(never)]
fn collected_mover(line: &mut dyn Line) {
    line.mover();
}

/// The collected renderer step.
#[inline(never)]
fn collected_render(line: &mut dyn Line) -> u64 {
    line.render()
}

fn child(line_name: &str) {
    let mut line = build_line(line_name, N, K).expect("a crate_topia line");
    // Not collected: called directly, not through the collected functions.
    for _ in 0..WARM_UP {
        line.mover();
        black_box(line.render());
    }
    for _ in 0..FRAMES {
        collected_mover(line.as_mut());
        black_box(collected_render(line.as_mut()));
    }
}

/// Total D1 and LL data misses of a callgrind output file.
fn misses(out: &str) -> Option<(u64, u64)> {
    let events: Vec<&str> = out.lines().find_map(|l| l.strip_prefix("events:"))?.split_whitespace().collect();
    let totals: Vec<u64> = out
        .lines()
        .find_map(|l| l.strip_prefix("totals:").or_else(|| l.strip_prefix("summary:")))?
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    let of = |name: &str| events.iter().position(|e| *e == name).and_then(|i| totals.get(i)).copied().unwrap_or(0);
    Some((of("D1mr") + of("D1mw"), of("DLmr") + of("DLmw")))
}

fn main() {
    if std::env::var_os(CHILD).is_some() {
        child(&std::env::args().nth(1).expect("a line name"));
        return;
    }
    let exe = std::env::current_exe().expect("the tool's own path");
    let dir = std::env::temp_dir();
    let mut lines = String::new();
    let mut table = String::from(
        "| cache | step | D1 misses per changed entity | LL misses per changed entity |\n|---|---|---:|---:|\n",
    );
    for (cache, options) in CACHES {
        for (figure, line, step) in STEPS {
            let out_file = dir.join(format!("cache_lines.{cache}.{figure}.out"));
            let status = Command::new("valgrind")
                .args(["--tool=callgrind", "--cache-sim=yes", "-q"])
                .args(options)
                .arg(format!("--toggle-collect=*collected_{}*", step.name()))
                .arg(format!("--callgrind-out-file={}", out_file.display()))
                .arg(&exe)
                .arg(line)
                .env(CHILD, "1")
                .status()
                .expect("could not start valgrind (is it installed?)");
            assert!(status.success(), "valgrind failed for {figure} at {cache}: {status}");
            let out = std::fs::read_to_string(&out_file).expect("callgrind's output");
            let _ = std::fs::remove_file(&out_file);
            let (d1, ll) = misses(&out).expect("callgrind totals");
            let per = |count: u64| count as f64 / FRAMES as f64 / K as f64;
            let (d1, ll) = (per(d1), per(ll));
            eprintln!("{cache} {figure}: D1 {d1:.2}, LL {ll:.2} per changed entity");
            table.push_str(&format!("| {cache} | {figure} | {d1:.2} | {ll:.2} |\n"));
            lines.push_str(&format!("{cache}_{figure}_d1 {d1:.3}\n{cache}_{figure}_ll {ll:.3}\n"));
        }
        let figure = |name: &str| -> f64 {
            lines.lines().find_map(|l| l.strip_prefix(&format!("{cache}_{name} "))?.parse().ok()).unwrap_or(0.0)
        };
        // Lines touched (first-level misses) as ratios; last-level misses as the excess
        // over the reference, which may miss nothing at all where its data fits.
        let renderer_d1 = figure("renderer_ripple_d1") / figure("renderer_ideal_d1");
        let mover_d1 = figure("mover_tracked_d1") / figure("mover_untracked_d1");
        let renderer_ll = figure("renderer_ripple_ll") - figure("renderer_ideal_ll");
        let mover_ll = figure("mover_tracked_ll") - figure("mover_untracked_ll");
        lines.push_str(&format!(
            "{cache}_renderer_d1_over_ideal {renderer_d1:.3}\n{cache}_mover_d1_tracked_over_untracked {mover_d1:.3}\n\
             {cache}_renderer_ll_minus_ideal {renderer_ll:.3}\n{cache}_mover_ll_tracked_minus_untracked {mover_ll:.3}\n"
        ));
    }
    print!("{table}");
    bench::keep_figures(
        "CACHE_LINES.md",
        "cache_lines",
        "simulated data-cache misses per changed entity: callgrind, each step over the K = 10,000 \
         changed entities of N = 1,000,000, in the frames after the warm-up",
        &format!("{table}\n{lines}"),
    );
}
