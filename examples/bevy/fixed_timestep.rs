//! bevy's `fixed_timestep`: systems that run every fixed timestep rather than every
//! frame. One system runs every frame, another twice a second of game time, as many
//! times per frame as the time elapsed calls for (none, in some frames).
//!
//! bevy: `FixedUpdate`, run by `RunFixedMainLoop` before `Update` with `Time<Fixed>`
//! set to 0.5 s, at the display's frame rate, logging with `info!`. Here 8 frames of a
//! fixed 0.2 s (under the 0.25 s bevy's virtual clock clamps a frame to): the frame
//! loop advances a virtual clock, and runs the fixed schedule while a whole timestep
//! has accrued, with the generic clock `Time` set to the fixed one meanwhile, as
//! bevy does. The clocks count in `Duration`s, as bevy's do.

use std::time::Duration;

use ripple::prelude::*;

/// The time each frame takes.
const FRAME: Duration = Duration::from_millis(200);
/// The frames [`main`] runs.
const FRAMES: usize = 8;

/// bevy: `Time` (the generic clock systems read: virtual time in `Update`, fixed time
/// in `FixedUpdate`).
#[derive(Clone, Copy, Default)]
struct Time {
    elapsed: Duration,
    delta: Duration,
}

impl Time {
    fn elapsed_secs(&self) -> f32 {
        self.elapsed.as_secs_f32()
    }

    fn delta_secs(&self) -> f32 {
        self.delta.as_secs_f32()
    }
}

/// bevy: `Time<Fixed>`: the fixed clock, its timestep, and the time accrued towards
/// its next step.
struct FixedTime {
    time: Time,
    timestep: Duration,
    overstep: Duration,
}

impl FixedTime {
    /// bevy: `Time::<Fixed>::from_seconds`.
    fn from_seconds(seconds: f64) -> Self {
        FixedTime { time: Time::default(), timestep: Duration::from_secs_f64(seconds), overstep: Duration::ZERO }
    }

    fn overstep(&self) -> Duration {
        self.overstep
    }
}

fn frame_update(mut last_time: Local<f32>, time: Res<Time>) {
    // `Time` is virtual time here.
    say!("time since last frame_update: {}", time.elapsed_secs() - *last_time);
    *last_time = time.elapsed_secs();
}

fn fixed_update(mut last_time: Local<f32>, time: Res<Time>, fixed_time: Res<FixedTime>) {
    // `Time` is fixed time here.
    say!("time since last fixed_update: {}\n", time.elapsed_secs() - *last_time);

    say!("fixed timestep: {}\n", time.delta_secs());
    // The overstep is on the fixed clock itself.
    say!("time accrued toward next fixed_update: {}\n", fixed_time.overstep().as_secs_f32());
    *last_time = time.elapsed_secs();
}

/// Runs [`FRAMES`] frames.
pub fn main() {
    let mut world = World::new();
    // Twice a second (bevy: `insert_resource(Time::<Fixed>::from_seconds(0.5))`).
    world.insert_resource(FixedTime::from_seconds(0.5));
    world.insert_resource(Time::default());

    // bevy: `add_systems(Update, frame_update)` and `add_systems(FixedUpdate,
    // fixed_update)`.
    let mut update = Schedule::new();
    update.add_systems(&mut world, frame_update).unwrap();
    let mut fixed_update_schedule = Schedule::new();
    fixed_update_schedule.add_systems(&mut world, fixed_update).unwrap();

    let mut virtual_time = Time::default();
    for _ in 0..FRAMES {
        virtual_time.delta = FRAME;
        virtual_time.elapsed += FRAME;
        // bevy's `RunFixedMainLoop`: as many fixed steps as have accrued.
        world.resource_mut::<FixedTime>().unwrap().overstep += FRAME;
        loop {
            let fixed = world.resource_mut::<FixedTime>().unwrap();
            if fixed.overstep < fixed.timestep {
                break;
            }
            fixed.overstep -= fixed.timestep;
            fixed.time.delta = fixed.timestep;
            fixed.time.elapsed += fixed.timestep;
            let fixed_clock = fixed.time;
            world.insert_resource(fixed_clock);
            fixed_update_schedule.run(&mut world);
        }
        world.insert_resource(virtual_time);
        update.run(&mut world);
    }
}
