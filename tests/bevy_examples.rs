//! bevy_ecs's own ECS examples, ported to ripple (`examples/bevy`), print what bevy's
//! print for the same frames. Each test runs one example, captures its lines, and
//! compares them with bevy's output: worked out from bevy's source and, for the
//! examples marked so, checked against bevy_ecs 0.20.1 running the same code with the
//! same random numbers. Where ripple prints differently on purpose (an `Entity` is
//! `0v1` where bevy's first is `0v0`, and bevy's `App` spawns entities of its own
//! first), the comment says so and the test holds ripple's exact output. Where
//! bevy's output depends on the order its parallel executor happens to pick, the
//! comment says which order the port prints (one bevy can print too) or the test
//! compares what does not depend on it.

#[path = "../examples/bevy/main.rs"]
#[allow(dead_code, reason = "the example's `main` and table are for the binary; the tests call the modules")]
mod bevy;

use bevy::capture::captured;

/// What `example` prints, one line per `say!`, joined as printed.
fn output(example: fn()) -> String {
    let mut text = captured(example).join("\n");
    text.push('\n');
    text
}

#[test]
fn ecs_guide() {
    // Checked against bevy_ecs. bevy may run `exclusive_player_system` before or after
    // the `(new_round_system, new_player_system)` chain, and `print_message_system`
    // anywhere in the frame (no order binds them); this is the order ripple's plan
    // gives, one bevy's executor can pick. bevy spawns a player through commands at
    // the sync point after `BeforeRound`, so "Player 3" (commands) is scored after
    // "Player 4" (spawned at once by the exclusive system), as here.
    assert_eq!(
        output(bevy::ecs_guide::main),
        "\
Begin round 1 of 10
Player 3 joined the game!
Player 4 has joined the game!
This game is fun!
Alice scored a point! Their score is: 1 (1 round hot streak)
Bob scored a point! Their score is: 1 (1 round hot streak)
Player 4 did not score a point! Their score is: 0 (1 round cold streak)
Player 3 did not score a point! Their score is: 0 (1 round cold streak)
In set 'Last' for the 1th time

Begin round 2 of 10
This game is fun!
Alice did not score a point! Their score is: 1 (1 round cold streak)
Bob scored a point! Their score is: 2 (2 round hot streak)
Player 4 did not score a point! Their score is: 0 (2 round cold streak)
Player 3 did not score a point! Their score is: 0 (2 round cold streak)
In set 'Last' for the 2th time

Begin round 3 of 10
This game is fun!
Alice scored a point! Their score is: 2 (1 round hot streak)
Bob did not score a point! Their score is: 2 (1 round cold streak)
Player 4 did not score a point! Their score is: 0 (3 round cold streak)
Player 3 did not score a point! Their score is: 0 (3 round cold streak)
In set 'Last' for the 3th time

Begin round 4 of 10
This game is fun!
Alice did not score a point! Their score is: 2 (1 round cold streak)
Bob scored a point! Their score is: 3 (1 round hot streak)
Player 4 did not score a point! Their score is: 0 (4 round cold streak)
Player 3 did not score a point! Their score is: 0 (4 round cold streak)
In set 'Last' for the 4th time

Begin round 5 of 10
This game is fun!
Alice scored a point! Their score is: 3 (1 round hot streak)
Bob scored a point! Their score is: 4 (2 round hot streak)
Player 4 did not score a point! Their score is: 0 (5 round cold streak)
Player 3 did not score a point! Their score is: 0 (5 round cold streak)
Bob won the game!
In set 'Last' for the 5th time

"
    );
}

/// The lines `change_detection` prints for a change it detected.
fn detected(value: &str, added: bool) -> String {
    format!("Change detected!\n\t-> value: {value}\n\t-> added: {added}\n\t-> changed: true\n\t-> changed by: ")
}

#[test]
fn change_detection() {
    // Checked against bevy_ecs, with its systems in the order ripple's plan runs them
    // (`change_component`, `change_resource`, `change_component_2`,
    // `change_detection`: the first two share a stage). bevy's entity is `3v0` there
    // and higher under `DefaultPlugins`; ripple's first is `0v1`. Equal values written
    // with `set_if_neq` (the resource's 0.0 in frame 1, 3.0 twice in frame 12) are
    // not reported as changes.
    let expected = [
        "New value: MyResource(0.0)".to_string(),
        detected("Ref(MyComponent(0.0))", true),
        detected("Res(MyResource(0.0))", true),
        "New value: MyComponent(2.0) 0v1".to_string(),
        detected("Ref(MyComponent(2.0))", false),
        "New value: MyResource(3.0)".to_string(),
        detected("Res(MyResource(3.0))", false),
        "New value: MyComponent(3.0) 0v1".to_string(),
        detected("Ref(MyComponent(3.0))", false),
        "New value: MyResource(4.0)".to_string(),
        "New value: MyComponent(4.0) 0v1".to_string(),
        detected("Ref(MyComponent(4.0))", false),
        detected("Res(MyResource(4.0))", false),
        "New value: MyResource(5.0)".to_string(),
        detected("Res(MyResource(5.0))", false),
    ];
    assert_eq!(captured(bevy::change_detection::main), expected);
}

#[test]
fn component_hooks() {
    // Checked against bevy_ecs. There the component's id is 14 and the entities
    // `5v0`..`8v0` (its resources are entities too, and it does not reuse a freed
    // index at once); ripple's component id is 3 (after the hierarchy's two and
    // `Disabled`, which every world registers first)
    // and it reuses freed slots, with a new generation.
    assert_eq!(
        output(bevy::component_hooks::main),
        "\
ComponentId(3) added to 0v1 with value KeyA
Current Index: MyComponentIndex({KeyA: 0v1})
ComponentId(3) added to 1v1 with value KeyB
Current Index: MyComponentIndex({KeyA: 0v1, KeyB: 1v1})
ComponentId(3) removed from 0v1 with value KeyA
ComponentId(3) removed from 1v1 with value KeyB
ComponentId(3) added to 1v2 with value KeyA
Current Index: MyComponentIndex({KeyA: 1v2})
ComponentId(3) added to 0v2 with value KeyR
Current Index: MyComponentIndex({KeyA: 1v2, KeyR: 0v2})
ComponentId(3) removed from 1v2 with value KeyA
ComponentId(3) removed from 0v2 with value KeyR
"
    );
}

/// "Boom!" lines for the mines of these slots (the mines are the first 1001
/// entities, so a mine's slot is its place in the field).
fn booms(slots: &[u32]) -> Vec<String> {
    slots.iter().map(|slot| format!("Boom! {slot}v1 exploded.")).collect()
}

#[test]
fn observers() {
    let lines = captured(bevy::observers::main);
    // The click at the origin: the same 14 mines explode in bevy_ecs, once each.
    let first = [424, 399, 836, 717, 99, 994, 545, 581, 578, 700, 445, 789, 76, 866];
    let mut expected = booms(&first);
    expected.push("Explosions DISABLED".to_string());
    // The click while explosions are off does nothing.
    expected.push("Explosions ENABLED".to_string());
    // The click at (-500, 170): in bevy_ecs the same 30 mines explode, once each, in
    // another order. ripple applies the commands of observers breadth-first (the
    // commands of one round of observers, then those the next round queued), where
    // bevy applies each command's consequences first: a mine that two explosions of
    // one round reach runs its `Explode` observer twice before the despawn queued by
    // the first run applies, and its "Boom!" prints twice (and its explosion is
    // triggered twice). bevy's despawn applies before the second `Explode`, which
    // finds no entity.
    let second = [
        6, 199, 997, 92, 118, 669, 693, 932, 118, 669, 693, 790, 932, 118, 669, 693, 932, 972, 830, 830, 516, 644, 647,
        830, 830, 65, 379, 591, 591, 949, 746, 774, 787, 591, 591, 531, 641, 191, 598, 598, 586, 331, 127, 598, 598,
        360, 313, 313, 313, 313,
    ];
    expected.extend(booms(&second));
    assert_eq!(lines, expected);

    let mut exploded: Vec<u32> = second.to_vec();
    exploded.sort_unstable();
    exploded.dedup();
    let bevy = [
        6, 65, 92, 118, 127, 191, 199, 313, 331, 360, 379, 516, 531, 586, 591, 598, 641, 644, 647, 669, 693, 746, 774,
        787, 790, 830, 932, 949, 972, 997,
    ];
    assert_eq!(exploded, bevy);
}

#[test]
fn observer_propagation() {
    // Checked against bevy_ecs: the same lines. The global observer runs before the
    // target's own at each entity, as in bevy.
    let attack = |damage: u16, armor: &str, through: u16, hp: u16| {
        format!(
            "⚔️  Attack for {damage} damage\nAttack hit {armor}\n🩸 {through} damage passed through {armor}\n\
             Attack hit Goblin\nGoblin has {hp} HP\n(propagation reached root)\n\n"
        )
    };
    let blocked = |damage: u16, armor: &str| {
        format!(
            "⚔️  Attack for {damage} damage\nAttack hit {armor}\n🛡️  {damage} damage blocked by {armor}\n(propagation halted early)\n\n"
        )
    };
    let expected = [
        attack(16, "Helmet", 11, 39),
        attack(8, "Helmet", 3, 36),
        blocked(3, "Shirt"),
        attack(16, "Helmet", 11, 25),
        attack(19, "Shirt", 4, 21),
        attack(12, "Socks", 2, 19),
        attack(14, "Socks", 4, 15),
        attack(15, "Helmet", 10, 5),
        attack(13, "Socks", 3, 2),
        blocked(3, "Shirt"),
        blocked(6, "Socks"),
        blocked(2, "Helmet"),
        "⚔️  Attack for 18 damage\nAttack hit Helmet\n🩸 13 damage passed through Helmet\nAttack hit Goblin\n\
         💀 Goblin has died a gruesome death\n(propagation reached root)\n\n"
            .to_string(),
    ];
    assert_eq!(output(bevy::observer_propagation::main), expected.concat());
}

#[test]
fn relationships() {
    // Checked against bevy_ecs: the same lines but the last `Err(..)`, which bevy
    // prints as `Err(TargetingCycle { initial_entity: 4v0, visited: {3v0, 2v0, 1v0} })`
    // (its `Entity` orders otherwise, and its resources take index 0).
    assert_eq!(
        output(bevy::relationships::main),
        "\
James is targeting Charlie, and is targeted by nobody
Devon is targeting Charlie, and is targeted by nobody
Bob is targeting Alice, and is targeted by Charlie
Charlie is targeting Bob, and is targeted by James, Devon, Alice
Alice is targeting Charlie, and is targeted by Bob

Making Devon target Alice.

James is targeting Charlie, and is targeted by nobody
Devon is targeting Alice, and is targeted by nobody
Bob is targeting Alice, and is targeted by Charlie
Charlie is targeting Bob, and is targeted by James, Alice
Alice is targeting Charlie, and is targeted by Bob, Devon

Checking for cycles starting at James
James is targeting Charlie
Charlie is targeting Bob
Bob is targeting Alice
Alice is targeting Charlie
Err(TargetingCycle { initial_entity: 3v1, visited: {0v1, 1v1, 2v1} }) \n
Removing Charlie's targeting relationship.

James is targeting Charlie, and is targeted by nobody
Devon is targeting Alice, and is targeted by nobody
Bob is targeting Alice, and is targeted by nobody
Alice is targeting Charlie, and is targeted by Bob, Devon

Checking for cycles starting at James
James is targeting Charlie
Checking for cycles starting at Devon
Devon is targeting Alice
Alice is targeting Charlie
Checking for cycles starting at Bob
Bob is targeting Alice
Alice is targeting Charlie
Checking for cycles starting at Alice
Alice is targeting Charlie
Ok(()) \n
"
    );
}

#[test]
fn hierarchy() {
    use bevy::hierarchy::{FRAMES, Sprite, Transform, run};
    use ripple::prelude::*;
    use std::f32::consts::PI;

    // bevy prints nothing; what it does shows in the world.
    assert!(captured(bevy::hierarchy::main).is_empty());
    let sprites = |world: &mut World| {
        let mut sprites: Vec<&str> = world.query::<&Sprite>().iter(world).map(|sprite| sprite.0).collect();
        sprites.sort_unstable();
        sprites
    };
    // One frame (0.25 s): the root turns back a quarter turn a second, its children
    // forward half a turn a second.
    let mut world = run(1);
    let mut turns: Vec<(&str, f32)> =
        world.query::<(&Sprite, &Transform)>().iter(&world).map(|(sprite, t)| (sprite.0, t.rotation_z)).collect();
    turns.sort_by(|a, b| a.0.cmp(b.0));
    assert_eq!(turns, [("blue", PI / 4.0), ("lime", PI / 4.0), ("white", -PI / 8.0)]);
    // At 2 s (frame 8) the last child, added with `add_child` (bevy), goes.
    assert_eq!(sprites(&mut run(7)), ["blue", "lime", "white"]);
    let mut world = run(8);
    assert_eq!(sprites(&mut world), ["blue", "white"]);
    // At 4 s (frame 16) the root goes, and its child with it.
    assert_eq!(sprites(&mut run(15)), ["blue", "white"]);
    assert!(sprites(&mut run(16)).is_empty());
    assert!(run(FRAMES).is_empty());
}

#[test]
fn one_shot_systems() {
    // `system_b` runs once at startup (bevy: `run_system_once`); then A in frame 2,
    // B in frame 4, and A then B in frame 6, when both keys go down (the entity
    // tagged first comes first in bevy's query, its archetype being older, and here).
    assert_eq!(
        output(bevy::one_shot_systems::main),
        "\
B: One shot system registered with World was triggered
A: One shot system registered with Commands was triggered
B: One shot system registered with World was triggered
A: One shot system registered with Commands was triggered
B: One shot system registered with World was triggered
"
    );
    let mut world = bevy::one_shot_systems::run();
    assert_eq!(
        bevy::one_shot_systems::ui_text(&mut world),
        "Press A or B to trigger a one-shot system\nLast Triggered: B"
    );
}

#[test]
fn run_conditions() {
    // Checked against bevy_ecs (with `print_input_counter` after
    // `increment_input_counter`, an order bevy's executor may pick or not: in the
    // other, each count prints a frame later). Space (frame 3), Enter (5), the left
    // button (11) and the right one (12) count; held keys and A do not. The timed
    // message shows at 2 s and 2.25 s (frames 8 and 9).
    assert_eq!(
        output(bevy::run_conditions::main),
        "
For the first 2 seconds you will not be able to increment the counter
Once that time has passed you can press space, enter, left mouse, right mouse or touch the screen to increment the counter

Input counter: 1
Input counter: 2
It has been more than 2 seconds since the program started and less than 2.5 seconds
It has been more than 2 seconds since the program started and less than 2.5 seconds
Input counter: 3
Input counter: 4
"
    );
}

#[test]
fn system_piping() {
    // bevy runs the six pipes in parallel, in an order that varies: the lines are
    // compared in order.
    let mut lines = captured(bevy::system_piping::main);
    lines.sort();
    assert_eq!(lines, ["42", "Got to rusty?", "Ok(42)", "parsed message: 42"]);
}

#[test]
fn removal_detection() {
    use bevy::removal_detection::{FRAMES, MyComponent, Sprite, run};

    // bevy prints nothing: the sprite is tinted once `MyComponent` is removed, in the
    // first frame past 2 s (frame 9).
    assert!(captured(bevy::removal_detection::main).is_empty());
    let state = |frames| {
        let mut world = run(frames);
        let has_component = world.query::<&MyComponent>().iter(&world).count() == 1;
        let color = world.query::<&Sprite>().iter(&world).next().unwrap().color;
        (has_component, color)
    };
    assert_eq!(state(8), (true, [1.0, 1.0, 1.0]));
    assert_eq!(state(9), (false, [0.5, 1.0, 1.0]));
    assert_eq!(state(FRAMES), (false, [0.5, 1.0, 1.0]));
}

#[test]
fn fallible_params() {
    use bevy::fallible_params::{SCRIPT, Transform, run};
    use ripple::prelude::*;

    // bevy prints its help, then nothing.
    assert_eq!(
        output(bevy::fallible_params::main),
        "
Press 'A' to add enemy ships and 'R' to remove them.
Player ship will wait for enemy ships and track one if it exists,
but will stop tracking if there are more than one.

"
    );
    let player = |frames| {
        let (mut world, _) = run(frames);
        *world.query_filtered::<&Transform, With<bevy::fallible_params::Player>>().iter(&world).next().unwrap()
    };
    // Enemies after each frame: A adds one in frames 2 and 5, R removes one in 7 and 10.
    let enemies = [0, 1, 1, 1, 2, 2, 1, 1, 1, 0, 0, 0];
    let mut before = Transform::default();
    for (frame, count) in enemies.iter().enumerate() {
        let after = player(frame + 1);
        if *count == 1 {
            // One enemy (`Option<Single>` is `Some`): the player follows it.
            assert_ne!(after.translation, before.translation, "frame {}", frame + 1);
        } else {
            // None or several: it turns on the spot, 2 rad/s.
            assert_eq!(after.translation, before.translation, "frame {}", frame + 1);
            assert!((after.rotation - before.rotation - 0.5).abs() < 1e-6, "frame {}", frame + 1);
        }
        before = after;
    }
    // `Populated` skipped `move_targets` while there was no enemy (frames 1, 10, 11
    // and 12); the `Single` that never matches skipped its system every frame.
    let (_, mut schedule) = run(SCRIPT.len());
    let skipped: Vec<String> = schedule.take_skipped_runs().into_iter().map(|run| run.system).collect();
    let count = |name: &str| skipped.iter().filter(|system| *system == name).count();
    assert_eq!(count("move_targets"), 4);
    assert_eq!(count("do_nothing_fail_validation"), 12);
    assert_eq!(skipped.len(), 16);
}

#[test]
fn error_handling() {
    use bevy::error_handling::{find, run, x};

    // bevy's lines, with its `warn` handler and without its `debug` feature (which
    // names commands): "Encountered an error in command `<Enable the debug feature to
    // see the name>`: Entity not yet spawned: The entity with ID 12345678v0 is not
    // spawned; ..." (several lines), then "Resource not initialized when accessed in a
    // command, Command `..` failed" from the command's own handler, then "captured
    // error: Resource not initialized". ripple records a failed command where bevy
    // calls a handler, and the port reports it once the startup schedule has run,
    // after the handled command's line; it words the failure its own way.
    assert_eq!(
        output(bevy::error_handling::main),
        "\
Resource not initialized when accessed in a command, Command `failing_commands::{closure}` failed
Encountered an error in command `insert`: entity 12345678v1 does not exist (despawned, or never spawned in this world)
captured error: Resource not initialized
"
    );
    // The fallible observer keeps one step for all (a `Local`): the sphere (at
    // x = -1) moves +0.1 twice, the light (at 4, past 3) turns the step to -0.1, and
    // the sphere moves back once. The setup gave the sphere its 10,000 points.
    let mut world = run();
    let sphere = find(&mut world, "sphere");
    assert!((x(&world, sphere) - -0.9).abs() < 1e-6);
    assert_eq!(world.children(sphere).unwrap().len(), 10_000);
    let light = find(&mut world, "light");
    assert!((x(&world, light) - 3.9).abs() < 1e-6);
}

#[test]
fn generic_system() {
    // Both texts each second (frame 4); Space in frame 6 leaves the main menu in
    // frame 7, whose `OnExit` cleanup despawns the `MenuClose` entity: only the other
    // prints in frames 8 and 12. Two entities of different archetypes print in the
    // order bevy's query visits them too (the older archetype first).
    assert_eq!(
        output(bevy::generic_system::main),
        "\
I will print until you press space.
I will always print
I will always print
I will always print
"
    );
}

/// The sprites of a `parallel_query` world, in depth order.
fn sprites(mut world: ripple::World) -> Vec<(bevy::parallel_query::Transform, bevy::parallel_query::Velocity)> {
    use bevy::parallel_query::{Transform, Velocity};
    let mut rows: Vec<(Transform, Velocity)> =
        world.query::<(&Transform, &Velocity)>().iter(&world).map(|(t, v)| (*t, *v)).collect();
    rows.sort_by(|a, b| a.0.translation[2].total_cmp(&b.0.translation[2]));
    rows
}

#[test]
fn parallel_query() {
    use bevy::parallel_query::{FRAMES, run};

    // bevy prints nothing. The parallel runs must leave what a plain loop does: move,
    // then turn back what left the 1280x720 window (bevy runs the two systems in an
    // order that varies; ripple in the order added, which this loop follows).
    assert!(captured(bevy::parallel_query::main).is_empty());
    let start = sprites(run(0));
    let mut expected = start.clone();
    for _ in 0..FRAMES {
        for (transform, velocity) in &mut expected {
            transform.translation[0] += velocity.0.x;
            transform.translation[1] += velocity.0.y;
        }
        for (transform, velocity) in &mut expected {
            let [x, y, _] = transform.translation;
            if !(-640.0 < x && x < 640.0 && -360.0 < y && y < 360.0) {
                velocity.0 = -velocity.0;
            }
        }
    }
    let end = sprites(run(FRAMES));
    assert_eq!(end.len(), 128);
    assert_eq!(end, expected);
    // Some did bounce.
    assert!(end.iter().zip(&start).any(|((_, v), (_, v0))| v.0 == -v0.0));
}

#[test]
fn message() {
    // Checked against bevy_ecs, with the two listeners ordered before the chain (one
    // of the orders bevy's executor may pick; ripple's plan picks it): each second
    // the 10 damage and its extra 1 lose a point to armor, and the listeners hear the
    // damage received in the next frame. bevy's listeners, unordered between
    // themselves, print in either order.
    let second = "Applying 9 damage\nApplying 0 damage\nPlaying a sound.\nPlaying particle effect.\n";
    assert_eq!(output(bevy::message::main), second.repeat(3));
}

#[test]
fn system_closure() {
    // bevy runs the four in parallel, in an order that varies: compared sorted.
    let mut lines = captured(bevy::system_closure::main);
    lines.sort();
    assert_eq!(
        lines,
        [
            "Hello from a complex closure! foo",
            "Hello from a simple closure!",
            "Hello from an inlined closure that captured the 'outside_variable'! bar",
            "Hello from an inlined closure!",
        ]
    );
}

#[test]
fn system_param() {
    assert_eq!(output(bevy::system_param::main), "3 players in the game\n");
}

#[test]
fn custom_query_param() {
    // Checked against bevy_ecs: the same lines but three. bevy's entity is `2v0`;
    // its `Mut` prints as `Mut(ComponentA)` where ripple's prints as the value (as a
    // `&mut` does); and its contiguous `A` is a `ContiguousRef([ComponentA])`, where
    // the port, which gathers the rows itself (ripple has no contiguous iteration),
    // prints the plain slice.
    assert_eq!(
        output(bevy::custom_query_param::main),
        "\
Print components (read_only):
Entity: 0v1
A: ComponentA
B: Some(ComponentB)
Nested: NestedQueryItem { c: ComponentC, d: Some(ComponentD) }
Optional nested: Some(NestedQueryItem { c: ComponentC, d: Some(ComponentD) })
Optional tuple: None
Generic: GenericQueryItem { generic: (ComponentC, ComponentD) }

Print components (iter_mut):
Entity: 0v1
A: ComponentA
B: Some(ComponentB)
Optional nested: Some(NestedQueryItem { c: ComponentC, d: Some(ComponentD) })
Optional tuple: None
Nested: NestedQueryItem { c: ComponentC, d: Some(ComponentD) }
Generic: GenericQueryItem { generic: (ComponentC, ComponentD) }

Print components (iter):
Entity: 0v1
A: ComponentA
B: Some(ComponentB)
Nested: NestedQueryItem { c: ComponentC, d: Some(ComponentD) }
Generic: GenericQueryItem { generic: (ComponentC, ComponentD) }

Print components (tuple):
Entity: 0v1
A: ComponentA
B: ComponentB
Nested: ComponentC ComponentD
Generic: ComponentC ComponentD

Print components (contiguous_iter):
Entity: [0v1]
A: [ComponentA]
B: Some([ComponentB])
Generic: [ComponentC] [ComponentD]
"
    );
}

#[test]
fn nondeterministic_system_order() {
    // bevy_ecs (with its `debug` feature, which names systems) finds the same three
    // pairs, listed in another order and each pair the other way round:
    // "reads_a_and_b and writes_a", "reads_a_and_b and doubles_b", "writes_a and
    // reads_a"; its type names are full paths, as ripple's are (the test strips the
    // crate's). The values follow ripple's order for the ambiguous pairs (write, then
    // read): A counts frames, B doubles after adding one, and only B < 10 prints.
    let text = output(bevy::nondeterministic_system_order::main);
    let module = "bevy::nondeterministic_system_order::";
    let text = text.replace(&format!("bevy_examples::{module}"), "").replace(module, "");
    assert_eq!(
        text,
        "\
Schedule Update has ambiguities.
3 pairs of systems with conflicting data access have indeterminate execution order. Consider adding `before`, `after`, or `ambiguous_with` relationships between these:
 -- reads_a and writes_a
    conflict on: [\"A\"]
 -- writes_a and reads_a_and_b
    conflict on: [\"A\"]
 -- doubles_b and reads_a_and_b
    conflict on: [\"B\"]
1, 2
2, 6
"
    );
}

#[test]
fn startup_system() {
    assert_eq!(output(bevy::startup_system::main), "startup system ran first\nnormal system ran second\n");
}

#[test]
fn callbacks() {
    // Checked against bevy_ecs, where the exclusive systems count 14 entities: its
    // registered systems are entities too (and so are its resources). ripple keeps
    // one-shot systems apart from entities: the 6 callbacks are all there is.
    assert_eq!(
        output(bevy::callbacks::main),
        "\
This is the trivial callback system
This is the ordinary callback system. There are currently 6 callbacks in the world.
This is the exclusive callback system. There are currently 6 entities in the world.
This is the boxed trivial callback system
This is the boxed ordinary callback system. There are currently 6 callbacks in the world.
This is the boxed exclusive callback system. There are currently 6 entities in the world.
"
    );
}

#[test]
fn custom_schedule() {
    assert_eq!(
        output(bevy::custom_schedule::main),
        "Pre Startup\nCustom Startup\nStartup\nFirst\nUpdate\nSingle Threaded Update\nLast\n"
    );
}

#[test]
fn custom_executor() {
    assert_eq!(output(bevy::custom_executor::main), "Counter: 1\nCounter: 2\nCounter: 3\nCounter: 4\nCounter: 5\n");
}

#[test]
fn contiguous_query() {
    // The first entity (health 5) decays by 0.9 and loses a point each frame, and
    // dies in frame 4; the entity that takes its row (the last, health 49,995) lives
    // on. bevy prints its first entity's id, which `DefaultPlugins` pushes past 0.
    assert_eq!(output(bevy::contiguous_query::main), "Finishing off 0v1\n");
}

#[test]
fn fixed_timestep() {
    // 0.2 s frames against a 0.5 s timestep: the fixed schedule runs in frames 3, 5
    // and 8 (before `Update`, as bevy's `RunFixedMainLoop` does), and the gaps
    // between frames carry `f32`'s rounding of the elapsed seconds, as bevy's do.
    let fixed = |accrued: &str| {
        format!(
            "time since last fixed_update: 0.5\n\nfixed timestep: 0.5\n\ntime accrued toward next fixed_update: {accrued}\n\n"
        )
    };
    let frame = |gap: &str| format!("time since last frame_update: {gap}\n");
    let expected = [
        frame("0.2"),
        frame("0.2"),
        fixed("0.1"),
        frame("0.20000002"),
        frame("0.19999999"),
        fixed("0"),
        frame("0.19999999"),
        frame("0.20000005"),
        frame("0.19999993"),
        fixed("0.1"),
        frame("0.20000005"),
    ];
    assert_eq!(output(bevy::fixed_timestep::main), expected.concat());
}

#[test]
fn delayed_commands() {
    use bevy::delayed_commands::{FRAMES, run, white_squares};

    // bevy prints nothing. The click at the origin in frame 1 (50 ms frames) makes
    // each square white for 0.1 s after a delay of a millisecond per pixel from the
    // click: a ring that widens and fades.
    assert!(captured(bevy::delayed_commands::main).is_empty());
    let white: Vec<usize> = (1..=FRAMES).map(|frames| white_squares(&mut run(frames))).collect();
    assert_eq!(white, [1, 1, 9, 24, 36, 52, 64, 36, 12, 4]);
    assert_eq!(white_squares(&mut run(FRAMES + 2)), 0);
}

#[test]
fn dynamic() {
    // Checked against bevy_ecs, fed the same lines on standard input: the same lines
    // but the ids. bevy's components start at id 9 and its events' keys are 12 and 14
    // (an observer's registrations come between), and its entities at `1v0`.
    let expected = "
Commands:
    comp, c    Create new components
    spawn, s   Spawn entities
    query, q   Query for entities
    event, e   Register dynamic events and observers
    emit, t    Trigger a dynamic event
Enter a command with no parameters for usage.

> Component A created with id: 3
Component B created with id: 4
Component C created with id: 5

> Entity spawned with id: 0v1

> Entity spawned with id: 1v1

> Entity spawned with id: 2v1

> 0v1: A: [1, 2]
1v1: A: [3, 0]

> 0v1: A: [2, 3]
1v1: A: [4, 1]

> 2v1: C: [5]

> 0v1: 
1v1: 
2v1: 

> Event 'OnDamage' registered (key: 6) with a dynamic observer
Event 'OnHeal' registered (key: 7) with a dynamic observer

>   Observer fired!
Event 'OnDamage' triggered (1 fires)

>   Observer fired!
Event 'OnDamage' triggered (2 fires)

>   Observer fired!
Event 'OnHeal' triggered (1 fires)

> Event 'OnDeath' does not exist. Register it first with 'event OnDeath'

> 
query, q  Query for entities
    Enter a query to fetch and update entities
    Components with read or write access will be displayed with their values
    Components with write access will have their fields incremented by one

    Accesses: 'A' with, '&A' read, '&mut A' write
    Operators: '||' or, ',' and, '?' optional

    e.g. &A || &B, &mut C, D, ?E

> 
";
    assert_eq!(output(bevy::dynamic::main), expected);
}

#[test]
fn the_example_runs_each_port_by_its_name() {
    // `cargo run --example bevy -- NAME` finds each port by bevy's file name.
    let mut names: Vec<&str> = bevy::EXAMPLES.iter().map(|(name, _)| *name).collect();
    assert_eq!(names.len(), 31);
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), 31, "each name once");
}

#[test]
fn iter_combinations() {
    // bevy's example draws the bodies and prints nothing; the port prints what it
    // shows: each step visits every pair of the 101 bodies once (C(101, 2) = 5,050),
    // the star is pulled off the origin, and the pairwise forces keep the momentum.
    assert_eq!(
        output(bevy::iter_combinations::main),
        "bodies: 101\npairs per step: 5050\nthe star moved: true\nmomentum conserved: true\n"
    );
}

#[test]
fn immutable_components() {
    // bevy's example prints nothing: its checks are asserts, which the port keeps (a
    // failed one panics here).
    assert_eq!(output(bevy::immutable_components::main), "\n");
}

#[test]
fn entity_disabling() {
    // bevy shows the list as on-screen text; the port prints it when it changes. Frame
    // 1 clicks the annulus, frame 2 the rhombus (each disabled at once by the observer's
    // command), frame 4 presses Space: the systems re-enable them at that frame's sync
    // point, so the list shows them again on frame 5.
    assert_eq!(
        output(bevy::entity_disabling::main),
        "\
Named entities found:
Name(\"Annulus\")
Name(\"Bestagon\")
Name(\"Rhombus\")
Named entities found:
Name(\"Bestagon\")
Name(\"Rhombus\")
Named entities found:
Name(\"Bestagon\")
Named entities found:
Name(\"Annulus\")
Name(\"Bestagon\")
Name(\"Rhombus\")
"
    );
}
