//! Entity disabling (bevy_ecs's `Disabled`): queries that do not name `Disabled` skip
//! entities that have it; naming it anywhere (data, `With`, `Without`, `Option`, `Or`)
//! shows them; direct access still reaches them; and the world's own followers of
//! changes (change observers) lose nothing while an entity is disabled.

#![allow(elided_lifetimes_in_paths, reason = "system signatures read as a bevy user writes them")]

use ripple::dynamic::ComponentDescriptor;
use ripple::prelude::*;
use ripple::{ComponentId, Disabled, Storage};

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Name(&'static str);
struct Shape;

fn shapes() -> (World, [Entity; 3]) {
    let mut world = World::new();
    let shapes = ["Annulus", "Bestagon", "Rhombus"].map(|name| world.spawn((Name(name), Shape)));
    (world, shapes)
}

fn names<F: ripple::query::QueryFilter + 'static>(world: &mut World) -> Vec<&'static str> {
    let mut query = world.query_filtered::<&Name, F>();
    let mut names: Vec<_> = query.iter(world).map(|n| n.0).collect();
    names.sort_unstable();
    names
}

#[test]
fn a_query_that_does_not_name_disabled_skips_disabled_entities() {
    let (mut world, [annulus, _, rhombus]) = shapes();
    world.insert_one(annulus, Disabled).unwrap();
    world.insert_one(rhombus, Disabled).unwrap();
    assert_eq!(names::<()>(&mut world), ["Bestagon"]);
    assert_eq!(names::<With<Shape>>(&mut world), ["Bestagon"]);
    // Naming `Disabled` shows them.
    assert_eq!(names::<With<Disabled>>(&mut world), ["Annulus", "Rhombus"]);
    assert_eq!(names::<Without<Disabled>>(&mut world), ["Bestagon"]);
    assert_eq!(names::<Or<(With<Disabled>, With<Shape>)>>(&mut world), ["Annulus", "Bestagon", "Rhombus"]);
    let mut all = world.query::<(&Name, Option<&Disabled>)>();
    let mut seen: Vec<_> = all.iter(&world).map(|(n, d)| (n.0, d.is_some())).collect();
    seen.sort_unstable();
    assert_eq!(seen, [("Annulus", true), ("Bestagon", false), ("Rhombus", true)]);
    // Direct access still reaches a disabled entity; a query's `get` does not.
    assert_eq!(world.get::<Name>(annulus).unwrap().0, "Annulus");
    let mut plain = world.query::<&Name>();
    assert!(plain.get(&world, annulus).is_err());
    // Enabled again: seen again.
    world.remove_one::<Disabled>(annulus).unwrap();
    assert_eq!(names::<()>(&mut world), ["Annulus", "Bestagon"]);
}

#[test]
fn systems_skip_disabled_entities_and_commands_disable_and_enable() {
    #[derive(Default)]
    struct Listed(Vec<Vec<&'static str>>);
    struct Click(Option<Entity>);
    struct Space(bool);
    fn list(query: Query<&Name>, mut listed: ResMut<Listed>) {
        let mut names: Vec<_> = query.iter().map(|n| n.0).collect();
        names.sort_unstable();
        listed.0.push(names);
    }
    fn disable_on_click(click: Res<Click>, mut commands: Commands) {
        if let Some(entity) = click.0 {
            commands.entity(entity).insert_one(Disabled);
        }
    }
    fn reenable_on_space(space: Res<Space>, disabled: Query<Entity, With<Disabled>>, mut commands: Commands) {
        if space.0 {
            for entity in disabled.iter() {
                commands.entity(entity).remove_one::<Disabled>();
            }
        }
    }
    let (mut world, [annulus, bestagon, _]) = shapes();
    world.init_resource::<Listed>();
    world.insert_resource(Click(None));
    world.insert_resource(Space(false));
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, disable_on_click.in_phase(ripple::schedule::PRE_UPDATE)).unwrap();
    schedule.add_systems(&mut world, (list, reenable_on_space)).unwrap();
    schedule.run(&mut world);
    world.insert_resource(Click(Some(annulus)));
    schedule.run(&mut world);
    world.insert_resource(Click(Some(bestagon)));
    schedule.run(&mut world);
    world.insert_resource(Click(None));
    world.insert_resource(Space(true));
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(
        world.resource::<Listed>().unwrap().0,
        [
            vec!["Annulus", "Bestagon", "Rhombus"],
            vec!["Bestagon", "Rhombus"],
            vec!["Rhombus"],
            vec!["Rhombus"],
            vec!["Annulus", "Bestagon", "Rhombus"],
        ]
    );
}

#[test]
fn dynamic_queries_skip_disabled_entities_unless_they_name_disabled() {
    let mut world = World::new();
    let hp = world.register_component(ComponentDescriptor::new("hp", 4, 4).unwrap());
    let disabled = world.component_id::<Disabled>().unwrap();
    let a = world.spawn(());
    let b = world.spawn((Disabled,));
    for e in [a, b] {
        world.insert_by_id(e, hp, &1u32.to_le_bytes()).unwrap();
    }
    let count = |world: &mut World, builder: fn(&mut World, ComponentId, ComponentId) -> _| {
        let mut query: ripple::dynamic::DynamicQuery = builder(world, hp, disabled);
        let mut seen = Vec::new();
        query.for_each_mut(world, |item| seen.push(item.entity()));
        seen
    };
    assert_eq!(count(&mut world, |w, hp, _| w.dynamic_query().read(hp).build().unwrap()), [a]);
    assert_eq!(count(&mut world, |w, hp, d| w.dynamic_query().read(hp).with(d).build().unwrap()), [b]);
}

#[test]
fn change_observers_see_changes_made_while_an_entity_is_disabled() {
    struct Hp(u32);
    #[derive(Default)]
    struct Seen(Vec<u32>);
    let mut world = World::new();
    world.init_resource::<Seen>();
    world
        .add_observer(|t: Trigger<OnChange<Hp>>, mut seen: ResMut<Seen>, hp: Query<(&Hp, Option<&Disabled>)>| {
            seen.0.push(hp.get(t.entity()).unwrap().0.0);
        })
        .unwrap();
    let e = world.spawn((Hp(10), Disabled));
    world.flush();
    world.get_mut::<Hp>(e).unwrap().0 = 7;
    world.flush();
    // The spawn, then the write made while disabled.
    assert_eq!(world.resource::<Seen>().unwrap().0, [10, 7]);
}

#[test]
fn disabled_stays_in_tables() {
    let mut world = World::new();
    assert!(world.set_storage::<Disabled>(Storage::SparseSet).is_err());
    assert_eq!(world.storage::<Disabled>(), Storage::Table);
}
