//! bevy's `system_closure`: closures as systems. A plain closure, one that keeps a
//! value between runs (made by a closure taking the value), one written inline, and
//! one that captured a variable from outside.
//!
//! bevy: its `App` has no runner plugin, so it runs its schedule once, and logs with
//! `info!`; here one run, and `say!` prints the message alone.

use ripple::prelude::*;

/// Runs the schedule once, as bevy's `App` without a runner does.
pub fn main() {
    // A simple closure.
    let simple_closure = || {
        say!("Hello from a simple closure!");
    };

    // A closure taking a value, which the system it returns keeps (bevy: "to
    // initialize a Local variable").
    let complex_closure = |mut value: String| {
        move || {
            say!("Hello from a complex closure! {}", value);
            // The value changes, and stays changed between runs.
            value = format!("{value} - updated");
        }
    };

    let outside_variable = "bar".to_string();

    let mut world = World::new();
    let mut update = Schedule::new();
    // bevy: four `add_systems(Update, ..)` calls, the systems named after their
    // types. ripple wants a name per system in a schedule, and a closure's type
    // name is `{{closure}}`: each is named here.
    update.add_systems(&mut world, simple_closure.named("simple_closure")).unwrap();
    update.add_systems(&mut world, complex_closure("foo".into()).named("complex_closure")).unwrap();
    // A closure can be written inline...
    update
        .add_systems(
            &mut world,
            (|| {
                say!("Hello from an inlined closure!");
            })
            .named("inlined_closure"),
        )
        .unwrap();
    // ... or capture variables from outside.
    update
        .add_systems(
            &mut world,
            (move || {
                say!("Hello from an inlined closure that captured the 'outside_variable'! {}", outside_variable);
            })
            .named("capturing_closure"),
        )
        .unwrap();
    // bevy: the four run in parallel, in an order that varies; one thread runs them
    // here, so that `say!` captures each line.
    update.set_single_threaded(true);
    update.run(&mut world);
}
