//! Observers against bevy_ecs 0.20.1's: lifecycle observers, bubbling custom triggers,
//! and reacting to mutation (which bevy can only do by scanning change ticks). The
//! workloads and their lines are in `bench::observers` (shared with the paired tool).

use bench::observers::{lifecycle_lines, mutation_lines, trigger_lines};
use bench::{criterion_config, run_group};
use criterion::{Criterion, criterion_group};

fn observers(c: &mut Criterion) {
    run_group(c, "observe_lifecycle", lifecycle_lines());
    run_group(c, "observe_trigger", trigger_lines());
    for k in [100, 10_000] {
        run_group(c, &format!("observe_mutation/N=1000000,K={k}"), mutation_lines(1_000_000, k));
    }
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = observers
}
bench::bench_main!(benches);
