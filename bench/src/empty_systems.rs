//! `empty_systems`: the per-run overhead of a schedule of 50 distinct empty systems,
//! each library with its documented defaults, and bevy_ecs also in its fastest form.
//! Shared by `benches/schedule.rs` and the paired tool.

/// Adds 50 distinct empty systems, via `$add!(N)` for N in 0..50.
macro_rules! fifty {
    ($add:ident) => {
        $add!(0);
        $add!(1);
        $add!(2);
        $add!(3);
        $add!(4);
        $add!(5);
        $add!(6);
        $add!(7);
        $add!(8);
        $add!(9);
        $add!(10);
        $add!(11);
        $add!(12);
        $add!(13);
        $add!(14);
        $add!(15);
        $add!(16);
        $add!(17);
        $add!(18);
        $add!(19);
        $add!(20);
        $add!(21);
        $add!(22);
        $add!(23);
        $add!(24);
        $add!(25);
        $add!(26);
        $add!(27);
        $add!(28);
        $add!(29);
        $add!(30);
        $add!(31);
        $add!(32);
        $add!(33);
        $add!(34);
        $add!(35);
        $add!(36);
        $add!(37);
        $add!(38);
        $add!(39);
        $add!(40);
        $add!(41);
        $add!(42);
        $add!(43);
        $add!(44);
        $add!(45);
        $add!(46);
        $add!(47);
        $add!(48);
        $add!(49);
    };
}

fn empty<const N: usize>() {}

/// A resource the run conditions read.
struct Playing(bool);

/// ripple's default schedule (parallel stages, profiling on), run once.
pub fn ripple() -> (ripple::World, ripple::schedule::Schedule) {
    let mut world = ripple::World::new();
    let mut schedule = ripple::schedule::Schedule::new();
    macro_rules! add {
        ($n:literal) => {
            schedule.add_system(&mut world, empty::<$n>).unwrap();
        };
    }
    fifty!(add);
    schedule.run(&mut world);
    (world, schedule)
}

/// ripple's default schedule with a true run condition reading a resource on every
/// system.
pub fn ripple_conditions() -> (ripple::World, ripple::schedule::Schedule) {
    use ripple::schedule::IntoSystemConfig;
    let mut world = ripple::World::new();
    world.insert_resource(Playing(true));
    let mut schedule = ripple::schedule::Schedule::new();
    macro_rules! add {
        ($n:literal) => {
            schedule
                .add_system(&mut world, empty::<$n>.run_if(|playing: ripple::system::Res<Playing>| playing.0))
                .unwrap();
        };
    }
    fifty!(add);
    schedule.run(&mut world);
    (world, schedule)
}

/// bevy_ecs's default schedule (its multi-threaded executor), run once.
pub fn bevy() -> (bevy_ecs::world::World, bevy_ecs::schedule::Schedule) {
    let mut world = bevy_ecs::world::World::new();
    let mut schedule = bevy_ecs::schedule::Schedule::default();
    macro_rules! add {
        ($n:literal) => {
            schedule.add_systems(empty::<$n>);
        };
    }
    fifty!(add);
    schedule.run(&mut world);
    (world, schedule)
}

/// bevy_ecs's schedule on its `SingleThreadedExecutor`, run once.
pub fn bevy_single_threaded() -> (bevy_ecs::world::World, bevy_ecs::schedule::Schedule) {
    let (mut world, mut schedule) = bevy();
    schedule.set_executor(bevy_ecs::schedule::SingleThreadedExecutor::new());
    schedule.run(&mut world);
    (world, schedule)
}
