//! Replication: building sixteen peers' deltas at a million entities against bevy_ecs
//! scanned as bevy_replicon scans it, a full snapshot and the serialisation floor; and
//! applying a delta against writing the same values through `get_mut`. The workloads
//! are in `bench::replicate` (shared with the paired tool).

use std::time::Duration;

use bench::Pass;
use bench::criterion_config;
use bench::replicate::{apply_lines, replicate_lines};
use criterion::{Criterion, criterion_group};

fn run_group(c: &mut Criterion, group: &str, lines: Vec<(&'static str, Pass)>) {
    let mut group = c.benchmark_group(group);
    group.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for (name, mut pass) in lines {
        group.bench_function(name, |b| b.iter(&mut pass));
    }
    group.finish();
}

fn replicate(c: &mut Criterion) {
    run_group(c, "replicate/N=1000000,K=100,peers=16", replicate_lines(1_000_000, 100, 16));
    run_group(c, "apply_delta/K=10000", apply_lines(10_000));
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = replicate
}
bench::bench_main!(benches);
