//! A counting global allocator proves that steady frames allocate nothing with
//! events, merged events, hooks and data commands flowing.
//!
//! Every thread's allocations count (systems may run on rayon's workers), so this
//! file holds a single test and the harness's main thread only waits meanwhile.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use ripple::data::DataCommands;
use ripple::prelude::*;
use ripple::schedule::{POST_UPDATE, PRE_UPDATE};

#[path = "support/counting_alloc.rs"]
mod counting_alloc;

#[derive(Clone, Copy)]
struct Ping(u64);
#[derive(Clone, Copy)]
struct Damage {
    target: u32,
    amount: u64,
}
/// Merged over more keys than a merge policy looks up at once (past 262,144 it looks
/// each send up a few dozen sends late, with a buffer of its own), in a burst every
/// [`SPLASH_EVERY`] frames, and over [`SPLASH_FEW`] keys in the frames between: the
/// policy's key table is cut down after the first of those and grows back in the
/// next burst, within the memory it kept.
#[derive(Clone, Copy)]
struct Splash {
    target: u32,
    amount: u64,
}
const SPLASH_KEYS: u32 = 270_000;
const SPLASH_SENDS: u32 = 300_000;
const SPLASH_EVERY: u32 = 50;
const SPLASH_FEW: u32 = 10;
/// Has hooks: each spawn and despawn of one runs them, and they queue commands.
struct Shell(u32);
struct Tagged;
#[derive(Default)]
struct Totals {
    pings: u64,
    damage: u64,
    splashes: u64,
    splash: u64,
    hooked: u64,
}
#[derive(Default)]
struct Gui {
    level_complete: bool,
    requests: Vec<(Entity, u32)>,
}
impl Gui {
    fn set_level_complete(&mut self, complete: bool) {
        self.level_complete = complete;
    }
    fn apply_damage(&mut self, entity: Entity, amount: u32) {
        self.requests.push((entity, amount));
    }
}

fn build(world: &mut World) -> Schedule {
    world.insert_resource(Totals::default());
    world.publish_api(Gui::default());
    world.merge_messages_by(|d: &Damage| d.target, |sum: &mut Damage, d| sum.amount += d.amount);
    world.merge_messages_by(|s: &Splash| s.target, |sum: &mut Splash, s| sum.amount += s.amount);
    world.on_add::<Shell>(|ctx| {
        let entity = ctx.entity;
        ctx.commands.insert(entity, (Tagged,));
    });
    world.on_remove::<Shell>(|ctx| {
        let _ = ctx.world.get::<Shell>(ctx.entity);
    });
    let target = world.spawn((Shell(0),));
    let mut registry = DataCommands::new();
    registry
        .target::<Gui>("gui")
        .method("set_level_complete", Gui::set_level_complete)
        .method("apply_damage", Gui::apply_damage);
    let single = format!(r#"["gui", "apply_damage", "{target}", 3]"#);
    let batch = format!(r#"[["gui", "set_level_complete", true], ["gui", "apply_damage", "{target}", 4]]"#);

    let mut schedule = Schedule::new();
    schedule
        .add_system(
            world,
            (|mut pings: MessageWriter<Ping>,
              mut hits: MessageWriter<Damage>,
              mut splashes: MessageWriter<Splash>,
              mut frame: Local<u32>| {
                pings.write_batch((0..200).map(Ping));
                for i in 0..1000 {
                    hits.write(Damage { target: i % 50, amount: 1 });
                }
                if *frame % SPLASH_EVERY == 0 {
                    for i in 0..SPLASH_SENDS {
                        splashes.write(Splash { target: i % SPLASH_KEYS, amount: 1 });
                    }
                } else {
                    for i in 0..SPLASH_FEW {
                        splashes.write(Splash { target: i, amount: 1 });
                    }
                }
                *frame += 1;
            })
            .in_phase(PRE_UPDATE),
        )
        .unwrap();
    for _ in 0..4 {
        schedule
            .add_system(
                world,
                |mut pings: MessageReader<Ping>,
                 mut hits: MessageReader<Damage>,
                 mut splashes: MessageReader<Splash>,
                 mut totals: ResMut<Totals>| {
                    totals.pings += pings.read().map(|p| p.0).sum::<u64>();
                    totals.damage += hits.read().map(|d| d.amount).sum::<u64>();
                    for splash in splashes.read() {
                        totals.splashes += 1;
                        totals.splash += splash.amount;
                    }
                },
            )
            .unwrap();
    }
    schedule
        .add_system(world, |mut commands: Commands, mut shells: Query<(Entity, &Shell)>, mut totals: ResMut<Totals>| {
            shells.for_each(|(entity, shell)| {
                if shell.0 > 0 {
                    commands.despawn(entity);
                    totals.hooked += 1;
                }
            });
            for i in 1..=50 {
                commands.spawn((Shell(i),));
            }
        })
        .unwrap();
    schedule
        .add_system(
            world,
            (move |world: &mut World| {
                registry.run(world, &single).unwrap();
                assert_eq!(registry.run_batch(world, &batch), Ok(2));
                world.api_mut::<Gui>().unwrap().requests.clear();
            })
            .in_phase(POST_UPDATE),
        )
        .unwrap();
    schedule
}

#[test]
fn steady_frames_with_events_merges_hooks_and_data_commands_allocate_nothing() {
    let mut world = World::new();
    let mut schedule = build(&mut world);
    let pool = rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap();
    // A worker's first steal registers it with crossbeam's epoch collector (about 2 KiB,
    // once per thread). Make every worker look for work once before counting, however
    // the threads happen to be scheduled (under valgrind, one may not steal in warm-up).
    pool.broadcast(|_| rayon::yield_now());
    let allocations = pool.install(|| {
        for _ in 0..50 {
            schedule.run(&mut world);
        }
        counting_alloc::allocations_on_all_threads(|| {
            for _ in 0..200 {
                schedule.run(&mut world);
            }
        })
    });
    assert_eq!(world.message_stats::<Damage>().sent, 1000 * 250);
    let totals = world.resource::<Totals>().unwrap();
    assert_eq!(totals.damage, 4 * 1000 * 250, "every merged hit arrives, summed");
    // Bursts in frames 0, 50, .., 200: one before counting, four while counting.
    let bursts = u64::from(250_u32.div_ceil(SPLASH_EVERY));
    let quiet = 250 - bursts;
    let few = u64::from(SPLASH_FEW);
    assert_eq!(totals.splashes, 4 * (u64::from(SPLASH_KEYS) * bursts + few * quiet), "one splash per key per frame");
    assert_eq!(
        totals.splash,
        4 * (u64::from(SPLASH_SENDS) * bursts + few * quiet),
        "every merged splash arrives, summed"
    );
    assert!(totals.hooked >= 50 * 248 && totals.pings > 0);
    assert!(world.api::<Gui>().unwrap().level_complete);
    assert_eq!(allocations, 0, "steady frames allocated {allocations} times");
}
