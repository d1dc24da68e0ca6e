//! Systems with input and output as bevy_ecs users write them: `In`, `InRef`, `InMut`,
//! `run_system_with`, systems returning values and `Result`, and `pipe`. Named after
//! the bevy_ecs 0.20 test each mirrors, where one exists.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::sync::{Arc, Mutex};

use ripple::schedule::Schedule;
use ripple::system::{In, InMut, InRef, IntoIoSystem, OneShotError, Query, Res, ResMut, SystemResult};
use ripple::{Commands, World};

#[derive(Default, Debug, PartialEq)]
struct Counter(u8);

#[test]
fn system_with_input() {
    fn with_input(In(n): In<u8>, mut counter: ResMut<Counter>) {
        counter.0 += n;
    }
    let mut world = World::new();
    world.insert_resource(Counter(0));
    let id = world.register_system(with_input).unwrap();
    world.run_system_with(id, 1).unwrap();
    assert_eq!(*world.resource::<Counter>().unwrap(), Counter(1));
    world.run_system_with(id, 20).unwrap();
    assert_eq!(*world.resource::<Counter>().unwrap(), Counter(21));
}

#[test]
fn system_with_input_ref() {
    fn with_ref(InRef(input): InRef<u8>, mut counter: ResMut<Counter>) {
        counter.0 += *input;
    }
    let mut world = World::new();
    world.insert_resource(Counter(0));
    let id = world.register_system(with_ref).unwrap();
    let input = 3;
    world.run_system_with(id, &input).unwrap();
    world.run_system_with(id, &input).unwrap();
    assert_eq!(*world.resource::<Counter>().unwrap(), Counter(6));
}

#[test]
fn system_with_input_mut() {
    #[derive(Default)]
    struct MyEvent {
        cancelled: bool,
    }
    fn post(InMut(event): InMut<MyEvent>, counter: Res<Counter>) {
        if counter.0 > 0 {
            event.cancelled = true;
        }
    }
    let mut world = World::new();
    world.insert_resource(Counter(0));
    let id = world.register_system(post).unwrap();
    let mut event = MyEvent::default();
    world.run_system_with(id, &mut event).unwrap();
    assert!(!event.cancelled);
    world.resource_mut::<Counter>().unwrap().0 = 1;
    world.run_system_with(id, &mut event).unwrap();
    assert!(event.cancelled);
}

#[test]
fn output_values() {
    // Verify that a non-Copy, non-Clone type can be returned.
    #[derive(Debug, PartialEq)]
    struct NonCopy(u8);
    fn increment(mut counter: ResMut<Counter>) -> NonCopy {
        counter.0 += 1;
        NonCopy(counter.0)
    }
    let mut world = World::new();
    world.insert_resource(Counter(0));
    let id = world.register_system(increment).unwrap();
    assert_eq!(world.run_system(id), Ok(NonCopy(1)));
    assert_eq!(world.run_system(id), Ok(NonCopy(2)));
    assert_eq!(world.run_system_cached(increment), Ok(NonCopy(3)));
}

#[test]
fn exclusive_system_with_output_and_input_by_value() {
    let mut world = World::new();
    world.insert_resource(Counter(4));
    let id = world.register_system(|In(factor): In<u8>, counter: Res<Counter>| counter.0 * factor).unwrap();
    assert_eq!(world.run_system_with(id, 3), Ok(12));
    assert_eq!(world.run_system_cached_with(|In(x): In<u8>| x + 1, 41), Ok(42));
}

#[test]
fn missing_resource_refuses_a_run_with_input() {
    fn needs(In(_): In<u8>, _: Res<Counter>) -> u8 {
        7
    }
    let mut world = World::new();
    let id = world.register_system(needs).unwrap();
    assert!(matches!(world.run_system_with(id, 1), Err(OneShotError::InvalidParams { .. })));
    world.insert_resource(Counter(0));
    assert_eq!(world.run_system_with(id, 1), Ok(7));
    world.unregister_system(id).unwrap();
    assert_eq!(world.run_system_with(id, 1), Err(OneShotError::NoSuchSystem(id.untyped())));
}

#[test]
fn pipe_test() {
    // bevy's `system_piping` tests: one system's output is the next one's input.
    fn parse(In(text): In<String>) -> Result<u8, std::num::ParseIntError> {
        text.parse()
    }
    fn add_to_counter(In(parsed): In<Result<u8, std::num::ParseIntError>>, mut counter: ResMut<Counter>) -> bool {
        match parsed {
            Ok(n) => {
                counter.0 += n;
                true
            }
            Err(_) => false,
        }
    }
    let mut world = World::new();
    world.insert_resource(Counter(0));
    let id = world.register_system(parse.pipe(add_to_counter)).unwrap();
    assert_eq!(world.run_system_with(id, "5".to_string()), Ok(true));
    assert_eq!(world.run_system_with(id, "five".to_string()), Ok(false));
    assert_eq!(*world.resource::<Counter>().unwrap(), Counter(5));
}

#[test]
fn piped_systems_write_the_same_data_and_run_in_a_schedule() {
    #[derive(Debug, PartialEq)]
    struct Hp(u8);
    // Both halves write Hp: a pipe runs them one after the other, so that is allowed.
    fn heal(mut hp: Query<&mut Hp>) -> u8 {
        let mut healed = 0;
        hp.for_each_mut(|mut hp| {
            hp.0 += 1;
            healed += 1;
        });
        healed
    }
    fn cap(In(healed): In<u8>, mut hp: Query<&mut Hp>, mut counter: ResMut<Counter>) {
        counter.0 += healed;
        hp.for_each_mut(|mut hp| hp.0 = hp.0.min(3));
    }
    let mut world = World::new();
    world.insert_resource(Counter(0));
    let a = world.spawn((Hp(1),));
    let b = world.spawn((Hp(3),));
    let mut schedule = Schedule::new();
    let id = schedule.add_system(&mut world, heal.pipe(cap)).unwrap();
    assert_eq!(schedule.stats(id).unwrap().runs, 0);
    schedule.run(&mut world);
    schedule.run(&mut world);
    assert_eq!(world.get::<Hp>(a).ok(), Some(&Hp(3)));
    assert_eq!(world.get::<Hp>(b).ok(), Some(&Hp(3)));
    assert_eq!(*world.resource::<Counter>().unwrap(), Counter(4));
}

#[test]
fn pipe_of_three_and_commands_of_both_halves_apply() {
    struct Marker;
    let mut world = World::new();
    let first = |mut commands: Commands| -> u8 {
        commands.spawn((Marker,));
        2
    };
    let second = |In(n): In<u8>, mut commands: Commands| -> u8 {
        commands.spawn((Marker,));
        n * 10
    };
    let third = |In(n): In<u8>| n + 1;
    let id = world.register_system(first.pipe(second).pipe(third)).unwrap();
    assert_eq!(world.run_system(id), Ok(21));
    assert_eq!(world.query::<&Marker>().iter(&world).count(), 2);
}

fn parse_config(input: Res<Input>) -> SystemResult {
    let _: u32 = input.0.parse()?;
    Ok(())
}

struct Input(&'static str);

#[test]
fn fallible_systems_report_their_errors() {
    let mut world = World::new();
    world.insert_resource(Input("x"));
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, parse_config).unwrap();
    schedule
        .add_system(&mut world, |mut counter: Option<ResMut<Counter>>| {
            if let Some(counter) = &mut counter {
                counter.0 += 1;
            }
        })
        .unwrap();
    schedule.run(&mut world);
    schedule.run(&mut world);
    let errors = schedule.take_system_errors();
    assert_eq!(errors.len(), 2, "each failed run reported");
    assert_eq!(errors[0].system, "parse_config");
    assert!(schedule.report().is_empty() || !schedule.report().contains("failed"), "taken errors leave the report");
    world.resource_mut::<Input>().unwrap().0 = "12";
    schedule.run(&mut world);
    assert!(schedule.take_system_errors().is_empty());
    assert_eq!(schedule.system_error_count(), 2);
    // A one-shot run hands the result back.
    world.resource_mut::<Input>().unwrap().0 = "-";
    let result = world.run_system_cached(parse_config).unwrap();
    assert!(result.is_err());
}

#[test]
fn error_handler_gets_errors_and_its_panic_waits_for_the_sync_point() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let mut world = World::new();
    world.insert_resource(Input("x"));
    world.insert_resource(Counter(0));
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, parse_config).unwrap();
    schedule
        .add_system(&mut world, |mut commands: Commands| {
            commands.add(|w: &mut World| {
                w.resource_mut::<Counter>().unwrap().0 += 1;
            })
        })
        .unwrap();
    let sink = Arc::clone(&seen);
    schedule.set_error_handler(move |error| sink.lock().unwrap().push(error.to_string()));
    schedule.run(&mut world);
    assert_eq!(seen.lock().unwrap().len(), 1);
    assert!(seen.lock().unwrap()[0].starts_with("system `parse_config` failed"));
    assert!(schedule.take_system_errors().is_empty(), "handled errors are not kept");
    // bevy's default: a panic. The commands of the phase still apply.
    schedule.set_error_handler(|error| panic!("{error}"));
    let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world)));
    assert!(run.is_err());
    assert_eq!(world.resource::<Counter>().unwrap().0, 2, "the sync point completed before the panic went on");
    schedule.clear_error_handler();
    schedule.run(&mut world);
    assert_eq!(schedule.take_system_errors().len(), 1);
}

#[test]
fn fallible_pipe_in_a_schedule() {
    fn read(input: Res<Input>) -> &'static str {
        input.0
    }
    fn check(In(text): In<&'static str>) -> Result<(), String> {
        if text.is_empty() { Err("empty input".to_string()) } else { Ok(()) }
    }
    let mut world = World::new();
    world.insert_resource(Input(""));
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, read.pipe(check)).unwrap();
    schedule.run(&mut world);
    let errors = schedule.take_system_errors();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].system, "read | check");
    assert_eq!(errors[0].error.to_string(), "empty input");
    // A pipe whose resource is missing is skipped, as any system.
    world.remove_resource::<Input>().unwrap();
    schedule.run(&mut world);
    assert_eq!(schedule.take_skipped_runs().len(), 1);
}

#[test]
fn commands_run_system_discards_the_output() {
    let mut world = World::new();
    world.insert_resource(Counter(0));
    let id = world
        .register_system(|mut counter: ResMut<Counter>| {
            counter.0 += 1;
            counter.0
        })
        .unwrap();
    let caller = world.register_system(move |mut commands: Commands| commands.run_system(id)).unwrap();
    world.run_system(caller).unwrap();
    assert_eq!(*world.resource::<Counter>().unwrap(), Counter(1));
}
