//! The change-tracking rules of tests/change_rules.rs, for components registered at run
//! time and reached by id, in table and in sparse-set storage: each test runs once per
//! storage.

use std::collections::BTreeSet;

use ripple::dynamic::{ComponentDescriptor, DynamicQuery};
use ripple::{ComponentId, Entity, Storage, World};

/// A world with two runtime components of 4 bytes, `pos` and `vel`, stored in `storage`.
fn world(storage: Storage) -> (World, ComponentId, ComponentId) {
    let mut world = World::new();
    let pos = world.register_component(ComponentDescriptor::new("pos", 4, 4).unwrap().with_storage(storage));
    let vel = world.register_component(ComponentDescriptor::new("vel", 4, 4).unwrap().with_storage(storage));
    (world, pos, vel)
}

fn value(v: i32) -> [u8; 4] {
    v.to_le_bytes()
}

fn spawn_with(world: &mut World, ids: &[ComponentId], v: i32) -> Entity {
    let e = world.spawn(());
    for &id in ids {
        world.insert_by_id(e, id, &value(v)).unwrap();
    }
    e
}

fn run(query: &mut DynamicQuery, world: &World) -> BTreeSet<Entity> {
    let mut seen = BTreeSet::new();
    query.for_each(world, |item| assert!(seen.insert(item.entity()), "{} reported twice", item.entity()));
    seen
}

fn set(entities: &[Entity]) -> BTreeSet<Entity> {
    entities.iter().copied().collect()
}

fn both(test: impl Fn(Storage)) {
    test(Storage::Table);
    test(Storage::SparseSet);
}

#[test]
fn r1_tracking_is_opt_in_and_untracked_writes_are_plain() {
    both(|storage| {
        let (mut world, pos, vel) = world(storage);
        let e = spawn_with(&mut world, &[pos, vel], 0);
        assert_eq!(world.tracking_bytes(), 0, "untracked components carry no tick memory");
        assert!(!world.get_mut_by_id(e, pos).unwrap().is_tracked());
        let _changed = world.dynamic_query().changed(pos).build().unwrap();
        assert!(world.tracking_bytes() > 0, "asking about changes turns tracking on");
        assert!(world.get_mut_by_id(e, pos).unwrap().is_tracked());
        assert!(!world.get_mut_by_id(e, vel).unwrap().is_tracked());
        world.track_by_id(vel).unwrap();
        let f = spawn_with(&mut world, &[vel], 1);
        assert!(world.get_mut_by_id(f, vel).unwrap().is_tracked(), "later tables track too");
    });
}

#[test]
fn r2_writes_mark_reads_and_bypasses_do_not() {
    both(|storage| {
        let (mut world, pos, _) = world(storage);
        let es: Vec<Entity> = (0..4).map(|i| spawn_with(&mut world, &[pos], i)).collect();
        let mut changed = world.dynamic_query().changed(pos).build().unwrap();
        assert_eq!(run(&mut changed, &world), set(&es));
        // A read through the handle marks nothing; a bypass neither.
        assert_eq!(&*world.get_mut_by_id(es[0], pos).unwrap(), value(0));
        world.get_mut_by_id(es[1], pos).unwrap().bypass_change_detection()[0] = 9;
        assert!(run(&mut changed, &world).is_empty());
        // A write marks; an equal value written still marks (bytes carry no equality).
        world.get_mut_by_id(es[2], pos).unwrap().copy_from_slice(&value(7));
        world.get_mut_by_id(es[3], pos).unwrap().copy_from_slice(&value(3));
        assert_eq!(run(&mut changed, &world), set(&[es[2], es[3]]));
        assert_eq!(world.get_by_id(es[2], pos).unwrap(), value(7));
        // A query's own writes mark, and are seen by other observers, not by itself.
        let mut writer = world.dynamic_query().write(pos).changed(pos).build().unwrap();
        let mut visits = 0;
        writer.for_each_mut(&mut world, |mut item| {
            item.get_mut(0)[0] = 1;
            visits += 1;
        });
        assert_eq!(visits, 4, "the first run sees every entity");
        let mut again = 0;
        writer.for_each_mut(&mut world, |_| again += 1);
        assert_eq!(again, 0, "an observer does not see its own writes");
        assert_eq!(run(&mut changed, &world), set(&es));
    });
}

#[test]
fn r3_adding_is_changing() {
    both(|storage| {
        let (mut world, pos, vel) = world(storage);
        let old = spawn_with(&mut world, &[pos], 0);
        let mut added = world.dynamic_query().added(pos).build().unwrap();
        let mut changed = world.dynamic_query().changed(pos).build().unwrap();
        run(&mut added, &world);
        run(&mut changed, &world);
        let gained = spawn_with(&mut world, &[pos], 1);
        world.insert_by_id(old, pos, &value(3)).unwrap(); // overwrite: changed, not added
        assert_eq!(run(&mut added, &world), set(&[gained]));
        assert_eq!(run(&mut changed, &world), set(&[gained, old]));
        // Gaining another component (moving table, for table storage) keeps the marks.
        world.insert_by_id(gained, vel, &value(0)).unwrap();
        assert!(run(&mut added, &world).is_empty());
        assert!(run(&mut changed, &world).is_empty());
    });
}

#[test]
fn r4_each_observer_sees_changes_since_its_own_last_run() {
    both(|storage| {
        let (mut world, pos, _) = world(storage);
        let es: Vec<Entity> = (0..10).map(|i| spawn_with(&mut world, &[pos], i)).collect();
        let mut early = world.dynamic_query().changed(pos).build().unwrap();
        let mut late = world.dynamic_query().changed(pos).build().unwrap();
        run(&mut early, &world);
        run(&mut late, &world);
        assert!(run(&mut early, &world).is_empty());
        world.get_mut_by_id(es[3], pos).unwrap()[0] = 1;
        assert_eq!(run(&mut late, &world), set(&[es[3]]));
        world.get_mut_by_id(es[4], pos).unwrap()[0] = 1;
        assert_eq!(run(&mut early, &world), set(&[es[3], es[4]]));
        assert_eq!(run(&mut late, &world), set(&[es[4]]));
    });
}

#[test]
fn r6_new_observers_start_with_everything_dirty() {
    both(|storage| {
        let (mut world, pos, _) = world(storage);
        let es: Vec<Entity> = (0..6).map(|i| spawn_with(&mut world, &[pos], i)).collect();
        let mut warm = world.dynamic_query().changed(pos).build().unwrap();
        run(&mut warm, &world);
        let mut late_changed = world.dynamic_query().changed(pos).build().unwrap();
        let mut late_added = world.dynamic_query().added(pos).build().unwrap();
        assert_eq!(run(&mut late_changed, &world), set(&es));
        assert_eq!(run(&mut late_added, &world), set(&es));
        assert!(run(&mut late_added, &world).is_empty());
    });
}

#[test]
fn r8_despawned_and_removed_entities_vanish() {
    both(|storage| {
        let (mut world, pos, _) = world(storage);
        let a = spawn_with(&mut world, &[pos], 0);
        let b = spawn_with(&mut world, &[pos], 0);
        let gone = spawn_with(&mut world, &[pos], 0);
        let mut changed = world.dynamic_query().changed(pos).build().unwrap();
        run(&mut changed, &world);
        world.get_mut_by_id(a, pos).unwrap()[0] = 1;
        world.get_mut_by_id(b, pos).unwrap()[0] = 1;
        world.get_mut_by_id(gone, pos).unwrap()[0] = 1;
        world.despawn(a).unwrap();
        world.remove_by_id(gone, pos).unwrap();
        // The slot is reused by a new entity, which is reported as itself.
        let c = spawn_with(&mut world, &[pos], 9);
        assert_eq!(c.index(), a.index());
        assert_eq!(run(&mut changed, &world), set(&[b, c]));
    });
}

#[test]
fn r9_removal_streams_are_read_once_per_reader_and_kept_until_read() {
    both(|storage| {
        let (mut world, pos, vel) = world(storage);
        let mut every_frame = world.removal_reader_by_id(pos).unwrap();
        let mut rarely = world.removal_reader_by_id(pos).unwrap();
        let es: Vec<Entity> = (0..5).map(|i| spawn_with(&mut world, &[pos, vel], i)).collect();
        world.remove_by_id(es[0], pos).unwrap();
        world.despawn(es[1]).unwrap();
        world.remove_by_id(es[2], vel).unwrap(); // not a `pos` removal
        let first: Vec<Entity> = every_frame.read(&world).map(|(e, _)| e).collect();
        assert_eq!(first, [es[0], es[1]]);
        assert_eq!(every_frame.read(&world).count(), 0);
        world.clear();
        let second: BTreeSet<Entity> = every_frame.read(&world).map(|(e, _)| e).collect();
        assert_eq!(second, set(&es[2..]));
        assert_eq!(rarely.read(&world).count(), 5, "a reader that skipped frames loses nothing");
    });
}

#[test]
fn r11_filters_with_without_and_sparse_and_table_mixed() {
    let mut world = World::new();
    let pos = world.register_component(ComponentDescriptor::new("pos", 4, 4).unwrap());
    let tag = world.register_component(ComponentDescriptor::new("tag", 0, 1).unwrap().with_storage(Storage::SparseSet));
    let hidden = world.register_component(ComponentDescriptor::new("hidden", 0, 1).unwrap());
    let plain = spawn_with(&mut world, &[pos], 1);
    let tagged = spawn_with(&mut world, &[pos], 2);
    world.insert_by_id(tagged, tag, &[]).unwrap();
    let tagged_hidden = spawn_with(&mut world, &[pos], 3);
    world.insert_by_id(tagged_hidden, tag, &[]).unwrap();
    world.insert_by_id(tagged_hidden, hidden, &[]).unwrap();
    let mut with_tag = world.dynamic_query().read(pos).with(tag).without(hidden).build().unwrap();
    let mut sum = 0;
    with_tag.for_each(&world, |item| sum += i32::from_le_bytes(item.get(0).try_into().unwrap()));
    assert_eq!(sum, 2);
    let mut without_tag = world.dynamic_query().read(pos).without(tag).build().unwrap();
    assert_eq!(run(&mut without_tag, &world), set(&[plain]));
    world.remove_by_id(tagged, tag).unwrap();
    assert_eq!(run(&mut without_tag, &world), set(&[plain, tagged]));
    assert!(run(&mut with_tag, &world).is_empty());
}

/// Runtime twins of r7's components, every one stored in `storage`.
struct Kinds {
    sprite: ComponentId,
    pos: ComponentId,
    hidden: ComponentId,
    vel: ComponentId,
    frozen: ComponentId,
}

fn kinds(world: &mut World, storage: Storage) -> Kinds {
    let mut register = |name: &str, size| {
        world.register_component(ComponentDescriptor::new(name, size, 4).unwrap().with_storage(storage))
    };
    Kinds {
        sprite: register("sprite", 0),
        pos: register("pos", 4),
        hidden: register("hidden", 0),
        vel: register("vel", 4),
        frozen: register("frozen", 0),
    }
}

fn give(world: &mut World, e: Entity, id: ComponentId) {
    let size = world.component_layout(id).unwrap().size();
    world.insert_by_id(e, id, &vec![0; size]).unwrap();
}

fn spawn_of(world: &mut World, ids: &[ComponentId]) -> Entity {
    let e = world.spawn(());
    for &id in ids {
        give(world, e, id);
    }
    e
}

#[test]
fn r7_dirty_sets() {
    both(|storage| {
        let mut world = World::new();
        let k = kinds(&mut world, storage);
        let a = spawn_of(&mut world, &[k.sprite, k.pos]);
        let b = spawn_of(&mut world, &[k.sprite, k.pos]);
        let c = spawn_of(&mut world, &[k.sprite]);
        let d = spawn_of(&mut world, &[k.pos]); // does not match: no sprite
        let mut redraw = world.dynamic_query().with(k.sprite).dirty(k.pos).dirty(k.hidden).build().unwrap();
        assert_eq!(run(&mut redraw, &world), set(&[a, b, c]));

        // A listed component changed, added, removed.
        world.get_mut_by_id(a, k.pos).unwrap()[0] = 1;
        give(&mut world, c, k.hidden);
        world.remove_by_id(b, k.pos).unwrap();
        // Changes to a non-matching entity, and unrelated structural changes, are not.
        world.get_mut_by_id(d, k.pos).unwrap()[0] = 1;
        give(&mut world, a, k.vel);
        // Several reasons still report the entity once.
        world.get_mut_by_id(a, k.pos).unwrap()[0] = 2;
        assert_eq!(run(&mut redraw, &world), set(&[a, b, c]), "{storage:?}");
        assert!(run(&mut redraw, &world).is_empty());

        // Starting to match the query makes an entity dirty: gaining a required
        // component...
        give(&mut world, d, k.sprite);
        // ...or losing an excluded one.
        let mut calm = world.dynamic_query().without(k.frozen).dirty(k.pos).build().unwrap();
        run(&mut calm, &world);
        let frozen = spawn_of(&mut world, &[k.frozen, k.pos]);
        run(&mut calm, &world);
        world.remove_by_id(frozen, k.frozen).unwrap();
        assert_eq!(run(&mut redraw, &world), set(&[d]), "{storage:?}");
        assert_eq!(run(&mut calm, &world), set(&[frozen]), "{storage:?}");
        // Leaving and re-entering the query since the last run counts; staying does not.
        give(&mut world, a, k.frozen);
        world.remove_by_id(a, k.frozen).unwrap();
        give(&mut world, b, k.vel);
        assert_eq!(run(&mut calm, &world), set(&[a]), "{storage:?}");
        // Entities that stopped matching are not reported.
        world.remove_by_id(c, k.sprite).unwrap();
        give(&mut world, c, k.pos);
        assert!(run(&mut redraw, &world).is_empty(), "{storage:?}");
    });
}

#[test]
fn r5_an_idle_dirty_query_catches_up_once() {
    both(|storage| {
        let mut world = World::new();
        let k = kinds(&mut world, storage);
        let es: Vec<Entity> = (0..5).map(|_| spawn_of(&mut world, &[k.pos, k.sprite])).collect();
        let mut idle = world.dynamic_query().dirty(k.pos).build().unwrap();
        let mut removed = world.removal_reader_by_id(k.sprite).unwrap();
        run(&mut idle, &world);
        for &e in &es[..4] {
            world.get_mut_by_id(e, k.pos).unwrap()[0] += 1;
        }
        world.remove_by_id(es[4], k.sprite).unwrap();
        assert_eq!(run(&mut idle, &world), set(&es[..4]));
        assert!(run(&mut idle, &world).is_empty(), "seen once");
        assert_eq!(removed.read(&world).map(|(e, _)| e).collect::<Vec<_>>(), [es[4]]);
        // Despawned entities vanish; a reused slot is reported as itself.
        world.get_mut_by_id(es[0], k.pos).unwrap()[0] += 1;
        world.despawn(es[0]).unwrap();
        let new = spawn_of(&mut world, &[k.pos]);
        assert_eq!(run(&mut idle, &world), set(&[new]));
    });
}
