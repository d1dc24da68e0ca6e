//! Runs frames of one crossover line alone, for a profiler (`perf`, `callgrind`) to
//! attribute: `frame_profile LINE N PER_MILLE FRAMES`. Prints the mover's and the
//! renderer's time per written entity (a rough figure: judge bars by the paired tool).

use std::hint::black_box;
use std::time::Instant;

use bench::crate_topia::{Step, build_line_moving, time_step};
use bench::crossover::{k_of, random_writes};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: frame_profile LINE N PER_MILLE FRAMES";
    let [line, n, per_mille, frames] = args.as_slice() else { panic!("{usage}") };
    let n: usize = n.parse().expect(usage);
    let k = k_of(n, per_mille.parse().expect(usage));
    let frames: u64 = frames.parse().expect(usage);
    let mut line = build_line_moving(line, n, &random_writes(n, k)).expect("a crate_topia line name");
    black_box(bench::crate_topia::frame(line.as_mut()));
    let start = Instant::now();
    let mover = time_step(line.as_mut(), frames, Step::Mover);
    let render = time_step(line.as_mut(), frames, Step::Render);
    let per = |d: std::time::Duration| d.as_nanos() as f64 / (frames as f64 * k.max(1) as f64);
    println!(
        "N={n} K={k}: mover {:.2} ns/write, renderer {:.2} ns/write ({} frames each, {:.1?} in all)",
        per(mover),
        per(render),
        frames,
        start.elapsed()
    );
}
