//! schedule (BENCHMARKS.md §A): 10,000 entities each of (A, B), (A, B, C),
//! (A, B, C, D) and (A, B, C, E); timed: one run of three systems through the
//! library's scheduler — swap A/B, swap C/D, swap C/E. hecs has no scheduler: its
//! line runs the three queries in sequence.
//!
//! Also `empty_systems` (§C): the per-run overhead of a schedule of 50 empty systems
//! (and, as `ripple_conditions`, of the same systems each behind a true run condition),
//! ripple against bevy_ecs.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use bench::{A, B, C, D, E, criterion_config};
use criterion::{Criterion, criterion_group};

const N: usize = 10_000;

mod ripple_line {
    use super::*;
    use ripple::Query;

    fn ab(mut q: Query<(&mut A, &mut B)>) {
        q.for_each_mut(|(mut a, mut b)| std::mem::swap(&mut a.0, &mut b.0));
    }
    fn cd(mut q: Query<(&mut C, &mut D)>) {
        q.for_each_mut(|(mut c, mut d)| std::mem::swap(&mut c.0, &mut d.0));
    }
    fn ce(mut q: Query<(&mut C, &mut E)>) {
        q.for_each_mut(|(mut c, mut e)| std::mem::swap(&mut c.0, &mut e.0));
    }

    pub fn setup() -> (ripple::World, ripple::Schedule) {
        let mut world = ripple::World::new();
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
        let mut schedule = ripple::Schedule::new();
        schedule.add_system(&mut world, ab).unwrap();
        schedule.add_system(&mut world, cd).unwrap();
        schedule.add_system(&mut world, ce).unwrap();
        (world, schedule)
    }
}

mod bevy_line {
    use super::*;
    use bevy_ecs::prelude::Query;

    fn ab(mut q: Query<(&mut A, &mut B)>) {
        for (mut a, mut b) in q.iter_mut() {
            std::mem::swap(&mut a.0, &mut b.0);
        }
    }
    fn cd(mut q: Query<(&mut C, &mut D)>) {
        for (mut c, mut d) in q.iter_mut() {
            std::mem::swap(&mut c.0, &mut d.0);
        }
    }
    fn ce(mut q: Query<(&mut C, &mut E)>) {
        for (mut c, mut e) in q.iter_mut() {
            std::mem::swap(&mut c.0, &mut e.0);
        }
    }

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

fn schedule(c: &mut Criterion) {
    let mut group = c.benchmark_group("schedule");

    group.bench_function("ripple", |b| {
        let (mut world, mut schedule) = ripple_line::setup();
        schedule.run(&mut world);
        let mut q = world.query::<(&A, &B)>();
        assert!(q.iter(&world).all(|(a, b)| a.0 == 1.0 && b.0 == 0.0), "ab ran once");
        b.iter(|| schedule.run(&mut world));
    });

    group.bench_function("bevy_ecs", |b| {
        let (mut world, mut schedule) = bevy_line::setup();
        schedule.run(&mut world);
        let mut q = world.query::<(&A, &B)>();
        assert!(q.iter(&world).all(|(a, b)| a.0 == 1.0 && b.0 == 0.0), "ab ran once");
        b.iter(|| schedule.run(&mut world));
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
        world.spawn_batch((0..N).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
        let mut run = move || {
            for (a, b) in world.query_mut::<(&mut A, &mut B)>() {
                std::mem::swap(&mut a.0, &mut b.0);
            }
            for (c, d) in world.query_mut::<(&mut C, &mut D)>() {
                std::mem::swap(&mut c.0, &mut d.0);
            }
            for (c, e) in world.query_mut::<(&mut C, &mut E)>() {
                std::mem::swap(&mut c.0, &mut e.0);
            }
        };
        run();
        b.iter(&mut run);
    });

    group.bench_function("legion", |b| {
        use legion::{IntoQuery, Resources, Schedule, SystemBuilder, Write};
        let mut world = legion::World::default();
        world.extend((0..N).map(|_| (A(0.0), B(1.0))));
        world.extend((0..N).map(|_| (A(0.0), B(1.0), C(2.0))));
        world.extend((0..N).map(|_| (A(0.0), B(1.0), C(2.0), D(3.0))));
        world.extend((0..N).map(|_| (A(0.0), B(1.0), C(2.0), E(4.0))));
        let ab = SystemBuilder::new("ab").with_query(<(Write<A>, Write<B>)>::query()).build(|_, world, _, query| {
            query.for_each_mut(world, |(a, b)| std::mem::swap(&mut a.0, &mut b.0));
        });
        let cd = SystemBuilder::new("cd").with_query(<(Write<C>, Write<D>)>::query()).build(|_, world, _, query| {
            query.for_each_mut(world, |(c, d)| std::mem::swap(&mut c.0, &mut d.0));
        });
        let ce = SystemBuilder::new("ce").with_query(<(Write<C>, Write<E>)>::query()).build(|_, world, _, query| {
            query.for_each_mut(world, |(c, e)| std::mem::swap(&mut c.0, &mut e.0));
        });
        let mut schedule = Schedule::builder().add_system(ab).add_system(cd).add_system(ce).build();
        let mut resources = Resources::default();
        schedule.execute(&mut world, &mut resources);
        b.iter(|| schedule.execute(&mut world, &mut resources));
    });

    group.bench_function("shipyard", |b| {
        let world = shipyard_line::setup();
        world.run_workload(shipyard_line::workload).unwrap();
        b.iter(|| world.run_workload(shipyard_line::workload).unwrap());
    });

    group.bench_function("specs", |b| {
        let (world, mut dispatcher) = specs_line::setup();
        dispatcher.dispatch_par(&world);
        b.iter(|| dispatcher.dispatch_par(&world));
    });

    group.finish();
}

fn empty_systems(c: &mut Criterion) {
    use bench::empty_systems as fifty;
    let mut group = c.benchmark_group("empty_systems");

    group.bench_function("ripple", |b| {
        let (mut world, mut schedule) = fifty::ripple();
        b.iter(|| schedule.run(&mut world));
    });

    // The same schedule with a run condition on every system, each reading a resource
    // and true: what conditions add to a schedule's run.
    group.bench_function("ripple_conditions", |b| {
        let (mut world, mut schedule) = fifty::ripple_conditions();
        b.iter(|| schedule.run(&mut world));
    });

    group.bench_function("bevy_ecs", |b| {
        let (mut world, mut schedule) = fifty::bevy();
        b.iter(|| schedule.run(&mut world));
    });

    // bevy's fastest form for a schedule of cheap systems: its `SingleThreadedExecutor`,
    // which bevy_ecs documents (schedule/executor/single_threaded.rs) as running
    // systems one after another with the least overhead.
    group.bench_function("bevy_ecs_single_threaded", |b| {
        let (mut world, mut schedule) = fifty::bevy_single_threaded();
        b.iter(|| schedule.run(&mut world));
    });

    group.finish();
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = schedule, empty_systems
}
bench::bench_main!(benches);
