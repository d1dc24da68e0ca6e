//! crossover (BENCHMARKS.md §F): a frame of K random tracked writes and a renderer of
//! what changed, against the fraction K/N; the workload and its lines are in
//! `bench::crossover` (shared with the paired tool).

use std::hint::black_box;
use std::time::Duration;

use bench::crossover::{PER_MILLE, SIZES, build_lines, group_name, k_of};
use criterion::{Criterion, criterion_group};

fn crossover(c: &mut Criterion) {
    for n in SIZES {
        for per_mille in PER_MILLE {
            let k = k_of(n, per_mille);
            let mut lines = build_lines(n, k);
            let mut group = c.benchmark_group(group_name(n, k));
            // Short runs: a frame at N = 1,000,000 and K = N takes milliseconds.
            group.sample_size(if n >= 1_000_000 { 10 } else { 20 });
            group.warm_up_time(Duration::from_millis(300));
            group.measurement_time(Duration::from_millis(1000));
            for (name, line) in &mut lines {
                group.bench_function(*name, |b| {
                    b.iter(|| {
                        line.mover();
                        black_box(line.render())
                    })
                });
            }
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = bench::criterion_config();
    targets = crossover
}
bench::bench_main!(benches);
