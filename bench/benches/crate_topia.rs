//! crate_topia (BENCHMARKS.md §B, "Crate-topia"): change tracking; the workload and its
//! lines are in `bench::crate_topia` (shared with the paired tool).

use std::hint::black_box;

use bench::crate_topia::{
    CHANGED, MOVER_CASE, RippleUntracked, SIZES, Step, build_lines, check_checksums, configure, frame, time_step,
};
use criterion::{Criterion, criterion_group};

fn crate_topia(c: &mut Criterion) {
    for n in SIZES {
        for k in CHANGED {
            let mut lines = build_lines(n, k);
            check_checksums(&mut lines, n, k);

            let mut group = c.benchmark_group(format!("crate_topia_render/N={n},K={k}"));
            configure(&mut group, n);
            for (name, line) in &mut lines {
                group.bench_function(*name, |b| b.iter_custom(|iters| time_step(line.as_mut(), iters, Step::Render)));
            }
            group.finish();

            let mut group = c.benchmark_group(format!("crate_topia_frame/N={n},K={k}"));
            configure(&mut group, n);
            for (name, line) in &mut lines {
                group.bench_function(*name, |b| b.iter(|| black_box(frame(line.as_mut()))));
            }
            group.finish();

            if (n, k) == MOVER_CASE {
                // The mover step alone, each line's renderer running untimed after it (so
                // its change records stay in their steady state), and ripple's mover with
                // Position untracked beside it.
                lines.insert(
                    1,
                    ("ripple_untracked", Box::new(RippleUntracked::new(n, &bench::crate_topia::mover_indices(n, k)))),
                );
                let mut group = c.benchmark_group(format!("crate_topia_mover/N={n},K={k}"));
                configure(&mut group, n);
                for (name, line) in &mut lines {
                    group
                        .bench_function(*name, |b| b.iter_custom(|iters| time_step(line.as_mut(), iters, Step::Mover)));
                }
                group.finish();
            }
        }
    }
}

criterion_group! {
    name = benches;
    config = bench::criterion_config();
    targets = crate_topia
}
bench::bench_main!(benches);
