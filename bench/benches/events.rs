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
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::hint::black_box;

use bench::criterion_config;
use criterion::{BenchmarkId, Criterion, Throughput, criterion_group};

const N: u32 = 10_000;
const TARGETS: u32 = 100;

/// One hit: which target, how much.
#[derive(Clone, Copy, Debug, bevy_ecs::message::Message)]
struct Hit {
    target: u32,
    amount: u32,
}

fn hit(i: u32) -> Hit {
    Hit { target: i % TARGETS, amount: i & 7 }
}

/// What the four readers folded, per reader.
#[derive(Default, bevy_ecs::resource::Resource)]
struct Folded([u64; 4]);

mod ripple_line {
    use super::*;
    use ripple::{EventReader, EventWriter, IntoSystemConfig, PRE_UPDATE, ResMut, Schedule, World};

    pub fn setup(merge: bool) -> (World, Schedule) {
        let mut world = World::new();
        world.insert_resource(Folded::default());
        if merge {
            world.merge_events_by(|h: &Hit| h.target, |sum: &mut Hit, h| sum.amount += h.amount);
        }
        let mut schedule = Schedule::new();
        schedule
            .add_system(&mut world, (|mut out: EventWriter<Hit>| out.send_batch((0..N).map(hit))).in_phase(PRE_UPDATE))
            .unwrap();
        for r in 0..4 {
            schedule
                .add_system(&mut world, move |mut hits: EventReader<Hit>, mut folded: ResMut<Folded>| {
                    folded.0[r] += hits.read().map(|h| u64::from(h.amount)).sum::<u64>();
                })
                .unwrap();
        }
        (world, schedule)
    }
}

mod bevy_line {
    use super::*;
    use bevy_ecs::message::{MessageReader, MessageWriter, Messages};
    use bevy_ecs::prelude::{IntoScheduleConfigs, ResMut};
    use bevy_ecs::schedule::Schedule;
    use bevy_ecs::world::World;

    fn update(mut messages: ResMut<Messages<Hit>>) {
        messages.update();
    }
    fn writer(mut out: MessageWriter<Hit>) {
        out.write_batch((0..N).map(hit));
    }
    /// What a bevy user who needs per-target sums writes: the writer totals the hits per
    /// target first and writes one message per target.
    fn totalling_writer(mut out: MessageWriter<Hit>) {
        let mut totals = [0u32; TARGETS as usize];
        for h in (0..N).map(hit) {
            totals[h.target as usize] += h.amount;
        }
        out.write_batch((0..TARGETS).map(|target| Hit { target, amount: totals[target as usize] }));
    }
    fn reader<const R: usize>(mut hits: MessageReader<Hit>, mut folded: ResMut<Folded>) {
        folded.0[R] += hits.read().map(|h| u64::from(h.amount)).sum::<u64>();
    }

    /// bevy's schedule: on its `SingleThreadedExecutor` (documented as the executor
    /// with the least overhead) if `single_threaded`, else on its default executor; with
    /// a writer that totals per target if `totals`.
    pub fn setup(single_threaded: bool, totals: bool) -> (World, Schedule) {
        bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
        let mut world = World::new();
        world.init_resource::<Messages<Hit>>();
        world.init_resource::<Folded>();
        let mut schedule = Schedule::default();
        if single_threaded {
            schedule.set_executor(bevy_ecs::schedule::SingleThreadedExecutor::new());
        }
        if totals {
            schedule.add_systems((update, totalling_writer).chain());
            schedule.add_systems((reader::<0>, reader::<1>, reader::<2>, reader::<3>).after(totalling_writer));
        } else {
            schedule.add_systems((update, writer).chain());
            schedule.add_systems((reader::<0>, reader::<1>, reader::<2>, reader::<3>).after(writer));
        }
        (world, schedule)
    }
}

/// The total every reader should have folded after `frames` frames.
fn expected(frames: u64) -> u64 {
    frames * (0..N).map(|i| u64::from(hit(i).amount)).sum::<u64>()
}

fn events(c: &mut Criterion) {
    for (group_name, merge) in [("events", false), ("events_merged", true)] {
        let mut group = c.benchmark_group(group_name);
        group.throughput(Throughput::Elements(u64::from(N)));
        group.bench_function("ripple", |b| {
            let (mut world, mut schedule) = ripple_line::setup(merge);
            for _ in 0..3 {
                schedule.run(&mut world);
            }
            assert_eq!(world.resource::<Folded>().unwrap().0, [expected(3); 4], "every reader read every hit");
            b.iter(|| schedule.run(&mut world));
        });
        let mut bevy_lines = vec![("bevy_ecs", false, false), ("bevy_ecs_single_threaded", true, false)];
        if merge {
            bevy_lines.extend([("bevy_ecs_totals", false, true), ("bevy_ecs_totals_single_threaded", true, true)]);
        }
        for (name, single_threaded, totals) in bevy_lines {
            group.bench_function(name, |b| {
                let (mut world, mut schedule) = bevy_line::setup(single_threaded, totals);
                for _ in 0..3 {
                    schedule.run(&mut world);
                }
                assert_eq!(world.resource::<Folded>().0, [expected(3); 4], "every reader read every hit");
                b.iter(|| schedule.run(&mut world));
            });
        }
        group.finish();
    }
}

fn events_direct(c: &mut Criterion) {
    let mut group = c.benchmark_group("events_direct");
    group.throughput(Throughput::Elements(u64::from(N)));
    group.bench_function("ripple", |b| {
        let mut world = ripple::World::new();
        let mut cursors: Vec<_> = (0..4).map(|_| world.event_cursor::<Hit>()).collect();
        b.iter(|| {
            world.send_events((0..N).map(hit));
            world.deliver_events();
            let mut total = 0u64;
            for cursor in &mut cursors {
                total += world.read_events(cursor).map(|h| u64::from(h.amount)).sum::<u64>();
            }
            assert_eq!(total, 4 * expected(1));
            black_box(total)
        });
    });
    group.bench_function("bevy_ecs", |b| {
        let mut messages = bevy_ecs::message::Messages::<Hit>::default();
        let mut cursors: Vec<_> = (0..4).map(|_| messages.get_cursor()).collect();
        b.iter(|| {
            messages.write_batch((0..N).map(hit));
            let mut total = 0u64;
            for cursor in &mut cursors {
                total += cursor.read(&messages).map(|h| u64::from(h.amount)).sum::<u64>();
            }
            messages.update();
            assert_eq!(total, 4 * expected(1));
            black_box(total)
        });
    });
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
        world.merge_events_by(|h: &Hit| h.target, |sum: &mut Hit, h| sum.amount += h.amount);
        let mut cursor = world.event_cursor::<Hit>();
        group.bench_with_input(BenchmarkId::new("ripple", format!("keys={keys}")), &order, |b, order| {
            b.iter(|| {
                world.send_events(order.iter().map(|&key| Hit { target: key, amount: 1 }));
                world.deliver_events();
                assert_eq!(world.read_events(&mut cursor).count(), keys as usize);
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
        world.merge_events_by(|k: &Keyed| k.key, |sum: &mut Keyed, k| sum.amount += k.amount);
        let mut cursor = world.event_cursor::<Keyed>();
        group.bench_function(line, |b| {
            b.iter(|| {
                world.send_events(keys.iter().chain(&keys).map(|&key| Keyed { key, amount: 1 }));
                world.deliver_events();
                assert_eq!(world.read_events(&mut cursor).count(), KEYS as usize);
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
