//! Runs one rollback line alone, for a profiler (`perf`, `callgrind`) to attribute:
//! `rollback_profile LINE N K STEPS [disjoint]`. Prints the checkpoint's and the rollback's time
//! per changed value (a rough figure: judge bars by the paired tool).

use std::time::Duration;

use bench::rollback::{FRAMES, build_lines, checkpoint_step, rollback_step};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: rollback_profile LINE N K STEPS [disjoint]";
    let (disjoint, args) = match args.split_last() {
        Some((last, rest)) if last == "disjoint" => (true, rest),
        _ => (false, &args[..]),
    };
    let [line, n, k, steps] = args else { panic!("{usage}") };
    let wanted = line.as_str();
    let (n, k, steps): (usize, usize, u64) =
        (n.parse().expect(usage), k.parse().expect(usage), steps.parse().expect(usage));
    let (_, mut line) = build_lines(n, k, disjoint)
        .into_iter()
        .find(|(name, _)| *name == wanted)
        .expect("a line: ripple, snapshot, floor");
    // With RIPPLE_THRASH set, 64 MB are written before each step, as the paired tool's
    // snapshot line does between ripple's steps: what a step finds cold shows.
    let mut thrash = std::env::var_os("RIPPLE_THRASH").map(|_| vec![0u8; 64 << 20]);
    let mut cool = |round: u64| {
        if let Some(bytes) = &mut thrash {
            bytes.fill(round as u8);
            std::hint::black_box(&bytes);
        }
    };
    // With RIPPLE_WARM_CODE also set, a small world of the same line runs a step after
    // the thrash: its code is warm again, its big world's data is not.
    let mut small = std::env::var_os("RIPPLE_WARM_CODE")
        .map(|_| build_lines(k * 10, k, disjoint).into_iter().find(|(name, _)| *name == wanted).expect("the line").1);
    let mut small_frame = 1_000;
    let mut frame = 1_000;
    let mut checkpoint = Duration::ZERO;
    for round in 0..steps {
        cool(round);
        if let Some(small) = &mut small {
            checkpoint_step(small.as_mut(), &mut small_frame);
        }
        checkpoint += checkpoint_step(line.as_mut(), &mut frame);
    }
    let mut restore = Duration::ZERO;
    for round in 0..steps {
        cool(round);
        restore += rollback_step(line.as_mut(), &mut frame);
    }
    let per = |d: Duration, values: usize| d.as_nanos() as f64 / (steps as f64 * values as f64);
    println!(
        "N={n} K={k}: checkpoint {:.1} ns per changed value, rollback of {FRAMES} frames {:.1} ns per value restored",
        per(checkpoint, k),
        per(restore, if disjoint { k * FRAMES } else { k })
    );
}
