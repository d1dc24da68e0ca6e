//! heavy_compute (BENCHMARKS.md §A): 1,000 entities of (Transform, Position, Rotation,
//! Velocity); timed: one parallel pass that inverts each Transform 100 times, then
//! transforms the Position by it. Every library runs its parallel iteration form.

use bench::{Position, Transform, criterion_config, heavy_work as work, tprv};
use criterion::{Criterion, criterion_group};

const N: usize = 1_000;

fn heavy_compute(c: &mut Criterion) {
    let mut group = c.benchmark_group("heavy_compute");

    group.bench_function("ripple", |b| {
        let mut world = ripple::World::new();
        world.spawn_batch((0..N).map(|_| tprv()));
        let mut query = world.query::<(&mut Position, &mut Transform)>();
        b.iter(|| query.par_for_each_mut(&mut world, |(mut pos, mut mat)| work(&mut mat, &mut pos)));
    });

    group.bench_function("bevy_ecs", |b| {
        // bevy's parallel iteration runs on its compute pool, which an app would set up.
        bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..N).map(|_| tprv()));
        let mut query = world.query::<(&mut Position, &mut Transform)>();
        b.iter(|| query.par_iter_mut(&mut world).for_each(|(mut pos, mut mat)| work(&mut mat, &mut pos)));
    });

    // The pool: `TaskPool::default()` (one thread per core), as bevy's own
    // benches/bevy_ecs/iteration/heavy_compute.rs sizes it. bevy_app's TaskPoolPlugin
    // would give the compute pool what is left after the IO and async pools take a
    // quarter each (at least one thread each): 1 thread on 2 cores (serial), 8 on 16, so
    // never more than this line has. The batching: fixed batches of 64, as hecs's line
    // uses (bevy_ecs 0.20.1 batching.rs `BatchingStrategy::fixed`), beside bevy's
    // default (one batch per thread for a 1,000-row table).
    group.bench_function("bevy_ecs_batch64", |b| {
        bevy_tasks::ComputeTaskPool::get_or_init(bevy_tasks::TaskPool::default);
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..N).map(|_| tprv()));
        let mut query = world.query::<(&mut Position, &mut Transform)>();
        b.iter(|| {
            query
                .par_iter_mut(&mut world)
                .batching_strategy(bevy_ecs::batching::BatchingStrategy::fixed(64))
                .for_each(|(mut pos, mut mat)| work(&mut mat, &mut pos))
        });
    });

    group.bench_function("hecs", |b| {
        use rayon::prelude::*;
        let mut world = hecs::World::new();
        world.spawn_batch((0..N).map(|_| tprv()));
        b.iter(|| {
            world.query_mut::<(&mut Position, &mut Transform)>().into_iter_batched(64).par_bridge().for_each(|batch| {
                for (pos, mat) in batch {
                    work(mat, pos);
                }
            });
        });
    });

    group.bench_function("legion", |b| {
        use legion::{IntoQuery, Write};
        let mut world = legion::World::default();
        world.extend((0..N).map(|_| tprv()));
        let mut query = <(Write<Position>, Write<Transform>)>::query();
        b.iter(|| query.par_for_each_mut(&mut world, |(pos, mat)| work(mat, pos)));
    });

    group.bench_function("shipyard", |b| {
        use rayon::prelude::*;
        use shipyard::{IntoIter, ViewMut};
        let mut world = shipyard::World::new();
        world.bulk_add_entity((0..N).map(|_| tprv()));
        b.iter(|| {
            world.run(|mut pos: ViewMut<'_, Position>, mut mat: ViewMut<'_, Transform>| {
                (&mut pos, &mut mat).par_iter().for_each(|(pos, mat)| work(mat, pos));
            })
        });
    });

    group.bench_function("specs", |b| {
        use rayon::prelude::*;
        use specs::{Builder, ParJoin, WorldExt};
        let mut world = specs::World::new();
        world.register::<Transform>();
        world.register::<Position>();
        world.register::<bench::Rotation>();
        world.register::<bench::Velocity>();
        for _ in 0..N {
            let (t, p, r, v) = tprv();
            world.create_entity().with(t).with(p).with(r).with(v).build();
        }
        b.iter(|| {
            let mut pos = world.write_storage::<Position>();
            let mut mat = world.write_storage::<Transform>();
            (&mut pos, &mut mat).par_join().for_each(|(pos, mat)| work(mat, pos));
        });
    });

    group.finish();
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = heavy_compute
}
bench::bench_main!(benches);
