//! Deep trees cost what their operations touch, not their depth: a new child under a
//! deep leaf, and a scene load of a deep chain in any record order, walk no ancestors.
//! The work is counted (ancestors visited by cycle checks), not timed.

use ripple::hierarchy::ChildOf;
use ripple::scene::SceneRegistry;
use ripple::{Entity, World};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
struct Depth(u32);

const N: usize = 20_000;

/// A chain of `n` entities, `chain[0]` the root, built bottom-up (each link attaches
/// an entity that has no parent yet, so no check walks, before or after the fix).
fn chain(world: &mut World, n: usize) -> Vec<Entity> {
    let chain: Vec<Entity> = (0..n as u32).map(|d| world.spawn((Depth(d),))).collect();
    for i in (0..n - 1).rev() {
        world.set_parent(chain[i + 1], chain[i]).unwrap();
    }
    chain
}

/// Each entity of `chain` is the only child of the one before.
fn assert_chain(world: &World, chain: &[Entity]) {
    for pair in chain.windows(2) {
        assert_eq!(world.parent(pair[1]), Some(pair[0]));
        assert_eq!(world.children(pair[0]).unwrap(), [pair[1]]);
    }
    assert!(world.children(*chain.last().unwrap()).unwrap().is_empty());
}

/// Failed before the fix: every new child under the leaf walked all N ancestors.
#[test]
fn spawning_under_a_deep_leaf_walks_no_ancestors() {
    let mut world = World::new();
    let chain = chain(&mut world, N);
    let leaf = *chain.last().unwrap();
    let before = world.cycle_check_steps_for_tests();
    for _ in 0..2_000 {
        world.spawn_child(leaf, (Depth(N as u32),)).unwrap();
    }
    assert_eq!(world.cycle_check_steps_for_tests(), before, "a new entity cannot close a cycle");
    assert_eq!(world.children(leaf).unwrap().len(), 2_000);
    // A chain built top-down through spawn_child costs nothing either.
    let mut top = world.spawn((Depth(0),));
    for d in 1..N as u32 {
        top = world.spawn_child(top, (Depth(d),)).unwrap();
    }
    assert_eq!(world.ancestors(top).count(), N - 1);
    assert_eq!(world.cycle_check_steps_for_tests(), before);
}

#[test]
fn reparenting_costs_at_most_the_new_parents_depth_and_still_refuses_cycles() {
    let mut world = World::new();
    let chain = chain(&mut world, 1_000);
    // A leaf moves anywhere without a walk.
    let leaf = world.spawn_child(chain[10], (Depth(11),)).unwrap();
    let before = world.cycle_check_steps_for_tests();
    world.set_parent(leaf, chain[999]).unwrap();
    assert_eq!(world.cycle_check_steps_for_tests(), before);
    // An entity with children walks up from its new parent.
    let branch = world.spawn((Depth(0),));
    world.spawn_child(branch, (Depth(1),)).unwrap();
    let before = world.cycle_check_steps_for_tests();
    world.set_parent(branch, chain[500]).unwrap();
    assert!(world.cycle_check_steps_for_tests() - before <= 500, "at most the depth of the new parent");
    // The walk still finds a cycle, and nothing changes.
    assert!(world.set_parent(chain[100], chain[900]).is_err());
    assert_eq!(world.parent(chain[100]), Some(chain[99]));
    assert_eq!(world.ancestors(chain[900]).count(), 900);
}

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry.component::<Depth>("depth").unwrap();
    registry.component::<ChildOf>("child_of").unwrap();
    registry
}

/// A JSON scene of the records `order` (indices into a chain whose entity `i` has the
/// id [`file_id`]`(i)`, and whose root is a child of `world_parent` if given).
fn chain_scene(order: &[usize], world_parent: Option<Entity>) -> String {
    let records: Vec<String> = order
        .iter()
        .map(|&i| {
            let parent = match (i, world_parent) {
                (0, None) => String::new(),
                (0, Some(p)) => format!(r#", "child_of": "{p}""#),
                _ => format!(r#", "child_of": "{}""#, file_id(i - 1)),
            };
            format!(r#"{{"id": "{}", "components": {{"depth": {i}{parent}}}}}"#, file_id(i))
        })
        .collect();
    format!(r#"{{"entities": [{}]}}"#, records.join(", "))
}

/// The id chain entity `i` has in [`chain_scene`], far from the world's own ids (a
/// reference resolves to a record of the scene before an entity of the world).
fn file_id(i: usize) -> Entity {
    Entity::from_bits((1 << 32) | (i as u64 + 1_000_000)).unwrap()
}

/// Failed before the fix: a chain listed root first checked every link against all
/// its ancestors (quadratic), though the load had checked the file for cycles.
#[test]
fn a_deep_chain_loads_without_walking_ancestors_in_any_order() {
    let registry = registry();
    let root_first: Vec<usize> = (0..N).collect();
    let leaf_first: Vec<usize> = (0..N).rev().collect();
    // The chain's top half, root first, then the bottom half leaf first: each link of
    // the bottom half attaches an entity with children below a deep one.
    let mixed: Vec<usize> = (0..N / 2).chain((N / 2..N).rev()).collect();
    for (name, order) in [("root first", root_first), ("leaf first", leaf_first), ("mixed", mixed)] {
        let mut world = World::new();
        let outside = chain(&mut world, 100);
        let before = world.cycle_check_steps_for_tests();
        let loaded = registry.load_json(&mut world, chain_scene(&order, Some(outside[99]))).unwrap();
        assert_eq!(world.cycle_check_steps_for_tests(), before, "{name}");
        let chain: Vec<Entity> = (0..N).map(|i| loaded.entity(file_id(i)).unwrap()).collect();
        assert_chain(&world, &chain);
        assert_eq!(world.parent(chain[0]), Some(outside[99]), "{name}");
        assert_eq!(world.ancestors(chain[N - 1]).count(), N - 1 + 100, "{name}");
        assert!(world.failed_commands().is_empty(), "{name}");
        // Saved and loaded again (binary this time), it is the same chain.
        let mut binary = Vec::new();
        registry.save(&world).entities(chain.iter().copied()).to_binary(&mut binary).unwrap();
        let before = world.cycle_check_steps_for_tests();
        let again = registry.load_binary(&mut world, &binary).unwrap();
        assert_eq!(world.cycle_check_steps_for_tests(), before, "{name}, binary");
        let copy: Vec<Entity> = chain.iter().map(|&e| again.entity(e).unwrap()).collect();
        assert_chain(&world, &copy);
        assert_eq!(world.parent(copy[0]), Some(outside[99]), "{name}, binary");
    }
}
