//! frag_iter (BENCHMARKS.md §A): 26 letter types A..Z, 20 entities per letter with
//! (Letter, Data); timed: one pass `data *= 2` over &mut Data (26 archetypes / tables in
//! the archetype libraries, one storage in the sparse-set ones). ripple runs twice: its
//! letters in tables (`ripple`) and in sparse sets (`ripple_sparse`, one table of Data).
//! One untimed pass per library first checks that it visits all 520 entities.

use bench::*;
use criterion::{Criterion, criterion_group};

const N_DATA: usize = 26 * N_PER_LETTER;

fn frag_iter(c: &mut Criterion) {
    let mut group = c.benchmark_group("frag_iter");

    for (name, storage) in [("ripple", ripple::Storage::Table), ("ripple_sparse", ripple::Storage::SparseSet)] {
        group.bench_function(name, |b| {
            let mut world = ripple::World::new();
            macro_rules! choose {
                ($l:ident) => {
                    world.set_storage::<$l>(storage).unwrap();
                };
            }
            for_each_letter!(choose);
            macro_rules! spawn {
                ($l:ident) => {
                    world.spawn_batch((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
                };
            }
            for_each_letter!(spawn);
            let mut query: ripple::query::QueryState<&mut Data> = world.query::<&mut Data>();
            let mut n = 0;
            query.for_each_mut(&mut world, |mut data| {
                data.0 *= 2.0;
                n += 1;
            });
            assert_eq!(n, N_DATA);
            b.iter(|| {
                query.for_each_mut(&mut world, |mut data| {
                    data.0 *= 2.0;
                });
            })
        });
    }

    group.bench_function("bevy_ecs", |b| {
        let mut world = bevy_ecs::world::World::new();
        macro_rules! spawn {
            ($l:ident) => {
                world.spawn_batch((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
            };
        }
        for_each_letter!(spawn);
        let mut query = world.query::<&mut Data>();
        let mut n = 0;
        query.iter_mut(&mut world).for_each(|mut data| {
            data.0 *= 2.0;
            n += 1;
        });
        assert_eq!(n, N_DATA);
        b.iter(|| {
            query.iter_mut(&mut world).for_each(|mut data| {
                data.0 *= 2.0;
            });
        })
    });

    group.bench_function("hecs", |b| {
        let mut world = hecs::World::new();
        macro_rules! spawn {
            ($l:ident) => {
                world.spawn_batch((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
            };
        }
        for_each_letter!(spawn);
        let mut n = 0;
        world.query_mut::<&mut Data>().into_iter().for_each(|data| {
            data.0 *= 2.0;
            n += 1;
        });
        assert_eq!(n, N_DATA);
        b.iter(|| {
            world.query_mut::<&mut Data>().into_iter().for_each(|data| {
                data.0 *= 2.0;
            });
        })
    });

    group.bench_function("legion", |b| {
        use legion::{IntoQuery, Write};
        let mut world = legion::World::default();
        macro_rules! spawn {
            ($l:ident) => {
                world.extend((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
            };
        }
        for_each_letter!(spawn);
        world.pack(legion::storage::PackOptions::force());
        let mut query = Write::<Data>::query();
        let mut n = 0;
        query.for_each_mut(&mut world, |data| {
            data.0 *= 2.0;
            n += 1;
        });
        assert_eq!(n, N_DATA);
        b.iter(|| {
            query.for_each_mut(&mut world, |data| {
                data.0 *= 2.0;
            });
        })
    });

    group.bench_function("shipyard", |b| {
        use shipyard::{IntoIter, ViewMut};
        let mut world = shipyard::World::new();
        macro_rules! spawn {
            ($l:ident) => {
                world.bulk_add_entity((0..N_PER_LETTER).map(|_| ($l(0.0), Data(1.0))));
            };
        }
        for_each_letter!(spawn);
        let n = world.run(|mut datas: ViewMut<'_, Data>| {
            let mut n = 0;
            (&mut datas).iter().for_each(|data| {
                data.0 *= 2.0;
                n += 1;
            });
            n
        });
        assert_eq!(n, N_DATA);
        b.iter(|| {
            world.run(|mut datas: ViewMut<'_, Data>| {
                (&mut datas).iter().for_each(|data| {
                    data.0 *= 2.0;
                });
            });
        })
    });

    group.bench_function("specs", |b| {
        use specs::{Builder, Join, RunNow, System, WorldExt, WriteStorage};
        struct FragIter;
        impl<'a> System<'a> for FragIter {
            type SystemData = WriteStorage<'a, Data>;
            fn run(&mut self, mut datas: Self::SystemData) {
                for data in (&mut datas).join() {
                    data.0 *= 2.0;
                }
            }
        }
        let mut world = specs::World::new();
        world.register::<Data>();
        macro_rules! spawn {
            ($l:ident) => {
                world.register::<$l>();
                for _ in 0..N_PER_LETTER {
                    world.create_entity().with($l(0.0)).with(Data(1.0)).build();
                }
            };
        }
        for_each_letter!(spawn);
        assert_eq!((&world.read_storage::<Data>()).join().count(), N_DATA);
        let mut system = FragIter;
        b.iter(|| system.run_now(&world))
    });

    group.finish();
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = frag_iter
}
bench::bench_main!(benches);
