//! Runs a benchmark's schedule many times, for `perf` or callgrind: the
//! `empty_systems` schedules (`plain`, `conditions`) or the `events_merged` frame
//! (`merged`). `cargo build -p bench --release --bin schedule_profile`, then
//! `valgrind --tool=callgrind target/release/schedule_profile [plain|conditions|merged] [runs]`.

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "conditions".into());
    let runs: usize = std::env::args().nth(2).and_then(|n| n.parse().ok()).unwrap_or(100_000);
    let (mut world, mut schedule) = match which.as_str() {
        "plain" => bench::empty_systems::ripple(),
        "merged" => bench::events::ripple_line::setup(true),
        _ => bench::empty_systems::ripple_conditions(),
    };
    // Natively these stages run on the calling thread (their systems take far less than
    // the parallel threshold together); under valgrind's slowdown they would not.
    schedule.set_single_threaded(true);
    for _ in 0..runs {
        schedule.run(&mut world);
    }
    std::hint::black_box(&world);
}
