//! A one-shot system is back in its place before its commands apply, so a command
//! may run it again (bevy_ecs's behaviour); runaway recursion stops at a bound with a
//! typed error, and nothing the runs under way did is lost.

use ripple::OneShotId;
use ripple::prelude::*;
use ripple::system::{IntoIoSystem, ONE_SHOT_RECURSION_LIMIT, OneShotError};

struct Me(OneShotId);
struct Left(u32);
#[derive(Default)]
struct Trace(Vec<String>);
struct Outcome(Vec<Result<(), OneShotError>>);

/// Queues a command that runs the system in `Me` again and keeps what it returned.
fn run_me_again(commands: &mut Commands<'_, '_>) {
    commands.add(|world: &mut World| {
        let me = world.resource::<Me>().unwrap().0;
        let result = world.run_system(me);
        world.resource_mut::<Outcome>().unwrap().0.push(result);
    });
}

fn world_with<M>(system: impl IntoIoSystem<(), (), M>, left: u32) -> (World, OneShotId) {
    let mut world = World::new();
    world.insert_resource(Left(left));
    world.insert_resource(Trace::default());
    world.insert_resource(Outcome(Vec::new()));
    let id = world.register_system(system).unwrap();
    world.insert_resource(Me(id));
    (world, id)
}

/// Failed before the fix with `AlreadyRunning`: the commands were applied while the
/// system was still out of its place.
#[test]
fn a_one_shot_system_runs_itself_again_through_a_command() {
    let countdown = |mut left: ResMut<'_, Left>, mut trace: ResMut<'_, Trace>, mut commands: Commands<'_, '_>| {
        let n = left.0;
        trace.0.push(format!("run {n}"));
        if n > 0 {
            left.0 -= 1;
            run_me_again(&mut commands);
            // Queued after the nested run: applies once that run (and its own
            // commands) finished.
            commands.add(move |world: &mut World| world.resource_mut::<Trace>().unwrap().0.push(format!("after {n}")));
        }
    };
    let (mut world, id) = world_with(countdown, 3);
    world.run_system(id).unwrap();
    let trace = &world.resource::<Trace>().unwrap().0;
    assert_eq!(trace, &["run 3", "run 2", "run 1", "run 0", "after 1", "after 2", "after 3"]);
    assert!(world.resource::<Outcome>().unwrap().0.iter().all(Result::is_ok));
    // It is back and runs as usual.
    world.resource_mut::<Left>().unwrap().0 = 0;
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Trace>().unwrap().0.last().unwrap(), "run 0");
}

#[test]
fn runaway_recursion_stops_at_the_limit_and_every_run_keeps_its_work() {
    let forever = |mut left: ResMut<'_, Left>, mut commands: Commands<'_, '_>| {
        left.0 += 1;
        commands.spawn(());
        run_me_again(&mut commands);
    };
    let (mut world, id) = world_with(forever, 0);
    world.run_system(id).unwrap();
    let runs = world.resource::<Left>().unwrap().0 as usize;
    assert_eq!(runs, ONE_SHOT_RECURSION_LIMIT, "every run up to the limit ran");
    assert_eq!(world.len(), runs, "each run's spawn applied");
    let outcome = &world.resource::<Outcome>().unwrap().0;
    assert_eq!(outcome.len(), runs, "one attempt per run");
    assert_eq!(outcome[0], Err(OneShotError::RecursionLimit { system: id, limit: ONE_SHOT_RECURSION_LIMIT }));
    assert!(outcome[1..].iter().all(Result::is_ok), "the refusal is the deepest attempt, recorded first");
    // The limit counts runs under way, not runs ever made: the next call starts over.
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Left>().unwrap().0 as usize, 2 * runs);
}

#[test]
fn a_panicking_command_of_a_recursive_run_leaves_the_system_usable() {
    let explosive = |mut left: ResMut<'_, Left>, mut commands: Commands<'_, '_>| {
        left.0 += 1;
        if left.0 == 2 {
            commands.add(|_: &mut World| panic!("boom in the second run's command"));
        } else if left.0 < 2 {
            run_me_again(&mut commands);
        }
    };
    let (mut world, id) = world_with(explosive, 0);
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.run_system(id)));
    assert!(result.is_err(), "the panic reaches the caller");
    assert_eq!(world.resource::<Left>().unwrap().0, 2);
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Left>().unwrap().0, 3, "both runs put it back");
}
