//! relations: a relation's upkeep through inserts, removals and despawns; the
//! workload and its lines are in `bench::relations` (shared with the paired tool).
//! Lines: `ripple` (a user relation), `ripple_child_of`, `bevy_ecs` (its own
//! relationship of the same kind) and `bevy_ecs_child_of`.

use bench::criterion_config;
use criterion::{Criterion, criterion_group};

fn relations(c: &mut Criterion) {
    let mut group = c.benchmark_group("relations");
    let names = ["ripple", "ripple_child_of", "bevy_ecs", "bevy_ecs_child_of"];
    for (name, (_, mut pass)) in names.into_iter().zip(bench::relations::lines()) {
        group.bench_function(name, |b| b.iter(&mut pass));
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = relations
}
bench::bench_main!(benches);
