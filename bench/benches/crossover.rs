//! crossover (BENCHMARKS.md §F): a frame of K random tracked writes and a renderer of
//! what changed, against the fraction K/N; the workload and its lines are in
//! `bench::crossover` (shared with the paired tool).

use std::hint::black_box;

use bench::crate_topia::{configure, frame};
use bench::crossover::{PER_MILLE, SIZES, build_lines, group_name, k_of};
use criterion::{Criterion, criterion_group};

fn crossover(c: &mut Criterion) {
    for n in SIZES {
        for per_mille in PER_MILLE {
            let k = k_of(n, per_mille);
            let mut lines = build_lines(n, k);
            let mut group = c.benchmark_group(group_name(n, k));
            configure(&mut group, n);
            for (name, line) in &mut lines {
                group.bench_function(*name, |b| b.iter(|| black_box(frame(line.as_mut()))));
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
