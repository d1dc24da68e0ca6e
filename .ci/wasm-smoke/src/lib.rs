//! A schedule run on `wasm32-unknown-unknown`, where `std::time::Instant::now`
//! panics: the module exports `smoke`, which `../wasm` calls from Node.

use ripple::prelude::*;

struct Pos(u32);
struct Vel(u32);
struct Score(u32);

fn movement(mut movers: Query<'_, '_, (&Vel, &mut Pos)>) {
    movers.for_each_mut(|(vel, mut pos)| pos.0 += vel.0);
}

fn scoring(mut moved: Query<'_, '_, &Pos, Changed<Pos>>, mut score: ResMut<'_, Score>) {
    moved.for_each(|pos| score.0 += pos.0);
}

fn idle(_: Query<'_, '_, &Vel>) {}

/// Builds a world and a schedule (profiling at its default), runs three frames and
/// returns the score: 3 + 6 + 9 = 18 for one entity moving by 3 per frame.
#[unsafe(no_mangle)]
pub extern "C" fn smoke() -> u32 {
    let mut world = World::new();
    world.insert_resource(Score(0));
    world.spawn((Pos(0), Vel(3)));
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, movement.named("movement")).unwrap();
    schedule.add_system(&mut world, scoring.after("movement")).unwrap();
    schedule.add_system(&mut world, idle).unwrap();
    schedule.set_profiling(true); // no clock here: stays off
    schedule.record_trace(true);
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    world.resource::<Score>().unwrap().0
}
