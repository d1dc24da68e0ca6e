//! A counting global allocator proves that an inspector nobody watches adds no
//! allocation to a game's frames: its sync reads two flags and returns.

use ripple::World;
use ripple::schedule::Schedule;
use ripple_inspector::{Inspector, InspectorConfig, Lend};

#[path = "../../tests/support/counting_alloc.rs"]
mod counting_alloc;

use counting_alloc::allocations_on_this_thread;

struct Position(#[allow(dead_code, reason = "only written")] f32);

#[test]
fn an_unwatched_sync_allocates_nothing() {
    let mut world = World::new();
    world.track::<Position>();
    let entities: Vec<_> = (0..100).map(|i| world.spawn((Position(i as f32),))).collect();
    let mut schedule = Schedule::new();
    let mut inspector = Inspector::start(InspectorConfig::default()).unwrap();
    let frame = |world: &mut World, schedule: &mut Schedule, inspector: &mut Inspector| {
        for &e in &entities[..3] {
            world.get_mut::<Position>(e).unwrap().0 += 1.0;
        }
        schedule.run(world);
        inspector.sync(Lend::world(world).schedule(schedule));
    };
    for _ in 0..10 {
        frame(&mut world, &mut schedule, &mut inspector);
    }
    let allocations =
        allocations_on_this_thread(|| (0..1000).for_each(|_| frame(&mut world, &mut schedule, &mut inspector)));
    assert_eq!(allocations, 0, "a thousand unwatched frames allocated {allocations} times");
    assert_eq!(inspector.samples(), 0);
}
