//! bevy's `run_conditions`: run conditions decide whether a system runs. One system
//! counts input, if the counter exists and there was input; another prints the
//! counter when it changed (but was not just added); a third prints a message only
//! between two and two and a half seconds after the start, with conditions made by a
//! function and negated with `not`.
//!
//! bevy: reads the keyboard, the mouse and touches of a window, at the display's
//! frame rate; here a script presses keys and buttons over 14 frames of a fixed
//! 0.25 s (so the two-second window holds frames 8 and 9), with no touches.

use ripple::prelude::*;

use super::input::{ButtonInput, KeyCode, MouseButton};

/// The time each frame takes.
const DELTA_SECS: f32 = 0.25;

/// What each frame holds down: keys, and mouse buttons.
const SCRIPT: &[(&[KeyCode], &[MouseButton])] = &[
    (&[], &[]),
    (&[], &[]),
    (&[KeyCode::Space], &[]),
    (&[KeyCode::Space], &[]),
    (&[KeyCode::Enter], &[]),
    (&[], &[]),
    (&[], &[]),
    (&[], &[]),
    (&[], &[]),
    (&[], &[]),
    (&[], &[MouseButton::Left]),
    (&[], &[MouseButton::Left, MouseButton::Right]),
    (&[KeyCode::KeyA], &[]),
    (&[], &[]),
];

#[derive(Default)]
struct InputCounter(usize);

struct Unused;

/// bevy: `bevy::time::Time`; only the frame's delta is read here.
#[derive(Default)]
struct Time {
    delta_secs: f32,
}

/// Whether any of the inputs was just pressed: a custom run condition, which may
/// take any read-only system parameters (and `Local`s).
// bevy: also `touch_input: Res<Touches>` and `touch_input.any_just_pressed()`; the
// script has no touch screen.
fn has_user_input(
    keyboard_input: Res<ButtonInput<KeyCode>>,
    mouse_button_input: Res<ButtonInput<MouseButton>>,
) -> bool {
    keyboard_input.just_pressed(KeyCode::Space)
        || keyboard_input.just_pressed(KeyCode::Enter)
        || mouse_button_input.just_pressed(MouseButton::Left)
        || mouse_button_input.just_pressed(MouseButton::Right)
}

/// A function returning a closure to use as a run condition: the same condition with
/// different values, as the common conditions are made.
fn time_passed(t: f32) -> impl FnMut(Local<f32>, Res<Time>) -> bool {
    move |mut timer: Local<f32>, time: Res<Time>| {
        // Tick the timer.
        *timer += time.delta_secs;
        // True once the timer has passed the time.
        *timer >= t
    }
}

/// Counts input. It takes `ResMut` rather than `Option<ResMut>`: its condition checks
/// that the counter exists.
fn increment_input_counter(mut counter: ResMut<InputCounter>) {
    counter.0 += 1;
}

fn print_input_counter(counter: Res<InputCounter>) {
    say!("Input counter: {}", counter.0);
}

fn print_time_message() {
    say!("It has been more than 2 seconds since the program started and less than 2.5 seconds");
}

/// Plays [`SCRIPT`], a frame per entry.
pub fn main() {
    say!("");
    say!("For the first 2 seconds you will not be able to increment the counter");
    say!(
        "Once that time has passed you can press space, enter, left mouse, right mouse or touch the screen to increment the counter"
    );
    say!("");

    let mut world = World::new();
    world.init_resource::<InputCounter>();
    world.init_resource::<ButtonInput<KeyCode>>();
    world.init_resource::<ButtonInput<MouseButton>>();
    world.insert_resource(Time { delta_secs: DELTA_SECS });

    let mut update = Schedule::new();
    update
        .add_systems(
            &mut world,
            (
                increment_input_counter
                    // The common conditions check resources (and states).
                    .run_if(resource_exists::<InputCounter>)
                    // `.or_else(..)`: the second condition is evaluated only if the
                    // first is false, as `||` does.
                    .run_if(resource_exists::<Unused>.or_else(has_user_input)),
                print_input_counter
                    // `.and_then(..)`, evaluated only if the first holds (so the
                    // closure's `Res` is never missing).
                    .run_if(
                        resource_exists::<InputCounter>
                            .and_then(|counter: Res<InputCounter>| counter.is_changed() && !counter.is_added()),
                    ),
                print_time_message
                    // True once two seconds have passed...
                    .run_if(time_passed(2.0))
                    // ... and, negated with `not`, while less than 2.5 have.
                    .run_if(not(time_passed(2.5))),
            ),
        )
        .unwrap();
    // bevy: the three run in an order that varies (the first two conflict, with no
    // order between them); one thread runs them here, in the order of ripple's plan,
    // so that `say!` captures each line.
    update.set_single_threaded(true);

    for (keys, buttons) in SCRIPT {
        world.resource_mut::<ButtonInput<KeyCode>>().unwrap().hold(keys);
        world.resource_mut::<ButtonInput<MouseButton>>().unwrap().hold(buttons);
        update.run(&mut world);
    }
}
