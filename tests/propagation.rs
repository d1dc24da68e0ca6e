//! Propagation against a full recomputation from the roots: random edits (locals,
//! parents, despawns, components coming and going) with runs at random points, and
//! the count of recomputed entities against the set the changes reach.

use std::collections::HashSet;

use proptest::prelude::*;
use ripple::hierarchy::Propagation;
use ripple::{Entity, World};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Local(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Global(i64);

fn combine(parent: &Global, local: &Local) -> Global {
    Global(parent.0.wrapping_mul(3).wrapping_add(local.0))
}

const ROOT: Global = Global(7);

#[derive(Clone, Copy, Debug)]
enum Op {
    Spawn(i64),
    SpawnChild(usize, i64),
    Write(usize, i64),
    SetParent(usize, usize),
    RemoveParent(usize),
    Despawn(usize),
    RemoveLocal(usize),
    InsertLocal(usize, i64),
    RemoveGlobal(usize),
    InsertGlobal(usize),
    Run,
    /// Read-your-writes for one entity, checked against the full recomputation.
    UpdateNow(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let i = || 0usize..40;
    let v = || -50i64..50;
    prop_oneof![
        2 => v().prop_map(Op::Spawn),
        5 => (i(), v()).prop_map(|(p, v)| Op::SpawnChild(p, v)),
        6 => (i(), v()).prop_map(|(e, v)| Op::Write(e, v)),
        3 => (i(), i()).prop_map(|(c, p)| Op::SetParent(c, p)),
        1 => i().prop_map(Op::RemoveParent),
        1 => i().prop_map(Op::Despawn),
        1 => i().prop_map(Op::RemoveLocal),
        1 => (i(), v()).prop_map(|(e, v)| Op::InsertLocal(e, v)),
        1 => i().prop_map(Op::RemoveGlobal),
        1 => i().prop_map(Op::InsertGlobal),
        4 => Just(Op::Run),
        1 => i().prop_map(Op::UpdateNow),
    ]
}

fn is_member(world: &World, e: Entity) -> bool {
    world.get::<Local>(e).is_ok() && world.get::<Global>(e).is_ok()
}

/// Every member reachable from a root, with the value a walk from the roots gives it.
fn full_recomputation(world: &mut World) -> Vec<(Entity, Global)> {
    let mut out = Vec::new();
    let mut stack: Vec<(Entity, Global)> = Vec::new();
    let all: Vec<Entity> = world.query::<Entity>().iter(world).collect();
    let world = &*world;
    for e in all {
        if world.parent(e).is_none() && is_member(world, e) {
            stack.push((e, ROOT));
        }
    }
    while let Some((e, parent)) = stack.pop() {
        let value = combine(&parent, world.get::<Local>(e).unwrap());
        out.push((e, value));
        for &c in world.children(e).unwrap() {
            if is_member(world, c) {
                stack.push((c, value));
            }
        }
    }
    out
}

fn run(ops: &[Op]) {
    let mut world = World::new();
    let mut handles = vec![world.spawn((Local(1), Global(0)))];
    let mut propagation = Propagation::new(&mut world, ROOT, combine);
    let mut touched: HashSet<Entity> = HashSet::new();
    let mut first = true;
    for &op in ops {
        let pick = |i: usize| handles[i % handles.len()];
        match op {
            Op::Spawn(v) => {
                let e = world.spawn((Local(v), Global(0)));
                handles.push(e);
                touched.insert(e);
            }
            Op::SpawnChild(p, v) => {
                if let Ok(e) = world.spawn_child(pick(p), (Local(v), Global(0))) {
                    handles.push(e);
                    touched.insert(e);
                }
            }
            Op::Write(e, v) => {
                let e = pick(e);
                if let Ok(mut local) = world.get_mut::<Local>(e) {
                    local.0 = v;
                    touched.insert(e);
                }
            }
            Op::SetParent(c, p) => {
                let (c, p) = (pick(c), pick(p));
                let before = world.parent(c);
                if world.set_parent(c, p).is_ok() && before != Some(p) {
                    touched.insert(c);
                }
            }
            Op::RemoveParent(c) => {
                let c = pick(c);
                if let Ok(Some(_)) = world.remove_parent(c) {
                    touched.insert(c);
                }
            }
            Op::Despawn(e) => {
                let _ = world.despawn(pick(e));
            }
            Op::RemoveLocal(e) => {
                let _ = world.remove::<(Local,)>(pick(e));
            }
            Op::InsertLocal(e, v) => {
                let e = pick(e);
                if world.insert(e, (Local(v),)).is_ok() {
                    touched.insert(e);
                }
            }
            Op::RemoveGlobal(e) => {
                let _ = world.remove::<(Global,)>(pick(e));
            }
            Op::InsertGlobal(e) => {
                let e = pick(e);
                // Only where it is missing: `Global` is the propagation's output, and a
                // value written over it stands until a change recomputes it.
                if world.contains(e) && world.get::<Global>(e).is_err() {
                    world.insert(e, (Global(-1),)).unwrap();
                    touched.insert(e);
                }
            }
            Op::Run => {
                let expected = full_recomputation(&mut world);
                let reached = expected
                    .iter()
                    .filter(|(e, _)| std::iter::once(*e).chain(world.ancestors(*e)).any(|a| touched.contains(&a)))
                    .count();
                let stats = propagation.run(&mut world);
                assert!(stats.full || !first);
                if !stats.full {
                    assert_eq!(stats.recomputed, reached, "recomputed exactly what the changes reach");
                }
                first = false;
                touched.clear();
                for (e, value) in expected {
                    assert_eq!(world.get::<Global>(e), Ok(&value), "global of {e}");
                }
            }
            Op::UpdateNow(e) => {
                let e = pick(e);
                let expected = full_recomputation(&mut world).into_iter().find(|&(x, _)| x == e).map(|(_, g)| g);
                assert_eq!(propagation.update_now(&mut world, e).copied(), expected);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn propagation_equals_a_full_recomputation(ops in prop::collection::vec(op(), 1..120)) {
        run(&ops);
    }
}

#[test]
fn a_still_frame_recomputes_nothing_and_a_moved_leaf_only_itself() {
    let mut world = World::new();
    let mut propagation = Propagation::new(&mut world, ROOT, combine);
    let root = world.spawn((Local(1), Global(0)));
    let mut leaves = Vec::new();
    for i in 0..100 {
        let mid = world.spawn_child(root, (Local(i), Global(0))).unwrap();
        leaves.push(world.spawn_child(mid, (Local(i), Global(0))).unwrap());
    }
    assert_eq!(propagation.run(&mut world).recomputed, 201);
    assert_eq!(propagation.run(&mut world).recomputed, 0);
    world.get_mut::<Local>(leaves[5]).unwrap().0 = 99;
    world.get_mut::<Local>(leaves[70]).unwrap().0 = 98;
    assert_eq!(propagation.run(&mut world).recomputed, 2);
}

#[test]
fn a_disabled_propagation_catches_up_when_it_runs_again() {
    use ripple::schedule::Schedule;
    let mut world = World::new();
    let root = world.spawn((Local(1), Global(0)));
    let child = world.spawn_child(root, (Local(2), Global(0))).unwrap();
    let mut propagation = Propagation::new(&mut world, ROOT, combine);
    let mut schedule = Schedule::new();
    let id = schedule
        .add_system(&mut world, move |world: &mut World| {
            propagation.run(world);
        })
        .unwrap();
    schedule.run(&mut world);
    assert_eq!(world.get::<Global>(child), Ok(&combine(&combine(&ROOT, &Local(1)), &Local(2))));
    schedule.set_enabled(id, false).unwrap();
    world.get_mut::<Local>(root).unwrap().0 = 10;
    schedule.run(&mut world);
    schedule.run(&mut world);
    let stale = *world.get::<Global>(child).unwrap();
    schedule.set_enabled(id, true).unwrap();
    schedule.run(&mut world);
    let fresh = combine(&combine(&ROOT, &Local(10)), &Local(2));
    assert_ne!(stale, fresh);
    assert_eq!(world.get::<Global>(child), Ok(&fresh));
}

struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// `trees` trees of `nodes` members each, every node under a random earlier node of
/// its tree.
fn forest(world: &mut World, rng: &mut Rng, trees: usize, nodes: usize) -> Vec<Entity> {
    let mut all = Vec::with_capacity(trees * nodes);
    for _ in 0..trees {
        let first = all.len();
        all.push(world.spawn((Local(rng.below(100) as i64), Global(0))));
        for _ in 1..nodes {
            let parent = all[first + rng.below(all.len() - first)];
            all.push(world.spawn_child(parent, (Local(rng.below(100) as i64), Global(0))).unwrap());
        }
    }
    all
}

fn assert_equals_full_recomputation(world: &mut World) {
    for (e, value) in full_recomputation(world) {
        assert_eq!(world.get::<Global>(e), Ok(&value), "global of {e}");
    }
}

/// Runs big enough to spread over threads (a walk of every tree over 32,768 members or
/// more, or 4,096 changed subtrees or more) compute what a full recomputation does,
/// recompute exactly what the changes reach, and mark every written global changed.
#[test]
fn parallel_runs_equal_a_full_recomputation_and_mark_every_write() {
    in_pool(parallel_runs);
}

/// Called from a thread outside any pool, a big run spreads over rayon's global pool
/// (where it has more than one thread) and computes what a full recomputation does;
/// `set_parallel(false)` keeps it on the calling thread.
#[test]
fn a_big_run_outside_rayons_pool_spreads_over_the_global_pool_unless_told_not_to() {
    let mut world = World::new();
    let all = forest(&mut world, &mut Rng(0x0DDB_1A5E_5BAD_5EED), 5000, 8);
    let mut propagation = Propagation::new(&mut world, ROOT, combine);
    let stats = propagation.run(&mut world);
    let spreads = rayon::current_num_threads() > 1;
    assert_eq!((stats.recomputed, stats.full, stats.parallel), (all.len(), true, spreads));
    assert_equals_full_recomputation(&mut world);

    let mut world = World::new();
    let all = forest(&mut world, &mut Rng(0x0DDB_1A5E_5BAD_5EED), 5000, 8);
    let mut propagation = Propagation::new(&mut world, ROOT, combine);
    propagation.set_parallel(false);
    let stats = propagation.run(&mut world);
    assert_eq!((stats.recomputed, stats.full, stats.parallel), (all.len(), true, false));
    assert_equals_full_recomputation(&mut world);
}

/// Runs `test` on a rayon pool of two threads, so that a propagation has a second
/// thread to spread over whatever the machine's core count.
fn in_pool(test: impl FnOnce() + Send) {
    rayon::ThreadPoolBuilder::new().num_threads(2).build().unwrap().install(test);
}

fn parallel_runs() {
    let mut world = World::new();
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    // Shallow trees, so that 8,000 changes make over 4,096 separate subtrees.
    let all = forest(&mut world, &mut rng, 5000, 8);
    let mut changed = world.query_filtered::<Entity, ripple::query::Changed<Global>>();
    let mut propagation = Propagation::new(&mut world, ROOT, combine);
    let stats = propagation.run(&mut world);
    assert_eq!((stats.recomputed, stats.full, stats.parallel), (all.len(), true, true));
    assert_eq!(changed.iter(&world).count(), all.len());
    assert_equals_full_recomputation(&mut world);
    for (writes, moves, parallel) in
        [(3, 0, false), (600, 0, false), (8000, 0, true), (8000, 40, true), (25_000, 0, true), (0, 0, false)]
    {
        let mut touched = HashSet::new();
        for _ in 0..writes {
            let e = all[rng.below(all.len())];
            world.get_mut::<Local>(e).unwrap().0 = rng.below(100) as i64;
            touched.insert(e);
        }
        for _ in 0..moves {
            let (child, parent) = (all[rng.below(all.len())], all[rng.below(all.len())]);
            if world.set_parent(child, parent).is_ok() {
                touched.insert(child);
            }
        }
        let reached =
            all.iter().filter(|&&e| std::iter::once(e).chain(world.ancestors(e)).any(|a| touched.contains(&a)));
        let reached = reached.count();
        let stats = propagation.run(&mut world);
        assert_eq!(stats.parallel, parallel, "{writes} writes, {moves} moves");
        if !stats.full {
            assert_eq!(stats.recomputed, reached, "{writes} writes, {moves} moves");
        }
        assert_eq!(changed.iter(&world).count(), stats.recomputed, "every written global is marked changed");
        assert_equals_full_recomputation(&mut world);
    }
}

/// A `combine` that panics part-way leaves no global stale for good: the panic comes
/// out of `run`, and the next run computes every member.
#[test]
fn a_panicking_combine_is_caught_up_by_the_next_run() {
    in_pool(panicking_combine);
}

fn panicking_combine() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    // One thread; several threads with every chunk of the walk busy; several threads
    // with chunks left idle (20 roots for 16 chunks). Every member changes, so the run
    // walks every tree.
    for (trees, nodes) in [(4, 20), (2000, 20), (20, 2000)] {
        let mut world = World::new();
        let mut rng = Rng(0x2545_F491_4F6C_DD1D);
        let all = forest(&mut world, &mut rng, trees, nodes);
        let fail = Arc::new(AtomicBool::new(false));
        let failing = fail.clone();
        let mut propagation = Propagation::new(&mut world, ROOT, move |parent: &Global, local: &Local| {
            assert!(!(failing.load(Ordering::Relaxed) && local.0 == 1000), "combine failed");
            combine(parent, local)
        });
        propagation.run(&mut world);
        for (i, &e) in all.iter().enumerate() {
            world.get_mut::<Local>(e).unwrap().0 = i as i64;
        }
        world.get_mut::<Local>(all[all.len() / 2]).unwrap().0 = 1000;
        fail.store(true, Ordering::Relaxed);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| propagation.run(&mut world)));
        assert!(outcome.is_err(), "the panic is passed on");
        fail.store(false, Ordering::Relaxed);
        let stats = propagation.run(&mut world);
        assert_eq!((stats.full, stats.recomputed), (true, all.len()));
        assert_eq!(stats.parallel, all.len() > 80);
        assert_equals_full_recomputation(&mut world);
        assert_eq!(propagation.run(&mut world).recomputed, 0);
    }
}

#[test]
fn a_propagation_can_be_kept_as_a_resource() {
    fn send_sync<T: Send + Sync + 'static>() {}
    send_sync::<Propagation<Local, Global>>();
}

/// A global whose `Clone` or `Drop` panics on demand.
#[derive(Debug, PartialEq)]
struct Fragile(i64);

static FRAGILE_CLONE: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
static FRAGILE_DROP: std::sync::atomic::AtomicI64 = std::sync::atomic::AtomicI64::new(i64::MIN);

impl Clone for Fragile {
    fn clone(&self) -> Self {
        assert!(!FRAGILE_CLONE.load(std::sync::atomic::Ordering::Relaxed), "clone failed");
        Fragile(self.0)
    }
}

impl Drop for Fragile {
    fn drop(&mut self) {
        if FRAGILE_DROP.compare_exchange(self.0, i64::MIN, Relaxed, Relaxed).is_ok() {
            panic!("drop failed");
        }
    }
}

use std::sync::atomic::Ordering::Relaxed;

fn fragile(parent: &Fragile, local: &Local) -> Fragile {
    Fragile(parent.0 * 3 + local.0)
}

/// `G`'s own code panicking (its `Clone` while a run prepares, its `Drop` when the
/// walk overwrites a value) loses nothing: the written value is marked changed, and
/// the next run catches up with every change.
#[test]
fn a_panicking_clone_or_drop_of_the_output_loses_nothing() {
    let mut world = World::new();
    let root = world.spawn((Local(1), Fragile(0)));
    let kids: Vec<Entity> = (0..8).map(|i| world.spawn_child(root, (Local(i), Fragile(0))).unwrap()).collect();
    let mut changed = world.query_filtered::<Entity, ripple::query::Changed<Fragile>>();
    let mut propagation = Propagation::new(&mut world, Fragile(7), fragile);
    propagation.run(&mut world);
    changed.iter(&world).count();

    world.get_mut::<Local>(kids[3]).unwrap().0 = 50;
    FRAGILE_CLONE.store(true, Relaxed);
    assert!(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| propagation.run(&mut world))).is_err());
    FRAGILE_CLONE.store(false, Relaxed);
    let stats = propagation.run(&mut world);
    assert!(stats.full, "the change read by the failed run is not lost");
    assert_eq!(world.get::<Fragile>(kids[3]), Ok(&Fragile(22 * 3 + 50)));
    changed.iter(&world).count();

    world.get_mut::<Local>(kids[5]).unwrap().0 = 60;
    FRAGILE_DROP.store(world.get::<Fragile>(kids[5]).unwrap().0, Relaxed);
    assert!(std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| propagation.run(&mut world))).is_err());
    assert_eq!(world.get::<Fragile>(kids[5]), Ok(&Fragile(22 * 3 + 60)), "the new value is stored");
    assert_eq!(changed.iter(&world).collect::<Vec<_>>(), [kids[5]], "and marked changed");
    assert_eq!(propagation.run(&mut world).recomputed, 9, "the next run walks every tree");
}

/// Members that moved to tables created since the last run still count as members
/// when a run decides between following the changes and walking every tree.
#[test]
fn members_in_new_tables_count_when_a_run_chooses_its_walk() {
    #[derive(Debug)]
    struct Marker;
    let mut world = World::new();
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let all = forest(&mut world, &mut rng, 10, 100);
    let mut propagation = Propagation::new(&mut world, ROOT, combine);
    propagation.run(&mut world);
    for &e in &all[..900] {
        world.insert(e, (Marker,)).unwrap();
    }
    for &e in all.iter().step_by(17) {
        world.get_mut::<Local>(e).unwrap().0 += 1;
    }
    let stats = propagation.run(&mut world);
    assert!(!stats.full, "60 changes among 1,000 members follow the changes: {stats:?}");
    assert_equals_full_recomputation(&mut world);
}

/// One frame's systems, added to the schedule in a random order: a mover writing
/// locals, a gardener reparenting, spawning and despawning, and the propagation, which
/// checks itself against a full recomputation right after it runs.
fn frames_in_order(order: &[usize], seed: u64, frames: usize) {
    use std::sync::{Arc, Mutex};
    let mut world = World::new();
    let rng = Arc::new(Mutex::new(Rng(seed | 1)));
    forest(&mut world, &mut rng.lock().unwrap(), 6, 12);
    let mut propagation = Some(Propagation::new(&mut world, ROOT, combine));
    let mut schedule = ripple::schedule::Schedule::new();
    let members = |world: &mut World| {
        world.query_filtered::<Entity, ripple::query::With<Local>>().iter(world).collect::<Vec<_>>()
    };
    for &system in order {
        let rng = rng.clone();
        let added = match system {
            0 => schedule.add_system(&mut world, move |world: &mut World| {
                let all = members(world);
                let mut rng = rng.lock().unwrap();
                for _ in 0..1 + rng.below(4) {
                    let e = all[rng.below(all.len())];
                    world.get_mut::<Local>(e).unwrap().0 = rng.below(100) as i64;
                }
            }),
            1 => schedule.add_system(&mut world, move |world: &mut World| {
                let all = members(world);
                let mut rng = rng.lock().unwrap();
                let (a, b) = (all[rng.below(all.len())], all[rng.below(all.len())]);
                match rng.below(4) {
                    0 => {
                        let _ = world.remove_parent(a);
                    }
                    1 if all.len() > 20 => {
                        world.despawn(a).unwrap();
                    }
                    2 => {
                        world.spawn_child(a, (Local(rng.below(100) as i64), Global(0))).unwrap();
                    }
                    _ => {
                        let _ = world.set_parent(a, b);
                    }
                }
            }),
            _ => {
                let mut propagation = propagation.take().expect("one propagation system");
                schedule.add_system(&mut world, move |world: &mut World| {
                    propagation.run(world);
                    assert_equals_full_recomputation(world);
                })
            }
        };
        added.unwrap();
    }
    for _ in 0..frames {
        schedule.run(&mut world);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn propagation_is_exact_whatever_the_system_order(
        order in Just(vec![0usize, 1, 2]).prop_shuffle(),
        seed in any::<u64>(),
        frames in 1usize..12,
    ) {
        frames_in_order(&order, seed, frames);
    }
}
