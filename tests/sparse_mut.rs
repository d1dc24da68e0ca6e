//! `World::sparse_mut`: a view that adds and removes one sparse component type must do
//! exactly what `World::insert` and `World::remove` do — values, hooks, change filters,
//! `Dirty` observers and removal streams — and refuse bad input without changing
//! anything.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};

use proptest::prelude::*;
use ripple::prelude::*;
use ripple::query::QueryState;
use ripple::{ComponentError, MissingComponent, NoSuchEntity, NotSparse, RemovedReader, Storage};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Pos(i32);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Mark(u8);
#[derive(Debug)]
struct Bomb(bool);

impl Drop for Bomb {
    fn drop(&mut self) {
        if self.0 && !std::thread::panicking() {
            panic!("bomb went off");
        }
    }
}

fn world_with_marks(n: i32) -> (World, Vec<Entity>) {
    let mut world = World::new();
    world.set_storage::<Mark>(Storage::SparseSet).unwrap();
    let entities = (0..n).map(|i| world.spawn((Pos(i),))).collect();
    (world, entities)
}

#[test]
fn a_table_or_unknown_type_has_no_view() {
    let (mut world, _) = world_with_marks(1);
    let error = NotSparse { component: std::any::type_name::<Pos>() };
    assert_eq!(world.sparse_mut::<Pos>().err(), Some(error));
    assert!(error.to_string().contains("Storage::SparseSet"), "{error}");
    struct Unseen;
    assert!(world.sparse_mut::<Unseen>().is_err(), "a type never seen is stored in tables");
}

#[test]
fn bad_entities_are_refused_and_change_nothing() {
    let (mut world, entities) = world_with_marks(3);
    world.insert(entities[1], (Mark(1),)).unwrap();
    world.despawn(entities[0]).unwrap();
    let reused = world.spawn((Pos(9),)); // entities[0]'s slot, a new generation
    let mut marks = world.sparse_mut::<Mark>().unwrap();
    assert_eq!(marks.insert(entities[0], Mark(7)), Err(NoSuchEntity(entities[0])));
    assert_eq!(marks.remove(entities[0]), Err(ComponentError::NoSuchEntity(NoSuchEntity(entities[0]))));
    let missing = MissingComponent { entity: entities[2], component: std::any::type_name::<Mark>() };
    assert_eq!(marks.remove(entities[2]), Err(missing.into()));
    assert!(!marks.contains(entities[0]) && !marks.contains(reused) && marks.contains(entities[1]));
    assert_eq!((marks.len(), marks.get(entities[1])), (1, Some(&Mark(1))));
    assert_eq!(world.get::<Mark>(reused).ok(), None);
}

#[test]
fn replacing_keeps_one_value_and_returns_removed_ones() {
    let (mut world, entities) = world_with_marks(2);
    let mut marks = world.sparse_mut::<Mark>().unwrap();
    marks.insert(entities[0], Mark(1)).unwrap();
    marks.insert(entities[0], Mark(2)).unwrap();
    marks.insert(entities[1], Mark(3)).unwrap();
    assert_eq!(marks.len(), 2);
    assert_eq!(marks.remove(entities[0]), Ok(Mark(2)));
    assert_eq!(marks.get(entities[1]), Some(&Mark(3)), "the moved value keeps its entity");
    assert_eq!(world.get::<Mark>(entities[1]), Ok(&Mark(3)));
    assert!(world.get::<Mark>(entities[0]).is_err());
}

#[test]
fn hooks_run_for_view_calls() {
    let (mut world, entities) = world_with_marks(2);
    let log = Arc::new(Mutex::new(Vec::new()));
    for (kind, name) in [(0, "add"), (1, "insert"), (2, "remove")] {
        let log = log.clone();
        let hook = move |ctx: &mut HookContext<'_>| log.lock().unwrap().push((name, ctx.entity));
        match kind {
            0 => world.on_add::<Mark>(hook),
            1 => world.on_insert::<Mark>(hook),
            _ => world.on_remove::<Mark>(hook),
        }
    }
    let mut marks = world.sparse_mut::<Mark>().unwrap();
    marks.insert(entities[0], Mark(1)).unwrap();
    marks.insert(entities[0], Mark(2)).unwrap();
    assert_eq!(marks.remove(entities[0]), Ok(Mark(2)));
    assert_eq!(marks.len(), 0);
    let e = entities[0];
    assert_eq!(*log.lock().unwrap(), [("add", e), ("insert", e), ("insert", e), ("remove", e)]);
}

#[test]
fn a_panicking_drop_of_a_replaced_value_leaves_the_new_one() {
    let mut world = World::new();
    world.set_storage::<Bomb>(Storage::SparseSet).unwrap();
    let e = world.spawn((Pos(0),));
    let mut bombs = world.sparse_mut::<Bomb>().unwrap();
    bombs.insert(e, Bomb(true)).unwrap();
    let blast = catch_unwind(AssertUnwindSafe(|| bombs.insert(e, Bomb(false))));
    assert!(blast.is_err());
    assert_eq!(bombs.len(), 1);
    assert!(matches!(bombs.get(e), Some(Bomb(false))));
    world.despawn(e).unwrap();
}

/// What every observer of `Mark` in one world has seen.
struct Observers {
    added: QueryState<Entity, Added<Mark>>,
    changed: QueryState<Entity, Changed<Mark>>,
    dirty: QueryState<Entity, Dirty<(Mark,)>>,
    /// Dirty over another component: gaining or losing `Mark` decides whether an entity
    /// matches, so it makes the entity dirty here too.
    dirty_pos: QueryState<Entity, (With<Mark>, Dirty<(Pos,)>)>,
    removed: RemovedReader<Mark>,
}

impl Observers {
    fn new(world: &mut World) -> Self {
        Observers {
            added: world.query_filtered(),
            changed: world.query_filtered(),
            dirty: world.query_filtered(),
            dirty_pos: world.query_filtered(),
            removed: world.removal_reader(),
        }
    }

    /// Added, Changed and both Dirty (sorted), then the removals in stream order.
    fn read(&mut self, world: &World) -> ([Vec<u64>; 4], Vec<(u64, bool)>) {
        let bits = |mut v: Vec<Entity>| {
            let mut v: Vec<u64> = v.drain(..).map(Entity::to_bits).collect();
            v.sort_unstable();
            v
        };
        let now = world.change_tick();
        let removed = self.removed.read(world).map(|(e, at)| (e.to_bits(), at == now)).collect();
        let seen = [
            bits(self.added.iter(world).collect()),
            bits(self.changed.iter(world).collect()),
            bits(self.dirty.iter(world).collect()),
            bits(self.dirty_pos.iter(world).collect()),
        ];
        (seen, removed)
    }
}

#[derive(Clone, Debug)]
enum Op {
    Insert(usize, u8),
    Remove(usize),
    Despawn(usize),
    Spawn,
    Observe,
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        4 => (0..24usize, any::<u8>()).prop_map(|(i, v)| Op::Insert(i, v)),
        3 => (0..24usize).prop_map(Op::Remove),
        1 => (0..24usize).prop_map(Op::Despawn),
        1 => Just(Op::Spawn),
        1 => Just(Op::Observe),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// One world changes `Mark` through the view, the other through `World::insert`
    /// and `World::remove`; results, values and every observer agree after each step.
    #[test]
    fn the_view_does_what_insert_and_remove_do(ops in prop::collection::vec(op(), 1..80), tracked in any::<bool>()) {
        let (mut by_view, mut entities) = world_with_marks(16);
        let (mut by_world, _) = world_with_marks(16);
        if tracked {
            by_view.track::<Mark>();
            by_world.track::<Mark>();
        }
        let mut seen_by_view = Observers::new(&mut by_view);
        let mut seen_by_world = Observers::new(&mut by_world);
        for op in ops {
            match op {
                Op::Insert(i, v) => {
                    let e = entities[i % entities.len()];
                    let via_view = by_view.sparse_mut::<Mark>().unwrap().insert(e, Mark(v));
                    prop_assert_eq!(via_view, by_world.insert(e, (Mark(v),)));
                }
                Op::Remove(i) => {
                    let e = entities[i % entities.len()];
                    let via_view = by_view.sparse_mut::<Mark>().unwrap().remove(e);
                    prop_assert_eq!(via_view, by_world.remove::<(Mark,)>(e).map(|(m,)| m));
                }
                Op::Despawn(i) => {
                    let e = entities[i % entities.len()];
                    prop_assert_eq!(by_view.despawn(e), by_world.despawn(e));
                }
                Op::Spawn => {
                    let e = by_view.spawn((Pos(0),));
                    prop_assert_eq!(e, by_world.spawn((Pos(0),)));
                    entities.push(e);
                }
                Op::Observe => {
                    prop_assert_eq!(seen_by_view.read(&by_view), seen_by_world.read(&by_world));
                }
            }
            let marks = |world: &mut World| {
                let mut all: Vec<(u64, u8)> =
                    world.query::<(Entity, &Mark)>().iter(world).map(|(e, m)| (e.to_bits(), m.0)).collect();
                all.sort_unstable();
                all
            };
            prop_assert_eq!(marks(&mut by_view), marks(&mut by_world));
        }
        prop_assert_eq!(seen_by_view.read(&by_view), seen_by_world.read(&by_world));
    }
}
