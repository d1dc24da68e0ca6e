//! Runs a benchmark's schedule many times, for `perf` or callgrind: the
//! `empty_systems` schedules (`plain`, `conditions`) or the `events_merged` frame
//! (`merged`), merge_flood's crafted keys (`flood`), or a line of the
//! `schedule` workload (`schedule:ripple`, `schedule:hecs`, ...). `cargo build -p bench --release --bin schedule_profile`, then
//! `valgrind --tool=callgrind target/release/schedule_profile [plain|conditions|merged] [runs]`.

fn main() {
    let which = std::env::args().nth(1).unwrap_or_else(|| "conditions".into());
    let runs: usize = std::env::args().nth(2).and_then(|n| n.parse().ok()).unwrap_or(100_000);
    if which == "flood" {
        flood(runs);
        return;
    }
    if let Some(line) = which.strip_prefix("schedule:") {
        // One line of the `schedule` workload (`ripple`, `hecs`, ...).
        let (_, mut pass) =
            bench::schedule::lines().into_iter().find(|(name, _)| *name == line).expect("a line of `schedule`");
        for _ in 0..runs {
            pass();
        }
        return;
    }
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

/// `merge_flood`'s crafted keys (benches/events.rs), merged and delivered `runs` times.
fn flood(runs: usize) {
    #[derive(Clone, Copy)]
    struct Keyed {
        key: u64,
        amount: u32,
    }
    const F32: u64 = 2_178_309;
    const F33: u64 = 3_524_578;
    let keys: Vec<u64> = (1..=200u64).flat_map(|a| (1..=100u64).map(move |b| a * F32 + b * F33)).collect();
    let mut world = ripple::World::new();
    world.merge_messages_by(|k: &Keyed| k.key, |sum: &mut Keyed, k| sum.amount += k.amount);
    let mut cursor = world.message_cursor::<Keyed>();
    for _ in 0..runs {
        world.write_message_batch(keys.iter().chain(&keys).map(|&key| Keyed { key, amount: 1 }));
        world.deliver_messages();
        assert_eq!(world.read_messages(&mut cursor).count(), keys.len());
    }
}
