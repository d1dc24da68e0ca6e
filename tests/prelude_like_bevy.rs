//! What a bevy_ecs program reaches for in its first lines comes from `ripple::prelude`
//! alone (messages, groups of systems, the common run conditions), and code written
//! against the former event names still compiles and behaves as the new names do.

#![allow(elided_lifetimes_in_paths, reason = "system signatures read as a bevy user writes them")]

use ripple::prelude::*;

struct Paused;
struct Hit(u32);
#[derive(Default)]
struct Total(u32);

fn shoot(mut hits: MessageWriter<Hit>) {
    hits.write(Hit(2));
    hits.write_batch([Hit(3), Hit(5)]);
}

fn tally(mut hits: MessageReader<Hit>, mut total: ResMut<Total>) {
    total.0 += hits.read().map(|hit| hit.0).sum::<u32>();
}

#[test]
fn a_bevy_style_schedule_builds_from_the_prelude_alone() {
    let mut world = World::new();
    world.insert_resource(Total::default());
    let mut schedule = Schedule::new();
    schedule
        .add_systems(&mut world, (shoot.in_phase(ripple::schedule::PRE_UPDATE), tally).chain())
        .expect("a chain of two systems");
    schedule.add_system(&mut world, (|| panic!("paused")).run_if(resource_exists::<Paused>)).unwrap();
    schedule
        .add_system(&mut world, (|mut total: ResMut<Total>| total.0 += 100).run_if(not(resource_exists::<Paused>)))
        .unwrap();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().unwrap().0, 110);
}

/// `Message` is the bound a generic helper over message types names.
fn count_all<M: Message>(world: &mut World, cursor: &mut ripple::message::MessageCursor<M>) -> usize {
    world.deliver_messages();
    world.read_messages(cursor).count()
}

#[test]
fn message_is_the_bound_generic_code_names() {
    let mut world = World::new();
    let mut cursor = world.message_cursor::<Hit>();
    world.write_message_batch([Hit(1), Hit(2)]);
    assert_eq!(count_all(&mut world, &mut cursor), 2);
}

#[test]
#[allow(deprecated, reason = "the former names are what this test exercises")]
fn the_former_event_names_still_work_as_the_message_names_do() {
    use ripple::message::{Event, EventReader, EventWriter};

    fn old_shoot(mut hits: EventWriter<Hit>) {
        hits.send(Hit(7));
        hits.send_batch([Hit(1)]);
    }
    fn old_tally(mut hits: EventReader<Hit>, mut total: ResMut<Total>) {
        total.0 += hits.read().map(|hit| hit.0).sum::<u32>();
    }
    fn sent_through_the_old_bound<E: Event>(world: &mut World, event: E) {
        world.send_event(event);
    }

    let mut world = World::new();
    world.insert_resource(Total::default());
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, old_shoot.in_phase(ripple::schedule::PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, old_tally).unwrap();
    schedule.run(&mut world);
    assert_eq!(world.resource::<Total>().unwrap().0, 8);

    let mut cursor = world.event_cursor::<Hit>();
    sent_through_the_old_bound(&mut world, Hit(4));
    world.deliver_events();
    assert_eq!(world.read_events(&mut cursor).map(|hit| hit.0).collect::<Vec<_>>(), [4]);
    assert_eq!(world.event_stats::<Hit>(), world.message_stats::<Hit>());
}

#[derive(Default, Debug, PartialEq)]
struct Score(u32);
struct Level(u8);

#[test]
fn spawn_empty_and_init_resource_as_bevy_names_them() {
    let mut world = World::new();
    let empty = world.spawn_empty();
    assert!(world.contains(empty));
    world.init_resource::<Score>();
    assert_eq!(world.resource::<Score>().unwrap(), &Score(0));
    world.resource_mut::<Score>().unwrap().0 = 3;
    world.init_resource::<Score>();
    assert_eq!(world.resource::<Score>().unwrap(), &Score(3), "an existing resource is kept");
}

#[test]
fn commands_spawn_empty_and_manage_resources_at_the_sync_point() {
    fn setup(mut commands: Commands) {
        let marker = commands.spawn_empty();
        commands.insert(marker, (Level(1),));
        commands.insert_resource(Level(2));
        commands.init_resource::<Score>();
        commands.remove_resource::<Total>();
    }
    #[derive(Default)]
    struct Ready(Vec<bool>);
    fn check(
        level: Option<Res<Level>>,
        score: Option<Res<Score>>,
        total: Option<Res<Total>>,
        mut ready: ResMut<Ready>,
    ) {
        ready.0.push(level.is_some() && score.is_some() && total.is_none());
    }
    let mut world = World::new();
    world.insert_resource(Total(5));
    world.init_resource::<Ready>();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, check.in_phase(ripple::schedule::PRE_UPDATE)).unwrap();
    schedule.add_system(&mut world, setup.in_phase(ripple::schedule::PRE_UPDATE).after("check")).unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    // The first run's check ran before the setup's commands applied at the phase's sync
    // point; the second saw them.
    assert_eq!(world.resource::<Ready>().unwrap().0, [false, true]);
    assert_eq!(world.resource::<Level>().unwrap().0, 2);
    assert_eq!(world.resource::<Score>().unwrap(), &Score(0));
    assert!(world.resource::<Total>().is_err());
    // One marker entity per run of the setup.
    assert_eq!(world.query::<&Level>().iter(&world).map(|level| level.0).collect::<Vec<_>>(), [1, 1]);
}
