//! Events (issue 5): one writer sends N events a frame, four readers each read all of
//! them; ripple's events against bevy_ecs's buffered messages, in the same run.
//!
//! - `events`: through each library's scheduler — a writer system, then four reader
//!   systems (bevy: plus its `Messages::update` step, as its apps run every frame).
//! - `events_direct`: the bus alone, at world level — send N, deliver, four cursors
//!   read all.
//! - `events_merged`: as `events`, but the N hits fall on 100 targets and ripple merges
//!   them by target (readers get 100 events carrying the sums); bevy has no merging, so
//!   its readers fold all N. Both lines compute the same totals. `bevy_ecs_totals` is
//!   what a bevy user who needs per-target sums writes: the writer totals per target
//!   and writes 100 messages.
//! - bevy's lines run on its default executor and, as `*_single_threaded`, on its
//!   `SingleThreadedExecutor`.
//! - `merge_send/keys=K`: the cost of a merged send with K distinct keys in a steady
//!   frame: each key is sent twice, in a shuffled order, then the outbox is delivered.
//!   The world (and the map) live across criterion's samples, as across a game's
//!   frames: criterion calls a benchmark's setup once per sample, and a sample of
//!   the million-key case is a single frame, so a world made per sample timed first
//!   frames, whose tables grow from nothing, instead of the steady ones. `hash_map` is
//!   the key → slot bookkeeping of merging on the spot, in a bare `HashMap` with
//!   ripple's hasher, kept across samples likewise.
//! - `merge_flood`: merged sends of 20,000 keys chosen to crowd ripple's starting key
//!   hash (`ripple`: sums `a·F32 + b·F33` of small multiples of two Fibonacci numbers,
//!   whose golden-ratio products land in a handful of home slots), each sent twice,
//!   against the same frame with plain keys `0..20,000` (`ripple_plain`), and with keys
//!   that crowd a plain multiplicative hash (`ripple_inverse`: `i · 0xf1de83e19937733d`,
//!   all in one probe chain of a table homed by the top bits of `key · 0x9e3779b97f4a7c15`).

use std::hint::black_box;

use bench::criterion_config;
use bench::events::{Hit, N};
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};

fn events(c: &mut Criterion) {
    for (group_name, merge) in [("events", false), ("events_merged", true)] {
        let mut group = c.benchmark_group(group_name);
        group.throughput(Throughput::Elements(u64::from(N)));
        for (name, mut pass) in bench::events::lines(merge) {
            group.bench_function(name, |b| b.iter(&mut pass));
        }
        group.finish();
    }
}

fn events_direct(c: &mut Criterion) {
    let mut group = c.benchmark_group("events_direct");
    group.throughput(Throughput::Elements(u64::from(N)));
    for (name, mut pass) in bench::events::direct_lines() {
        group.bench_function(name, |b| b.iter(&mut pass));
    }
    group.finish();
}

/// A shuffled order of `keys` keys, each twice (xorshift Fisher–Yates, fixed seed).
fn shuffled_twice(keys: u32) -> Vec<u32> {
    let mut order: Vec<u32> = (0..keys).chain(0..keys).collect();
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    for i in (1..order.len()).rev() {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        order.swap(i, (state % (i as u64 + 1)) as usize);
    }
    order
}

fn merge_send(c: &mut Criterion) {
    let mut group = c.benchmark_group("merge_send");
    for keys in [1_000u32, 10_000, 100_000, 1_000_000] {
        let order = shuffled_twice(keys);
        group.throughput(Throughput::Elements(order.len() as u64));
        let mut world = ripple::World::new();
        world.merge_messages_by(|h: &Hit| h.target, |sum: &mut Hit, h| sum.amount += h.amount);
        let mut cursor = world.message_cursor::<Hit>();
        group.bench_with_input(BenchmarkId::new("ripple", format!("keys={keys}")), &order, |b, order| {
            b.iter(|| {
                world.write_message_batch(order.iter().map(|&key| Hit { target: key, amount: 1 }));
                world.deliver_messages();
                assert_eq!(world.read_messages(&mut cursor).count(), keys as usize);
            });
        });
        type Map = std::collections::HashMap<u32, u32, std::hash::BuildHasherDefault<FibHasher>>;
        let mut positions = Map::default();
        let mut waiting: Vec<Hit> = Vec::new();
        group.bench_with_input(BenchmarkId::new("hash_map", format!("keys={keys}")), &order, |b, order| {
            b.iter(|| {
                for &key in order {
                    let next = waiting.len() as u32;
                    let at = *positions.entry(key).or_insert(next);
                    if at == next {
                        waiting.push(Hit { target: key, amount: 1 });
                    } else {
                        waiting[at as usize].amount += 1;
                    }
                }
                assert_eq!(waiting.len(), keys as usize);
                black_box(&waiting);
                waiting.clear();
                positions.clear();
            });
        });
    }
    group.finish();
}

/// ripple's id hasher, copied: multiply by the golden ratio (Fibonacci hashing).
#[derive(Default)]
struct FibHasher(u64);

impl std::hash::Hasher for FibHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }
    fn write_u32(&mut self, n: u32) {
        self.write_u64(u64::from(n));
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(5) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

/// Merged sends of crafted colliding keys against plain ones (see the module docs).
fn merge_flood(c: &mut Criterion) {
    #[derive(Clone, Copy)]
    struct Keyed {
        key: u64,
        amount: u32,
    }
    const KEYS: u64 = 20_000;
    let mut group = c.benchmark_group("merge_flood");
    group.throughput(Throughput::Elements(2 * KEYS));
    const F32: u64 = 2_178_309;
    const F33: u64 = 3_524_578;
    let crafted: Vec<u64> = (1..=200u64).flat_map(|a| (1..=100u64).map(move |b| a * F32 + b * F33)).collect();
    let inverse: Vec<u64> = (0..KEYS).map(|i| i.wrapping_mul(0xf1de_83e1_9937_733d)).collect();
    let plain: Vec<u64> = (0..KEYS).collect();
    for (line, keys) in [("ripple", crafted), ("ripple_plain", plain), ("ripple_inverse", inverse)] {
        let mut world = ripple::World::new();
        world.merge_messages_by(|k: &Keyed| k.key, |sum: &mut Keyed, k| sum.amount += k.amount);
        let mut cursor = world.message_cursor::<Keyed>();
        group.bench_function(line, |b| {
            b.iter(|| {
                world.write_message_batch(keys.iter().chain(&keys).map(|&key| Keyed { key, amount: 1 }));
                world.deliver_messages();
                assert_eq!(world.read_messages(&mut cursor).count(), KEYS as usize);
            });
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = events, events_direct, merge_send, merge_flood
}
bench::bench_main!(benches);
