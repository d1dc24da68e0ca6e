//! bevy's `generic_system`: one generic system, `cleanup_system::<T>`, added once per
//! type it should work on. Two entities print a line every second; pressing Space
//! leaves the main menu, and the cleanup of `MenuClose` entities, run as the state is
//! left, despawns the first.
//!
//! bevy: `States` with `init_state`, `in_state` and `OnExit` schedules, a `Timer`, and
//! a window's keyboard. ripple has no states: a `State` resource, a `NextState` the
//! frame loop applies before `Update` (where bevy's `StateTransition` schedule runs)
//! and one schedule per `OnExit` stand in, with a small `Timer` and a script that
//! presses Space in frame 6 of 12 frames of a fixed 0.25 s.

use ripple::prelude::*;
use ripple::query::With;
use ripple::system::resource_equals;

use super::input::{ButtonInput, KeyCode};

/// The time each frame takes.
const DELTA_SECS: f32 = 0.25;

/// The keys held in each frame.
const SCRIPT: &[&[KeyCode]] = &[&[], &[], &[], &[], &[], &[KeyCode::Space], &[KeyCode::Space], &[], &[], &[], &[], &[]];

/// bevy: `#[derive(States)]`, with `MainMenu` the default.
#[derive(Debug, Default, Clone, Copy, Eq, PartialEq, Hash)]
enum AppState {
    #[default]
    MainMenu,
    InGame,
}

/// bevy: `State<S>`, the current state.
#[derive(Default, PartialEq)]
struct State<S>(S);

/// bevy: `NextState<S>`, set to ask for a transition.
#[derive(Default)]
struct NextState<S>(Option<S>);

impl<S> NextState<S> {
    fn set(&mut self, state: S) {
        self.0 = Some(state);
    }
}

/// bevy: `bevy::time::Timer`, repeating (`TimerMode::Repeating`).
struct Timer {
    duration: f32,
    elapsed: f32,
    just_finished: bool,
}

impl Timer {
    fn from_seconds(duration: f32) -> Self {
        Timer { duration, elapsed: 0.0, just_finished: false }
    }

    fn tick(&mut self, delta: f32) -> &Self {
        self.elapsed += delta;
        self.just_finished = self.elapsed >= self.duration;
        if self.just_finished {
            self.elapsed -= self.duration;
        }
        self
    }

    fn just_finished(&self) -> bool {
        self.just_finished
    }
}

/// bevy: `bevy::time::Time`; only the frame's delta is read here.
struct Time {
    delta_secs: f32,
}

struct TextToPrint(String);

/// bevy: `#[derive(Deref, DerefMut)] struct PrinterTick(Timer)`.
struct PrinterTick(Timer);

struct MenuClose;

struct LevelUnload;

fn setup_system(mut commands: Commands) {
    commands.spawn((
        PrinterTick(Timer::from_seconds(1.0)),
        TextToPrint("I will print until you press space.".to_string()),
        MenuClose,
    ));
    commands.spawn((
        PrinterTick(Timer::from_seconds(1.0)),
        TextToPrint("I will always print".to_string()),
        LevelUnload,
    ));
}

fn print_text_system(time: Res<Time>, mut query: Query<(&mut PrinterTick, &TextToPrint)>) {
    for (mut timer, text) in &mut query {
        if timer.0.tick(time.delta_secs).just_finished() {
            say!("{}", text.0);
        }
    }
}

fn transition_to_in_game_system(
    mut next_state: ResMut<NextState<AppState>>,
    keyboard_input: Res<ButtonInput<KeyCode>>,
) {
    if keyboard_input.pressed(KeyCode::Space) {
        next_state.set(AppState::InGame);
    }
}

/// Type parameters come after the function's name; `T: Component` bounds `T`.
fn cleanup_system<T: Component>(mut commands: Commands, mut query: Query<Entity, With<T>>) {
    for e in &mut query {
        commands.entity(e).despawn();
    }
}

/// Runs [`SCRIPT`], a frame per entry.
pub fn main() {
    let mut world = World::new();
    // bevy: `init_state::<AppState>()`.
    world.init_resource::<State<AppState>>();
    world.init_resource::<NextState<AppState>>();
    world.init_resource::<ButtonInput<KeyCode>>();
    world.insert_resource(Time { delta_secs: DELTA_SECS });

    let mut startup = Schedule::new();
    startup.add_systems(&mut world, setup_system).unwrap();
    let mut update = Schedule::new();
    update
        .add_systems(
            &mut world,
            (
                print_text_system,
                // bevy: `.run_if(in_state(AppState::MainMenu))`.
                transition_to_in_game_system.run_if(resource_equals(State(AppState::MainMenu))),
            ),
        )
        .unwrap();
    // bevy: the two may run in parallel; one thread runs them here, so that `say!`
    // captures each line.
    update.set_single_threaded(true);
    // Cleanup systems: the type they work on goes in with the turbofish (bevy:
    // `add_systems(OnExit(AppState::MainMenu), cleanup_system::<MenuClose>)`).
    let mut on_exit_main_menu = Schedule::new();
    on_exit_main_menu.add_systems(&mut world, cleanup_system::<MenuClose>).unwrap();
    let mut on_exit_in_game = Schedule::new();
    on_exit_in_game.add_systems(&mut world, cleanup_system::<LevelUnload>).unwrap();

    startup.run(&mut world);
    for held in SCRIPT {
        world.resource_mut::<ButtonInput<KeyCode>>().unwrap().hold(held);
        // bevy's `StateTransition`: a requested state is entered, the `OnExit`
        // schedule of the one left running first.
        if let Some(next) = world.resource_mut::<NextState<AppState>>().unwrap().0.take() {
            let left = world.resource::<State<AppState>>().unwrap().0;
            match left {
                AppState::MainMenu => on_exit_main_menu.run(&mut world),
                AppState::InGame => on_exit_in_game.run(&mut world),
            }
            world.insert_resource(State(next));
        }
        update.run(&mut world);
    }
}
