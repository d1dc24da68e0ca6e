//! bevy's `relationships`: a relationship of one's own. `Targeting(entity)` names the
//! unit an entity targets; the world keeps each target's list of the entities
//! targeting it (bevy: `TargetedBy`; ripple: `Related<Targeting>`). The example builds
//! a graph with a cycle, prints it, retargets an entity, looks for cycles with a
//! system that returns a `Result`, and breaks the cycle by removing a relationship.
//!
//! bevy, like this port, works on a bare `World`, running systems one at a time
//! (`World::run_system_once`).

use std::collections::BTreeSet;
use std::fmt;

use ripple::prelude::*;
use ripple::relation::{Related, Relation};

/// bevy: `bevy::ecs::name::Name`.
#[derive(Clone)]
struct Name(&'static str);

impl fmt::Display for Name {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)
    }
}

/// The entity this entity is targeting: the source of truth for the relationship, and
/// replaced (not written in place) to change the target.
// bevy: `#[derive(Component)] #[relationship(relationship_target = TargetedBy)]`, and
// a second component, `#[relationship_target(relationship = Targeting)] struct
// TargetedBy(Vec<Entity>)`, for the other side. A ripple relation implements
// `Relation`; the other side is `Related<Targeting>`, which the world keeps.
#[derive(Debug)]
struct Targeting(Entity);

impl Relation for Targeting {
    fn target(&self) -> Entity {
        self.0
    }
    fn to(target: Entity) -> Self {
        Targeting(target)
    }
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
    }
}

/// All entities targeting this entity, kept by the world (bevy: `TargetedBy`).
type TargetedBy = Related<Targeting>;

/// Spawns a few entities related in a complex way: Bob targets Alice, Charlie Bob,
/// and Alice Charlie (a loop); James and Devon target Charlie.
fn spawning_entities_with_relationships(mut commands: Commands) {
    // bevy: `commands.spawn(..).id()`; ripple's `spawn` returns the (reserved) entity.
    let alice = commands.spawn((Name("Alice"),));
    // Relations are just components: they go into the spawned bundle.
    let bob = commands.spawn((Name("Bob"), Targeting(alice)));
    let charlie = commands.spawn((Name("Charlie"), Targeting(bob)));
    commands
        .entity(charlie)
        // Spawns a bundle with a `Targeting` relationship to `charlie`.
        .with_related::<Targeting>((Name("James"),))
        // Everything spawned in the closure targets `charlie`.
        .with_related_entities::<Targeting>(|related_spawner_commands| {
            related_spawner_commands.spawn((Name("Devon"),));
        });
    // Inserting `Targeting` creates and updates the target's list, at any time.
    commands.entity(alice).insert((Targeting(charlie),));
}

fn debug_relationships(
    // Not every entity is targeted: `Option` handles those.
    relations_query: Query<(&Name, &Targeting, Option<&TargetedBy>)>,
    name_query: Query<&Name>,
) {
    let mut relationships = String::new();

    for (name, targeting, maybe_targeted_by) in relations_query.iter() {
        let targeting_name = name_query.get(targeting.0).unwrap();
        // bevy: the list component is removed with its last entity, so `None` means
        // nobody; ripple keeps an emptied `Related` list (it keeps its capacity), so
        // an empty one means nobody too.
        let targeted_by_string = match maybe_targeted_by {
            Some(targeted_by) if !targeted_by.is_empty() => {
                let vec_of_names: Vec<&Name> =
                    targeted_by.iter().map(|entity| name_query.get(*entity).unwrap()).collect();
                let vec_of_str: Vec<&str> = vec_of_names.iter().map(|name| name.0).collect();
                vec_of_str.join(", ")
            }
            _ => "nobody".to_string(),
        };
        relationships
            .push_str(&format!("{name} is targeting {targeting_name}, and is targeted by {targeted_by_string}\n"));
    }

    say!("{relationships}");
}

/// Makes Devon target Alice, by inserting a new `Targeting`: the lists follow.
// bevy: relationship components are immutable, so they are replaced, not written;
// ripple's relations are read-only to queries for the same reason.
fn mutate_relationships(name_query: Query<(Entity, &Name)>, mut commands: Commands) {
    let devon = name_query.iter().find(|(_entity, name)| name.0 == "Devon").unwrap().0;
    let alice = name_query.iter().find(|(_entity, name)| name.0 == "Alice").unwrap().0;

    say!("Making Devon target Alice.\n");
    commands.entity(devon).insert((Targeting(alice),));
}

/// A cycle found by `check_for_cycles`.
// bevy: `visited: EntityHashSet`; a `BTreeSet` prints its entities in order.
#[derive(Debug)]
#[expect(dead_code, reason = "Rust considers types that are only used by their debug trait as dead code.")]
struct TargetingCycle {
    initial_entity: Entity,
    visited: BTreeSet<Entity>,
}

/// Looks for cycles with a depth-first walk from every targeting entity; a system can
/// return an error.
fn check_for_cycles(
    query_to_check: Query<Entity, With<Targeting>>,
    name_query: Query<&Name>,
    targeting_query: Query<&Targeting>,
) -> Result<(), TargetingCycle> {
    for initial_entity in query_to_check.iter() {
        let mut visited = BTreeSet::new();
        let mut targeting_name = name_query.get(initial_entity).unwrap().clone();
        say!("Checking for cycles starting at {targeting_name}");

        // bevy: `targeting_query.iter_ancestors(initial_entity)`, which follows any
        // relationship; ripple walks up `ChildOf` only (`World::ancestors`), so the
        // port follows `Targeting` itself.
        let mut current = initial_entity;
        while let Ok(Targeting(targeting)) = targeting_query.get(current) {
            let targeting = *targeting;
            let target_name = name_query.get(targeting).unwrap();
            say!("{targeting_name} is targeting {target_name}");
            targeting_name = target_name.clone();

            if !visited.insert(targeting) {
                return Err(TargetingCycle { initial_entity, visited });
            }
            current = targeting;
        }
    }

    // Every entity checked and no cycle: good.
    Ok(())
}

/// Breaks the cycle by removing Charlie's relationship.
fn untarget(mut commands: Commands, name_query: Query<(Entity, &Name)>) {
    let charlie = name_query.iter().find(|(_entity, name)| name.0 == "Charlie").unwrap().0;

    say!("Removing Charlie's targeting relationship.\n");
    commands.entity(charlie).remove::<(Targeting,)>();
}

/// Builds, prints, changes and checks the graph.
pub fn main() {
    let mut world = World::new();
    // bevy: deriving `Relationship` registers its hooks with the component; a ripple
    // relation is registered with the world once.
    world.register_relation::<Targeting>();

    world.run_system_once(spawning_entities_with_relationships).unwrap();
    world.run_system_once(debug_relationships).unwrap();

    world.run_system_once(mutate_relationships).unwrap();
    world.run_system_once(debug_relationships).unwrap();

    // bevy: `run_system_once` returns the system's output inside its own `Result`;
    // ripple's does the same.
    let cycle_result = world.run_system_once(check_for_cycles).unwrap();
    say!("{cycle_result:?} \n");
    // There is a cycle, made on purpose while spawning.
    assert!(cycle_result.is_err());

    world.run_system_once(untarget).unwrap();
    world.run_system_once(debug_relationships).unwrap();
    // Cycle free!
    let cycle_result = world.run_system_once(check_for_cycles).unwrap();
    say!("{cycle_result:?} \n");
    assert!(cycle_result.is_ok());
}
