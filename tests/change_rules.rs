//! One test per change-tracking rule of docs/design.md ("Change tracking"); the test
//! names number the rules in the order that page lists them.

use std::collections::BTreeSet;

use ripple::query::{Added, Changed, Dirty, QueryFilter, QueryState, ReadOnlyQueryData, With, Without};
use ripple::{Entity, World};

#[derive(Debug, PartialEq, Clone, Copy)]
struct Pos(i32);
#[derive(Debug, PartialEq, Clone, Copy)]
struct Vel(i32);
#[derive(Debug, PartialEq, Clone, Copy)]
struct Sprite;
#[derive(Debug, PartialEq, Clone, Copy)]
struct Hidden;
#[derive(Debug, PartialEq, Clone, Copy)]
struct Frozen;

/// Runs `state` once and returns the entities it reported.
fn run<F: QueryFilter>(state: &mut QueryState<Entity, F>, world: &World) -> BTreeSet<Entity>
where
    Entity: ReadOnlyQueryData,
{
    let mut seen = BTreeSet::new();
    state.for_each(world, |e| assert!(seen.insert(e), "{e} reported twice in one run"));
    seen
}

fn set(entities: &[Entity]) -> BTreeSet<Entity> {
    entities.iter().copied().collect()
}

#[test]
fn r1_tracking_is_opt_in_and_untracked_writes_are_plain() {
    let mut world = World::new();
    let e = world.spawn((Pos(0), Vel(0)));
    assert!(!world.is_tracked::<Pos>());
    assert_eq!(world.tracking_bytes(), 0, "untracked types carry no tick memory");
    assert!(!world.get_mut::<Pos>(e).unwrap().is_tracked());

    let _changed = world.query_filtered::<Entity, Changed<Pos>>();
    assert!(world.is_tracked::<Pos>(), "asking about changes turns tracking on");
    assert!(!world.is_tracked::<Vel>());
    assert!(world.tracking_bytes() > 0);
    assert!(world.get_mut::<Pos>(e).unwrap().is_tracked());

    world.track::<Vel>();
    assert!(world.is_tracked::<Vel>());
    // Archetypes created later track their columns too.
    let f = world.spawn((Vel(1), Sprite));
    assert!(world.get_mut::<Vel>(f).unwrap().is_tracked());
    assert!(!world.get_mut::<Sprite>(f).unwrap().is_tracked());
}

#[test]
fn r1_tracking_memory_stays_within_budget() {
    // Budget: 8 bytes per tracked component per entity (added and changed ticks), plus
    // the summaries: per 64-row leaf a maximum, a bound, a mask and a log slot, and
    // the small inner levels above.
    let mut world = World::new();
    world.spawn_batch((0..100_000).map(|i| (Pos(i), Vel(i))));
    world.track::<Pos>();
    let one = world.tracking_bytes();
    assert!(one >= 100_000 * 8, "{one}");
    // Summaries: under one byte per row, vector growth slack included.
    assert!(one <= 100_000 * 9, "{one} bytes for one tracked column of 100,000 rows");
    world.track::<Vel>();
    assert_eq!(world.tracking_bytes(), 2 * one);
    // Summaries exist once an observer does.
    let _observer = world.query_filtered::<Entity, Changed<Pos>>();
    let observed = world.tracking_bytes() - one;
    assert!(observed > one && observed <= 100_000 * 9, "{observed} bytes once observed");
}

#[test]
fn r1_summaries_start_with_the_first_observer_and_miss_nothing() {
    let mut world = World::new();
    world.track::<Pos>();
    let es: Vec<Entity> = world.spawn_batch((0..5_000).map(|i| (Pos(i), Sprite))).collect();
    // Writes of every kind while no one observes: only row ticks are stamped.
    world.get_mut::<Pos>(es[1]).unwrap().0 = -1;
    let mut writer = world.query::<&mut Pos>();
    writer.for_each_mut(&mut world, |mut p| {
        if p.0 % 1000 == 0 {
            p.0 += 1;
        }
    });
    writer.par_for_each_mut(&mut world, |mut p| {
        if p.0 % 999 == 0 {
            p.0 += 1;
        }
    });
    world.despawn(es[2]).unwrap();
    world.insert(es[3], (Hidden,)).unwrap();
    // A late observer sees everything once, then exactly what changes.
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    assert_eq!(run(&mut changed, &world).len(), 4_999);
    assert!(run(&mut changed, &world).is_empty());
    let mut want: BTreeSet<Entity> =
        es.iter().copied().filter(|&e| world.get::<Pos>(e).is_ok_and(|p| p.0 % 700 == 3)).collect();
    writer.for_each_mut(&mut world, |mut p| {
        if p.0 % 700 == 3 {
            p.0 += 1;
        }
    });
    world.get_mut::<Pos>(es[4_000]).unwrap().0 = 7;
    want.insert(es[4_000]);
    world.despawn(es[10]).unwrap(); // a swap-remove moves the last row's ticks
    want.remove(&es[10]);
    assert_eq!(run(&mut changed, &world), want);
}

#[test]
fn r2_marking_through_mut_set_if_neq_bypass_and_mark_changed() {
    let mut world = World::new();
    let a = world.spawn((Pos(1),));
    let b = world.spawn((Pos(2),));
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    assert_eq!(run(&mut changed, &world), set(&[a, b]));

    // Reading through `Mut` does not mark.
    assert_eq!(world.get_mut::<Pos>(a).unwrap().0, 1);
    assert!(run(&mut changed, &world).is_empty());
    // Writing does.
    world.get_mut::<Pos>(a).unwrap().0 = 5;
    assert_eq!(run(&mut changed, &world), set(&[a]));
    // `set_if_neq` marks only when the value differs.
    assert!(!world.get_mut::<Pos>(a).unwrap().set_if_neq(Pos(5)));
    assert!(run(&mut changed, &world).is_empty());
    assert!(world.get_mut::<Pos>(b).unwrap().set_if_neq(Pos(7)));
    assert_eq!(run(&mut changed, &world), set(&[b]));
    // A bypass writes without marking.
    world.get_mut::<Pos>(a).unwrap().bypass_change_detection().0 = 9;
    assert!(run(&mut changed, &world).is_empty());
    assert_eq!(world.get::<Pos>(a), Ok(&Pos(9)));
    // An explicit mark, without a write.
    world.mark_changed::<Pos>(b).unwrap();
    assert_eq!(run(&mut changed, &world), set(&[b]));
    // Writes through a query's `Mut` mark too.
    let mut writer = world.query::<&mut Pos>();
    writer.for_each_mut(&mut world, |mut p| {
        if p.0 == 9 {
            p.0 = 10;
        }
    });
    assert_eq!(run(&mut changed, &world), set(&[a]));
}

#[test]
fn r2_writes_before_a_panic_are_not_lost() {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    let mut world = World::new();
    let es: Vec<Entity> = world.spawn_batch((0..300).map(|i| (Pos(i),))).collect();
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    run(&mut changed, &world);
    let mut writer = world.query::<&mut Pos>();
    let result = catch_unwind(AssertUnwindSafe(|| {
        writer.for_each_mut(&mut world, |mut p| {
            if p.0 == 150 {
                panic!("stop mid-leaf");
            }
            if p.0 % 7 == 0 {
                p.0 += 1000;
            }
        });
    }));
    assert!(result.is_err());
    // Every write made before the panic is visible to observers, none other.
    let want: BTreeSet<Entity> = es.iter().copied().filter(|&e| world.get::<Pos>(e).unwrap().0 >= 1000).collect();
    assert!(!want.is_empty());
    assert_eq!(run(&mut changed, &world), want);
}

#[test]
fn r2_writes_before_a_panic_in_a_parallel_run_are_not_lost() {
    use std::panic::{AssertUnwindSafe, catch_unwind};
    let mut world = World::new();
    // Two tables, so the threads' claims cross a table boundary.
    let mut es: Vec<Entity> = world.spawn_batch((0..3_000).map(|i| (Pos(i),))).collect();
    es.extend(world.spawn_batch((3_000..6_000).map(|i| (Pos(i), Sprite))));
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    run(&mut changed, &world);
    let mut writer = world.query::<&mut Pos>();
    let result = catch_unwind(AssertUnwindSafe(|| {
        writer.par_for_each_mut(&mut world, |mut p| {
            if p.0 == 4_500 {
                panic!("stop part-way");
            }
            if p.0 % 7 == 0 {
                p.0 = -p.0 - 1;
            }
        });
    }));
    assert!(result.is_err(), "the panic reaches the caller");
    // Every write made before the panic, on either thread, is visible to observers
    // (the summaries are folded while unwinding), and none other.
    let want: BTreeSet<Entity> = es.iter().copied().filter(|&e| world.get::<Pos>(e).unwrap().0 < 0).collect();
    assert!(!want.is_empty());
    assert_eq!(run(&mut changed, &world), want);
}

#[test]
fn r3_adding_is_changing() {
    let mut world = World::new();
    let old = world.spawn((Pos(0),));
    let mut added = world.query_filtered::<Entity, Added<Pos>>();
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    run(&mut added, &world);
    run(&mut changed, &world);

    let spawned = world.spawn((Pos(1), Sprite));
    let gained = world.spawn((Sprite,));
    world.insert(gained, (Pos(2),)).unwrap();
    world.insert(old, (Pos(3),)).unwrap(); // overwrite: changed, not added
    assert_eq!(run(&mut added, &world), set(&[spawned, gained]));
    assert_eq!(run(&mut changed, &world), set(&[spawned, gained, old]));
    // Moving to another table keeps the marks: nothing new.
    world.insert(spawned, (Vel(0),)).unwrap();
    assert!(run(&mut added, &world).is_empty());
    assert!(run(&mut changed, &world).is_empty());
}

#[test]
fn r4_each_observer_sees_changes_since_its_own_last_run() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..10).map(|i| world.spawn((Pos(i),))).collect();
    let mut early = world.query_filtered::<Entity, Changed<Pos>>();
    let mut late = world.query_filtered::<Entity, Changed<Pos>>();
    run(&mut early, &world);
    run(&mut late, &world);
    // Frame 1: `early` runs before the write, `late` after.
    assert!(run(&mut early, &world).is_empty());
    world.get_mut::<Pos>(es[3]).unwrap().0 += 1;
    assert_eq!(run(&mut late, &world), set(&[es[3]]));
    // Frame 2: `early` learns of it now; nothing is cleared globally.
    world.get_mut::<Pos>(es[4]).unwrap().0 += 1;
    assert_eq!(run(&mut early, &world), set(&[es[3], es[4]]));
    assert_eq!(run(&mut late, &world), set(&[es[4]]));
    // An observer does not see its own writes on its next run.
    let mut mover = world.query_filtered::<&mut Pos, Changed<Pos>>();
    mover.for_each_mut(&mut world, |mut p| p.0 += 100);
    assert_eq!(mover.iter_mut(&mut world).count(), 0);
    assert_eq!(run(&mut early, &world).len(), 10, "others see the mover's writes");
    // A writer that visits only what changed, writing what it visits, frame after
    // frame (its writes mark the very summary its filter reads).
    for frame in 0..5 {
        world.get_mut::<Pos>(es[frame]).unwrap().0 += 1;
        world.get_mut::<Pos>(es[9 - frame]).unwrap().0 += 1;
        let mut visited = Vec::new();
        mover.for_each_mut(&mut world, |mut p| {
            visited.push(p.0);
            p.0 += 1000;
        });
        assert_eq!(visited.len(), 2, "frame {frame}");
        assert_eq!(run(&mut early, &world), set(&[es[frame], es[9 - frame]]));
    }
}

#[test]
fn r4_a_spawn_into_a_new_block_reaches_observers_that_ran_before_it() {
    // A table grows a block while a slow observer lags behind a fast one whose runs
    // keep a write coming every frame: the slow observer must still see the spawn
    // after the fast one's writes have filled the column's record of recent changes.
    let mut world = World::new();
    let rows: Vec<Entity> = world.spawn_batch((0..64).map(|i| (Pos(i),))).collect();
    let mut slow_changed = world.query_filtered::<Entity, Changed<Pos>>();
    let mut slow_added = world.query_filtered::<Entity, Added<Pos>>();
    let mut fast = world.query_filtered::<Entity, Changed<Pos>>();
    for _ in 0..60 {
        run(&mut fast, &world);
        world.get_mut::<Pos>(rows[0]).unwrap().0 += 1;
    }
    run(&mut slow_changed, &world);
    run(&mut slow_added, &world);
    let new = world.spawn((Pos(64),)); // row 64: the table's second block
    for _ in 0..10 {
        run(&mut fast, &world);
        world.get_mut::<Pos>(rows[0]).unwrap().0 += 1;
    }
    assert_eq!(run(&mut slow_changed, &world), set(&[rows[0], new]));
    assert_eq!(run(&mut slow_added, &world), set(&[new]));
    assert_eq!(run(&mut fast, &world), set(&[rows[0]]));
}

#[test]
fn r5_an_observer_that_does_not_run_catches_up_once() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..5).map(|i| world.spawn((Pos(i), Sprite))).collect();
    let mut idle = world.query_filtered::<Entity, Dirty<(Pos,)>>();
    let mut removed = world.removal_reader::<Sprite>();
    run(&mut idle, &world);
    let mut busy = world.query_filtered::<Entity, Changed<Pos>>();
    run(&mut busy, &world);
    // Several frames pass without `idle` running.
    for &e in &es[..4] {
        world.get_mut::<Pos>(e).unwrap().0 += 1;
        assert_eq!(run(&mut busy, &world), set(&[e]));
    }
    world.remove::<(Sprite,)>(es[4]).unwrap();
    assert_eq!(run(&mut idle, &world), set(&es[..4]));
    assert!(run(&mut idle, &world).is_empty(), "seen once");
    assert_eq!(removed.read(&world).map(|(e, _)| e).collect::<Vec<_>>(), [es[4]]);
}

#[test]
fn r6_new_observers_start_with_everything_dirty() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..6).map(|i| world.spawn((Pos(i),))).collect();
    let mut warm = world.query_filtered::<Entity, Changed<Pos>>();
    run(&mut warm, &world);
    // Observers made late see every matching entity on their first run.
    let mut late_changed = world.query_filtered::<Entity, Changed<Pos>>();
    let mut late_added = world.query_filtered::<Entity, Added<Pos>>();
    let mut late_dirty = world.query_filtered::<Entity, (With<Pos>, Dirty<(Vel,)>)>();
    assert_eq!(run(&mut late_changed, &world), set(&es));
    assert_eq!(run(&mut late_added, &world), set(&es));
    assert_eq!(run(&mut late_dirty, &world), set(&es));
    assert!(run(&mut late_dirty, &world).is_empty());
}

#[test]
fn r7_dirty_sets() {
    let mut world = World::new();
    // Query: entities with a Sprite; dirty set: Pos and Hidden (not fetched).
    let a = world.spawn((Sprite, Pos(0)));
    let b = world.spawn((Sprite, Pos(0)));
    let c = world.spawn((Sprite,));
    let d = world.spawn((Pos(0),)); // does not match: no Sprite
    let mut redraw = world.query_filtered::<Entity, (With<Sprite>, Dirty<(Pos, Hidden)>)>();
    assert_eq!(run(&mut redraw, &world), set(&[a, b, c]));

    // A listed component changed, added, removed.
    world.get_mut::<Pos>(a).unwrap().0 = 1;
    world.insert(c, (Hidden,)).unwrap();
    world.remove::<(Pos,)>(b).unwrap();
    // Changes to a non-matching entity, and unrelated structural changes, are not.
    world.get_mut::<Pos>(d).unwrap().0 = 1;
    world.insert(a, (Vel(0),)).unwrap();
    // Several reasons still report the entity once.
    world.get_mut::<Pos>(a).unwrap().0 = 2;
    world.mark_changed::<Pos>(a).unwrap();
    assert_eq!(run(&mut redraw, &world), set(&[a, b, c]));
    assert!(run(&mut redraw, &world).is_empty());

    // Starting to match the query makes an entity dirty: gaining a required component...
    world.insert(d, (Sprite,)).unwrap();
    // ...or losing an excluded one.
    let mut calm = world.query_filtered::<Entity, (Without<Frozen>, Dirty<(Pos,)>)>();
    run(&mut calm, &world);
    let frozen = world.spawn((Frozen, Pos(0)));
    run(&mut calm, &world);
    world.remove::<(Frozen,)>(frozen).unwrap();
    assert_eq!(run(&mut redraw, &world), set(&[d]));
    assert_eq!(run(&mut calm, &world), set(&[frozen]));
    // Leaving and re-entering the query since the last run counts; staying does not.
    world.insert(a, (Frozen,)).unwrap();
    world.remove::<(Frozen,)>(a).unwrap();
    world.insert(b, (Vel(1),)).unwrap();
    assert_eq!(run(&mut calm, &world), set(&[a]));
    // Entities that stopped matching are not reported.
    world.get_mut::<Pos>(c).map(|_| ()).unwrap_err();
    world.remove::<(Sprite,)>(c).unwrap();
    world.insert(c, (Pos(5),)).unwrap();
    assert!(run(&mut redraw, &world).is_empty());
}

#[test]
fn r8_despawned_entities_vanish() {
    let mut world = World::new();
    let a = world.spawn((Pos(0),));
    let b = world.spawn((Pos(0),));
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    let mut dirty = world.query_filtered::<Entity, Dirty<(Pos,)>>();
    run(&mut changed, &world);
    run(&mut dirty, &world);
    world.get_mut::<Pos>(a).unwrap().0 = 1;
    world.get_mut::<Pos>(b).unwrap().0 = 1;
    world.despawn(a).unwrap();
    // The slot is reused by a new entity, which is reported as itself.
    let c = world.spawn((Pos(9),));
    assert_eq!(c.index(), a.index());
    assert_eq!(run(&mut changed, &world), set(&[b, c]));
    assert_eq!(run(&mut dirty, &world), set(&[b, c]));
}

#[test]
fn r9_removal_streams_are_read_once_per_reader_and_kept_until_read() {
    let mut world = World::new();
    let mut every_frame = world.removal_reader::<Pos>();
    let mut rarely = world.removal_reader::<Pos>();
    let es: Vec<Entity> = (0..6).map(|i| world.spawn((Pos(i), Vel(i)))).collect();
    world.remove::<(Pos,)>(es[0]).unwrap();
    world.despawn(es[1]).unwrap(); // despawn removes every component
    world.remove::<(Vel,)>(es[2]).unwrap(); // not a `Pos` removal
    let first: Vec<Entity> = every_frame.read(&world).map(|(e, _)| e).collect();
    assert_eq!(first, [es[0], es[1]]);
    assert_eq!(every_frame.read(&world).count(), 0);
    world.remove::<(Pos, Vel)>(es[3]).unwrap();
    let before_clear = world.change_tick();
    world.clear();
    let second: Vec<(Entity, ripple::Tick)> = every_frame.read(&world).collect();
    assert_eq!(second[0].0, es[3]);
    let cleared: BTreeSet<Entity> = second[1..].iter().map(|(e, _)| *e).collect();
    assert_eq!(cleared, set(&[es[2], es[4], es[5]]));
    assert!(second.iter().all(|(_, tick)| *tick == before_clear), "removals carry the tick they happened at");
    // The reader that skipped frames loses nothing, and reads nothing twice.
    let all: Vec<Entity> = rarely.read(&world).map(|(e, _)| e).collect();
    assert_eq!(all.len(), 6);
    assert_eq!(all.iter().copied().collect::<BTreeSet<_>>(), set(&es));
    assert_eq!(rarely.read(&world).count(), 0);
}

#[test]
fn r10_dirty_driven_and_brute_force_readers_agree() {
    for seed in 1..=24u64 {
        r10_run(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    }
}

/// A renderer that keeps a copy of every visible position: updated from dirty entities
/// only, or rebuilt from all of them every frame. They must agree at every frame.
fn r10_run(seed: u64) {
    use std::collections::BTreeMap;
    let mut world = World::new();
    let mut rng = seed;
    let mut next = move |n: u64| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng % n
    };
    let mut live: Vec<Entity> = (0..200).map(|i| world.spawn((Pos(i), Sprite))).collect();
    let mut dirty_reader = world.query_filtered::<(Entity, &Pos), (With<Sprite>, Dirty<(Pos,)>)>();
    let mut brute_reader = world.query_filtered::<(Entity, &Pos), With<Sprite>>();
    let mut removed = world.removal_reader::<Sprite>();
    let mut mirror: BTreeMap<Entity, i32> = BTreeMap::new();
    for _frame in 0..100 {
        for _ in 0..next(20) {
            match next(6) {
                0 => live.push(world.spawn((Pos(next(1000) as i32), Sprite))),
                1 if !live.is_empty() => {
                    let e = live.swap_remove(next(live.len() as u64) as usize);
                    world.despawn(e).unwrap();
                }
                2 if !live.is_empty() => {
                    let e = live[next(live.len() as u64) as usize];
                    let _ = world.remove::<(Sprite,)>(e);
                }
                3 if !live.is_empty() => {
                    let e = live[next(live.len() as u64) as usize];
                    world.insert(e, (Sprite,)).unwrap();
                }
                _ if !live.is_empty() => {
                    let e = live[next(live.len() as u64) as usize];
                    world.get_mut::<Pos>(e).unwrap().0 = next(1000) as i32;
                }
                _ => {}
            }
        }
        for (e, _) in removed.read(&world) {
            mirror.remove(&e);
        }
        dirty_reader.for_each(&world, |(e, p)| {
            mirror.insert(e, p.0);
        });
        mirror.retain(|e, _| world.contains(*e));
        let brute: BTreeMap<Entity, i32> = brute_reader.iter(&world).map(|(e, p)| (e, p.0)).collect();
        assert_eq!(mirror, brute);
    }
}

#[test]
fn r11_a_frame_without_changes_reports_nothing_at_any_size() {
    let mut world = World::new();
    let es: Vec<Entity> = world.spawn_batch((0..100_000).map(|i| (Pos(i), Sprite))).collect();
    let mut changed = world.query_filtered::<(Entity, &Pos), Changed<Pos>>();
    assert_eq!(changed.iter(&world).count(), 100_000);
    assert_eq!(changed.iter(&world).count(), 0);
    for &e in es.iter().step_by(10_000) {
        world.get_mut::<Pos>(e).unwrap().0 = -1;
    }
    let found: BTreeSet<Entity> = changed.iter(&world).map(|(e, _)| e).collect();
    assert_eq!(found, es.iter().copied().step_by(10_000).collect());
    // Parallel writers over a tracked column: every write is seen, none twice.
    let written: BTreeSet<Entity> = es.iter().copied().filter(|&e| world.get::<Pos>(e).unwrap().0 % 3 == 0).collect();
    let mut writer = world.query::<&mut Pos>();
    writer.par_for_each_mut(&mut world, |mut p| {
        if p.0 % 3 == 0 {
            p.0 += 1;
        }
    });
    let found: BTreeSet<Entity> = changed.iter(&world).map(|(e, _)| e).collect();
    assert_eq!(found, written);
}

#[test]
fn r12_ticks_never_wrap_into_wrong_answers() {
    let mut world = World::new();
    let es: Vec<Entity> = (0..50).map(|i| world.spawn((Pos(i),))).collect();
    let mut regular = world.query_filtered::<Entity, Changed<Pos>>();
    let mut idle = world.query_filtered::<Entity, Changed<Pos>>();
    run(&mut regular, &world);
    run(&mut idle, &world);
    // Run the world past several wraparounds of the 32-bit tick, changing a few
    // entities and running the regular observer along the way.
    for round in 0..12usize {
        world.advance_change_tick_for_tests(u32::MAX / 3);
        let e = es[round % es.len()];
        world.get_mut::<Pos>(e).unwrap().0 += 1;
        assert_eq!(run(&mut regular, &world), set(&[e]), "round {round}");
        assert!(run(&mut regular, &world).is_empty());
    }
    // Untouched for billions of ticks, still not reported as changed.
    let mut fresh = world.query_filtered::<Entity, Changed<Pos>>();
    run(&mut fresh, &world);
    world.advance_change_tick_for_tests(u32::MAX);
    assert!(run(&mut fresh, &world).is_empty());
    // An observer idle across the wraparounds never misses a change.
    let seen = run(&mut idle, &world);
    assert!(es[..12].iter().all(|e| seen.contains(e)));
}

#[test]
fn r2_a_tick_writing_more_rows_than_the_change_list_holds_loses_none() {
    // The change list of a column of N rows holds about N / 5 scattered writes. One tick
    // that writes far more, one row at a time and out of order, fills it within the
    // tick: its oldest entries, then the tick's own, are folded into the tree of maxima.
    // Observers that ran before, often or rarely, must still see every row.
    for rows in [100usize, 1_000, 10_000] {
        let mut world = World::new();
        let entities: Vec<Entity> = world.spawn_batch((0..rows).map(|i| (Pos(i as i32),))).collect();
        let mut often = world.query_filtered::<Entity, Changed<Pos>>();
        let mut rarely = world.query_filtered::<Entity, Changed<Pos>>();
        run(&mut often, &world);
        run(&mut rarely, &world);
        for frame in 0..3 {
            // A scattered ninety percent of the rows, in a different order each frame.
            let written: Vec<Entity> =
                (0..rows).map(|i| (i * 7 + frame * 13) % rows).filter(|i| i % 10 != 3).map(|i| entities[i]).collect();
            for &e in &written {
                world.get_mut::<Pos>(e).unwrap().0 += 1;
            }
            assert_eq!(run(&mut often, &world), set(&written), "{rows} rows, frame {frame}");
        }
        assert_eq!(run(&mut rarely, &world).len(), rows - rows / 10, "{rows} rows: everything written once or more");
    }
}
