//! An arena: twenty explosions hit one enemy in one frame and become one
//! damage event carrying the sum; the health plugin publishes an API that systems
//! call directly and that the level file calls by name.
//!
//! - `Damage` events merge by target (`World::merge_messages_by`);
//! - the health system owns `HealthApi` (published when the system is added) and
//!   applies both the merged damage events and the API's requests;
//! - the level file is a batch of data commands: `["gui", "set_level_complete", false]`,
//!   `["health", "apply_damage", "<entity>", 10]`, checked entirely before any runs.
//!
//! Run with `cargo run --example arena`.
#![allow(elided_lifetimes_in_paths, reason = "system signatures read better without them")]

use ripple::data::DataCommands;
use ripple::prelude::*;
use ripple::schedule::PRE_UPDATE;

/// Hit points.
#[derive(Debug, PartialEq)]
pub struct Health(pub u32);

/// Damage to one target; hits on one target within a frame merge into their sum.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Damage {
    /// Who is hit.
    pub target: Entity,
    /// How hard.
    pub amount: u32,
}

/// Sent when an enemy's health reaches zero.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Died(pub Entity);

/// The health plugin's API: damage requested by other systems or by data.
#[derive(Default)]
pub struct HealthApi {
    requests: Vec<(Entity, u32)>,
}

impl HealthApi {
    /// Asks for `amount` damage to `entity`, applied by the health system this frame.
    pub fn apply_damage(&mut self, entity: Entity, amount: u32) {
        self.requests.push((entity, amount));
    }
}

/// The on-screen state the level file drives.
#[derive(Default, Debug)]
pub struct Gui {
    /// Whether the "level complete" banner shows.
    pub level_complete: bool,
}

impl Gui {
    /// Shows or hides the "level complete" banner.
    pub fn set_level_complete(&mut self, complete: bool) {
        self.level_complete = complete;
    }
}

/// Twenty explosions on the first enemy, every frame.
fn explosions(enemies: Query<Entity, With<Health>>, mut damage: MessageWriter<Damage>) {
    if let Some(target) = enemies.iter().next() {
        for _ in 0..20 {
            damage.write(Damage { target, amount: 1 });
        }
    }
}

/// Applies merged damage events and API requests; reports deaths.
fn health(
    mut api: ApiMut<HealthApi>,
    mut damage: MessageReader<Damage>,
    mut health: Query<&mut Health>,
    mut died: MessageWriter<Died>,
    mut log: ResMut<Log>,
) {
    let requests = api.requests.drain(..).map(|(target, amount)| Damage { target, amount });
    for hit in damage.read().copied().chain(requests) {
        log.0.push(format!("{} takes {}", hit.target, hit.amount));
        if let Ok(mut hp) = health.get_mut(hit.target) {
            hp.0 = hp.0.saturating_sub(hit.amount);
            if hp.0 == 0 {
                died.write(Died(hit.target));
            }
        }
    }
}

/// Removes the dead; completes the level when no enemy is left.
fn referee(mut deaths: MessageReader<Died>, mut commands: Commands, mut gui: ApiMut<Gui>, enemies: Query<&Health>) {
    let mut dead = 0;
    for death in deaths.read() {
        commands.despawn(death.0);
        dead += 1;
    }
    if dead > 0 && enemies.iter().filter(|hp| hp.0 > 0).count() == 0 {
        gui.set_level_complete(true);
    }
}

/// What happened, line by line.
#[derive(Default)]
pub struct Log(pub Vec<String>);

/// Plays `frames` frames of the arena and returns the world and the log.
pub fn run(frames: usize) -> (World, Vec<String>) {
    let mut world = World::new();
    world.insert_resource(Log::default());
    world.publish_api(Gui::default());
    world.merge_messages_by(|d: &Damage| d.target, |sum: &mut Damage, d| sum.amount += d.amount);
    let enemies: Vec<Entity> = (0..2).map(|_| world.spawn((Health(50),))).collect();

    let mut schedule = Schedule::new();
    schedule.add_system(&mut world, explosions.in_phase(PRE_UPDATE)).unwrap();
    schedule
        .add_system(
            &mut world,
            health.named("health").on_added(|world| {
                world.publish_api(HealthApi::default());
            }),
        )
        .unwrap();
    schedule.add_system(&mut world, referee.in_phase(ripple::schedule::POST_UPDATE)).unwrap();

    let mut registry = DataCommands::new();
    registry.target::<HealthApi>("health").method("apply_damage", HealthApi::apply_damage);
    registry.target::<Gui>("gui").method("set_level_complete", Gui::set_level_complete);
    let level = format!(r#"[["gui", "set_level_complete", false], ["health", "apply_damage", "{}", 45]]"#, enemies[1]);
    registry.run_batch(&mut world, &level).expect("the level file is valid");
    let typo =
        registry.run_batch(&mut world, r#"[["gui", "set_level_complete", false], ["helth", "apply_damage", 1, 2]]"#);
    world.resource_mut::<Log>().unwrap().0.push(format!("refused: {}", typo.unwrap_err()));

    for _ in 0..frames {
        schedule.run(&mut world);
    }
    let log = std::mem::take(&mut world.resource_mut::<Log>().unwrap().0);
    (world, log)
}

#[allow(dead_code, reason = "used when run as an example, not when included by tests")]
fn main() {
    let (world, log) = run(6);
    for line in &log {
        println!("{line}");
    }
    println!("level complete: {}", world.api::<Gui>().unwrap().level_complete);
}
