//! The events workloads shared by `benches/events.rs` and the paired tool: one writer
//! sends 10,000 hits a frame, four readers each read all of them (`events`); the same with
//! the hits merged by target (`events_merged`); and the bus alone (`events_direct`).
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::hint::black_box;

/// Hits a frame.
pub const N: u32 = 10_000;
/// Targets the hits fall on.
pub const TARGETS: u32 = 100;

/// One hit: which target, how much.
#[derive(Clone, Copy, Debug, bevy_ecs::message::Message)]
pub struct Hit {
    /// Which target.
    pub target: u32,
    /// How much.
    pub amount: u32,
}

/// The `i`-th hit of a frame.
pub fn hit(i: u32) -> Hit {
    Hit { target: i % TARGETS, amount: i & 7 }
}

/// What the four readers folded, per reader.
#[derive(Default, bevy_ecs::resource::Resource)]
pub struct Folded(pub [u64; 4]);

pub mod ripple_line {
    use super::*;
    use ripple::World;
    use ripple::message::{MessageReader, MessageWriter};
    use ripple::schedule::{IntoSystemConfig, PRE_UPDATE, Schedule};
    use ripple::system::ResMut;

    pub fn setup(merge: bool) -> (World, Schedule) {
        let mut world = World::new();
        world.insert_resource(Folded::default());
        if merge {
            world.merge_messages_by(|h: &Hit| h.target, |sum: &mut Hit, h| sum.amount += h.amount);
        }
        let mut schedule = Schedule::new();
        schedule
            .add_system(
                &mut world,
                (|mut out: MessageWriter<Hit>| out.write_batch((0..N).map(hit))).in_phase(PRE_UPDATE),
            )
            .unwrap();
        for r in 0..4 {
            schedule
                .add_system(&mut world, move |mut hits: MessageReader<Hit>, mut folded: ResMut<Folded>| {
                    folded.0[r] += hits.read().map(|h| u64::from(h.amount)).sum::<u64>();
                })
                .unwrap();
        }
        (world, schedule)
    }
}

pub mod bevy_line {
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
pub fn expected(frames: u64) -> u64 {
    frames * (0..N).map(|i| u64::from(hit(i).amount)).sum::<u64>()
}

/// One pass per line of a workload: (name, one frame), each run three frames first and
/// checked; `merge` for `events_merged`.
pub fn lines(merge: bool) -> Vec<(&'static str, crate::Pass)> {
    let mut lines: Vec<(&'static str, crate::Pass)> = Vec::new();
    let (mut world, mut schedule) = ripple_line::setup(merge);
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Folded>().unwrap().0, [expected(3); 4], "every reader read every hit");
    lines.push(("ripple", Box::new(move || schedule.run(&mut world))));
    let mut bevy_lines = vec![("bevy_ecs", false, false), ("bevy_ecs_single_threaded", true, false)];
    if merge {
        bevy_lines.extend([("bevy_ecs_totals", false, true), ("bevy_ecs_totals_single_threaded", true, true)]);
    }
    for (name, single_threaded, totals) in bevy_lines {
        let (mut world, mut schedule) = bevy_line::setup(single_threaded, totals);
        for _ in 0..3 {
            schedule.run(&mut world);
        }
        assert_eq!(world.resource::<Folded>().0, [expected(3); 4], "every reader read every hit");
        lines.push((name, Box::new(move || schedule.run(&mut world))));
    }
    lines
}

/// `events_direct`: the bus without a scheduler, one pass per line: send 10,000, deliver,
/// four cursors read all.
pub fn direct_lines() -> Vec<(&'static str, crate::Pass)> {
    let mut world = ripple::World::new();
    let mut cursors: Vec<_> = (0..4).map(|_| world.message_cursor::<Hit>()).collect();
    let ripple = Box::new(move || {
        world.write_message_batch((0..N).map(hit));
        world.deliver_messages();
        let mut total = 0u64;
        for cursor in &mut cursors {
            total += world.read_messages(cursor).map(|h| u64::from(h.amount)).sum::<u64>();
        }
        assert_eq!(total, 4 * expected(1));
        black_box(total);
    });
    let mut messages = bevy_ecs::message::Messages::<Hit>::default();
    let mut cursors: Vec<_> = (0..4).map(|_| messages.get_cursor()).collect();
    let bevy = Box::new(move || {
        messages.write_batch((0..N).map(hit));
        let mut total = 0u64;
        for cursor in &mut cursors {
            total += cursor.read(&messages).map(|h| u64::from(h.amount)).sum::<u64>();
        }
        messages.update();
        assert_eq!(total, 4 * expected(1));
        black_box(total);
    });
    vec![("ripple", ripple), ("bevy_ecs", bevy)]
}
