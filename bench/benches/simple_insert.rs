//! simple_insert (BENCHMARKS.md §A): from an empty world, spawn 10,000 entities of
//! (Transform, Position, Rotation, Velocity) with each library's batch-spawn API.
//! Timed: creating the world, spawning, and dropping the world (as in ecs_bench_suite).
//! Each library's routine is run once untimed first to check it spawned every entity.

use bench::{N_ENTITIES, Position, Rotation, Transform, Velocity, criterion_config, tprv};
use criterion::{Criterion, criterion_group};

fn simple_insert(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_insert");

    group.bench_function("ripple", |b| {
        let build = || {
            let mut world = ripple::World::new();
            // The lazy iterator is dropped at the end of the statement, spawning all.
            world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
            world
        };
        let mut world = build();
        assert_eq!(world.query::<&Position>().iter_mut(&mut world).count(), N_ENTITIES);
        b.iter(build)
    });

    group.bench_function("bevy_ecs", |b| {
        let build = || {
            let mut world = bevy_ecs::world::World::new();
            world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
            world
        };
        let mut world = build();
        assert_eq!(world.query::<&Position>().iter(&world).count(), N_ENTITIES);
        b.iter(build)
    });

    group.bench_function("hecs", |b| {
        let build = || {
            let mut world = hecs::World::new();
            world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
            world
        };
        let mut world = build();
        assert_eq!(world.query_mut::<&Position>().into_iter().count(), N_ENTITIES);
        b.iter(build)
    });

    group.bench_function("legion", |b| {
        use legion::IntoSoa;
        let build = || {
            let mut world = legion::World::default();
            let (t, p, r, v) = tprv();
            // legion's fastest batch form: one Vec per component (structure of arrays).
            world.extend(
                (vec![t; N_ENTITIES], vec![p; N_ENTITIES], vec![r; N_ENTITIES], vec![v; N_ENTITIES]).into_soa(),
            );
            world
        };
        assert_eq!(build().len(), N_ENTITIES);
        b.iter(build)
    });

    group.bench_function("shipyard", |b| {
        let build = || {
            let mut world = shipyard::World::new();
            world.bulk_add_entity((0..N_ENTITIES).map(|_| tprv()));
            world
        };
        let world = build();
        let positions = world.borrow::<shipyard::View<'_, Position>>().unwrap();
        assert_eq!(positions.len(), N_ENTITIES);
        drop(positions);
        b.iter(build)
    });

    group.bench_function("specs", |b| {
        use specs::{Builder, Join, WorldExt};
        // specs has no batch spawn: the builder loop is its idiomatic form.
        let build = || {
            let mut world = specs_world();
            for _ in 0..N_ENTITIES {
                let (t, p, r, v) = tprv();
                world.create_entity().with(t).with(p).with(r).with(v).build();
            }
            world
        };
        let world = build();
        assert_eq!((&world.read_storage::<Position>()).join().count(), N_ENTITIES);
        b.iter(build)
    });

    // specs' faster form: storages fetched once and entities built through
    // `Entities::build_entity().with(c, &mut storage)` (specs 0.20 world/entity.rs),
    // where `create_entity().with(c)` fetches the storage for every component of every
    // entity; `maintain` then makes the atomically allocated entities ordinary ones.
    group.bench_function("specs_build_entity", |b| {
        use specs::{Join, WorldExt};
        let build = || {
            let mut world = specs_world();
            {
                let entities = world.entities();
                let mut ts = world.write_storage::<Transform>();
                let mut ps = world.write_storage::<Position>();
                let mut rs = world.write_storage::<Rotation>();
                let mut vs = world.write_storage::<Velocity>();
                for _ in 0..N_ENTITIES {
                    let (t, p, r, v) = tprv();
                    entities.build_entity().with(t, &mut ts).with(p, &mut ps).with(r, &mut rs).with(v, &mut vs).build();
                }
            }
            world.maintain();
            world
        };
        let world = build();
        assert_eq!((&world.entities(), &world.read_storage::<Position>()).join().count(), N_ENTITIES);
        b.iter(build)
    });

    group.finish();
}

/// An empty specs world with the four component types registered (inside the timed
/// part: simple_insert times creating the world).
fn specs_world() -> specs::World {
    use specs::WorldExt;
    let mut world = specs::World::new();
    world.register::<Transform>();
    world.register::<Position>();
    world.register::<Rotation>();
    world.register::<Velocity>();
    world
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = simple_insert
}
bench::bench_main!(benches);
