//! The schedule: ordering, cycles, parameter conflicts, run-time control, commands,
//! lifecycle callbacks and panics.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::sync::{Arc, Mutex};

use ripple::prelude::*;
use ripple::query::Changed;
use ripple::schedule::{POST_UPDATE, PRE_UPDATE, ScheduleError, SetConfig};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Vel(i64);
struct Log(Vec<&'static str>);

fn log_system(name: &'static str) -> impl FnMut(ResMut<Log>) + Send + 'static {
    move |mut log: ResMut<Log>| log.0.push(name)
}

fn world_with_log() -> World {
    let mut world = World::new();
    world.insert_resource(Log(Vec::new()));
    world
}

#[test]
fn explicit_order_and_phases_decide_the_run_order() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("c").named("c").in_phase(POST_UPDATE)).unwrap();
    schedule.add_system(&mut world, log_system("b").named("b")).unwrap();
    schedule.add_system(&mut world, log_system("a").named("a").before("b")).unwrap();
    schedule.add_system(&mut world, log_system("first").named("first").in_phase(PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, log_system("b2").named("b2")).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().unwrap().0, ["first", "a", "b", "b2", "c"]);
}

#[test]
fn a_cycle_is_refused_with_its_systems_listed_and_nothing_changes() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("a").named("a")).unwrap();
    schedule.add_system(&mut world, log_system("b").named("b").after("a")).unwrap();
    schedule.add_system(&mut world, log_system("c").named("c").after("b")).unwrap();
    let error = schedule.add_system(&mut world, log_system("d").named("d").after("c").before("a")).unwrap_err();
    assert_eq!(error, ScheduleError::Cycle(vec!["a".into(), "b".into(), "c".into(), "d".into(), "a".into()]));
    assert_eq!(error.to_string(), "the ordering makes a cycle: a → b → c → d → a");
    assert_eq!(schedule.system_id("d"), None);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().unwrap().0, ["a", "b", "c"]);
}

#[test]
fn removing_a_system_keeps_the_order_that_ran_through_it() {
    // Added last to first, so insertion order alone would run them backwards; all
    // three write `Log`, so they conflict and only the ordering keeps them in line.
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("s4").named("s4")).unwrap();
    schedule.add_system(&mut world, log_system("s3").named("s3").before("s4")).unwrap();
    let s2 = schedule.add_system(&mut world, log_system("s2").named("s2").before("s3")).unwrap();
    let s1 = schedule.add_system(&mut world, log_system("s1").named("s1").before("s2")).unwrap();
    schedule.add_system(&mut world, log_system("s0").named("s0").before("s1")).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().unwrap().0, ["s0", "s1", "s2", "s3", "s4"]);
    // Two removed in a row: the order through both survives.
    schedule.remove_system(&mut world, s2).unwrap();
    schedule.remove_system(&mut world, s1).unwrap();
    world.resource_mut::<Log>().unwrap().0.clear();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().unwrap().0, ["s0", "s3", "s4"]);
    // A system added later may still go between what remains.
    schedule.add_system(&mut world, log_system("late").named("late").after("s0").before("s3")).unwrap();
    world.resource_mut::<Log>().unwrap().0.clear();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().unwrap().0, ["s0", "late", "s3", "s4"]);
}

#[test]
fn bad_configurations_get_typed_errors() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    let a = schedule.add_system(&mut world, log_system("a").named("a")).unwrap();
    assert_eq!(
        schedule.add_system(&mut world, log_system("x").named("a")).unwrap_err(),
        ScheduleError::DuplicateName("a".into())
    );
    // An order against a name nothing has yet waits for it (as in bevy_ecs), and is
    // listed until something takes the name.
    let waiting = schedule.add_system(&mut world, log_system("x").after("nobody")).unwrap();
    assert_eq!(schedule.unresolved_order_targets(), ["nobody"]);
    schedule.remove_system(&mut world, waiting).unwrap();
    assert_eq!(
        schedule.add_system(&mut world, log_system("x").in_phase("Render")).unwrap_err(),
        ScheduleError::UnknownPhase("Render".into())
    );
    assert!(matches!(
        schedule.add_system(&mut world, log_system("x").in_phase(PRE_UPDATE).after("a")).unwrap_err(),
        ScheduleError::OrderAcrossPhases { .. }
    ));
    schedule.remove_system(&mut world, a).unwrap();
    assert_eq!(schedule.remove_system(&mut world, a).unwrap_err(), ScheduleError::NoSuchSystem(a));
    assert_eq!(schedule.set_enabled(a, true).unwrap_err(), ScheduleError::NoSuchSystem(a));
    let mut other = World::new();
    assert_eq!(schedule.add_system(&mut other, log_system("x")).unwrap_err(), ScheduleError::WrongWorld);
}

#[test]
fn conflicting_parameters_in_one_system_are_refused_naming_the_type() {
    fn twice(_: Query<&mut Pos>, _: Query<&Pos>) {}
    fn resource_twice(_: Res<Log>, _: ResMut<Log>) {}
    fn filter_reads_ticks(_: Query<&mut Pos>, _: Query<&Vel, Changed<Pos>>) {}
    fn fine(_: Query<(&mut Pos, &Vel), Changed<Pos>>, _: Query<&Vel>) {}
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    let error = schedule.add_system(&mut world, twice).unwrap_err();
    let message = error.to_string();
    assert!(message.starts_with("system `twice` has conflicting parameters: component `"), "{message}");
    assert!(message.contains("Pos` is both written and read"), "{message}");
    let message = schedule.add_system(&mut world, resource_twice).unwrap_err().to_string();
    assert!(message.contains("resource `schedule::Log` is both written and read"), "{message}");
    assert!(schedule.add_system(&mut world, filter_reads_ticks).is_err());
    schedule.add_system(&mut world, fine).unwrap();
}

#[test]
fn disabled_systems_catch_up_on_changes_and_removals_once() {
    #[derive(Default)]
    struct Seen {
        changed: Vec<i64>,
        removed: usize,
    }
    fn watcher(mut changed: Query<&Pos, Changed<Pos>>, mut removed: Removed<Pos>, mut seen: ResMut<Seen>) {
        changed.for_each(|p| seen.changed.push(p.0));
        seen.removed += removed.read().count();
    }
    let mut world = World::new();
    world.insert_resource(Seen::default());
    let a = world.spawn((Pos(1),));
    let b = world.spawn((Pos(2),));
    let mut schedule = Schedule::new();
    let id = schedule.add_system(&mut world, watcher).unwrap();
    schedule.run(&mut world);
    // A new system sees everything as changed on its first run.
    let mut first = std::mem::take(&mut world.resource_mut::<Seen>().unwrap().changed);
    first.sort();
    assert_eq!(first, [1, 2]);

    schedule.set_enabled(id, false).unwrap();
    world.get_mut::<Pos>(a).unwrap().0 = 10;
    world.despawn(b).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert!(world.resource::<Seen>().unwrap().changed.is_empty());
    assert!(!schedule.is_enabled(id).unwrap());

    schedule.set_enabled(id, true).unwrap();
    schedule.run(&mut world);
    let seen = world.resource::<Seen>().unwrap();
    assert_eq!(seen.changed, [10]);
    assert_eq!(seen.removed, 1);
    schedule.run(&mut world);
    let seen = world.resource::<Seen>().unwrap();
    assert_eq!(seen.changed, [10], "each change is seen once");
    assert_eq!(seen.removed, 1);
}

#[test]
fn optional_resources_are_none_until_inserted_and_declare_their_access() {
    struct Score(u32);
    fn count(score: Option<ResMut<Score>>, mut log: ResMut<Log>) {
        match score {
            Some(mut score) => score.0 += 1,
            None => log.0.push("no score"),
        }
    }
    fn read(score: Option<Res<Score>>, mut seen: Local<Vec<Option<u32>>>, mut log: ResMut<Log>) {
        seen.push(score.map(|score| score.0));
        if seen.len() == 3 {
            assert_eq!(*seen, [None, Some(1), Some(2)]);
            log.0.push("read all three");
        }
    }
    fn both(_: Option<Res<Score>>, _: ResMut<Score>) {}
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, count).unwrap();
    schedule.add_system(&mut world, read.after("count")).unwrap();
    schedule.run(&mut world);
    world.insert_resource(Score(0));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>().unwrap().0, 2);
    assert_eq!(world.resource::<Log>().unwrap().0, ["no score", "read all three"]);
    let message = schedule.add_system(&mut world, both).unwrap_err().to_string();
    assert!(message.contains("resource `schedule::optional_resources_are_none_until_inserted_and_declare_their_access::Score` is both written and read"), "{message}");
}

#[test]
fn tasks_without_queries_run_every_frame() {
    fn tick(mut frames: Local<u32>, mut log: ResMut<Log>) {
        *frames += 1;
        if *frames == 3 {
            log.0.push("third");
        }
    }
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, tick).unwrap();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Log>().unwrap().0, ["third"]);
}

#[test]
fn commands_apply_at_the_phase_end_in_order_and_failures_are_recorded() {
    struct Spawned(Vec<Entity>);
    fn spawner(mut commands: Commands, mut spawned: ResMut<Spawned>) {
        let e = commands.spawn((Pos(1),));
        commands.insert(e, (Vel(2),));
        spawned.0.push(e);
    }
    fn despawner(mut commands: Commands, spawned: Res<Spawned>, seen: Query<&Pos>) {
        // Commands of the earlier phase are applied: the entity exists now.
        assert_eq!(seen.iter().count(), spawned.0.len());
        for &e in &spawned.0 {
            commands.despawn(e);
            commands.despawn(e); // the second one fails: recorded, not a panic
        }
    }
    let mut world = World::new();
    world.insert_resource(Spawned(Vec::new()));
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, spawner.in_phase(PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, despawner).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.len(), 0);
    assert_eq!(world.failed_command_count(), 1);
    let failure = world.failed_commands()[0];
    assert_eq!(failure.command, "despawn");
    assert!(failure.to_string().starts_with("deferred `despawn` failed: entity "), "{failure}");
    assert_eq!(world.drain_failed_commands().count(), 1);
    assert!(world.failed_commands().is_empty());
}

#[test]
fn lifecycle_callbacks_fire_on_add_remove_and_on_matching() {
    fn movers(_: Query<(&Pos, &Vel)>) {}
    let events = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let (e1, e2, e3) = (events.clone(), events.clone(), events.clone());
    let e4 = events.clone();
    let id = schedule
        .add_system(
            &mut world,
            movers
                .on_added(move |_| e1.lock().unwrap().push("added".into()))
                .on_removed(move |_| e2.lock().unwrap().push("removed".into()))
                .on_entity_enter(move |world, e| {
                    let pos = world.get::<Pos>(e).unwrap().0;
                    e3.lock().unwrap().push(format!("enter {pos}"))
                })
                .on_entity_exit(move |_, _| e4.lock().unwrap().push("exit".into())),
        )
        .unwrap();
    let a = world.spawn((Pos(1), Vel(0)));
    let b = world.spawn((Pos(2),));
    world.spawn((Vel(3),));
    schedule.run(&mut world);
    world.insert(b, (Vel(0),)).unwrap();
    world.remove::<(Vel,)>(a).unwrap();
    schedule.run(&mut world);
    // Membership callbacks fire while the system is disabled too.
    schedule.set_enabled(id, false).unwrap();
    world.despawn(b).unwrap();
    schedule.run(&mut world);
    schedule.set_enabled(id, true).unwrap();
    schedule.run(&mut world);
    schedule.remove_system(&mut world, id).unwrap();
    assert_eq!(*events.lock().unwrap(), ["added", "enter 1", "enter 2", "exit", "exit", "removed"]);
}

#[test]
fn a_panicking_system_propagates_and_the_world_stays_usable() {
    struct Boom(bool);
    fn writer(mut q: Query<&mut Pos>, boom: Res<Boom>) {
        q.for_each_mut(|mut p| {
            p.0 += 1;
            if boom.0 && p.0 == 3 {
                panic!("boom");
            }
        });
    }
    fn spawner(mut commands: Commands) {
        commands.spawn((Vel(1),));
    }
    let mut world = World::new();
    world.insert_resource(Boom(true));
    world.spawn_batch((0..5).map(|i| (Pos(i),)));
    world.track::<Pos>();
    let mut observer = world.query_filtered::<&Pos, Changed<Pos>>();
    observer.for_each(&world, drop);
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, writer).unwrap();
    schedule.add_system(&mut world, spawner).unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(result.is_err());
    // The rows written before the panic are seen as changed.
    assert!(observer.iter(&world).count() >= 1);
    world.resource_mut::<Boom>().unwrap().0 = false;
    schedule.run(&mut world);
    // Both runs' commands landed: the failed run's at this sync point.
    assert_eq!(world.query::<&Vel>().iter(&world).count(), 2);
    assert_eq!(world.query::<&Pos>().iter(&world).count(), 5);
}

#[test]
fn exclusive_systems_see_the_whole_world() {
    fn spawn_one(world: &mut World) {
        world.spawn((Pos(7),));
    }
    fn count(q: Query<&Pos>, mut log: ResMut<Log>) {
        if q.iter().count() == 1 {
            log.0.push("one");
        }
    }
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, spawn_one).unwrap();
    schedule.add_system(&mut world, count).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().unwrap().0, ["one"]);
}

#[test]
fn the_profiler_counts_entities_and_reports_a_table() {
    fn movers(mut q: Query<(&Vel, &mut Pos)>) {
        q.for_each_mut(|(v, mut p)| p.0 += v.0);
    }
    fn some(q: Query<&Pos>) {
        let _ = q.iter().take(3).count();
    }
    let mut world = World::new();
    world.spawn_batch((0..10).map(|i| (Pos(i), Vel(1))));
    world.spawn_batch((0..5).map(|i| (Pos(i),)));
    let mut schedule = Schedule::new();
    let a = schedule.add_system(&mut world, movers).unwrap();
    let b = schedule.add_system(&mut world, some).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    let stats = schedule.stats(a).unwrap();
    assert_eq!((stats.runs, stats.matched, stats.processed), (2, 10, 10));
    assert!(stats.max >= stats.last && stats.max >= stats.mean());
    let stats = schedule.stats(b).unwrap();
    assert_eq!((stats.matched, stats.processed), (15, 3));
    let report = schedule.report();
    assert!(report.lines().next().unwrap().starts_with("system"), "{report}");
    assert!(report.contains("movers"), "{report}");
    assert_eq!(report.lines().count(), 3, "{report}");
}

/// A system written by hand: `unsafe impl`, because the schedule trusts its declared
/// access (here: reads `Log`) to run it beside others.
struct CountLogEntries {
    meta: ripple::system::SystemMeta,
    seen: Arc<Mutex<Vec<usize>>>,
}

// SAFETY: `run_shared` reads only the `Log` resource, which `initialize` declares.
unsafe impl ripple::system::System for CountLogEntries {
    fn name(&self) -> &str {
        self.meta.name()
    }
    fn set_name(&mut self, name: std::borrow::Cow<'static, str>) {
        self.meta = ripple::system::SystemMeta::new(name);
    }
    fn initialize(&mut self, _: &mut World) -> Result<(), Vec<String>> {
        self.meta.add_resource_access::<Log>(false, "log");
        Ok(())
    }
    fn access(&self) -> &ripple::system::SystemAccess {
        self.meta.access()
    }
    unsafe fn run_shared(&mut self, world: &World) {
        self.seen.lock().unwrap().push(world.resource::<Log>().map_or(0, |log| log.0.len()));
    }
    fn run_exclusive(&mut self, world: &mut World) {
        // SAFETY: exclusive access covers the declared read.
        unsafe { self.run_shared(world) }
    }
    fn apply_deferred(&mut self, _: &mut World) {}
    fn entity_counts(&mut self, _: &World) -> ripple::system::EntityCounts {
        ripple::system::EntityCounts::default()
    }
}

#[test]
fn a_hand_written_system_runs_under_its_declared_access() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let counter = CountLogEntries { meta: ripple::system::SystemMeta::new("count"), seen: seen.clone() };
    schedule.add_system(&mut world, log_system("a").named("a")).unwrap();
    schedule.add_system(&mut world, counter.after("a")).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(*seen.lock().unwrap(), vec![1, 2]);
}

#[test]
fn undrained_failed_commands_keep_the_most_recent_and_count_all() {
    let mut world = World::new();
    let gone = world.spawn(());
    world.despawn(gone).unwrap();
    let failure = |n: u32| ripple::CommandError {
        command: if n % 2 == 0 { "insert" } else { "remove" },
        error: ripple::NoSuchEntity(gone).into(),
    };
    for n in 0..1_000_000u32 {
        world.record_failed_command(failure(n));
    }
    assert_eq!(world.failed_command_count(), 1_000_000);
    let kept = world.failed_commands();
    assert!(
        kept.len() <= ripple::MAX_FAILED_COMMANDS && kept.len() >= ripple::MAX_FAILED_COMMANDS / 2,
        "{}",
        kept.len()
    );
    assert_eq!(*kept.last().unwrap(), failure(999_999), "the most recent is kept");
    assert_eq!(kept.len(), world.drain_failed_commands().count());
    assert!(world.failed_commands().is_empty());
}

#[test]
fn enter_and_exit_callbacks_stay_exact_past_the_change_log_limit() {
    let mut world = World::new();
    world.set_change_log_limit(64);
    let mut dirty = world.query_filtered::<Entity, ripple::query::Dirty<(Pos,)>>();
    dirty.iter(&world).count();
    let entered = Arc::new(Mutex::new(Vec::new()));
    let exited = Arc::new(Mutex::new(0));
    let mut schedule = Schedule::new();
    let (enter, exit) = (entered.clone(), exited.clone());
    schedule
        .add_system(
            &mut world,
            (|_: Query<'_, '_, &Pos>| {})
                .on_entity_enter(move |_, e| enter.lock().unwrap().push(e))
                .on_entity_exit(move |_, _| *exit.lock().unwrap() += 1),
        )
        .unwrap();
    // Far more structural changes than the limit before the schedule runs again: the
    // idle Dirty observer above may shed them, the callbacks may not.
    let spawned: Vec<Entity> = (0..10_000).map(|i| world.spawn((Pos(i),))).collect();
    for &e in &spawned[..2_500] {
        world.despawn(e).unwrap();
    }
    assert!(world.backlog_memory().structural_changes.records >= 12_500, "kept for the callbacks");
    schedule.run(&mut world);
    assert_eq!(*entered.lock().unwrap(), spawned, "every spawn entered, in order");
    assert_eq!(*exited.lock().unwrap(), 2_500);
    assert_eq!(dirty.iter(&world).count(), 7_500, "the idle observer still reports every entity it must");
}

#[test]
fn the_profiler_measures_a_sample_of_runs_and_counts_each_measured_run_alone() {
    fn read(q: Query<&Pos>) {
        let _ = q.iter().count();
    }
    let mut world = World::new();
    world.spawn_batch((0..10).map(|i| (Pos(i),)));
    let mut schedule = Schedule::new();
    let id = schedule.add_system(&mut world, read).unwrap();
    let runs = 2 * u64::from(ripple::schedule::PROFILE_EVERY) + 1;
    for _ in 0..runs {
        schedule.run(&mut world);
    }
    let stats = schedule.stats(id).unwrap();
    assert_eq!(stats.runs, runs);
    // The first run and one in PROFILE_EVERY after it; a run slowed past 20 µs (a cold
    // first run) makes the next one measured too. Under a memory checker
    // (`RIPPLE_MEMCHECK`) every run takes longer than that, so every run is measured.
    if std::env::var_os("RIPPLE_MEMCHECK").is_some() {
        assert!(stats.measured >= 3 && stats.measured <= runs, "{stats:?}");
    } else {
        assert!((3..=6).contains(&stats.measured), "{stats:?}");
    }
    assert_eq!((stats.matched, stats.processed), (10, 10), "one run's counts, not the sample period's");
    schedule.set_profile_every(1);
    for _ in 0..5 {
        schedule.run(&mut world);
    }
    let after = schedule.stats(id).unwrap();
    assert_eq!((after.runs, after.measured), (runs + 5, stats.measured + 5));
    assert!(after.max >= after.last && after.total >= after.max);
}

#[test]
fn a_systems_query_get_mut_finds_entities_in_tables_made_since_its_last_run() {
    // `Query::get`/`get_mut` trust the state's table list from when the system received
    // the query: each run must refresh it, or an entity moved into a table made by an
    // earlier phase's commands would be reported as not matching.
    struct Target(Entity);
    struct Tag;
    fn mover(mut commands: Commands, target: Res<Target>) {
        commands.insert(target.0, (Tag,));
    }
    fn writer(target: Res<Target>, mut positions: Query<&mut Pos>) {
        positions.get_mut(target.0).expect("the entity still has a Pos").0 += 1;
    }
    let mut world = World::new();
    let e = world.spawn((Pos(0),));
    world.insert_resource(Target(e));
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, writer).unwrap();
    schedule.run(&mut world);
    schedule.add_system(&mut world, mover.in_phase(PRE_UPDATE)).unwrap();
    // The first run after the mover: the entity sits in a table the writer has never seen.
    schedule.run(&mut world);
    assert!(world.get::<Tag>(e).is_ok());
    assert_eq!(world.get::<Pos>(e).unwrap().0, 2);
}

#[test]
fn a_refused_system_leaves_no_trace_whichever_step_refused_it() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("a").named("a")).unwrap();
    // Refused after its order made a placeholder for a name nothing has: the
    // placeholder goes with it.
    assert_eq!(
        schedule.add_system(&mut world, log_system("x").after("ghost").in_phase("Render")).unwrap_err(),
        ScheduleError::UnknownPhase("Render".into())
    );
    assert!(schedule.unresolved_order_targets().is_empty(), "{:?}", schedule.unresolved_order_targets());
    // Refused after joining a set it created, for a phase its set contradicts.
    schedule.configure_set(&mut world, SetConfig::new("late").in_phase(POST_UPDATE)).unwrap();
    assert!(matches!(
        schedule
            .add_system(&mut world, log_system("y").after("ghost2").in_set("late").in_phase(PRE_UPDATE))
            .unwrap_err(),
        ScheduleError::SetPhase { .. }
    ));
    assert!(schedule.unresolved_order_targets().is_empty(), "{:?}", schedule.unresolved_order_targets());
    // The schedule runs as before: only `a`.
    schedule.run(&mut world);
    assert_eq!(world.resource::<Log>().unwrap().0, ["a"]);
}
