//! Components registered at run time: insert, read, write, remove by id; typed errors
//! that change nothing; values dropped exactly once wherever they leave; hooks; a
//! panicking drop function; and queries over ids.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ripple::dynamic::{ComponentDescriptor, DynamicError};
use ripple::{ComponentId, Entity, Storage, World};

fn hp(world: &mut World, storage: Storage) -> ComponentId {
    world.register_component(ComponentDescriptor::new("hp", 4, 4).unwrap().with_storage(storage))
}

fn both(test: impl Fn(Storage)) {
    test(Storage::Table);
    test(Storage::SparseSet);
}

#[test]
fn insert_get_write_remove() {
    both(|storage| {
        let mut world = World::new();
        let hp = hp(&mut world, storage);
        assert_eq!(world.component_name(hp), Some("hp"));
        assert_eq!(world.component_layout(hp).unwrap().size(), 4);
        let e = world.spawn(("typed",));
        world.insert_by_id(e, hp, &7i32.to_le_bytes()).unwrap();
        assert_eq!(world.get_by_id(e, hp).unwrap(), 7i32.to_le_bytes());
        assert_eq!(*world.get::<&str>(e).unwrap(), "typed", "typed components are untouched");
        world.get_mut_by_id(e, hp).unwrap().copy_from_slice(&8i32.to_le_bytes());
        world.insert_by_id(e, hp, &9i32.to_le_bytes()).unwrap(); // replaces
        assert_eq!(world.get_by_id(e, hp).unwrap(), 9i32.to_le_bytes());
        assert!(world.entity(e).unwrap().contains_id(hp));
        world.remove_by_id(e, hp).unwrap();
        assert!(!world.entity(e).unwrap().contains_id(hp));
        assert_eq!(*world.get::<&str>(e).unwrap(), "typed");
        assert_eq!(world.get_by_id(e, hp), Err(DynamicError::MissingComponent { entity: e, component: "hp" }));
    });
}

#[test]
fn bad_calls_are_typed_errors_and_change_nothing() {
    both(|storage| {
        let mut world = World::new();
        let hp = hp(&mut world, storage);
        let e = world.spawn(());
        let dead = world.spawn(());
        world.despawn(dead).unwrap();
        let tables = world.archetype_count();
        assert_eq!(world.insert_by_id(dead, hp, &[0; 4]), Err(DynamicError::NoSuchEntity(dead)));
        assert_eq!(
            world.insert_by_id(e, hp, &[0; 3]),
            Err(DynamicError::WrongSize { component: "hp", expected: 4, got: 3 })
        );
        assert_eq!(world.remove_by_id(e, hp), Err(DynamicError::MissingComponent { entity: e, component: "hp" }));
        assert!(matches!(world.get_mut_by_id(dead, hp), Err(DynamicError::NoSuchEntity(_))));
        // An id no component has in this world.
        let mut other = World::new();
        for i in 0..8 {
            other.register_component(ComponentDescriptor::new(&format!("c{i}"), 1, 1).unwrap());
        }
        let foreign = other.register_component(ComponentDescriptor::new("far", 1, 1).unwrap());
        assert_eq!(world.insert_by_id(e, foreign, &[0]), Err(DynamicError::UnknownComponent(foreign)));
        assert_eq!(world.track_by_id(foreign), Err(DynamicError::UnknownComponent(foreign)));
        assert!(world.dynamic_query().read(foreign).build().is_err());
        assert_eq!(world.archetype_count(), tables, "no table was made by a refused call");
        assert_eq!(world.len(), 1);
        assert!(!world.entity(e).unwrap().contains_id(hp));
    });
}

#[test]
fn typed_components_are_refused_as_bytes() {
    let mut world = World::new();
    let e = world.spawn((1u32,));
    let _ = hp(&mut world, Storage::Table);
    let name = std::any::type_name::<u32>();
    let id = world.component_id::<u32>().expect("u32 is registered");
    assert_eq!(world.component_name(id), Some(name));
    assert_eq!(world.get_by_id(e, id), Err(DynamicError::Typed { component: name }));
    assert_eq!(world.insert_by_id(e, id, &[0; 4]), Err(DynamicError::Typed { component: name }));
    assert!(matches!(world.dynamic_query().write(id).build(), Err(DynamicError::Typed { .. })));
    // Filters may name typed components.
    let mut with_u32 = world.dynamic_query().with(id).build().unwrap();
    let mut seen = Vec::new();
    with_u32.for_each(&world, |item| seen.push(item.entity()));
    assert_eq!(seen, [e]);
}

#[test]
fn bad_layouts_are_typed_errors() {
    assert!(matches!(ComponentDescriptor::new("odd", 4, 3), Err(DynamicError::BadLayout { align: 3, .. })));
    assert!(matches!(ComponentDescriptor::new("huge", usize::MAX, 8), Err(DynamicError::BadLayout { .. })));
    let padded = ComponentDescriptor::new("padded", 5, 4).unwrap();
    assert_eq!(padded.layout().size(), 8, "sizes round up to the alignment");
}

static DROPS: AtomicUsize = AtomicUsize::new(0);

/// Counts the value's first byte into `DROPS`.
unsafe fn count_drop(value: *mut u8) {
    // SAFETY: the world hands a pointer to a live value of at least one byte.
    DROPS.fetch_add(usize::from(unsafe { *value }), Ordering::SeqCst);
}

#[test]
fn every_value_is_dropped_exactly_once() {
    both(|storage| {
        DROPS.store(0, Ordering::SeqCst);
        let mut world = World::new();
        // SAFETY: `count_drop` reads one byte of any 8-byte value.
        let counted = world.register_component(unsafe {
            ComponentDescriptor::new("counted", 8, 8).unwrap().with_storage(storage).with_drop(count_drop)
        });
        let value = |n: u8| [n, 0, 0, 0, 0, 0, 0, 0];
        let es: Vec<Entity> = (0..5).map(|_| world.spawn((0u8,))).collect();
        for (i, &e) in es.iter().enumerate() {
            world.insert_by_id(e, counted, &value(1 << i)).unwrap(); // 1, 2, 4, 8, 16
        }
        world.insert(es[0], (1u16,)).unwrap(); // moves tables: no drop
        world.insert_by_id(es[1], counted, &value(32)).unwrap(); // drops the 2
        assert_eq!(DROPS.load(Ordering::SeqCst), 2);
        world.remove_by_id(es[2], counted).unwrap(); // the 4
        world.despawn(es[3]).unwrap(); // the 8
        assert_eq!(DROPS.load(Ordering::SeqCst), 14);
        world.clear(); // 1, 32, 16
        assert_eq!(DROPS.load(Ordering::SeqCst), 63);
        let e = world.spawn(());
        world.insert_by_id(e, counted, &value(64)).unwrap();
        drop(world); // the 64
        assert_eq!(DROPS.load(Ordering::SeqCst), 127);
    });
}

unsafe fn panicking_drop(value: *mut u8) {
    // SAFETY: as `count_drop`.
    if unsafe { *value } == 0xEE {
        panic!("drop function failed");
    }
}

#[test]
fn a_panicking_drop_function_leaves_the_world_consistent() {
    both(|storage| {
        let mut world = World::new();
        // SAFETY: `panicking_drop` reads one byte of any 1-byte value.
        let fragile = world.register_component(unsafe {
            ComponentDescriptor::new("fragile", 1, 1).unwrap().with_storage(storage).with_drop(panicking_drop)
        });
        let removed = Arc::new(Mutex::new(Vec::new()));
        let log = removed.clone();
        world.on_remove_by_id(fragile, move |ctx| log.lock().unwrap().push(ctx.entity)).unwrap();
        let a = world.spawn((1u8,));
        let b = world.spawn((2u8,));
        world.insert_by_id(a, fragile, &[0xEE]).unwrap();
        world.insert_by_id(b, fragile, &[0x01]).unwrap();
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.remove_by_id(a, fragile)));
        assert!(panic.is_err());
        assert_eq!(*removed.lock().unwrap(), [a], "the hook ran before the drop");
        assert!(!world.entity(a).unwrap().contains_id(fragile), "the value counts as gone");
        assert_eq!(*world.get::<u8>(a).unwrap(), 1);
        assert_eq!(world.get_by_id(b, fragile).unwrap(), [0x01], "the other row is intact");
        assert_eq!(*world.get::<u8>(b).unwrap(), 2);
        world.insert_by_id(a, fragile, &[0x02]).unwrap();
        assert_eq!(world.get_by_id(a, fragile).unwrap(), [0x02]);
    });
}

#[test]
fn hooks_run_for_runtime_components() {
    both(|storage| {
        let mut world = World::new();
        let hp = hp(&mut world, storage);
        let log = Arc::new(Mutex::new(Vec::<(&str, Entity)>::new()));
        for (kind, hook) in [("add", 0), ("insert", 1), ("remove", 2)] {
            let log = log.clone();
            let record = move |ctx: &mut ripple::HookContext<'_>| log.lock().unwrap().push((kind, ctx.entity));
            match hook {
                0 => world.on_add_by_id(hp, record).unwrap(),
                1 => world.on_insert_by_id(hp, record).unwrap(),
                _ => world.on_remove_by_id(hp, record).unwrap(),
            }
        }
        let e = world.spawn(());
        world.insert_by_id(e, hp, &[0; 4]).unwrap();
        world.insert_by_id(e, hp, &[1; 4]).unwrap();
        world.remove_by_id(e, hp).unwrap();
        world.insert_by_id(e, hp, &[2; 4]).unwrap();
        world.despawn(e).unwrap();
        let kinds: Vec<&str> = log.lock().unwrap().iter().map(|(kind, _)| *kind).collect();
        assert_eq!(kinds, ["add", "insert", "insert", "remove", "add", "insert", "remove"]);
    });
}

#[test]
fn queries_refuse_conflicting_terms() {
    let mut world = World::new();
    let a = hp(&mut world, Storage::Table);
    let b = hp(&mut world, Storage::Table);
    assert!(matches!(world.dynamic_query().write(a).read(a).build(), Err(DynamicError::AccessConflict { .. })));
    assert!(matches!(world.dynamic_query().write(a).write(a).build(), Err(DynamicError::AccessConflict { .. })));
    assert!(matches!(world.dynamic_query().read(a).without(a).build(), Err(DynamicError::AccessConflict { .. })));
    assert!(world.dynamic_query().read(a).read(a).write(b).build().is_ok(), "reading twice is fine");
    let mut sparse = world.dynamic_query().read(a).changed(b).build().unwrap();
    assert_eq!(sparse.for_each_table(&mut world, |_| {}), Err(DynamicError::NeedsRows));
}

#[test]
fn table_runs_hand_out_whole_columns() {
    let mut world = World::new();
    let x = hp(&mut world, Storage::Table);
    let dx = hp(&mut world, Storage::Table);
    let tag = world.register_component(ComponentDescriptor::new("tag", 0, 1).unwrap());
    for i in 0..10i32 {
        let e = world.spawn(());
        world.insert_by_id(e, x, &i.to_le_bytes()).unwrap();
        world.insert_by_id(e, dx, &100i32.to_le_bytes()).unwrap();
        if i % 2 == 0 {
            world.insert_by_id(e, tag, &[]).unwrap(); // a second table
        }
    }
    world.track_by_id(x).unwrap();
    let mut changed = world.dynamic_query().changed(x).build().unwrap();
    changed.for_each(&world, |_| {});
    let mut step = world.dynamic_query().write(x).read(dx).build().unwrap();
    let mut tables = 0;
    step.for_each_table(&mut world, |mut table| {
        tables += 1;
        let rows = table.entities().len();
        let dxs = table.bytes(1);
        assert_eq!(dxs.len(), rows * 4);
        for (x, dx) in table.bytes_mut(0).chunks_exact_mut(4).zip(dxs.chunks_exact(4)) {
            let sum = i32::from_le_bytes(x.try_into().unwrap()) + i32::from_le_bytes(dx.try_into().unwrap());
            x.copy_from_slice(&sum.to_le_bytes());
        }
    })
    .unwrap();
    assert_eq!(tables, 2);
    let mut total = 0;
    let mut seen = 0;
    changed.for_each(&world, |_| seen += 1);
    assert_eq!(seen, 10, "a whole-column write marks every row");
    let mut read = world.dynamic_query().read(x).build().unwrap();
    read.for_each(&world, |item| total += i32::from_le_bytes(item.get(0).try_into().unwrap()));
    assert_eq!(total, 45 + 1000);
}

#[test]
fn observers_by_id_see_every_moment() {
    use ripple::dynamic::{Moment, OnComponent};
    use ripple::observer::Trigger;
    both(|storage| {
        let mut world = World::new();
        let hp = hp(&mut world, storage);
        let log = Arc::new(Mutex::new(Vec::<(Moment, Entity)>::new()));
        for moment in [Moment::Add, Moment::Insert, Moment::Replace, Moment::Remove, Moment::Change] {
            let log = log.clone();
            world
                .observe_by_id(hp, moment, move |t: Trigger<'_, OnComponent>| {
                    assert_eq!(t.component(), Some(hp));
                    log.lock().unwrap().push((moment, t.entity()));
                })
                .unwrap();
        }
        let e = world.spawn(());
        world.insert_by_id(e, hp, &[0; 4]).unwrap();
        world.flush();
        world.get_mut_by_id(e, hp).unwrap()[0] = 1;
        world.get_mut_by_id(e, hp).unwrap()[0] = 2;
        world.flush();
        world.insert_by_id(e, hp, &[3; 4]).unwrap();
        world.remove_by_id(e, hp).unwrap();
        world.flush();
        let moments: Vec<Moment> = log.lock().unwrap().iter().map(|(m, _)| *m).collect();
        use Moment::*;
        assert_eq!(moments, [Add, Insert, Change, Change, Replace, Insert, Replace, Remove]);
        let mut other = World::new();
        let far =
            (0..4).map(|i| other.register_component(ComponentDescriptor::new(&i.to_string(), 1, 1).unwrap())).last();
        let far = far.unwrap();
        assert_eq!(
            world.observe_by_id(far, Moment::Add, |_: Trigger<'_, OnComponent>| {}).unwrap_err(),
            ripple::observer::ObserverError::UnknownComponent(far)
        );
    });
}
