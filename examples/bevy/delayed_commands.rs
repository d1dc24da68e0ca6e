//! bevy's `delayed_commands`: commands that take effect after a while. A grid of
//! black squares; a click makes each square blink white, later the farther it is
//! from the click, so that a ripple spreads out from it.
//!
//! bevy: `commands.delayed().secs(s)` (from `bevy_time`) gives a `Commands` whose
//! commands wait `s` seconds: they go into a `DelayedCommandQueue` entity, and a
//! system in `PreUpdate` applies each queue once its time has come. ripple has no
//! delayed commands; the port builds the same thing from a component holding
//! closures and a system. bevy draws the squares and picks them with the mouse, and
//! prints nothing; here a script clicks at the origin in the first of 10 frames of
//! 50 ms, and [`run`] returns the world so that the tests can watch the ripple.

use std::time::Duration;

use ripple::prelude::*;
use ripple::query::With;
use ripple::schedule::PRE_UPDATE;

/// The time each frame takes.
const FRAME: Duration = Duration::from_millis(50);
/// The frames [`main`] runs.
pub const FRAMES: usize = 10;

/// A square of the grid.
pub struct BlinkySquare;

/// bevy: `bevy::sprite::Sprite::from_color(color, SQUARE_SIZE)`; here the colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sprite {
    /// Black: at rest.
    Black,
    /// White: blinking.
    White,
}

/// bevy: `Transform::from_xyz(x, y, 0.0)`; here the position in the plane.
pub struct Transform {
    x: f32,
    y: f32,
}

/// bevy: `bevy::time::Time`, the virtual clock.
#[derive(Default)]
struct Time {
    elapsed: Duration,
}

/// bevy: `bevy::picking::events::Pointer<Click>`, with the pointer's position (the
/// port's is in world coordinates already).
struct PointerClick {
    position: (f32, f32),
}

impl ObserverEvent for PointerClick {}

/// A deferred command.
type DeferredCommand = Box<dyn FnOnce(&mut World) + Send + Sync>;

/// Commands waiting for their time: bevy's `DelayedCommandQueue` component.
struct DelayedCommandQueue {
    submit_at: Duration,
    queue: Vec<DeferredCommand>,
}

/// bevy: `DelayedCommands`, from `commands.delayed()`: commands grouped by delay,
/// sent as queue entities when it is dropped.
struct DelayedCommands<'c, 'w, 's> {
    queues: Vec<(Duration, Vec<DeferredCommand>)>,
    commands: &'c mut Commands<'w, 's>,
}

impl DelayedCommands<'_, '_, '_> {
    /// bevy: `delayed.secs(secs).entity(e).insert(..)` and the like, for any command:
    /// queues `command` to run `secs` from now.
    fn secs(&mut self, secs: f32, command: impl FnOnce(&mut World) + Send + Sync + 'static) {
        let delay = Duration::from_secs_f32(secs);
        match self.queues.iter_mut().find(|(at, _)| *at == delay) {
            Some((_, queue)) => queue.push(Box::new(command)),
            None => self.queues.push((delay, vec![Box::new(command)])),
        }
    }
}

impl Drop for DelayedCommands<'_, '_, '_> {
    fn drop(&mut self) {
        let queues = std::mem::take(&mut self.queues);
        self.commands.add(move |world: &mut World| {
            // Delays count from now: the clock when the command applies.
            let elapsed = world.resource::<Time>().unwrap().elapsed;
            world.spawn_batch(
                queues.into_iter().map(|(delay, queue)| (DelayedCommandQueue { submit_at: elapsed + delay, queue },)),
            );
        });
    }
}

/// bevy: `commands.delayed()`.
fn delayed<'c, 'w, 's>(commands: &'c mut Commands<'w, 's>) -> DelayedCommands<'c, 'w, 's> {
    DelayedCommands { queues: Vec::new(), commands }
}

/// bevy: `check_delayed_command_queues`, which `TimePlugin` runs in `PreUpdate`:
/// applies each queue whose time has come, and despawns it.
fn check_delayed_command_queues(
    mut queues: Query<(Entity, &mut DelayedCommandQueue)>,
    time: Res<Time>,
    mut commands: Commands,
) {
    for (e, mut queue) in &mut queues {
        if queue.submit_at <= time.elapsed {
            for command in queue.queue.drain(..) {
                commands.add(command);
            }
            commands.entity(e).despawn();
        }
    }
}

fn spawn(mut commands: Commands) {
    // bevy: spawns a camera too, and gives the squares a size (45 pixels).
    for x in -5..=5 {
        for y in -5..=5 {
            commands.spawn((BlinkySquare, Transform { x: x as f32 * 50.0, y: y as f32 * 50.0 }, Sprite::Black));
        }
    }
}

fn click(
    click: Trigger<PointerClick>,
    mut commands: Commands,
    squares: Query<(Entity, &Transform), With<BlinkySquare>>,
) {
    // bevy: converts the pointer's position through the camera into the world.
    let (mouse_x, mouse_y) = click.event().position;
    let mut delayed = delayed(&mut commands);
    for (entity, transform) in squares.iter() {
        // Delay the blink by the distance to the cursor.
        let dist = ((mouse_x - transform.x).powi(2) + (mouse_y - transform.y).powi(2)).sqrt();
        let delay = dist / 1000.0;
        delayed.secs(delay, move |world: &mut World| {
            let _ = world.insert(entity, (Sprite::White,));
        });
        delayed.secs(delay + 0.1, move |world: &mut World| {
            let _ = world.insert(entity, (Sprite::Black,));
        });
    }
}

/// The number of white squares in `world`.
pub fn white_squares(world: &mut World) -> usize {
    world.query::<&Sprite>().iter(world).filter(|sprite| **sprite == Sprite::White).count()
}

/// Runs `frames` frames, with a click at the origin in the first, and returns the
/// world.
pub fn run(frames: usize) -> World {
    let mut world = World::new();
    world.init_resource::<Time>();
    world.add_observer(click).unwrap();
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, spawn).unwrap();
    let mut update = Schedule::new();
    update.add_systems(&mut world, check_delayed_command_queues.in_phase(PRE_UPDATE)).unwrap();

    startup.run(&mut world);
    for frame in 0..frames {
        world.resource_mut::<Time>().unwrap().elapsed += FRAME;
        if frame == 0 {
            world.trigger(PointerClick { position: (0.0, 0.0) });
        }
        update.run(&mut world);
    }
    world
}

/// Runs [`FRAMES`] frames.
pub fn main() {
    run(FRAMES);
}
