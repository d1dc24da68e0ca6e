//! Propagation along a relation of your own, against a full recomputation from the
//! roots: random relates, retargets, unrelates, writes and despawns (under both
//! despawn policies), with a hierarchy propagation over the same entities running
//! beside it, each following only its own relation. Then a relation with cycles: a
//! run ends, and leaves the members on a cycle alone.

use std::collections::HashSet;

use proptest::prelude::*;
use ripple::hierarchy::Propagation;
use ripple::relation::{DespawnPolicy, Relation};
use ripple::{Entity, World};

#[derive(Clone, Copy, Debug, PartialEq)]
struct Local(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Carried(i64);
#[derive(Clone, Copy, Debug, PartialEq)]
struct Inherited(i64);

/// A despawned container takes what it holds along.
struct ContainedIn(Entity);
impl Relation for ContainedIn {
    const ON_TARGET_DESPAWN: DespawnPolicy = DespawnPolicy::DespawnRelated;
    const ACYCLIC: bool = true;
    fn target(&self) -> Entity {
        self.0
    }
    fn to(target: Entity) -> Self {
        ContainedIn(target)
    }
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
    }
}

/// A despawned leader leaves its followers behind; cycles are allowed.
struct Follows(Entity);
impl Relation for Follows {
    fn target(&self) -> Entity {
        self.0
    }
    fn to(target: Entity) -> Self {
        Follows(target)
    }
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
    }
}

fn carry(parent: &Carried, local: &Local) -> Carried {
    Carried(parent.0.wrapping_mul(3).wrapping_add(local.0))
}

fn inherit(parent: &Inherited, local: &Local) -> Inherited {
    Inherited(parent.0.wrapping_mul(5).wrapping_sub(local.0))
}

const CARRY_ROOT: Carried = Carried(7);
const INHERIT_ROOT: Inherited = Inherited(-3);

#[derive(Clone, Copy, Debug)]
enum Op {
    Spawn(i64),
    Write(usize, i64),
    Contain(usize, usize),
    Uncontain(usize),
    SetParent(usize, usize),
    Despawn(usize),
    RemoveLocal(usize),
    InsertLocal(usize, i64),
    Run,
    UpdateNow(usize),
}

fn op() -> impl Strategy<Value = Op> {
    let i = || 0usize..30;
    let v = || -50i64..50;
    prop_oneof![
        4 => v().prop_map(Op::Spawn),
        6 => (i(), v()).prop_map(|(e, v)| Op::Write(e, v)),
        5 => (i(), i()).prop_map(|(s, t)| Op::Contain(s, t)),
        1 => i().prop_map(Op::Uncontain),
        2 => (i(), i()).prop_map(|(c, p)| Op::SetParent(c, p)),
        1 => i().prop_map(Op::Despawn),
        1 => i().prop_map(Op::RemoveLocal),
        1 => (i(), v()).prop_map(|(e, v)| Op::InsertLocal(e, v)),
        4 => Just(Op::Run),
        1 => i().prop_map(Op::UpdateNow),
    ]
}

/// Every member reachable from a root of `R`, with the value a walk from the roots
/// gives it (`G` and `combine` as the propagation's).
fn full<R: Relation, G: ripple::Component + Copy>(
    world: &mut World,
    root: G,
    combine: fn(&G, &Local) -> G,
) -> Vec<(Entity, G)> {
    let all: Vec<Entity> = world.query::<Entity>().iter(world).collect();
    let world = &*world;
    let member = |e: Entity| world.get::<Local>(e).is_ok() && world.get::<G>(e).is_ok();
    let mut out = Vec::new();
    let mut stack: Vec<(Entity, G)> = Vec::new();
    for e in all {
        if world.relation_target::<R>(e).is_none() && member(e) {
            stack.push((e, root));
        }
    }
    while let Some((e, parent)) = stack.pop() {
        let value = combine(&parent, world.get::<Local>(e).unwrap());
        out.push((e, value));
        for &s in world.related::<R>(e) {
            if member(s) {
                stack.push((s, value));
            }
        }
    }
    out
}

fn run(ops: &[Op]) {
    let mut world = World::new();
    let mut handles = vec![world.spawn((Local(1), Carried(0), Inherited(0)))];
    let mut carried: Propagation<Local, Carried, ContainedIn> = Propagation::along(&mut world, CARRY_ROOT, carry);
    let mut inherited = Propagation::new(&mut world, INHERIT_ROOT, inherit);
    // Entities whose local or container changed since the last run.
    let mut touched: HashSet<Entity> = HashSet::new();
    let mut first = true;
    for &op in ops {
        let pick = |i: usize| handles[i % handles.len()];
        match op {
            Op::Spawn(v) => {
                let e = world.spawn((Local(v), Carried(0), Inherited(0)));
                handles.push(e);
                touched.insert(e);
            }
            Op::Write(e, v) => {
                let e = pick(e);
                if let Ok(mut local) = world.get_mut::<Local>(e) {
                    local.0 = v;
                    touched.insert(e);
                }
            }
            Op::Contain(s, t) => {
                let (s, t) = (pick(s), pick(t));
                let before = world.relation_target::<ContainedIn>(s);
                if world.relate(s, ContainedIn(t)).is_ok() && before != Some(t) {
                    touched.insert(s);
                }
            }
            Op::Uncontain(s) => {
                let s = pick(s);
                if let Ok(Some(_)) = world.unrelate::<ContainedIn>(s) {
                    touched.insert(s);
                }
            }
            Op::SetParent(c, p) => {
                // The hierarchy changes; the container propagation has nothing to do.
                let _ = world.set_parent(pick(c), pick(p));
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
            Op::Run => {
                let expected = full::<ContainedIn, Carried>(&mut world, CARRY_ROOT, carry);
                let reached = expected
                    .iter()
                    .filter(|(e, _)| {
                        let mut at = Some(*e);
                        std::iter::from_fn(|| {
                            let here = at?;
                            at = world.relation_target::<ContainedIn>(here);
                            Some(here)
                        })
                        .any(|a| touched.contains(&a))
                    })
                    .count();
                let stats = carried.run(&mut world);
                assert!(stats.full || !first);
                if !stats.full {
                    assert_eq!(stats.recomputed, reached, "recomputed exactly what the changes reach");
                }
                inherited.run(&mut world);
                first = false;
                touched.clear();
                for (e, value) in expected {
                    assert_eq!(world.get::<Carried>(e), Ok(&value), "carried value of {e}");
                }
                for (e, value) in full::<ripple::hierarchy::ChildOf, Inherited>(&mut world, INHERIT_ROOT, inherit) {
                    assert_eq!(world.get::<Inherited>(e), Ok(&value), "inherited value of {e}");
                }
            }
            Op::UpdateNow(e) => {
                let e = pick(e);
                let expected = full::<ContainedIn, Carried>(&mut world, CARRY_ROOT, carry)
                    .into_iter()
                    .find(|&(x, _)| x == e)
                    .map(|(_, g)| g);
                assert_eq!(carried.update_now(&mut world, e).copied(), expected);
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn propagation_along_a_user_relation_equals_a_full_recomputation(ops in prop::collection::vec(op(), 1..120)) {
        run(&ops);
    }
}

#[test]
fn a_relation_with_cycles_is_walked_from_its_roots_and_its_cycles_are_left_alone() {
    let mut world = World::new();
    let leader = world.spawn((Local(1), Carried(0)));
    let follower = world.spawn((Local(2), Carried(0)));
    let (a, b) = (world.spawn((Local(10), Carried(-1))), world.spawn((Local(20), Carried(-1))));
    world.relate(follower, Follows(leader)).unwrap();
    world.relate(a, Follows(b)).unwrap();
    world.relate(b, Follows(a)).unwrap();
    let mut along: Propagation<Local, Carried, Follows> = Propagation::along(&mut world, CARRY_ROOT, carry);
    let stats = along.run(&mut world);
    assert!(stats.full);
    assert_eq!(stats.recomputed, 2, "the leader and its follower; the cycle has no root");
    assert_eq!(world.get::<Carried>(follower), Ok(&carry(&carry(&CARRY_ROOT, &Local(1)), &Local(2))));
    assert_eq!(world.get::<Carried>(a), Ok(&Carried(-1)));

    // A change on the cycle, or below it, reaches no root: nothing to recompute, and
    // the run ends (the walk up from `tail` goes round the cycle once).
    let tail = world.spawn((Local(5), Carried(-1)));
    world.relate(tail, Follows(a)).unwrap();
    world.get_mut::<Local>(a).unwrap().0 = 11;
    assert_eq!(along.run(&mut world).recomputed, 0);
    world.get_mut::<Local>(tail).unwrap().0 = 6;
    assert_eq!(along.run(&mut world).recomputed, 0);
    assert_eq!(along.update_now(&mut world, a), None);
    assert_eq!(along.update_now(&mut world, tail), None);
    assert_eq!(world.get::<Carried>(tail), Ok(&Carried(-1)));

    // Breaking the cycle makes `b` a root, and `a` its follower.
    world.unrelate::<Follows>(b).unwrap();
    assert_eq!(along.run(&mut world).recomputed, 3);
    let b_value = carry(&CARRY_ROOT, &Local(20));
    assert_eq!(world.get::<Carried>(a), Ok(&carry(&b_value, &Local(11))));

    // A leader despawned detaches its follower, which becomes a root.
    world.despawn(leader).unwrap();
    assert_eq!(along.run(&mut world).recomputed, 1);
    assert_eq!(world.get::<Carried>(follower), Ok(&carry(&CARRY_ROOT, &Local(2))));
}
