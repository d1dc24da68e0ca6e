//! A health logger that visits only dirty entities.
//!
//! A `Health` component and a logger whose query selects entities with `Health` and
//! names `Health` as its dirty component, so each update it sees only entities whose
//! health changed since its last run. Across four updates it prints `10/10`,
//! nothing, `8/10`, nothing. The all-entities variant prints every update.
//!
//! Run with `cargo run --example health_logger`.

use ripple::World;
use ripple::query::{Dirty, QueryState};

/// Current and maximum health.
#[derive(Debug)]
pub struct Health {
    /// Hit points left.
    pub current: u32,
    /// Hit points when unhurt.
    pub maximum: u32,
}

/// Runs four updates and returns what the logger printed, one line per
/// logged entity. With `dirty_only` the logger visits dirty entities; otherwise all.
pub fn run(dirty_only: bool) -> Vec<String> {
    let mut world = World::new();
    let mut dirty_logger: QueryState<&Health, Dirty<(Health,)>> = world.query_filtered();
    let mut all_logger: QueryState<&Health> = world.query();
    let mut printed = Vec::new();
    let mut update = |world: &mut World| {
        let mut log = |health: &Health| printed.push(format!("{}/{}", health.current, health.maximum));
        if dirty_only {
            dirty_logger.for_each(world, &mut log);
        } else {
            all_logger.for_each(world, &mut log);
        }
    };

    let entity = world.spawn((Health { current: 10, maximum: 10 },));
    update(&mut world); // "10/10": the component starts dirty
    update(&mut world); // nothing
    world.get_mut::<Health>(entity).expect("the entity is alive").current = 8;
    update(&mut world); // "8/10"
    update(&mut world); // nothing
    printed
}

#[allow(dead_code, reason = "the test harness includes this file for `run` only")]
fn main() {
    println!("dirty entities only:");
    for line in run(true) {
        println!("{line}");
    }
    println!("every entity, every update:");
    for line in run(false) {
        println!("{line}");
    }
}
