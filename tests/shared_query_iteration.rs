//! A read-only system query iterates through `&self`, as in bevy_ecs: `query.iter()`
//! on a query not declared `mut`, `for x in &query`, and iterations nested inside
//! each other. A nested iteration reuses the rows the outer one gathered, so every
//! filter (change filters, `Dirty`, sparse components) gives the same items in both,
//! and steady runs allocate nothing.

#![allow(elided_lifetimes_in_paths, reason = "system signatures read as a bevy user writes them")]

use ripple::Storage;
use ripple::prelude::*;
use ripple::schedule::PRE_UPDATE;

#[derive(Debug, PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
struct Pos(u32);
struct Tag;
#[derive(Default)]
struct Seen(Vec<(usize, usize)>);
struct Moving(bool);

fn mover(moving: Res<Moving>, mut positions: Query<&mut Pos>) {
    if moving.0 {
        positions.for_each_mut(|mut pos| {
            if pos.0 % 2 == 0 {
                pos.0 += 2;
            }
        });
    }
}

fn world(entities: u32, sparse_tag: bool) -> World {
    let mut world = World::new();
    if sparse_tag {
        world.set_storage::<Tag>(Storage::SparseSet).unwrap();
    }
    world.insert_resource(Moving(true));
    world.init_resource::<Seen>();
    for i in 0..entities {
        let e = world.spawn((Pos(i),));
        if i % 3 == 0 {
            world.insert_one(e, Tag).unwrap();
        }
    }
    world
}

fn run<M>(world: &mut World, reader: impl IntoSystemConfig<M>, frames: usize) -> Vec<(usize, usize)> {
    let mut schedule = Schedule::new();
    schedule.add_system(world, mover.in_phase(PRE_UPDATE)).unwrap();
    schedule.add_system(world, reader).unwrap();
    for frame in 0..frames {
        world.insert_resource(Moving(frame != 1));
        schedule.run(world);
    }
    std::mem::take(&mut world.resource_mut::<Seen>().unwrap().0)
}

#[test]
fn a_plain_query_iterates_through_a_shared_reference_and_nests() {
    fn pairs(query: Query<&Pos>, mut seen: ResMut<Seen>) {
        let outer = query.iter().count();
        let mut nested = 0;
        for a in &query {
            for b in &query {
                nested += usize::from(a < b);
            }
        }
        seen.0.push((outer, nested));
    }
    let mut w = world(6, false);
    // 6 entities: 15 ordered pairs, every frame.
    assert_eq!(run(&mut w, pairs, 3), [(6, 15), (6, 15), (6, 15)]);
}

#[test]
fn a_changed_query_nested_in_itself_sees_the_same_rows_inside_and_out() {
    fn changed(query: Query<&Pos, Changed<Pos>>, mut seen: ResMut<Seen>) {
        let mut outer = 0;
        let mut inner = 0;
        for _ in query.iter() {
            outer += 1;
            inner += query.iter().count();
        }
        seen.0.push((outer, inner));
    }
    let mut w = world(10, false);
    // Frame 0: all 10 are new; frame 1: nothing moves; frame 2: the 5 even ones move.
    assert_eq!(run(&mut w, changed, 3), [(10, 100), (0, 0), (5, 25)]);
}

#[test]
fn a_sparse_query_nested_in_itself_sees_the_same_rows() {
    fn tagged(query: Query<&Pos, With<Tag>>, mut seen: ResMut<Seen>) {
        let mut outer = 0;
        let mut inner = 0;
        for _ in &query {
            outer += 1;
            inner += (&query).into_iter().count();
        }
        seen.0.push((outer, inner));
    }
    let mut w = world(10, true);
    // Tagged: 0, 3, 6, 9.
    assert_eq!(run(&mut w, tagged, 2), [(4, 16), (4, 16)]);
}

#[test]
fn a_dirty_query_nested_in_itself_sees_the_same_rows() {
    fn dirty(query: Query<&Pos, Dirty<(Pos,)>>, mut seen: ResMut<Seen>) {
        let outer: Vec<_> = query.iter().copied().collect();
        let mut inner = 0;
        for _ in &query {
            inner += query.iter().count();
        }
        seen.0.push((outer.len(), inner));
    }
    let mut w = world(10, false);
    assert_eq!(run(&mut w, dirty, 3), [(10, 100), (0, 0), (5, 25)]);
}

#[test]
fn iteration_through_mut_and_through_shared_agree_run_after_run() {
    fn both(query: Query<Entity, Changed<Pos>>, mut seen: ResMut<Seen>) {
        let shared = query.iter().count();
        let mut query = query;
        let exclusive = query.iter_mut().count();
        seen.0.push((shared, exclusive));
    }
    let mut w = world(10, false);
    assert_eq!(run(&mut w, both, 3), [(10, 10), (0, 0), (5, 5)]);
}

#[test]
fn a_forgotten_iterator_does_not_let_a_later_one_reuse_stale_rows() {
    // Sparse filters decided per table: an iterator's rows are cut to the entities
    // with `Tag` and without `Muted` when it begins; a `for_each` run gathers the
    // tagged ones uncut and tests `Muted` per row. An iterator forgotten (its count
    // never given back), then a `for_each`, then an iterator: the last must gather
    // again, not reuse the `for_each`'s rows (it would yield the muted one).
    struct Muted;
    fn forgetful(mut query: Query<&Pos, (With<Tag>, Without<Muted>)>, mut seen: ResMut<Seen>) {
        std::mem::forget(query.iter());
        let mut serial = 0;
        query.for_each(|_| serial += 1);
        let shared = query.iter().count();
        seen.0.push((serial, shared));
    }
    let mut w = world(10, true);
    w.set_storage::<Muted>(Storage::SparseSet).unwrap();
    // Tagged: 0, 3, 6, 9; the one at 3 is muted.
    let muted = w.query::<(Entity, &Pos)>().iter(&w).find(|(_, p)| p.0 == 3).unwrap().0;
    w.insert_one(muted, Muted).unwrap();
    assert_eq!(run(&mut w, forgetful, 3), [(3, 3), (3, 3), (3, 3)]);
}

#[test]
fn a_query_is_shared_by_threads_of_another_query_parallel_run() {
    // bevy_ecs: another query's `get` and `iter` inside `par_iter().for_each(..)`. The
    // iterations through `&Query` on several threads at once agree: each sees the
    // same tagged rows (gathered once, by whichever thread came first).
    fn parallel(mut all: Query<&Pos>, tagged: Query<&Pos, With<Tag>>, mut seen: ResMut<Seen>) {
        let visits = std::sync::atomic::AtomicUsize::new(0);
        let found = std::sync::atomic::AtomicUsize::new(0);
        all.par_for_each(|pos| {
            visits.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            found.fetch_add(tagged.iter().count(), std::sync::atomic::Ordering::Relaxed);
            let _ = tagged.get_many::<0>([]);
            let _ = pos;
        });
        let visits = visits.into_inner();
        seen.0.push((visits, found.into_inner() / visits.max(1)));
    }
    let mut w = world(3000, true);
    // 3,000 entities, every third tagged: 1,000 tagged rows, seen from every thread.
    assert_eq!(run(&mut w, parallel, 2), [(3000, 1000), (3000, 1000)]);
}
