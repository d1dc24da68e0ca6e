//! One-component insert and remove (`insert_one`, `remove_one`) on `World` and
//! `Commands`, and the entity views (`EntityMut`, `EntityCommands`): the same
//! behaviour as the one-element tuple forms.

use ripple::prelude::*;
use ripple::{CommandQueue, ComponentError, MissingComponent, NoSuchEntity, Storage};

#[derive(Debug, PartialEq)]
struct Shield(u32);
#[derive(Debug, PartialEq)]
struct Cloaked;

#[test]
fn world_inserts_replaces_and_removes_one_component() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = World::new();
        world.set_storage::<Shield>(storage).unwrap();
        let ship = world.spawn((Cloaked,));
        world.insert_one(ship, Shield(1)).unwrap();
        world.insert_one(ship, Shield(2)).unwrap();
        assert_eq!(world.get::<Shield>(ship), Ok(&Shield(2)), "{storage:?}: replaced");
        assert_eq!(world.remove_one::<Shield>(ship), Ok(Shield(2)));
        let missing = MissingComponent { entity: ship, component: std::any::type_name::<Shield>() };
        assert_eq!(world.remove_one::<Shield>(ship), Err(missing.into()));
        assert!(world.entity(ship).unwrap().has::<Cloaked>(), "{storage:?}: the rest stays");
        world.despawn(ship).unwrap();
        assert_eq!(world.insert_one(ship, Shield(3)), Err(NoSuchEntity(ship)));
        assert_eq!(world.remove_one::<Cloaked>(ship), Err(ComponentError::NoSuchEntity(NoSuchEntity(ship))));
    }
}

#[test]
fn commands_insert_and_remove_one_component() {
    let mut world = World::new();
    let ship = world.spawn(());
    let gone = world.spawn(());
    world.despawn(gone).unwrap();
    let mut schedule = Schedule::new();
    schedule
        .add_system(&mut world, move |mut commands: Commands<'_, '_>, shields: Query<'_, '_, &Shield>| {
            if shields.iter().count() == 0 {
                commands.insert_one(ship, Shield(5));
                commands.insert_one(gone, Shield(6));
            } else {
                commands.remove_one::<Shield>(ship);
            }
        })
        .unwrap();
    schedule.run(&mut world);
    assert_eq!(world.get::<Shield>(ship), Ok(&Shield(5)));
    let failed: Vec<_> = world.drain_failed_commands().collect();
    assert_eq!(failed.len(), 1, "the insert on a despawned entity is recorded: {failed:?}");
    schedule.run(&mut world);
    assert!(world.get::<Shield>(ship).is_err());
}

#[test]
fn entity_mut_view_inserts_removes_and_reports_a_despawned_entity() {
    for storage in [Storage::Table, Storage::SparseSet] {
        let mut world = World::new();
        world.set_storage::<Shield>(storage).unwrap();
        let ship = world.spawn((Cloaked,));
        let mut view = world.entity_mut(ship).unwrap();
        assert_eq!(view.id(), ship);
        view.insert_one(Shield(1)).unwrap().insert((Shield(2),)).unwrap();
        view.get_mut::<Shield>().unwrap().0 += 1;
        assert_eq!(view.get::<Shield>(), Ok(&Shield(3)), "{storage:?}");
        assert!(view.has::<Shield>() && view.has::<Cloaked>());
        assert_eq!(view.remove_one::<Shield>(), Ok(Shield(3)));
        assert_eq!(view.remove::<(Cloaked,)>(), Ok((Cloaked,)));
        assert!(view.as_readonly().unwrap().component_names().next().is_none());
        view.despawn().unwrap();
        assert!(!world.contains(ship));
        assert_eq!(world.entity_mut(ship).err(), Some(NoSuchEntity(ship)));
    }
}

#[test]
fn entity_mut_view_survives_a_hook_that_despawns_its_entity() {
    let mut world = World::new();
    world.on_add::<Shield>(|ctx| {
        let entity = ctx.entity;
        ctx.commands.despawn(entity);
    });
    let ship = world.spawn((Cloaked,));
    let mut view = world.entity_mut(ship).unwrap();
    assert!(view.insert_one(Shield(1)).is_ok(), "the insert itself succeeds");
    assert!(!view.is_alive(), "its hook despawned the entity");
    assert!(!view.has::<Cloaked>());
    assert_eq!(view.insert_one(Cloaked).err(), Some(NoSuchEntity(ship)));
    assert_eq!(view.remove_one::<Cloaked>(), Err(ComponentError::NoSuchEntity(NoSuchEntity(ship))));
    assert_eq!(format!("{view:?}"), format!("EntityMut {{ entity: {ship:?}, alive: false }}"));
}

#[test]
fn entity_commands_queue_for_one_entity() {
    let mut world = World::new();
    let mut queue = CommandQueue::default();
    let mut commands = queue.commands(&world);
    let ship = commands.spawn((Cloaked,));
    commands.entity(ship).insert_one(Shield(4)).remove_one::<Cloaked>();
    let doomed = commands.spawn(());
    commands.entity(doomed).despawn();
    commands.entity(doomed).insert_one(Shield(9));
    queue.apply(&mut world);
    assert_eq!(world.get::<Shield>(ship), Ok(&Shield(4)));
    assert!(world.get::<Cloaked>(ship).is_err());
    assert!(!world.contains(doomed));
    let failed: Vec<_> = world.drain_failed_commands().collect();
    assert_eq!(failed.len(), 1, "the insert after the despawn is recorded: {failed:?}");
    assert_eq!(failed[0].command, "insert");
}
