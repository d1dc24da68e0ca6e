//! The hierarchy's batch calls, after bevy_ecs's hierarchy tests (`add_children`,
//! `insert_children`, `replace_children`, `despawn_descendants`) and the user
//! relations' same calls.

use ripple::hierarchy::HierarchyError;
use ripple::relation::{DespawnPolicy, Relation, RelationError};
use ripple::{Entity, World};

#[test]
fn add_and_insert_children_place_them_in_order() {
    let mut world = World::new();
    let parent = world.spawn(());
    let [a, b, c, d, e] = std::array::from_fn(|_| world.spawn(()));
    world.add_children(parent, &[a, b]).unwrap();
    world.insert_children(parent, 1, &[c, d]).unwrap();
    assert_eq!(world.children(parent).unwrap(), [a, c, d, b]);
    world.insert_children(parent, 0, &[b, e]).unwrap(); // b moves; e joins
    assert_eq!(world.children(parent).unwrap(), [b, e, a, c, d]);
    world.insert_children(parent, 99, &[a]).unwrap(); // past the end: at the end
    assert_eq!(world.children(parent).unwrap(), [b, e, c, d, a]);
    assert_eq!(world.parent(e), Some(parent));
}

#[test]
fn batch_calls_are_all_or_nothing() {
    let mut world = World::new();
    let parent = world.spawn(());
    let child = world.spawn_child(parent, ()).unwrap();
    let free = world.spawn(());
    // `parent` under its own child would close a cycle: nothing is attached.
    assert_eq!(world.add_children(child, &[free, parent]), Err(HierarchyError::Cycle { child: parent, parent: child }));
    assert_eq!(world.parent(free), None);
    assert_eq!(
        world.insert_children(child, 0, &[free, parent]).unwrap_err(),
        HierarchyError::Cycle { child: parent, parent: child }
    );
    assert!(world.children(child).unwrap().is_empty());
}

#[test]
fn replace_children_detaches_the_rest() {
    let mut world = World::new();
    let parent = world.spawn(());
    let kids = world.spawn_children(parent, [(1,), (2,), (3,)]).unwrap();
    let newcomer = world.spawn(());
    world.replace_children(parent, &[kids[2], newcomer, kids[0]]).unwrap();
    assert_eq!(world.children(parent).unwrap(), [kids[2], newcomer, kids[0]]);
    assert_eq!(world.parent(kids[1]), None, "detached, alive");
    assert!(world.contains(kids[1]));
}

#[test]
fn despawn_descendants_keeps_the_parent() {
    let mut world = World::new();
    let root = world.spawn(());
    let a = world.spawn_child(root, ()).unwrap();
    let b = world.spawn_child(a, ()).unwrap();
    world.spawn_child(b, ()).unwrap();
    let bystander = world.spawn(());
    assert_eq!(world.despawn_descendants(root), Ok(3));
    assert!(world.contains(root) && world.contains(bystander));
    assert!(world.children(root).unwrap().is_empty());
    assert_eq!(world.len(), 2);
    let dead = a;
    assert_eq!(world.despawn_descendants(dead), Err(HierarchyError::NoSuchEntity(dead)));
}

struct Holds(Entity);

impl Relation for Holds {
    const ON_TARGET_DESPAWN: DespawnPolicy = DespawnPolicy::Detach;
    fn target(&self) -> Entity {
        self.0
    }
    fn to(target: Entity) -> Self {
        Holds(target)
    }
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
    }
}

#[test]
fn user_relations_have_the_same_batch_calls() {
    let mut world = World::new();
    let target = world.spawn(());
    let [a, b, c] = std::array::from_fn(|_| world.spawn(()));
    world.add_related::<Holds>(target, &[a, b]).unwrap();
    world.insert_related::<Holds>(target, 1, &[c]).unwrap();
    assert_eq!(world.related::<Holds>(target), [a, c, b]);
    world.replace_related::<Holds>(target, &[b, a]).unwrap();
    assert_eq!(world.related::<Holds>(target), [b, a]);
    assert_eq!(world.relation_target::<Holds>(c), None);
    assert_eq!(world.add_related::<Holds>(target, &[c, target]), Err(RelationError::OwnTarget(target)));
    assert_eq!(world.relation_target::<Holds>(c), None, "all or nothing");
    let inner = world.spawn_related::<Holds, _>(a, ()).unwrap();
    // Despawning the related despawns through the relation whatever its policy,
    // keeping the target.
    assert_eq!(world.despawn_related::<Holds>(target), Ok(3));
    assert!(!world.contains(inner) && world.contains(target) && world.contains(c));
}
