//! Run conditions as bevy_ecs users expect them: every condition evaluated every run,
//! combinators, the stock conditions, and `Res::is_changed` inside a `ParamSet`. Each
//! test is named after the bevy_ecs 0.20 behaviour it mirrors.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ripple::World;
use ripple::schedule::{IntoSystemConfig, Schedule};
use ripple::system::{
    IntoCondition, ParamSet, Res, ResMut, any_component_removed, condition_changed, condition_changed_to, not,
    resource_changed, resource_changed_or_removed, resource_equals, resource_exists, resource_exists_and_equals,
    resource_removed, run_once,
};

#[derive(Default)]
struct Gate(bool);
#[derive(Default, PartialEq)]
struct Score(u32);
struct Hp;

/// A system that counts its runs, with the counter to read.
fn counter() -> (Arc<AtomicUsize>, impl FnMut() + Send + 'static) {
    let runs = Arc::new(AtomicUsize::new(0));
    let r = runs.clone();
    (runs, move || {
        r.fetch_add(1, Ordering::Relaxed);
    })
}

fn runs(counter: &Arc<AtomicUsize>) -> usize {
    counter.swap(0, Ordering::Relaxed)
}

fn gate_open(gate: Res<Gate>) -> bool {
    gate.0
}

#[test]
fn multiple_conditions_are_all_evaluated_every_run() {
    let mut world = World::new();
    world.insert_resource(Gate(false));
    world.insert_resource(Score(0));
    let mut schedule = Schedule::new();
    let (count, system) = counter();
    schedule.add_system(&mut world, system.run_if(gate_open).run_if(resource_changed::<Score>)).unwrap();
    schedule.run(&mut world); // gate shut; the score's insert is seen and spent
    world.resource_mut::<Score>().unwrap().0 = 1;
    schedule.run(&mut world); // gate shut; this change is seen and spent too
    assert_eq!(runs(&count), 0);
    world.resource_mut::<Gate>().unwrap().0 = true;
    schedule.run(&mut world);
    assert_eq!(runs(&count), 0, "no stale change fires once the gate opens");
    world.resource_mut::<Score>().unwrap().0 = 2;
    schedule.run(&mut world);
    assert_eq!(runs(&count), 1);
}

#[test]
fn set_conditions_and_system_conditions_are_all_evaluated() {
    let mut world = World::new();
    world.insert_resource(Gate(false));
    world.insert_resource(Score(0));
    let mut schedule = Schedule::new();
    schedule.configure_set(&mut world, ripple::schedule::SetConfig::new("gated").run_if(gate_open)).unwrap();
    let (count, system) = counter();
    schedule.add_system(&mut world, system.in_set("gated").run_if(resource_changed::<Score>)).unwrap();
    schedule.run(&mut world);
    world.resource_mut::<Score>().unwrap().0 = 1;
    schedule.run(&mut world);
    world.resource_mut::<Gate>().unwrap().0 = true;
    schedule.run(&mut world);
    assert_eq!(runs(&count), 0, "the system's condition kept nothing while its set was shut");
}

#[test]
fn run_condition_combinators() {
    let cases: [(bool, bool, [bool; 6]); 4] = [
        (false, false, [false, false, true, true, false, true]),
        (false, true, [false, true, true, false, true, false]),
        (true, false, [false, true, true, false, true, false]),
        (true, true, [true, true, false, false, false, true]),
    ];
    for (a, b, expected) in cases {
        let mut world = World::new();
        let mut schedule = Schedule::new();
        let first = move || a;
        let second = move || b;
        let conditions = [
            first.and(second),
            first.or(second),
            first.nand(second),
            first.nor(second),
            first.xor(second),
            first.xnor(second),
        ];
        let mut counters = Vec::new();
        for condition in conditions {
            let (count, system) = counter();
            schedule.add_system(&mut world, system.run_if(condition)).unwrap();
            counters.push(count);
        }
        schedule.run(&mut world);
        let got: Vec<bool> = counters.iter().map(|c| runs(c) == 1).collect();
        assert_eq!(got, expected, "a = {a}, b = {b}: and, or, nand, nor, xor, xnor");
    }
}

#[test]
fn combinators_short_circuit() {
    let evaluated = Arc::new(AtomicUsize::new(0));
    let e = evaluated.clone();
    let second = move || {
        e.fetch_add(1, Ordering::Relaxed);
        true
    };
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let (_, system) = counter();
    schedule.add_system(&mut world, system.run_if((|| false).and(second.clone()))).unwrap();
    let (_, system) = counter();
    schedule.add_system(&mut world, system.run_if((|| true).or(second.clone()))).unwrap();
    let (_, system) = counter();
    schedule.add_system(&mut world, system.run_if((|| true).xor(second))).unwrap();
    schedule.run(&mut world);
    assert_eq!(evaluated.load(Ordering::Relaxed), 1, "only xor evaluated its second condition");
}

#[test]
fn bevy_0_20_names_short_circuit_and_eager_ones_evaluate_both() {
    let evaluated = Arc::new(AtomicUsize::new(0));
    let e = evaluated.clone();
    let second = move || {
        e.fetch_add(1, Ordering::Relaxed);
        true
    };
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let mut counts = Vec::new();
    let conditions = [
        (|| false).and_then(second.clone()),
        (|| true).or_else(second.clone()),
        (|| false).nand_then(second.clone()),
        (|| true).nor_else(second.clone()),
        (|| false).and_eager(second.clone()),
        (|| true).or_eager(second.clone()),
        (|| false).nand_eager(second.clone()),
        (|| true).nor_eager(second),
    ];
    for condition in conditions {
        let (count, system) = counter();
        schedule.add_system(&mut world, system.run_if(condition)).unwrap();
        counts.push(count);
    }
    schedule.run(&mut world);
    assert_eq!(evaluated.load(Ordering::Relaxed), 4, "only the four eager ones evaluated their second");
    let ran: Vec<bool> = counts.iter().map(|c| runs(c) == 1).collect();
    assert_eq!(ran, [false, true, true, false, false, true, true, false]);
}

#[test]
fn run_once_runs_once() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let (count, system) = counter();
    schedule.add_system(&mut world, system.run_if(run_once)).unwrap();
    for _ in 0..3 {
        schedule.run(&mut world);
    }
    assert_eq!(runs(&count), 1);
}

#[test]
fn resource_value_conditions() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let (equals, system) = counter();
    schedule.add_system(&mut world, system.run_if(resource_exists_and_equals(Score(3)))).unwrap();
    let (removed, system) = counter();
    schedule.add_system(&mut world, system.run_if(resource_removed::<Score>)).unwrap();
    let (changed_or_removed, system) = counter();
    schedule.add_system(&mut world, system.run_if(resource_changed_or_removed::<Score>)).unwrap();
    schedule.run(&mut world);
    assert_eq!((runs(&equals), runs(&removed), runs(&changed_or_removed)), (0, 0, 0));
    world.insert_resource(Score(3));
    schedule.run(&mut world);
    assert_eq!((runs(&equals), runs(&removed), runs(&changed_or_removed)), (1, 0, 1));
    schedule.run(&mut world);
    assert_eq!((runs(&equals), runs(&removed), runs(&changed_or_removed)), (1, 0, 0));
    world.remove_resource::<Score>().unwrap();
    schedule.run(&mut world);
    assert_eq!((runs(&equals), runs(&removed), runs(&changed_or_removed)), (0, 1, 1));
    schedule.run(&mut world);
    assert_eq!((runs(&equals), runs(&removed), runs(&changed_or_removed)), (0, 0, 0));

    let mut world = World::new();
    world.insert_resource(Score(1));
    let mut schedule = Schedule::new();
    let (count, system) = counter();
    schedule.add_system(&mut world, system.run_if(resource_equals(Score(2)))).unwrap();
    schedule.run(&mut world);
    world.resource_mut::<Score>().unwrap().0 = 2;
    schedule.run(&mut world);
    assert_eq!(runs(&count), 1);
}

#[test]
fn any_component_removed_sees_removals_and_despawns() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let (count, system) = counter();
    schedule.add_system(&mut world, system.run_if(any_component_removed::<Hp>)).unwrap();
    let a = world.spawn((Hp,));
    let b = world.spawn((Hp,));
    schedule.run(&mut world);
    assert_eq!(runs(&count), 0);
    world.remove::<(Hp,)>(a).unwrap();
    schedule.run(&mut world);
    assert_eq!(runs(&count), 1);
    schedule.run(&mut world);
    assert_eq!(runs(&count), 0, "each removal once");
    world.despawn(b).unwrap();
    schedule.run(&mut world);
    assert_eq!(runs(&count), 1);
}

#[test]
fn condition_changed_and_changed_to() {
    let mut world = World::new();
    world.insert_resource(Gate(false));
    let mut schedule = Schedule::new();
    let (any, system) = counter();
    schedule.add_system(&mut world, system.run_if(condition_changed(gate_open))).unwrap();
    let (to_true, system) = counter();
    schedule.add_system(&mut world, system.run_if(condition_changed_to(true, gate_open))).unwrap();
    let (negated, system) = counter();
    schedule.add_system(&mut world, system.run_if(not(resource_exists::<Gate>))).unwrap();
    schedule.run(&mut world);
    assert_eq!((runs(&any), runs(&to_true)), (0, 0), "nothing to compare with the first time");
    world.resource_mut::<Gate>().unwrap().0 = true;
    schedule.run(&mut world);
    assert_eq!((runs(&any), runs(&to_true)), (1, 1));
    schedule.run(&mut world);
    assert_eq!((runs(&any), runs(&to_true)), (0, 0));
    world.resource_mut::<Gate>().unwrap().0 = false;
    schedule.run(&mut world);
    assert_eq!((runs(&any), runs(&to_true)), (1, 0));
    assert_eq!(runs(&negated), 0);
}

#[test]
fn param_set_res_is_changed_is_relative_to_the_last_run() {
    #[derive(Default)]
    struct Seen(Vec<(bool, bool)>);
    let mut world = World::new();
    world.insert_resource(Score(0));
    world.insert_resource(Seen::default());
    let mut schedule = Schedule::new();
    schedule
        .add_system(
            &mut world,
            |mut set: ParamSet<(Res<'static, Score>, Res<'static, Gate>)>, mut seen: ResMut<Seen>| {
                let first = set.p0().is_changed();
                let second = set.p0().is_changed();
                seen.0.push((first, second));
            },
        )
        .unwrap();
    world.insert_resource(Gate(false));
    schedule.run(&mut world);
    schedule.run(&mut world);
    world.resource_mut::<Score>().unwrap().0 = 5;
    schedule.run(&mut world);
    assert_eq!(world.resource::<Seen>().unwrap().0, [(true, true), (false, false), (true, true)]);
}

#[test]
fn invalid_system_params_skip_the_system_with_a_report() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    let ran = Arc::new(AtomicUsize::new(0));
    let r = ran.clone();
    schedule
        .add_system(&mut world, move |score: Res<Score>| {
            r.fetch_add(score.0 as usize, Ordering::Relaxed);
        })
        .unwrap();
    let (others, system) = counter();
    schedule.add_system(&mut world, system).unwrap();
    schedule.run(&mut world);
    assert_eq!(runs(&others), 1, "the other systems still ran");
    assert!(schedule.report().contains("skipped: the world has no resource"), "{}", schedule.report());
    let skipped = schedule.take_skipped_runs();
    assert_eq!(skipped.len(), 1);
    assert!(skipped[0].reason.contains("Score"), "{skipped:?}");
    assert_eq!(schedule.skipped_run_count(), 1);
    world.insert_resource(Score(2));
    schedule.run(&mut world);
    assert_eq!(ran.load(Ordering::Relaxed), 2);
    assert!(schedule.take_skipped_runs().is_empty());
}

#[test]
fn run_system_with_invalid_params_is_a_typed_error() {
    let mut world = World::new();
    let id = world.register_system(|mut score: ResMut<Score>| score.0 += 1).unwrap();
    match world.run_system(id) {
        Err(ripple::system::OneShotError::InvalidParams { reason, .. }) => assert!(reason.contains("Score")),
        other => panic!("expected InvalidParams, got {other:?}"),
    }
    world.insert_resource(Score(0));
    world.run_system(id).unwrap();
    assert_eq!(world.resource::<Score>().unwrap().0, 1, "registered and usable once the resource exists");
}

#[test]
fn panicking_on_invalid_params_is_opt_in() {
    let mut world = World::new();
    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, |_: Res<Score>| {}).unwrap();
    schedule.set_panic_on_invalid_params(true);
    let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| schedule.run(&mut world))).unwrap_err();
    let message = panic.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(message.contains("Score"), "{message}");
}
