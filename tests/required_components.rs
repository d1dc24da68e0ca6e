//! Required components (bevy_ecs's `#[require(..)]`): an entity given `A` gets what `A`
//! requires, by default or by constructor, through chains, unless given explicitly.

use ripple::prelude::*;
use ripple::{CommandQueue, RequiredComponentsError};

#[derive(Default, Debug, PartialEq)]
struct Health(u32);
#[derive(Debug, PartialEq)]
struct Mana(u32);
#[derive(Default, Debug, PartialEq)]
struct Regen(u32);
struct Player;

fn world() -> World {
    let mut world = World::new();
    world.register_required_components::<Player, Health>().unwrap();
    world.register_required_components_with::<Player, Mana>(|| Mana(50)).unwrap();
    world.register_required_components::<Health, Regen>().unwrap();
    world
}

#[test]
fn an_entity_given_a_component_gets_what_it_requires_through_chains() {
    let mut world = world();
    let player = world.spawn((Player,));
    assert_eq!(world.get::<Health>(player).unwrap(), &Health(0));
    assert_eq!(world.get::<Mana>(player).unwrap(), &Mana(50));
    assert_eq!(world.get::<Regen>(player).unwrap(), &Regen(0));
    // Given explicitly, the explicit value stays.
    let tough = world.spawn((Player, Health(300), Regen(5)));
    assert_eq!(world.get::<Health>(tough).unwrap(), &Health(300));
    assert_eq!(world.get::<Regen>(tough).unwrap(), &Regen(5));
    // Inserted later, the same.
    let late = world.spawn(());
    world.insert_one(late, Player).unwrap();
    assert_eq!(world.get::<Mana>(late).unwrap(), &Mana(50));
}

#[test]
fn commands_get_required_components_at_the_sync_point() {
    let mut world = world();
    let mut queue = CommandQueue::default();
    let mut commands = queue.commands(&world);
    let player = commands.spawn((Player,));
    queue.apply(&mut world);
    assert_eq!(world.get::<Regen>(player).unwrap(), &Regen(0));
    // Removing the requiring component leaves the required ones, as in bevy_ecs.
    world.remove_one::<Player>(player).unwrap();
    assert!(world.get::<Health>(player).is_ok());
}

#[test]
fn requirements_are_refused_when_duplicate_or_too_late() {
    let mut world = world();
    assert_eq!(
        world.register_required_components::<Player, Health>(),
        Err(RequiredComponentsError::Duplicate {
            component: std::any::type_name::<Player>(),
            required: std::any::type_name::<Health>(),
        })
    );
    struct Enemy;
    world.spawn((Enemy,));
    let refused = world.register_required_components::<Enemy, Health>();
    assert!(matches!(refused, Err(RequiredComponentsError::EntitiesExist { .. })));
    // Nothing registered: a new enemy gets no health.
    let enemy = world.spawn((Enemy,));
    assert!(world.get::<Health>(enemy).is_err());
}
