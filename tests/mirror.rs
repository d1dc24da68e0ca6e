//! The mirror example: after random play, the external store holds exactly the ECS's
//! bodies, each at the ECS's position, and resting bodies cost no moves.

#[path = "../examples/mirror.rs"]
#[allow(dead_code, reason = "the example's `main` is not used here")]
mod mirror;

use mirror::{Body, Position, Rng, install, mirror_matches, play};
use ripple::World;
use ripple::schedule::Schedule;

#[test]
fn the_mirror_equals_the_ecs_after_random_runs() {
    for seed in 1..=20u64 {
        let mut world = World::new();
        let mut schedule = Schedule::new();
        let physics = install(&mut world, &mut schedule);
        let mut live = Vec::new();
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        for frame in 0..60 {
            play(&mut world, &mut live, &mut rng);
            schedule.run(&mut world);
            if let Err(mismatch) = mirror_matches(&mut world, &physics) {
                panic!("seed {seed}, frame {frame}: {mismatch}");
            }
        }
        world.clear();
        assert!(physics.0.lock().unwrap().actors.is_empty(), "clear destroys every actor");
    }
}

#[test]
fn resting_bodies_are_not_moved_again() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let physics = install(&mut world, &mut schedule);
    world.spawn_batch((0..1000).map(|i| (Position(i as f32, 0.0), Body)));
    schedule.run(&mut world);
    let after_first = physics.0.lock().unwrap().moves;
    let mover = world.spawn((Position(0.0, 0.0), Body));
    for _ in 0..5 {
        world.get_mut::<Position>(mover).unwrap().0 += 1.0;
        schedule.run(&mut world);
    }
    assert_eq!(physics.0.lock().unwrap().moves - after_first, 5, "one move per frame, for the one mover");
    mirror_matches(&mut world, &physics).unwrap();
}
