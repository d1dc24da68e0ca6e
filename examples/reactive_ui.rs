//! A retained UI kept in step with the game by observers alone.
//!
//! Players have a `Name`, `Health` and a `Score`. The UI is a small retained tree: a
//! root with one panel per player, each panel holding a health label and a score
//! label. Nothing walks the players each frame to rebuild it; observers do the work:
//!
//! * `OnAdd<Health>` builds a player's panel;
//! * `OnChange<Health>` and `OnChange<Score>` redraw one label (at the sync point, once
//!   per player however many hits landed that frame);
//! * `OnRemove<Health>` (a player leaves, or is despawned) takes the panel down.
//!
//! Each redraw is printed. `run` plays a seeded random match and, after every frame,
//! checks the UI against one rebuilt from scratch (`rebuild`); `tests/reactive_ui.rs`
//! runs it over many seeds.
//!
//! Run with `cargo run --example reactive_ui`.

use std::collections::BTreeMap;

use ripple::observer::{OnAdd, OnChange, OnRemove, Trigger};
use ripple::system::{Query, ResMut};
use ripple::{Entity, World};

/// A player's name.
#[derive(Clone, Debug)]
pub struct Name(pub String);

/// A player's hit points.
#[derive(Clone, Copy, Debug)]
pub struct Health(pub i32);

/// A player's points.
#[derive(Clone, Copy, Debug)]
pub struct Score(pub u32);

/// One player's panel: its two labels' text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Panel {
    /// "name: hp".
    pub health: String,
    /// "score: n".
    pub score: String,
}

/// The retained UI: the root's panels, by player (ordered, so two UIs compare
/// equal when they show the same).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Ui {
    /// The panels under the root.
    pub panels: BTreeMap<Entity, Panel>,
    /// Every redraw, in order, as printed.
    pub redraws: Vec<String>,
}

fn health_text(name: &Name, health: &Health) -> String {
    format!("{}: {} hp", name.0, health.0)
}

fn score_text(score: Option<&Score>) -> String {
    format!("score: {}", score.map_or(0, |s| s.0))
}

impl Ui {
    fn redraw(&mut self, line: String) {
        println!("{line}");
        self.redraws.push(line);
    }
}

/// Registers the observers that keep `Ui` in step.
pub fn install(world: &mut World) {
    world.insert_resource(Ui::default());
    world
        .observe(
            |t: Trigger<'_, OnAdd<Health>>,
             players: Query<'_, '_, (&Name, &Health, Option<&Score>)>,
             mut ui: ResMut<'_, Ui>| {
                let (name, health, score) = players.get(t.entity()).expect("a player has a name");
                let panel = Panel { health: health_text(name, health), score: score_text(score) };
                ui.redraw(format!("+ panel {}: [{}] [{}]", t.entity(), panel.health, panel.score));
                ui.panels.insert(t.entity(), panel);
            },
        )
        .unwrap();
    world
        .observe(
            |t: Trigger<'_, OnChange<Health>>, players: Query<'_, '_, (&Name, &Health)>, mut ui: ResMut<'_, Ui>| {
                let (name, health) = players.get(t.entity()).expect("a player has a name");
                let text = health_text(name, health);
                let Some(panel) = ui.panels.get_mut(&t.entity()) else { return };
                if panel.health != text {
                    panel.health = text.clone();
                    ui.redraw(format!("  {} health -> [{text}]", t.entity()));
                }
            },
        )
        .unwrap();
    world
        .observe(|t: Trigger<'_, OnChange<Score>>, scores: Query<'_, '_, &Score>, mut ui: ResMut<'_, Ui>| {
            let text = score_text(scores.get(t.entity()).ok());
            let Some(panel) = ui.panels.get_mut(&t.entity()) else { return };
            if panel.score != text {
                panel.score = text.clone();
                ui.redraw(format!("  {} score -> [{text}]", t.entity()));
            }
        })
        .unwrap();
    world
        .observe(|t: Trigger<'_, OnRemove<Health>>, mut ui: ResMut<'_, Ui>| {
            ui.panels.remove(&t.entity());
            ui.redraw(format!("- panel {}", t.entity()));
        })
        .unwrap();
}

/// The UI built from scratch from the world: what the observers must have kept.
pub fn rebuild(world: &mut World) -> BTreeMap<Entity, Panel> {
    let mut players = world.query::<(Entity, &Name, &Health, Option<&Score>)>();
    let mut panels = BTreeMap::new();
    for (entity, name, health, score) in players.iter(world) {
        panels.insert(entity, Panel { health: health_text(name, health), score: score_text(score) });
    }
    panels
}

/// A small deterministic random number generator (xorshift), so runs repeat.
pub struct Rng(u64);

impl Rng {
    /// Seeded; never zero inside.
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// A number below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Plays `frames` frames of a random match from `seed`; after each, checks the UI
/// against [`rebuild`]. Returns the UI's redraws, or the first frame where it differed.
pub fn run(seed: u64, frames: usize) -> Result<Vec<String>, String> {
    let mut world = World::new();
    install(&mut world);
    let mut rng = Rng::new(seed);
    let mut players: Vec<Entity> = Vec::new();
    let mut named = 0;
    for frame in 0..frames {
        // A few random events per frame.
        for _ in 0..rng.below(6) {
            match rng.below(8) {
                0 | 1 if players.len() < 6 => {
                    named += 1;
                    let mut player = (Name(format!("p{named}")), Health(10));
                    if rng.below(2) == 0 {
                        players.push(world.spawn(player.clone()));
                    } else {
                        player.1 = Health(12);
                        let e = world.spawn(player);
                        world.insert(e, (Score(0),)).unwrap();
                        players.push(e);
                    }
                }
                2 | 3 if !players.is_empty() => {
                    // Several hits on one player in one frame: one redraw.
                    let e = players[rng.below(players.len() as u64) as usize];
                    for _ in 0..=rng.below(3) {
                        world.get_mut::<Health>(e).unwrap().0 -= 1 + rng.below(4) as i32;
                    }
                }
                4 if !players.is_empty() => {
                    let e = players[rng.below(players.len() as u64) as usize];
                    match world.get_mut::<Score>(e) {
                        Ok(mut score) => score.0 += 1 + rng.below(10) as u32,
                        Err(_) => world.insert(e, (Score(1),)).unwrap(),
                    }
                }
                5 if !players.is_empty() => {
                    // Writing the same value back: a change, but nothing to redraw.
                    let e = players[rng.below(players.len() as u64) as usize];
                    let hp = world.get::<Health>(e).unwrap().0;
                    world.get_mut::<Health>(e).unwrap().0 = hp;
                }
                6 if !players.is_empty() => {
                    let e = players.swap_remove(rng.below(players.len() as u64) as usize);
                    world.despawn(e).unwrap();
                }
                _ => {}
            }
        }
        // The knocked-out leave (their health goes; the entity stays).
        for &e in &players {
            if world.get::<Health>(e).is_ok_and(|h| h.0 <= 0) {
                world.remove::<(Health,)>(e).unwrap();
            }
        }
        players.retain(|&e| world.get::<Health>(e).is_ok());
        world.flush(); // the frame's sync point
        let expected = rebuild(&mut world);
        let ui = world.resource::<Ui>().unwrap();
        if ui.panels != expected {
            return Err(format!("frame {frame}: ui {:?} but the world shows {expected:?}", ui.panels));
        }
    }
    Ok(world.resource::<Ui>().unwrap().redraws.clone())
}

#[allow(dead_code, reason = "the test includes this file for `run` only")]
fn main() {
    match run(7, 12) {
        Ok(redraws) => println!("{} redraws, the UI matched a full rebuild after every frame", redraws.len()),
        Err(error) => {
            eprintln!("{error}");
            std::process::exit(1);
        }
    }
}
