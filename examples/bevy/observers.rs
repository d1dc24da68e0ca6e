//! bevy's `observers`: observing component lifecycle events and events of one's own.
//! A field of 1001 mines; observers of `OnAdd<Mine>` and `OnRemove<Mine>` keep a
//! spatial index of them; a click triggers `ExplodeMines` at a point, whose observer
//! triggers `Explode` on each mine it reaches, whose observers (one per mine) despawn
//! it and trigger `ExplodeMines` in turn: a chain reaction. Space toggles explosions.
//!
//! bevy: clicks with the mouse on a window, converted through the camera, and draws
//! the mines with gizmos; here a script clicks at world positions and presses Space,
//! and nothing is drawn. The mines come from a seeded generator (bevy: `ChaCha8Rng`
//! with the same seed, another algorithm, so another field). bevy's index holds
//! `EntityHashSet`s in a `HashMap`; `BTreeSet`s in a `BTreeMap` visit the mines in
//! one fixed order.

use std::collections::{BTreeMap, BTreeSet};

use ripple::prelude::*;

use super::input::{ButtonInput, KeyCode};
use super::math::Vec2;
use super::rng::Rng;

/// What each frame does: the keys held, and where the mouse clicks if it does.
const SCRIPT: &[(&[KeyCode], Option<Vec2>)] = &[
    (&[], Some(Vec2::new(0.0, 0.0))),
    (&[], None),
    (&[KeyCode::Space], None),
    (&[], Some(Vec2::new(-500.0, 170.0))),
    (&[KeyCode::Space], None),
    (&[], Some(Vec2::new(-500.0, 170.0))),
];

struct ExplosionsEnabled(bool);

impl Default for ExplosionsEnabled {
    fn default() -> Self {
        Self(true)
    }
}

fn toggle_explosions(keyboard: Res<ButtonInput<KeyCode>>, mut enabled: ResMut<ExplosionsEnabled>) {
    if keyboard.just_pressed(KeyCode::Space) {
        enabled.0 = !enabled.0;
        say!("Explosions {}", if enabled.0 { "ENABLED" } else { "DISABLED" });
    }
}

struct Mine {
    pos: Vec2,
    size: f32,
}

impl Mine {
    fn random(rand: &mut Rng) -> Self {
        Mine { pos: Vec2::new((rand.f32() - 0.5) * 1200.0, (rand.f32() - 0.5) * 600.0), size: 4.0 + rand.f32() * 16.0 }
    }
}

/// A plain event: observers of it run when it is triggered.
struct ExplodeMines {
    pos: Vec2,
    radius: f32,
}

impl ObserverEvent for ExplodeMines {}

/// An event aimed at entities: it runs the observers of every entity and then those of
/// its target.
// bevy: `#[derive(EntityEvent)] struct Explode { entity: Entity }`, triggered with
// `commands.trigger(Explode { entity })`; a ripple event carries no target: it is
// sent with `trigger_targets(Explode, [entity])`, and the observer reads it from the
// trigger.
struct Explode;

impl ObserverEvent for Explode {}

/// bevy: spawns a camera and a line of help text as well.
fn setup(world: &mut World) {
    let mut rng = Rng::seed_from_u64(19878367467713);

    // Observers can watch one entity: this one runs when `Explode` targets this mine.
    let first = world.spawn((Mine::random(&mut rng),));
    world.observe_entity(first, explode_mine).unwrap();

    // bevy: builds one `Observer::new(explode_mine)`, makes it watch each of the
    // other 1000 mines (`watch_entity`) and spawns it: observers are entities there.
    // A ripple observer watches one entity or all of them, so each mine gets its own
    // (bevy's comment: "having duplicate observers generally isn't worth worrying
    // about").
    for _ in 0..1000 {
        let entity = world.spawn((Mine::random(&mut rng),));
        world.observe_entity(entity, explode_mine).unwrap();
    }
}

/// Places a new mine in the spatial index.
fn on_add_mine(add: Trigger<OnAdd<Mine>>, query: Query<&Mine>, mut index: ResMut<SpatialIndex>) {
    let mine = query.get(add.entity()).unwrap();
    let tile = ((mine.pos.x / CELL_SIZE).floor() as i32, (mine.pos.y / CELL_SIZE).floor() as i32);
    index.map.entry(tile).or_default().insert(add.entity());
}

/// Removes despawned mines from the index.
fn on_remove_mine(remove: Trigger<OnRemove<Mine>>, query: Query<&Mine>, mut index: ResMut<SpatialIndex>) {
    let mine = query.get(remove.entity()).unwrap();
    let tile = ((mine.pos.x / CELL_SIZE).floor() as i32, (mine.pos.y / CELL_SIZE).floor() as i32);
    index.map.entry(tile).and_modify(|set| {
        set.remove(&remove.entity());
    });
}

fn explode_mine(explode: Trigger<Explode>, query: Query<&Mine>, mut commands: Commands) {
    // bevy: `commands.get_entity(explode.entity)` is an error for a mine already
    // despawned by an earlier explosion; here the query answers that. bevy applies
    // each command's consequences before the next command, so a mine's despawn
    // lands before any later `Explode` of it; ripple applies observers' commands
    // breadth-first, a round at a time, so a mine two explosions of one round reach
    // is still there for the second, and explodes (and prints) again.
    let Ok(mine) = query.get(explode.entity()) else {
        return;
    };
    say!("Boom! {} exploded.", explode.entity());
    commands.despawn(explode.entity());
    // Trigger another explosion cascade.
    commands.trigger(ExplodeMines { pos: mine.pos, radius: mine.size });
}

/// bevy: draws a circle per mine with gizmos; there is nothing to draw on here.
fn draw_shapes(mut mines: Query<&Mine>) {
    for _mine in &mut mines {}
}

/// Triggers `ExplodeMines` where the script clicks.
// bevy: reads the cursor through a `Single<(&Camera, &GlobalTransform)>` and the
// window, and `ButtonInput<MouseButton>`; the script's `Click` holds the world
// position a click lands on.
fn handle_click(click: Res<Click>, mut commands: Commands) {
    if let Some(pos) = click.0 {
        commands.trigger(ExplodeMines { pos, radius: 1.0 });
    }
}

/// Where the mouse clicked this frame, in world coordinates.
#[derive(Default)]
struct Click(Option<Vec2>);

/// bevy: a `HashMap<(i32, i32), EntityHashSet>`.
#[derive(Default)]
struct SpatialIndex {
    map: BTreeMap<(i32, i32), BTreeSet<Entity>>,
}

/// Cell size has to be bigger than any `ExplodeMines::radius`.
const CELL_SIZE: f32 = 64.0;

impl SpatialIndex {
    /// All the entities within adjacent cells.
    fn get_nearby(&self, pos: Vec2) -> Vec<Entity> {
        let tile = ((pos.x / CELL_SIZE).floor() as i32, (pos.y / CELL_SIZE).floor() as i32);
        let mut nearby = Vec::new();
        for x in -1..2 {
            for y in -1..2 {
                if let Some(mines) = self.map.get(&(tile.0 + x, tile.1 + y)) {
                    nearby.extend(mines.iter());
                }
            }
        }
        nearby
    }
}

/// Plays [`SCRIPT`], a frame per entry.
pub fn main() {
    let mut world = World::new();
    world.init_resource::<SpatialIndex>();
    world.init_resource::<ExplosionsEnabled>();
    world.init_resource::<ButtonInput<KeyCode>>();
    world.init_resource::<Click>();

    // Observers are systems that run when an event is triggered; this one when
    // `ExplodeMines` is.
    world
        .add_observer(
            |explode_mines: Trigger<ExplodeMines>,
             mines: Query<&Mine>,
             index: Res<SpatialIndex>,
             enabled: Res<ExplosionsEnabled>,
             mut commands: Commands| {
                // bevy: `.run_if(|enabled: Res<ExplosionsEnabled>| enabled.0)` on the
                // observer; ripple's observers take no run condition, so it checks.
                if !enabled.0 {
                    return;
                }
                let explode_mines = explode_mines.event();
                for entity in index.get_nearby(explode_mines.pos) {
                    let mine = mines.get(entity).unwrap();
                    if mine.pos.distance(explode_mines.pos) < mine.size + explode_mines.radius {
                        // Queue commands, including triggering more events.
                        commands.trigger_targets(Explode, [entity]);
                    }
                }
            },
        )
        .unwrap();
    world.add_observer(on_add_mine).unwrap();
    world.add_observer(on_remove_mine).unwrap();

    // bevy: a `Startup` system taking `Commands`; observing an entity takes the world
    // here (`commands.entity(e).observe(..)` would do as well).
    setup(&mut world);

    let mut update = Schedule::new();
    update.add_systems(&mut world, (draw_shapes, handle_click, toggle_explosions)).unwrap();
    // bevy: these run in parallel; the port prints from one thread (see `say!`).
    update.set_single_threaded(true);
    for (held, click) in SCRIPT {
        world.resource_mut::<ButtonInput<KeyCode>>().unwrap().hold(held);
        world.resource_mut::<Click>().unwrap().0 = *click;
        update.run(&mut world);
    }
}
