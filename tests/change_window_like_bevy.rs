//! Inside a system, a query's change window is the system's run, as in bevy_ecs: every
//! iteration of a `Changed`, `Added` or `Dirty` query in one run reports the changes
//! since the system's previous run, however many times the system iterates it. (A
//! `QueryState` used outside systems keeps its own rule: each iteration is a run.)

#![allow(elided_lifetimes_in_paths, reason = "system signatures read as a bevy user writes them")]

use ripple::prelude::*;
use ripple::schedule::PRE_UPDATE;

struct Pos(u32);
/// Whether the writer writes this frame.
struct Moving(bool);
#[derive(Default)]
struct Seen(Vec<(usize, usize)>);

fn writer(moving: Res<Moving>, mut positions: Query<&mut Pos>) {
    if moving.0 {
        positions.for_each_mut(|mut pos| pos.0 += 1);
    }
}

fn twice_changed(mut changed: Query<Entity, Changed<Pos>>, mut seen: ResMut<Seen>) {
    let first = changed.iter().count();
    let mut second = 0;
    changed.for_each(|_| second += 1);
    seen.0.push((first, second));
}

fn world_with(entities: u32) -> World {
    let mut world = World::new();
    world.insert_resource(Seen::default());
    world.insert_resource(Moving(true));
    for i in 0..entities {
        world.spawn((Pos(i),));
    }
    world
}

#[test]
fn a_changed_query_read_twice_in_one_run_reports_the_same_entities() {
    let mut world = world_with(10);
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, writer.in_phase(PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, twice_changed).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.insert_resource(Moving(false));
    schedule.run(&mut world);
    // bevy_ecs: (10, 10) while the writer writes, then (0, 0); ripple before this
    // change gave (10, 0).
    assert_eq!(world.resource::<Seen>().unwrap().0, [(10, 10), (10, 10), (0, 0)]);
}

#[test]
fn added_and_dirty_queries_read_twice_in_one_run_agree() {
    fn twice(added: Query<Entity, Added<Pos>>, mut dirty: Query<Entity, Dirty<(Pos,)>>, mut seen: ResMut<Seen>) {
        let added_first = added.iter().count();
        let added_second = added.iter().count();
        let dirty_first = dirty.iter().count();
        let mut dirty_second = 0;
        dirty.for_each(|_| dirty_second += 1);
        seen.0.push((added_first, added_second));
        seen.0.push((dirty_first, dirty_second));
    }
    let mut world = world_with(3);
    world.insert_resource(Moving(false));
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, writer.in_phase(PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, twice).unwrap();
    schedule.run(&mut world);
    world.spawn((Pos(9),));
    schedule.run(&mut world);
    schedule.run(&mut world);
    let seen = &world.resource::<Seen>().unwrap().0;
    // First run: everything is new. Second: the one spawned between runs. Third: none.
    assert_eq!(seen[..], [(3, 3), (3, 3), (1, 1), (1, 1), (0, 0), (0, 0)]);
}

#[test]
fn what_one_run_saw_is_not_reported_again_by_the_next() {
    let mut world = world_with(4);
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, writer.in_phase(PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, twice_changed).unwrap();
    schedule.run(&mut world);
    world.insert_resource(Moving(false));
    let pos = world.query::<&mut Pos>().iter_mut(&mut world).next().map(|mut pos| pos.0 += 1);
    assert!(pos.is_some());
    schedule.run(&mut world);
    schedule.run(&mut world);
    // The one write between runs shows in both iterations of the next run, and in
    // neither of the run after it.
    assert_eq!(world.resource::<Seen>().unwrap().0, [(4, 4), (1, 1), (0, 0)]);
}

#[test]
fn a_query_state_outside_systems_still_counts_each_iteration_as_a_run() {
    let mut world = world_with(5);
    let mut changed = world.query_filtered::<Entity, Changed<Pos>>();
    assert_eq!(changed.iter(&world).count(), 5);
    assert_eq!(changed.iter(&world).count(), 0);
}

#[test]
fn what_the_system_wrote_between_two_iterations_counts_as_changed_in_the_second() {
    type Members = (Query<'static, 'static, &'static mut Pos>, Query<'static, 'static, Entity, Changed<Pos>>);
    fn write_between(mut set: ParamSet<Members>, mut seen: ResMut<Seen>) {
        let before = set.p1().iter().count();
        set.p0().iter_mut().take(2).for_each(|mut pos| pos.0 += 1);
        let after = set.p1().iter().count();
        seen.0.push((before, after));
    }
    let mut world = world_with(6);
    world.insert_resource(Moving(false));
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, write_between).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    // First run: all six are new in both iterations. Second: none before the system's
    // own two writes, those two after (bevy_ecs counts a system's own writes the same).
    // The next run does not see them again: only the two it writes itself.
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().unwrap().0, [(6, 6), (0, 2), (0, 2)]);
}

#[test]
fn a_lookup_after_an_iteration_judges_against_the_same_run_window() {
    // bevy_ecs: `get` on a `Changed` query finds what the run's iteration found, before
    // and after iterating, and the next run does not see those changes again.
    fn iterate_then_get(changed: Query<Entity, Changed<Pos>>, mut seen: ResMut<Seen>) {
        let entities: Vec<Entity> = changed.iter().collect();
        let found = entities.iter().filter(|&&e| changed.get(e).is_ok()).count();
        seen.0.push((entities.len(), found));
    }
    let mut world = world_with(10);
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, writer.in_phase(PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, iterate_then_get).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.insert_resource(Moving(false));
    schedule.run(&mut world);
    // ripple before this change gave (10, 0): the lookup judged against the iteration
    // that had just ended.
    assert_eq!(world.resource::<Seen>().unwrap().0, [(10, 10), (10, 10), (0, 0)]);
}
