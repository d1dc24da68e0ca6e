//! Model test of user relations: random relate, unrelate, retarget, direct inserts and
//! removals, the batch calls (add, insert at an index, replace, despawn the related),
//! spawns and despawns, over two relations with opposite policies (an acyclic
//! `ContainedIn` whose targets take their contents along when despawned, and a `Likes`
//! graph, cycles allowed, whose sources are detached, and whose relation carries data
//! the batch calls must keep), checked after every step against a hand-written graph.

use std::collections::{BTreeMap, BTreeSet};

use proptest::prelude::*;
use ripple::relation::{DespawnPolicy, Relation, RelationError};
use ripple::{Entity, World};

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
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
    }
}

/// Whom the source likes, and how much.
#[derive(Debug)]
struct Likes(Entity, u32);

impl Relation for Likes {
    fn target(&self) -> Entity {
        self.0
    }
    fn to(target: Entity) -> Self {
        Likes(target, 0)
    }
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
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

    /// Everything related to `target`, transitively, each once, without `target`;
    /// and whether the relation leads back to `target`.
    fn reached_from(&self, target: Entity) -> (Vec<Entity>, bool) {
        let mut reached = vec![target];
        let mut came_back = false;
        let mut next = 0;
        while next < reached.len() {
            for &source in self.sources.get(&reached[next]).into_iter().flatten() {
                came_back |= source == target;
                if !reached.contains(&source) {
                    reached.push(source);
                }
            }
            next += 1;
        }
        reached.remove(0);
        (reached, came_back)
    }

    /// Puts `placed` (each once, in order) at `index` of `target`'s list.
    fn place_at(&mut self, target: Entity, index: usize, placed: &[Entity]) {
        let mut unique: Vec<Entity> = Vec::new();
        for &e in placed {
            if !unique.contains(&e) {
                unique.push(e);
            }
        }
        let list = self.sources.entry(target).or_default();
        list.retain(|e| !unique.contains(e));
        let at = index.min(list.len());
        list.splice(at..at, unique);
    }
}

#[derive(Default, Debug)]
struct Model {
    alive: BTreeSet<Entity>,
    contained: Graph,
    likes: Graph,
    /// Each liking source's data.
    fondness: BTreeMap<Entity, u32>,
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

    fn graph(&mut self, contained: bool) -> &mut Graph {
        if contained { &mut self.contained } else { &mut self.likes }
    }

    /// `source` stops liking (or stops being contained).
    fn unlink(&mut self, contained: bool, source: Entity) -> Option<Entity> {
        if !contained {
            self.fondness.remove(&source);
        }
        self.graph(contained).unlink(source)
    }

    /// What a batch call does to one source: relates it to `target`, keeping the data
    /// it has, or the relation's `to` if it had none.
    fn relate_keeping(&mut self, contained: bool, source: Entity, target: Entity) {
        if !contained {
            self.fondness.entry(source).or_insert(0);
        }
        self.graph(contained).link(source, target);
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
        for contained in [true, false] {
            for &gone in &doomed {
                self.unlink(contained, gone);
                for source in self.graph(contained).sources.remove(&gone).unwrap_or_default() {
                    self.graph(contained).target_of.remove(&source);
                    if !contained {
                        self.fondness.remove(&source);
                    }
                }
            }
        }
    }

    /// `despawn_related`: everything reached through the relation goes (and what the
    /// other relation's policy takes along); a target the relation leads back to is
    /// detached. Returns how many were reached.
    fn despawn_related(&mut self, contained: bool, target: Entity) -> usize {
        let (reached, came_back) = self.graph(contained).reached_from(target);
        if came_back {
            self.unlink(contained, target);
        }
        for &e in &reached {
            if self.alive.contains(&e) {
                self.despawn(e);
            }
        }
        reached.len()
    }

    /// The first refusal among `sources`, checked before anything changes.
    fn check_all(&self, sources: &[Entity], target: Entity, acyclic: bool) -> Result<(), RelationError> {
        sources.iter().try_for_each(|&s| self.check(s, target, acyclic))
    }
}

#[derive(Clone, Debug)]
enum Op {
    Spawn,
    Relate {
        contained: bool,
        source: usize,
        target: usize,
        fondness: u32,
    },
    Insert {
        contained: bool,
        source: usize,
        target: usize,
        fondness: u32,
    },
    Unrelate {
        contained: bool,
        source: usize,
    },
    Remove {
        contained: bool,
        source: usize,
    },
    Despawn(usize),
    /// `add_related`, or `insert_related` at `at`.
    AddRelated {
        contained: bool,
        target: usize,
        sources: [usize; 2],
        at: Option<usize>,
    },
    ReplaceRelated {
        contained: bool,
        target: usize,
        sources: [usize; 2],
    },
    DespawnRelated {
        contained: bool,
        target: usize,
    },
}

fn op() -> impl Strategy<Value = Op> {
    let i = || 0..64usize;
    prop_oneof![
        1 => Just(Op::Spawn),
        4 => (any::<bool>(), i(), i(), 1..100u32).prop_map(|(contained, source, target, fondness)| Op::Relate { contained, source, target, fondness }),
        2 => (any::<bool>(), i(), i(), 1..100u32).prop_map(|(contained, source, target, fondness)| Op::Insert { contained, source, target, fondness }),
        1 => (any::<bool>(), i()).prop_map(|(contained, source)| Op::Unrelate { contained, source }),
        1 => (any::<bool>(), i()).prop_map(|(contained, source)| Op::Remove { contained, source }),
        1 => i().prop_map(Op::Despawn),
        2 => (any::<bool>(), i(), [i(), i()], proptest::option::of(0..4usize))
            .prop_map(|(contained, target, sources, at)| Op::AddRelated { contained, target, sources, at }),
        1 => (any::<bool>(), i(), [i(), i()]).prop_map(|(contained, target, sources)| Op::ReplaceRelated { contained, target, sources }),
        1 => (any::<bool>(), i()).prop_map(|(contained, target)| Op::DespawnRelated { contained, target }),
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
        assert_eq!(world.get::<Likes>(e).ok().map(|likes| likes.1), model.fondness.get(&e).copied(), "{e}'s fondness");
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
            Op::Relate { contained, source, target, fondness } => {
                let (s, t) = (pick(&entities, source), pick(&entities, target));
                let expected = model.check(s, t, contained);
                let got = if contained { world.relate(s, ContainedIn(t)) } else { world.relate(s, Likes(t, fondness)) };
                assert_eq!(got, expected);
                if got.is_ok() {
                    // Relating a source to the target it has changes nothing.
                    if !contained && model.likes.target_of.get(&s) != Some(&t) {
                        model.fondness.insert(s, fondness);
                    }
                    model.graph(contained).link(s, t);
                }
            }
            Op::Insert { contained, source, target, fondness } => {
                let (s, t) = (pick(&entities, source), pick(&entities, target));
                let expected = model.check(s, t, contained);
                let inserted =
                    if contained { world.insert(s, (ContainedIn(t),)) } else { world.insert(s, (Likes(t, fondness),)) };
                assert_eq!(inserted.is_ok(), model.alive.contains(&s));
                let refused = world.drain_failed_commands().count();
                // A refused insert is undone and recorded: the relation keeps the target
                // it had (with the inserted data), or goes.
                assert_eq!(refused, usize::from(inserted.is_ok() && expected.is_err()), "{expected:?}");
                if expected.is_ok() {
                    model.graph(contained).link(s, t);
                }
                if inserted.is_ok() && !contained {
                    if model.likes.target_of.contains_key(&s) {
                        model.fondness.insert(s, fondness);
                    } else {
                        model.fondness.remove(&s);
                    }
                }
            }
            Op::Unrelate { contained, source } => {
                let s = pick(&entities, source);
                let got = if contained { world.unrelate::<ContainedIn>(s) } else { world.unrelate::<Likes>(s) };
                if model.alive.contains(&s) {
                    assert_eq!(got, Ok(model.unlink(contained, s)));
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
                assert_eq!(removed.is_ok(), model.unlink(contained, s).is_some());
            }
            Op::Despawn(i) => {
                let e = pick(&entities, i);
                assert_eq!(world.despawn(e).is_ok(), model.alive.contains(&e));
                if model.alive.contains(&e) {
                    model.despawn(e);
                }
            }
            Op::AddRelated { contained, target, sources, at } => {
                let t = pick(&entities, target);
                let sources = sources.map(|i| pick(&entities, i));
                let expected = model.check_all(&sources, t, contained);
                let got = match (contained, at) {
                    (true, None) => world.add_related::<ContainedIn>(t, &sources),
                    (false, None) => world.add_related::<Likes>(t, &sources),
                    (true, Some(at)) => world.insert_related::<ContainedIn>(t, at, &sources),
                    (false, Some(at)) => world.insert_related::<Likes>(t, at, &sources),
                };
                assert_eq!(got, expected);
                if got.is_ok() {
                    for s in sources {
                        model.relate_keeping(contained, s, t);
                    }
                    if let Some(at) = at {
                        model.graph(contained).place_at(t, at, &sources);
                    }
                }
            }
            Op::ReplaceRelated { contained, target, sources } => {
                let t = pick(&entities, target);
                let sources = sources.map(|i| pick(&entities, i));
                let expected = model.check_all(&sources, t, contained);
                let got = if contained {
                    world.replace_related::<ContainedIn>(t, &sources)
                } else {
                    world.replace_related::<Likes>(t, &sources)
                };
                assert_eq!(got, expected);
                if got.is_ok() {
                    let leaving: Vec<Entity> = model
                        .graph(contained)
                        .sources
                        .get(&t)
                        .into_iter()
                        .flatten()
                        .copied()
                        .filter(|e| !sources.contains(e))
                        .collect();
                    for s in leaving {
                        model.unlink(contained, s);
                    }
                    for s in sources {
                        model.relate_keeping(contained, s, t);
                    }
                    model.graph(contained).place_at(t, 0, &sources);
                }
            }
            Op::DespawnRelated { contained, target } => {
                let t = pick(&entities, target);
                let got =
                    if contained { world.despawn_related::<ContainedIn>(t) } else { world.despawn_related::<Likes>(t) };
                if model.alive.contains(&t) {
                    assert_eq!(got, Ok(model.despawn_related(contained, t)));
                } else {
                    assert_eq!(got, Err(RelationError::NoSuchEntity(t)));
                }
            }
        }
        assert!(world.failed_commands().is_empty(), "{:?}", world.failed_commands());
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
        fn set_target(&mut self, target: Entity) {
            self.0 = target;
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
