//! rollback: a checkpoint per frame and a rollback of 8 frames, at N registered entities
//! with K changed per frame; the workload and its lines are in `bench::rollback`
//! (shared with the paired tool).

use std::time::Duration;

use bench::crate_topia::configure;
use bench::rollback::{CHANGED, SIZES, build_lines, checkpoint_step, group_name, rollback_step};
use criterion::{Criterion, criterion_group};

/// A timed step of a line.
type Step = fn(&mut dyn bench::rollback::Line, &mut u64) -> Duration;

fn rollback(c: &mut Criterion) {
    for n in SIZES {
        for (k, disjoint) in CHANGED.into_iter().flat_map(|k| [(k, false), (k, true)]) {
            let mut lines = build_lines(n, k, disjoint);
            let parts: [(&str, Step); 2] = if disjoint {
                [("checkpoint_disjoint", checkpoint_step), ("restore_disjoint", rollback_step)]
            } else {
                [("checkpoint", checkpoint_step), ("restore", rollback_step)]
            };
            for (part, step) in parts {
                let mut group = c.benchmark_group(group_name(part, n, k));
                configure(&mut group, n);
                for (name, line) in &mut lines {
                    let mut frame = 1_000;
                    group.bench_function(*name, |b| {
                        b.iter_custom(|iters| (0..iters).map(|_| step(line.as_mut(), &mut frame)).sum())
                    });
                }
                group.finish();
            }
        }
    }
}

criterion_group! {
    name = benches;
    config = bench::criterion_config();
    targets = rollback
}
bench::bench_main!(benches);
