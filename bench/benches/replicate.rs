//! Replication: building sixteen peers' deltas at a million entities against bevy_ecs
//! scanned as bevy_replicon scans it, a full snapshot and the serialisation floor; and
//! applying a delta against writing the same values through `get_mut`. The workloads
//! are in `bench::replicate` (shared with the paired tool).

use bench::replicate::{apply_lines, replicate_lines};
use bench::{criterion_config, run_group};
use criterion::{Criterion, criterion_group};

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
