//! Tracked writes of known entities through `QueryState::get_mut`, in a loop, for a
//! profiler: K = 10,000 of N = 100,000 Crate-topia crates a pass.
use bench::crate_topia::{Position, ripple_tracked_movers};

fn main() {
    const N: usize = 100_000;
    const K: usize = 10_000;
    let (mut world, movers) = ripple_tracked_movers(N, K);
    let mut query = world.query::<&mut Position>();
    let passes: u32 = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let start = std::time::Instant::now();
    for _ in 0..passes {
        for &e in &movers {
            query.get_mut(&mut world, e).unwrap().x += 1.0;
        }
    }
    println!("{:?} a write", start.elapsed() / (passes * K as u32));
}
