//! Entity lifecycle: stale handles, tags, many archetypes, errors, resources.

use ripple::query::With;
use ripple::{ComponentError, Entity, MissingComponent, MissingResource, NoSuchEntity, QueryEntityError, World};

#[derive(Debug, PartialEq, Clone, Copy)]
struct Pos(i32);
#[derive(Debug, PartialEq)]
struct Tag;
struct Dead;

#[test]
fn stale_handle_after_slot_reuse_never_sees_new_entity() {
    let mut world = World::new();
    let old = world.spawn((Pos(1),));
    world.despawn(old).unwrap();
    let new = world.spawn((Pos(2),));
    assert_eq!(old.index(), new.index(), "slot was reused");
    assert!(!world.contains(old));
    assert_eq!(world.get::<Pos>(old), Err(ComponentError::NoSuchEntity(NoSuchEntity(old))));
    assert!(world.get_mut::<Pos>(old).is_err());
    assert_eq!(world.insert(old, (Tag,)), Err(NoSuchEntity(old)));
    assert!(world.remove::<(Pos,)>(old).is_err());
    assert_eq!(world.despawn(old), Err(NoSuchEntity(old)));
    assert!(world.entity(old).is_err());
    let mut q = world.query::<&Pos>();
    assert_eq!(q.get(&world, old), Err(QueryEntityError::NoSuchEntity(NoSuchEntity(old))));
    assert_eq!(world.get::<Pos>(new), Ok(&Pos(2)));
    assert!(!world.entity(new).unwrap().has::<Tag>(), "the failed insert changed nothing");
}

#[test]
fn never_issued_handle_is_an_error() {
    let mut world = World::new();
    world.spawn((Pos(1),));
    let forged = Entity::from_bits((1 << 32) | 12345).unwrap();
    assert!(!world.contains(forged));
    assert_eq!(world.despawn(forged), Err(NoSuchEntity(forged)));
    let other_generation = Entity::from_bits(7 << 32).unwrap();
    assert!(world.get::<Pos>(other_generation).is_err());
}

#[test]
fn errors_say_what_went_wrong() {
    let mut world = World::new();
    let e = world.spawn((Pos(0),));
    let err = world.get::<Tag>(e).unwrap_err();
    assert_eq!(err, ComponentError::MissingComponent(MissingComponent { entity: e, component: "entities::Tag" }));
    assert_eq!(err.to_string(), format!("entity {e} has no component `entities::Tag`"));
    world.despawn(e).unwrap();
    assert_eq!(
        world.despawn(e).unwrap_err().to_string(),
        format!("entity {e} does not exist (despawned, or never spawned in this world)")
    );
    let err = world.resource::<Pos>().unwrap_err();
    assert_eq!(err, MissingResource { resource: "entities::Pos" });
    assert_eq!(err.to_string(), "the world has no resource `entities::Pos`");
}

#[test]
fn zero_sized_tags() {
    let mut world = World::new();
    let tagged: Vec<_> = (0..100).map(|i| world.spawn((Pos(i), Tag))).collect();
    let plain: Vec<_> = (0..100).map(|i| world.spawn((Pos(i),))).collect();
    let mut q = world.query_filtered::<&Pos, With<Tag>>();
    assert_eq!(q.iter(&world).count(), 100);
    let mut tags = world.query::<(Entity, &Tag)>();
    assert_eq!(tags.iter(&world).count(), 100);
    for &e in &tagged[..50] {
        let (tag,) = world.remove::<(Tag,)>(e).unwrap();
        assert_eq!(tag, Tag);
    }
    for &e in &plain[..10] {
        world.insert(e, (Tag, Dead)).unwrap();
    }
    assert_eq!(q.iter(&world).count(), 60);
    assert_eq!(world.get::<Tag>(plain[0]), Ok(&Tag));
    assert!(world.entity(plain[0]).unwrap().has::<Dead>());
    assert!(!world.entity(tagged[0]).unwrap().has::<Tag>());
}

#[test]
fn ten_thousand_entities_over_a_hundred_archetypes() {
    struct Bit<const N: usize>;
    fn toggle<const N: usize>(world: &mut World, e: Entity, on: bool) {
        if on {
            world.insert(e, (Bit::<N>,)).unwrap();
        }
    }
    let mut world = World::new();
    let mut expected = Vec::new();
    for i in 0..10_000u32 {
        let e = world.spawn((Pos(i as i32),));
        let mask = i % 128;
        toggle::<0>(&mut world, e, mask & 1 != 0);
        toggle::<1>(&mut world, e, mask & 2 != 0);
        toggle::<2>(&mut world, e, mask & 4 != 0);
        toggle::<3>(&mut world, e, mask & 8 != 0);
        toggle::<4>(&mut world, e, mask & 16 != 0);
        toggle::<5>(&mut world, e, mask & 32 != 0);
        toggle::<6>(&mut world, e, mask & 64 != 0);
        expected.push((e, i as i32, mask));
    }
    assert!(world.archetype_count() >= 128, "got {}", world.archetype_count());
    assert_eq!(world.len(), 10_000);
    let mut all = world.query::<(Entity, &Pos)>();
    assert!(all.matched_archetypes() >= 128);
    let mut seen: Vec<_> = all.iter(&world).map(|(e, p)| (e, p.0)).collect();
    seen.sort();
    let mut want: Vec<_> = expected.iter().map(|&(e, p, _)| (e, p)).collect();
    want.sort();
    assert_eq!(seen, want);
    let mut with3 = world.query_filtered::<&mut Pos, With<Bit<3>>>();
    with3.for_each_mut(&mut world, |mut p| p.0 = -p.0);
    for &(e, p, mask) in &expected {
        let want = if mask & 8 != 0 { -p } else { p };
        assert_eq!(world.get::<Pos>(e), Ok(&Pos(want)));
        assert_eq!(world.entity(e).unwrap().has::<Bit<6>>(), mask & 64 != 0);
    }
    // Despawn half and check the rest are intact.
    for &(e, _, _) in expected.iter().step_by(2) {
        world.despawn(e).unwrap();
    }
    assert_eq!(world.len(), 5_000);
    for &(e, p, mask) in expected.iter().skip(1).step_by(2) {
        let want = if mask & 8 != 0 { -p } else { p };
        assert_eq!(world.get::<Pos>(e), Ok(&Pos(want)));
    }
}

#[test]
fn resources() {
    struct Time(f64);
    let mut world = World::new();
    assert!(world.insert_resource(Time(0.5)).is_none());
    assert!(world.contains_resource::<Time>());
    world.resource_mut::<Time>().unwrap().0 += 1.0;
    assert_eq!(world.resource::<Time>().unwrap().0, 1.5);
    assert_eq!(world.insert_resource(Time(9.0)).map(|t| t.0), Some(1.5));
    assert_eq!(world.remove_resource::<Time>().map(|t| t.0), Ok(9.0));
    assert!(world.remove_resource::<Time>().is_err());
    assert!(world.resource_mut::<Time>().is_err());
}

#[test]
fn entity_view_lists_components() {
    let mut world = World::new();
    let e = world.spawn((Pos(3), Tag));
    let view = world.entity(e).unwrap();
    assert_eq!(view.id(), e);
    assert_eq!(view.get::<Pos>(), Some(&Pos(3)));
    assert_eq!(view.get::<Dead>().map(|_| ()), None);
    let mut names: Vec<_> = view.component_names().collect();
    names.sort();
    assert_eq!(names, ["entities::Pos", "entities::Tag"]);
}

#[test]
fn a_bundle_of_sixteen_components_spawns_and_removes_whole() {
    #[derive(Debug, PartialEq)]
    struct C<const N: usize>(u8);
    let mut world = World::new();
    let e = world.spawn((
        C::<0>(0),
        C::<1>(1),
        C::<2>(2),
        C::<3>(3),
        C::<4>(4),
        C::<5>(5),
        C::<6>(6),
        C::<7>(7),
        C::<8>(8),
        C::<9>(9),
        C::<10>(10),
        C::<11>(11),
        C::<12>(12),
        C::<13>(13),
        C::<14>(14),
        C::<15>(15),
    ));
    assert_eq!(world.get::<C<15>>(e), Ok(&C(15)));
    let removed = world.remove::<(C<0>, C<1>, C<2>, C<3>, C<4>, C<5>, C<6>, C<7>)>(e).unwrap();
    assert_eq!(removed.7, C(7));
    assert!(!world.entity(e).unwrap().has::<C<0>>() && world.entity(e).unwrap().has::<C<8>>());
}

#[test]
fn bundles_of_the_same_types_in_another_order_keep_each_value_in_its_column() {
    // Transitions are cached per bundle type: (Pos, Vel) and (Vel, Pos) lead to the same
    // table, but each must put its own elements into the right columns.
    #[derive(Debug, PartialEq)]
    struct Vel(i32);
    let mut world = World::new();
    let first = world.spawn((Tag,));
    let second = world.spawn((Tag,));
    world.insert(first, (Pos(1), Vel(10))).unwrap();
    world.insert(second, (Vel(20), Pos(2))).unwrap();
    assert_eq!((world.get::<Pos>(first), world.get::<Vel>(first)), (Ok(&Pos(1)), Ok(&Vel(10))));
    assert_eq!((world.get::<Pos>(second), world.get::<Vel>(second)), (Ok(&Pos(2)), Ok(&Vel(20))));
    // Into a table that has both already: written in place, each in its column.
    world.insert(first, (Vel(11), Pos(12))).unwrap();
    assert_eq!((world.get::<Pos>(first), world.get::<Vel>(first)), (Ok(&Pos(12)), Ok(&Vel(11))));
    assert_eq!(world.remove::<(Vel, Pos)>(first), Ok((Vel(11), Pos(12))));
    assert_eq!(world.remove::<(Pos, Vel)>(second), Ok((Pos(2), Vel(20))));
    assert!(world.entity(first).unwrap().has::<Tag>() && !world.entity(second).unwrap().has::<Pos>());
    // A missing component is reported from the cached transition too, every time.
    for _ in 0..2 {
        assert!(matches!(world.remove::<(Pos, Tag)>(first), Err(ComponentError::MissingComponent(_))));
    }
    assert!(world.entity(first).unwrap().has::<Tag>());
}
