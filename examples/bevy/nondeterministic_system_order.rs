//! bevy's `nondeterministic_system_order`: finding system order ambiguities. Two
//! systems that touch the same data, one writing it, with no order between them are
//! an ambiguity: bevy may run them in either order. The example makes a few, resolves
//! one with `after`, silences one with `ambiguous_with`, and reports the rest.
//!
//! bevy: turns on ambiguity detection for `Update` (`LogLevel::Warn`), which logs the
//! report when the schedule is built, and runs at the display's frame rate. ripple
//! lists the ambiguities on demand (`Schedule::ambiguities`); the port prints them in
//! bevy's words before the first frame, and runs five frames. ripple runs an
//! ambiguous pair in the order the systems were added, every time.

use ripple::prelude::*;

/// The frames [`main`] runs.
const FRAMES: usize = 5;

#[derive(Debug, Default)]
struct A(usize);

#[derive(Debug, Default)]
struct B(usize);

// Access comes from the parameters' types alone.
fn reads_a(_a: Res<A>) {}

fn writes_a(mut a: ResMut<A>) {
    a.0 += 1;
}

fn adds_one_to_b(mut b: ResMut<B>) {
    b.0 = b.0.saturating_add(1);
}

fn doubles_b(mut b: ResMut<B>) {
    // This would overflow quickly otherwise.
    b.0 = b.0.saturating_mul(2);
}

fn reads_b(b: Res<B>) {
    // Always true: doubling always comes after adding. (bevy: `is_multiple_of(2)`,
    // newer than ripple's oldest supported Rust.)
    assert!((b.0 % 2 == 0) || (b.0 == usize::MAX));
}

fn reads_a_and_b(a: Res<A>, b: Res<B>) {
    // Only the first few steps, so as not to bury the ambiguities.
    if b.0 < 10 {
        say!("{}, {}", a.0, b.0);
    }
}

/// Prints the schedule's ambiguities as bevy's report words them.
fn report_ambiguities(schedule: &Schedule) {
    let ambiguities = schedule.ambiguities();
    if ambiguities.is_empty() {
        return;
    }
    say!("Schedule Update has ambiguities.");
    say!(
        "{} pairs of systems with conflicting data access have indeterminate execution order. Consider adding `before`, `after`, or `ambiguous_with` relationships between these:",
        ambiguities.len()
    );
    for ambiguity in ambiguities {
        say!(" -- {} and {}", ambiguity.first, ambiguity.second);
        say!("    conflict on: {:?}", ambiguity.conflicts);
    }
}

/// Reports the ambiguities, then runs [`FRAMES`] frames.
pub fn main() {
    let mut world = World::new();
    world.init_resource::<A>();
    world.init_resource::<B>();

    let mut update = Schedule::new();
    update
        .add_systems(
            &mut world,
            (
                // Conflicting access and no order: ambiguous.
                reads_a,
                writes_a,
                // Conflicting access, resolved by an order: always double after adding.
                adds_one_to_b,
                doubles_b.after("adds_one_to_b"),
                // Not ambiguous with `adds_one_to_b`: the order is transitive.
                reads_b.after("doubles_b"),
                // Conflicts with every writer, but silenced against `adds_one_to_b` (only
                // for clear false positives: say why in a comment).
                reads_a_and_b.ambiguous_with("adds_one_to_b"),
            ),
        )
        .unwrap();
    // bevy: its parallel executor picks an order for each ambiguous pair each frame;
    // one thread runs them here, in ripple's order, so that `say!` captures each line.
    update.set_single_threaded(true);

    report_ambiguities(&update);
    for _ in 0..FRAMES {
        update.run(&mut world);
    }
}
