//! The whole-table loops of `for_each_mut` visit rows a few at a time and, for a
//! tracked column, record writes per lane: every row must still be visited exactly
//! once, and exactly the rows written must read as changed. Table lengths here are
//! neither multiples of the lane count nor of the 64-row leaf.

use std::collections::BTreeSet;

use ripple::query::Changed;
use ripple::{Entity, World};

#[derive(Debug, PartialEq, Clone, Copy)]
struct Pos(u32);
#[derive(Debug, PartialEq, Clone, Copy)]
struct Vel(u32);
#[derive(Debug, PartialEq, Clone, Copy)]
struct Other(u32);

/// Spawns `n` entities of (Pos(i), Vel(i)) for i in 0..n.
fn spawn_rows(world: &mut World, n: u32) -> Vec<Entity> {
    (0..n).map(|i| world.spawn((Pos(i), Vel(i)))).collect()
}

/// The entities whose `Pos` a `Changed<Pos>` query reports.
fn changed(world: &World, query: &mut ripple::query::QueryState<Entity, Changed<Pos>>) -> BTreeSet<Entity> {
    query.iter(world).collect()
}

#[test]
fn untracked_loop_visits_every_row_once() {
    for n in [1, 3, 4, 5, 63, 64, 65, 203] {
        let mut world = World::new();
        let entities = spawn_rows(&mut world, n);
        let mut query = world.query::<(&Vel, &mut Pos)>();
        let mut visits = 0;
        query.for_each_mut(&mut world, |(vel, mut pos)| {
            pos.0 += vel.0 + 1;
            visits += 1;
        });
        assert_eq!(visits, n);
        for (i, e) in entities.iter().enumerate() {
            assert_eq!(world.get::<Pos>(*e).unwrap().0, 2 * i as u32 + 1, "row {i} of {n}");
        }
    }
}

#[test]
fn tracked_loop_marks_exactly_the_rows_written() {
    for n in [5, 64, 130, 203] {
        let mut world = World::new();
        let entities = spawn_rows(&mut world, n);
        let mut observer = world.query_filtered::<Entity, Changed<Pos>>();
        assert_eq!(changed(&world, &mut observer).len(), n as usize, "first run: all new");
        let mut query = world.query::<(Entity, &Vel, &mut Pos)>();
        for divisor in [3, 7, 1] {
            let mut expected = BTreeSet::new();
            query.for_each_mut(&mut world, |(e, vel, mut pos)| {
                if vel.0 % divisor == 0 {
                    pos.0 += 1;
                    expected.insert(e);
                }
            });
            assert_eq!(changed(&world, &mut observer), expected, "n = {n}, every {divisor}th row written");
        }
        // A run that reads through `Mut` without writing marks nothing.
        query.for_each_mut(&mut world, |(_, _, pos)| {
            std::hint::black_box(pos.0);
        });
        assert!(changed(&world, &mut observer).is_empty());
        assert_eq!(world.get::<Pos>(entities[0]).unwrap().0, 3, "row 0 was written by every run");
    }
}

#[test]
fn tracked_loop_with_a_second_written_column_marks_only_the_tracked_one() {
    let mut world = World::new();
    let entities: Vec<Entity> = (0..150).map(|i| world.spawn((Pos(i), Other(i)))).collect();
    let mut observer = world.query_filtered::<Entity, Changed<Pos>>();
    changed(&world, &mut observer);
    let mut query = world.query::<(Entity, &mut Pos, &mut Other)>();
    let mut expected = BTreeSet::new();
    query.for_each_mut(&mut world, |(e, mut pos, mut other)| {
        other.0 += 1;
        if pos.0 % 4 == 1 {
            pos.0 += 1000;
            expected.insert(e);
        }
    });
    assert_eq!(changed(&world, &mut observer), expected);
    for (i, e) in entities.iter().enumerate() {
        assert_eq!(world.get::<Other>(*e).unwrap().0, i as u32 + 1);
    }
}

#[test]
fn a_panic_in_the_tracked_loop_keeps_the_rows_written_before_it() {
    // Rows are visited in chunks of eight; a panic may come at any slot of a chunk, in
    // any chunk of a leaf, or in the short last chunk of a table (150 = 2 × 64 + 22).
    for stop in [5, 70, 85, 127, 146] {
        let mut world = World::new();
        let entities = spawn_rows(&mut world, 150);
        let mut observer = world.query_filtered::<Entity, Changed<Pos>>();
        changed(&world, &mut observer);
        let mut query = world.query::<(&Vel, &mut Pos)>();
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            query.for_each_mut(&mut world, |(vel, mut pos)| {
                if vel.0 == stop {
                    panic!("stop at row {stop}");
                }
                if vel.0 % 2 == 0 {
                    pos.0 += 1;
                }
            });
        }));
        assert!(outcome.is_err());
        let expected: BTreeSet<Entity> = entities
            .iter()
            .copied()
            .filter(|e| world.get::<Vel>(*e).unwrap().0 % 2 == 0 && world.get::<Vel>(*e).unwrap().0 < stop)
            .collect();
        assert_eq!(changed(&world, &mut observer), expected, "stopped at row {stop}");
    }
}

#[test]
fn two_tracked_columns_each_mark_exactly_their_rows_in_every_kind_of_run() {
    // Pos is written on even rows, Other on rows divisible by three; a panic at row 100
    // ends the run part-way. Runs over whole tables, over candidates gathered by a
    // change filter, and in parallel must each mark exactly the rows written before
    // the panic, in each column.
    for kind in ["tables", "candidates", "parallel"] {
        let mut world = World::new();
        let entities: Vec<Entity> = (0..203).map(|i| world.spawn((Pos(i), Other(i), Vel(i)))).collect();
        let mut pos_observer = world.query_filtered::<Entity, Changed<Pos>>();
        let mut other_observer = world.query_filtered::<Entity, Changed<Other>>();
        changed(&world, &mut pos_observer);
        other_observer.iter(&world).count();
        // Every Vel is written, so a `Changed<Vel>` query's candidates are all rows.
        let mut touch = world.query::<&mut Vel>();
        touch.for_each_mut(&mut world, |mut vel| vel.0 += 0);
        let stop = 100;
        let write = |(vel, mut pos, mut other): (&Vel, ripple::Mut<'_, Pos>, ripple::Mut<'_, Other>)| {
            if vel.0 == stop {
                panic!("stop");
            }
            if vel.0 % 2 == 0 {
                pos.0 += 1;
            }
            if vel.0 % 3 == 0 {
                other.0 += 1;
            }
        };
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match kind {
            "tables" => world.query::<(&Vel, &mut Pos, &mut Other)>().for_each_mut(&mut world, write),
            "candidates" => {
                let mut query = world.query_filtered::<(&Vel, &mut Pos, &mut Other), Changed<Vel>>();
                query.for_each_mut(&mut world, |_| {}); // its first run sees everything
                touch.for_each_mut(&mut world, |mut vel| vel.0 += 0);
                query.for_each_mut(&mut world, write)
            }
            _ => world.query::<(&Vel, &mut Pos, &mut Other)>().par_for_each_mut(&mut world, write),
        }));
        assert!(outcome.is_err(), "{kind}");
        let vel = |e: &Entity| world.get::<Vel>(*e).unwrap().0;
        let pos_written: BTreeSet<Entity> =
            entities.iter().copied().filter(|e| world.get::<Pos>(*e).unwrap().0 != vel(e)).collect();
        let other_written: BTreeSet<Entity> =
            entities.iter().copied().filter(|e| world.get::<Other>(*e).unwrap().0 != vel(e)).collect();
        if kind != "parallel" {
            // Serial runs visit rows in order: exactly those before the panic.
            let before = |e: &Entity, every: u32| vel(e) < stop && vel(e) % every == 0;
            assert_eq!(pos_written, entities.iter().copied().filter(|e| before(e, 2)).collect(), "{kind}");
            assert_eq!(other_written, entities.iter().copied().filter(|e| before(e, 3)).collect(), "{kind}");
        }
        assert_eq!(changed(&world, &mut pos_observer), pos_written, "{kind}: Pos");
        assert_eq!(other_observer.iter(&world).collect::<BTreeSet<_>>(), other_written, "{kind}: Other");
    }
}
