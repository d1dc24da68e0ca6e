//! Relation bookkeeping against a naive model: random sequences of spawns, despawns,
//! reparenting and direct component edits, comparing every parent and every ordered
//! children list after each step.

use std::collections::HashMap;

use proptest::prelude::*;
use ripple::hierarchy::{ChildOf, Children, HierarchyError};
use ripple::{CommandQueue, Entity, World};

#[derive(Clone, Copy, Debug)]
enum Op {
    Spawn,
    SpawnChild(usize),
    SetParent(usize, usize),
    RemoveParent(usize),
    Despawn(usize),
    DetachChildren(usize),
    InsertChildOf(usize, usize),
    RemoveChildOf(usize),
    RemoveChildren(usize),
    CommandSetParent(usize, usize),
}

fn op() -> impl Strategy<Value = Op> {
    let i = || 0usize..24;
    prop_oneof![
        2 => Just(Op::Spawn),
        3 => i().prop_map(Op::SpawnChild),
        6 => (i(), i()).prop_map(|(a, b)| Op::SetParent(a, b)),
        1 => i().prop_map(Op::RemoveParent),
        1 => i().prop_map(Op::Despawn),
        1 => i().prop_map(Op::DetachChildren),
        2 => (i(), i()).prop_map(|(a, b)| Op::InsertChildOf(a, b)),
        1 => i().prop_map(Op::RemoveChildOf),
        1 => i().prop_map(Op::RemoveChildren),
        2 => (i(), i()).prop_map(|(a, b)| Op::CommandSetParent(a, b)),
    ]
}

#[derive(Default)]
struct Node {
    parent: Option<Entity>,
    children: Vec<Entity>,
    /// Whether it has a `Children` component (kept, empty, once it had a child).
    has_list: bool,
}

#[derive(Default)]
struct Model {
    nodes: HashMap<Entity, Node>,
}

impl Model {
    fn check(&self, child: Entity, parent: Entity) -> Result<(), HierarchyError> {
        if !self.nodes.contains_key(&child) {
            return Err(HierarchyError::NoSuchEntity(child));
        }
        if child == parent {
            return Err(HierarchyError::OwnParent(child));
        }
        if !self.nodes.contains_key(&parent) {
            return Err(HierarchyError::DeadParent { child, parent });
        }
        let mut at = Some(parent);
        while let Some(up) = at {
            if up == child {
                return Err(HierarchyError::Cycle { child, parent });
            }
            at = self.nodes[&up].parent;
        }
        Ok(())
    }

    fn attach(&mut self, child: Entity, parent: Entity) {
        if self.nodes[&child].parent == Some(parent) {
            return;
        }
        self.detach(child);
        self.nodes.get_mut(&child).unwrap().parent = Some(parent);
        let node = self.nodes.get_mut(&parent).unwrap();
        node.children.push(child);
        node.has_list = true;
    }

    fn detach(&mut self, child: Entity) {
        if let Some(parent) = self.nodes.get_mut(&child).unwrap().parent.take()
            && let Some(node) = self.nodes.get_mut(&parent)
        {
            node.children.retain(|&c| c != child);
        }
    }

    fn despawn(&mut self, entity: Entity) {
        self.detach(entity);
        let mut doomed = vec![entity];
        while let Some(e) = doomed.pop() {
            doomed.extend(self.nodes.remove(&e).unwrap().children);
        }
    }
}

fn pick(handles: &[Entity], i: usize) -> Entity {
    handles[i % handles.len()]
}

fn run(ops: &[Op]) {
    let mut world = World::new();
    let mut model = Model::default();
    // Every handle ever issued, dead ones included, so stale handles are exercised.
    let mut handles = vec![world.spawn(())];
    model.nodes.insert(handles[0], Node::default());
    for &op in ops {
        match op {
            Op::Spawn => {
                let e = world.spawn(());
                model.nodes.insert(e, Node::default());
                handles.push(e);
            }
            Op::SpawnChild(p) => {
                let parent = pick(&handles, p);
                match world.spawn_child(parent, ()) {
                    Ok(child) => {
                        assert!(model.nodes.contains_key(&parent));
                        model.nodes.insert(child, Node::default());
                        model.attach(child, parent);
                        handles.push(child);
                    }
                    Err(error) => {
                        assert!(!model.nodes.contains_key(&parent));
                        assert_eq!(error, HierarchyError::NoSuchEntity(parent));
                    }
                }
            }
            Op::SetParent(c, p) => {
                let (child, parent) = (pick(&handles, c), pick(&handles, p));
                let expected = model.check(child, parent);
                assert_eq!(world.set_parent(child, parent), expected);
                if expected.is_ok() {
                    model.attach(child, parent);
                }
            }
            Op::CommandSetParent(c, p) => {
                let (child, parent) = (pick(&handles, c), pick(&handles, p));
                let expected = model.check(child, parent);
                let mut queue = CommandQueue::default();
                queue.commands(&world).entity(child).set_parent(parent);
                queue.apply(&mut world);
                let failed: Vec<_> = world.drain_failed_commands().collect();
                match expected {
                    Ok(()) => {
                        assert!(failed.is_empty(), "{failed:?}");
                        model.attach(child, parent);
                    }
                    Err(error) => assert_eq!(failed.len(), 1, "{error}"),
                }
            }
            Op::RemoveParent(c) => {
                let child = pick(&handles, c);
                match world.remove_parent(child) {
                    Ok(had) => {
                        assert_eq!(had, model.nodes[&child].parent);
                        model.detach(child);
                    }
                    Err(error) => {
                        assert!(!model.nodes.contains_key(&child));
                        assert_eq!(error, HierarchyError::NoSuchEntity(child));
                    }
                }
            }
            Op::Despawn(e) => {
                let entity = pick(&handles, e);
                assert_eq!(world.despawn(entity).is_ok(), model.nodes.contains_key(&entity));
                if model.nodes.contains_key(&entity) {
                    model.despawn(entity);
                }
            }
            Op::DetachChildren(p) => {
                let parent = pick(&handles, p);
                match world.detach_children(parent) {
                    Ok(n) => {
                        let children = std::mem::take(&mut model.nodes.get_mut(&parent).unwrap().children);
                        assert_eq!(n, children.len());
                        for child in children {
                            model.nodes.get_mut(&child).unwrap().parent = None;
                        }
                    }
                    Err(_) => assert!(!model.nodes.contains_key(&parent)),
                }
            }
            Op::InsertChildOf(c, p) => {
                let (child, parent) = (pick(&handles, c), pick(&handles, p));
                let expected = model.check(child, parent);
                let inserted = world.insert(child, (ChildOf(parent),));
                assert_eq!(inserted.is_ok(), model.nodes.contains_key(&child));
                let failed: Vec<_> = world.drain_failed_commands().collect();
                match expected {
                    Ok(()) => {
                        assert!(failed.is_empty(), "{failed:?}");
                        model.attach(child, parent);
                    }
                    Err(HierarchyError::NoSuchEntity(_)) => assert!(failed.is_empty()),
                    Err(error) => {
                        assert_eq!(failed.len(), 1, "{error}");
                        assert_eq!(failed[0].error, ripple::CommandFailure::Hierarchy(error));
                    }
                }
            }
            Op::RemoveChildOf(c) => {
                let child = pick(&handles, c);
                let removed = world.remove::<(ChildOf,)>(child);
                let had = model.nodes.get(&child).and_then(|n| n.parent);
                assert_eq!(removed.ok().map(|(c,)| c.parent()), had);
                if had.is_some() {
                    model.detach(child);
                }
            }
            Op::RemoveChildren(p) => {
                let parent = pick(&handles, p);
                let removed = world.remove::<(Children,)>(parent);
                let had = model.nodes.get(&parent).is_some_and(|n| n.has_list);
                assert_eq!(removed.is_ok(), had);
                if had {
                    let node = model.nodes.get_mut(&parent).unwrap();
                    node.has_list = false;
                    for child in std::mem::take(&mut node.children) {
                        model.nodes.get_mut(&child).unwrap().parent = None;
                    }
                }
            }
        }
        compare(&world, &model, &handles);
    }
}

fn compare(world: &World, model: &Model, handles: &[Entity]) {
    assert_eq!(world.len(), model.nodes.len());
    for &e in handles {
        match model.nodes.get(&e) {
            None => {
                assert!(!world.contains(e));
                assert!(world.children(e).is_err());
            }
            Some(node) => {
                assert_eq!(world.parent(e), node.parent, "parent of {e}");
                assert_eq!(world.children(e).unwrap(), node.children.as_slice(), "children of {e}");
                assert_eq!(world.get::<Children>(e).is_ok(), node.has_list, "list of {e}");
                let ancestors: Vec<Entity> = world.ancestors(e).collect();
                let mut expected = Vec::new();
                let mut at = node.parent;
                while let Some(up) = at {
                    expected.push(up);
                    at = model.nodes[&up].parent;
                }
                assert_eq!(ancestors, expected);
                let mut expected = Vec::new();
                let mut stack: Vec<Entity> = node.children.iter().rev().copied().collect();
                while let Some(d) = stack.pop() {
                    expected.push(d);
                    stack.extend(model.nodes[&d].children.iter().rev());
                }
                assert_eq!(world.descendants(e).collect::<Vec<_>>(), expected);
            }
        }
    }
    let mut roots: Vec<Entity> = world.roots().collect();
    let mut expected: Vec<Entity> =
        model.nodes.iter().filter(|(_, n)| n.parent.is_none() && !n.children.is_empty()).map(|(&e, _)| e).collect();
    roots.sort();
    expected.sort();
    assert_eq!(roots, expected);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    #[test]
    fn relations_follow_the_model(ops in prop::collection::vec(op(), 1..80)) {
        run(&ops);
    }
}
