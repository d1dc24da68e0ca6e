//! relations: the upkeep of a relation between entities. One pass: spawn 10 targets
//! and 100 sources, relate each source to a target (an insert), retarget each to the
//! next target, unrelate half (a removal), despawn the targets (which takes the
//! sources still related along), then despawn the sources left. Every line uses a
//! relation whose targets' despawn takes their sources along: ripple's user relation
//! (`HeldBy`, the line issue 47's bars are about), ripple's `ChildOf`, and bevy's own
//! relationship of that kind (`#[relationship]` with `linked_spawn`) and its
//! `ChildOf`. Each world is reused pass after pass, so the lines measure steady
//! upkeep, not first-time registration. Shared by `benches/relations.rs` and the
//! paired tool.

use crate::Pass;

const TARGETS: usize = 10;
const SOURCES: usize = 100;

/// ripple's user relation of the benchmark.
pub struct HeldBy(pub ripple::Entity);

impl ripple::relation::Relation for HeldBy {
    const ON_TARGET_DESPAWN: ripple::relation::DespawnPolicy = ripple::relation::DespawnPolicy::DespawnRelated;
    fn target(&self) -> ripple::Entity {
        self.0
    }
    fn to(target: ripple::Entity) -> Self {
        HeldBy(target)
    }
    fn set_target(&mut self, target: ripple::Entity) {
        self.0 = target;
    }
}

/// bevy's relationship of the same kind.
#[derive(bevy_ecs::component::Component)]
#[relationship(relationship_target = BevyHolds)]
pub struct BevyHeldBy(pub bevy_ecs::entity::Entity);

/// bevy's list on the target, whose despawn takes the sources along.
#[derive(bevy_ecs::component::Component)]
#[relationship_target(relationship = BevyHeldBy, linked_spawn)]
pub struct BevyHolds(Vec<bevy_ecs::entity::Entity>);

/// One pass on ripple, relating with `relate` (`child_of`: through `set_parent`).
fn ripple_pass(world: &mut ripple::World, child_of: bool, sources: &mut Vec<ripple::Entity>) {
    let targets: [ripple::Entity; TARGETS] = std::array::from_fn(|_| world.spawn(()));
    sources.clear();
    for i in 0..SOURCES {
        let source = world.spawn(());
        sources.push(source);
        let target = targets[i % TARGETS];
        if child_of { world.set_parent(source, target).unwrap() } else { world.relate(source, HeldBy(target)).unwrap() }
    }
    for (i, &source) in sources.iter().enumerate() {
        let target = targets[(i + 1) % TARGETS];
        if child_of { world.set_parent(source, target).unwrap() } else { world.relate(source, HeldBy(target)).unwrap() }
    }
    for &source in &sources[..SOURCES / 2] {
        if child_of {
            world.remove_parent(source).unwrap();
        } else {
            world.unrelate::<HeldBy>(source).unwrap();
        }
    }
    for target in targets {
        world.despawn(target).unwrap();
    }
    for &source in &sources[..SOURCES / 2] {
        world.despawn(source).unwrap();
    }
    debug_assert!(world.is_empty());
}

/// One pass on bevy, with `BevyHeldBy` (`child_of`: with bevy's `ChildOf`).
fn bevy_pass(world: &mut bevy_ecs::world::World, child_of: bool, sources: &mut Vec<bevy_ecs::entity::Entity>) {
    use bevy_ecs::hierarchy::ChildOf;
    let targets: [bevy_ecs::entity::Entity; TARGETS] = std::array::from_fn(|_| world.spawn_empty().id());
    sources.clear();
    for i in 0..SOURCES {
        let target = targets[i % TARGETS];
        let source = if child_of { world.spawn(ChildOf(target)).id() } else { world.spawn(BevyHeldBy(target)).id() };
        sources.push(source);
    }
    for (i, &source) in sources.iter().enumerate() {
        let target = targets[(i + 1) % TARGETS];
        if child_of {
            world.entity_mut(source).insert(ChildOf(target));
        } else {
            world.entity_mut(source).insert(BevyHeldBy(target));
        }
    }
    for &source in &sources[..SOURCES / 2] {
        if child_of {
            world.entity_mut(source).remove::<ChildOf>();
        } else {
            world.entity_mut(source).remove::<BevyHeldBy>();
        }
    }
    for target in targets {
        world.despawn(target);
    }
    for &source in &sources[..SOURCES / 2] {
        world.despawn(source);
    }
    debug_assert_eq!(world.entities().count_spawned(), 0);
}

/// The lines, ripple's user relation first.
pub fn lines() -> Vec<(&'static str, Pass)> {
    let ripple_line = |child_of: bool| -> Pass {
        let mut world = ripple::World::new();
        world.register_relation::<HeldBy>();
        let mut sources = Vec::new();
        ripple_pass(&mut world, child_of, &mut sources);
        assert!(world.is_empty(), "a pass leaves nothing behind");
        Box::new(move || ripple_pass(&mut world, child_of, &mut sources))
    };
    let bevy_line = |child_of: bool| -> Pass {
        let mut world = bevy_ecs::world::World::new();
        let mut sources = Vec::new();
        bevy_pass(&mut world, child_of, &mut sources);
        Box::new(move || bevy_pass(&mut world, child_of, &mut sources))
    };
    vec![
        ("ripple", ripple_line(false)),
        ("ripple ChildOf", ripple_line(true)),
        ("bevy_ecs relationship", bevy_line(false)),
        ("bevy_ecs ChildOf", bevy_line(true)),
    ]
}
