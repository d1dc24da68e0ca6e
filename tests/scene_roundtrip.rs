//! Property: any world saved and loaded, through JSON or binary, into an empty world
//! or one that has entities, gives the same entities and values up to the remap of
//! their handles.

use std::collections::HashMap;

use proptest::prelude::*;
use ripple::scene::{Loaded, SceneRegistry};
use ripple::{Entity, Storage, World};
use serde::{Deserialize, Serialize};

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Position(f32, f32);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Name(String);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Target(Entity);

#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Links {
    all: Vec<Entity>,
    best: Option<Entity>,
}

/// A sparse-set marker.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
struct Moving;

/// One entity to build: which components, and references by position in the list.
#[derive(Debug, Clone)]
struct Plan {
    position: Option<(i16, i16)>,
    name: Option<String>,
    target: Option<usize>,
    links: Option<(Vec<usize>, Option<usize>)>,
    moving: bool,
    /// Despawned after building (a gap in the entity space; nothing may refer to it,
    /// so references to it are dropped).
    despawn: bool,
}

fn plan(len: usize) -> impl Strategy<Value = Plan> {
    (
        proptest::option::of((any::<i16>(), any::<i16>())),
        proptest::option::of("[a-z\"\\\\ é]{0,6}"),
        proptest::option::of(0..len),
        proptest::option::of((proptest::collection::vec(0..len, 0..4), proptest::option::of(0..len))),
        any::<bool>(),
        proptest::bool::weighted(0.2),
    )
        .prop_map(|(position, name, target, links, moving, despawn)| Plan {
            position,
            name,
            target,
            links,
            moving,
            despawn,
        })
}

fn plans() -> impl Strategy<Value = Vec<Plan>> {
    (1usize..24).prop_flat_map(|len| proptest::collection::vec(plan(len), len))
}

fn registry() -> SceneRegistry {
    let mut registry = SceneRegistry::new();
    registry
        .component::<Position>("position")
        .unwrap()
        .component::<Name>("name")
        .unwrap()
        .component::<Target>("target")
        .unwrap()
        .component::<Links>("links")
        .unwrap()
        .component::<Moving>("moving")
        .unwrap();
    registry
}

fn world_with_storage() -> World {
    let mut world = World::new();
    world.set_storage::<Moving>(Storage::SparseSet).unwrap();
    world
}

/// Builds the planned world; returns the surviving entities.
fn build(plans: &[Plan]) -> (World, Vec<Entity>) {
    let mut world = world_with_storage();
    let entities: Vec<Entity> = plans.iter().map(|_| world.spawn(())).collect();
    let alive = |i: usize| !plans[i].despawn;
    for (plan, &entity) in plans.iter().zip(&entities) {
        if let Some((x, y)) = plan.position {
            world.insert_one(entity, Position(x.into(), y.into())).unwrap();
        }
        if let Some(name) = &plan.name {
            world.insert_one(entity, Name(name.clone())).unwrap();
        }
        if let Some(target) = plan.target.filter(|&t| alive(t)) {
            world.insert_one(entity, Target(entities[target])).unwrap();
        }
        if let Some((all, best)) = &plan.links {
            let all = all.iter().filter(|&&i| alive(i)).map(|&i| entities[i]).collect();
            let best = best.filter(|&i| alive(i)).map(|i| entities[i]);
            world.insert_one(entity, Links { all, best }).unwrap();
        }
        if plan.moving {
            world.insert_one(entity, Moving).unwrap();
        }
    }
    for (plan, &entity) in plans.iter().zip(&entities) {
        if plan.despawn {
            world.despawn(entity).unwrap();
        }
    }
    let alive = entities.iter().zip(plans).filter(|(_, p)| !p.despawn).map(|(&e, _)| e).collect();
    (world, alive)
}

/// Checks that `copy` holds every entity of `original` at its remapped handle.
fn assert_same(original: &World, entities: &[Entity], copy: &World, loaded: &Loaded) {
    let map: HashMap<Entity, Entity> =
        entities.iter().map(|&e| (e, loaded.entity(e).expect("every saved entity"))).collect();
    assert_eq!(loaded.entities().len(), entities.len());
    let remap = |e: &Entity| map[e];
    for &e in entities {
        let new = map[&e];
        assert_eq!(original.get::<Position>(e).ok(), copy.get::<Position>(new).ok());
        assert_eq!(original.get::<Name>(e).ok(), copy.get::<Name>(new).ok());
        assert_eq!(original.get::<Target>(e).ok().map(|t| Target(remap(&t.0))), copy.get::<Target>(new).ok().cloned());
        let links = original
            .get::<Links>(e)
            .ok()
            .map(|l| Links { all: l.all.iter().map(remap).collect(), best: l.best.as_ref().map(remap) });
        assert_eq!(links, copy.get::<Links>(new).ok().cloned());
        assert_eq!(original.get::<Moving>(e).is_ok(), copy.get::<Moving>(new).is_ok());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn worlds_round_trip_up_to_the_remap(plans in plans(), prefill in 0usize..4, binary in any::<bool>()) {
        let registry = registry();
        let (world, entities) = build(&plans);
        let mut bytes = Vec::new();
        if binary {
            registry.save(&world).to_binary(&mut bytes).unwrap();
        } else {
            registry.save(&world).to_json(&mut bytes).unwrap();
        }
        // Into a world with entities and a gap of its own.
        let mut copy = world_with_storage();
        let filler: Vec<Entity> = (0..prefill + 1).map(|i| copy.spawn((Name(format!("filler {i}")),))).collect();
        copy.despawn(filler[0]).unwrap();
        let loaded = if binary { registry.load_binary(&mut copy, &bytes) } else { registry.load_json(&mut copy, &bytes) }.unwrap();
        prop_assert_eq!(copy.len(), prefill + entities.len());
        assert_same(&world, &entities, &copy, &loaded);
        // The other format from the copy gives the same world again.
        let mut again = Vec::new();
        registry.save(&copy).entities(loaded.entities().iter().copied()).to_binary(&mut again).unwrap();
        let mut third = world_with_storage();
        let reloaded = registry.load_binary(&mut third, &again).unwrap();
        prop_assert_eq!(third.len(), entities.len());
        let composed: Vec<Entity> = entities.iter().map(|&e| reloaded.entity(loaded.entity(e).unwrap()).unwrap()).collect();
        for (&e, &final_entity) in entities.iter().zip(&composed) {
            prop_assert_eq!(world.get::<Name>(e).ok(), third.get::<Name>(final_entity).ok());
        }
    }
}
