//! The whole-table loops of `for_each_mut` visit rows a few at a time and, for a
//! tracked column, record writes per lane: every row must still be visited exactly
//! once, and exactly the rows written must read as changed. Table lengths here are
//! neither multiples of the lane count nor of the 64-row leaf.

use std::collections::BTreeSet;

use ripple::{Changed, Entity, World};

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
fn changed(world: &World, query: &mut ripple::QueryState<Entity, Changed<Pos>>) -> BTreeSet<Entity> {
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
