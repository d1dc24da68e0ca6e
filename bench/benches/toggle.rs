//! toggle: a zero-sized marker that 1 % of a million entities gain and 1 % lose each
//! frame, and a query over the marked ones; the workload and its lines are in
//! `bench::toggle` (shared with the paired tool).

use std::time::Duration;

use bench::criterion_config;
use bench::toggle::{GROUPS, check, frame, lines};
use criterion::{Criterion, black_box, criterion_group};

fn toggle(c: &mut Criterion) {
    let mut lines = lines();
    let mut group = c.benchmark_group("toggle");
    group.sample_size(20).warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(3));
    for (name, line) in &mut lines {
        check(name, line.as_mut());
        let mut f = 0;
        group.bench_function(*name, |b| {
            b.iter(|| {
                black_box(frame(line.as_mut(), f % GROUPS));
                f += 1;
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = toggle
}
bench::bench_main!(benches);
