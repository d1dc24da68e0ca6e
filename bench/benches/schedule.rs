//! schedule (BENCHMARKS.md §A): one run of three swapping systems over 40,000 entities
//! through each library's scheduler (`bench::schedule`, shared with the paired tool).
//!
//! Also `empty_systems` (§C): the per-run overhead of a schedule of 50 empty systems
//! (and, as `ripple_conditions`, of the same systems each behind a true run condition),
//! ripple against bevy_ecs on its default and its single-threaded executor.

use bench::criterion_config;
use criterion::{Criterion, criterion_group};

fn schedule(c: &mut Criterion) {
    let mut group = c.benchmark_group("schedule");
    for (name, mut pass) in bench::schedule::lines() {
        group.bench_function(name, |b| b.iter(&mut pass));
    }
    group.finish();
}

fn empty_systems(c: &mut Criterion) {
    use bench::empty_systems as fifty;
    let mut group = c.benchmark_group("empty_systems");

    group.bench_function("ripple", |b| {
        let (mut world, mut schedule) = fifty::ripple();
        b.iter(|| schedule.run(&mut world));
    });

    // The same schedule with a run condition on every system, each reading a resource
    // and true: what conditions add to a schedule's run.
    group.bench_function("ripple_conditions", |b| {
        let (mut world, mut schedule) = fifty::ripple_conditions();
        b.iter(|| schedule.run(&mut world));
    });

    group.bench_function("bevy_ecs", |b| {
        let (mut world, mut schedule) = fifty::bevy();
        b.iter(|| schedule.run(&mut world));
    });

    // bevy's fastest form for a schedule of cheap systems: its `SingleThreadedExecutor`,
    // which bevy_ecs documents (schedule/executor/single_threaded.rs) as running
    // systems one after another with the least overhead.
    group.bench_function("bevy_ecs_single_threaded", |b| {
        let (mut world, mut schedule) = fifty::bevy_single_threaded();
        b.iter(|| schedule.run(&mut world));
    });

    group.finish();
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = schedule, empty_systems
}
bench::bench_main!(benches);
