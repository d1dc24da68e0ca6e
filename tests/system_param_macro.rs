//! `system_param!` (bevy_ecs's `#[derive(SystemParam)]`): a struct of parameters is a
//! parameter, with its fields' access, validation and deferred commands.

#![allow(elided_lifetimes_in_paths, reason = "system signatures read as a bevy user writes them")]

use ripple::prelude::*;
use ripple::schedule::ScheduleError;

struct Score(u32);
struct Bonus(u32);
struct Coin;

ripple::system_param! {
    /// One lifetime: resources only.
    struct Scoring<'w> {
        score: ResMut<'w, Score>,
        bonus: Res<'w, Bonus>,
    }
}

ripple::system_param! {
    struct Spawner<'w, 's> {
        commands: Commands<'w, 's>,
        coins: Query<'w, 's, Entity, With<Coin>>,
    }
}

#[test]
fn a_struct_of_parameters_reads_writes_and_defers_as_its_fields() {
    fn score(mut scoring: Scoring) {
        scoring.score.0 += scoring.bonus.0;
    }
    fn spawn_coin(mut spawner: Spawner) {
        let coins = spawner.coins.iter().count();
        if coins < 2 {
            spawner.commands.spawn((Coin,));
        }
    }
    let mut world = World::new();
    world.insert_resource(Score(0));
    world.insert_resource(Bonus(5));
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, (score, spawn_coin)).unwrap();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(world.resource::<Score>().unwrap().0, 15);
    let mut coins = world.query_filtered::<Entity, With<Coin>>();
    assert_eq!(coins.iter(&world).count(), 2);
}

#[test]
fn a_missing_resource_skips_the_system_as_a_field_would() {
    fn score(mut scoring: Scoring) {
        scoring.score.0 += 1;
    }
    let mut world = World::new();
    world.insert_resource(Score(0));
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, score).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Score>().unwrap().0, 0);
    assert_eq!(schedule.take_skipped_runs().len(), 1);
}

#[test]
fn a_conflict_with_another_parameter_is_refused() {
    fn clash(_scoring: Scoring, _score: Res<Score>) {}
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let refused = schedule.add_systems(&mut world, clash);
    assert!(matches!(refused, Err(ScheduleError::ConflictingParams { .. })));
}
