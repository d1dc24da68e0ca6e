//! The batch calls of relations (`despawn_related`, `add_related`, `insert_related`,
//! `replace_related`, and the hierarchy's `despawn_descendants`) on what the model
//! tests do not reach: a cascade that comes back to its target, what observers of a
//! despawn see on both despawn paths, and relations that carry data.
#![allow(elided_lifetimes_in_paths, reason = "observer signatures read better without them")]

use std::sync::{Arc, Mutex};

use ripple::hierarchy::ChildOf;
use ripple::observer::{OnDespawn, OnRemove, OnReplace, Trigger};
use ripple::relation::{DespawnPolicy, Relation};
use ripple::system::Query;
use ripple::{Entity, World};

/// A relation with cycles allowed whose sources go with their target.
#[derive(Debug, PartialEq)]
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

#[test]
fn despawn_related_keeps_its_target_when_a_cycle_comes_back_to_it() {
    let mut world = World::new();
    let ring: Vec<Entity> = (0..4).map(|_| world.spawn(())).collect();
    for i in 0..4 {
        world.relate(ring[i], Bound(ring[(i + 1) % 4])).unwrap();
    }
    let bystander = world.spawn(());
    // ring[3] is related to ring[0], ring[2] to ring[3], ..., and ring[0] to ring[1]:
    // the cascade from ring[0] comes back to it.
    assert_eq!(world.despawn_related::<Bound>(ring[0]), Ok(3));
    assert!(world.contains(ring[0]), "the target is kept");
    assert!(ring[1..].iter().all(|&e| !world.contains(e)));
    assert!(world.contains(bystander));
    assert_eq!(world.relation_target::<Bound>(ring[0]), None, "its own target is gone: it is detached");
    assert!(world.related::<Bound>(ring[0]).is_empty());
    assert!(world.failed_commands().is_empty(), "{:?}", world.failed_commands());
    // A target in a cycle of its own with itself out of reach is untouched too.
    let (a, b) = (world.spawn(()), world.spawn(()));
    world.relate(a, Bound(b)).unwrap();
    world.relate(b, Bound(a)).unwrap();
    assert_eq!(world.despawn_related::<Bound>(a), Ok(1));
    assert!(world.contains(a) && !world.contains(b));
}

#[derive(Debug)]
struct Tag;

/// What despawn observers saw: the moment, and the parent the entity had then.
type ParentLog = Arc<Mutex<Vec<(&'static str, Option<Entity>)>>>;

/// Logs, for every entity despawned, the parent it had as its observers saw it: in its
/// `OnDespawn`, `OnReplace<Tag>` and `OnRemove<Tag>` observers.
fn watch_parents(world: &mut World) -> ParentLog {
    let log = Arc::new(Mutex::new(Vec::new()));
    let (despawn, replace, remove) = (log.clone(), log.clone(), log.clone());
    world
        .observe(move |t: Trigger<OnDespawn>, parents: Query<&ChildOf>| {
            despawn.lock().unwrap().push(("despawn", parents.get(t.entity()).ok().map(ChildOf::parent)));
        })
        .unwrap();
    world
        .observe(move |t: Trigger<OnReplace<Tag>>, parents: Query<&ChildOf>| {
            replace.lock().unwrap().push(("replace", parents.get(t.entity()).ok().map(ChildOf::parent)));
        })
        .unwrap();
    world
        .observe(move |t: Trigger<OnRemove<Tag>>, parents: Query<&ChildOf>| {
            remove.lock().unwrap().push(("remove", parents.get(t.entity()).ok().map(ChildOf::parent)));
        })
        .unwrap();
    log
}

#[test]
fn observers_of_a_despawned_child_read_its_parent_on_both_despawn_paths() {
    for by_descendants in [false, true] {
        let mut world = World::new();
        let log = watch_parents(&mut world);
        let root = world.spawn(());
        let parent = world.spawn((ChildOf(root),));
        let child = world.spawn((Tag, ChildOf(parent)));
        if by_descendants {
            assert_eq!(world.despawn_descendants(parent), Ok(1));
            assert!(world.children(parent).unwrap().is_empty(), "the child left its parent's list");
        } else {
            world.despawn(parent).unwrap();
        }
        assert!(!world.contains(child));
        let seen: Vec<_> = log.lock().unwrap().drain(..).collect();
        let child_saw = |moment: &str| seen.iter().filter(|(m, _)| *m == moment).map(|(_, p)| *p).next_back();
        for moment in ["despawn", "replace", "remove"] {
            assert_eq!(
                child_saw(moment),
                Some(Some(parent)),
                "by_descendants {by_descendants}: the child's {moment} observer reads its ChildOf ({seen:?})"
            );
        }
    }
}

/// A relation carrying data beside its target.
#[derive(Debug, PartialEq)]
struct Child {
    parent: Entity,
    data: u32,
}

impl Relation for Child {
    fn target(&self) -> Entity {
        self.parent
    }
    fn to(parent: Entity) -> Self {
        Child { parent, data: 0 }
    }
    fn set_target(&mut self, parent: Entity) {
        self.parent = parent;
    }
}

#[test]
fn batch_calls_keep_the_data_a_relation_carries() {
    let mut world = World::new();
    let (old, new) = (world.spawn(()), world.spawn(()));
    let [a, b, c, fresh] = std::array::from_fn(|_| world.spawn(()));
    for (i, e) in [a, b, c].into_iter().enumerate() {
        world.relate(e, Child { parent: old, data: 42 + i as u32 }).unwrap();
    }
    world.add_related::<Child>(new, &[a, fresh]).unwrap();
    assert_eq!(world.get::<Child>(a).unwrap(), &Child { parent: new, data: 42 }, "add_related");
    assert_eq!(world.get::<Child>(fresh).unwrap(), &Child { parent: new, data: 0 }, "a new relation is `to`'s");
    world.insert_related::<Child>(new, 0, &[b]).unwrap();
    assert_eq!(world.get::<Child>(b).unwrap(), &Child { parent: new, data: 43 }, "insert_related");
    world.replace_related::<Child>(old, &[c, a]).unwrap();
    assert_eq!(world.get::<Child>(a).unwrap(), &Child { parent: old, data: 42 }, "replace_related");
    assert_eq!(world.get::<Child>(c).unwrap(), &Child { parent: old, data: 44 }, "already there: untouched");
    assert_eq!(world.related::<Child>(old), [c, a]);
    assert_eq!(world.related::<Child>(new), [b, fresh]);
}
