//! bevy_ecs's spellings where a bevy user reaches for them: `add_systems` with one
//! system, `run_if` on a group, `add_observer`, `get_resource`, a read-only query's
//! `get` through `&self`, `for item in &mut query`, `with_children` and
//! `with_related` builders, and `spawn(..).id()` (deprecated: ripple's `spawn`
//! returns the `Entity`). What does not compile says what to write instead (the
//! `compile_fail` examples on `Bundle` and `SpawnReturnsAnEntity`).

#![allow(elided_lifetimes_in_paths, reason = "system signatures read as a bevy user writes them")]

use std::sync::{Arc, Mutex};

use ripple::prelude::*;
use ripple::relation::{DespawnPolicy, Related, Relation};

struct Playing;
#[derive(Default)]
struct Steps(Vec<&'static str>);

fn first(mut steps: ResMut<Steps>) {
    steps.0.push("first");
}
fn second(mut steps: ResMut<Steps>) {
    steps.0.push("second");
}

#[test]
fn add_systems_takes_one_system_as_well_as_a_tuple() {
    let mut world = World::new();
    world.init_resource::<Steps>();
    let mut schedule = Schedule::new();
    let ids = schedule.add_systems(&mut world, first).unwrap();
    assert_eq!(ids.len(), 1);
    schedule.add_systems(&mut world, second.after("first")).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Steps>().unwrap().0, ["first", "second"]);
}

#[test]
fn run_if_on_a_chained_group_guards_every_member_with_one_evaluation() {
    let evaluations = Arc::new(Mutex::new(0));
    let counted = evaluations.clone();
    let playing = move |playing: Option<Res<Playing>>| {
        *counted.lock().unwrap() += 1;
        playing.is_some()
    };
    let mut world = World::new();
    world.init_resource::<Steps>();
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, (first, second).chain().run_if(playing)).unwrap();
    schedule.run(&mut world);
    assert!(world.resource::<Steps>().unwrap().0.is_empty());
    world.insert_resource(Playing);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Steps>().unwrap().0, ["first", "second"]);
    // Once per run for the whole group (a set's condition), not once per member.
    assert_eq!(*evaluations.lock().unwrap(), 2);
}

#[test]
fn a_refused_group_with_a_condition_leaves_the_schedule_as_it_was() {
    let mut world = World::new();
    world.init_resource::<Steps>();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, second).unwrap();
    // The second member's name is taken: the first is removed again, and so is the
    // group's set, so the same group can be added under other names.
    let refused = schedule.add_systems(&mut world, (first, second.named("second")).run_if(resource_exists::<Playing>));
    assert!(refused.is_err());
    assert!(schedule.add_systems(&mut world, first.run_if(resource_exists::<Playing>)).is_ok());
    world.insert_resource(Playing);
    schedule.run(&mut world);
    assert_eq!(world.resource::<Steps>().unwrap().0, ["second", "first"]);
}

#[test]
fn add_observer_and_get_resource_are_bevys_names() {
    struct Hp;
    let mut world = World::new();
    world.init_resource::<Steps>();
    world.add_observer(|_: Trigger<OnAdd<Hp>>, mut steps: ResMut<Steps>| steps.0.push("added")).unwrap();
    world.spawn((Hp,));
    assert_eq!(world.get_resource::<Steps>().unwrap().0, ["added"]);
    assert!(world.get_resource::<Playing>().is_none());
    assert!(world.get_resource_mut::<Playing>().is_none());
    world.get_resource_mut::<Steps>().unwrap().0.clear();
    assert!(world.resource::<Steps>().unwrap().0.is_empty());
}

struct Pos(u32);

#[test]
fn a_read_only_query_gets_through_a_shared_reference_and_iterates_through_mut() {
    #[derive(Default)]
    struct Sums(Vec<u32>);
    fn read(query: Query<&Pos>, list: Res<List>, mut sums: ResMut<Sums>) {
        // `query` is not `mut`: `get` and `get_many` take `&self`.
        let one = query.get(list.0[0]).unwrap().0;
        let [a, b] = query.get_many([list.0[0], list.0[1]]).unwrap();
        sums.0.push(one + a.0 + b.0);
    }
    fn iterate(mut query: Query<&mut Pos>, mut sums: ResMut<Sums>) {
        let mut total = 0;
        for pos in &mut query {
            total += pos.0;
        }
        sums.0.push(total);
    }
    struct List(Vec<Entity>);
    let mut world = World::new();
    let list = vec![world.spawn((Pos(1),)), world.spawn((Pos(10),))];
    world.insert_resource(List(list));
    world.init_resource::<Sums>();
    let mut schedule = Schedule::new();
    schedule.add_systems(&mut world, (read, iterate).chain()).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Sums>().unwrap().0, [12, 11]);
}

#[test]
fn with_children_spawns_children_from_commands_and_from_the_world() {
    struct Ship;
    struct Gun(u32);
    let mut world = World::new();
    let mut queue = ripple::CommandQueue::default();
    let mut commands = queue.commands(&world);
    let ship = commands.spawn((Ship,));
    let mut guns = Vec::new();
    commands.entity(ship).with_children(|parent| {
        guns.push(parent.spawn((Gun(1),)).id());
        guns.push(parent.spawn((Gun(2),)).id());
        assert_eq!(parent.target_entity(), ship);
    });
    commands.entity(ship).with_child((Gun(3),));
    queue.apply(&mut world);
    assert_eq!(world.children(ship).unwrap().len(), 3);
    assert_eq!(&world.children(ship).unwrap()[..2], &guns[..]);
    assert_eq!(world.get::<Gun>(guns[1]).unwrap().0, 2);

    let other = world.spawn((Ship,));
    let mut view = world.entity_mut(other).unwrap();
    view.with_children(|parent| {
        parent.spawn((Gun(4),)).with_children(|grand| {
            grand.spawn((Gun(5),));
        });
    });
    view.with_child((Gun(6),));
    assert_eq!(world.children(other).unwrap().len(), 2);
    assert_eq!(world.descendants(other).count(), 3);
}

#[test]
fn with_related_spawns_sources_of_any_relation() {
    struct Targets(Entity);
    impl Relation for Targets {
        const ON_TARGET_DESPAWN: DespawnPolicy = DespawnPolicy::Detach;
        fn target(&self) -> Entity {
            self.0
        }
        fn to(target: Entity) -> Self {
            Targets(target)
        }
        fn set_target(&mut self, target: Entity) {
            self.0 = target;
        }
    }
    struct Turret;
    let mut world = World::new();
    world.register_relation::<Targets>();
    let enemy = world.spawn(());
    world.entity_mut(enemy).unwrap().with_related::<Targets>((Turret,)).with_related_entities::<Targets>(|spawner| {
        spawner.spawn((Turret,));
    });
    let mut queue = ripple::CommandQueue::default();
    let mut commands = queue.commands(&world);
    commands.entity(enemy).with_related::<Targets>((Turret,));
    let gone = commands.spawn(());
    commands.despawn(gone);
    // A target despawned before the command applies: the spawn stays, the link is a
    // failed command.
    commands.entity(gone).with_related::<Targets>((Turret,));
    queue.apply(&mut world);
    assert_eq!(world.get::<Related<Targets>>(enemy).unwrap().as_slice().len(), 3);
    assert_eq!(world.failed_commands().len(), 1);
}

#[test]
#[allow(deprecated, reason = "the shim under test")]
fn spawn_then_id_is_the_handle_itself() {
    let mut world = World::new();
    let hero = world.spawn((Pos(1),)).id();
    assert_eq!(world.get::<Pos>(hero).unwrap().0, 1);
}

#[test]
fn run_system_once_runs_applies_commands_and_refuses_missing_resources() {
    let mut world = World::new();
    let spawned = world.run_system_once(|mut commands: Commands| commands.spawn((Pos(7),))).unwrap();
    assert_eq!(world.get::<Pos>(spawned).unwrap().0, 7);
    let doubled = world.run_system_once_with(|In(x): In<u32>, q: Query<&Pos>| x * q.iter().count() as u32, 2);
    assert_eq!(doubled, Ok(2));
    let refused = world.run_system_once(|_: Res<Playing>| ());
    assert!(matches!(refused, Err(ripple::system::OneShotError::InvalidParams { .. })));
}

#[test]
fn commands_spawn_batch_and_add_children_are_bevys_names() {
    struct Kid;
    let mut world = World::new();
    let mut queue = ripple::CommandQueue::default();
    let mut commands = queue.commands(&world);
    commands.spawn_batch((0..3).map(|i| (Pos(i),)));
    let parent = commands.spawn(());
    let a = commands.spawn((Kid,));
    let b = commands.spawn((Kid,));
    let c = commands.spawn((Kid,));
    commands.entity(parent).add_child(a).add_children(&[b, c]);
    queue.apply(&mut world);
    assert_eq!(world.query::<&Pos>().iter(&world).count(), 3);
    assert_eq!(world.children(parent).unwrap(), [a, b, c]);
}
