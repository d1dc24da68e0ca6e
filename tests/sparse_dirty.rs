//! `Dirty` runs whose match a sparse component decides: an entity is reported when a
//! listed component changed or when it started matching since the observer's last run,
//! whichever storage the deciding components have (an `Or` with a sparse alternative
//! matches every table, so only the entity's own moves can tell).

use ripple::Storage;
use ripple::prelude::*;
use ripple::query::Or;

#[derive(Debug)]
struct Pos;
#[derive(Debug)]
struct S;
#[derive(Debug)]
struct T;
#[derive(Debug)]
struct Listed;

/// The same script under each storage of `S` (and of `T`, where it matters).
fn storages() -> impl Iterator<Item = (Storage, Storage)> {
    [Storage::Table, Storage::SparseSet].into_iter().flat_map(|s| [Storage::Table, Storage::SparseSet].map(|t| (s, t)))
}

fn world(s: Storage, t: Storage) -> World {
    let mut world = World::new();
    world.set_storage::<S>(s).unwrap();
    world.set_storage::<T>(t).unwrap();
    world
}

fn sorted(mut entities: Vec<Entity>) -> Vec<Entity> {
    entities.sort();
    entities
}

#[test]
fn an_or_with_a_sparse_alternative_reports_who_started_matching_and_no_one_else() {
    for (s, t) in storages() {
        let mut world = world(s, t);
        let e = world.spawn((Pos,));
        let f = world.spawn((Pos, T));
        let mut query = world.query_filtered::<Entity, (Or<(With<S>, With<T>)>, Dirty<(Listed,)>)>();
        assert_eq!(query.iter(&world).collect::<Vec<_>>(), [f], "{s:?}/{t:?}: first run");
        world.insert(e, (T,)).unwrap(); // e starts matching
        world.insert(f, (S,)).unwrap(); // f matched already; nothing listed changed
        assert_eq!(query.iter(&world).collect::<Vec<_>>(), [e], "{s:?}/{t:?}");
        assert!(query.iter(&world).next().is_none(), "{s:?}/{t:?}: nothing since");
    }
}

#[test]
fn leaving_and_coming_back_between_runs_counts_as_starting_to_match() {
    for (s, t) in storages() {
        let mut world = world(s, t);
        let stays = world.spawn((Pos, S));
        let flickers = world.spawn((Pos, S));
        let leaves = world.spawn((Pos, S));
        let mut query = world.query_filtered::<Entity, (With<S>, Without<T>, Dirty<(Listed,)>)>();
        assert_eq!(sorted(query.iter(&world).collect()), sorted(vec![stays, flickers, leaves]));
        world.remove::<(S,)>(flickers).unwrap();
        world.insert(flickers, (S,)).unwrap();
        world.insert(leaves, (T,)).unwrap();
        // A table move that changes neither S nor T nor anything listed.
        world.insert(stays, (Listed,)).unwrap();
        world.remove::<(Listed,)>(stays).unwrap();
        assert_eq!(sorted(query.iter(&world).collect()), sorted(vec![stays, flickers]), "{s:?}/{t:?}");
        world.remove::<(T,)>(leaves).unwrap();
        assert_eq!(query.iter(&world).collect::<Vec<_>>(), [leaves], "{s:?}/{t:?}: back");
    }
}

#[test]
fn spawns_and_sparse_toggles_of_non_deciding_entities_are_not_reported() {
    for (s, t) in storages() {
        let mut world = world(s, t);
        let mut query = world.query_filtered::<Entity, (With<S>, Dirty<(Listed,)>)>();
        assert!(query.iter(&world).next().is_none());
        let plain = world.spawn((Pos,));
        let marked = world.spawn((Pos, S));
        world.insert(plain, (T,)).unwrap();
        assert_eq!(query.iter(&world).collect::<Vec<_>>(), [marked], "{s:?}/{t:?}");
        world.insert(marked, (T,)).unwrap();
        world.remove::<(T,)>(plain).unwrap();
        assert!(query.iter(&world).next().is_none(), "{s:?}/{t:?}: no one started matching");
        world.insert(marked, (Listed,)).unwrap();
        assert_eq!(query.iter(&world).collect::<Vec<_>>(), [marked], "{s:?}/{t:?}: listed added");
    }
}
