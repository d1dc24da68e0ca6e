//! schedule (BENCHMARKS.md §A): 10,000 entities each of (A, B), (A, B, C),
//! (A, B, C, D) and (A, B, C, E); one pass is one run of three systems through the
//! library's scheduler — swap A/B, swap C/D, swap C/E. hecs has no scheduler: its
//! line runs the three queries in sequence. Shared by `benches/schedule.rs` and the
//! paired tool.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use crate::{A, B, C, D, E, Pass};

const N: usize = 10_000;

mod ripple_line {
    use super::*;
    use ripple::system::Query;

    fn ab(mut q: Query<(&mut A, &mut B)>) {
        q.for_each_mut(|(mut a, mut b)| std::mem::swap(&mut a.0, &mut b.0));
    }
    fn cd(mut q: Query<(&mut C, &mut D)>) {
        q.for_each_mut(|(mut c, mut d)| std::mem::swap(&mut c.0, &mut d.0));
    }
    fn ce(mut q: Query<(&mut C, &mut E)>) {
        q.for_each_mut(|(mut c, mut e)| std::mem::swap(&mut c.0, &mut e.0));
    }

    pub fn setup() -> (ripple::World, ripple::schedule::Schedule) {
        let mut world = ripple::World::new();
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
        let mut schedule = ripple::schedule::Schedule::new();
        schedule.add_system(&mut world, ab).unwrap();
        schedule.add_system(&mut world, cd).unwrap();
        schedule.add_system(&mut world, ce).unwrap();
        (world, schedule)
    }
}

mod bevy_line {
    use super::*;
    use bevy_ecs::prelude::Query;

    // Loops written as `for_each`, as bevy's own benches write them (benches/bevy_ecs/
    // scheduling/*.rs): bevy's `QueryIter::fold` runs a tight loop per table, where a
    // `for` loop calls `next` per item.
    fn ab(mut q: Query<(&mut A, &mut B)>) {
        q.iter_mut().for_each(|(mut a, mut b)| std::mem::swap(&mut a.0, &mut b.0));
    }
    fn cd(mut q: Query<(&mut C, &mut D)>) {
        q.iter_mut().for_each(|(mut c, mut d)| std::mem::swap(&mut c.0, &mut d.0));
    }
    fn ce(mut q: Query<(&mut C, &mut E)>) {
        q.iter_mut().for_each(|(mut c, mut e)| std::mem::swap(&mut c.0, &mut e.0));
    }

    /// bevy's default schedule (its multi-threaded executor).
    pub fn setup() -> (bevy_ecs::world::World, bevy_ecs::schedule::Schedule) {
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
        let mut schedule = bevy_ecs::schedule::Schedule::default();
        schedule.add_systems((ab, cd, ce));
        (world, schedule)
    }

    /// The same on bevy's `SingleThreadedExecutor` (schedule/executor/single_threaded.rs:
    /// the executor with the least overhead per system).
    pub fn setup_single_threaded() -> (bevy_ecs::world::World, bevy_ecs::schedule::Schedule) {
        let (world, mut schedule) = setup();
        schedule.set_executor(bevy_ecs::schedule::SingleThreadedExecutor::new());
        (world, schedule)
    }
}

mod shipyard_line {
    use super::*;
    use shipyard::{IntoIter, IntoWorkload, ViewMut, Workload};

    fn ab(mut a: ViewMut<'_, A>, mut b: ViewMut<'_, B>) {
        (&mut a, &mut b).iter().for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
    }
    fn cd(mut c: ViewMut<'_, C>, mut d: ViewMut<'_, D>) {
        (&mut c, &mut d).iter().for_each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
    }
    fn ce(mut c: ViewMut<'_, C>, mut e: ViewMut<'_, E>) {
        (&mut c, &mut e).iter().for_each(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
    }
    pub fn workload() -> Workload {
        (ab, cd, ce).into_workload()
    }

    pub fn setup() -> shipyard::World {
        let mut world = shipyard::World::new();
        world.bulk_add_entity((0..N).map(|_| (A(0.0), B(1.0))));
        world.bulk_add_entity((0..N).map(|_| (A(0.0), B(1.0), C(2.0))));
        world.bulk_add_entity((0..N).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
        world.bulk_add_entity((0..N).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
        world.add_workload(workload);
        world
    }
}

mod specs_line {
    use super::*;
    use specs::{Builder, Join, System, WorldExt, WriteStorage};

    struct Ab;
    impl<'a> System<'a> for Ab {
        type SystemData = (WriteStorage<'a, A>, WriteStorage<'a, B>);
        fn run(&mut self, (mut a, mut b): Self::SystemData) {
            for (a, b) in (&mut a, &mut b).join() {
                std::mem::swap(&mut a.0, &mut b.0);
            }
        }
    }
    struct Cd;
    impl<'a> System<'a> for Cd {
        type SystemData = (WriteStorage<'a, C>, WriteStorage<'a, D>);
        fn run(&mut self, (mut c, mut d): Self::SystemData) {
            for (c, d) in (&mut c, &mut d).join() {
                std::mem::swap(&mut c.0, &mut d.0);
            }
        }
    }
    struct Ce;
    impl<'a> System<'a> for Ce {
        type SystemData = (WriteStorage<'a, C>, WriteStorage<'a, E>);
        fn run(&mut self, (mut c, mut e): Self::SystemData) {
            for (c, e) in (&mut c, &mut e).join() {
                std::mem::swap(&mut c.0, &mut e.0);
            }
        }
    }

    pub fn setup() -> (specs::World, specs::Dispatcher<'static, 'static>) {
        let mut world = specs::World::new();
        world.register::<A>();
        world.register::<B>();
        world.register::<C>();
        world.register::<D>();
        world.register::<E>();
        for _ in 0..N {
            world.create_entity().with(A(0.0)).with(B(1.0)).build();
        }
        for _ in 0..N {
            world.create_entity().with(A(0.0)).with(B(1.0)).with(C(2.0)).build();
        }
        for _ in 0..N {
            world.create_entity().with(A(0.0)).with(B(1.0)).with(C(2.0)).with(D(3.0)).build();
        }
        for _ in 0..N {
            world.create_entity().with(A(0.0)).with(B(1.0)).with(C(2.0)).with(E(4.0)).build();
        }
        let dispatcher =
            specs::DispatcherBuilder::new().with(Ab, "ab", &[]).with(Cd, "cd", &[]).with(Ce, "ce", &[]).build();
        (world, dispatcher)
    }
}

/// Every line, in report order, each run once and checked: (name, one run).
pub fn lines() -> Vec<(&'static str, Pass)> {
    let mut lines: Vec<(&'static str, Pass)> = Vec::new();

    let (mut world, mut schedule) = ripple_line::setup();
    schedule.run(&mut world);
    let mut q = world.query::<(&A, &B)>();
    assert!(q.iter(&world).all(|(a, b)| a.0 == 1.0 && b.0 == 0.0), "ab ran once");
    lines.push(("ripple", Box::new(move || schedule.run(&mut world))));

    for (name, single_threaded) in [("bevy_ecs", false), ("bevy_ecs_single_threaded", true)] {
        let (mut world, mut schedule) =
            if single_threaded { bevy_line::setup_single_threaded() } else { bevy_line::setup() };
        schedule.run(&mut world);
        let mut q = world.query::<(&A, &B)>();
        assert!(q.iter(&world).all(|(a, b)| a.0 == 1.0 && b.0 == 0.0), "ab ran once");
        lines.push((name, Box::new(move || schedule.run(&mut world))));
    }

    let mut world = hecs::World::new();
    world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0))));
    world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0))));
    world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
    world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
    // `for_each`: hecs's `QueryIter::fold` walks each archetype in a tight loop (hecs
    // query.rs, citing its for_each bench); a `for` loop calls `next` per item.
    let mut run = move || {
        world.query_mut::<(&mut A, &mut B)>().into_iter().for_each(|(a, b)| std::mem::swap(&mut a.0, &mut b.0));
        world.query_mut::<(&mut C, &mut D)>().into_iter().for_each(|(c, d)| std::mem::swap(&mut c.0, &mut d.0));
        world.query_mut::<(&mut C, &mut E)>().into_iter().for_each(|(c, e)| std::mem::swap(&mut c.0, &mut e.0));
    };
    run();
    lines.push(("hecs", Box::new(run)));

    for (name, chunks) in [("legion", false), ("legion_chunks", true)] {
        let (mut world, mut schedule, mut resources) = legion_line::setup(chunks);
        schedule.execute(&mut world, &mut resources);
        lines.push((name, Box::new(move || schedule.execute(&mut world, &mut resources))));
    }

    let world = shipyard_line::setup();
    world.run_workload(shipyard_line::workload).unwrap();
    lines.push(("shipyard", Box::new(move || world.run_workload(shipyard_line::workload).unwrap())));

    let (world, mut dispatcher) = specs_line::setup();
    dispatcher.dispatch_par(&world);
    lines.push(("specs", Box::new(move || dispatcher.dispatch_par(&world))));
    lines
}

mod legion_line {
    use super::*;
    use legion::{IntoQuery, Resources, Schedule, SystemBuilder, Write};

    /// legion's schedule of the three systems, written with `for_each_mut` or, if
    /// `chunks`, with its chunk form (legion 0.4 query/mod.rs `for_each_chunk_mut`,
    /// whose chunks hand out plain slices through `into_components`).
    pub fn setup(chunks: bool) -> (legion::World, Schedule, Resources) {
        let mut world = legion::World::default();
        world.extend((0..N).map(|_| (A(0.0), B(1.0))));
        world.extend((0..N).map(|_| (A(0.0), B(1.0), C(2.0))));
        world.extend((0..N).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
        world.extend((0..N).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
        macro_rules! swap_system {
            ($name:literal, $x:ident, $y:ident) => {
                SystemBuilder::new($name).with_query(<(Write<$x>, Write<$y>)>::query()).build(
                    move |_, world, _, query| {
                        if chunks {
                            query.for_each_chunk_mut(world, |chunk| {
                                let (xs, ys) = chunk.into_components();
                                for (x, y) in xs.iter_mut().zip(ys.iter_mut()) {
                                    std::mem::swap(&mut x.0, &mut y.0);
                                }
                            });
                        } else {
                            query.for_each_mut(world, |(x, y)| std::mem::swap(&mut x.0, &mut y.0));
                        }
                    },
                )
            };
        }
        let schedule = Schedule::builder()
            .add_system(swap_system!("ab", A, B))
            .add_system(swap_system!("cd", C, D))
            .add_system(swap_system!("ce", C, E))
            .build();
        (world, schedule, Resources::default())
    }
}
