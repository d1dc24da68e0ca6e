//! Run conditions, system sets and one-shot systems, through the public API.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ripple::message::{MessageReader, on_message};
use ripple::prelude::*;
use ripple::schedule::{POST_UPDATE, ScheduleError, SetConfig};
use ripple::system::{OneShotError, any_match, not, resource_changed, resource_exists};

struct Log(Vec<&'static str>);
struct Paused;
#[derive(Clone, Copy, Debug, PartialEq)]
struct Hp(u32);
struct Enemy;
#[derive(Clone, Copy, Debug)]
struct Hit;

fn log_system(name: &'static str) -> impl FnMut(ResMut<Log>) + Send + 'static {
    move |mut log: ResMut<Log>| log.0.push(name)
}

fn world_with_log() -> World {
    let mut world = World::new();
    world.insert_resource(Log(Vec::new()));
    world
}

fn take_log(world: &mut World) -> Vec<&'static str> {
    std::mem::take(&mut world.resource_mut::<Log>().unwrap().0)
}

#[test]
fn a_system_runs_only_while_its_conditions_hold() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("always").named("always")).unwrap();
    schedule
        .add_system(&mut world, log_system("unpaused").named("unpaused").run_if(not(resource_exists::<Paused>)))
        .unwrap();
    schedule.add_system(&mut world, log_system("paused").named("paused").run_if(resource_exists::<Paused>)).unwrap();
    schedule
        .add_system(&mut world, log_system("both").named("both").run_if(resource_exists::<Paused>).run_if(|| false))
        .unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["always", "unpaused"]);
    world.insert_resource(Paused);
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["always", "paused"]);
}

#[test]
fn a_condition_keeps_memory_of_its_own() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    // Every third run, counted by the condition's own `Local`.
    let every_third = |mut runs: Local<u32>| {
        *runs += 1;
        *runs % 3 == 0
    };
    schedule.add_system(&mut world, log_system("tick").run_if(every_third)).unwrap();
    for _ in 0..9 {
        schedule.run(&mut world);
    }
    assert_eq!(take_log(&mut world).len(), 3);
}

#[test]
fn a_system_skipped_by_its_condition_catches_up_like_a_disabled_one() {
    #[derive(Default)]
    struct Seen(Vec<u32>);
    struct Awake(bool);
    let mut world = World::new();
    world.insert_resource(Seen::default());
    world.insert_resource(Awake(false));
    let a = world.spawn((Hp(1),));
    let b = world.spawn((Hp(2),));
    let mut schedule = Schedule::new();
    schedule
        .add_system(
            &mut world,
            (|changed: Query<&Hp, Changed<Hp>>, mut seen: ResMut<Seen>| {
                let mut values: Vec<u32> = changed.iter().map(|hp| hp.0).collect();
                values.sort_unstable();
                seen.0.extend(values);
            })
            .run_if(|awake: Res<Awake>| awake.0),
        )
        .unwrap();
    schedule.run(&mut world); // asleep: sees nothing, remembers nothing
    world.get_mut::<Hp>(a).unwrap().0 = 10;
    schedule.run(&mut world);
    world.get_mut::<Hp>(b).unwrap().0 = 20;
    world.resource_mut::<Awake>().unwrap().0 = true;
    schedule.run(&mut world); // first run: everything is new
    assert_eq!(world.resource::<Seen>().unwrap().0, [10, 20]);
    world.resource_mut::<Awake>().unwrap().0 = false;
    world.get_mut::<Hp>(a).unwrap().0 = 11;
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.resource_mut::<Awake>().unwrap().0 = true;
    schedule.run(&mut world); // catches up: the change made while it slept, once
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().unwrap().0, [10, 20, 11]);
}

#[test]
fn a_system_skipped_by_its_condition_reads_the_events_it_missed() {
    struct Awake(bool);
    #[derive(Default)]
    struct Read(usize);
    let mut world = World::new();
    world.insert_resource(Awake(false));
    world.insert_resource(Read::default());
    let mut schedule = Schedule::new();
    schedule
        .add_system(
            &mut world,
            (|mut hits: MessageReader<Hit>, mut read: ResMut<Read>| read.0 += hits.read().count())
                .run_if(|awake: Res<Awake>| awake.0),
        )
        .unwrap();
    schedule.run(&mut world);
    for _ in 0..3 {
        world.write_message(Hit);
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Read>().unwrap().0, 0);
    world.resource_mut::<Awake>().unwrap().0 = true;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Read>().unwrap().0, 3, "every event sent while it was skipped, once");
    schedule.run(&mut world);
    assert_eq!(world.resource::<Read>().unwrap().0, 3);
}

#[test]
fn what_a_condition_reads_orders_it_after_a_writer() {
    // The writer and the guarded system touch nothing in common but the condition's
    // resource: counted in the guarded system's access, the condition is evaluated
    // after the writer's stage and sees its write in the same run.
    struct Armed(bool);
    let mut world = world_with_log();
    world.insert_resource(Armed(false));
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, |mut armed: ResMut<Armed>| armed.0 = true).unwrap();
    schedule
        .add_system(
            &mut world,
            (|hp: Query<&Hp>| {
                let _ = hp;
            })
            .named("fire")
            .run_if(|armed: Res<Armed>| armed.0),
        )
        .unwrap();
    schedule.run(&mut world);
    assert_eq!(schedule.stats(schedule.system_id("fire").unwrap()).unwrap().runs, 1);
}

#[test]
fn event_and_query_conditions() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("hit").run_if(on_message::<Hit>)).unwrap();
    schedule.add_system(&mut world, log_system("enemies").run_if(any_match::<(), With<Enemy>>)).unwrap();
    // The guarded system reads the events with its own reader.
    schedule
        .add_system(
            &mut world,
            (|mut hits: MessageReader<Hit>, mut log: ResMut<Log>| {
                for _ in hits.read() {
                    log.0.push("read");
                }
            })
            .run_if(on_message::<Hit>),
        )
        .unwrap();
    schedule.run(&mut world);
    assert!(take_log(&mut world).is_empty());
    world.write_message(Hit);
    world.deliver_messages();
    world.spawn((Enemy,));
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["hit", "enemies", "read"]);
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["enemies"], "each batch of events makes `on_message` true once");
}

#[test]
fn resource_changed_condition() {
    struct Volume(u8);
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("apply").run_if(resource_changed::<Volume>)).unwrap();
    schedule.run(&mut world);
    world.insert_resource(Volume(3));
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.resource_mut::<Volume>().unwrap().0 = 4;
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["apply", "apply"]);
}

#[test]
fn a_condition_whose_parameters_conflict_is_refused() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    let error = schedule
        .add_system(
            &mut world,
            log_system("x").named("x").run_if(|a: Query<&Hp>, b: Query<(&Hp, Option<&Enemy>)>, _l: Res<Log>| {
                {
                    let _ = (a, b);
                };
                true
            }),
        )
        .map(|_| ());
    assert_eq!(error, Ok(()), "reads never conflict");
    let error =
        schedule.add_system(&mut world, log_system("y").named("y").run_if(|_a: Res<Log>, _b: Option<Res<Log>>| true));
    assert!(error.is_ok(), "two reads of one resource are fine");
}

#[test]
fn sets_order_condition_and_enable_their_members_together() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("render").named("render")).unwrap();
    schedule.configure_set(&mut world, SetConfig::new("physics").before("render")).unwrap();
    schedule.configure_set(&mut world, SetConfig::new("input").before("physics")).unwrap();
    schedule.add_system(&mut world, log_system("collide").named("collide").in_set("physics")).unwrap();
    schedule
        .add_system(&mut world, log_system("gravity").named("gravity").in_set("physics").before("collide"))
        .unwrap();
    schedule.add_system(&mut world, log_system("keys").named("keys").in_set("input")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["keys", "gravity", "collide", "render"]);

    schedule.set_enabled("physics", false).unwrap();
    assert!(!schedule.is_enabled("physics").unwrap());
    assert!(schedule.is_enabled("gravity").unwrap(), "a member keeps its own flag");
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["keys", "render"]);
    schedule.set_enabled("physics", true).unwrap();

    schedule.configure_set(&mut world, SetConfig::new("physics").run_if(not(resource_exists::<Paused>))).unwrap();
    world.insert_resource(Paused);
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["keys", "render"]);
}

#[test]
fn an_order_through_an_empty_set_still_holds() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, SetConfig::new("middle")).unwrap();
    schedule.add_system(&mut world, log_system("late").named("late").after("middle")).unwrap();
    schedule.add_system(&mut world, log_system("early").named("early").before("middle")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["early", "late"]);
}

#[test]
fn a_set_condition_is_evaluated_once_per_run_for_all_its_members() {
    let evaluations = Arc::new(AtomicUsize::new(0));
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    let counter = Arc::clone(&evaluations);
    schedule
        .configure_set(
            &mut world,
            SetConfig::new("odd_runs").run_if(move |mut runs: Local<u32>| {
                counter.fetch_add(1, Ordering::Relaxed);
                *runs += 1;
                *runs % 2 == 1
            }),
        )
        .unwrap();
    schedule.add_system(&mut world, log_system("a").in_set("odd_runs")).unwrap();
    schedule.add_system(&mut world, log_system("b").in_set("odd_runs").in_phase(POST_UPDATE)).unwrap();
    for _ in 0..4 {
        schedule.run(&mut world);
    }
    assert_eq!(evaluations.load(Ordering::Relaxed), 4);
    assert_eq!(take_log(&mut world), ["a", "b", "a", "b"]);
}

#[test]
fn a_system_in_several_sets_runs_only_when_all_allow() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, SetConfig::new("gameplay")).unwrap();
    schedule.configure_set(&mut world, SetConfig::new("audio").disabled()).unwrap();
    schedule.add_system(&mut world, log_system("footsteps").in_set("gameplay").in_set("audio")).unwrap();
    schedule.add_system(&mut world, log_system("walk").in_set("gameplay")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["walk"]);
    schedule.set_enabled("audio", true).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["footsteps", "walk"]);
}

#[test]
fn a_set_places_its_members_in_its_phase_and_refuses_others() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, SetConfig::new("late").in_phase(POST_UPDATE)).unwrap();
    schedule.add_system(&mut world, log_system("cleanup").in_set("late")).unwrap();
    schedule.add_system(&mut world, log_system("update")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["update", "cleanup"]);

    let error =
        schedule.add_system(&mut world, log_system("x").named("x").in_set("late").in_phase("Update")).unwrap_err();
    assert_eq!(error.to_string(), "set `late` cannot run in phase `PostUpdate`: system `x` is in phase `Update`");
    schedule.add_system(&mut world, log_system("free").named("free").in_set("anywhere")).unwrap();
    let error = schedule.configure_set(&mut world, SetConfig::new("anywhere").in_phase(POST_UPDATE)).unwrap_err();
    assert_eq!(
        error.to_string(),
        "set `anywhere` cannot run in phase `PostUpdate`: system `free` is in phase `Update`"
    );
    let error = schedule.configure_set(&mut world, SetConfig::new("late").in_phase("Update")).unwrap_err();
    assert!(matches!(error, ScheduleError::SetPhase { .. }), "{error}");
    assert_eq!(
        schedule.configure_set(&mut world, SetConfig::new("x").in_phase("Later")).unwrap_err(),
        ScheduleError::UnknownPhase("Later".into())
    );
}

#[test]
fn cycles_through_sets_are_refused_with_the_sets_named_and_nothing_changes() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("a").named("a").in_set("s")).unwrap();
    schedule.add_system(&mut world, log_system("b").named("b").after("s")).unwrap();
    let error = schedule.add_system(&mut world, log_system("c").named("c").after("b").before("a")).unwrap_err();
    assert_eq!(error.to_string(), "the ordering makes a cycle: a → set `s` → b → c → a");
    assert_eq!(schedule.system_id("c"), None);
    let error = schedule.configure_set(&mut world, SetConfig::new("s").after("b")).unwrap_err();
    assert!(matches!(error, ScheduleError::Cycle(ref names) if names.contains(&"set `s`".to_string())), "{error}");
    // A set ordered before its own member is a cycle too.
    let error = schedule.configure_set(&mut world, SetConfig::new("s").before("a")).unwrap_err();
    assert!(matches!(error, ScheduleError::Cycle(_)), "{error}");
    // Nothing changed: the schedule runs as before.
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["a", "b"]);
}

#[test]
fn names_are_shared_between_systems_and_sets() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("a").named("a")).unwrap();
    assert_eq!(
        schedule.configure_set(&mut world, SetConfig::new("a")).unwrap_err(),
        ScheduleError::DuplicateName("a".into())
    );
    assert_eq!(
        schedule.add_system(&mut world, log_system("b").named("b").in_set("a")).unwrap_err(),
        ScheduleError::DuplicateName("a".into())
    );
    assert_eq!(
        schedule.add_system(&mut world, log_system("c").named("c").in_set("c")).unwrap_err(),
        ScheduleError::DuplicateName("c".into()),
        "a system cannot join a set of its own name"
    );
    assert_eq!(schedule.system_id("c"), None);
    schedule.configure_set(&mut world, SetConfig::new("s")).unwrap();
    assert_eq!(
        schedule.add_system(&mut world, log_system("s").named("s")).unwrap_err(),
        ScheduleError::DuplicateName("s".into())
    );
    assert_eq!(schedule.set_enabled("nobody", false).unwrap_err(), ScheduleError::UnknownSystem("nobody".into()));
    assert_eq!(
        schedule.set_enabled("nobody", false).unwrap_err().to_string(),
        "the schedule has no system or set named `nobody`"
    );
}

#[test]
fn removing_a_member_keeps_the_order_through_it() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    // Added first, so insertion order alone would run it first.
    schedule.add_system(&mut world, log_system("x").named("x").in_set("last")).unwrap();
    schedule.add_system(&mut world, log_system("first").named("first")).unwrap();
    let middle = schedule.add_system(&mut world, log_system("middle").named("middle").after("first")).unwrap();
    schedule.configure_set(&mut world, SetConfig::new("last").after("middle")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["first", "middle", "x"]);
    schedule.remove_system(&mut world, middle).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["first", "x"]);
}

#[test]
fn one_shot_systems_keep_their_own_memory_between_calls() {
    #[derive(Default)]
    struct Reports(Vec<usize>);
    let mut world = World::new();
    world.insert_resource(Reports::default());
    let hero = world.spawn((Hp(10),));
    world.spawn((Hp(5),));
    let report = world
        .register_system(|hurt: Query<&Hp, Changed<Hp>>, mut reports: ResMut<Reports>| {
            reports.0.push(hurt.iter().count());
        })
        .unwrap();
    world.run_system(report).unwrap();
    world.run_system(report).unwrap();
    world.get_mut::<Hp>(hero).unwrap().0 = 3;
    world.run_system(report).unwrap();
    assert_eq!(world.resource::<Reports>().unwrap().0, [2, 0, 1]);

    world.unregister_system(report).unwrap();
    assert_eq!(world.run_system(report), Err(OneShotError::NoSuchSystem(report)));
    assert_eq!(world.unregister_system(report), Err(OneShotError::NoSuchSystem(report)));
}

#[test]
fn one_shot_commands_are_applied_and_a_system_cannot_run_itself() {
    struct Me(Option<ripple::OneShotId>);
    struct Outcome(Option<Result<(), OneShotError>>);
    let mut world = World::new();
    let spawner = world
        .register_system(|mut commands: Commands| {
            commands.spawn((Enemy,));
        })
        .unwrap();
    world.run_system(spawner).unwrap();
    world.run_system(spawner).unwrap();
    assert_eq!(world.query_filtered::<Entity, With<Enemy>>().iter(&world).count(), 2);

    world.insert_resource(Me(None));
    world.insert_resource(Outcome(None));
    let selfish = world
        .register_system(|world: &mut World| {
            let me = world.resource::<Me>().unwrap().0.unwrap();
            let result = world.run_system(me);
            world.resource_mut::<Outcome>().unwrap().0 = Some(result);
        })
        .unwrap();
    world.resource_mut::<Me>().unwrap().0 = Some(selfish);
    world.run_system(selfish).unwrap();
    assert_eq!(world.resource::<Outcome>().unwrap().0, Some(Err(OneShotError::AlreadyRunning(selfish))));
}

#[test]
fn a_panicking_one_shot_system_stays_registered_and_its_commands_apply() {
    let mut world = World::new();
    let flaky = world
        .register_system(|mut commands: Commands, mut calls: Local<u32>| {
            *calls += 1;
            commands.spawn((Enemy,));
            assert!(*calls > 1, "first call fails");
        })
        .unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.run_system(flaky)));
    assert!(result.is_err());
    assert_eq!(world.len(), 1, "the command queued before the panic was applied");
    world.run_system(flaky).unwrap();
    assert_eq!(world.len(), 2);
}

#[test]
fn a_one_shot_system_with_conflicting_parameters_is_refused() {
    let mut world = World::new();
    let error = world
        .register_system(|a: Query<&mut Hp>, b: Query<&Hp>| {
            let _ = (a, b);
        })
        .unwrap_err();
    assert!(error.to_string().contains("component `run_conditions::Hp` is both written and read"), "{error}");
}

#[test]
fn a_panicking_condition_leaves_the_schedule_usable_and_loses_no_command() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule
        .add_system(
            &mut world,
            (|mut commands: Commands| {
                commands.spawn((Enemy,));
            })
            .named("spawner"),
        )
        .unwrap();
    schedule
        .add_system(
            &mut world,
            log_system("guarded").named("guarded").after("spawner").run_if(|mut runs: Local<u32>| {
                *runs += 1;
                assert!(*runs != 1, "the first evaluation fails");
                true
            }),
        )
        .unwrap();
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(result.is_err());
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["guarded"]);
    assert_eq!(
        world.query_filtered::<Entity, With<Enemy>>().iter(&world).count(),
        2,
        "the spawn queued before the panic is applied at the next sync point"
    );
}
