//! Observers through the public API: every trigger kind, targeted and global, table and
//! sparse storage, commands, panics, removal while delivering, and the round bound.
#![allow(elided_lifetimes_in_paths, reason = "observer signatures read better without them")]

use std::sync::{Arc, Mutex};

use ripple::hierarchy::ChildOf;
use ripple::observer::{
    MAX_CHANGE_ROUNDS, ObserverError, ObserverEvent, OnAdd, OnChange, OnDespawn, OnInsert, OnRemove, OnReplace, Trigger,
};
use ripple::schedule::Schedule;
use ripple::system::{Query, ResMut};
use ripple::{Commands, Entity, Storage, World};

#[derive(Debug, PartialEq, Clone, Copy)]
struct Hp(i32);
#[derive(Debug, PartialEq, Clone, Copy)]
struct Tag;

type Log = Arc<Mutex<Vec<String>>>;

fn log() -> Log {
    Arc::new(Mutex::new(Vec::new()))
}

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

#[test]
fn lifecycle_observers_run_in_order_and_see_the_values() {
    let mut world = World::new();
    let l = log();
    let (a, b, c, d, e) = (l.clone(), l.clone(), l.clone(), l.clone(), l.clone());
    world
        .observe(move |t: Trigger<OnAdd<Hp>>, q: Query<&Hp>| {
            a.lock().unwrap().push(format!("add {:?}", q.get(t.entity()).unwrap()))
        })
        .unwrap();
    world
        .observe(move |t: Trigger<OnInsert<Hp>>, q: Query<&Hp>| {
            b.lock().unwrap().push(format!("insert {:?}", q.get(t.entity()).unwrap()))
        })
        .unwrap();
    world
        .observe(move |t: Trigger<OnReplace<Hp>>, q: Query<&Hp>| {
            c.lock().unwrap().push(format!("replace {:?}", q.get(t.entity()).unwrap()))
        })
        .unwrap();
    world
        .observe(move |t: Trigger<OnRemove<Hp>>, q: Query<&Hp>| {
            d.lock().unwrap().push(format!("remove {:?}", q.get(t.entity()).unwrap()))
        })
        .unwrap();
    world
        .observe(move |t: Trigger<OnDespawn>, q: Query<&Hp>| {
            e.lock().unwrap().push(format!("despawn {:?}", q.get(t.entity()).ok()))
        })
        .unwrap();
    let x = world.spawn((Hp(1),));
    assert_eq!(take(&l), ["add Hp(1)", "insert Hp(1)"]);
    world.insert(x, (Hp(2),)).unwrap();
    assert_eq!(take(&l), ["replace Hp(1)", "insert Hp(2)"]);
    world.remove::<(Hp,)>(x).unwrap();
    assert_eq!(take(&l), ["replace Hp(2)", "remove Hp(2)"]);
    world.insert(x, (Hp(3), Tag)).unwrap();
    assert_eq!(take(&l), ["add Hp(3)", "insert Hp(3)"]);
    world.despawn(x).unwrap();
    assert_eq!(take(&l), ["despawn Some(Hp(3))", "replace Hp(3)", "remove Hp(3)"]);
    let y = world.spawn((Tag,));
    world.despawn(y).unwrap();
    assert_eq!(take(&l), ["despawn None"]);
}

#[test]
fn sparse_components_are_observed_too() {
    let mut world = World::new();
    world.set_storage::<Hp>(Storage::SparseSet).unwrap();
    let l = log();
    let (a, r, c) = (l.clone(), l.clone(), l.clone());
    world.observe(move |t: Trigger<OnAdd<Hp>>| a.lock().unwrap().push(format!("add {}", t.entity()))).unwrap();
    world.observe(move |t: Trigger<OnReplace<Hp>>| r.lock().unwrap().push(format!("replace {}", t.entity()))).unwrap();
    world.observe(move |t: Trigger<OnChange<Hp>>| c.lock().unwrap().push(format!("change {}", t.entity()))).unwrap();
    let x = world.spawn((Tag,));
    world.insert(x, (Hp(1),)).unwrap();
    world.insert(x, (Hp(2),)).unwrap();
    assert_eq!(take(&l), [format!("add {x}"), format!("replace {x}")]);
    world.flush();
    assert_eq!(take(&l), [format!("change {x}")]);
    world.get_mut::<Hp>(x).unwrap().0 = 5;
    world.get_mut::<Hp>(x).unwrap().0 = 6;
    world.flush();
    assert_eq!(take(&l), [format!("change {x}")], "once per sync point however many writes");
    world.flush();
    assert!(take(&l).is_empty());
    world.despawn(x).unwrap();
    assert_eq!(take(&l), [format!("replace {x}")]);
}

#[test]
fn targeted_observers_only_hear_their_entity_and_go_with_it() {
    let mut world = World::new();
    let l = log();
    let a = world.spawn(());
    let b = world.spawn(());
    let la = l.clone();
    world.observe_entity(a, move |t: Trigger<OnAdd<Hp>>| la.lock().unwrap().push(format!("a {}", t.entity()))).unwrap();
    let lr = l.clone();
    world
        .observe_entity(a, move |t: Trigger<OnRemove<Hp>>| lr.lock().unwrap().push(format!("gone {}", t.entity())))
        .unwrap();
    world.insert(b, (Hp(1),)).unwrap();
    assert!(take(&l).is_empty());
    world.insert(a, (Hp(1),)).unwrap();
    assert_eq!(take(&l), [format!("a {a}")]);
    assert_eq!(world.observer_count(), 2);
    world.despawn(a).unwrap();
    assert_eq!(take(&l), [format!("gone {a}")], "runs for its own despawn");
    assert_eq!(world.observer_count(), 0, "then goes with the entity");
    assert_eq!(world.observe_entity(a, |_: Trigger<OnAdd<Hp>>| {}), Err(ObserverError::NoSuchEntity(a)));
}

#[test]
fn observers_act_through_commands_and_params() {
    #[derive(Default)]
    struct Count(u32);
    let mut world = World::new();
    world.insert_resource(Count::default());
    // Each Hp spawns a marker entity; each marker counts.
    world
        .observe(|t: Trigger<OnAdd<Hp>>, mut commands: Commands| {
            commands.insert(t.entity(), (Tag,));
        })
        .unwrap();
    world.observe(|_: Trigger<OnAdd<Tag>>, mut count: ResMut<Count>| count.0 += 1).unwrap();
    let x = world.spawn((Hp(1),));
    assert!(world.entity(x).unwrap().has::<Tag>(), "the command applied before spawn returned");
    assert_eq!(world.resource::<Count>().unwrap().0, 1);
    let batch: Vec<Entity> = world.spawn_batch((0..10).map(|i| (Hp(i),))).collect();
    assert!(batch.iter().all(|&e| world.entity(e).unwrap().has::<Tag>()));
    assert_eq!(world.resource::<Count>().unwrap().0, 11);
    // Commands queue observers and triggers too.
    let mut queue = ripple::CommandQueue::default();
    let mut commands = queue.commands(&world);
    commands.observe(|_: Trigger<OnRemove<Tag>>, mut count: ResMut<Count>| count.0 += 100);
    queue.apply(&mut world);
    world.remove::<(Tag,)>(x).unwrap();
    assert_eq!(world.resource::<Count>().unwrap().0, 111);
}

struct Ping(u32);
impl ObserverEvent for Ping {}

struct Bubble;
impl ObserverEvent for Bubble {
    const BUBBLES: bool = true;
}

#[test]
fn custom_triggers_global_targeted_and_bubbling() {
    let mut world = World::new();
    let l = log();
    let lg = l.clone();
    world
        .observe(move |t: Trigger<Ping>| lg.lock().unwrap().push(format!("global {} {:?}", t.event().0, t.target())))
        .unwrap();
    let e = world.spawn(());
    let le = l.clone();
    world.observe_entity(e, move |t: Trigger<Ping>| le.lock().unwrap().push(format!("own {}", t.event().0))).unwrap();
    world.trigger(Ping(1));
    assert_eq!(take(&l), ["global 1 None"]);
    world.trigger_targets(Ping(2), [e]);
    assert_eq!(take(&l), [format!("global 2 Some({e})"), "own 2".to_string()]);

    let root = world.spawn(());
    let mid = world.spawn((ChildOf(root),));
    let leaf = world.spawn((ChildOf(mid),));
    let lb = l.clone();
    world
        .observe(move |t: Trigger<Bubble>| {
            lb.lock().unwrap().push(format!("{} from {}", t.entity(), t.original_target().unwrap()));
        })
        .unwrap();
    world.trigger_targets(Bubble, [leaf]);
    assert_eq!(take(&l), [format!("{leaf} from {leaf}"), format!("{mid} from {leaf}"), format!("{root} from {leaf}")]);
    world.observe_entity(mid, |mut t: Trigger<Bubble>| t.propagate(false)).unwrap();
    world.trigger_targets(Bubble, [leaf]);
    assert_eq!(take(&l), [format!("{leaf} from {leaf}"), format!("{mid} from {leaf}")]);
    // Ping does not bubble.
    world.trigger_targets(Ping(3), [leaf]);
    assert_eq!(take(&l), [format!("global 3 Some({leaf})")]);
}

#[test]
fn change_observers_skip_removed_and_despawned_and_run_in_schedules() {
    let mut world = World::new();
    let l = log();
    let lc = l.clone();
    world.observe(move |t: Trigger<OnChange<Hp>>| lc.lock().unwrap().push(t.entity().to_string())).unwrap();
    let (a, b, c) = (world.spawn((Hp(1),)), world.spawn((Hp(1),)), world.spawn((Hp(1),)));
    world.flush();
    assert_eq!(take(&l).len(), 3, "adding is changing");
    world.get_mut::<Hp>(a).unwrap().0 = 2;
    world.get_mut::<Hp>(b).unwrap().0 = 2;
    world.get_mut::<Hp>(c).unwrap().0 = 2;
    world.remove::<(Hp,)>(b).unwrap();
    world.despawn(c).unwrap();
    world.flush();
    assert_eq!(take(&l), [a.to_string()]);
    // A schedule's phase ends in a sync point.
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, |mut q: Query<&mut Hp>| q.for_each_mut(|mut hp| hp.0 += 1)).unwrap();
    schedule.run(&mut world);
    assert_eq!(take(&l), [a.to_string()]);
}

#[test]
fn observers_registered_later_see_only_later_changes() {
    let mut world = World::new();
    world.spawn_batch((0..100).map(|i| (Hp(i),)));
    let l = log();
    let lc = l.clone();
    world.observe(move |t: Trigger<OnChange<Hp>>| lc.lock().unwrap().push(t.entity().to_string())).unwrap();
    world.flush();
    assert!(take(&l).is_empty());
}

#[test]
fn a_panicking_observer_loses_nothing() {
    let mut world = World::new();
    let l = log();
    world
        .observe(|_: Trigger<OnAdd<Hp>>, mut commands: Commands| {
            commands.spawn((Tag,));
            panic!("boom");
        })
        .unwrap();
    let la = l.clone();
    world.observe(move |t: Trigger<OnAdd<Hp>>| la.lock().unwrap().push(t.entity().to_string())).unwrap();
    let x = world.spawn((Hp(1),));
    assert_eq!(take(&l), [x.to_string()], "the next observer still ran");
    assert_eq!(world.get::<Hp>(x), Ok(&Hp(1)), "the spawn completed");
    assert_eq!(world.query::<&Tag>().iter(&world).count(), 1, "the command queued before the panic applied");
    let errors = world.take_observer_errors();
    assert!(matches!(&errors[..], [ObserverError::Panicked { message, .. }] if message == "boom"), "{errors:?}");
    // Removal too: the value leaves even though an observer of its leaving panics.
    world.observe(|_: Trigger<OnRemove<Hp>>| panic!("no")).unwrap();
    world.remove::<(Hp,)>(x).unwrap();
    assert!(world.get::<Hp>(x).is_err());
    assert_eq!(world.take_observer_errors().len(), 1);
}

#[test]
fn change_observers_that_keep_writing_hit_the_bound_and_lose_nothing() {
    let mut world = World::new();
    world.observe(|t: Trigger<OnChange<Hp>>, mut q: Query<&mut Hp>| q.get_mut(t.entity()).unwrap().0 += 1).unwrap();
    let x = world.spawn((Hp(0),));
    world.flush();
    // Round 0 sees the add, every round after sees the previous round's write.
    assert_eq!(world.get::<Hp>(x).unwrap().0, MAX_CHANGE_ROUNDS as i32);
    assert_eq!(world.take_observer_errors(), [ObserverError::TooManyRounds { rounds: MAX_CHANGE_ROUNDS }]);
    world.flush();
    assert_eq!(world.get::<Hp>(x).unwrap().0, 2 * MAX_CHANGE_ROUNDS as i32, "the waiting change was delivered");
}

#[test]
fn an_observer_writing_once_is_reported_in_the_next_round() {
    let mut world = World::new();
    let l = log();
    let lc = l.clone();
    world
        .observe(move |t: Trigger<OnChange<Hp>>, mut q: Query<&mut Hp>| {
            let mut hp = q.get_mut(t.entity()).unwrap();
            lc.lock().unwrap().push(format!("{}", hp.0));
            if hp.0 < 3 {
                hp.0 = 3;
            }
        })
        .unwrap();
    world.spawn((Hp(1),));
    world.flush();
    assert_eq!(take(&l), ["1", "3"]);
    assert!(world.take_observer_errors().is_empty());
}

#[test]
fn unobserve_stops_an_observer() {
    let mut world = World::new();
    let l = log();
    let la = l.clone();
    let id = world.observe(move |_: Trigger<OnAdd<Hp>>| la.lock().unwrap().push("add".into())).unwrap();
    world.spawn((Hp(1),));
    world.unobserve(id).unwrap();
    world.spawn((Hp(1),));
    assert_eq!(take(&l), ["add"]);
    assert_eq!(world.unobserve(id), Err(ObserverError::NoSuchObserver(id)));
}

#[test]
fn clear_and_scene_loads_report_like_despawns_and_spawns() {
    let mut world = World::new();
    let l = log();
    let (lr, ld) = (l.clone(), l.clone());
    world.observe(move |_: Trigger<OnRemove<Hp>>| lr.lock().unwrap().push("remove".into())).unwrap();
    world.observe(move |_: Trigger<OnDespawn>| ld.lock().unwrap().push("despawn".into())).unwrap();
    world.spawn((Hp(1),));
    world.spawn((Tag,));
    world.clear();
    let mut got = take(&l);
    got.sort();
    assert_eq!(got, ["despawn", "despawn", "remove"]);
    assert_eq!(world.len(), 0);
}

#[test]
fn observers_spawn_and_despawn_through_commands() {
    let mut world = World::new();
    // Every Hp added spawns a shadow; a despawned entity takes its shadows with it.
    #[derive(Clone, Copy)]
    struct ShadowOf(Entity);
    world
        .observe(|t: Trigger<OnAdd<Hp>>, mut commands: Commands| {
            commands.spawn((ShadowOf(t.entity()),));
        })
        .unwrap();
    world
        .observe(|t: Trigger<OnDespawn>, shadows: Query<(Entity, &ShadowOf)>, mut commands: Commands| {
            for (shadow, of) in shadows.iter() {
                if of.0 == t.entity() {
                    commands.despawn(shadow);
                }
            }
        })
        .unwrap();
    let a = world.spawn((Hp(1),));
    let b = world.spawn((Hp(2),));
    assert_eq!(world.query::<&ShadowOf>().iter(&world).count(), 2);
    world.despawn(a).unwrap();
    let left: Vec<Entity> = world.query::<&ShadowOf>().iter(&world).map(|s| s.0).collect();
    assert_eq!(left, [b]);
    // A despawn observer despawning the entity again: the command fails, recorded
    // (for `b`, and for its shadow, whose despawn the first observer queued).
    world.observe(|t: Trigger<OnDespawn>, mut commands: Commands| commands.despawn(t.entity())).unwrap();
    world.despawn(b).unwrap();
    assert_eq!(world.query::<&ShadowOf>().iter(&world).count(), 0);
    let failed: Vec<String> = world.failed_commands().iter().map(|f| f.to_string()).collect();
    assert_eq!(failed.len(), 2, "{failed:?}");
    assert!(failed[0].contains(&b.to_string()), "{failed:?}");
}

struct Echo;
impl ObserverEvent for Echo {}

#[test]
fn recursive_triggers_stop_at_the_bound() {
    let mut world = World::new();
    #[derive(Default)]
    struct Count(usize);
    world.insert_resource(Count::default());
    world
        .observe(|_: Trigger<Echo>, mut count: ResMut<Count>, mut commands: Commands| {
            count.0 += 1;
            commands.trigger(Echo);
        })
        .unwrap();
    world.trigger(Echo);
    let runs = world.resource::<Count>().unwrap().0;
    assert_eq!(runs, ripple::MAX_HOOK_ROUNDS + 1, "the first run, then one per round");
    assert!(
        matches!(
            world.failed_commands(),
            [ripple::CommandError { error: ripple::CommandFailure::HookCascade { .. }, .. }]
        ),
        "{:?}",
        world.failed_commands()
    );
    // An insert observer re-inserting its own component loops the same way, bounded.
    world.observe(|t: Trigger<OnInsert<Hp>>, mut commands: Commands| commands.insert(t.entity(), (Hp(0),))).unwrap();
    let e = world.spawn((Hp(1),));
    assert_eq!(world.get::<Hp>(e), Ok(&Hp(0)));
    assert_eq!(world.failed_command_count(), 2);
}

#[test]
fn observers_added_while_delivering_start_after_it() {
    let mut world = World::new();
    let l = log();
    let la = l.clone();
    world
        .observe(move |_: Trigger<OnAdd<Hp>>, mut commands: Commands| {
            let lb = la.clone();
            commands.observe(move |t: Trigger<OnAdd<Hp>>| lb.lock().unwrap().push(t.entity().to_string()));
        })
        .unwrap();
    let a = world.spawn((Hp(1),));
    assert!(take(&l).is_empty(), "the new observer missed the add that registered it");
    let b = world.spawn((Hp(1),));
    assert_eq!(take(&l), [b.to_string()]);
    let _ = a;
}

#[test]
fn scene_loads_report_adds_and_inserts_in_file_order() {
    use serde::{Deserialize, Serialize};
    #[derive(Serialize, Deserialize, Clone, Copy, Debug, PartialEq)]
    struct Saved(u32);
    let mut registry = ripple::scene::SceneRegistry::new();
    registry.component::<Saved>("saved").unwrap();
    let mut world = World::new();
    world.spawn((Saved(1),));
    world.spawn((Saved(2),));
    let mut json = Vec::new();
    registry.save(&world).to_json(&mut json).unwrap();

    let mut copy = World::new();
    let l = log();
    let (la, li, lc) = (l.clone(), l.clone(), l.clone());
    copy.observe(move |t: Trigger<OnAdd<Saved>>, q: Query<&Saved>| {
        la.lock().unwrap().push(format!("add {}", q.get(t.entity()).unwrap().0));
    })
    .unwrap();
    copy.observe(move |t: Trigger<OnInsert<Saved>>, q: Query<&Saved>| {
        li.lock().unwrap().push(format!("insert {}", q.get(t.entity()).unwrap().0));
    })
    .unwrap();
    copy.observe(move |_: Trigger<OnChange<Saved>>| lc.lock().unwrap().push("change".to_string())).unwrap();
    registry.load_json(&mut copy, &json).unwrap();
    assert_eq!(take(&l), ["add 1", "insert 1", "add 2", "insert 2"]);
    copy.flush();
    assert_eq!(take(&l), ["change", "change"], "loaded values are new: added is changed");
}

#[test]
fn a_change_observer_added_after_all_were_removed_hears_only_new_changes() {
    let mut world = World::new();
    let l = log();
    let first = world.observe(|_: Trigger<OnChange<Hp>>| {}).unwrap();
    let e = world.spawn((Hp(0),));
    world.flush();
    world.unobserve(first).unwrap();
    world.get_mut::<Hp>(e).unwrap().0 = 1; // nobody listens
    world.flush();
    let lc = l.clone();
    world.observe(move |t: Trigger<OnChange<Hp>>| lc.lock().unwrap().push(t.entity().to_string())).unwrap();
    world.flush();
    assert!(take(&l).is_empty(), "the change made while nobody listened is not a backlog for the newcomer");
    world.get_mut::<Hp>(e).unwrap().0 = 2;
    world.flush();
    assert_eq!(take(&l), [e.to_string()]);
}

#[test]
fn a_change_observer_added_beside_another_hears_only_changes_made_after_it() {
    let mut world = World::new();
    world.observe(|_: Trigger<OnChange<Hp>>| {}).unwrap();
    let (early, late) = (world.spawn((Hp(0),)), world.spawn((Hp(0),)));
    world.flush();
    world.get_mut::<Hp>(early).unwrap().0 = 1; // before the newcomers: the first observer's
    let l = log();
    let (global, own) = (l.clone(), l.clone());
    world.observe(move |t: Trigger<OnChange<Hp>>| global.lock().unwrap().push(format!("all {}", t.entity()))).unwrap();
    world
        .observe_entity(early, move |t: Trigger<OnChange<Hp>>| own.lock().unwrap().push(format!("own {}", t.entity())))
        .unwrap();
    world.get_mut::<Hp>(late).unwrap().0 = 1;
    world.flush();
    assert_eq!(take(&l), [format!("all {late}")], "the change made before they were registered is not theirs");
    world.get_mut::<Hp>(early).unwrap().0 = 2;
    world.flush();
    assert_eq!(take(&l), [format!("all {early}"), format!("own {early}")], "from then on they hear everything");
}

#[test]
fn change_observers_running_one_shot_systems_stay_within_the_round_bound() {
    #[derive(Default)]
    struct Runs(usize);
    let mut world = World::new();
    world.insert_resource(Runs::default());
    let bump = world
        .register_system(|mut hp: Query<&mut Hp>, mut runs: ResMut<Runs>| {
            runs.0 += 1;
            hp.for_each_mut(|mut hp| hp.0 += 1);
        })
        .unwrap();
    world.observe(move |_: Trigger<OnChange<Hp>>, mut commands: Commands| commands.run_system(bump)).unwrap();
    let x = world.spawn((Hp(0),));
    world.flush();
    // Each one-shot run ends in a sync point of its own, inside this one's delivery:
    // its changes wait for this delivery's next round, so the bound holds for the whole.
    assert_eq!(world.resource::<Runs>().unwrap().0, MAX_CHANGE_ROUNDS);
    assert_eq!(world.take_observer_errors(), [ObserverError::TooManyRounds { rounds: MAX_CHANGE_ROUNDS }]);
    assert!(world.failed_commands().is_empty(), "{:?}", world.failed_commands());
    world.flush();
    assert_eq!(world.get::<Hp>(x).unwrap().0, 2 * MAX_CHANGE_ROUNDS as i32, "the waiting change was delivered");
}
