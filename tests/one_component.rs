//! One-component insert and remove (`insert_one`, `remove_one`) on `World` and
//! `Commands`: the same behaviour as the one-element tuple forms.

use ripple::prelude::*;
use ripple::{ComponentError, MissingComponent, NoSuchEntity, Storage};

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
        .add_system(&mut world, move |mut commands: Commands<'_, '_>, mut shields: Query<'_, '_, &Shield>| {
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
