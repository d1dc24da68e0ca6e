//! add_remove (BENCHMARKS.md §A): 10,000 entities with A; timed: add B to every entity,
//! then remove B from every entity, with each library's idiomatic fastest per-entity
//! insert / remove. The entity list is prepared outside the timed part; each iteration
//! leaves the world as it found it. One untimed pass per library first checks that the
//! add pass gives all 10,000 entities a B and the remove pass takes all of them away.
//! ripple runs three times: B in tables (`ripple`), and B in a sparse set changed through
//! the set's view (`ripple_sparse`) or through `World::insert`/`remove` (`ripple_sparse_world`).

use bench::{A, B, N_ADD_REMOVE, criterion_config};
use criterion::{Criterion, black_box, criterion_group};

fn add_remove(c: &mut Criterion) {
    let mut group = c.benchmark_group("add_remove");

    // `ripple_sparse` goes through the set's view (`World::sparse_mut`), resolved once per
    // pass as shipyard's `ViewMut` and specs' `WriteStorage` are; `ripple_sparse_world`
    // calls `World::insert`/`remove` per entity, as `ripple` does with B in the tables.
    let lines = [
        ("ripple", ripple::Storage::Table, false),
        ("ripple_sparse", ripple::Storage::SparseSet, true),
        ("ripple_sparse_world", ripple::Storage::SparseSet, false),
    ];
    for (name, storage, view) in lines {
        group.bench_function(name, |b| {
            use ripple::World;
            let mut world = World::new();
            world.set_storage::<B>(storage).unwrap();
            let entities: Vec<ripple::Entity> = world.spawn_batch((0..N_ADD_REMOVE).map(|_| (A(0.0),))).collect();
            let add = |world: &mut World| {
                if view {
                    let mut bs = world.sparse_mut::<B>().unwrap();
                    for &e in &entities {
                        bs.insert(e, B(0.0)).unwrap();
                    }
                } else {
                    for &e in &entities {
                        world.insert(e, (B(0.0),)).unwrap();
                    }
                }
            };
            let remove = |world: &mut World| {
                if view {
                    let mut bs = world.sparse_mut::<B>().unwrap();
                    for &e in &entities {
                        black_box(bs.remove(e).unwrap());
                    }
                } else {
                    for &e in &entities {
                        let (removed,): (B,) = world.remove::<(B,)>(e).unwrap();
                        black_box(removed);
                    }
                }
            };
            let count = |world: &mut World| world.query::<(&A, &B)>().iter_mut(world).count();
            add(&mut world);
            assert_eq!(count(&mut world), N_ADD_REMOVE);
            remove(&mut world);
            assert_eq!(count(&mut world), 0);
            b.iter(|| {
                add(&mut world);
                remove(&mut world);
            })
        });
    }

    group.bench_function("bevy_ecs", |b| {
        use bevy_ecs::world::World;
        let mut world = World::new();
        let entities: Vec<_> = world.spawn_batch((0..N_ADD_REMOVE).map(|_| (A(0.0),))).collect();
        let add = |world: &mut World| {
            for &e in &entities {
                world.entity_mut(e).insert(B(0.0));
            }
        };
        let remove = |world: &mut World| {
            for &e in &entities {
                world.entity_mut(e).remove::<B>();
            }
        };
        let count = |world: &mut World| world.query::<(&A, &B)>().iter(world).count();
        add(&mut world);
        assert_eq!(count(&mut world), N_ADD_REMOVE);
        remove(&mut world);
        assert_eq!(count(&mut world), 0);
        b.iter(|| {
            add(&mut world);
            remove(&mut world);
        })
    });

    group.bench_function("hecs", |b| {
        use hecs::World;
        let mut world = World::new();
        let entities: Vec<_> = world.spawn_batch((0..N_ADD_REMOVE).map(|_| (A(0.0),))).collect();
        let add = |world: &mut World| {
            for &e in &entities {
                world.insert_one(e, B(0.0)).unwrap();
            }
        };
        let remove = |world: &mut World| {
            for &e in &entities {
                black_box(world.remove_one::<B>(e).unwrap());
            }
        };
        let count = |world: &mut World| world.query_mut::<(&A, &B)>().into_iter().count();
        add(&mut world);
        assert_eq!(count(&mut world), N_ADD_REMOVE);
        remove(&mut world);
        assert_eq!(count(&mut world), 0);
        b.iter(|| {
            add(&mut world);
            remove(&mut world);
        })
    });

    group.bench_function("legion", |b| {
        use legion::{IntoQuery, Read, World};
        let mut world = World::default();
        let entities: Vec<_> = world.extend((0..N_ADD_REMOVE).map(|_| (A(0.0),))).to_vec();
        let add = |world: &mut World| {
            for &e in &entities {
                world.entry(e).unwrap().add_component(B(0.0));
            }
        };
        let remove = |world: &mut World| {
            for &e in &entities {
                world.entry(e).unwrap().remove_component::<B>();
            }
        };
        let count = |world: &mut World| <(Read<A>, Read<B>)>::query().iter(world).count();
        add(&mut world);
        assert_eq!(count(&mut world), N_ADD_REMOVE);
        remove(&mut world);
        assert_eq!(count(&mut world), 0);
        b.iter(|| {
            add(&mut world);
            remove(&mut world);
        })
    });

    group.bench_function("shipyard", |b| {
        use shipyard::{Delete, EntitiesView, IntoIter, View, ViewMut, World};
        let mut world = World::new();
        let entities: Vec<_> = world.bulk_add_entity((0..N_ADD_REMOVE).map(|_| (A(0.0),))).collect();
        // Views borrowed once per pass: shipyard's idiomatic form (a system).
        let add = |world: &mut World| {
            world.run(|ents: EntitiesView<'_>, mut bs: ViewMut<'_, B>| {
                for &e in &entities {
                    ents.add_component(e, &mut bs, B(0.0));
                }
            })
        };
        let remove = |world: &mut World| {
            world.run(|mut bs: ViewMut<'_, B>| {
                for &e in &entities {
                    // `delete`: removal without moving the component out, ~20% faster than
                    // `remove` here (bevy_ecs and legion's removals return nothing either).
                    black_box(bs.delete(e));
                }
            })
        };
        let count = |world: &mut World| world.run(|a: View<'_, A>, b: View<'_, B>| (&a, &b).iter().count());
        add(&mut world);
        assert_eq!(count(&mut world), N_ADD_REMOVE);
        remove(&mut world);
        assert_eq!(count(&mut world), 0);
        b.iter(|| {
            add(&mut world);
            remove(&mut world);
        })
    });

    group.bench_function("specs", |b| {
        use specs::{Builder, Join, World, WorldExt};
        let mut world = World::new();
        world.register::<A>();
        world.register::<B>();
        let entities: Vec<_> = (0..N_ADD_REMOVE).map(|_| world.create_entity().with(A(0.0)).build()).collect();
        // One WriteStorage<B> fetched per pass.
        let add = |world: &mut World| {
            let mut bs = world.write_storage::<B>();
            for &e in &entities {
                bs.insert(e, B(0.0)).unwrap();
            }
        };
        let remove = |world: &mut World| {
            let mut bs = world.write_storage::<B>();
            for &e in &entities {
                black_box(bs.remove(e));
            }
        };
        let count = |world: &mut World| (&world.read_storage::<A>(), &world.read_storage::<B>()).join().count();
        add(&mut world);
        assert_eq!(count(&mut world), N_ADD_REMOVE);
        remove(&mut world);
        assert_eq!(count(&mut world), 0);
        b.iter(|| {
            add(&mut world);
            remove(&mut world);
        })
    });

    group.finish();
}

criterion_group! {
    name = benches;
    config = criterion_config();
    targets = add_remove
}
bench::bench_main!(benches);
