//! heavy_compute on bevy_ecs with its compute pool sized two ways, one per process (the
//! pool is global): `default` is `TaskPool::default()` (one thread per core, as bevy's own
//! heavy_compute bench sizes it and as `benches/heavy_compute.rs` does), `plugin` is what
//! bevy_app's `TaskPoolPlugin` gives the compute pool by default (the cores left after
//! the IO and async-compute pools take a quarter each, at least one each). Prints the
//! median pass, with bevy's default batching and with fixed batches of 64.
//!
//! `cargo run -p bench --release --example bevy_pool_sizing -- default` (or `plugin`).

use std::time::{Duration, Instant};

use bench::{Position, Transform, heavy_work, tprv};

/// TaskPoolOptions::default()'s compute share (bevy_app 0.20.1 task_pool_plugin.rs).
fn plugin_compute_threads() -> usize {
    let total = bevy_tasks::available_parallelism();
    let share = |percent: f32, remaining: usize, min: usize, max: usize| {
        let desired = (total as f32 * percent).round() as usize;
        desired.min(remaining).clamp(min, max)
    };
    let io = share(0.25, total, 1, 4);
    let remaining = total.saturating_sub(io);
    let async_compute = share(0.25, remaining, 1, 4);
    let remaining = remaining.saturating_sub(async_compute);
    share(1.0, remaining, 1, usize::MAX)
}

fn main() {
    let sizing = std::env::args().nth(1).unwrap_or_else(|| "default".to_owned());
    let threads = if sizing == "plugin" { plugin_compute_threads() } else { bevy_tasks::available_parallelism() };
    bevy_tasks::ComputeTaskPool::get_or_init(|| bevy_tasks::TaskPoolBuilder::new().num_threads(threads).build());
    let mut world = bevy_ecs::world::World::new();
    world.spawn_batch((0..1_000).map(|_| tprv()));
    let mut query = world.query::<(&mut Position, &mut Transform)>();
    for batch in [None, Some(64)] {
        let mut times: Vec<Duration> = (0..60)
            .map(|_| {
                let start = Instant::now();
                let mut iter = query.par_iter_mut(&mut world);
                if let Some(batch) = batch {
                    iter = iter.batching_strategy(bevy_ecs::batching::BatchingStrategy::fixed(batch));
                }
                iter.for_each(|(mut pos, mut mat)| heavy_work(&mut mat, &mut pos));
                start.elapsed()
            })
            .collect();
        times.sort();
        println!("{sizing} ({threads} compute threads), batches {batch:?}: median {:?}", times[times.len() / 2]);
    }
}
