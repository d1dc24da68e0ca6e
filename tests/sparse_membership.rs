//! Entity enter and exit callbacks, `Dirty` runs and `on_remove` hooks behave the same
//! whichever storage a component has: gaining or losing a sparse component moves no
//! row, yet it can make an entity start or stop matching a system's query, and one
//! operation changing table and sparse components together is one change.

use std::sync::{Arc, Mutex};

use ripple::Storage;
use ripple::prelude::*;
use ripple::schedule::Schedule;

#[derive(Debug)]
struct Pos;
#[derive(Debug)]
struct A;
#[derive(Debug)]
struct S;
#[derive(Debug)]
struct Listed;

fn world(s: Storage) -> World {
    let mut world = World::new();
    world.set_storage::<S>(s).unwrap();
    world
}

type Log = Arc<Mutex<Vec<String>>>;

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

/// A schedule with one system of query `Q` whose enter and exit callbacks log
/// "enter <name>" and "exit <name>", naming entities by their position in `names`.
fn watching<Q: ripple::query::QueryData + 'static, F: ripple::query::QueryFilter + 'static>(
    world: &mut World,
    names: &Arc<Mutex<Vec<Entity>>>,
) -> (Schedule, Log)
where
    ripple::query::QueryState<Q, F>: Send,
{
    let log = Log::default();
    let (enter, exit) = (log.clone(), log.clone());
    let (enter_names, exit_names) = (names.clone(), names.clone());
    let name = |names: &Arc<Mutex<Vec<Entity>>>, e: Entity| {
        names.lock().unwrap().iter().position(|&n| n == e).map_or("?".to_string(), |i| i.to_string())
    };
    let mut schedule = Schedule::new();
    schedule
        .add_system(
            world,
            (|_: Query<'_, '_, Q, F>| {})
                .on_entity_enter(move |_, e| enter.lock().unwrap().push(format!("enter {}", name(&enter_names, e))))
                .on_entity_exit(move |_, e| exit.lock().unwrap().push(format!("exit {}", name(&exit_names, e)))),
        )
        .unwrap();
    (schedule, log)
}

#[test]
fn gaining_and_losing_a_required_component_enters_and_exits_whatever_its_storage() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = world(storage);
        let names = Arc::default();
        let (mut schedule, log) = watching::<&Pos, With<S>>(&mut world, &names);
        let e = world.spawn((Pos,));
        let f = world.spawn((Pos, S));
        *names.lock().unwrap() = vec![e, f];
        schedule.run(&mut world);
        assert_eq!(take(&log), ["enter 1"], "{storage:?}: spawned with S");
        world.insert_one(e, S).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), ["enter 0"], "{storage:?}: gained S");
        world.remove_one::<S>(e).unwrap();
        world.despawn(f).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), ["exit 0", "exit 1"], "{storage:?}: lost S, despawned with S");
        world.insert_one(e, S).unwrap();
        world.remove_one::<S>(e).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), ["enter 0", "exit 0"], "{storage:?}: two operations, two changes");
        world.insert_one(e, S).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), ["enter 0"], "{storage:?}");
        world.clear();
        schedule.run(&mut world);
        assert_eq!(take(&log), ["exit 0"], "{storage:?}: cleared");
    }
}

#[test]
fn an_excluded_component_exits_and_enters_whatever_its_storage() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = world(storage);
        let names = Arc::default();
        let (mut schedule, log) = watching::<Entity, (With<Pos>, Without<S>)>(&mut world, &names);
        let e = world.spawn((Pos,));
        let f = world.spawn((Pos, S));
        *names.lock().unwrap() = vec![e, f];
        schedule.run(&mut world);
        assert_eq!(take(&log), ["enter 0"], "{storage:?}");
        world.insert_one(e, S).unwrap();
        world.remove_one::<S>(f).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), ["exit 0", "enter 1"], "{storage:?}");
        world.despawn(e).unwrap(); // not matching: no exit
        world.despawn(f).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), ["exit 1"], "{storage:?}");
    }
}

#[test]
fn one_operation_changing_table_and_sparse_components_is_one_change() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = world(storage);
        let names = Arc::default();
        let (mut schedule, log) = watching::<Entity, (With<A>, Without<S>)>(&mut world, &names);
        let e = world.spawn((Pos,));
        let f = world.spawn((Pos, A));
        *names.lock().unwrap() = vec![e, f];
        schedule.run(&mut world);
        assert_eq!(take(&log), ["enter 1"], "{storage:?}");
        // Never matches: it gains A and S at once.
        world.insert(e, (A, S)).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), Vec::<String>::new(), "{storage:?}: inserted together");
        world.remove::<(A, S)>(e).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), Vec::<String>::new(), "{storage:?}: removed together");
        // f matches; losing A and gaining S in one despawn-free pair of operations
        // exits once.
        world.insert_one(f, S).unwrap();
        world.remove_one::<A>(f).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), ["exit 1"], "{storage:?}");
        // Despawned with A and S: it did not match, so no exit.
        world.insert_one(f, A).unwrap();
        world.despawn(f).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), Vec::<String>::new(), "{storage:?}: despawned while excluded");
    }
}

#[test]
fn the_sparse_view_enters_and_exits_too() {
    let mut world = world(Storage::SparseSet);
    let names = Arc::default();
    let (mut schedule, log) = watching::<&Pos, With<S>>(&mut world, &names);
    let entities: Vec<Entity> = (0..4).map(|_| world.spawn((Pos,))).collect();
    *names.lock().unwrap() = entities.clone();
    schedule.run(&mut world);
    let mut view = world.sparse_mut::<S>().unwrap();
    view.insert(entities[2], S).unwrap();
    view.insert(entities[0], S).unwrap();
    view.remove(entities[2]).unwrap();
    schedule.run(&mut world);
    assert_eq!(take(&log), ["enter 2", "enter 0", "exit 2"]);
}

#[test]
fn a_dirty_run_does_not_count_a_state_inside_one_operation() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = world(storage);
        let e = world.spawn((Pos,));
        let f = world.spawn((Pos, A));
        let mut query = world.query_filtered::<Entity, (ripple::query::Or<(Without<A>, With<S>)>, Dirty<(Listed,)>)>();
        assert_eq!(query.iter(&world).collect::<Vec<_>>(), [e]);
        // e matches throughout: without A before, with S after (had A been added
        // alone, it would have stopped matching).
        world.insert(e, (A, S)).unwrap();
        world.insert_one(f, S).unwrap(); // starts matching
        assert_eq!(query.iter(&world).collect::<Vec<_>>(), [f], "{storage:?}");
    }
}

#[test]
fn a_dirty_run_keeps_an_operation_together_when_it_also_changes_a_component_the_query_ignores() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = world(storage);
        world.set_storage::<A>(Storage::SparseSet).unwrap();
        let e = world.spawn((Pos, S));
        let mut query = world.query_filtered::<Entity, (With<S>, Dirty<(Listed,)>)>();
        assert_eq!(query.iter(&world).collect::<Vec<_>>(), [e]);
        world.remove_one::<S>(e).unwrap();
        // A (which the query ignores) and S come back in one operation: e left and
        // came back, so it started matching again.
        world.insert(e, (A, S)).unwrap();
        assert_eq!(query.iter(&world).collect::<Vec<_>>(), [e], "{storage:?}");
    }
}

#[test]
fn on_remove_hooks_run_in_one_order_for_despawn_and_clear() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let orders: Vec<Vec<String>> = [false, true]
            .into_iter()
            .map(|clear| {
                let mut world = world(storage);
                let log = Log::default();
                let (a, s) = (log.clone(), log.clone());
                world.on_remove::<A>(move |ctx| a.lock().unwrap().push(format!("A {}", ctx.entity)));
                world.on_remove::<S>(move |ctx| s.lock().unwrap().push(format!("S {}", ctx.entity)));
                let entities = [world.spawn((Pos, A, S)), world.spawn((Pos, A, S))];
                if clear {
                    world.clear();
                } else {
                    for e in entities {
                        world.despawn(e).unwrap();
                    }
                }
                take(&log)
            })
            .collect();
        assert_eq!(orders[0].len(), 4, "{storage:?}: {orders:?}");
        assert_eq!(orders[0], orders[1], "{storage:?}: despawn, then clear");
        if storage == Storage::SparseSet {
            // Entity by entity, the sparse component's hook first.
            assert_eq!(orders[1], ["S 0v1", "A 0v1", "S 1v1", "A 1v1"]);
        }
    }
}

#[test]
fn callbacks_are_decided_before_any_of_them_changes_the_world() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = world(storage);
        let log = Log::default();
        let (enter, exit) = (log.clone(), log.clone());
        let first = std::sync::atomic::AtomicBool::new(true);
        let mut schedule = Schedule::new();
        schedule
            .add_system(
                &mut world,
                (|_: Query<'_, '_, &Pos, With<S>>| {})
                    .on_entity_enter(move |world, e| {
                        enter.lock().unwrap().push(format!("enter {e}"));
                        // The first to enter takes S from every other entity.
                        if !first.swap(false, std::sync::atomic::Ordering::Relaxed) {
                            return;
                        }
                        let others: Vec<Entity> = world.query::<Entity>().iter(world).filter(|&o| o != e).collect();
                        for other in others {
                            let _ = world.remove_one::<S>(other);
                        }
                    })
                    .on_entity_exit(move |_, e| exit.lock().unwrap().push(format!("exit {e}"))),
            )
            .unwrap();
        let e = world.spawn((Pos,));
        let f = world.spawn((Pos,));
        schedule.run(&mut world);
        world.insert_one(e, S).unwrap();
        world.insert_one(f, S).unwrap();
        schedule.run(&mut world);
        // f gained S before the sync point: it entered, though e's callback took S
        // from it before f's callback ran; its exit comes at the next sync point.
        assert_eq!(take(&log), [format!("enter {e}"), format!("enter {f}")], "{storage:?}");
        schedule.run(&mut world);
        assert_eq!(take(&log), [format!("exit {f}")], "{storage:?}");
    }
}

#[test]
fn commands_and_a_hooked_sparse_view_enter_and_exit_too() {
    #[derive(Debug)]
    struct Give(Entity);
    let mut world = world(Storage::SparseSet);
    let hooked = Log::default();
    let seen = hooked.clone();
    world.on_add::<S>(move |ctx| seen.lock().unwrap().push(format!("hook {}", ctx.entity)));
    let names = Arc::default();
    let (mut schedule, log) = watching::<&Pos, With<S>>(&mut world, &names);
    schedule
        .add_system(&mut world, |give: Option<Res<'_, Give>>, mut commands: Commands<'_, '_>| {
            if let Some(give) = give {
                commands.entity(give.0).insert_one(S);
            }
        })
        .unwrap();
    let e = world.spawn((Pos,));
    let f = world.spawn((Pos,));
    *names.lock().unwrap() = vec![e, f];
    world.insert_resource(Give(e));
    schedule.run(&mut world);
    schedule.run(&mut world); // the command applied at the first run's sync point
    assert_eq!(take(&log), ["enter 0"], "through Commands");
    world.remove_resource::<Give>().unwrap();
    // The view goes through the world when the component has hooks.
    world.sparse_mut::<S>().unwrap().insert(f, S).unwrap();
    world.sparse_mut::<S>().unwrap().remove(e).unwrap();
    schedule.run(&mut world);
    assert_eq!(take(&log), ["enter 1", "exit 0"], "through a hooked view");
    assert_eq!(take(&hooked), [format!("hook {e}"), format!("hook {f}")]);
}

mod model {
    //! Random operations on entities with a table or sparse `A` and `S`; after each,
    //! the model notes which entities started or stopped matching each watched query
    //! (judged from the world before and after the operation); at each schedule run the
    //! callbacks must have reported exactly those, in order.

    use super::*;
    use proptest::prelude::*;

    #[derive(Clone, Debug)]
    enum Op {
        Spawn { a: bool, s: bool },
        InsertA(usize),
        InsertS(usize),
        InsertBoth(usize),
        RemoveA(usize),
        RemoveS(usize),
        RemoveBoth(usize),
        Despawn(usize),
        Run,
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            3 => (any::<bool>(), any::<bool>()).prop_map(|(a, s)| Op::Spawn { a, s }),
            2 => any::<usize>().prop_map(Op::InsertA),
            2 => any::<usize>().prop_map(Op::InsertS),
            2 => any::<usize>().prop_map(Op::InsertBoth),
            2 => any::<usize>().prop_map(Op::RemoveA),
            2 => any::<usize>().prop_map(Op::RemoveS),
            2 => any::<usize>().prop_map(Op::RemoveBoth),
            1 => any::<usize>().prop_map(Op::Despawn),
            2 => Just(Op::Run),
            1 => Just(Op::Clear),
        ]
    }

    fn storage() -> impl Strategy<Value = Storage> {
        prop_oneof![Just(Storage::Table), Just(Storage::SparseSet)]
    }

    /// The watched queries' structural conditions, on what an entity has.
    const QUERIES: [fn(bool, bool) -> bool; 3] = [
        |a, s| a && !s, // (With<A>, Without<S>)
        |a, s| !a || s, // Or<(Without<A>, With<S>)>
        |_, s| s,       // &S
    ];

    fn has(world: &World, e: Entity) -> Option<(bool, bool)> {
        world.contains(e).then(|| (world.get::<A>(e).is_ok(), world.get::<S>(e).is_ok()))
    }

    type WithoutAOrWithS = ripple::query::Or<(Without<A>, With<S>)>;

    fn add_watch(schedule: &mut Schedule, world: &mut World, log: &Arc<Mutex<Vec<(bool, Entity)>>>, query: usize) {
        let (enter, exit) = (log.clone(), log.clone());
        let enter = move |_: &mut World, e| enter.lock().unwrap().push((true, e));
        let exit = move |_: &mut World, e| exit.lock().unwrap().push((false, e));
        match query {
            0 => schedule.add_system(
                world,
                (|_: Query<'_, '_, Entity, (With<A>, Without<S>)>| {}).on_entity_enter(enter).on_entity_exit(exit),
            ),
            1 => schedule.add_system(
                world,
                (|_: Query<'_, '_, Entity, WithoutAOrWithS>| {}).on_entity_enter(enter).on_entity_exit(exit),
            ),
            _ => schedule
                .add_system(world, (|_: Query<'_, '_, &S, With<Pos>>| {}).on_entity_enter(enter).on_entity_exit(exit)),
        }
        .unwrap();
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        #[test]
        fn callbacks_report_every_change_of_match_exactly_once(
            a_storage in storage(),
            s_storage in storage(),
            ops in proptest::collection::vec(op(), 1..80),
        ) {
            let mut world = World::new();
            world.set_storage::<A>(a_storage).unwrap();
            world.set_storage::<S>(s_storage).unwrap();
            let logs: Vec<_> = (0..QUERIES.len()).map(|_| Arc::new(Mutex::new(Vec::new()))).collect();
            let mut schedules: Vec<Schedule> = (0..QUERIES.len())
                .map(|query| {
                    let mut schedule = Schedule::new();
                    add_watch(&mut schedule, &mut world, &logs[query], query);
                    schedule
                })
                .collect();
            let mut expected: Vec<Vec<(bool, Entity)>> = vec![Vec::new(); QUERIES.len()];
            let mut entities: Vec<Entity> = Vec::new();
            for op in ops {
                let pick = |i: usize| (!entities.is_empty()).then(|| entities[i % entities.len()]);
                let touched: Vec<Entity> = match &op {
                    Op::Spawn { .. } | Op::Run => Vec::new(),
                    Op::Clear => entities.clone(),
                    Op::InsertA(i) | Op::InsertS(i) | Op::InsertBoth(i) | Op::RemoveA(i) | Op::RemoveS(i)
                    | Op::RemoveBoth(i) | Op::Despawn(i) => pick(*i).into_iter().collect(),
                };
                let needs_one = !matches!(op, Op::Spawn { .. } | Op::Run | Op::Clear);
                if needs_one && touched.is_empty() {
                    continue;
                }
                let before: Vec<_> = touched.iter().map(|&e| has(&world, e)).collect();
                let mut spawned = None;
                match op {
                    Op::Spawn { a, s } => {
                        let e = match (a, s) {
                            (false, false) => world.spawn((Pos,)),
                            (true, false) => world.spawn((Pos, A)),
                            (false, true) => world.spawn((Pos, S)),
                            (true, true) => world.spawn((Pos, A, S)),
                        };
                        entities.push(e);
                        spawned = Some(e);
                    }
                    Op::InsertA(_) => { let _ = world.insert_one(touched[0], A); }
                    Op::InsertS(_) => { let _ = world.insert_one(touched[0], S); }
                    Op::InsertBoth(_) => { let _ = world.insert(touched[0], (A, S)); }
                    Op::RemoveA(_) => { let _ = world.remove_one::<A>(touched[0]); }
                    Op::RemoveS(_) => { let _ = world.remove_one::<S>(touched[0]); }
                    Op::RemoveBoth(_) => { let _ = world.remove::<(A, S)>(touched[0]); }
                    Op::Despawn(_) => { let _ = world.despawn(touched[0]); }
                    Op::Clear => {
                        // A clear goes table by table: its exits are compared as a set,
                        // after what came before it.
                        for (query, schedule) in schedules.iter_mut().enumerate() {
                            schedule.run(&mut world);
                            let got = std::mem::take(&mut *logs[query].lock().unwrap());
                            prop_assert_eq!(&got, &expected[query], "query {} before the clear", query);
                            expected[query].clear();
                        }
                        let before: Vec<_> = entities.iter().map(|&e| (e, has(&world, e))).collect();
                        world.clear();
                        for (query, schedule) in schedules.iter_mut().enumerate() {
                            schedule.run(&mut world);
                            let mut got = std::mem::take(&mut *logs[query].lock().unwrap());
                            got.sort();
                            let mut exits: Vec<(bool, Entity)> = before
                                .iter()
                                .filter(|(_, had)| had.is_some_and(|(a, s)| QUERIES[query](a, s)))
                                .map(|&(e, _)| (false, e))
                                .collect();
                            exits.sort();
                            prop_assert_eq!(got, exits, "query {} at the clear", query);
                        }
                        continue;
                    }
                    Op::Run => {
                        for (query, schedule) in schedules.iter_mut().enumerate() {
                            schedule.run(&mut world);
                            let got = std::mem::take(&mut *logs[query].lock().unwrap());
                            prop_assert_eq!(&got, &expected[query], "query {}", query);
                            expected[query].clear();
                        }
                    }
                }
                let changes = touched.iter().zip(before).map(|(&e, before)| (e, before, has(&world, e)));
                let spawn = spawned.map(|e| (e, None, has(&world, e)));
                for (e, before, after) in changes.chain(spawn) {
                    for (query, matches) in QUERIES.iter().enumerate() {
                        let was = before.is_some_and(|(a, s)| matches(a, s));
                        let is = after.is_some_and(|(a, s)| matches(a, s));
                        if was != is {
                            expected[query].push((is, e));
                        }
                    }
                }
            }
        }
    }
}

/// A component whose `Drop` panics when its value is 0.
#[derive(Debug)]
struct Fragile(u8);

impl Drop for Fragile {
    fn drop(&mut self) {
        if self.0 == 0 && !std::thread::panicking() {
            panic!("Fragile(0) dropped");
        }
    }
}

#[test]
fn a_panicking_drop_of_a_replaced_value_loses_no_record_of_the_sparse_components_added() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = world(storage);
        let names = Arc::default();
        let (mut schedule, log) = watching::<&Pos, With<S>>(&mut world, &names);
        let e = world.spawn((Pos, Fragile(0)));
        *names.lock().unwrap() = vec![e];
        schedule.run(&mut world);
        let replaced = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.insert(e, (Fragile(1), S))));
        assert!(replaced.is_err(), "the old value's Drop panicked");
        assert!(world.get::<S>(e).is_ok() && world.get::<Fragile>(e).unwrap().0 == 1, "{storage:?}: written");
        schedule.run(&mut world);
        assert_eq!(take(&log), ["enter 0"], "{storage:?}");
        world.remove_one::<S>(e).unwrap();
        schedule.run(&mut world);
        assert_eq!(take(&log), ["exit 0"], "{storage:?}");
    }
}

#[test]
fn a_panicking_drop_during_clear_still_clears_everything_it_logged() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = world(storage);
        world.set_storage::<Fragile>(storage).unwrap();
        let names = Arc::default();
        let (mut schedule, log) = watching::<&Pos, With<S>>(&mut world, &names);
        let entities = vec![world.spawn((Pos, S, Fragile(0))), world.spawn((Pos, S)), world.spawn((Pos,))];
        *names.lock().unwrap() = entities.clone();
        schedule.run(&mut world);
        assert_eq!(take(&log), ["enter 0", "enter 1"]);
        let cleared = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.clear()));
        assert!(cleared.is_err(), "Fragile(0)'s Drop panicked");
        assert_eq!(world.len(), 0, "{storage:?}: every entity went");
        assert!(entities.iter().all(|&e| !world.contains(e)), "{storage:?}");
        schedule.run(&mut world);
        let mut exits = take(&log);
        exits.sort();
        assert_eq!(exits, ["exit 0", "exit 1"], "{storage:?}");
        let again = world.spawn((Pos, S));
        *names.lock().unwrap() = vec![again];
        schedule.run(&mut world);
        assert_eq!(take(&log), ["enter 0"], "{storage:?}: the world works on");
    }
}
