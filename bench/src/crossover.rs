//! crossover (BENCHMARKS.md §F): the frame cost against the fraction of the world that
//! changes, the picture a user should see first.
//!
//! N crates with (Position, Sprite), N ∈ {100,000, 1,000,000}; each frame writes the
//! Position of K crates chosen at random (a seeded shuffle: K distinct crates, in random
//! order, the same every frame), then renders what changed (Crate-topia's renderer: a
//! checksum of exactly the entities whose Position changed since it last ran). K/N ∈
//! {0, 0.1 %, 1 %, 10 %, 50 %, 100 %}; the whole frame is timed.
//!
//! Lines (Crate-topia's worlds, with the random movers):
//! * `ripple`: the README's form, `QueryState::get_mut` one entity at a time, and a
//!   `Changed<Position>` query;
//! * `ripple_of`: the mover through `for_each_of_mut` (one lookup shared by the set);
//! * `bevy_ecs`: `Query::get_mut` and a `Changed<Position>` query in a `SystemState`;
//! * `bevy_ecs_contiguous`: bevy's faster renderer (a summary tick per table, contiguous
//!   iteration);
//! * `specs_events`: `FlaggedStorage`, its events read directly;
//! * `ideal`: flat arrays and a list of the rows written.
//!
//! Every line's checksums equal IDEAL's, frame by frame, before anything is timed.

use crate::crate_topia::{Line, build_line_moving, check_checksums};

/// Entity counts.
pub const SIZES: [usize; 2] = [100_000, 1_000_000];

/// K/N, in thousandths.
pub const PER_MILLE: [usize; 6] = [0, 1, 10, 100, 500, 1000];

/// The lines, in report order: the name shown and Crate-topia's line it runs.
pub const LINES: [(&str, &str); 6] = [
    ("ripple", "ripple_get"),
    ("ripple_of", "ripple"),
    ("bevy_ecs", "bevy_ecs"),
    ("bevy_ecs_contiguous", "bevy_ecs_contiguous"),
    ("specs_events", "specs_events"),
    ("ideal", "ideal"),
];

/// K at `n` entities and `per_mille` thousandths.
pub fn k_of(n: usize, per_mille: usize) -> usize {
    n * per_mille / 1000
}

/// The crates written each frame: `k` distinct spawn indices below `n`, in a seeded
/// random order.
pub fn random_writes(n: usize, k: usize) -> Vec<usize> {
    let mut all: Vec<usize> = (0..n).collect();
    let mut state = 0x5EED_0FC4_A7E5_u64 ^ (n as u64).rotate_left(17) ^ k as u64;
    // Fisher–Yates over the first `k` places, with splitmix64 for randomness.
    for i in 0..k.min(n) {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        let j = i + (z % (n - i) as u64) as usize;
        all.swap(i, j);
    }
    all.truncate(k);
    all
}

/// Every line's world at (n, k), its checksums checked against IDEAL's.
pub fn build_lines(n: usize, k: usize) -> Vec<(&'static str, Box<dyn Line>)> {
    let writes = random_writes(n, k);
    let mut lines: Vec<(&'static str, Box<dyn Line>)> = LINES
        .iter()
        .map(|&(shown, line)| (shown, build_line_moving(line, n, &writes).expect("a crate_topia line")))
        .collect();
    check_checksums(&mut lines, n, k);
    lines
}

/// The criterion group of (n, k).
pub fn group_name(n: usize, k: usize) -> String {
    format!("crossover/N={n},K={k}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_are_distinct_in_range_and_the_same_every_time() {
        let writes = random_writes(1000, 500);
        let mut sorted = writes.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), 500);
        assert!(sorted.iter().all(|&i| i < 1000));
        assert_eq!(writes, random_writes(1000, 500));
        assert_ne!(writes[..10], sorted[..10], "in random order");
        assert_eq!(random_writes(100, 100).len(), 100);
    }

    #[test]
    fn every_line_renders_what_ideal_renders_at_every_fraction() {
        for per_mille in PER_MILLE {
            let n = 2000;
            build_lines(n, k_of(n, per_mille));
        }
    }
}
