//! `Single` and `Populated` as bevy_ecs users expect: the system is skipped (not a
//! panic) unless exactly one / at least one entity matches, and a skipped run loses
//! no change.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use ripple::World;
use ripple::query::{Changed, Dirty, With, Without};
use ripple::schedule::Schedule;
use ripple::system::{OneShotError, Populated, Query, ResMut, Single};

struct Player;
struct Enemy;
#[derive(Debug, PartialEq)]
struct Hp(u32);
#[derive(Default)]
struct Runs(u32);

#[test]
fn single_skips_when_zero_or_many_match() {
    fn heal(mut hp: Single<&mut Hp, With<Player>>, mut runs: ResMut<Runs>) {
        hp.0 += 1;
        runs.0 += 1;
    }
    let mut world = World::new();
    world.insert_resource(Runs::default());
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, heal).unwrap();
    schedule.run(&mut world);
    let skipped = schedule.take_skipped_runs();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].reason.contains("no entity matches"), "{}", skipped[0].reason);
    let first = world.spawn((Player, Hp(1)));
    world.spawn((Enemy, Hp(10)));
    schedule.run(&mut world);
    assert_eq!(world.get::<Hp>(first).unwrap(), &Hp(2));
    let second = world.spawn((Player, Hp(5)));
    schedule.run(&mut world);
    let skipped = schedule.take_skipped_runs();
    assert!(skipped[0].reason.contains("more than one entity matches"), "{}", skipped[0].reason);
    assert_eq!(world.resource::<Runs>().unwrap().0, 1);
    world.despawn(second).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.get::<Hp>(first).unwrap(), &Hp(3));
}

#[test]
fn single_in_one_shot_is_refused_not_a_panic() {
    let mut world = World::new();
    let id = world.register_system(|hp: Single<&Hp>| hp.0).unwrap();
    assert!(matches!(world.run_system(id), Err(OneShotError::InvalidParams { .. })));
    world.spawn((Hp(7),));
    assert_eq!(world.run_system(id), Ok(7));
}

#[test]
fn skipped_single_keeps_the_change_for_its_next_run() {
    // A change filter: the run that is skipped (two changed players) must not swallow
    // the changes; once one player is left, the next run sees its change.
    let mut world = World::new();
    world.insert_resource(Runs::default());
    let a = world.spawn((Player, Hp(1)));
    let b = world.spawn((Player, Hp(1)));
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut world, |hp: Single<&Hp, Changed<Hp>>, mut runs: ResMut<Runs>| {
            runs.0 += hp.0;
        })
        .unwrap();
    schedule.run(&mut world); // both new: two match, skipped
    assert_eq!(world.resource::<Runs>().unwrap().0, 0);
    world.despawn(b).unwrap();
    schedule.run(&mut world); // a's addition is still unseen: one match
    assert_eq!(world.resource::<Runs>().unwrap().0, 1);
    schedule.run(&mut world); // nothing changed since: skipped
    assert_eq!(world.resource::<Runs>().unwrap().0, 1);
    world.get_mut::<Hp>(a).unwrap().0 = 40;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().unwrap().0, 41);
}

#[test]
fn populated_skips_when_empty_and_keeps_dirty_entries() {
    let mut world = World::new();
    world.insert_resource(Runs::default());
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut world, |dirty: Populated<&Hp, Dirty<(Hp,)>>, mut runs: ResMut<Runs>| {
            runs.0 += dirty.iter().count() as u32;
        })
        .unwrap();
    schedule.run(&mut world);
    assert_eq!(schedule.skipped_run_count(), 1);
    let e = world.spawn((Hp(1),));
    world.spawn((Hp(2),));
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().unwrap().0, 2, "the probe did not consume the dirty entries");
    schedule.run(&mut world);
    assert_eq!(schedule.skipped_run_count(), 2);
    world.get_mut::<Hp>(e).unwrap().0 = 9;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Runs>().unwrap().0, 3);
}

#[test]
fn single_and_query_apart_by_filters_share_a_system() {
    fn chase(player: Single<&Hp, With<Player>>, mut enemies: Query<&mut Hp, Without<Player>>) {
        let target = player.0;
        enemies.for_each_mut(|mut hp| hp.0 = target);
    }
    let mut world = World::new();
    world.spawn((Player, Hp(3)));
    let enemy = world.spawn((Enemy, Hp(10)));
    world.run_system_cached(chase).unwrap();
    assert_eq!(world.get::<Hp>(enemy).unwrap(), &Hp(3));
}
