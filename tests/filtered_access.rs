//! Access that understands filters: queries that can never match the same entity may
//! both write a component, in one system or in two systems of one parallel stage; a
//! `ParamSet` hands out conflicting parameters one at a time; resources know whether
//! they changed since a system last ran.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]
#![allow(clippy::type_complexity, reason = "system signatures spell their queries out")]

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use ripple::Storage;
use ripple::prelude::*;
use ripple::schedule::ScheduleError;

#[derive(Clone, Copy, Debug, PartialEq)]
struct Hp(i32);
struct Player;
struct Enemy;
struct Marked;

#[test]
fn one_system_may_write_a_component_through_two_disjoint_queries() {
    let mut world = World::new();
    let player = world.spawn((Hp(10), Player));
    let enemy = world.spawn((Hp(10),));
    let mut schedule = Schedule::new();
    schedule
        .add_system(
            &mut world,
            |mut players: Query<&mut Hp, With<Player>>, mut others: Query<&mut Hp, Without<Player>>| {
                // Items of both alive at once: they are different entities.
                let mut mine: Vec<_> = players.iter_mut().collect();
                let mut theirs: Vec<_> = others.iter_mut().collect();
                mine[0].0 += 5;
                theirs[0].0 -= 5;
            },
        )
        .unwrap();
    schedule.run(&mut world);
    assert_eq!(world.get::<Hp>(player).map(|hp| hp.0).ok(), Some(15));
    assert_eq!(world.get::<Hp>(enemy).map(|hp| hp.0).ok(), Some(5));
}

#[test]
fn fetching_a_component_counts_as_requiring_it() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    // `&Player` requires Player as `With<Player>` does; `Option<&Player>` does not.
    schedule
        .add_system(&mut world, |a: Query<(&mut Hp, &Player)>, b: Query<&mut Hp, Without<Player>>| {
            let _ = (a, b);
        })
        .unwrap();
    let error = schedule
        .add_system(&mut world, |a: Query<(&mut Hp, Option<&Player>)>, b: Query<&mut Hp, Without<Player>>| {
            let _ = (a, b);
        })
        .unwrap_err();
    assert!(error.to_string().contains("component `filtered_access::Hp` is written twice"), "{error}");
}

#[test]
fn queries_that_may_overlap_are_still_refused_with_a_hint() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    // Player and Enemy could be on one entity.
    let error = schedule
        .add_system(&mut world, |a: Query<&mut Hp, With<Player>>, b: Query<&mut Hp, With<Enemy>>| {
            let _ = (a, b);
        })
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("is written twice"), "{message}");
    assert!(message.contains("ParamSet"), "{message}");
    // A filter inside `Or` does not decide a match on its own.
    let error = schedule
        .add_system(
            &mut world,
            |a: Query<&mut Hp, Or<(With<Player>, With<Enemy>)>>, b: Query<&mut Hp, Without<Player>>| {
                let _ = (a, b);
            },
        )
        .unwrap_err();
    assert!(matches!(error, ScheduleError::ConflictingParams { .. }), "{error}");
}

#[test]
fn sparse_components_give_no_disjointness() {
    // A sparse marker does not split tables, and a sparse component is one store for
    // every entity: neither side may be written by two queries at once.
    let mut world = World::new();
    world.set_storage::<Marked>(Storage::SparseSet).unwrap();
    let mut schedule = Schedule::new();
    let error = schedule
        .add_system(&mut world, |a: Query<&mut Hp, With<Marked>>, b: Query<&mut Hp, Without<Marked>>| {
            let _ = (a, b);
        })
        .unwrap_err();
    assert!(matches!(error, ScheduleError::ConflictingParams { .. }), "{error}");

    #[derive(Debug)]
    struct Glow;
    world.set_storage::<Glow>(Storage::SparseSet).unwrap();
    let error = schedule
        .add_system(&mut world, |a: Query<&mut Glow, With<Player>>, b: Query<&mut Glow, Without<Player>>| {
            let _ = (a, b);
        })
        .unwrap_err();
    assert!(matches!(error, ScheduleError::ConflictingParams { .. }), "{error}");
}

/// A system that waits (up to a deadline) until `count` systems are inside at once,
/// and records whether they met.
fn rendezvous(
    inside: &Arc<AtomicUsize>,
    met: &Arc<AtomicBool>,
    count: usize,
) -> impl Fn() + Send + Sync + Clone + 'static {
    let (inside, met) = (Arc::clone(inside), Arc::clone(met));
    move || {
        inside.fetch_add(1, Ordering::SeqCst);
        let deadline = Instant::now() + Duration::from_secs(10);
        while inside.load(Ordering::SeqCst) < count {
            if Instant::now() > deadline {
                return;
            }
            std::hint::spin_loop();
        }
        met.store(true, Ordering::SeqCst);
    }
}

#[test]
fn two_systems_writing_a_component_under_with_and_without_run_in_one_parallel_stage() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut world = World::new();
    let player = world.spawn((Hp(1), Player));
    let other = world.spawn((Hp(1),));
    let inside = Arc::new(AtomicUsize::new(0));
    let met = Arc::new(AtomicBool::new(false));
    let mut schedule = Schedule::new();
    let wait = rendezvous(&inside, &met, 2);
    let wait_too = wait.clone();
    schedule
        .add_system(&mut world, move |mut players: Query<&mut Hp, With<Player>>| {
            players.for_each_mut(|mut hp| hp.0 += 1);
            wait();
        })
        .unwrap();
    schedule
        .add_system(&mut world, move |mut others: Query<&mut Hp, Without<Player>>| {
            others.for_each_mut(|mut hp| hp.0 += 2);
            wait_too();
        })
        .unwrap();
    // Without profiling the schedule runs every multi-system stage in parallel.
    schedule.set_profiling(false);
    pool.install(|| schedule.run(&mut world));
    assert!(met.load(Ordering::SeqCst), "both systems were running at the same time");
    assert_eq!(world.get::<Hp>(player).map(|hp| hp.0).ok(), Some(2));
    assert_eq!(world.get::<Hp>(other).map(|hp| hp.0).ok(), Some(3));
}

#[test]
fn systems_whose_queries_may_overlap_never_run_together() {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    let mut world = World::new();
    world.spawn((Hp(1), Player, Enemy));
    let inside = Arc::new(AtomicUsize::new(0));
    let mut schedule = Schedule::new();
    let max_inside = Arc::new(AtomicUsize::new(0));
    for _ in 0..2 {
        let (inside, max_inside) = (Arc::clone(&inside), Arc::clone(&max_inside));
        schedule
            .add_system(&mut world, move |mut q: Query<&mut Hp, With<Player>>| {
                let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                max_inside.fetch_max(now, Ordering::SeqCst);
                q.for_each_mut(|mut hp| hp.0 += 1);
                std::thread::yield_now();
                inside.fetch_sub(1, Ordering::SeqCst);
            })
            .unwrap();
    }
    schedule.set_profiling(false);
    for _ in 0..50 {
        pool.install(|| schedule.run(&mut world));
    }
    assert_eq!(max_inside.load(Ordering::SeqCst), 1);
}

#[test]
fn a_param_set_hands_out_conflicting_queries_one_at_a_time() {
    let mut world = World::new();
    let shielded = world.spawn((Hp(10), Player));
    let plain = world.spawn((Hp(5),));
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut world, |mut set: ParamSet<(Query<&'static mut Hp>, Query<&'static Hp, With<Player>>)>| {
            set.p0().for_each_mut(|mut hp| hp.0 += 1);
            let total: i32 = set.p1().iter().map(|hp| hp.0).sum();
            assert_eq!(total, 11, "the second member sees the first one's writes");
        })
        .unwrap();
    schedule.run(&mut world);
    assert_eq!(world.get::<Hp>(shielded).map(|hp| hp.0).ok(), Some(11));
    assert_eq!(world.get::<Hp>(plain).map(|hp| hp.0).ok(), Some(6));
}

#[test]
fn a_param_set_still_conflicts_with_the_systems_other_parameters() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let error = schedule
        .add_system(&mut world, |set: ParamSet<(Query<&'static mut Hp>, Query<&'static Hp>)>, other: Query<&Hp>| {
            let _ = (set, other);
        })
        .unwrap_err();
    assert!(error.to_string().contains("component `filtered_access::Hp` is both written and read"), "{error}");
    // And its members' writes keep other systems out of its stage.
    struct Score;
    world.insert_resource(Score);
    let error = schedule.add_system(
        &mut world,
        |set: ParamSet<(ResMut<'static, Score>, Res<'static, Score>)>, other: Res<Score>| {
            let _ = (set, other);
        },
    );
    assert!(error.is_err());
}

#[test]
fn resources_know_whether_they_changed_since_the_system_last_ran() {
    #[derive(Default)]
    struct Seen(Vec<(bool, bool)>);
    struct Volume(u8);
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut world, |volume: Option<Res<Volume>>, mut seen: ResMut<Seen>| {
            if let Some(volume) = volume {
                seen.0.push((volume.is_added(), volume.is_changed()));
            }
        })
        .unwrap();
    schedule.run(&mut world);
    world.insert_resource(Volume(1));
    schedule.run(&mut world); // added (and so changed)
    schedule.run(&mut world); // nothing
    world.resource_mut::<Volume>().unwrap().0 = 2;
    schedule.run(&mut world); // changed
    world.insert_resource(Volume(3));
    schedule.run(&mut world); // replaced: changed, not added
    assert_eq!(world.resource::<Seen>().unwrap().0, [(true, true), (false, false), (false, true), (false, true)]);
}

#[test]
fn a_writer_marks_changes_by_writing_and_does_not_see_its_own() {
    #[derive(Default)]
    struct Seen(Vec<bool>);
    #[derive(PartialEq)]
    struct Level(u32);
    struct Write(bool);
    let mut world = World::new();
    world.insert_resource(Seen::default());
    world.insert_resource(Level(0));
    world.insert_resource(Write(false));
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut world, |mut level: ResMut<Level>, write: Res<Write>| {
            if write.0 {
                level.0 += 1;
            } else {
                // Reading through `ResMut` is not a write.
                let _ = level.0;
            }
        })
        .unwrap();
    schedule
        .add_system(&mut world, |level: Res<Level>, mut seen: ResMut<Seen>| seen.0.push(level.is_changed()))
        .unwrap();
    schedule.run(&mut world); // first look: changed
    schedule.run(&mut world); // the writer only read
    world.resource_mut::<Write>().unwrap().0 = true;
    schedule.run(&mut world);
    world.resource_mut::<Write>().unwrap().0 = false;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().unwrap().0, [true, false, true, false]);

    // The writer's own view: others' writes count, its own earlier ones do not.
    let mut own = World::new();
    own.insert_resource(Level(0));
    own.insert_resource(Seen::default());
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut own, |mut level: ResMut<Level>, mut seen: ResMut<Seen>| {
            seen.0.push(level.is_changed());
            // Writes 1 once; later runs find 1 there and write nothing.
            level.set_if_neq(Level(1));
        })
        .unwrap();
    schedule.run(&mut own); // first: changed; writes 1
    schedule.run(&mut own); // its own write does not count; writes nothing (already 1)
    own.resource_mut::<Level>().unwrap().0 = 5;
    schedule.run(&mut own); // someone else wrote
    assert_eq!(own.resource::<Seen>().unwrap().0, [true, false, true]);
}

#[test]
fn resource_change_detection_survives_tick_wraparound() {
    struct Level(u32);
    #[derive(Default)]
    struct Seen(Vec<bool>);
    #[derive(Default)]
    struct IdleSaw(Option<bool>);
    let mut world = World::new();
    world.insert_resource(Level(0));
    world.insert_resource(Seen::default());
    world.insert_resource(IdleSaw::default());
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut world, |level: Res<Level>, mut seen: ResMut<Seen>| seen.0.push(level.is_changed()))
        .unwrap();
    let idle =
        world.register_system(|level: Res<Level>, mut saw: ResMut<IdleSaw>| saw.0 = Some(level.is_changed())).unwrap();
    world.run_system(idle).unwrap();
    schedule.run(&mut world);
    for round in 0..6 {
        world.advance_change_tick_for_tests(u32::MAX / 3);
        if round % 2 == 0 {
            world.resource_mut::<Level>().unwrap().0 += 1;
        }
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Seen>().unwrap().0, [true, true, false, true, false, true, false]);
    // Untouched for billions of ticks: not reported as changed.
    world.advance_change_tick_for_tests(u32::MAX);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().unwrap().0.last(), Some(&false));
    // An observer idle across the wraparounds still sees the change it missed.
    world.run_system(idle).unwrap();
    assert_eq!(world.resource::<IdleSaw>().unwrap().0, Some(true));
    world.run_system(idle).unwrap();
    assert_eq!(world.resource::<IdleSaw>().unwrap().0, Some(false));
}
