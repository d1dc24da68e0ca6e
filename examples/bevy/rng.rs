//! A tiny deterministic random number generator (SplitMix64), standing in for the
//! `rand` and `chacha20` crates bevy's examples use: the ports draw from a fixed seed
//! so that their output, and the tests that check it, never change between runs.

use std::cell::Cell;

/// A seeded generator, as bevy's `ChaCha8Rng::seed_from_u64` (another algorithm, so
/// other numbers for the same seed).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator started from `seed`.
    pub fn seed_from_u64(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A float in `0.0..1.0` (24 random bits, every value exact in `f32`).
    pub fn f32(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// `true` with probability `p`.
    pub fn bool_with(&mut self, p: f64) -> bool {
        ((self.next_u64() >> 11) as f64 / (1u64 << 53) as f64) < p
    }

    /// A fair coin.
    pub fn bool(&mut self) -> bool {
        self.next_u64() >> 63 == 1
    }

    /// An integer in `range` (`start..end`, end excluded).
    pub fn range(&mut self, range: std::ops::Range<u64>) -> u64 {
        range.start + self.next_u64() % (range.end - range.start)
    }

    /// A float in `start..end`.
    pub fn range_f32(&mut self, range: std::ops::Range<f32>) -> f32 {
        range.start + self.f32() * (range.end - range.start)
    }
}

thread_local! {
    /// The generator of this thread, as `rand::rng()` is thread-local.
    static THREAD: Cell<u64> = const { Cell::new(0) };
}

/// Seeds this thread's generator: each example does so as it starts, so that it
/// prints the same thing every time, alone or after another.
pub fn seed(seed: u64) {
    THREAD.with(|state| state.set(seed));
}

/// Runs `draw` with this thread's generator, as `rand::random` and `rand::rng()` do.
pub fn with<T>(draw: impl FnOnce(&mut Rng) -> T) -> T {
    THREAD.with(|state| {
        let mut rng = Rng(state.get());
        let value = draw(&mut rng);
        state.set(rng.0);
        value
    })
}
