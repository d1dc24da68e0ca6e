//! Observers against bevy_ecs 0.20.1's: lifecycle observers, bubbling custom triggers,
//! and reacting to mutation (which bevy can only do by scanning change ticks). The
//! workloads and their lines are in `bench::observers` (shared with the paired tool).

use std::time::Duration;

use bench::Pass;
use bench::criterion_config;
use bench::observers::{lifecycle_lines, mutation_lines, trigger_lines};
use criterion::{Criterion, criterion_group};

fn run_group(c: &mut Criterion, group: &str, lines: Vec<(&'static str, Pass)>) {
    let mut group = c.benchmark_group(group);
    group.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(2));
    for (name, mut pass) in lines {
        group.bench_function(name, |b| b.iter(&mut pass));
    }
    group.finish();
}

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
