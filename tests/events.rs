//! Events: delivery at sync points, exactly-once reads per reader across phases,
//! frames, disabled and removed readers and parallel systems; merging; bounded queues.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::sync::{Arc, Mutex};

use ripple::prelude::*;
use ripple::schedule::{POST_UPDATE, PRE_UPDATE};

/// A numbered event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Ping(u32);
/// Sent in answer to a `Ping`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pong(u32);

type Seen<T> = Arc<Mutex<Vec<T>>>;

/// A system that records every `E` it reads, tagged with the frame it read it in.
fn recorder<E: Copy + Send + Sync + 'static>(seen: Seen<(u32, E)>) -> impl FnMut(MessageReader<E>, Res<Frame>) + Send {
    move |mut events: MessageReader<E>, frame: Res<Frame>| {
        seen.lock().unwrap().extend(events.read().map(|&e| (frame.0, e)));
    }
}

struct Frame(u32);

fn count_frames(mut frame: ResMut<Frame>) {
    frame.0 += 1;
}

fn world() -> World {
    let mut world = World::new();
    world.insert_resource(Frame(0));
    world
}

#[test]
fn an_event_is_readable_by_systems_ordered_after_its_writer_in_the_same_run() {
    let mut world = world();
    let mut schedule = Schedule::new();
    let same_phase = Seen::default();
    let unordered = Seen::default();
    let next_phase = Seen::default();
    schedule.add_system(&mut world, count_frames.in_phase(PRE_UPDATE)).unwrap();
    schedule
        .add_system(
            &mut world,
            (|mut out: MessageWriter<Ping>, frame: Res<Frame>| out.write(Ping(frame.0))).named("send"),
        )
        .unwrap();
    schedule.add_system(&mut world, recorder::<Ping>(same_phase.clone()).named("same").after("send")).unwrap();
    schedule.add_system(&mut world, recorder::<Ping>(unordered.clone()).named("unordered")).unwrap();
    schedule.add_system(&mut world, recorder::<Ping>(next_phase.clone()).in_phase(POST_UPDATE)).unwrap();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    // The reader after the writer in the same phase sees each event in the same frame.
    assert_eq!(*same_phase.lock().unwrap(), [(1, Ping(1)), (2, Ping(2)), (3, Ping(3))]);
    // A reader with no order to the writer runs beside it (no conflict): it sees each
    // event the next frame.
    assert_eq!(*unordered.lock().unwrap(), [(2, Ping(1)), (3, Ping(2))]);
    // The reader in the next phase sees it in the same frame.
    assert_eq!(*next_phase.lock().unwrap(), [(1, Ping(1)), (2, Ping(2)), (3, Ping(3))]);
}

#[test]
fn events_sent_while_handling_events_arrive_at_the_following_sync_point() {
    let mut world = world();
    let mut schedule = Schedule::new();
    let pongs = Seen::default();
    schedule.add_system(&mut world, count_frames.in_phase(PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, (|mut out: MessageWriter<Ping>| out.write(Ping(7))).in_phase(PRE_UPDATE)).unwrap();
    schedule
        .add_system(&mut world, |mut pings: MessageReader<Ping>, mut out: MessageWriter<Pong>| {
            out.write_batch(pings.read().map(|p| Pong(p.0)));
        })
        .unwrap();
    // Same phase as the answering system: the pong is delivered at this phase's end.
    schedule.add_system(&mut world, recorder::<Pong>(pongs.clone()).in_phase(POST_UPDATE)).unwrap();
    schedule.run(&mut world);
    assert_eq!(*pongs.lock().unwrap(), [(1, Pong(7))]);
}

#[test]
fn every_reader_reads_each_event_exactly_once_in_send_order() {
    let mut world = world();
    let mut schedule = Schedule::new();
    let readers: Vec<Seen<(u32, Ping)>> = (0..4).map(|_| Seen::default()).collect();
    schedule.add_system(&mut world, count_frames.in_phase(PRE_UPDATE)).unwrap();
    schedule
        .add_system(
            &mut world,
            (|mut out: MessageWriter<Ping>, frame: Res<Frame>| {
                out.write_batch((0..frame.0).map(|i| Ping(frame.0 * 100 + i)));
            })
            .in_phase(PRE_UPDATE),
        )
        .unwrap();
    for seen in &readers {
        schedule.add_system(&mut world, recorder::<Ping>(seen.clone())).unwrap();
    }
    for _ in 0..10 {
        schedule.run(&mut world);
    }
    let expected: Vec<Ping> = (1..=10).flat_map(|f| (0..f).map(move |i| Ping(f * 100 + i))).collect();
    for seen in &readers {
        let got: Vec<Ping> = seen.lock().unwrap().iter().map(|&(_, e)| e).collect();
        assert_eq!(got, expected);
    }
}

#[test]
fn a_disabled_reader_reads_what_it_missed_once_when_enabled_again() {
    let mut world = world();
    let mut schedule = Schedule::new();
    let seen = Seen::default();
    let always = Seen::default();
    schedule.add_system(&mut world, count_frames.in_phase(PRE_UPDATE)).unwrap();
    schedule
        .add_system(
            &mut world,
            (|mut out: MessageWriter<Ping>, frame: Res<Frame>| out.write(Ping(frame.0))).in_phase(PRE_UPDATE),
        )
        .unwrap();
    let reader = schedule.add_system(&mut world, recorder::<Ping>(seen.clone())).unwrap();
    schedule.add_system(&mut world, recorder::<Ping>(always.clone())).unwrap();
    schedule.run(&mut world);
    schedule.set_enabled(reader, false).unwrap();
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(world.message_stats::<Ping>().readable, 4, "pings 2 to 5 are kept for the disabled reader");
    schedule.set_enabled(reader, true).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    let got: Vec<_> = seen.lock().unwrap().clone();
    assert_eq!(got, [(1, Ping(1)), (6, Ping(2)), (6, Ping(3)), (6, Ping(4)), (6, Ping(5)), (6, Ping(6)), (7, Ping(7))]);
    assert_eq!(always.lock().unwrap().len(), 7);
    assert_eq!(world.message_stats::<Ping>().readable, 0, "events every reader has read are forgotten");
}

#[test]
fn a_removed_reader_stops_holding_events_back() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, (|mut out: MessageWriter<Ping>| out.write(Ping(0))).in_phase(PRE_UPDATE)).unwrap();
    let reader = schedule.add_system(&mut world, recorder::<Ping>(Seen::default())).unwrap();
    schedule.set_enabled(reader, false).unwrap();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.message_stats::<Ping>().readable, 3);
    schedule.remove_system(&mut world, reader).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.message_stats::<Ping>().readable, 0, "with no reader left, nothing is held back");
}

/// Several writers and readers of several types, some able to run in parallel.
fn busy_schedule(world: &mut World, single_threaded: bool) -> (Schedule, Vec<Seen<(u32, Pong)>>) {
    let mut schedule = Schedule::new();
    schedule.set_single_threaded(single_threaded);
    schedule.add_system(world, count_frames.in_phase(PRE_UPDATE)).unwrap();
    for w in 0..3u32 {
        schedule
            .add_system(
                world,
                (move |mut out: MessageWriter<Ping>, frame: Res<Frame>| {
                    out.write_batch((0..50).map(|i| Ping(w * 1_000_000 + frame.0 * 1000 + i)));
                })
                .in_phase(PRE_UPDATE),
            )
            .unwrap();
    }
    let mut seen = Vec::new();
    for r in 0..4u32 {
        schedule
            .add_system(world, move |mut pings: MessageReader<Ping>, mut out: MessageWriter<Pong>| {
                out.write_batch(pings.read().filter(|p| p.0 % 4 == r).map(|p| Pong(p.0 + r)));
            })
            .unwrap();
        let pongs = Seen::default();
        schedule.add_system(world, recorder::<Pong>(pongs.clone()).in_phase(POST_UPDATE)).unwrap();
        seen.push(pongs);
    }
    (schedule, seen)
}

#[test]
fn parallel_and_single_threaded_runs_deliver_the_same_events_in_the_same_order() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(4).build().unwrap();
    let mut results = Vec::new();
    for single_threaded in [true, false] {
        let mut world = world();
        let (mut schedule, seen) = busy_schedule(&mut world, single_threaded);
        pool.install(|| {
            for _ in 0..20 {
                schedule.run(&mut world);
            }
        });
        let seen: Vec<Vec<(u32, Pong)>> = seen.iter().map(|s| s.lock().unwrap().clone()).collect();
        assert_eq!(seen[0].len(), 20 * 150, "every pong of every frame, each once");
        results.push(seen);
    }
    assert_eq!(results[0], results[1]);
}

/// A hit on an enemy; hits on one target in one frame merge into their sum.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Damage {
    target: Entity,
    amount: u32,
}

#[test]
fn twenty_hits_on_one_enemy_in_one_frame_become_one_damage_event_with_the_sum() {
    let mut world = world();
    world.merge_messages_by(|d: &Damage| d.target, |sum: &mut Damage, hit| sum.amount += hit.amount);
    let enemy = world.spawn(("enemy",));
    let other = world.spawn(("other",));
    let mut schedule = Schedule::new();
    schedule
        .add_system(
            &mut world,
            (move |mut hits: MessageWriter<Damage>| {
                for i in 0..20 {
                    hits.write(Damage { target: enemy, amount: i + 1 });
                }
                hits.write(Damage { target: other, amount: 4 });
            })
            .in_phase(PRE_UPDATE),
        )
        .unwrap();
    let seen = Seen::default();
    schedule.add_system(&mut world, recorder::<Damage>(seen.clone())).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    let got: Vec<Damage> = seen.lock().unwrap().iter().map(|&(_, d)| d).collect();
    let frame = [Damage { target: enemy, amount: 210 }, Damage { target: other, amount: 4 }];
    assert_eq!(got, [frame, frame].concat(), "merged per frame, never across frames");
    let stats = world.message_stats::<Damage>();
    assert_eq!(stats.sent, 42);
}

#[test]
fn merging_over_many_keys_keeps_first_send_order_and_sums_in_send_order() {
    // Many keys, each sent three times in a scrambled order, over two frames: the key
    // table grows several times in the first and is reused in the second, and what
    // readers get must be what merging one send at a time gives.
    const KEYS: u32 = 50_000;
    #[derive(Debug, PartialEq)]
    struct Mark {
        key: u32,
        trail: u64,
    }
    let mut world = World::new();
    // An order-sensitive fold: combining out of send order would change the trail.
    world.merge_messages_by(
        |m: &Mark| m.key,
        |acc: &mut Mark, m| acc.trail = acc.trail.wrapping_mul(1_000_003).wrapping_add(m.trail),
    );
    let mut cursor = world.message_cursor::<Mark>();
    let sends: Vec<(u32, u64)> =
        (0..3 * u64::from(KEYS)).map(|i| ((i.wrapping_mul(2_654_435_761) % u64::from(KEYS)) as u32, i)).collect();
    let mut expected: Vec<Mark> = Vec::new();
    let mut at = vec![usize::MAX; KEYS as usize];
    for &(key, trail) in &sends {
        match at[key as usize] {
            usize::MAX => {
                at[key as usize] = expected.len();
                expected.push(Mark { key, trail });
            }
            i => expected[i].trail = expected[i].trail.wrapping_mul(1_000_003).wrapping_add(trail),
        }
    }
    for frame in 0..2 {
        world.write_message_batch(sends.iter().map(|&(key, trail)| Mark { key, trail }));
        assert_eq!(world.message_stats::<Mark>().waiting, KEYS as usize, "frame {frame}: merged ones count once");
        world.deliver_messages();
        let got: Vec<&Mark> = world.read_messages(&mut cursor).collect();
        assert!(got.len() == expected.len() && got.iter().zip(&expected).all(|(g, e)| *g == e), "frame {frame}");
    }
    // After delivery every key is forgotten.
    world.write_message(Mark { key: 1, trail: 1 });
    world.write_message(Mark { key: 1, trail: 2 });
    world.deliver_messages();
    assert_eq!(world.read_messages(&mut cursor).collect::<Vec<_>>(), [&Mark { key: 1, trail: 1_000_005 }]);
}

#[test]
fn merging_past_the_late_lookup_threshold_gives_what_merging_at_once_gives() {
    // Past 262,144 keys in one sync point a policy looks each send up a few dozen sends
    // late; readers must not be able to tell.
    const KEYS: u64 = 300_000;
    #[derive(Debug, PartialEq)]
    struct Mark {
        key: u64,
        trail: u64,
    }
    let fold = |acc: &mut Mark, m: Mark| acc.trail = acc.trail.wrapping_mul(1_000_003).wrapping_add(m.trail);
    let mut world = World::new();
    world.merge_messages_by(|m: &Mark| m.key, fold);
    let mut cursor = world.message_cursor::<Mark>();
    // Every key twice, scrambled (the multiplier is coprime with KEYS).
    let sends = || (0..2 * KEYS).map(|i| Mark { key: i.wrapping_mul(2_654_435_761) % KEYS, trail: i });
    let mut expected: Vec<Mark> = Vec::new();
    let mut at = vec![usize::MAX; KEYS as usize];
    for mark in sends() {
        match at[mark.key as usize] {
            usize::MAX => {
                at[mark.key as usize] = expected.len();
                expected.push(mark);
            }
            i => fold(&mut expected[i], mark),
        }
    }
    for frame in 0..2 {
        let mut writer = sends();
        // One by one, then the rest as a batch: both paths hold sends back alike.
        writer.by_ref().take(1_000).for_each(|mark| world.write_message(mark));
        world.write_message_batch(writer);
        assert_eq!(world.message_stats::<Mark>().waiting, KEYS as usize, "frame {frame}");
        world.deliver_messages();
        let got: Vec<&Mark> = world.read_messages(&mut cursor).collect();
        assert!(got.len() == expected.len() && got.iter().zip(&expected).all(|(g, e)| *g == e), "frame {frame}");
    }
}

#[test]
fn a_bounded_queue_drops_the_oldest_and_says_so() {
    let mut world = World::new();
    world.set_message_capacity::<Ping>(Some(3));
    let mut cursor = world.message_cursor::<Ping>();
    world.write_message_batch((0..5).map(Ping));
    world.deliver_messages();
    assert_eq!(world.message_stats::<Ping>().dropped, 2);
    let got: Vec<_> = world.read_messages(&mut cursor).copied().collect();
    assert_eq!(got, [Ping(2), Ping(3), Ping(4)]);
    assert_eq!(cursor.missed(), 2);
}

#[test]
fn commands_can_send_events_and_they_are_delivered_at_that_sync_point() {
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut world, (|mut commands: Commands| commands.write_message(Ping(9))).in_phase(PRE_UPDATE))
        .unwrap();
    let seen = Seen::default();
    schedule.add_system(&mut world, recorder::<Ping>(seen.clone())).unwrap();
    schedule.run(&mut world);
    assert_eq!(*seen.lock().unwrap(), [(0, Ping(9))]);
}

#[test]
fn a_cursor_from_another_world_is_refused() {
    let mut first = World::new();
    let second = World::new();
    let mut cursor = first.message_cursor::<Ping>();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| second.read_messages(&mut cursor).count()));
    let message = *result.unwrap_err().downcast::<String>().unwrap();
    assert!(message.contains("MessageCursor<events::Ping> was used with another world"), "{message}");
}

#[test]
fn a_bounded_queue_without_readers_reports_no_drops() {
    let mut world = World::new();
    world.set_message_capacity::<Ping>(Some(1));
    world.write_message_batch((0..5).map(Ping));
    world.deliver_messages();
    assert_eq!(world.message_stats::<Ping>().dropped, 0, "no reader would have read them");
}

#[test]
fn a_read_that_stops_early_leaves_the_rest_for_the_next_read() {
    // Each reader system stops part-way in its own way on the first frame and reads
    // everything on the second: it must get every event exactly once, in order.
    type Stop = fn(&mut MessageReader<Ping>) -> Vec<Ping>;
    let stops: [(&str, Stop); 5] = [
        ("break", |reader| {
            let mut got = Vec::new();
            for &ping in reader.read() {
                got.push(ping);
                if ping.0 == 2 {
                    break;
                }
            }
            got
        }),
        ("take", |reader| reader.read().take(3).copied().collect()),
        ("next", |reader| reader.read().next().copied().into_iter().collect()),
        ("find", |reader| reader.read().find(|p| p.0 == 4).copied().into_iter().collect()),
        ("nth", |reader| reader.read().nth(1).copied().into_iter().collect()),
    ];
    let mut world = world();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, count_frames.in_phase(PRE_UPDATE)).unwrap();
    schedule
        .add_system(
            &mut world,
            (|mut out: MessageWriter<Ping>, frame: Res<Frame>| {
                if frame.0 == 1 {
                    out.write_batch((0..8).map(Ping));
                }
            })
            .in_phase(PRE_UPDATE),
        )
        .unwrap();
    let mut records = Vec::new();
    for (name, stop) in stops {
        let seen = Seen::default();
        let record = seen.clone();
        schedule
            .add_system(&mut world, move |mut reader: MessageReader<Ping>, frame: Res<Frame>| {
                let got = if frame.0 == 1 { stop(&mut reader) } else { reader.read().copied().collect() };
                record.lock().unwrap().extend(got.into_iter().map(|p| (frame.0, p)));
            })
            .unwrap();
        records.push((name, seen));
    }
    schedule.run(&mut world);
    schedule.run(&mut world);
    let later = |from: u32| (from..8).map(|i| (2, Ping(i)));
    let first = |upto: u32| (0..upto).map(|i| (1, Ping(i)));
    let want: [Vec<(u32, Ping)>; 5] = [
        first(3).chain(later(3)).collect(),
        first(3).chain(later(3)).collect(),
        first(1).chain(later(1)).collect(),
        // `find` and `nth` consume what they pass over: those count as read.
        [(1, Ping(4))].into_iter().chain(later(5)).collect(),
        [(1, Ping(1))].into_iter().chain(later(2)).collect(),
    ];
    for ((name, seen), want) in records.iter().zip(want) {
        assert_eq!(*seen.lock().unwrap(), want, "{name}");
    }
    assert_eq!(world.message_stats::<Ping>().readable, 0, "every reader is past every event");
}

#[test]
fn a_world_cursor_reads_past_what_it_yielded_and_a_panicking_fold_loses_nothing_after() {
    let mut world = World::new();
    let mut cursor = world.message_cursor::<Ping>();
    world.write_message_batch((0..10).map(Ping));
    world.deliver_messages();
    assert_eq!(world.read_messages(&mut cursor).take(2).count(), 2);
    let mut events = world.read_messages(&mut cursor);
    assert_eq!(events.len(), 8);
    assert_eq!(events.next(), Some(&Ping(2)));
    assert_eq!(world.read_messages(&mut cursor).len(), 7, "asking the length reads nothing");
    // A fold whose closure panics at Ping(5): 3, 4 and 5 were handed to it, and count.
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        world.read_messages(&mut cursor).fold(0, |sum, p| if p.0 == 5 { panic!("at 5") } else { sum + p.0 })
    }));
    assert!(result.is_err());
    let rest: Vec<Ping> = world.read_messages(&mut cursor).copied().collect();
    assert_eq!(rest, (6..10).map(Ping).collect::<Vec<_>>());
    assert_eq!(world.read_messages(&mut cursor).count(), 0);
    // Counting reads everything.
    world.write_message_batch((10..13).map(Ping));
    world.deliver_messages();
    let mut events = world.read_messages(&mut cursor);
    events.next();
    assert_eq!(events.count(), 2);
    assert_eq!(world.read_messages(&mut cursor).len(), 0);
    // An iterator that is left has read what it yielded, and nothing more.
    world.write_message_batch((13..16).map(Ping));
    world.deliver_messages();
    let mut events = world.read_messages(&mut cursor);
    assert_eq!(events.next(), Some(&Ping(13)));
    assert_eq!(world.read_messages(&mut cursor).copied().collect::<Vec<_>>(), [Ping(14), Ping(15)]);
}

/// The iterator's borrow of its reader ends at its last use (it commits as it goes,
/// with no `Drop`): this did not compile while the iterator moved the cursor on drop.
#[test]
fn a_reader_is_free_again_after_the_iterators_last_use() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut world, (|mut out: MessageWriter<Ping>| out.write_batch((0..3).map(Ping))).in_phase(PRE_UPDATE))
        .unwrap();
    let seen = Seen::default();
    let record = seen.clone();
    schedule
        .add_system(&mut world, move |mut reader: MessageReader<Ping>| {
            let mut events = reader.read();
            let first = events.next().copied();
            // `events` is not used again: the reader can be asked at once.
            let left = reader.len();
            let empty = reader.is_empty();
            record.lock().unwrap().extend(first.map(|p| (left as u32, p)));
            assert_eq!(empty, left == 0);
            reader.clear();
        })
        .unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(*seen.lock().unwrap(), [(2, Ping(0)), (2, Ping(0))]);
}

#[test]
fn a_partial_read_of_a_bounded_queue_counts_drops_once() {
    let mut world = World::new();
    world.set_message_capacity::<Ping>(Some(4));
    let mut cursor = world.message_cursor::<Ping>();
    world.write_message_batch((0..4).map(Ping));
    world.deliver_messages();
    assert_eq!(world.read_messages(&mut cursor).next(), Some(&Ping(0)));
    world.write_message_batch((4..7).map(Ping)); // the queue keeps 3 to 6: 1 and 2 are dropped unread
    world.deliver_messages();
    assert_eq!(world.read_messages(&mut cursor).next(), Some(&Ping(3)));
    assert_eq!(cursor.missed(), 2);
    assert_eq!(world.read_messages(&mut cursor).copied().collect::<Vec<_>>(), [Ping(4), Ping(5), Ping(6)]);
    assert_eq!(cursor.missed(), 2, "the drops were counted once");
}

/// A merge key; its event's amount is the number of sends merged into it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Keyed {
    key: u64,
    amount: u32,
}

#[test]
fn merge_keys_crafted_to_collide_still_merge_exactly_frame_after_frame() {
    // `i · 0xf1de83e19937733d` undoes the multiplier of an unsalted Fibonacci hash: every
    // key would start in one probe chain. Keys from data (a network, a level file) may
    // be chosen like this; the sends must still merge exactly, key by key, in the order
    // each key was first sent (the time bound is the `merge_flood` benchmark's).
    let crafted: Vec<u64> = (0..20_000u64).map(|i| i.wrapping_mul(0xf1de_83e1_9937_733d)).collect();
    let mut world = World::new();
    world.merge_messages_by(|k: &Keyed| k.key, |sum: &mut Keyed, k| sum.amount += k.amount);
    let mut cursor = world.message_cursor::<Keyed>();
    for frame in 0..3u32 {
        // Each frame sends every key twice, and a third time for every seventh key.
        let thrice = crafted.iter().step_by(7);
        world.write_message_batch(crafted.iter().chain(&crafted).chain(thrice).map(|&key| Keyed { key, amount: 1 }));
        world.deliver_messages();
        let got: Vec<Keyed> = world.read_messages(&mut cursor).copied().collect();
        assert_eq!(got.len(), crafted.len(), "frame {frame}: one event per key");
        for (i, (event, &key)) in got.iter().zip(&crafted).enumerate() {
            let expected = if i % 7 == 0 { 3 } else { 2 };
            assert_eq!(*event, Keyed { key, amount: expected }, "frame {frame}, key {i}");
        }
    }
}
