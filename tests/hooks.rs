//! Component hooks: which run, in what order, what they see, and how their commands
//! are deferred.

use std::sync::{Arc, Mutex};

use ripple::{CommandQueue, HookContext, World};

#[derive(Debug, PartialEq)]
struct A(u32);
#[derive(Debug, PartialEq)]
struct B(u32);
struct Marker;

type Log = Arc<Mutex<Vec<String>>>;

/// Registers every hook of `A` and `B`, logging `kind type entity value`.
fn logged_world() -> (World, Log) {
    let mut world = World::new();
    let log = Log::default();
    macro_rules! hook {
        ($register:ident, $ty:ident, $kind:literal) => {{
            let log = log.clone();
            world.$register::<$ty>(move |ctx: &mut HookContext<'_>| {
                let value = ctx.world.get::<$ty>(ctx.entity).map(|v| v.0);
                log.lock().unwrap().push(format!("{} {} {} {:?}", $kind, stringify!($ty), ctx.entity, value));
            });
        }};
    }
    hook!(on_add, A, "add");
    hook!(on_insert, A, "insert");
    hook!(on_remove, A, "remove");
    hook!(on_add, B, "add");
    hook!(on_insert, B, "insert");
    hook!(on_remove, B, "remove");
    (world, log)
}

fn take(log: &Log) -> Vec<String> {
    std::mem::take(&mut *log.lock().unwrap())
}

#[test]
fn hooks_run_in_order_with_the_value_visible() {
    let (mut world, log) = logged_world();
    let e = world.spawn((A(1), B(2)));
    assert_eq!(
        take(&log),
        [
            format!("add A {e} Ok(1)"),
            format!("add B {e} Ok(2)"),
            format!("insert A {e} Ok(1)"),
            format!("insert B {e} Ok(2)")
        ]
    );
    world.insert(e, (A(3),)).unwrap();
    assert_eq!(take(&log), [format!("insert A {e} Ok(3)")], "a replaced value is inserted, not added");
    let removed = world.remove::<(B,)>(e).unwrap();
    assert_eq!(removed.0, B(2));
    assert_eq!(take(&log), [format!("remove B {e} Ok(2)")], "on_remove still sees the value");
    world.insert(e, (B(4),)).unwrap();
    assert_eq!(take(&log), [format!("add B {e} Ok(4)"), format!("insert B {e} Ok(4)")]);
    world.despawn(e).unwrap();
    assert_eq!(take(&log), [format!("remove A {e} Ok(3)"), format!("remove B {e} Ok(4)")]);
    assert!(world.despawn(e).is_err());
    assert!(take(&log).is_empty(), "a failed despawn runs no hook");
}

#[test]
fn spawn_batch_clear_and_commands_run_hooks_too() {
    let (mut world, log) = logged_world();
    let batch: Vec<_> = world.spawn_batch((0..3).map(|i| (A(i),))).collect();
    let lines = take(&log);
    assert_eq!(lines.len(), 6);
    assert_eq!(lines[0], format!("add A {} Ok(0)", batch[0]));
    assert_eq!(lines[5], format!("insert A {} Ok(2)", batch[2]));
    world.clear();
    let lines = take(&log);
    assert_eq!(lines.len(), 3);
    assert!(lines.iter().all(|l| l.starts_with("remove A")));
    let mut queue = CommandQueue::default();
    let e = queue.commands(&world).spawn((B(5),));
    assert!(take(&log).is_empty(), "nothing runs before the queue is applied");
    queue.apply(&mut world);
    assert_eq!(take(&log), [format!("add B {e} Ok(5)"), format!("insert B {e} Ok(5)")]);
}

#[test]
fn hooks_added_after_tables_exist_apply_to_them() {
    let mut world = World::new();
    let e = world.spawn((A(1),));
    let removed = Log::default();
    let log = removed.clone();
    world.on_remove::<A>(move |ctx| log.lock().unwrap().push(format!("{}", ctx.entity)));
    world.despawn(e).unwrap();
    assert_eq!(take(&removed), [format!("{e}")]);
}

#[test]
fn structural_changes_from_hooks_are_deferred_until_the_operation_completes() {
    let mut world = World::new();
    let seen = Log::default();
    let log = seen.clone();
    // Adding an A tags the entity and spawns a B companion, through commands.
    world.on_add::<A>(move |ctx| {
        let has_marker = ctx.world.entity(ctx.entity).unwrap().has::<Marker>();
        log.lock().unwrap().push(format!("add A, marker yet: {has_marker}"));
        ctx.commands.insert(ctx.entity, (Marker,));
        let value = ctx.world.get::<A>(ctx.entity).unwrap().0;
        ctx.commands.spawn((B(value),));
    });
    let log = seen.clone();
    // The companion's hook queues more work: it runs in the same loop, not nested.
    world.on_add::<B>(move |ctx| {
        log.lock().unwrap().push("add B".into());
        let value = ctx.world.get::<B>(ctx.entity).unwrap().0;
        if value < 3 {
            ctx.commands.spawn((A(value + 1),));
        }
    });
    let e = world.spawn((A(1),));
    assert!(world.entity(e).unwrap().has::<Marker>(), "applied before spawn returned");
    // A(1) → B(1) → A(2) → B(2) → A(3) → B(3): three As, three Bs.
    assert_eq!(world.len(), 6);
    assert_eq!(
        take(&seen),
        ["add A, marker yet: false", "add B", "add A, marker yet: false", "add B", "add A, marker yet: false", "add B"]
    );
}

#[test]
fn a_despawn_queued_by_an_on_remove_hook_for_a_gone_entity_is_recorded_not_a_panic() {
    let mut world = World::new();
    world.on_remove::<A>(|ctx| {
        let entity = ctx.entity;
        ctx.commands.despawn(entity);
    });
    let e = world.spawn((A(1),));
    world.despawn(e).unwrap();
    assert_eq!(world.failed_command_count(), 1);
    assert!(world.failed_commands()[0].to_string().contains("despawn"));
}

#[test]
fn entities_spawned_by_removal_hooks_get_the_handles_they_were_given() {
    let mut world = World::new();
    let spawned = Arc::new(Mutex::new(Vec::new()));
    let log = spawned.clone();
    world.on_remove::<A>(move |ctx| {
        let value = ctx.world.get::<A>(ctx.entity).unwrap().0;
        let heir = ctx.commands.spawn((B(value),));
        log.lock().unwrap().push(heir);
    });
    let first = world.spawn((A(1),));
    let second = world.spawn((A(2),));
    world.despawn(first).unwrap();
    world.despawn(second).unwrap();
    let heirs = spawned.lock().unwrap().clone();
    assert_eq!(heirs.len(), 2);
    assert_eq!(world.get::<B>(heirs[0]), Ok(&B(1)));
    assert_eq!(world.get::<B>(heirs[1]), Ok(&B(2)));
    assert_eq!(world.failed_command_count(), 0);
    assert_eq!(world.len(), 2);
}

#[test]
fn despawn_where_tolerates_hooks_that_despawn_the_next_victim() {
    let mut world = World::new();
    // The (A, B) table comes first, so despawn_where reaches its entity first.
    world.spawn((A(1), B(0)));
    let partner = world.spawn((A(2),));
    // Removing a B despawns its partner: a cascading delete.
    world.on_remove::<B>(move |ctx| {
        ctx.commands.despawn(partner);
    });
    let mut all = world.query::<&A>();
    let despawned = all.despawn_where(&mut world, |_| true);
    assert!(world.is_empty());
    assert_eq!(despawned, 1, "the partner went with the hook, not with despawn_where");
}

#[test]
fn a_panicking_hook_command_leaves_no_stale_commands_behind() {
    let mut world = World::new();
    world.on_add::<A>(|ctx| {
        ctx.commands.add(|_: &mut World| panic!("hook command failed"));
    });
    world.on_add::<B>(|ctx| {
        let entity = ctx.entity;
        ctx.commands.insert(entity, (Marker,));
    });
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| world.spawn((A(1),))));
    assert!(result.is_err());
    let e = world.spawn((B(1),));
    assert!(world.entity(e).unwrap().has::<Marker>(), "hook commands still run after a panic");
    assert_eq!(world.len(), 2);
}

#[test]
fn hooks_that_trigger_each_other_are_cut_off_and_reported() {
    struct Ping;
    struct Pong;
    let mut world = World::new();
    world.on_add::<Ping>(|ctx| {
        let e = ctx.entity;
        ctx.commands.remove_one::<Pong>(e);
        ctx.commands.insert_one(e, Pong);
    });
    world.on_add::<Pong>(|ctx| {
        let e = ctx.entity;
        ctx.commands.remove_one::<Ping>(e);
        ctx.commands.insert_one(e, Ping);
        ctx.commands.spawn((Marker,)); // reservations dropped by the cut are freed
    });
    let e = world.spawn((Ping,)); // would loop forever without a bound
    let failures: Vec<ripple::CommandError> = world.drain_failed_commands().collect();
    let cascades: Vec<_> = failures
        .iter()
        .filter(|f| matches!(f.error, ripple::CommandFailure::HookCascade { rounds, .. } if rounds == ripple::MAX_HOOK_ROUNDS))
        .collect();
    assert_eq!(cascades.len(), 1, "{failures:?}");
    assert_eq!(cascades[0].command, "hooks");
    assert!(cascades[0].to_string().contains("hooks kept triggering each other"), "{}", cascades[0]);
    assert!(world.contains(e));
    let markers = world.query::<&Marker>().iter(&world).count();
    let empty = world.len() - 1 - markers;
    assert_eq!(empty, 0, "no entity without components is left behind");
    world.despawn(e).unwrap();
    let f = world.spawn((Marker,));
    assert!(world.contains(f), "the world stays usable");
}

#[test]
fn only_the_bundles_own_hooks_run_and_hooks_added_after_a_bundle_was_used_still_run() {
    for storage in [ripple::Storage::Table, ripple::Storage::SparseSet] {
        let mut world = World::new();
        world.set_storage::<B>(storage).unwrap();
        let log: Arc<Mutex<Vec<String>>> = Arc::default();
        // A hooked component in the entity's table: inserting and removing B runs none
        // of its hooks.
        let a_log = log.clone();
        world.on_insert::<A>(move |ctx| a_log.lock().unwrap().push(format!("insert A {}", ctx.entity)));
        let a_log = log.clone();
        world.on_remove::<A>(move |ctx| a_log.lock().unwrap().push(format!("remove A {}", ctx.entity)));
        let e = world.spawn((A(1),));
        world.insert(e, (B(1),)).unwrap();
        world.remove::<(B,)>(e).unwrap();
        assert_eq!(*log.lock().unwrap(), [format!("insert A {e}")], "{storage:?}");
        // Hooks added to B after its bundles were first used run from then on.
        let b_log = log.clone();
        world.on_add::<B>(move |ctx| b_log.lock().unwrap().push(format!("add B {}", ctx.entity)));
        let b_log = log.clone();
        world.on_remove::<B>(move |ctx| b_log.lock().unwrap().push(format!("remove B {}", ctx.entity)));
        log.lock().unwrap().clear();
        world.insert(e, (B(2),)).unwrap();
        world.remove::<(B,)>(e).unwrap();
        world.insert(e, (B(3), Marker)).unwrap();
        assert_eq!(
            *log.lock().unwrap(),
            [format!("add B {e}"), format!("remove B {e}"), format!("add B {e}")],
            "{storage:?}"
        );
    }
}
