//! simple_iter (BENCHMARKS.md §A): 10,000 entities of (Transform, Position, Rotation,
//! Velocity); timed: one pass `pos += vel` over (&Velocity, &mut Position). Queries and
//! systems are prepared outside the timed part wherever the library has such a form.
//! One untimed pass per library first checks that it visits every entity.

use bench::{N_ENTITIES, Position, Velocity, criterion_config, tprv};
use criterion::{Criterion, criterion_group};

/// simple_iter on ripple; with Position tracked if `tracked`, and an observer of it if
/// `observed`.
fn ripple_line(b: &mut criterion::Bencher<'_>, tracked: bool, observed: bool) {
    let mut world = ripple::World::new();
    if tracked {
        world.track::<Position>();
    }
    let _observer = observed.then(|| world.query_filtered::<&Position, ripple::query::Changed<Position>>());
    world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
    let mut query: ripple::query::QueryState<(&Velocity, &mut Position)> = world.query::<(&Velocity, &mut Position)>();
    let mut n = 0;
    query.for_each_mut(&mut world, |(vel, mut pos)| {
        pos.0 += vel.0;
        n += 1;
    });
    assert_eq!(n, N_ENTITIES);
    b.iter(|| {
        query.for_each_mut(&mut world, |(vel, mut pos)| {
            pos.0 += vel.0;
        });
    })
}

fn simple_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("simple_iter");

    group.bench_function("ripple", |b| ripple_line(b, false, false));

    // BENCHMARKS.md §C, the cost of a tracked write: the same pass with Position tracked,
    // every write going through `Mut` (which marks its row changed). The report prints
    // ripple_tracked / ripple.
    group.bench_function("ripple_tracked", |b| ripple_line(b, true, false));
    // The same with an observer of Position alive (never run here), so every tracked
    // write also keeps the change summaries observers read: the full cost of tracking
    // (ripple_tracked_observed / ripple).
    group.bench_function("ripple_tracked_observed", |b| ripple_line(b, true, true));

    // The same pass over runtime components (no Rust type) with the same layouts and
    // values, reached by id, table by table (`bench::dynamic_iter`); issue 47's bar:
    // ripple_dynamic / ripple <= 1.2. And the per-entity form of the same query.
    group.bench_function("ripple_dynamic", |b| {
        let (mut world, mut query) = bench::dynamic_iter::world(N_ENTITIES);
        b.iter(|| bench::dynamic_iter::pass_tables(&mut world, &mut query))
    });
    group.bench_function("ripple_dynamic_items", |b| {
        let (mut world, mut query) = bench::dynamic_iter::world(N_ENTITIES);
        b.iter(|| bench::dynamic_iter::pass_items(&mut world, &mut query))
    });

    // Reference (never a peer), the floor: the same bytes as two flat arrays of f32
    // (x, y, z of each row), added element by element in unrolled blocks of vector adds
    // (`bench::add_flat`). The pass reads and writes exactly these bytes, with no
    // per-row work and nothing but the adds, so no library's pass can go below it.
    group.bench_function("ideal", |b| {
        let (vels, mut poss) = bench::flat_rows(N_ENTITIES);
        b.iter(|| {
            bench::add_flat(&mut poss, &vels);
            std::hint::black_box(&mut poss);
        })
    });

    // The same pass as a loop over two vectors of rows, one row at a time (what this
    // line was before the flat floor above; kept to show the gap).
    group.bench_function("ideal_rows", |b| {
        let vels: Vec<Velocity> = (0..N_ENTITIES).map(|_| tprv().3).collect();
        let mut poss: Vec<Position> = (0..N_ENTITIES).map(|_| tprv().1).collect();
        b.iter(|| {
            for (pos, vel) in poss.iter_mut().zip(&vels) {
                pos.0 += vel.0;
            }
            std::hint::black_box(&mut poss);
        })
    });

    group.bench_function("bevy_ecs", |b| {
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
        let mut query = world.query::<(&Velocity, &mut Position)>();
        let mut n = 0;
        query.iter_mut(&mut world).for_each(|(vel, mut pos)| {
            pos.0 += vel.0;
            n += 1;
        });
        assert_eq!(n, N_ENTITIES);
        b.iter(|| {
            query.iter_mut(&mut world).for_each(|(vel, mut pos)| {
                pos.0 += vel.0;
            });
        })
    });

    // bevy's contiguous form (bevy_ecs 0.20.1 query/state.rs `contiguous_iter_mut`,
    // documented for SIMD; bevy's own benches/bevy_ecs/iteration/
    // iter_simple_contiguous.rs): one pair of slices per table. Writing through
    // `ContiguousMut` marks every row of the slice changed, once per table: bevy always
    // tracks, so this is the same work as `ripple_tracked`.
    group.bench_function("bevy_ecs_contiguous", |b| {
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
        let mut query = world.query::<(&Velocity, &mut Position)>();
        let mut n = 0;
        for (vels, mut poss) in query.contiguous_iter_mut(&mut world).unwrap() {
            n += vels.len();
            for (vel, pos) in vels.iter().zip(poss.iter_mut()) {
                pos.0 += vel.0;
            }
        }
        assert_eq!(n, N_ENTITIES);
        b.iter(|| {
            for (vels, mut poss) in query.contiguous_iter_mut(&mut world).unwrap() {
                for (vel, pos) in vels.iter().zip(poss.iter_mut()) {
                    pos.0 += vel.0;
                }
            }
        })
    });

    // The same with change detection bypassed (bevy's
    // iter_simple_no_detection_contiguous.rs): the same work as `ripple`, untracked.
    group.bench_function("bevy_ecs_contiguous_no_detection", |b| {
        let mut world = bevy_ecs::world::World::new();
        world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
        let mut query = world.query::<(&Velocity, &mut Position)>();
        b.iter(|| {
            for (vels, mut poss) in query.contiguous_iter_mut(&mut world).unwrap() {
                for (vel, pos) in vels.iter().zip(poss.bypass_change_detection().iter_mut()) {
                    pos.0 += vel.0;
                }
            }
        })
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        world.spawn_batch((0..N_ENTITIES).map(|_| tprv()));
        let mut n = 0;
        world.query_mut::<(&Velocity, &mut Position)>().into_iter().for_each(|(vel, pos)| {
            pos.0 += vel.0;
            n += 1;
        });
        assert_eq!(n, N_ENTITIES);
        b.iter(|| {
            // query_mut: the form without dynamic borrow checks on &mut World; the set of
            // matching archetypes is cached in the world.
            world.query_mut::<(&Velocity, &mut Position)>().into_iter().for_each(|(vel, pos)| {
                pos.0 += vel.0;
            });
        })
    });

    group.bench_function("legion", |b| {
        use legion::{IntoQuery, Read, Write};
        let mut world = legion::World::default();
        world.extend((0..N_ENTITIES).map(|_| tprv()));
        world.pack(legion::storage::PackOptions::force());
        let mut query = <(Read<Velocity>, Write<Position>)>::query();
        let mut n = 0;
        query.for_each_mut(&mut world, |(vel, pos)| {
            pos.0 += vel.0;
            n += 1;
        });
        assert_eq!(n, N_ENTITIES);
        b.iter(|| {
            query.for_each_mut(&mut world, |(vel, pos)| {
                pos.0 += vel.0;
            });
        })
    });

    // legion's chunk form (legion 0.4 query/mod.rs `for_each_chunk_mut`): plain slices
    // per chunk through `into_components`.
    group.bench_function("legion_chunks", |b| {
        use legion::{IntoQuery, Read, Write};
        let mut world = legion::World::default();
        world.extend((0..N_ENTITIES).map(|_| tprv()));
        world.pack(legion::storage::PackOptions::force());
        let mut query = <(Read<Velocity>, Write<Position>)>::query();
        b.iter(|| {
            query.for_each_chunk_mut(&mut world, |chunk| {
                let (vels, poss) = chunk.into_components();
                for (vel, pos) in vels.iter().zip(poss.iter_mut()) {
                    pos.0 += vel.0;
                }
            });
        })
    });

    group.bench_function("shipyard", |b| {
        use shipyard::{IntoIter, View, ViewMut};
        let mut world = shipyard::World::new();
        world.bulk_add_entity((0..N_ENTITIES).map(|_| tprv()));
        let n = world.run(|vels: View<'_, Velocity>, mut poss: ViewMut<'_, Position>| {
            let mut n = 0;
            (&vels, &mut poss).iter().for_each(|(vel, pos)| {
                pos.0 += vel.0;
                n += 1;
            });
            n
        });
        assert_eq!(n, N_ENTITIES);
        b.iter(|| {
            world.run(|vels: View<'_, Velocity>, mut poss: ViewMut<'_, Position>| {
                (&vels, &mut poss).iter().for_each(|(vel, pos)| {
                    pos.0 += vel.0;
                });
            });
        })
    });

    group.bench_function("specs", |b| {
        use specs::{Builder, Join, ReadStorage, RunNow, System, WorldExt, WriteStorage};
        struct SimpleIter;
        impl<'a> System<'a> for SimpleIter {
            type SystemData = (ReadStorage<'a, Velocity>, WriteStorage<'a, Position>);
            fn run(&mut self, (vels, mut poss): Self::SystemData) {
                for (vel, pos) in (&vels, &mut poss).join() {
                    pos.0 += vel.0;
                }
            }
        }
        let mut world = specs::World::new();
        world.register::<bench::Transform>();
        world.register::<Position>();
        world.register::<bench::Rotation>();
        world.register::<Velocity>();
        for _ in 0..N_ENTITIES {
            let (t, p, r, v) = tprv();
            world.create_entity().with(t).with(p).with(r).with(v).build();
        }
        let n = (&world.read_storage::<Velocity>(), &world.read_storage::<Position>()).join().count();
        assert_eq!(n, N_ENTITIES);
        let mut system = SimpleIter;
        b.iter(|| system.run_now(&world))
    });

    group.finish();
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = simple_iter
}
bench::bench_main!(benches);
