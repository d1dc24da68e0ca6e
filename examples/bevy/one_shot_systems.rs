//! bevy's `one_shot_systems`: systems registered once and run on demand. Two systems
//! are registered, one from commands and one from the world, and kept in `Callback`
//! components; pressing A or B tags the matching entity `Triggered`, and another
//! system runs the callbacks of the tagged entities. Each callback writes its letter
//! into a line of UI text.
//!
//! bevy: reads the keyboard and shows the text in a window; here a script presses
//! the keys and the text is a `Text` entity with `TextSpan` children, as bevy's UI
//! text is (the port keeps it, though nothing draws it).

use ripple::prelude::*;
use ripple::schedule::{POST_UPDATE, PRE_UPDATE, UPDATE};
use ripple::{OneShotId, query::With};

use super::input::{ButtonInput, KeyCode};

/// The keys held in each frame.
const SCRIPT: &[&[KeyCode]] =
    &[&[], &[KeyCode::KeyA], &[KeyCode::KeyA], &[KeyCode::KeyB], &[], &[KeyCode::KeyA, KeyCode::KeyB]];

/// bevy: `Callback(SystemId)`; ripple's handle is a `OneShotId` (of a system that
/// takes and returns nothing, as `SystemId`'s defaults say too).
struct Callback(OneShotId);

struct Triggered;

struct A;
struct B;

/// bevy: `bevy::ui::widget::Text`, the root of a block of text.
struct Text;

/// bevy: `bevy::ui::widget::TextSpan`, one run of a `Text`'s content (a child of it).
struct TextSpan(String);

fn setup_with_commands(mut commands: Commands) {
    // bevy: `let system_id = commands.register_system(system_a);` then
    // `commands.spawn((Callback(system_id), A))`. ripple registers systems through
    // the world only, so a command does both.
    commands.add(|world: &mut World| {
        let system_id = world.register_system(system_a).unwrap();
        world.spawn((Callback(system_id), A));
    });
}

fn setup_with_world(world: &mut World) {
    // It can run once by hand...
    world.run_system_once(system_b).unwrap();
    // ... or be registered, to run as a callback.
    let system_id = world.register_system(system_b).unwrap();
    world.spawn((Callback(system_id), B));
}

/// Tags the entities whose callbacks should run with `Triggered`.
fn trigger_system(
    mut commands: Commands,
    query_a: Single<Entity, With<A>>,
    query_b: Single<Entity, With<B>>,
    input: Res<ButtonInput<KeyCode>>,
) {
    if input.just_pressed(KeyCode::KeyA) {
        let entity = *query_a;
        commands.entity(entity).insert((Triggered,));
    }
    if input.just_pressed(KeyCode::KeyB) {
        let entity = *query_b;
        commands.entity(entity).insert((Triggered,));
    }
}

/// Runs the callback of each `Triggered` entity.
fn evaluate_callbacks(query: Query<(Entity, &Callback), With<Triggered>>, mut commands: Commands) {
    for (entity, callback) in query.iter() {
        commands.run_system(callback.0);
        commands.entity(entity).remove::<(Triggered,)>();
    }
}

/// Writes the text's last span (bevy: `TextUiWriter::text(entity, 3)`, the text's
/// third span after its root).
fn write_last_span(text: Entity, children: &Query<&Children>, spans: &mut Query<&mut TextSpan>, value: &str) {
    let last = *children.get(text).unwrap().last().unwrap();
    spans.get_mut(last).unwrap().0 = String::from(value);
}

fn system_a(entity_a: Single<Entity, With<Text>>, children: Query<&Children>, mut spans: Query<&mut TextSpan>) {
    write_last_span(*entity_a, &children, &mut spans, "A");
    say!("A: One shot system registered with Commands was triggered");
}

fn system_b(entity_b: Single<Entity, With<Text>>, children: Query<&Children>, mut spans: Query<&mut TextSpan>) {
    write_last_span(*entity_b, &children, &mut spans, "B");
    say!("B: One shot system registered with World was triggered");
}

fn setup_ui(mut commands: Commands) {
    // bevy: spawns a camera, and lays the text out (`TextLayout`, `Node`, a colour);
    // `children![..]` spawns the spans, as `with_children` does here.
    let text = commands.spawn((Text,));
    commands.entity(text).with_children(|parent| {
        parent.spawn((TextSpan::from("Press A or B to trigger a one-shot system\n"),));
        parent.spawn((TextSpan::from("Last Triggered: "),));
        parent.spawn((TextSpan::from("-"),));
    });
}

impl From<&str> for TextSpan {
    fn from(text: &str) -> Self {
        TextSpan(text.to_string())
    }
}

/// The text the UI shows (for the tests): its spans, in order.
pub fn ui_text(world: &mut World) -> String {
    let text = world.query_filtered::<Entity, With<Text>>().iter(world).next().unwrap();
    let spans = world.children(text).unwrap().to_vec();
    spans.iter().map(|span| world.get::<TextSpan>(*span).unwrap().0.as_str()).collect()
}

/// Plays [`SCRIPT`] and returns the world.
pub fn run() -> World {
    let mut world = World::new();
    world.init_resource::<ButtonInput<KeyCode>>();

    // bevy: `add_systems(Startup, (setup_ui, setup_with_commands,
    // setup_with_world.after(setup_ui)))`; bevy applies `setup_ui`'s commands before
    // `setup_with_world` runs, since one is ordered after the other. ripple applies
    // commands at the end of the phase that queued them, so `setup_with_world` goes
    // in a later phase to find the text.
    let mut startup = Schedule::new();
    startup.add_systems(&mut world, (setup_ui, setup_with_commands).in_phase(PRE_UPDATE)).unwrap();
    startup.add_systems(&mut world, setup_with_world.in_phase(UPDATE)).unwrap();

    // bevy: `(trigger_system, evaluate_callbacks).chain()`, with a sync point between
    // them that applies the `Triggered` inserts; here the second runs in the next
    // phase, which sees them.
    let mut update = Schedule::new();
    update.add_systems(&mut world, trigger_system).unwrap();
    update.add_systems(&mut world, evaluate_callbacks.in_phase(POST_UPDATE)).unwrap();

    startup.run(&mut world);
    for held in SCRIPT {
        world.resource_mut::<ButtonInput<KeyCode>>().unwrap().hold(held);
        update.run(&mut world);
    }
    world
}

/// Plays [`SCRIPT`].
pub fn main() {
    run();
}
