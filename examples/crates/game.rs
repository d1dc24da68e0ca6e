//! Crate-topia, the game: a level of resting crates, a player who pushes them and
//! enemies who smash them, run by a schedule of systems in one of two ways.
//!
//! - [`Mode::BruteForce`]: the collision detector tests every crate against the movers,
//!   the animator looks at every animation and the renderer rebuilds the whole draw
//!   list, every frame.
//! - [`Mode::ChangeDriven`]: the collision detector keeps a spatial grid and updates
//!   only the crates that moved, were disabled or are gone (`Dirty` plus a removal
//!   stream); the animator visits the entities carrying a `Playing` marker (a sparse
//!   component); the renderer keeps its draw list and redraws only the entities that are
//!   dirty for it: a changed `Position`, `Animatable`, `Activity` or `Body`, or a `Dead`
//!   or `DamagedFlash` marker added or removed — a dirty set broader than its query.
//!
//! The other systems (movement, combat, the flash countdown, the scoreboard) are the
//! same in both: they touch the few things that act. Both modes are correct if every
//! system ran on everything every frame; change tracking only decides what is skipped,
//! so both draw lists must be equal after every frame ([`compare`]).
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use ripple::Storage;
use ripple::prelude::*;
use ripple::query::QueryFilter;
use ripple::schedule::{POST_UPDATE, SystemConfig};

/// Which systems a game runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Every system visits every entity it could concern, every frame.
    BruteForce,
    /// Systems visit what changed.
    ChangeDriven,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Position {
    pub x: f32,
    pub y: f32,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Velocity {
    pub x: f32,
    pub y: f32,
}

/// What an entity looks like.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Sprite {
    Crate,
    Exploding,
    Player,
    Goblin,
    Bat,
}

/// The animation an entity shows, and its frame.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Animatable {
    pub sprite: Sprite,
    pub frame: u16,
}

/// What a mover is doing; crates have none.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Activity {
    Idle,
    Walking,
}

/// How big an entity is drawn and collides.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Body {
    pub radius: f32,
}

/// A crate's collision box; a disabled one collides with nothing (set when the crate
/// dies, through `set_if_neq`, so writing the same value marks nothing).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct CollisionShape {
    pub half: f32,
    pub disabled: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Health(pub u8);
/// A resting crate.
pub struct Crate;
/// Something that moves by itself.
pub struct Mover {
    pub enemy: bool,
}
/// A crate that was destroyed and is exploding.
pub struct Dead;
/// Tints a crate that was just hit.
pub struct DamagedFlash;
/// Frames left before `DamagedFlash` comes off.
pub struct FlashTimer(pub u8);
/// Carried while an animation plays (movers always, crates while exploding).
pub struct Playing;

/// Sent when a crate has exploded and is gone.
pub struct CrateExploded(#[allow(dead_code, reason = "carried for readers")] pub Entity);

/// What the renderer draws for one entity: everything it reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DrawCmd {
    pub x: f32,
    pub y: f32,
    pub sprite: Sprite,
    pub frame: u16,
    pub activity: Option<Activity>,
    pub radius: f32,
    pub dead: bool,
    pub flash: bool,
}

/// The frame being played, from 0.
#[derive(Default)]
pub struct Frame(pub u32);

/// This frame's contacts between a mover and a crate, sorted.
#[derive(Default)]
pub struct Hits(pub Vec<(Entity, Entity)>);

/// Crates exploded so far, counted from the events.
#[derive(Default)]
pub struct Score(pub u64);

/// Entities each system visited this frame.
#[derive(Clone, Copy, Debug, Default)]
pub struct Work {
    pub movement: u64,
    pub collision: u64,
    pub combat: u64,
    pub animator: u64,
    pub renderer: u64,
}

impl Work {
    pub const SYSTEMS: [&'static str; 5] = ["movement", "collision", "combat", "animator", "renderer"];

    pub fn get(&self, system: &str) -> u64 {
        match system {
            "movement" => self.movement,
            "collision" => self.collision,
            "combat" => self.combat,
            "animator" => self.animator,
            "renderer" => self.renderer,
            other => unreachable!("no system {other} in Work::SYSTEMS"),
        }
    }

    pub fn add(&mut self, other: &Work) {
        self.movement += other.movement;
        self.collision += other.collision;
        self.combat += other.combat;
        self.animator += other.animator;
        self.renderer += other.renderer;
    }
}

/// The renderer's output: the draw list, one slot per entity index.
#[derive(Default)]
pub struct DrawList {
    slots: Vec<Option<(Entity, DrawCmd)>>,
    len: usize,
}

impl DrawList {
    fn set(&mut self, entity: Entity, cmd: DrawCmd) {
        let index = entity.index() as usize;
        if self.slots.len() <= index {
            self.slots.resize(index + 1, None);
        }
        if self.slots[index].replace((entity, cmd)).is_none() {
            self.len += 1;
        }
    }

    fn remove(&mut self, entity: Entity) {
        if let Some(slot) = self.slots.get_mut(entity.index() as usize) {
            if slot.is_some_and(|(e, _)| e == entity) {
                *slot = None;
                self.len -= 1;
            }
        }
    }

    fn clear(&mut self) {
        self.slots.iter_mut().for_each(|slot| *slot = None);
        self.len = 0;
    }

    /// How many entities are drawn.
    pub fn len(&self) -> usize {
        self.len
    }

    /// What is drawn for `entity`.
    pub fn get(&self, entity: Entity) -> Option<&DrawCmd> {
        match self.slots.get(entity.index() as usize)? {
            Some((e, cmd)) if *e == entity => Some(cmd),
            _ => None,
        }
    }

    /// Every drawn entity, by entity index.
    pub fn iter(&self) -> impl Iterator<Item = (Entity, &DrawCmd)> {
        self.slots.iter().flatten().map(|(e, cmd)| (*e, cmd))
    }
}

/// Crates stand on a square grid this far apart; movers patrol `[0, PATROL]²`, which
/// the smallest level (1,000 crates) already fills, so every level plays the same
/// game around its movers.
const SPACING: f32 = 2.0;
const PATROL: f32 = 60.0;
const CRATE_HALF: f32 = 0.5;
const CRATE_HEALTH: u8 = 3;
const FLASH_FRAMES: u8 = 4;
const EXPLODE_FRAMES: u16 = 8;
const WALK_FRAMES: u16 = 6;
/// Side of a collision grid cell.
const CELL: f32 = 4.0;

/// One level being played.
pub struct Game {
    pub world: World,
    pub schedule: Schedule,
}

impl Game {
    /// A level with `crates` crates and five movers, and the schedule for `mode`.
    pub fn new(crates: usize, mode: Mode) -> Game {
        let mut world = World::new();
        // Markers that come and go: in sparse sets, so toggling them moves no row.
        world.set_storage::<Playing>(Storage::SparseSet).expect("chosen before first use");
        world.set_storage::<FlashTimer>(Storage::SparseSet).expect("chosen before first use");
        world.insert_resource(Frame::default());
        world.insert_resource(Hits::default());
        world.insert_resource(Score::default());
        world.insert_resource(Work::default());
        world.insert_resource(DrawList::default());
        let side = (crates as f64).sqrt().ceil() as usize;
        world
            .spawn_batch((0..crates).map(|i| {
                let (column, row) = (i % side, i / side);
                (
                    Position { x: 1.0 + column as f32 * SPACING, y: 1.0 + row as f32 * SPACING },
                    Animatable { sprite: Sprite::Crate, frame: 0 },
                    Body { radius: CRATE_HALF },
                    CollisionShape { half: CRATE_HALF, disabled: false },
                    Health(CRATE_HEALTH),
                    Crate,
                )
            }))
            .for_each(drop);
        let movers = [
            (Sprite::Player, 5.0, 5.0, 0.45, 0.3),
            (Sprite::Goblin, 20.0, 8.0, -0.35, 0.5),
            (Sprite::Bat, 40.0, 30.0, 0.6, -0.25),
            (Sprite::Goblin, 12.0, 44.0, 0.3, 0.3),
            (Sprite::Bat, 50.0, 50.0, -0.5, -0.4),
        ];
        for (sprite, x, y, vx, vy) in movers {
            world.spawn((
                Position { x, y },
                Velocity { x: vx, y: vy },
                Animatable { sprite, frame: 0 },
                Activity::Walking,
                Body { radius: if sprite == Sprite::Player { 0.6 } else { 0.5 } },
                Mover { enemy: sprite != Sprite::Player },
                Playing,
            ));
        }

        let (collision, animator, renderer): (SystemConfig, SystemConfig, SystemConfig) = match mode {
            Mode::BruteForce => {
                (collision_brute.into_config(), animator::<()>.into_config(), renderer_brute.into_config())
            }
            Mode::ChangeDriven => {
                (collision_driven.into_config(), animator::<With<Playing>>.into_config(), renderer_driven.into_config())
            }
        };
        let mut schedule = Schedule::new();
        schedule.set_profiling(true);
        for config in [
            movement.into_config(),
            collision.named("collision").after("movement"),
            combat.after("collision"),
            flash.after("combat"),
            animator.named("animator").after("combat"),
            renderer.named("animation_renderer").in_phase(POST_UPDATE),
            scoreboard.in_phase(POST_UPDATE),
        ] {
            schedule.add_system(&mut world, config).unwrap_or_else(|e| panic!("the game's systems are valid: {e}"));
        }
        Game { world, schedule }
    }

    /// Plays one frame.
    pub fn step(&mut self) {
        *self.world.resource_mut::<Work>().expect("inserted") = Work::default();
        self.schedule.run(&mut self.world);
        self.world.resource_mut::<Frame>().expect("inserted").0 += 1;
    }

    /// What each system visited in the last frame.
    pub fn work(&self) -> Work {
        *self.world.resource::<Work>().expect("inserted")
    }

    /// The renderer's output after the last frame.
    pub fn draw_list(&self) -> &DrawList {
        self.world.resource::<DrawList>().expect("inserted")
    }

    /// Crates exploded so far.
    pub fn score(&self) -> u64 {
        self.world.resource::<Score>().expect("inserted").0
    }
}

/// Whether two games drew the same thing: the same entities, each drawn the same.
pub fn compare(a: &Game, b: &Game) -> Result<(), String> {
    let (a, b) = (a.draw_list(), b.draw_list());
    if a.len() != b.len() {
        return Err(format!("{} entities drawn against {}", a.len(), b.len()));
    }
    for (entity, cmd) in a.iter() {
        if b.get(entity) != Some(cmd) {
            return Err(format!("{entity:?} drawn as {cmd:?} against {:?}", b.get(entity)));
        }
    }
    Ok(())
}

fn overlaps(mover: (Position, Body), shape: (Position, CollisionShape)) -> bool {
    let reach = mover.1.radius + shape.1.half;
    !shape.1.disabled && (mover.0.x - shape.0.x).abs() < reach && (mover.0.y - shape.0.y).abs() < reach
}

/// Moves the movers, bouncing off the patrol area; the player stands still for ten
/// frames in every fifty.
fn movement(
    mut movers: Query<(&mut Position, &mut Velocity, &mut Activity, &Mover)>,
    frame: Res<Frame>,
    mut work: ResMut<Work>,
) {
    let resting = frame.0 % 50 >= 40;
    movers.for_each_mut(|(mut position, mut velocity, mut activity, mover)| {
        work.movement += 1;
        let still = !mover.enemy && resting;
        activity.set_if_neq(if still { Activity::Idle } else { Activity::Walking });
        if still {
            return;
        }
        let mut next = *position;
        next.x += velocity.x;
        next.y += velocity.y;
        if !(0.0..=PATROL).contains(&next.x) {
            velocity.x = -velocity.x;
            next.x = next.x.clamp(0.0, PATROL);
        }
        if !(0.0..=PATROL).contains(&next.y) {
            velocity.y = -velocity.y;
            next.y = next.y.clamp(0.0, PATROL);
        }
        position.set_if_neq(next);
    });
}

/// The movers' positions and sizes, gathered once per frame.
fn gather_movers(movers: &mut Query<(Entity, &Position, &Body), With<Mover>>, out: &mut Vec<(Entity, Position, Body)>) {
    out.clear();
    movers.for_each(|(entity, position, body)| out.push((entity, *position, *body)));
}

/// Brute force: every crate's shape against every mover.
fn collision_brute(
    mut movers: Query<(Entity, &Position, &Body), With<Mover>>,
    mut shapes: Query<(Entity, &Position, &CollisionShape), With<Crate>>,
    mut near: Local<Vec<(Entity, Position, Body)>>,
    mut hits: ResMut<Hits>,
    mut work: ResMut<Work>,
) {
    gather_movers(&mut movers, &mut near);
    hits.0.clear();
    let mut visited = 0;
    shapes.for_each(|(entity, position, shape)| {
        visited += 1;
        for &(mover, at, body) in near.iter() {
            if overlaps((at, body), (*position, *shape)) {
                hits.0.push((mover, entity));
            }
        }
    });
    work.collision += visited;
    hits.0.sort_unstable();
}

/// A crate shape in the grid: which crate, where, and its box.
type Placed = (Entity, Position, CollisionShape);

/// A spatial hash of the enabled crate shapes, each in the cell of its centre with a
/// copy of its position and shape, kept in step with what changed.
#[derive(Default)]
struct Grid {
    cells: HashMap<(i32, i32), Vec<Placed>>,
    cell_of: HashMap<Entity, (i32, i32)>,
}

impl Grid {
    fn cell(p: Position) -> (i32, i32) {
        ((p.x / CELL).floor() as i32, (p.y / CELL).floor() as i32)
    }

    fn remove(&mut self, entity: Entity) {
        if let Some(cell) = self.cell_of.remove(&entity) {
            if let Some(list) = self.cells.get_mut(&cell) {
                if let Some(at) = list.iter().position(|&(e, ..)| e == entity) {
                    list.swap_remove(at);
                }
            }
        }
    }

    fn place(&mut self, entity: Entity, position: Position, shape: CollisionShape) {
        let cell = Grid::cell(position);
        if self.cell_of.get(&entity) == Some(&cell) {
            let list = self.cells.get_mut(&cell).expect("listed in its cell");
            if let Some(entry) = list.iter_mut().find(|(e, ..)| *e == entity) {
                *entry = (entity, position, shape);
            }
            return;
        }
        self.remove(entity);
        self.cells.entry(cell).or_default().push((entity, position, shape));
        self.cell_of.insert(entity, cell);
    }
}

/// Change-driven: updates the grid for the shapes that moved, changed or are gone,
/// then tests each mover against the crates in the cells its reach touches.
#[allow(clippy::type_complexity, reason = "a system's parameters are its inputs")]
fn collision_driven(
    mut movers: Query<(Entity, &Position, &Body), With<Mover>>,
    mut changed: Query<(Entity, &Position, &CollisionShape), (With<Crate>, Dirty<(Position, CollisionShape)>)>,
    mut gone: Removed<CollisionShape>,
    mut grid: Local<Grid>,
    mut near: Local<Vec<(Entity, Position, Body)>>,
    mut hits: ResMut<Hits>,
    mut work: ResMut<Work>,
) {
    let mut visited = 0;
    for (entity, _) in gone.read() {
        grid.remove(entity);
        visited += 1;
    }
    changed.for_each(|(entity, position, shape)| {
        visited += 1;
        if shape.disabled {
            grid.remove(entity);
        } else {
            grid.place(entity, *position, *shape);
        }
    });
    gather_movers(&mut movers, &mut near);
    hits.0.clear();
    for &(mover, at, body) in near.iter() {
        // A crate that touches the mover has its centre this close.
        let reach = body.radius + CRATE_HALF;
        let (low, high) = (
            Grid::cell(Position { x: at.x - reach, y: at.y - reach }),
            Grid::cell(Position { x: at.x + reach, y: at.y + reach }),
        );
        for cx in low.0..=high.0 {
            for cy in low.1..=high.1 {
                let Some(list) = grid.cells.get(&(cx, cy)) else { continue };
                for &(entity, position, shape) in list {
                    visited += 1;
                    if overlaps((at, body), (position, shape)) {
                        hits.0.push((mover, entity));
                    }
                }
            }
        }
    }
    work.collision += visited;
    hits.0.sort_unstable();
}

/// Acts on this frame's contacts: the player pushes crates along, enemies damage them
/// (a flash) and destroy them at zero health (dead, exploding, shape disabled).
#[allow(clippy::type_complexity, reason = "a system's parameters are its inputs")]
fn combat(
    mut commands: Commands,
    hits: Res<Hits>,
    movers: Query<(&Mover, &Velocity)>,
    mut crates: Query<(&mut Position, &mut Health, &mut CollisionShape, Option<&DamagedFlash>), With<Crate>>,
    mut work: ResMut<Work>,
) {
    for &(mover, target) in &hits.0 {
        work.combat += 1;
        let Ok((&Mover { enemy }, &velocity)) = movers.get(mover) else { continue };
        let Ok((mut position, mut health, mut shape, flashing)) = crates.get_mut(target) else { continue };
        if health.0 == 0 {
            continue;
        }
        if !enemy {
            position.x += velocity.x;
            position.y += velocity.y;
            continue;
        }
        health.0 -= 1;
        if health.0 == 0 {
            shape.set_if_neq(CollisionShape { disabled: true, ..*shape });
            // The explosion starts with the marker that makes it play, at the sync point.
            let exploding = Animatable { sprite: Sprite::Exploding, frame: 0 };
            commands.entity(target).insert((Dead, Playing, exploding)).remove::<(DamagedFlash, FlashTimer)>();
        } else if flashing.is_some() {
            // Already flashing: only the countdown starts again, nothing to redraw.
            commands.entity(target).insert_one(FlashTimer(FLASH_FRAMES));
        } else {
            commands.entity(target).insert((DamagedFlash, FlashTimer(FLASH_FRAMES)));
        }
    }
}

/// Counts the flashes down and takes them off.
fn flash(mut commands: Commands, mut timers: Query<(Entity, &mut FlashTimer)>) {
    timers.for_each_mut(|(entity, mut timer)| {
        timer.0 -= 1;
        if timer.0 == 0 {
            commands.entity(entity).remove::<(DamagedFlash, FlashTimer)>();
        }
    });
}

/// Advances one animation; an explosion that has played out despawns its crate.
fn advance(entity: Entity, animation: &mut Mut<'_, Animatable>, commands: &mut Commands) {
    match animation.sprite {
        Sprite::Crate => {}
        Sprite::Exploding => {
            animation.frame += 1;
            if animation.frame == EXPLODE_FRAMES {
                commands.despawn(entity);
                commands.write_message(CrateExploded(entity));
            }
        }
        Sprite::Player | Sprite::Goblin | Sprite::Bat => animation.frame = (animation.frame + 1) % WALK_FRAMES,
    }
}

/// Advances the animations `Visit` selects: brute force looks at every one (`()`),
/// change-driven at the entities whose animation plays (`With<Playing>`).
fn animator<Visit: QueryFilter>(
    mut commands: Commands,
    mut animations: Query<(Entity, &mut Animatable), Visit>,
    mut work: ResMut<Work>,
) {
    animations.for_each_mut(|(entity, mut animation)| {
        work.animator += 1;
        advance(entity, &mut animation, &mut commands);
    });
}

type Drawn<'a> = (
    Entity,
    &'a Position,
    &'a Animatable,
    Option<&'a Activity>,
    Option<&'a Body>,
    Option<&'a Dead>,
    Option<&'a DamagedFlash>,
);

fn draw_cmd((_, position, animation, activity, body, dead, flash): Drawn<'_>) -> DrawCmd {
    DrawCmd {
        x: position.x,
        y: position.y,
        sprite: animation.sprite,
        frame: animation.frame,
        activity: activity.copied(),
        radius: body.map_or(1.0, |b| b.radius),
        dead: dead.is_some(),
        flash: flash.is_some(),
    }
}

/// Brute force: redraws everything.
fn renderer_brute(mut drawn: Query<Drawn<'static>>, mut list: ResMut<DrawList>, mut work: ResMut<Work>) {
    list.clear();
    drawn.for_each(|item| {
        work.renderer += 1;
        list.set(item.0, draw_cmd(item));
    });
}

/// Change-driven: redraws the dirty entities and forgets the despawned ones.
#[allow(clippy::type_complexity, reason = "the renderer's dirty set, spelled out")]
fn renderer_driven(
    mut dirty: Query<Drawn<'static>, Dirty<(Position, Animatable, Activity, Body, Dead, DamagedFlash)>>,
    mut gone: Removed<Animatable>,
    mut list: ResMut<DrawList>,
    mut work: ResMut<Work>,
) {
    for (entity, _) in gone.read() {
        work.renderer += 1;
        list.remove(entity);
    }
    dirty.for_each(|item| {
        work.renderer += 1;
        list.set(item.0, draw_cmd(item));
    });
}

/// Counts the explosions from their events.
fn scoreboard(mut exploded: MessageReader<CrateExploded>, mut score: ResMut<Score>) {
    score.0 += exploded.read().count() as u64;
}
