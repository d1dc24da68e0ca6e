//! Model test of user relations: random relate, unrelate, retarget, direct inserts and
//! removals, spawns and despawns, over two relations with opposite policies (an
//! acyclic `ContainedIn` whose targets take their contents along when despawned, and
//! a `Likes` graph, cycles allowed, whose sources are detached), checked after every
//! step against a hand-written graph.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use ripple::{DespawnPolicy, Entity, Relation, RelationError, World};

#[derive(Debug)]
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
}

#[derive(Debug)]
struct Likes(Entity);

impl Relation for Likes {
    fn target(&self) -> Entity {
        self.0
    }
    fn to(target: Entity) -> Self {
        Likes(target)
    }
}

/// One relation's graph: each source's target, and each target's sources in order.
#[derive(Default, Debug)]
struct Graph {
    target_of: BTreeMap<Entity, Entity>,
    sources: BTreeMap<Entity, Vec<Entity>>,
}

impl Graph {
    fn unlink(&mut self, source: Entity) -> Option<Entity> {
        let target = self.target_of.remove(&source)?;
        self.sources.get_mut(&target).expect("listed").retain(|&s| s != source);
        Some(target)
    }

    fn link(&mut self, source: Entity, target: Entity) {
        if self.target_of.get(&source) == Some(&target) {
            return;
        }
        self.unlink(source);
        self.target_of.insert(source, target);
        self.sources.entry(target).or_default().push(source);
    }

    /// Whether `target` leads back to `source` (following targets up).
    fn leads_to(&self, mut from: Entity, source: Entity) -> bool {
        while let Some(&up) = self.target_of.get(&from) {
            if up == source {
                return true;
            }
            from = up;
        }
        false
    }
}

#[derive(Default, Debug)]
struct Model {
    alive: BTreeSet<Entity>,
    contained: Graph,
    likes: Graph,
}

impl Model {
    /// What relating `source` to `target` should answer, through the acyclic
    /// relation if `acyclic`.
    fn check(&self, source: Entity, target: Entity, acyclic: bool) -> Result<(), RelationError> {
        if !self.alive.contains(&source) {
            return Err(RelationError::NoSuchEntity(source));
        }
        if source == target {
            return Err(RelationError::OwnTarget(source));
        }
        if !self.alive.contains(&target) {
            return Err(RelationError::DeadTarget { source, target });
        }
        if acyclic && self.contained.leads_to(target, source) {
            return Err(RelationError::Cycle { source, target });
        }
        Ok(())
    }

    /// Despawns `entity`: what it contains goes with it, transitively; whoever liked
    /// any of them is detached.
    fn despawn(&mut self, entity: Entity) {
        let mut doomed = vec![entity];
        let mut next = 0;
        while next < doomed.len() {
            let contents = self.contained.sources.get(&doomed[next]).cloned().unwrap_or_default();
            doomed.extend(contents);
            next += 1;
        }
        for &gone in &doomed {
            self.alive.remove(&gone);
        }
        for graph in [&mut self.contained, &mut self.likes] {
            for &gone in &doomed {
                graph.unlink(gone);
                for source in graph.sources.remove(&gone).unwrap_or_default() {
                    graph.target_of.remove(&source);
                }
            }
        }
    }
}

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    Relate { contained: bool, source: usize, target: usize },
    Insert { contained: bool, source: usize, target: usize },
    Unrelate { contained: bool, source: usize },
    Remove { contained: bool, source: usize },
    Despawn(usize),
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        1 => Just(Op::Spawn),
        4 => (any::<bool>(), 0..64usize, 0..64usize).prop_map(|(contained, source, target)| Op::Relate { contained, source, target }),
        2 => (any::<bool>(), 0..64usize, 0..64usize).prop_map(|(contained, source, target)| Op::Insert { contained, source, target }),
        1 => (any::<bool>(), 0..64usize).prop_map(|(contained, source)| Op::Unrelate { contained, source }),
        1 => (any::<bool>(), 0..64usize).prop_map(|(contained, source)| Op::Remove { contained, source }),
        1 => (0..64usize).prop_map(Op::Despawn),
    ]
}

fn verify(world: &World, model: &Model, entities: &[Entity]) {
    assert_eq!(world.len(), model.alive.len());
    for &e in entities {
        assert_eq!(world.contains(e), model.alive.contains(&e), "{e} alive");
        if !model.alive.contains(&e) {
            continue;
        }
        assert_eq!(world.relation_target::<ContainedIn>(e), model.contained.target_of.get(&e).copied(), "{e} in");
        assert_eq!(world.relation_target::<Likes>(e), model.likes.target_of.get(&e).copied(), "{e} likes");
        let empty = Vec::new();
        assert_eq!(
            world.related::<ContainedIn>(e),
            model.contained.sources.get(&e).unwrap_or(&empty).as_slice(),
            "{e}'s contents"
        );
        assert_eq!(world.related::<Likes>(e), model.likes.sources.get(&e).unwrap_or(&empty).as_slice(), "{e}'s likers");
    }
}

fn run(ops: Vec<Op>) {
    let mut world = World::new();
    world.register_relation::<ContainedIn>();
    world.register_relation::<Likes>();
    let mut model = Model::default();
    let mut entities: Vec<Entity> = (0..8).map(|_| world.spawn(())).collect();
    model.alive.extend(entities.iter().copied());
    let pick = |entities: &[Entity], i: usize| entities[i % entities.len()];
    for op in ops {
        match op {
            Op::Spawn => {
                let e = world.spawn(());
                entities.push(e);
                model.alive.insert(e);
            }
            Op::Relate { contained, source, target } => {
                let (s, t) = (pick(&entities, source), pick(&entities, target));
                let expected = model.check(s, t, contained);
                let got = if contained { world.relate(s, ContainedIn(t)) } else { world.relate(s, Likes(t)) };
                assert_eq!(got, expected);
                if got.is_ok() {
                    if contained { model.contained.link(s, t) } else { model.likes.link(s, t) }
                }
            }
            Op::Insert { contained, source, target } => {
                let (s, t) = (pick(&entities, source), pick(&entities, target));
                let expected = model.check(s, t, contained);
                let inserted =
                    if contained { world.insert(s, (ContainedIn(t),)) } else { world.insert(s, (Likes(t),)) };
                assert_eq!(inserted.is_ok(), model.alive.contains(&s));
                let refused = world.drain_failed_commands().count();
                // A refused insert is undone and recorded; the relation stays as it was.
                assert_eq!(refused, usize::from(inserted.is_ok() && expected.is_err()), "{expected:?}");
                if expected.is_ok() {
                    if contained { model.contained.link(s, t) } else { model.likes.link(s, t) }
                }
            }
            Op::Unrelate { contained, source } => {
                let s = pick(&entities, source);
                let got = if contained { world.unrelate::<ContainedIn>(s) } else { world.unrelate::<Likes>(s) };
                if model.alive.contains(&s) {
                    let expected = if contained { model.contained.unlink(s) } else { model.likes.unlink(s) };
                    assert_eq!(got, Ok(expected));
                } else {
                    assert_eq!(got, Err(RelationError::NoSuchEntity(s)));
                }
            }
            Op::Remove { contained, source } => {
                let s = pick(&entities, source);
                let removed = if contained {
                    world.remove::<(ContainedIn,)>(s).map(drop)
                } else {
                    world.remove::<(Likes,)>(s).map(drop)
                };
                let had = if contained { model.contained.unlink(s) } else { model.likes.unlink(s) };
                assert_eq!(removed.is_ok(), had.is_some());
            }
            Op::Despawn(i) => {
                let e = pick(&entities, i);
                assert_eq!(world.despawn(e).is_ok(), model.alive.contains(&e));
                if model.alive.contains(&e) {
                    model.despawn(e);
                }
            }
        }
        verify(&world, &model, &entities);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]
    #[test]
    fn user_relations_match_the_model(ops in proptest::collection::vec(op(), 1..80)) {
        run(ops);
    }
}

#[test]
fn despawning_a_cycle_of_despawn_related_takes_each_once() {
    #[derive(Debug)]
    struct Bound(Entity);
    impl Relation for Bound {
        const ON_TARGET_DESPAWN: DespawnPolicy = DespawnPolicy::DespawnRelated;
        fn target(&self) -> Entity {
            self.0
        }
        fn to(target: Entity) -> Self {
            Bound(target)
        }
    }
    let mut world = World::new();
    let ring: Vec<Entity> = (0..5).map(|_| world.spawn(())).collect();
    for i in 0..5 {
        world.relate(ring[i], Bound(ring[(i + 1) % 5])).unwrap();
    }
    let bystander = world.spawn(());
    world.despawn(ring[0]).unwrap();
    assert_eq!(world.len(), 1);
    assert!(world.contains(bystander));
    assert!(world.failed_commands().is_empty());
}
