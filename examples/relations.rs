//! Relations of your own: an inventory and a targeting relation.
//!
//! - `ContainedIn(bag)`: an item in a container. Containers nest (a pouch in a
//!   backpack), never in a cycle (the relation is acyclic), and despawning a container
//!   despawns what it holds, transitively.
//! - `Targets(enemy)`: a unit aiming at another. Units may target each other (a cycle
//!   is fine), and when a target dies its attackers merely lose their target.
//!
//! The world keeps each target's list of sources (`Related<ContainedIn>`,
//! `Related<Targets>`) in step through every path: the checked calls, direct inserts
//! and removals, and despawns.
//!
//! Run with `cargo run --example relations`.

use ripple::relation::{DespawnPolicy, Related, Relation};
use ripple::{Entity, World};

/// An item in a container; despawning the container despawns its contents.
pub struct ContainedIn(pub Entity);

impl Relation for ContainedIn {
    const ON_TARGET_DESPAWN: DespawnPolicy = DespawnPolicy::DespawnRelated;
    const ACYCLIC: bool = true;
    fn target(&self) -> Entity {
        self.0
    }
    fn to(target: Entity) -> Self {
        ContainedIn(target)
    }
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
    }
}

/// A unit aiming at another; when the target dies, its attackers lose their target.
pub struct Targets(pub Entity);

impl Relation for Targets {
    // The default policy, `Detach`, spelled out.
    const ON_TARGET_DESPAWN: DespawnPolicy = DespawnPolicy::Detach;
    fn target(&self) -> Entity {
        self.0
    }
    fn to(target: Entity) -> Self {
        Targets(target)
    }
    fn set_target(&mut self, target: Entity) {
        self.0 = target;
    }
}

/// A name, for printing.
pub struct Name(pub &'static str);

fn names(world: &World, entities: &[Entity]) -> Vec<&'static str> {
    entities.iter().map(|&e| world.get::<Name>(e).map_or("?", |n| n.0)).collect()
}

fn target_name<R: Relation>(world: &World, source: Entity) -> &'static str {
    world.relation_target::<R>(source).map_or("nothing", |target| names(world, &[target])[0])
}

/// Plays the example and returns what it printed, line by line.
pub fn run() -> Vec<String> {
    let mut out = Vec::new();
    let mut world = World::new();
    world.register_relation::<ContainedIn>();
    world.register_relation::<Targets>();

    // An inventory: a backpack holding a pouch holding coins, and a sword.
    let hero = world.spawn((Name("hero"),));
    let backpack = world.spawn((Name("backpack"),));
    let pouch = world.spawn_related::<ContainedIn, _>(backpack, (Name("pouch"),)).unwrap();
    let coins = world.spawn_related::<ContainedIn, _>(pouch, (Name("coins"),)).unwrap();
    let sword = world.spawn((Name("sword"), ContainedIn(backpack))); // a direct insert is followed too
    let potion = world.spawn((Name("potion"),));
    world.insert_related::<ContainedIn>(backpack, 0, &[potion]).unwrap(); // first in the list
    out.push(format!("backpack holds {:?}", names(&world, world.related::<ContainedIn>(backpack))));
    // Putting the backpack into the pouch would close a cycle: refused, nothing changes.
    let refused = world.relate(backpack, ContainedIn(pouch)).is_err();
    out.push(format!("backpack into pouch refused (a cycle): {refused}"));
    // Moving the coins out of the pouch into the backpack.
    world.relate(coins, ContainedIn(backpack)).unwrap();
    out.push(format!(
        "after moving the coins: backpack holds {:?}",
        names(&world, world.related::<ContainedIn>(backpack))
    ));

    // Targeting: two goblins aim at the hero, the hero aims back at one of them.
    let grim = world.spawn((Name("grim"),));
    let snag = world.spawn((Name("snag"),));
    world.add_related::<Targets>(hero, &[grim, snag]).unwrap();
    world.relate(hero, Targets(grim)).unwrap(); // a cycle: fine for this relation
    out.push(format!("hero is targeted by {:?}", names(&world, world.related::<Targets>(hero))));
    // Grim dies: those aiming at him (the hero) lose their target; Grim's own aim goes too.
    world.despawn(grim).unwrap();
    out.push(format!(
        "grim dies: hero targets {}, hero is targeted by {:?}",
        target_name::<Targets>(&world, hero),
        names(&world, world.related::<Targets>(hero))
    ));

    // Despawning the backpack despawns what it holds, transitively (the pouch, and
    // whatever the pouch held), but not what merely targeted it.
    world.relate(snag, Targets(backpack)).unwrap();
    let items = [pouch, coins, sword, potion];
    world.despawn(backpack).unwrap();
    let left = items.iter().filter(|&&e| world.contains(e)).count();
    out.push(format!(
        "backpack despawned: {left} of its 4 items left; snag lives: {}, and targets {}",
        world.contains(snag),
        target_name::<Targets>(&world, snag)
    ));
    // The list is a read-only component: queries may read it.
    let mut targeted = world.query::<(&Name, &Related<Targets>)>();
    for (name, attackers) in targeted.iter(&world) {
        out.push(format!("{} has {} attacker(s)", name.0, attackers.len()));
    }
    out
}

#[allow(dead_code, reason = "the test harness includes this file for `run` only")]
fn main() {
    for line in run() {
        println!("{line}");
    }
}
