//! System sets and ordering as bevy_ecs users write them: sets inside sets (with
//! cycle and redundancy errors), chained sets, orders against systems and sets added
//! later, `remove_systems_in_set`, and ambiguity detection. Named after the bevy_ecs
//! 0.20 schedule test each mirrors, where one exists.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use ripple::prelude::*;
use ripple::schedule::{IntoSetGroup, IntoSystemGroup, POST_UPDATE, ScheduleError, SetConfig};
use ripple::system::resource_exists;

#[path = "support/run_log.rs"]
mod run_log;
use run_log::{Log, log_system, take_log, world_with_log};

struct Paused;
struct Pos(f32);

#[test]
fn nested_sets_pass_order_conditions_and_enabled_to_members() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("ui").named("ui")).unwrap();
    schedule
        .configure_set(
            &mut world,
            SetConfig::new("gameplay").before("ui").run_if(ripple::system::not(resource_exists::<Paused>)),
        )
        .unwrap();
    schedule.configure_set(&mut world, SetConfig::new("physics").in_set("gameplay")).unwrap();
    schedule.add_system(&mut world, log_system("gravity").named("gravity").in_set("physics")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["gravity", "ui"], "the outer set's order reaches the inner set's member");
    world.insert_resource(Paused);
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["ui"], "the outer set's condition too");
    world.remove_resource::<Paused>().unwrap();
    schedule.set_enabled("gameplay", false).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["ui"], "and its enabled flag");
}

#[test]
fn a_set_nested_after_its_members_joined_reaches_them() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("late").named("late")).unwrap();
    schedule.add_system(&mut world, log_system("early").named("early").in_set("inner")).unwrap();
    schedule.configure_set(&mut world, SetConfig::new("outer").before("late")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["late", "early"]);
    schedule.configure_set(&mut world, SetConfig::new("inner").in_set("outer")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["early", "late"]);
}

#[test]
fn hierarchy_loop() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    let error = schedule.configure_set(&mut world, SetConfig::new("a").in_set("a")).unwrap_err();
    assert_eq!(error, ScheduleError::SetCycle { set: "a".into(), parent: "a".into() });
}

#[test]
fn hierarchy_cycle() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, SetConfig::new("a").in_set("b")).unwrap();
    schedule.configure_set(&mut world, SetConfig::new("b").in_set("c")).unwrap();
    let error = schedule.configure_set(&mut world, SetConfig::new("c").in_set("a")).unwrap_err();
    assert_eq!(error.to_string(), "set `c` cannot be put in set `a`: `a` is already inside `c`");
    // Nothing changed: a member of `a` still runs, and `c` can go elsewhere.
    schedule.add_system(&mut world, log_system("x").in_set("a")).unwrap();
    schedule.configure_set(&mut world, SetConfig::new("c").in_set("d")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["x"]);
}

#[test]
fn hierarchy_redundancy() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, SetConfig::new("inner").in_set("outer")).unwrap();
    let error =
        schedule.add_system(&mut world, log_system("x").named("x").in_set("inner").in_set("outer")).unwrap_err();
    assert_eq!(
        error,
        ScheduleError::RedundantSet { member: "system `x`".into(), set: "outer".into(), through: "inner".into() }
    );
    assert_eq!(schedule.system_id("x"), None);
    // A set put in a set it is already in through another.
    schedule.configure_set(&mut world, SetConfig::new("innermost").in_set("inner")).unwrap();
    let error = schedule.configure_set(&mut world, SetConfig::new("innermost").in_set("outer")).unwrap_err();
    assert!(matches!(error, ScheduleError::RedundantSet { ref member, .. } if member == "set `innermost`"), "{error}");
    // Nesting that makes an existing membership redundant is refused too.
    schedule.add_system(&mut world, log_system("y").named("y").in_set("a").in_set("b")).unwrap();
    let error = schedule.configure_set(&mut world, SetConfig::new("a").in_set("b")).unwrap_err();
    assert!(matches!(error, ScheduleError::RedundantSet { ref member, .. } if member == "system `y`"), "{error}");
}

#[test]
fn nested_set_phases_must_agree() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, SetConfig::new("late").in_phase(POST_UPDATE)).unwrap();
    schedule.configure_set(&mut world, SetConfig::new("cleanup").in_set("late")).unwrap();
    schedule.add_system(&mut world, log_system("sweep").in_set("cleanup")).unwrap();
    schedule.add_system(&mut world, log_system("update")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["update", "sweep"], "the member runs in the outer set's phase");
    let error = schedule.add_system(&mut world, log_system("x").named("x").in_set("cleanup").in_phase("Update"));
    assert!(matches!(error, Err(ScheduleError::SetPhase { .. })), "{error:?}");
    let error = schedule.configure_set(&mut world, SetConfig::new("cleanup").in_phase("Update")).unwrap_err();
    assert!(matches!(error, ScheduleError::SetPhase { .. }), "{error}");
}

#[test]
fn chained_sets_order_their_members() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_sets(&mut world, ("input", "physics", "render").chain()).unwrap();
    // Added in the reverse order: the chain decides.
    schedule.add_system(&mut world, log_system("draw").in_set("render")).unwrap();
    schedule.add_system(&mut world, log_system("collide").in_set("physics")).unwrap();
    schedule.add_system(&mut world, log_system("keys").in_set("input")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["keys", "collide", "draw"]);
    // An empty set in the middle of a chain still orders the ends.
    schedule.remove_systems_in_set(&mut world, "physics").unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["keys", "draw"]);
}

#[test]
fn chained_sets_that_close_a_cycle_change_nothing() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, SetConfig::new("c").before("a")).unwrap();
    let error =
        schedule.configure_sets(&mut world, ("a", "b", SetConfig::new("c").run_if(|| true)).chain()).unwrap_err();
    assert!(matches!(error, ScheduleError::Cycle(_)), "{error}");
    schedule.add_system(&mut world, log_system("in_a").in_set("a")).unwrap();
    schedule.add_system(&mut world, log_system("in_c").in_set("c")).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["in_c", "in_a"], "the chain's orders were undone");
}

#[test]
fn order_against_a_system_added_later() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("render").named("render").after("physics")).unwrap();
    assert_eq!(schedule.unresolved_order_targets(), ["physics"]);
    schedule.add_system(&mut world, log_system("physics").named("physics")).unwrap();
    assert!(schedule.unresolved_order_targets().is_empty());
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["physics", "render"]);
    // A system added later that would close a cycle is refused.
    schedule.add_system(&mut world, log_system("a").named("a").before("b")).unwrap();
    let error = schedule.add_system(&mut world, log_system("b").named("b").before("a")).unwrap_err();
    assert!(matches!(error, ScheduleError::Cycle(_)), "{error}");
    assert_eq!(schedule.unresolved_order_targets(), ["b"], "the placeholder is back");
    // A set configured later takes the name as a set.
    schedule.add_system(&mut world, log_system("hud").named("hud").after("effects")).unwrap();
    schedule.add_system(&mut world, log_system("sparks").in_set("effects")).unwrap();
    take_log(&mut world);
    schedule.run(&mut world);
    let log = take_log(&mut world);
    let at = |name| log.iter().position(|&n| n == name).unwrap();
    assert!(at("sparks") < at("hud"), "{log:?}");
}

#[test]
fn system_defaults_to_the_name_an_order_waited_for() {
    fn physics(mut log: ResMut<Log>) {
        log.0.push("physics");
    }
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, log_system("render").named("render").after("physics")).unwrap();
    schedule.add_system(&mut world, physics).unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["physics", "render"]);
}

#[test]
fn remove_systems_in_set() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, SetConfig::new("inner").in_set("outer")).unwrap();
    schedule.add_systems(&mut world, (log_system("a"), log_system("b")).in_set("inner")).unwrap();
    schedule.add_system(&mut world, log_system("c").in_set("outer")).unwrap();
    schedule.add_system(&mut world, log_system("d")).unwrap();
    assert_eq!(schedule.remove_systems_in_set(&mut world, "outer"), Ok(3));
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["d"]);
    assert_eq!(schedule.remove_systems_in_set(&mut world, "outer"), Ok(0));
    assert_eq!(
        schedule.remove_systems_in_set(&mut world, "nowhere"),
        Err(ScheduleError::UnknownSystem("nowhere".into()))
    );
}

fn push(mut pos: Query<&mut Pos>) {
    pos.for_each_mut(|mut p| p.0 += 1.0);
}
fn pull(mut pos: Query<&mut Pos>) {
    pos.for_each_mut(|mut p| p.0 -= 1.0);
}
fn read(mut pos: Query<&Pos>) {
    pos.for_each(|_| {});
}
fn unrelated(_: Res<Log>) {}

#[test]
fn ambiguous_systems_are_reported() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, (push, pull, read, unrelated)).unwrap();
    let found: Vec<(String, String)> = schedule.ambiguities().into_iter().map(|a| (a.first, a.second)).collect();
    let pair = |a: &str, b: &str| (a.to_string(), b.to_string());
    assert_eq!(found, [pair("push", "pull"), pair("push", "read"), pair("pull", "read")]);
    assert!(schedule.ambiguities()[0].conflicts.iter().any(|name| name.contains("Pos")));
    assert!(schedule.ambiguities()[0].to_string().contains("no order between them"));
}

#[test]
fn ordered_or_excused_systems_are_not_ambiguous() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, SetConfig::new("writers").before("readers")).unwrap();
    schedule.add_system(&mut world, push.in_set("writers")).unwrap();
    schedule.add_system(&mut world, pull.in_set("writers").ambiguous_with("push")).unwrap();
    schedule.add_system(&mut world, read.in_set("readers")).unwrap();
    assert_eq!(schedule.ambiguities(), []);
    // An exclusive system conflicts with everything.
    schedule.add_system(&mut world, |_: &mut World| {}).unwrap();
    let found = schedule.ambiguities();
    assert_eq!(found.len(), 3);
    assert!(found.iter().all(|a| a.conflicts == ["World"]));
}

#[test]
fn distributive_run_if_and_chain_on_a_group_in_a_nested_set() {
    let mut world = world_with_log();
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, SetConfig::new("inner").in_set("outer")).unwrap();
    schedule
        .add_systems(
            &mut world,
            (log_system("one"), log_system("two")).chain().in_set("inner").distributive_run_if(|| true),
        )
        .unwrap();
    schedule.run(&mut world);
    assert_eq!(take_log(&mut world), ["one", "two"]);
    assert!(schedule.ambiguities().is_empty());
}
